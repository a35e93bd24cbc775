// Softmax cross-entropy as one op: for logits x (N, C) and class indices t (N,),
//
//   loss_i = (1 - eps) w[t_i] (lse_i - x[i, t_i]) + eps / C sum_c w_c (lse_i - x[i, c])
//
// with lse_i = logsumexp(x_i), class weights w (all 1 without them), label
// smoothing eps, and 0 for a row whose target is ignore_index; the mean divides
// the sum by sum_i w[t_i] over the rows not ignored, as PyTorch does. (Higher
// ranks (N, C, d1, ...) reach it as (N d1 ..., C) rows: F.cross_entropy moves the
// class dim last.)
//
// Probability targets q (N, C) (soft labels, a floating target of the logits' shape) give
//
//   loss_i = sum_c w_c q'_ic (lse_i - x_ic),  q' = (1 - eps) q + eps / C,
//
// and the mean divides by N (PyTorch's rule for probabilities, whatever the weights).
//
// A device whose backend has the fused kernel (the CPU's is in
// cpu/fused/cross_entropy.cpp) computes it in three passes and one autograd
// node, keeping exp(x - max) and 1 / sum per row for a one-multiply backward
// (autograd/derivatives_cross_entropy.cpp). A device without it gets the same
// function from ordinary ops: log_softmax, gather, where, a weighted sum and the
// reduction, each recording its own backward.
#include "autograd/derivatives_cross_entropy.h"
#include "autograd/function.h"
#include "core/error.h"
#include "ops/ops.h"
#include "ops/reduced_float.h"

namespace aakaar::ops {
namespace {

void check_cross_entropy_args(const TensorPtr& x, const TensorPtr& t, const TensorPtr& w, double eps) {
  AK_CHECK(x && t, ValueError, "cross_entropy(): input and target must be tensors");
  AK_CHECK(x->ndim() == 2, ValueError, "cross_entropy(): input must be (N, C) logits, got shape ",
           shape_str(x->shape));
  AK_CHECK(is_floating(x->dtype), TypeError, "cross_entropy(): input must be floating-point logits, got ",
           dtype_name(x->dtype));
  if (is_floating(t->dtype)) {
    AK_CHECK(t->shape == x->shape, ValueError, "cross_entropy(): probability target shape ", shape_str(t->shape),
             " does not match input shape ", shape_str(x->shape));
    AK_CHECK(t->dtype == x->dtype, TypeError, "cross_entropy(): probability targets must have the input's dtype ",
             dtype_name(x->dtype), ", got ", dtype_name(t->dtype));
  } else {
    AK_CHECK(t->dtype == DType::Int64, TypeError,
             "cross_entropy(): target must be int64 class indices or floating probabilities, got ",
             dtype_name(t->dtype));
    AK_CHECK(t->ndim() == 1 && t->shape[0] == x->shape[0], ValueError, "cross_entropy(): target shape ",
             shape_str(t->shape), " does not match input batch size ", x->shape[0]);
  }
  check_same_device(x, t, "cross_entropy");
  AK_CHECK(eps >= 0 && eps <= 1, ValueError, "cross_entropy(): label_smoothing must be between 0.0 and 1.0, got ",
           eps);
  if (!w) return;
  AK_CHECK(w->ndim() == 1 && w->shape[0] == x->shape[1], ValueError,
           "cross_entropy(): weight must have shape [", x->shape[1], "], one value per class, got ",
           shape_str(w->shape));
  AK_CHECK(w->dtype == x->dtype, TypeError, "cross_entropy(): weight must have the input's dtype ",
           dtype_name(x->dtype), ", got ", dtype_name(w->dtype));
  check_same_device(x, w, "cross_entropy");
}

// Every target must name a class or be ignore_index: an index outside [0, C)
// would read (and in the backward, write) outside the row. Checked before any
// work, on the host (a device's targets are copied; on the CPU this reads them
// in place), so the error names the first bad row whatever the device and
// thread count.
void check_targets(const TensorPtr& t, int64_t C, int64_t ignore_index) {
  const TensorPtr host = contiguous(to_device(t, Device{}));
  const int64_t* tp = host->data<int64_t>();
  for (int64_t i = 0; i < host->numel(); ++i) {
    const int64_t c = tp[i];
    AK_CHECK((c >= 0 && c < C) || c == ignore_index, IndexError, "cross_entropy(): target ", c,
             " out of range for ", C, " classes (at batch index ", i, "; class indices must be in [0, ", C, "))");
  }
}

TensorPtr num(double v, const TensorPtr& like) { return wrap_scalar(Scalar::from_double(v), like); }

// Probability targets from ordinary ops: -sum_c w_c q'_ic log_softmax(x)_ic, the mean over rows.
TensorPtr cross_entropy_probs_composite(const TensorPtr& x, const TensorPtr& q, Reduction r,
                                        const TensorPtr& weight, double eps) {
  const int64_t N = x->shape[0], C = x->shape[1];
  TensorPtr qs = q;
  if (eps > 0)
    qs = binary_scalar(BinaryOp::Add, binary_scalar(BinaryOp::Mul, q, Scalar::from_double(1 - eps), false),
                       Scalar::from_double(eps / static_cast<double>(C)), false);
  TensorPtr terms = binary(BinaryOp::Mul, softmax(x, 1, true), qs);
  if (weight) terms = binary(BinaryOp::Mul, terms, unsqueeze(weight, 0));
  const TensorPtr loss = unary(UnaryOp::Neg, sum(terms, DimList{1}, false, std::nullopt));
  if (r == Reduction::None) return loss;
  const TensorPtr total = sum(loss, std::nullopt, false, std::nullopt);
  if (r == Reduction::Sum) return total;
  return binary_scalar(BinaryOp::Div, total, Scalar::from_double(static_cast<double>(N)), false);  // 0/0: NaN
}

// Devices without a fused kernel get the same function from ordinary ops,
// each of which records its own backward.
TensorPtr cross_entropy_composite(const TensorPtr& x, const TensorPtr& t, Reduction r, const TensorPtr& weight,
                                  int64_t ignore_index, double eps) {
  const int64_t C = x->shape[1];
  const TensorPtr logp = softmax(x, 1, true);
  const TensorPtr keep = binary_scalar(BinaryOp::Ne, t, Scalar::from_int(ignore_index), false);
  const TensorPtr safe = where(keep, t, full({}, Scalar::from_int(0), DType::Int64, t->device()));
  const TensorPtr keepf = to_dtype(keep, x->dtype);
  const TensorPtr w = weight ? binary(BinaryOp::Mul, index_select(weight, 0, safe), keepf) : keepf;
  const TensorPtr picked = squeeze(gather(logp, 1, unsqueeze(safe, 1)), DimList{1});
  // where, not a product with the mask: an ignored row's -inf log-probability would make 0 * inf = NaN.
  TensorPtr loss = where(keep, unary(UnaryOp::Neg, binary(BinaryOp::Mul, picked, w)), num(0, x));
  if (eps > 0) {
    const TensorPtr terms = weight ? binary(BinaryOp::Mul, logp, unsqueeze(weight, 0)) : logp;
    const TensorPtr smooth = where(keep, unary(UnaryOp::Neg, sum(terms, DimList{1}, false, std::nullopt)), num(0, x));
    loss = binary(BinaryOp::Add, binary_scalar(BinaryOp::Mul, loss, Scalar::from_double(1 - eps), false),
                  binary_scalar(BinaryOp::Mul, smooth, Scalar::from_double(eps / static_cast<double>(C)), false));
  }
  if (r == Reduction::Mean)
    return binary(BinaryOp::Div, sum(loss, std::nullopt, false, std::nullopt), sum(w, std::nullopt, false, std::nullopt));
  if (r == Reduction::Sum) return sum(loss, std::nullopt, false, std::nullopt);
  return loss;
}

}  // namespace

TensorPtr cross_entropy(const TensorPtr& x, const TensorPtr& t, Reduction r, const TensorPtr& weight,
                        int64_t ignore_index, double label_smoothing) {
  check_cross_entropy_args(x, t, weight, label_smoothing);
  if (is_reduced_float(x->dtype))
    return to_dtype(cross_entropy(as_float32(x), as_float32(t), r, as_float32(weight), ignore_index, label_smoothing),
                    x->dtype);
  const int64_t N = x->shape[0], C = x->shape[1];
  const bool probs = is_floating(t->dtype);
  if (!probs) check_targets(t, C, ignore_index);
  const Backend& be = backend(x->device());
  if (!be.cross_entropy)
    return probs ? cross_entropy_probs_composite(x, t, r, weight, label_smoothing)
                 : cross_entropy_composite(x, t, r, weight, ignore_index, label_smoothing);
  // Probability targets get no gradient here (F.cross_entropy composes when they need one).
  const TensorPtr q = probs ? contiguous(autograd::detach(t)) : nullptr;
  // Class weights get no gradient (as in PyTorch): the kernel reads a contiguous copy outside the graph.
  const TensorPtr w = weight ? contiguous(autograd::detach(weight)) : nullptr;
  TensorPtr loss = Tensor::empty(r == Reduction::None ? Shape{N} : Shape{}, x->dtype, x->device());
  TensorPtr e = Tensor::empty({N, C}, x->dtype, x->device()), inv = Tensor::empty({N}, x->dtype, x->device());
  TensorPtr total = Tensor::empty({}, x->dtype, x->device());
  const CrossEntropyOptions o{w.get(), ignore_index, label_smoothing, q.get()};
  be.cross_entropy(*loss, *e, *inv, *total, *x, probs ? *q : *t, r, o);
  if (autograd::should_record({&x}))
    autograd::record_cross_entropy(loss, x, probs ? q : t, e, inv, total, w, ignore_index, label_smoothing, r);
  return loss;
}

}  // namespace aakaar::ops
