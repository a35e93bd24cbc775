// The backward of 2-d convolution and pooling (ops in csrc/ops/conv.cpp).
#pragma once
#include "core/tensor.h"
#include "ops/conv_grad.h"

namespace aakaar::autograd {

// out = conv2d(x, w, b) (x, w, b contiguous; b may be null) with its backward (Conv2dBackward).
void record_conv2d(const TensorPtr& out, const TensorPtr& x, const TensorPtr& w, const TensorPtr& b,
                   const Conv2dArgs& a);
// out = conv2d_input_grad(g, w) / conv2d_weight_grad(g, x) (operands contiguous), each bilinear:
// its backward is conv2d and the other gradient op.
void record_conv2d_input_grad(const TensorPtr& out, const TensorPtr& g, const TensorPtr& w, const Conv2dArgs& a);
void record_conv2d_weight_grad(const TensorPtr& out, const TensorPtr& g, const TensorPtr& x, const Conv2dArgs& a);
// out (P, Ho, Wo) = max pooling of planes xp (P, H, W), the maxima at idx (flat in each plane).
void record_max_pool2d(const TensorPtr& out, const TensorPtr& xp, const TensorPtr& idx);
// out (P, Ho, Wo) = average pooling of planes xp (P, H, W).
void record_avg_pool2d(const TensorPtr& out, const TensorPtr& xp, const Pool2dArgs& a);

}  // namespace aakaar::autograd
