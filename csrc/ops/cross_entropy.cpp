// Softmax cross-entropy as one op: loss_i = logsumexp(x_i) - x[i, t_i].
//
// A device whose backend has the fused kernel (the CPU's is in
// cpu/fused/cross_entropy.cpp) computes it in three passes and one autograd
// node, keeping exp(x - max) and 1 / sum per row for a one-multiply backward
// (autograd/derivatives_cross_entropy.cpp). A device without it gets the same
// function from ordinary ops: log_softmax, gather, squeeze, neg and mean (five
// passes, five nodes).
#include "autograd/derivatives_cross_entropy.h"
#include "autograd/function.h"
#include "core/error.h"
#include "ops/ops.h"

namespace aakaar::ops {
namespace {

void check_cross_entropy_args(const TensorPtr& x, const TensorPtr& t) {
  AK_CHECK(x && t, ValueError, "cross_entropy(): input and target must be tensors");
  AK_CHECK(x->ndim() == 2, ValueError, "cross_entropy(): input must be (N, C) logits, got shape ",
           shape_str(x->shape));
  AK_CHECK(is_floating(x->dtype), TypeError, "cross_entropy(): input must be float32 or float64 logits, got ",
           dtype_name(x->dtype));
  AK_CHECK(t->dtype == DType::Int64, TypeError, "cross_entropy(): target must be int64 class indices, got ",
           dtype_name(t->dtype));
  AK_CHECK(t->ndim() == 1 && t->shape[0] == x->shape[0], ValueError, "cross_entropy(): target shape ",
           shape_str(t->shape), " does not match input batch size ", x->shape[0]);
  check_same_device(x, t, "cross_entropy");
}

// Every target must name a class: an index outside [0, C) would read (and in
// the backward, write) outside the row. Checked before any work, on the host
// (a device's targets are copied; on the CPU this reads them in place), so the
// error names the first bad row whatever the device and thread count.
void check_targets(const TensorPtr& t, int64_t C) {
  const TensorPtr host = contiguous(to_device(t, Device{}));
  const int64_t* tp = host->data<int64_t>();
  for (int64_t i = 0; i < host->numel(); ++i) {
    const int64_t c = tp[i];
    AK_CHECK(c >= 0 && c < C, IndexError, "cross_entropy(): target ", c, " out of range for ", C,
             " classes (at batch index ", i, "; class indices must be in [0, ", C, "))");
  }
}

// Devices without a fused kernel get the same function from ordinary ops,
// each of which records its own backward.
TensorPtr cross_entropy_composite(const TensorPtr& x, const TensorPtr& t, Reduction r) {
  TensorPtr picked = gather(softmax(x, 1, true), 1, unsqueeze(t, 1));
  TensorPtr loss = unary(UnaryOp::Neg, squeeze(picked, DimList{1}));
  if (r == Reduction::Mean) return mean(loss, std::nullopt, false);
  if (r == Reduction::Sum) return sum(loss, std::nullopt, false, std::nullopt);
  return loss;
}

}  // namespace

TensorPtr cross_entropy(const TensorPtr& x, const TensorPtr& t, Reduction r) {
  check_cross_entropy_args(x, t);
  const int64_t N = x->shape[0], C = x->shape[1];
  check_targets(t, C);
  const Backend& be = backend(x->device());
  if (!be.cross_entropy) return cross_entropy_composite(x, t, r);
  TensorPtr loss = Tensor::empty(r == Reduction::None ? Shape{N} : Shape{}, x->dtype, x->device());
  TensorPtr e = Tensor::empty({N, C}, x->dtype, x->device()), inv = Tensor::empty({N}, x->dtype, x->device());
  be.cross_entropy(*loss, *e, *inv, *x, *t, r);
  if (autograd::should_record({&x})) autograd::record_cross_entropy(loss, x, t, e, inv, r);
  return loss;
}

}  // namespace aakaar::ops
