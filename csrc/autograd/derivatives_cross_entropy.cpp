// Backward of the softmax cross-entropy, x (N, C), t (N,), class weights w (1 without them),
// label smoothing eps, p = softmax(x):
//
//   grad_x[i, j] = g_i (p_ij ((1 - eps) w[t_i] + eps W / C) - eps w_j / C - (1 - eps) w[t_i] [j == t_i])
//
// (W = sum_c w_c; without weights and smoothing, (p_ij - [j == t_i]) g_i), 0 on rows whose
// target is ignore_index, with g_i the gradient reaching row i (grad / total for the mean,
// total = sum of w[t_i] over the rows kept; grad for the sum; grad[i] for reduction "none").
// The forward kept e = exp(x_i - max x_i) and 1 / sum_j e_ij per row, so the device's fused
// kernel (backend entry cross_entropy_backward; the CPU's is in cpu/fused/cross_entropy.cpp)
// is one multiply-add per element. Under create_graph (double backward), or on a device
// without the fused kernel, the same formula is written with ordinary ops so it is recorded
// and can be differentiated again.
#include "autograd/derivatives_cross_entropy.h"

#include "autograd/derivatives.h"
#include "autograd/function.h"
#include "core/error.h"

namespace aakaar::autograd {
namespace {

TensorPtr mul_num(const TensorPtr& a, double v) { return ops::binary_scalar(BinaryOp::Mul, a, Scalar::from_double(v), false); }

// The formula with recorded ops, for create_graph and devices without the fused
// kernel: softmax is differentiable, the one-hot and the weights are constants, and g
// may itself require grad (a gradient of the gradient with respect to grad_output).
// Probability targets q (N, C): g_i (p_ij S_i - w_j q'_ij), S_i = sum_c w_c q'_ic.
TensorPtr cross_entropy_probs_backward_ops(const TensorPtr& g, const TensorPtr& x, const TensorPtr& q,
                                           const TensorPtr& total, const TensorPtr& weight, double eps, Reduction r) {
  const int64_t C = x->shape[1];
  const TensorPtr p = ops::softmax(x, 1, false);
  TensorPtr wq = eps > 0 ? ops::binary_scalar(BinaryOp::Add, mul_num(q, 1 - eps), Scalar::from_double(eps / double(C)), false)
                         : q;
  if (weight) wq = ops::binary(BinaryOp::Mul, wq, ops::unsqueeze(weight, 0));
  const TensorPtr S = ops::sum(wq, ops::DimList{1}, true, std::nullopt);  // (N, 1)
  const TensorPtr grad = ops::binary(BinaryOp::Sub, ops::binary(BinaryOp::Mul, p, S), wq);
  TensorPtr gi = g;
  if (r == Reduction::Mean)
    gi = ops::binary(BinaryOp::Div, g, total);
  else if (r == Reduction::None)
    gi = ops::unsqueeze(g, 1);
  return ops::binary(BinaryOp::Mul, grad, gi);
}

TensorPtr cross_entropy_backward_ops(const TensorPtr& g, const TensorPtr& x, const TensorPtr& t,
                                     const TensorPtr& total, const TensorPtr& weight, int64_t ignore_index,
                                     double eps, Reduction r) {
  if (is_floating(t->dtype)) return cross_entropy_probs_backward_ops(g, x, t, total, weight, eps, r);
  const int64_t N = x->shape[0], C = x->shape[1];
  const TensorPtr p = ops::softmax(x, 1, false);
  const TensorPtr keep = ops::binary_scalar(BinaryOp::Ne, t, Scalar::from_int(ignore_index), false);
  const TensorPtr safe = ops::where(keep, t, ops::full({}, Scalar::from_int(0), DType::Int64, t->device()));
  const TensorPtr keepf = ops::unsqueeze(ops::to_dtype(keep, x->dtype), 1);  // (N, 1)
  TensorPtr wt = keepf;                                                      // w[t_i], 0 where ignored
  if (weight) wt = ops::binary(BinaryOp::Mul, ops::unsqueeze(ops::index_select(weight, 0, safe), 1), keepf);
  const TensorPtr ones = ops::full({N, 1}, Scalar::from_int(1), x->dtype, x->device());
  const TensorPtr zeros = ops::full(x->shape, Scalar::from_int(0), x->dtype, x->device());
  const TensorPtr onehot = ops::scatter(zeros, 1, ops::unsqueeze(safe, 1), ones, false);
  // coefficient of p: (1 - eps) w_t + eps W / C; constant part: -(1 - eps) w_t onehot - eps w_j / C.
  TensorPtr grad;
  if (eps == 0) {
    grad = ops::binary(BinaryOp::Mul, ops::binary(BinaryOp::Sub, p, onehot), wt);
  } else {
    // eps W / C as a 0-d tensor (W = C without weights)
    const TensorPtr wbar = weight ? mul_num(ops::sum(weight, std::nullopt, false, std::nullopt), eps / double(C))
                                  : ops::wrap_scalar(Scalar::from_double(eps), x);
    const TensorPtr coef = ops::binary(BinaryOp::Add, mul_num(wt, 1 - eps), ops::binary(BinaryOp::Mul, keepf, wbar));
    const TensorPtr wj = weight ? ops::binary(BinaryOp::Mul, ops::unsqueeze(weight, 0), keepf) : keepf;
    grad = ops::binary(BinaryOp::Sub, ops::binary(BinaryOp::Mul, p, coef),
                       ops::binary(BinaryOp::Add, mul_num(ops::binary(BinaryOp::Mul, onehot, wt), 1 - eps),
                                   mul_num(wj, eps / double(C))));
  }
  TensorPtr gi = g;  // 0-d for mean and sum: broadcasts over (N, C)
  if (r == Reduction::Mean)
    gi = ops::binary(BinaryOp::Div, g, total);
  else if (r == Reduction::None)
    gi = ops::unsqueeze(g, 1);
  // Ignored rows are 0 even when the mean's divisor is 0 (every row ignored: g / 0).
  return ops::where(ops::unsqueeze(keep, 1), ops::binary(BinaryOp::Mul, grad, gi),
                    ops::wrap_scalar(Scalar::from_double(0), x));
}

}  // namespace

void record_cross_entropy(const TensorPtr& loss, const TensorPtr& x, const TensorPtr& t, const TensorPtr& e,
                          const TensorPtr& inv, const TensorPtr& total, const TensorPtr& weight,
                          int64_t ignore_index, double label_smoothing, Reduction r) {
  TensorList saved{x, t, e, inv, total};
  if (weight) saved.push_back(weight);
  record("CrossEntropyBackward", {x}, loss, saved,
         [r, ignore_index, label_smoothing](const TensorList& g, const TensorList& s, const Needs&) {
           // g[0] has the loss's dtype: the engine casts a gradient of another dtype first.
           const TensorPtr& g0 = g[0];
           const TensorPtr w = s.size() > 5 ? s[5] : nullptr;
           const Backend& be = backend(g0->device());
           if (grad_enabled() || !be.cross_entropy_backward)
             return TensorList{cross_entropy_backward_ops(g0, s[0], s[1], s[4], w, ignore_index, label_smoothing, r)};
           const TensorPtr& e = s[2];
           TensorPtr grad = Tensor::empty(e->shape, e->dtype, e->device());
           const TensorPtr gc = r == Reduction::None ? ops::contiguous(g0) : g0;
           const bool probs = is_floating(s[1]->dtype);
           const CrossEntropyOptions o{w.get(), ignore_index, label_smoothing, probs ? s[1].get() : nullptr};
           be.cross_entropy_backward(*grad, *gc, *s[1], *e, *s[3], *s[4], r, o);
           return TensorList{grad};
         });
}

}  // namespace aakaar::autograd
