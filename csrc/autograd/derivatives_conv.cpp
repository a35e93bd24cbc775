// Backward of 2-d convolution and pooling.
//
// conv2d: the three gradients come from the device's kernel (backend entry
// conv2d_backward; the CPU's is in cpu/fused/conv2d.cpp: two GEMMs and col2im
// per image), in one call. Under create_graph they come instead from the ops
// conv2d_input_grad and conv2d_weight_grad (the same kernel, one gradient per
// call), which are recorded: conv2d is linear in x and in w, so the gradient of
// each gradient op is conv2d or the other gradient op, and a second derivative
// (double backward) costs convolutions only. The transposed convolution is
// conv2d_input_grad, so its backward is the same two nodes.
//
// max_pool2d: the gradient goes to the maximum of each window, a scatter-add
// of g at the saved indices (windows may overlap, so two outputs can send to
// one pixel). Written with the recorded scatter op, so it differentiates again.
//
// avg_pool2d: each g is shared out over its window by the forward's divisor
// (backend entry avg_pool2d_backward). That map is linear and is the adjoint of
// the forward, so the gradient of the gradient is average pooling again.
#include "autograd/derivatives_conv.h"

#include "autograd/derivatives.h"
#include "autograd/function.h"
#include "core/error.h"

namespace aakaar::autograd {
namespace {

// The gradient of average pooling: grad_x (P, H, W) from g (P, Ho, Wo), recorded under create_graph.
TensorPtr avg_pool2d_grad(const TensorPtr& g, int64_t H, int64_t W, const Pool2dArgs& a) {
  const Backend& be = backend(g->device());
  const TensorPtr gc = ops::contiguous(detach(g));
  TensorPtr grad = Tensor::empty({gc->shape[0], H, W}, gc->dtype, gc->device());
  if (grad->numel() > 0) be.avg_pool2d_backward(*grad, *gc, a);
  if (grad_enabled() && should_record({&g})) {
    const int64_t Ho = g->shape[1], Wo = g->shape[2];
    record("AvgPool2DBackwardBackward", {g}, grad, {}, [Ho, Wo, a](const TensorList& gg, const TensorList&,
                                                                  const Needs&) {
      return TensorList{ops::avg_pool2d_planes(gg[0], Ho, Wo, a)};
    });
  }
  return grad;
}

}  // namespace

void record_conv2d(const TensorPtr& out, const TensorPtr& x, const TensorPtr& w, const TensorPtr& b,
                   const Conv2dArgs& a) {
  record("ConvolutionBackward0", {x, w, b}, out, {x, w}, [a](const TensorList& g, const TensorList& s,
                                                              const Needs& needs) {
    const TensorPtr &x = s[0], &w = s[1];
    if (grad_enabled()) {  // create_graph: gradients through recorded ops, so they differentiate again
      TensorList grads(3);
      if (needs[0]) grads[0] = ops::conv2d_input_grad(g[0], w, x->shape, a);
      if (needs[1]) grads[1] = ops::conv2d_weight_grad(g[0], x, w->shape, a);
      if (needs[2]) grads[2] = ops::sum(g[0], ops::DimList{0, 2, 3}, false, std::nullopt);
      return grads;
    }
    const Backend& be = backend(x->device());
    AK_CHECK(be.conv2d_backward, RuntimeError, "conv2d backward: the ", x->device().str(),
             " backend has no conv2d kernel");
    const TensorPtr gc = ops::contiguous(detach(g[0]));
    TensorList grads(3);
    if (needs[0]) grads[0] = Tensor::empty(x->shape, x->dtype, x->device());
    if (needs[1]) grads[1] = Tensor::empty(w->shape, w->dtype, w->device());
    if (needs[2]) grads[2] = Tensor::empty({w->shape[0]}, w->dtype, w->device());
    be.conv2d_backward(grads[0].get(), grads[1].get(), grads[2].get(), *gc, *x, *w, a);
    return grads;
  });
}

void record_conv2d_input_grad(const TensorPtr& out, const TensorPtr& g, const TensorPtr& w, const Conv2dArgs& a) {
  record("ConvolutionBackward0", {g, w}, out, {g, w}, [a](const TensorList& gg, const TensorList& s,
                                                          const Needs& needs) {
    const TensorPtr &g = s[0], &w = s[1];
    TensorList grads(2);
    // <conv2d_input_grad(g, w), gg> = <g, conv2d(gg, w)>: linear in g and in w
    if (needs[0]) grads[0] = ops::conv2d_checked(gg[0], w, nullptr, g->shape, a);
    if (needs[1]) grads[1] = ops::conv2d_weight_grad(g, gg[0], w->shape, a);
    return grads;
  });
}

void record_conv2d_weight_grad(const TensorPtr& out, const TensorPtr& g, const TensorPtr& x, const Conv2dArgs& a) {
  record("ConvolutionBackwardWeight", {g, x}, out, {g, x}, [a](const TensorList& gg, const TensorList& s,
                                                               const Needs& needs) {
    const TensorPtr &g = s[0], &x = s[1];
    TensorList grads(2);
    // <conv2d_weight_grad(g, x), gg> = <g, conv2d(x, gg)>
    if (needs[0]) grads[0] = ops::conv2d_checked(x, gg[0], nullptr, g->shape, a);
    if (needs[1]) grads[1] = ops::conv2d_input_grad(g, gg[0], x->shape, a);
    return grads;
  });
}

void record_max_pool2d(const TensorPtr& out, const TensorPtr& xp, const TensorPtr& idx) {
  const int64_t H = xp->shape[1], W = xp->shape[2];
  record("MaxPool2DWithIndicesBackward0", {xp}, out, {idx}, [H, W](const TensorList& g, const TensorList& s,
                                                                  const Needs&) {
    const TensorPtr& idx = s[0];
    const int64_t P = idx->shape[0], L = idx->shape[1] * idx->shape[2];
    TensorPtr zeros = ops::full({P, H * W}, Scalar::from_double(0.0), g[0]->dtype, g[0]->device());
    TensorPtr grad = ops::scatter(zeros, 1, ops::reshape(idx, {P, L}), ops::reshape(g[0], {P, L}), true);
    return TensorList{ops::reshape(grad, {P, H, W})};
  });
}

void record_avg_pool2d(const TensorPtr& out, const TensorPtr& xp, const Pool2dArgs& a) {
  const int64_t H = xp->shape[1], W = xp->shape[2];
  record("AvgPool2DBackward0", {xp}, out, {}, [H, W, a](const TensorList& g, const TensorList&, const Needs&) {
    return TensorList{avg_pool2d_grad(g[0], H, W, a)};
  });
}

}  // namespace aakaar::autograd
