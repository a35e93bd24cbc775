// The backward of the fused Linear op (ops::linear, csrc/ops/linear.cpp).
#pragma once
#include "core/tensor.h"
#include "ops/ops.h"

namespace aakaar::autograd {

// Records out = act(x @ w^T + b) (b may be null) with its backward.
void record_linear(const TensorPtr& out, const TensorPtr& x, const TensorPtr& w, const TensorPtr& b,
                   LinearActivation act);

}  // namespace aakaar::autograd
