// The backward of the fused pointwise losses (ops::pointwise_loss, csrc/ops/pointwise_loss.cpp).
#pragma once
#include "core/tensor.h"
#include "ops/ops.h"

namespace aakaar::autograd {

// Records loss = pointwise_loss(kind, x, t, ...) with its backward: grad_x = loss'(x, t) * g * weight.
// weight, pos_weight and aux may be null; aux is what the forward kept (BCEWithLogits: exp(-|x|)).
void record_pointwise_loss(const TensorPtr& loss, PointwiseLoss kind, const TensorPtr& x, const TensorPtr& t,
                           const TensorPtr& weight, const TensorPtr& pos_weight, const TensorPtr& aux, double param,
                           Reduction r);

}  // namespace aakaar::autograd
