// conv2d's two gradients as ops of their own (csrc/ops/conv.cpp). Each is differentiable (its
// backward is conv2d and the other one), so conv2d's gradient has a gradient (double backward),
// and the transposed convolution, whose forward is conv2d's input gradient, has a backward.
// A header of its own, not ops.h: only the convolution's files need it.
#pragma once
#include "ops/ops.h"

namespace aakaar::ops {

// g (N, O, Ho, Wo), w (O, C / groups, kH, kW) -> the gradient for an input of x_shape (N, C, H, W).
TensorPtr conv2d_input_grad(const TensorPtr& g, const TensorPtr& w, const Shape& x_shape, const Conv2dArgs& a);
// g (N, O, Ho, Wo), x (N, C, H, W) -> the gradient for a weight of w_shape (O, C / groups, kH, kW).
TensorPtr conv2d_weight_grad(const TensorPtr& g, const TensorPtr& x, const Shape& w_shape, const Conv2dArgs& a);
// conv2d of x and w into an output of out_shape, the geometry already checked (by conv2d, or
// because the shapes come from a convolution that was).
TensorPtr conv2d_checked(const TensorPtr& x, const TensorPtr& w, const TensorPtr& b, const Shape& out_shape,
                         const Conv2dArgs& a);

}  // namespace aakaar::ops
