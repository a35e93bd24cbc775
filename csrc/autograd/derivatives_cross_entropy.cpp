// Backward of loss_i = logsumexp(x_i) - x[i, t_i], x (N, C), t (N,):
//
//   grad_x[i, j] = (softmax(x_i)_j - [j == t_i]) * g_i
//
// with g_i the gradient reaching row i (grad / N for the mean, grad for the
// sum, grad[i] for reduction "none"). The forward kept e = exp(x_i - max x_i)
// and 1 / sum_j e_ij per row, so the device's fused kernel (backend entry
// cross_entropy_backward; the CPU's is in cpu/fused/cross_entropy.cpp) is one
// multiply per element and one subtraction per row. Under create_graph (double
// backward), or on a device without the fused kernel, the same formula is
// written with ordinary ops so it is recorded and can be differentiated again.
#include "autograd/derivatives_cross_entropy.h"

#include "autograd/derivatives.h"
#include "autograd/function.h"
#include "core/error.h"

namespace aakaar::autograd {
namespace {

// The formula with recorded ops, for create_graph and devices without the fused
// kernel: softmax is differentiable, the one-hot is a constant, and g may itself
// require grad (a gradient of the gradient with respect to grad_output).
TensorPtr cross_entropy_backward_ops(const TensorPtr& g, const TensorPtr& x, const TensorPtr& t, Reduction r) {
  const int64_t N = x->shape[0];
  TensorPtr p = ops::softmax(x, 1, false);
  TensorPtr ones = ops::full({N, 1}, Scalar::from_int(1), x->dtype, x->device());
  TensorPtr zeros = ops::full(x->shape, Scalar::from_int(0), x->dtype, x->device());
  TensorPtr onehot = ops::scatter(zeros, 1, ops::unsqueeze(t, 1), ones, false);
  TensorPtr gi = g;  // 0-d for mean and sum: broadcasts over (N, C)
  if (r == Reduction::Mean)
    gi = ops::binary_scalar(BinaryOp::Div, g, Scalar::from_double(static_cast<double>(N)), false);
  else if (r == Reduction::None)
    gi = ops::unsqueeze(g, 1);
  return ops::binary(BinaryOp::Mul, ops::binary(BinaryOp::Sub, p, onehot), gi);
}

}  // namespace

void record_cross_entropy(const TensorPtr& loss, const TensorPtr& x, const TensorPtr& t, const TensorPtr& e,
                          const TensorPtr& inv, Reduction r) {
  record("CrossEntropyBackward", {x}, loss, {x, t, e, inv},
         [r](const TensorList& g, const TensorList& s, const Needs&) {
           // g[0] has the loss's dtype: the engine casts a gradient of another dtype first.
           const TensorPtr& g0 = g[0];
           const Backend& be = backend(g0->device());
           if (grad_enabled() || !be.cross_entropy_backward)
             return TensorList{cross_entropy_backward_ops(g0, s[0], s[1], r)};
           const TensorPtr& e = s[2];
           TensorPtr grad = Tensor::empty(e->shape, e->dtype, e->device());
           be.cross_entropy_backward(*grad, *g0, *s[1], *e, *s[3], r);
           return TensorList{grad};
         });
}

}  // namespace aakaar::autograd
