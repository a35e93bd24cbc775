// Winograd's F(2x2, 3x3) for the CPU's conv2d (conv2d_winograd.cpp): the forward, grad_input and
// grad_weight.
#pragma once
#include "core/backend.h"

namespace aakaar::cpu {

// Whether conv2d.cpp takes the Winograd road: float32, a 3x3 kernel, stride and dilation 1,
// one group, padding at most 2, at least 8 input and 8 output channels (fewer channels leave
// too little work per transformed tile). AAKAAR_CONV2D_ALGO=im2col in the environment turns it
// off, so that the benchmark and the tests can compare the two roads in one run.
bool winograd_applies(const Tensor& x, const Tensor& w, const Conv2dArgs& a);

void conv2d_winograd(const Tensor& out, const Tensor& x, const Tensor& w, const Tensor* b, const Conv2dArgs& a);
void conv2d_winograd_grad_input(const Tensor& grad_x, const Tensor& g, const Tensor& w, const Conv2dArgs& a);
void conv2d_winograd_grad_weight(const Tensor& grad_w, const Tensor& g, const Tensor& x, const Conv2dArgs& a);

}  // namespace aakaar::cpu
