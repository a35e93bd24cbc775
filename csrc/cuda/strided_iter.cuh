// StridedIter<N>: how the elementwise and reduction kernels walk N tensors (views) of one
// shape with arbitrary strides -- transposed, sliced, broadcast (stride 0) -- without
// copying them to contiguous memory first.
//
// The shape and the N stride vectors travel to the kernel by value, in the launch's
// parameter buffer. Thread i turns its linear index (row-major over the shape) into one
// element offset per tensor: one divmod per dimension, shared by all N tensors. On the
// host, make_strided_iter() first merges dimensions that are contiguous in every tensor,
// so the common cases (contiguous tensors, a broadcast row) need one or two divmods, and
// tells the launcher when every tensor is plainly contiguous (no divmods at all).
#pragma once
#include <cstdint>
#include <stdexcept>
#include <string>

#include "cuda/emu/cuda_emu.h"

namespace aakaar::cuda {

constexpr int kMaxDims = 8;

// [[book:strided_iter]]
template <int N>
struct StridedIter {
  int ndim;
  int64_t sizes[kMaxDims];
  int64_t strides[kMaxDims][N];  // in elements

  // Offsets (in elements) of the element with row-major linear index i, one per tensor.
  __host__ __device__ __forceinline__ void offsets(int64_t i, int64_t (&off)[N]) const {
    for (int t = 0; t < N; ++t) off[t] = 0;
    for (int d = ndim - 1; d >= 0; --d) {
      const int64_t size = sizes[d];
      const int64_t q = i / size;
      const int64_t r = i - q * size;
      i = q;
      for (int t = 0; t < N; ++t) off[t] += r * strides[d][t];
    }
  }
};
// [[/book:strided_iter]]

// Builds the iterator for tensors of shape sizes[0..ndim) with strides[t][0..ndim).
// Returns the number of elements; *contiguous says whether every tensor is contiguous.
template <int N>
inline int64_t make_strided_iter(int ndim, const int64_t* sizes, const int64_t* const (&strides)[N],
                                 StridedIter<N>* it, bool* contiguous) {
  if (ndim < 0 || ndim > kMaxDims)
    throw std::invalid_argument("CUDA kernels support tensors of at most " + std::to_string(kMaxDims) +
                                " dimensions, got " + std::to_string(ndim));
  int64_t numel = 1;
  for (int d = 0; d < ndim; ++d) {
    if (sizes[d] < 0)
      throw std::invalid_argument("negative size " + std::to_string(sizes[d]) + " in dimension " + std::to_string(d));
    numel *= sizes[d];
  }
  // [[book:strided_iter_merge]]
  // Keep only dimensions of size > 1, then merge neighbours d-1, d when, for every
  // tensor, stepping once along d-1 equals stepping sizes[d] times along d.
  int nd = 0;
  for (int d = 0; d < ndim; ++d) {
    if (sizes[d] == 1) continue;
    bool merge = nd > 0;
    for (int t = 0; t < N && merge; ++t)
      merge = it->strides[nd - 1][t] == strides[t][d] * sizes[d];
    if (merge) {
      it->sizes[nd - 1] *= sizes[d];
      for (int t = 0; t < N; ++t) it->strides[nd - 1][t] = strides[t][d];
    } else {
      it->sizes[nd] = sizes[d];
      for (int t = 0; t < N; ++t) it->strides[nd][t] = strides[t][d];
      ++nd;
    }
  }
  if (nd == 0) {  // a scalar or a tensor of ones: one element at offset 0
    it->sizes[0] = 1;
    for (int t = 0; t < N; ++t) it->strides[0][t] = 1;
    nd = 1;
  }
  // [[/book:strided_iter_merge]]
  it->ndim = nd;
  *contiguous = nd == 1;
  for (int t = 0; t < N; ++t) *contiguous = *contiguous && it->strides[0][t] == 1;
  return numel;
}

}  // namespace aakaar::cuda
