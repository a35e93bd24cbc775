// The rows along one dim of tensors of one shape (reductions along a dim, the scans, sort,
// scatter_reduce): an iterator over every other dim, each of its positions one row.
#pragma once
#include <array>

#include "cuda/map_kernel.cuh"

namespace aakaar::cuda {

// The walk over every dim but `dim` (where t has size 1 in the keepdim view), for the
// tensors `ts` of one shape; returns the number of rows.
template <int N>
int64_t rows_except(const Shape& shape, int64_t dim, const std::array<const Tensor*, N>& ts, StridedIter<N>* it) {
  Shape s = shape;
  s[dim] = 1;
  std::array<const Shape*, N> strides;
  for (int t = 0; t < N; ++t) strides[t] = &ts[t]->strides;
  bool contiguous;
  return make_iter<N>(s, strides, it, &contiguous);
}

}  // namespace aakaar::cuda
