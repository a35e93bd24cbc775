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
//
// PyTorch's options ride along at little cost: class weights w scale row i by
// w[t_i]; a row whose target is ignore_index has loss and gradient 0 and is left
// out of the mean, whose divisor is sum_i w[t_i] over the rows kept; label
// smoothing eps adds eps / C sum_c w_c (lse_i - x_ic) to each row (one more pass
// over the row's logits, only when eps > 0), and the gradient becomes
//
//   grad_x[i, j] = g_i (p_ij a_i - eps w_j / C) - g_i (1 - eps) w[t_i] [j == t_i],
//   a_i = (1 - eps) w[t_i] + eps W / C,  W = sum_c w_c.
//
// Probability targets q (soft labels, CrossEntropyOptions::target_probs) take the
// same passes: the loss of row i is sum_c w_c q'_ic (lse_i - x_ic), q' = (1 - eps) q
// + eps / C, a sum of non-negative terms (no cancellation however large the
// logits), and the gradient g_i (p_ij sum_c w_c q'_ic - w_j q'_ij), one pass again.
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

// [[book:cross_entropy_shift]]
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
// [[/book:cross_entropy_shift]]

// A soft-target row's S = sum_c w_c q'_c and A = sum_c w_c q'_c (m - x_c), q' = (1 - eps) q + eps / C,
// in double, in kLanes independent sums (a single running sum would be one dependent add per
// element), added in a fixed order.
struct SoftSums {
  double S, A;
};
constexpr int64_t kLanes = 8;

template <typename T>
SoftSums soft_sums(int64_t C, const T* x, int64_t cs, T m, const T* q, const T* w, T eps) {
  const T a = T(1) - eps, b = eps / static_cast<T>(C);
  double S[kLanes] = {}, A[kLanes] = {};
  auto term = [&](int64_t j, int64_t lane) {
    const double wq = static_cast<double>((w ? w[j] : T(1)) * (a * q[j] + b));
    S[lane] += wq;
    A[lane] += wq * static_cast<double>(m - x[j * cs]);
  };
  int64_t j = 0;
  for (; j + kLanes <= C; j += kLanes)
    for (int64_t l = 0; l < kLanes; ++l) term(j + l, l);
  for (; j < C; ++j) term(j, 0);
  SoftSums out{0, 0};
  for (int64_t l = 0; l < kLanes; ++l) out.S += S[l], out.A += A[l];
  return out;
}

// Rows per task: about 8192 elements, so a thread's share is worth waking it for.
int64_t row_grain(int64_t C) { return std::max<int64_t>(1, 8192 / std::max<int64_t>(C, 1)); }

// [[book:cross_entropy_forward]]
// e (N, C) gets exp(x_i - m_i), inv (N) gets 1 / sum_j e_ij: the backward's
// softmax is e * inv. loss is (N,) for Reduction::None, else a 0-d tensor
// that gets the sum or the mean; total gets the mean's divisor. Targets were
// checked by the op.
template <typename T>
void cross_entropy_forward(const Tensor& loss, const Tensor& e, const Tensor& inv, const Tensor& total,
                           const Tensor& x, const Tensor& t, Reduction r, const CrossEntropyOptions& o) {
  const int64_t N = x.shape[0], C = x.shape[1];
  const T* X = x.data<T>();
  const int64_t rs = x.strides[0], cs = x.strides[1];
  const int64_t* tp = t.data<int64_t>();
  const int64_t ts = t.strides[0];
  const T* W = o.weight ? o.weight->data<T>() : nullptr;
  const int64_t ignore = o.ignore_index;
  const T eps = static_cast<T>(o.label_smoothing);
  T Wsum = static_cast<T>(C);
  if (W) {
    double acc = 0;
    for (int64_t j = 0; j < C; ++j) acc += static_cast<double>(W[j]);
    Wsum = static_cast<T>(acc);
  }
  const T* P = o.target_probs ? o.target_probs->data<T>() : nullptr;  // (N, C) contiguous
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
      const T lse = std::log(sum);  // logsumexp(x_i) - m_i
      T li = 0;
      if (P) {
        // sum_c w_c q'_c (lse - (x_c - m)) = lse S + sum_c w_c q'_c (m - x_c): with x_c <= m,
        // two sums of non-negative terms, so no cancellation however large the logits.
        const SoftSums ss = soft_sums(C, X + i * rs, cs, M[i], P + i * C, W, eps);
        L[i * ls] = static_cast<T>(static_cast<double>(lse) * ss.S + ss.A);
        M[i] = T(1) / sum;
        continue;
      }
      const int64_t c = tp[i * ts];
      if (c != ignore) {
        li = lse - (X[i * rs + c * cs] - M[i]);  // log-sum-exp minus the target logit
        if (W) li *= W[c];
        if (eps > 0) {
          // sum_c w_c (lse - (x_c - m)): every term >= 0, so no cancellation even for huge logits
          double acc = 0;
          for (int64_t j = 0; j < C; ++j)
            acc += static_cast<double>(W ? W[j] : T(1)) * static_cast<double>(X[i * rs + j * cs] - M[i]);
          li = (T(1) - eps) * li + eps / static_cast<T>(C) * static_cast<T>(static_cast<double>(Wsum * lse) - acc);
        }
      }
      L[i * ls] = li;
      M[i] = T(1) / sum;
    }
  });
  double kept = P ? static_cast<double>(N) : 0;  // the mean's divisor: the rows (probabilities), else
  for (int64_t i = 0; i < N && !P; ++i) {         // the sum of w[t_i] over the rows not ignored
    const int64_t c = tp[i * ts];
    if (c != ignore) kept += W ? static_cast<double>(W[c]) : 1.0;
  }
  *total.data<T>() = static_cast<T>(kept);
  if (r == Reduction::None) return;
  double acc = 0;
  for (int64_t i = 0; i < N; ++i) acc += static_cast<double>(L[i]);
  // Mean of an empty batch, or of one whose rows are all ignored: 0/0 = NaN, as in PyTorch.
  *loss.data<T>() = static_cast<T>(r == Reduction::Mean ? acc / kept : acc);
}
// [[/book:cross_entropy_forward]]

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

// The general row, with class weights, label smoothing (see the top of the file).
template <typename T>
void smoothed_row(int64_t C, const T* __restrict e, T inv, T g, int64_t target, const T* __restrict w, T eps,
                  T Wsum, T* __restrict out) {
  const T wt = w ? w[target] : T(1);
  const T scale = inv * g * ((T(1) - eps) * wt + eps * Wsum / static_cast<T>(C));
  const T off = g * eps / static_cast<T>(C);
  if (w) {
    for (int64_t j = 0; j < C; ++j) out[j] = e[j] * scale - off * w[j];
  } else {
    for (int64_t j = 0; j < C; ++j) out[j] = e[j] * scale - off;
  }
  out[target] -= g * (T(1) - eps) * wt;
}

// A row with probability targets q: g (p_j S - w_j q'_j), S = sum_c w_c q'_c.
template <typename T>
void soft_target_row(int64_t C, const T* __restrict e, T inv, T g, const T* __restrict q, const T* __restrict w,
                     T eps, T* __restrict out) {
  const T a = T(1) - eps, b = eps / static_cast<T>(C);
  T lanes[kLanes] = {};
  int64_t k = 0;
  for (; k + kLanes <= C; k += kLanes)
    for (int64_t l = 0; l < kLanes; ++l) lanes[l] += (w ? w[k + l] : T(1)) * (a * q[k + l] + b);
  for (; k < C; ++k) lanes[0] += (w ? w[k] : T(1)) * (a * q[k] + b);
  T S = 0;
  for (int64_t l = 0; l < kLanes; ++l) S += lanes[l];
  const T scale = inv * g * S;
  if (w) {
    for (int64_t j = 0; j < C; ++j) out[j] = e[j] * scale - g * w[j] * (a * q[j] + b);
  } else {
    for (int64_t j = 0; j < C; ++j) out[j] = e[j] * scale - g * (a * q[j] + b);
  }
}

template <typename T>
void cross_entropy_backward_impl(const Tensor& grad, const Tensor& g, const Tensor& t, const Tensor& e,
                                 const Tensor& inv, const Tensor& total, Reduction r, const CrossEntropyOptions& o) {
  const int64_t N = e.shape[0], C = e.shape[1];
  const T* E = e.data<T>();
  const T* I = inv.data<T>();
  const int64_t* tp = t.data<int64_t>();
  const int64_t ts = t.strides[0];
  const T* G = g.data<T>();
  const int64_t gs = r == Reduction::None ? g.strides[0] : 0;
  const T* W = o.weight ? o.weight->data<T>() : nullptr;
  const T eps = static_cast<T>(o.label_smoothing);
  T Wsum = static_cast<T>(C);
  if (W) {
    double acc = 0;
    for (int64_t j = 0; j < C; ++j) acc += static_cast<double>(W[j]);
    Wsum = static_cast<T>(acc);
  }
  const bool plain = !W && eps == 0;
  // The gradient of the mean or sum is one number; with reduction "none" it is one per row and
  // G[0] is not read here: with no rows it does not exist (an empty gradient, found by ASan).
  const T g_all = r == Reduction::None ? T(0)
                  : r == Reduction::Mean
                      ? static_cast<T>(static_cast<double>(G[0]) / static_cast<double>(*total.data<T>()))
                      : G[0];
  T* out = grad.data<T>();
  const T* P = o.target_probs ? o.target_probs->data<T>() : nullptr;
  parallel_for(0, N, row_grain(C), [&](int64_t b, int64_t end) {
    for (int64_t i = b; i < end; ++i) {
      if (P) {
        soft_target_row<T>(C, E + i * C, I[i], r == Reduction::None ? G[i * gs] : g_all, P + i * C, W, eps,
                           out + i * C);
        continue;
      }
      const int64_t c = tp[i * ts];
      T* row = out + i * C;
      if (c == o.ignore_index) {
        std::fill(row, row + C, T(0));
        continue;
      }
      const T gi = r == Reduction::None ? G[i * gs] : g_all;
      if (plain)
        softmax_minus_onehot_row<T>(C, E + i * C, I[i], gi, c, row);
      else
        smoothed_row<T>(C, E + i * C, I[i], gi, c, W, eps, Wsum, row);
    }
  });
}
// [[/book:cross_entropy_backward]]

}  // namespace

void cross_entropy(const Tensor& loss, const Tensor& e, const Tensor& inv, const Tensor& total, const Tensor& x,
                   const Tensor& t, Reduction r, const CrossEntropyOptions& o) {
  AK_DISPATCH_FLOAT(x.dtype, "cross_entropy", [&](auto tag) {
    cross_entropy_forward<decltype(tag)>(loss, e, inv, total, x, t, r, o);
  });
}

void cross_entropy_backward(const Tensor& grad, const Tensor& g, const Tensor& t, const Tensor& e,
                            const Tensor& inv, const Tensor& total, Reduction r, const CrossEntropyOptions& o) {
  AK_DISPATCH_FLOAT(grad.dtype, "cross_entropy backward", [&](auto tag) {
    cross_entropy_backward_impl<decltype(tag)>(grad, g, t, e, inv, total, r, o);
  });
}

}  // namespace aakaar::cpu
