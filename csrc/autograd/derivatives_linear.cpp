// Backward of out = act(x @ W^T + b), x (M, K), W (N, K), b (N).
//
// With g the gradient of out and g' = g masked by the activation (for ReLU:
// 0 where out <= 0):
//
//   grad_x = g' @ W,   grad_W = g'^T @ x,   grad_b = sum(g', 0)
//
// The device's fused kernel (backend entry linear_backward; the CPU's is in
// cpu/fused/linear.cpp) does it in one pass over g and two GEMMs. Under
// create_graph (double backward), or on a device without the fused kernel, the
// same formulas are written with ordinary ops so they are recorded too.
#include "autograd/derivatives_linear.h"

#include "autograd/derivatives.h"
#include "autograd/function.h"
#include "core/error.h"

namespace aakaar::autograd {
namespace {

TensorList linear_backward_fused(const Backend& be, const TensorPtr& g, const TensorPtr& x, const TensorPtr& w,
                                 const TensorPtr& y, const Needs& needs) {
  const int64_t M = x->shape[0], K = x->shape[1], N = w->shape[0];
  TensorList grads(3);
  if (needs[0]) grads[0] = Tensor::empty({M, K}, g->dtype, g->device());
  if (needs[1]) grads[1] = Tensor::empty({N, K}, g->dtype, g->device());
  if (needs[2]) grads[2] = Tensor::empty({N}, g->dtype, g->device());
  be.linear_backward(grads[0].get(), grads[1].get(), grads[2].get(), *g, *x, *w, y.get());
  return grads;
}

// The same formulas with recorded ops, for create_graph and devices without the fused kernel.
TensorList linear_backward_ops(const TensorPtr& g, const TensorPtr& x, const TensorPtr& w, const TensorPtr& y,
                               const Needs& needs) {
  TensorPtr gm = g;
  if (y) {
    TensorPtr keep = ops::binary_scalar(BinaryOp::Gt, y, Scalar::from_double(0.0), false);
    gm = ops::binary(BinaryOp::Mul, g, ops::to_dtype(keep, g->dtype));
  }
  TensorList grads(3);
  if (needs[0]) grads[0] = ops::mm(gm, w);
  if (needs[1]) grads[1] = ops::mm(ops::transpose(gm, 0, 1), x);
  if (needs[2]) grads[2] = ops::sum(gm, ops::DimList{0}, false, std::nullopt);
  return grads;
}

}  // namespace

void record_linear(const TensorPtr& out, const TensorPtr& x, const TensorPtr& w, const TensorPtr& b,
                   LinearActivation act) {
  const bool relu = act == LinearActivation::ReLU;
  TensorList to_save{x, w};
  if (relu) to_save.push_back(out);
  record(relu ? "LinearReluBackward" : "LinearBackward", {x, w, b}, out, to_save,
         [relu](const TensorList& g, const TensorList& s, const Needs& needs) {
           const TensorPtr y = relu ? s[2] : nullptr;
           const Backend& be = backend(g[0]->device());
           if (grad_enabled() || !be.linear_backward) return linear_backward_ops(g[0], s[0], s[1], y, needs);
           return linear_backward_fused(be, g[0], s[0], s[1], y, needs);
         });
}

}  // namespace aakaar::autograd
