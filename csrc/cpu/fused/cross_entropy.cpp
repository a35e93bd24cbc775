// The CPU's fused softmax cross-entropy: the backend entries `cross_entropy`
// and `cross_entropy_backward` (core/backend.h).
//
// Forward, loss_i = logsumexp(x_i) - x[i, t_i]. Written as ops (log_softmax,
// gather, squeeze, neg, mean) the loss makes five passes, writes an (N, C)
// log-probability tensor of which it reads N values, and records five autograd
// nodes. Here it is three passes: the rows shifted by their max, their
// exponentials (the elementwise exp kernel of the CPU's ISA build: this file
// is compiled for the baseline ISA, where the exponentials were most of the
// op's time), then per row the sum and the loss. The exponentials are kept for
// the backward, which is then a single multiply per element:
// softmax = exp(x - m) / sum, with no exp left to compute. They take the
// memory that the composite's log_softmax output took.
//
// Backward: d loss_i / d x[i, j] = softmax(x_i)_j - [j == t_i], so with g_i
// the gradient reaching row i (grad / N for the mean, grad for the sum,
// grad[i] for reduction "none"):
//
//   grad_x[i, j] = (softmax(x_i)_j - [j == t_i]) * g_i
//
// The composite log_softmax + gather + neg + mean would instead scatter g into
// a zero (N, C) tensor, then run the log_softmax backward over it: exp again,
// a row sum, and two (N, C) temporaries.
#include <algorithm>
#include <cmath>
#include <limits>

#include "core/error.h"
#include "cpu/backend_cpu.h"
#include "cpu/isa.h"
#include "cpu/parallel.h"

namespace aakaar::cpu {
namespace {

// The vectorised max and sum of the reductions (a scalar loop over a row is a
// chain of dependent compares or adds, one per element).
float row_max(const float* x, int64_t n, float init) { return isa_kernels().max_f32(x, n, init); }
double row_max(const double* x, int64_t n, double init) { return isa_kernels().max_f64(x, n, init); }
float row_sum(const float* x, int64_t n) { return isa_kernels().sum_f32(x, n); }
double row_sum(const double* x, int64_t n) { return isa_kernels().sum_f64(x, n); }

template <typename T>
void sub_row(int64_t n, const T* __restrict x, T m, T* __restrict out) {
  for (int64_t j = 0; j < n; ++j) out[j] = x[j] - m;
}

// out[j] = x[j] - max(x): every exponent <= 0, so exp cannot overflow however
// large the logits. Returns the max.
template <typename T>
T shift_row(int64_t C, const T* x, int64_t cs, T* out) {
  T m = -std::numeric_limits<T>::infinity();
  if (cs == 1) {
    m = row_max(x, C, m);
  } else {
    for (int64_t j = 0; j < C; ++j) m = std::max(m, x[j * cs]);
  }
  if (std::isinf(m) && m < 0) m = 0;  // a row of -inf: keep x - m defined
  if (cs == 1) {
    sub_row(C, x, m, out);
  } else {
    for (int64_t j = 0; j < C; ++j) out[j] = x[j * cs] - m;
  }
  return m;
}

// Rows per task: about 8192 elements, so a thread's share is worth waking it for.
int64_t row_grain(int64_t C) { return std::max<int64_t>(1, 8192 / std::max<int64_t>(C, 1)); }

// e (N, C) gets exp(x_i - m_i), inv (N) gets 1 / sum_j e_ij: the backward's
// softmax is e * inv. loss is (N,) for Reduction::None, else a 0-d tensor
// that gets the sum or the mean. Targets were checked by the op.
template <typename T>
void cross_entropy_forward(const Tensor& loss, const Tensor& e, const Tensor& inv, const Tensor& x,
                           const Tensor& t, Reduction r) {
  const int64_t N = x.shape[0], C = x.shape[1];
  const T* X = x.data<T>();
  const int64_t rs = x.strides[0], cs = x.strides[1];
  const int64_t* tp = t.data<int64_t>();
  const int64_t ts = t.strides[0];
  T* E = e.data<T>();
  T* M = inv.data<T>();  // the row maxima, until the last pass replaces them by 1 / sum
  const int64_t grain = row_grain(C);
  parallel_for(0, N, grain, [&](int64_t b, int64_t end) {
    for (int64_t i = b; i < end; ++i) M[i] = shift_row(C, X + i * rs, cs, E + i * C);
  });
  if (e.numel() > 0) isa_kernels().unary(UnaryOp::Exp, e, e, {});
  // Per-row losses go to the output itself (none) or to a scratch row that is
  // then summed serially in double: the sum of a float32 batch must not lose
  // digits, and a fixed order keeps it the same for any thread count.
  TensorPtr rows = r == Reduction::None ? nullptr : Tensor::empty({N}, x.dtype);
  T* L = r == Reduction::None ? loss.data<T>() : rows->data<T>();
  const int64_t ls = r == Reduction::None ? loss.strides[0] : 1;
  parallel_for(0, N, grain, [&](int64_t b, int64_t end) {
    for (int64_t i = b; i < end; ++i) {
      const T sum = row_sum(E + i * C, C);
      L[i * ls] = std::log(sum) - (X[i * rs + tp[i * ts] * cs] - M[i]);  // log-sum-exp minus the target logit
      M[i] = T(1) / sum;
    }
  });
  if (r == Reduction::None) return;
  double acc = 0;
  for (int64_t i = 0; i < N; ++i) acc += static_cast<double>(L[i]);
  // Mean of an empty batch: 0/0 = NaN, as in PyTorch.
  *loss.data<T>() = static_cast<T>(r == Reduction::Mean ? acc / static_cast<double>(N) : acc);
}

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
void cross_entropy_backward_impl(const Tensor& grad, const Tensor& g, const Tensor& t, const Tensor& e,
                                 const Tensor& inv, Reduction r) {
  const int64_t N = e.shape[0], C = e.shape[1];
  const T* E = e.data<T>();
  const T* I = inv.data<T>();
  const int64_t* tp = t.data<int64_t>();
  const int64_t ts = t.strides[0];
  const T* G = g.data<T>();
  const int64_t gs = r == Reduction::None ? g.strides[0] : 0;
  const T g_all = r == Reduction::Mean ? static_cast<T>(static_cast<double>(G[0]) / static_cast<double>(N)) : G[0];
  T* out = grad.data<T>();
  parallel_for(0, N, row_grain(C), [&](int64_t b, int64_t end) {
    for (int64_t i = b; i < end; ++i)
      softmax_minus_onehot_row<T>(C, E + i * C, I[i], r == Reduction::None ? G[i * gs] : g_all, tp[i * ts],
                                  out + i * C);
  });
}
// [[/book:cross_entropy_backward]]

}  // namespace

void cross_entropy(const Tensor& loss, const Tensor& e, const Tensor& inv, const Tensor& x, const Tensor& t,
                   Reduction r) {
  AK_DISPATCH_FLOAT(x.dtype, "cross_entropy", [&](auto tag) {
    cross_entropy_forward<decltype(tag)>(loss, e, inv, x, t, r);
  });
}

void cross_entropy_backward(const Tensor& grad, const Tensor& g, const Tensor& t, const Tensor& e,
                            const Tensor& inv, Reduction r) {
  AK_DISPATCH_FLOAT(grad.dtype, "cross_entropy backward", [&](auto tag) {
    cross_entropy_backward_impl<decltype(tag)>(grad, g, t, e, inv, r);
  });
}

}  // namespace aakaar::cpu
