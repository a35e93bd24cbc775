// Elementwise addition over strided views: the first CUDA kernel of the library.
//
// One thread per output element, in a grid-stride loop (a thread handles elements i,
// i + gridSize, ...), so a grid of bounded size covers any tensor and consecutive threads
// touch consecutive elements -- coalesced memory access whenever the tensors are
// contiguous. Non-contiguous views go through StridedIter; when every tensor is
// contiguous, a second instantiation skips the index arithmetic entirely.
#include "elementwise.h"

#include "cuda/emu/cuda_emu.h"
#include "cuda/launch_config.cuh"
#include "cuda/strided_iter.cuh"

namespace aakaar::cuda {

namespace {

constexpr int kThreads = 256;
constexpr int kBlocksPerSM = 8;  // 8 x 256 = 2048 threads: a full A100/H100 multiprocessor

// [[book:cuda_ewise_add_kernel]]
template <typename T, bool kContiguous>
__global__ void ewise_add_kernel(int64_t n, StridedIter<3> it, T* out, const T* a, const T* b) {
  const int64_t grid_stride = static_cast<int64_t>(blockDim.x) * gridDim.x;
  for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += grid_stride) {
    if constexpr (kContiguous) {
      out[i] = a[i] + b[i];
    } else {
      int64_t off[3];
      it.offsets(i, off);
      out[off[0]] = a[off[1]] + b[off[2]];
    }
  }
}
// [[/book:cuda_ewise_add_kernel]]

}  // namespace

// [[book:cuda_ewise_add_launch]]
template <typename T>
void ewise_add(int ndim, const int64_t* sizes, T* out, const int64_t* out_strides, const T* a,
               const int64_t* a_strides, const T* b, const int64_t* b_strides) {
  StridedIter<3> it;
  bool contiguous;
  const int64_t n = make_strided_iter<3>(ndim, sizes, {out_strides, a_strides, b_strides}, &it, &contiguous);
  if (n == 0) return;  // a launch needs at least one block
  const int blocks = grid_stride_blocks(n, kThreads, kBlocksPerSM);
  if (contiguous)
    AAKAAR_LAUNCH((ewise_add_kernel<T, true>), blocks, kThreads, 0, n, it, out, a, b);
  else
    AAKAAR_LAUNCH((ewise_add_kernel<T, false>), blocks, kThreads, 0, n, it, out, a, b);
  AAKAAR_CHECK_LAUNCH();
}
// [[/book:cuda_ewise_add_launch]]

template void ewise_add<float>(int, const int64_t*, float*, const int64_t*, const float*, const int64_t*,
                               const float*, const int64_t*);
template void ewise_add<double>(int, const int64_t*, double*, const int64_t*, const double*, const int64_t*,
                                const double*, const int64_t*);
template void ewise_add<int64_t>(int, const int64_t*, int64_t*, const int64_t*, const int64_t*,
                                 const int64_t*, const int64_t*, const int64_t*);

}  // namespace aakaar::cuda
