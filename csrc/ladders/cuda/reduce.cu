// Sum of all elements, in two passes: each block adds up a grid-stride slice of the
// input into one partial sum, then a single block adds up the partials. Two passes
// instead of atomicAdd into one number keep the order of additions -- hence the float
// result -- identical from run to run.
//
// Inside a block, two versions:
//  v1 SharedTree:  every thread writes its value to shared memory, then half the threads
//                  add the other half's values, level by level, with a barrier per level.
//  v2 WarpShuffle: the 32 threads of a warp reduce in registers with __shfl_down_sync
//                  (no shared memory, no barrier); one value per warp then goes through
//                  shared memory and warp 0 reduces those.
#include "reduce.h"

#include "cuda/emu/cuda_emu.h"
#include "cuda/launch_config.cuh"
#include "cuda/strided_iter.cuh"

namespace aakaar::cuda {

namespace {

constexpr int kThreads = 256;    // a multiple of 32: every warp is full
constexpr int kBlocksPerSM = 8;  // one partial per block; the second pass is one block

// Each thread's private sum over its grid-stride slice of the input.
// [[book:reduce_thread_partial]]
template <typename T, bool kContiguous>
__device__ __forceinline__ T thread_partial(int64_t n, const StridedIter<1>& it, const T* x) {
  T acc = T(0);
  const int64_t grid_stride = static_cast<int64_t>(blockDim.x) * gridDim.x;
  for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += grid_stride) {
    if constexpr (kContiguous) {
      acc += x[i];
    } else {
      int64_t off[1];
      it.offsets(i, off);
      acc += x[off[0]];
    }
  }
  return acc;
}
// [[/book:reduce_thread_partial]]

// v1: blockDim.x values in dynamic shared memory (blockDim.x a power of two).
// [[book:reduce_shared_tree]]
template <typename T, bool kContiguous>
__global__ void sum_shared_tree_kernel(int64_t n, StridedIter<1> it, const T* x, T* partials) {
  AAKAAR_DYNAMIC_SHARED(T, buf);
  const unsigned t = threadIdx.x;
  buf[t] = thread_partial<T, kContiguous>(n, it, x);
  __syncthreads();
  for (unsigned half = blockDim.x / 2; half > 0; half /= 2) {
    if (t < half) buf[t] += buf[t + half];
    __syncthreads();  // outside the if: every thread must reach every barrier
  }
  if (t == 0) partials[blockIdx.x] = buf[0];
}
// [[/book:reduce_shared_tree]]

// Sum over the 32 lanes of a warp; lane 0 ends up with the total.
// [[book:reduce_warp_sum]]
template <typename T>
__device__ __forceinline__ T warp_sum(T v) {
  for (int offset = 16; offset > 0; offset /= 2) v += __shfl_down_sync(0xffffffffu, v, offset);
  return v;
}
// [[/book:reduce_warp_sum]]

// v2: shuffles within warps, then one shared slot per warp (blockDim.x a multiple of 32).
// [[book:reduce_warp_shuffle]]
template <typename T, bool kContiguous>
__global__ void sum_warp_shuffle_kernel(int64_t n, StridedIter<1> it, const T* x, T* partials) {
  __shared__ T warp_sums[32];
  const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  T v = warp_sum(thread_partial<T, kContiguous>(n, it, x));
  if (lane == 0) warp_sums[warp] = v;
  __syncthreads();
  if (warp == 0) {
    v = lane < static_cast<int>(blockDim.x / 32) ? warp_sums[lane] : T(0);
    v = warp_sum(v);
    if (lane == 0) partials[blockIdx.x] = v;
  }
}
// [[/book:reduce_warp_shuffle]]

template <typename T, bool kContiguous>
void launch_sum(SumVersion version, int blocks, int64_t n, const StridedIter<1>& it, const T* x, T* out) {
  if (version == SumVersion::SharedTree)
    AAKAAR_LAUNCH((sum_shared_tree_kernel<T, kContiguous>), blocks, kThreads, kThreads * sizeof(T), n, it, x, out);
  else
    AAKAAR_LAUNCH((sum_warp_shuffle_kernel<T, kContiguous>), blocks, kThreads, 0, n, it, x, out);
  AAKAAR_CHECK_LAUNCH();
}

}  // namespace

template <typename T>
void sum_all(int ndim, const int64_t* sizes, const T* x, const int64_t* strides, T* out, SumVersion version) {
  StridedIter<1> it;
  bool contiguous;
  const int64_t n = make_strided_iter<1>(ndim, sizes, {strides}, &it, &contiguous);
  if (n == 0) {
    AAKAAR_CUDA_CHECK(cudaMemset(out, 0, sizeof(T)));  // the empty sum; all-zero bits are 0.0
    return;
  }
  const int blocks = grid_stride_blocks(n, kThreads, kBlocksPerSM);
  if (blocks == 1) {  // one block already produces the total
    contiguous ? launch_sum<T, true>(version, 1, n, it, x, out) : launch_sum<T, false>(version, 1, n, it, x, out);
    return;
  }
  T* partials = nullptr;  // TODO(lead): take this from the caching allocator once it exists
  AAKAAR_CUDA_CHECK(cudaMalloc(&partials, blocks * sizeof(T)));
  try {
    contiguous ? launch_sum<T, true>(version, blocks, n, it, x, partials)
               : launch_sum<T, false>(version, blocks, n, it, x, partials);
    StridedIter<1> flat;
    const int64_t nb = blocks, one = 1;
    make_strided_iter<1>(1, &nb, {&one}, &flat, &contiguous);
    launch_sum<T, true>(version, 1, nb, flat, partials, out);
  } catch (...) {
    cudaFree(partials);
    throw;
  }
  AAKAAR_CUDA_CHECK(cudaFree(partials));
}

template void sum_all<float>(int, const int64_t*, const float*, const int64_t*, float*, SumVersion);
template void sum_all<double>(int, const int64_t*, const double*, const int64_t*, double*, SumVersion);

}  // namespace aakaar::cuda
