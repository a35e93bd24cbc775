// Elementwise CUDA kernels (elementwise.cu). Pointers are device pointers to each view's
// first element; strides are in elements, already broadcast (0 along broadcast
// dimensions), all describing the output's shape `sizes`.
#pragma once
#include <cstdint>

namespace aakaar::cuda {

// out = a + b, for float, double and int64_t.
template <typename T>
void ewise_add(int ndim, const int64_t* sizes, T* out, const int64_t* out_strides, const T* a,
               const int64_t* a_strides, const T* b, const int64_t* b_strides);

}  // namespace aakaar::cuda
