// Backward of the fused pointwise losses: grad_x[k] = loss'(x[k], t[k]) * g_k * w[k], with
// g_k = g / n (mean), g (sum) or g[k] (none) and the derivatives PyTorch uses:
//
//   MSE 2 (x - t)              L1 sign(x - t)                Huber clamp(x - t, -delta, delta)
//   SmoothL1 clamp((x - t) / beta, -1, 1)                    BCE (x - t) / max(x (1 - x), 1e-12)
//   BCEWithLogits (p t + 1 - t) sigmoid(x) - p t   (p = pos_weight; sigmoid(x) - t without it)
//
// The device's fused kernel (backend entry pointwise_loss_backward; the CPU's is in
// cpu/fused/pointwise_loss.cpp) writes it in one pass. Under create_graph (double backward)
// the same formula is written with ordinary ops, so it is recorded and can be differentiated
// again.
#include "autograd/derivatives_pointwise_loss.h"

#include "autograd/derivatives.h"
#include "autograd/function.h"
#include "core/error.h"

namespace aakaar::autograd {
namespace {

const char* node_name(PointwiseLoss kind) {
  switch (kind) {
    case PointwiseLoss::MSE: return "MseLossBackward";
    case PointwiseLoss::L1: return "L1LossBackward";
    case PointwiseLoss::Huber: return "HuberLossBackward";
    case PointwiseLoss::SmoothL1: return "SmoothL1LossBackward";
    case PointwiseLoss::BCE: return "BinaryCrossEntropyBackward";
    case PointwiseLoss::BCEWithLogits: return "BinaryCrossEntropyWithLogitsBackward";
  }
  return "PointwiseLossBackward";
}

TensorPtr num(double v, const TensorPtr& like) { return ops::wrap_scalar(Scalar::from_double(v), like); }

// d loss / d x with recorded ops (x may itself require grad: the second derivative).
TensorPtr derivative_ops(PointwiseLoss kind, const TensorPtr& x, const TensorPtr& t, const TensorPtr& pw,
                         double param) {
  using ops::binary;
  const TensorPtr d = binary(BinaryOp::Sub, x, t);
  UnaryParams clip;
  clip.has_a = clip.has_b = true;
  switch (kind) {
    case PointwiseLoss::MSE: return ops::binary_scalar(BinaryOp::Mul, d, Scalar::from_double(2), false);
    case PointwiseLoss::L1: return ops::unary(UnaryOp::Sign, d);
    case PointwiseLoss::Huber:
      clip.a = -param, clip.b = param;
      return ops::unary(UnaryOp::Clamp, d, clip);
    case PointwiseLoss::SmoothL1:
      clip.a = -1, clip.b = 1;
      return ops::unary(UnaryOp::Clamp, ops::binary_scalar(BinaryOp::Div, d, Scalar::from_double(param), false),
                        clip);
    case PointwiseLoss::BCE: {
      const TensorPtr one_minus = ops::binary_scalar(BinaryOp::Sub, x, Scalar::from_double(1), true);
      const TensorPtr denom = binary(BinaryOp::Maximum, binary(BinaryOp::Mul, one_minus, x), num(double(1e-12f), x));
      return binary(BinaryOp::Div, d, denom);
    }
    case PointwiseLoss::BCEWithLogits: {
      const TensorPtr s = ops::unary(UnaryOp::Sigmoid, x);
      if (!pw) return binary(BinaryOp::Sub, s, t);
      const TensorPtr tp = binary(BinaryOp::Mul, pw, t);
      const TensorPtr coef = binary(BinaryOp::Sub, ops::binary_scalar(BinaryOp::Add, tp, Scalar::from_double(1), false), t);
      return binary(BinaryOp::Sub, binary(BinaryOp::Mul, coef, s), tp);
    }
  }
  throw RuntimeError("pointwise_loss: unknown loss kind");
}

}  // namespace

void record_pointwise_loss(const TensorPtr& loss, PointwiseLoss kind, const TensorPtr& x, const TensorPtr& t,
                           const TensorPtr& weight, const TensorPtr& pos_weight, const TensorPtr& aux, double param,
                           Reduction r) {
  // Saved: x, t, then weight, pos_weight and aux where present (idx says where, -1 if absent).
  TensorList saved{x, t};
  auto push = [&saved](const TensorPtr& p) -> int {
    if (!p) return -1;
    saved.push_back(p);
    return static_cast<int>(saved.size()) - 1;
  };
  const int iw = push(weight), ipw = push(pos_weight), iaux = push(aux);
  record(node_name(kind), {x}, loss, saved,
         [kind, param, r, iw, ipw, iaux](const TensorList& g, const TensorList& s, const Needs&) {
           const TensorPtr& g0 = g[0];
           const TensorPtr& x = s[0];
           const TensorPtr w = iw >= 0 ? s[iw] : nullptr, pw = ipw >= 0 ? s[ipw] : nullptr;
           const Backend& be = backend(g0->device());
           if (grad_enabled() || !be.pointwise_loss_backward) {
             TensorPtr gi = g0;
             if (r == Reduction::Mean)
               gi = ops::binary_scalar(BinaryOp::Div, g0, Scalar::from_double(static_cast<double>(x->numel())), false);
             TensorPtr grad = ops::binary(BinaryOp::Mul, derivative_ops(kind, x, s[1], pw, param), gi);
             if (w) grad = ops::binary(BinaryOp::Mul, grad, w);
             return TensorList{grad};
           }
           const TensorPtr xc = ops::contiguous(x), tc = ops::contiguous(s[1]);
           const TensorPtr gc = ops::contiguous(g0);
           const TensorPtr wc = w ? ops::contiguous(w) : nullptr, pwc = pw ? ops::contiguous(pw) : nullptr;
           TensorPtr grad = Tensor::empty(x->shape, x->dtype, x->device());
           be.pointwise_loss_backward(kind, *grad, *gc, iaux >= 0 ? s[iaux].get() : nullptr, *xc, *tc, wc.get(),
                                      pwc.get(), param, r);
           return TensorList{grad};
         });
}

}  // namespace aakaar::autograd
