// Building blocks of the row-wise kernels (reductions, arg-max, softmax): a tensor seen
// as `rows` independent rows of `cols` elements each -- the kept dims and the reduced
// dims of a reduction -- and the block-wide combine of one value per thread.
#pragma once
#include <climits>
#include <cstdint>

#include "cuda/emu/cuda_emu.h"
#include "cuda/strided_iter.cuh"

namespace aakaar::cuda {

constexpr unsigned kFullMask = 0xffffffffu;
// Rows of at most this many elements get one thread each (a sequential loop, no
// barriers); longer rows get a block of threads and a tree combine.
constexpr int64_t kThreadPerRowCols = 64;

// Offsets of linear index i; a 1-d iterator (the common case after dims are merged)
// needs a multiply, not the 64-bit divmod of the general walk.
template <int N>
__device__ __forceinline__ void offsets_of(const StridedIter<N>& it, int64_t i, int64_t (&off)[N]) {
  if (it.ndim == 1) {
    for (int t = 0; t < N; ++t) off[t] = i * it.strides[0][t];
  } else {
    it.offsets(i, off);
  }
}

// Warp shuffles move 4 or 8 bytes; bool and uint8 travel as an int.
template <typename T>
__device__ __forceinline__ T shfl_down(T v, int delta) {
  if constexpr (sizeof(T) < 4) return static_cast<T>(__shfl_down_sync(kFullMask, static_cast<int>(v), delta));
  else return __shfl_down_sync(kFullMask, v, delta);
}

// Combines one value per thread of the block with r.combine; thread 0 gets the result.
// Warps reduce in registers with shuffles, then one value per warp goes through shared
// memory to warp 0. Every thread of the block must call it (it has barriers), and
// blockDim.x must be a multiple of 32 (every lane of every warp takes part).
// [[book:block_reduce]]
template <typename T, typename R>
__device__ __forceinline__ T block_reduce(T v, const R& r) {
  __shared__ T warp_vals[32];
  const int lane = threadIdx.x % 32, warp = threadIdx.x / 32, nwarps = blockDim.x / 32;
  for (int d = 16; d > 0; d /= 2) v = r.combine(v, shfl_down(v, d));
  if (lane == 0) warp_vals[warp] = v;
  __syncthreads();
  if (warp == 0) {
    v = lane < nwarps ? warp_vals[lane] : r.identity();
    for (int d = 16; d > 0; d /= 2) v = r.combine(v, shfl_down(v, d));
  }
  __syncthreads();  // warp_vals is free again for the next call
  return v;
}
// [[/book:block_reduce]]

// Threads per block for rows of `cols` elements: enough that each thread has a few
// elements, a multiple of 32, at most 256.
inline int row_block_threads(int64_t cols) {
  int t = 32;
  while (t < 256 && t * 8 < cols) t *= 2;
  return t;
}

}  // namespace aakaar::cuda
