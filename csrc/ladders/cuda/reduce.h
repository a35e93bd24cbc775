// Reduction CUDA kernels (reduce.cu). `x` is a device pointer to the view's first
// element; `out` a device pointer to one element.
#pragma once
#include <cstdint>

namespace aakaar::cuda {

// The two rungs of the reduction ladder, kept side by side for the book and the tests.
enum class SumVersion {
  SharedTree = 1,   // tree in shared memory, a __syncthreads() per level
  WarpShuffle = 2,  // warp shuffles inside each warp, shared memory only between warps
};

// *out = sum of all elements of the strided view x (float and double; 0 if empty).
// The result is deterministic: the same inputs always add up in the same order.
template <typename T>
void sum_all(int ndim, const int64_t* sizes, const T* x, const int64_t* strides, T* out,
             SumVersion version = SumVersion::WarpShuffle);

}  // namespace aakaar::cuda
