// Backward of loss_i = logsumexp(x_i) - x[i, t_i], x (N, C), t (N,).
//
// d loss_i / d x[i, j] = softmax(x_i)_j - [j == t_i], so with g_i the
// gradient reaching row i (grad / N for the mean, grad for the sum, grad[i]
// for reduction "none"):
//
//   grad_x[i, j] = (softmax(x_i)_j - [j == t_i]) * g_i
//
// The forward kept e = exp(x_i - max x_i) and 1 / sum_j e_ij per row, so the
// fast path is one multiply per element and one subtraction per row. The
// composite log_softmax + gather + neg + mean would instead scatter g into a
// zero (N, C) tensor, then run the log_softmax backward over it: exp again,
// a row sum, and two (N, C) temporaries. Under create_graph (double
// backward), or on another device, the same formula is written with
// ordinary ops so it is recorded and can be differentiated again.
#include "autograd/derivatives_cross_entropy.h"

#include <algorithm>

#include "autograd/derivatives.h"
#include "autograd/function.h"
#include "core/error.h"
#include "cpu/parallel.h"

namespace aakaar::autograd {
namespace {

// [[book:cross_entropy_backward]]
// One row of (softmax(x) - onehot(t)) * g, with softmax = e * inv: the loop is
// a plain multiply over restrict pointers, which GCC vectorises, and the
// one-hot is a single correction at the target.
template <typename T>
void softmax_minus_onehot_row(int64_t C, const T* __restrict e, T inv, T g, int64_t target, T* __restrict out) {
  const T scale = inv * g;
  for (int64_t j = 0; j < C; ++j) out[j] = e[j] * scale;
  out[target] -= g;
}

template <typename T>
TensorPtr cross_entropy_backward_cpu(const TensorPtr& g, const TensorPtr& t, const TensorPtr& e,
                                     const TensorPtr& inv, ops::Reduction r) {
  const int64_t N = e->shape[0], C = e->shape[1];
  TensorPtr grad = Tensor::empty({N, C}, e->dtype);
  const T* E = e->data<T>();
  const T* I = inv->data<T>();
  const int64_t* tp = t->data<int64_t>();
  const int64_t ts = t->strides[0];
  const T* G = g->data<T>();
  const int64_t gs = r == ops::Reduction::None ? g->strides[0] : 0;
  const T g_all = r == ops::Reduction::Mean ? static_cast<T>(static_cast<double>(G[0]) / static_cast<double>(N))
                                            : G[0];
  T* out = grad->data<T>();
  parallel_for(0, N, std::max<int64_t>(1, 8192 / std::max<int64_t>(C, 1)), [&](int64_t b, int64_t end) {
    for (int64_t i = b; i < end; ++i)
      softmax_minus_onehot_row<T>(C, E + i * C, I[i], r == ops::Reduction::None ? G[i * gs] : g_all, tp[i * ts],
                                  out + i * C);
  });
  return grad;
}
// [[/book:cross_entropy_backward]]

// The same formula with recorded ops, for create_graph and other devices:
// softmax is differentiable, the one-hot is a constant, and g may itself
// require grad (a gradient of the gradient with respect to grad_output).
TensorPtr cross_entropy_backward_ops(const TensorPtr& g, const TensorPtr& x, const TensorPtr& t, ops::Reduction r) {
  const int64_t N = x->shape[0];
  TensorPtr p = ops::softmax(x, 1, false);
  TensorPtr ones = ops::full({N, 1}, Scalar::from_int(1), x->dtype, x->device());
  TensorPtr zeros = ops::full(x->shape, Scalar::from_int(0), x->dtype, x->device());
  TensorPtr onehot = ops::scatter(zeros, 1, ops::unsqueeze(t, 1), ones, false);
  TensorPtr gi = g;  // 0-d for mean and sum: broadcasts over (N, C)
  if (r == ops::Reduction::Mean)
    gi = ops::binary_scalar(BinaryOp::Div, g, Scalar::from_double(static_cast<double>(N)), false);
  else if (r == ops::Reduction::None)
    gi = ops::unsqueeze(g, 1);
  return ops::binary(BinaryOp::Mul, ops::binary(BinaryOp::Sub, p, onehot), gi);
}

}  // namespace

void record_cross_entropy(const TensorPtr& loss, const TensorPtr& x, const TensorPtr& t, const TensorPtr& e,
                          const TensorPtr& inv, ops::Reduction r) {
  record("CrossEntropyBackward", {x}, loss, {x, t, e, inv},
         [r](const TensorList& g, const TensorList& s, const Needs&) {
           // g[0] has the loss's dtype: the engine casts a gradient of another dtype first.
           const DType dt = s[0]->dtype;
           const TensorPtr& g0 = g[0];
           if (grad_enabled() || g0->device().type != DeviceType::CPU)
             return TensorList{cross_entropy_backward_ops(g0, s[0], s[1], r)};
           return AK_DISPATCH_FLOAT(dt, "cross_entropy backward", [&](auto tag) {
             return TensorList{cross_entropy_backward_cpu<decltype(tag)>(g0, s[1], s[2], s[3], r)};
           });
         });
}

}  // namespace aakaar::autograd
