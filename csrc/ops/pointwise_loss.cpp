// The pointwise losses as one op each: MSE, L1, Huber, SmoothL1, BCE, BCEWithLogits.
//
// loss_k = f(x_k, t_k) (times weight_k), reduced by the mean, the sum or not at
// all. The device's fused kernel (backend entry pointwise_loss; the CPU's is in
// cpu/fused/pointwise_loss.cpp) computes it in one pass, and one autograd node
// (autograd/derivatives_pointwise_loss.cpp) writes the gradient in one pass.
// F.mse_loss and the others (aakaar/nn/functional_losses.py) call this op when
// the device has the kernel and only the input needs a gradient, and compose
// ordinary ops otherwise, so a device without it raises here.
#include "autograd/derivatives_pointwise_loss.h"
#include "autograd/function.h"
#include "core/error.h"
#include "ops/ops.h"
#include "ops/reduced_float.h"

namespace aakaar::ops {
namespace {

const char* loss_name(PointwiseLoss kind) {
  switch (kind) {
    case PointwiseLoss::MSE: return "mse_loss";
    case PointwiseLoss::L1: return "l1_loss";
    case PointwiseLoss::Huber: return "huber_loss";
    case PointwiseLoss::SmoothL1: return "smooth_l1_loss";
    case PointwiseLoss::BCE: return "binary_cross_entropy";
    case PointwiseLoss::BCEWithLogits: return "binary_cross_entropy_with_logits";
  }
  return "pointwise_loss";
}

void check_like_input(const TensorPtr& x, const TensorPtr& other, const char* fn, const char* name) {
  AK_CHECK(other->shape == x->shape, ValueError, fn, "(): input shape ", shape_str(x->shape), " and ", name,
           " shape ", shape_str(other->shape), " differ");
  AK_CHECK(other->dtype == x->dtype, TypeError, fn, "(): ", name, " must have the input's dtype ",
           dtype_name(x->dtype), ", got ", dtype_name(other->dtype));
  check_same_device(x, other, fn);
}

}  // namespace

TensorPtr pointwise_loss(PointwiseLoss kind, const TensorPtr& x, const TensorPtr& t, const TensorPtr& weight,
                         const TensorPtr& pos_weight, double param, Reduction r) {
  const char* fn = loss_name(kind);
  AK_CHECK(x && t, ValueError, fn, "(): input and target must be tensors");
  AK_CHECK(is_floating(x->dtype), TypeError, fn, "(): input must be a floating-point tensor, got ", dtype_name(x->dtype));
  check_like_input(x, t, fn, "target");
  if (weight) check_like_input(x, weight, fn, "weight");
  if (pos_weight) {
    AK_CHECK(kind == PointwiseLoss::BCEWithLogits, ValueError, fn, "(): pos_weight is for BCEWithLogits only");
    check_like_input(x, pos_weight, fn, "pos_weight");
  }
  if (is_reduced_float(x->dtype))
    return to_dtype(pointwise_loss(kind, as_float32(x), as_float32(t), as_float32(weight), as_float32(pos_weight), param, r),
                    x->dtype);
  if (kind == PointwiseLoss::Huber || kind == PointwiseLoss::SmoothL1)
    AK_CHECK(param > 0, ValueError, fn, "(): ", kind == PointwiseLoss::Huber ? "delta" : "beta",
             " must be positive here, got ", param);
  const Backend& be = backend(x->device());
  AK_CHECK(be.pointwise_loss, RuntimeError, fn, "(): the ", x->device().str(),
           " backend has no fused pointwise loss (nn.functional composes ordinary ops there)");
  // The kernel reads contiguous data; the copies (when needed) stay out of the graph.
  auto data = [](const TensorPtr& p) { return p ? contiguous(autograd::detach(p)) : nullptr; };
  const TensorPtr xc = data(x), tc = data(t), wc = data(weight), pc = data(pos_weight);
  const bool rec = autograd::should_record({&x});
  TensorPtr loss = Tensor::empty(r == Reduction::None ? x->shape : Shape{}, x->dtype, x->device());
  TensorPtr aux = rec && kind == PointwiseLoss::BCEWithLogits ? Tensor::empty(x->shape, x->dtype, x->device()) : nullptr;
  be.pointwise_loss(kind, *loss, aux.get(), *xc, *tc, wc.get(), pc.get(), param, r);
  if (rec) autograd::record_pointwise_loss(loss, kind, x, tc, wc, pc, aux, param, r);
  return loss;
}

}  // namespace aakaar::ops
