// The backward formulas of the scans beyond cumsum and of scatter_reduce (csrc/ops/sort_scan.cpp,
// csrc/ops/index.cpp). sort and cummax / cummin need none of their own: their values are the
// input gathered at their indices, so they record gather's (record_gather).
#pragma once
#include <string>

#include "autograd/derivatives.h"
#include "core/tensor.h"

namespace aakaar::autograd {

void record_cumprod(const TensorPtr& out, const TensorPtr& in, int64_t dim);
void record_logcumsumexp(const TensorPtr& out, const TensorPtr& in, int64_t dim);
// out = self.scatter_reduce(dim, index, src, reduce, include_self); index already checked and wrapped.
void record_scatter_reduce(const TensorPtr& out, const TensorPtr& self, int64_t dim, const TensorPtr& index,
                           const TensorPtr& src, const std::string& reduce, bool include_self);

}  // namespace aakaar::autograd
