// The CPU's CTC loss: the backend entries `ctc_loss` and `ctc_loss_backward`
// (core/backend.h), the forward-backward algorithm of Graves et al. (2006) in
// log space.
//
// A target l = (l_1, ..., l_L) is stretched to l' = (blank, l_1, blank, l_2,
// ..., l_L, blank) of length 2L + 1. An alignment walks l' from one of its
// first two symbols to one of its last two, one step per frame, moving 0, 1 or
// 2 places (2 only onto a label that differs from the one it skips to, since
// "a a" needs a blank between them). The forward variable
//
//   alpha_t(s) = lp_t(l'_s) + logsumexp(alpha_{t-1}(s), alpha_{t-1}(s-1), alpha_{t-1}(s-2))
//
// is the log-probability of every prefix path that ends at s at frame t, and
// the loss is -logsumexp(alpha_{T-1}(2L), alpha_{T-1}(2L-1)). The backward
// variable beta runs the same recursion from the end; alpha_t(s) + beta_t(s) -
// lp_t(l'_s) is the log-probability of all paths through s at t, so the
// posterior of symbol c at frame t is
//
//   gamma_t(c) = exp(log sum_{s: l'_s = c} exp(alpha_t(s) + beta_t(s)) + nll - lp_t(c)).
//
// (beta here includes lp_t(l'_s), as in PyTorch, hence the - lp.) Everything
// stays in log space: the probabilities of long sequences underflow any float.
//
// The gradient written is PyTorch's, exp(lp) - gamma: the gradient of the loss
// with respect to the logits z of a log_softmax that produced lp. Through
// log_softmax's backward it is also the exact gradient with respect to z, which
// is how the tests check it against finite differences.
//
// Samples are independent: the batch is split across threads, and each sample
// runs its recursion serially (each frame needs the previous one).
#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include "core/error.h"
#include "cpu/backend_cpu.h"
#include "cpu/parallel.h"

namespace aakaar::cpu {
namespace {

// l'_s: blank at even s, the target's label s / 2 at odd s.
inline int64_t prime(const int64_t* labels, int64_t s, int64_t blank) {
  return s % 2 == 0 ? blank : labels[s / 2];
}

// log(exp(a) + exp(b) + exp(c)) by PyTorch's recipe: shift by the max, and
// shift by 0 when every term is -inf (-inf - -inf would be NaN). A -inf term
// adds exp(-inf) = 0 exactly, so it is skipped (most states have one: the
// skip is only allowed between different labels) with the same result.
template <typename T>
inline T log_add3(T a, T b, T c) {
  constexpr T neg_inf = -std::numeric_limits<T>::infinity();
  T m = std::max(a, std::max(b, c));
  if (m == neg_inf) return neg_inf;
  T s = std::exp(a - m);
  if (b != neg_inf) s += std::exp(b - m);
  if (c != neg_inf) s += std::exp(c - m);
  return std::log(s) + m;
}

template <typename T>
inline T log_add2(T a, T b) {
  T m = std::max(a, b);
  if (m == -std::numeric_limits<T>::infinity()) m = 0;
  return std::log(std::exp(a - m) + std::exp(b - m)) + m;
}

// Samples per task: one sample is T * (2L + 1) steps of a few exps, already worth a thread.
constexpr int64_t kSampleGrain = 1;

struct Batch {
  int64_t T, N, C, S2;  // frames, batch, classes, width of a log_alpha row (2 S + 1)
  const int64_t* in_len;
  const int64_t* tg_len;
  const int64_t* tg_off;
  const int64_t* targets;
  int64_t blank;
};

Batch batch_of(const Tensor& log_probs, const Tensor& log_alpha, const Tensor& targets, const CtcLossArgs& a) {
  return Batch{log_probs.shape[0],
               log_probs.shape[1],
               log_probs.shape[2],
               log_alpha.shape[2],
               a.input_lengths->data<int64_t>(),
               a.target_lengths->data<int64_t>(),
               a.target_offsets->data<int64_t>(),
               targets.data<int64_t>(),
               a.blank};
}

// [[book:ctc_alpha]]
// The forward variables of sample n and its loss.
template <typename T>
T ctc_alpha(const Batch& b, int64_t n, const T* lp_all, T* alpha) {
  constexpr T neg_inf = -std::numeric_limits<T>::infinity();
  const int64_t Tn = b.in_len[n], L = b.tg_len[n], S = 2 * L + 1;
  const int64_t* labels = b.targets + b.tg_off[n];
  auto lp = [&](int64_t t) { return lp_all + (t * b.N + n) * b.C; };  // the frame's C log-probabilities
  if (Tn == 0) return L == 0 ? T(0) : std::numeric_limits<T>::infinity();
  // Frame 0: a path starts on the leading blank or on the first label.
  std::fill(alpha, alpha + S, neg_inf);
  alpha[0] = lp(0)[b.blank];
  if (L > 0) alpha[1] = lp(0)[labels[0]];
  for (int64_t t = 1; t < Tn; ++t) {
    const T* prev = alpha + (t - 1) * b.S2;
    T* cur = alpha + t * b.S2;
    const T* lpt = lp(t);
    for (int64_t s = 0; s < S; ++s) {
      const int64_t c = prime(labels, s, b.blank);
      const T stay = prev[s];
      const T step = s > 0 ? prev[s - 1] : neg_inf;
      // Skipping the blank in between is allowed only between two different labels.
      const T skip = s > 1 && prime(labels, s - 2, b.blank) != c ? prev[s - 2] : neg_inf;
      cur[s] = log_add3(stay, step, skip) + lpt[c];
    }
  }
  // A complete path ends on the last label or on the trailing blank.
  const T* last = alpha + (Tn - 1) * b.S2;
  const T ll = L == 0 ? last[0] : log_add2(last[S - 1], last[S - 2]);
  return -ll;
}
// [[/book:ctc_alpha]]

template <typename T>
void ctc_forward(const Tensor& nll, const Tensor& log_alpha, const Tensor& log_probs, const Tensor& targets,
                 const CtcLossArgs& a) {
  const Batch b = batch_of(log_probs, log_alpha, targets, a);
  const T* lp = log_probs.data<T>();
  T* alpha = log_alpha.data<T>();
  T* out = nll.data<T>();
  parallel_for(0, b.N, kSampleGrain, [&](int64_t n0, int64_t n1) {
    for (int64_t n = n0; n < n1; ++n) out[n] = ctc_alpha<T>(b, n, lp, alpha + n * b.T * b.S2);
  });
}

// [[book:ctc_beta]]
// The backward variables of sample n, folded into grad as they are made: grad
// (the sample's (T, C) slice, row stride N C) first collects, per frame and
// symbol, log sum exp(alpha + beta) over the positions of l' holding that
// symbol, then becomes exp(lp) - exp(that + nll - lp), times g.
template <typename T>
void ctc_beta_grad(const Batch& b, int64_t n, const T* lp_all, const T* alpha, T nll, T g, T* grad,
                   std::vector<T>& beta_buf) {
  constexpr T neg_inf = -std::numeric_limits<T>::infinity();
  const int64_t Tn = b.in_len[n], L = b.tg_len[n], S = 2 * L + 1, C = b.C;
  const int64_t* labels = b.targets + b.tg_off[n];
  const int64_t row = b.N * C;
  auto lp = [&](int64_t t) { return lp_all + t * row + n * C; };
  auto grow = [&](int64_t t) { return grad + t * row + n * C; };
  for (int64_t t = 0; t < Tn; ++t) std::fill(grow(t), grow(t) + C, neg_inf);
  if (Tn > 0) {
    beta_buf.assign(static_cast<size_t>(2 * S), neg_inf);  // two frames: beta_{t+1} and beta_t
    T* next = beta_buf.data();
    T* cur = next + S;
    const int64_t t = Tn - 1;
    const T* a = alpha + t * b.S2;
    // The last frame: paths end on the trailing blank or the last label.
    next[S - 1] = lp(t)[b.blank];
    grow(t)[b.blank] = a[S - 1] + next[S - 1];
    if (L > 0) {
      const int64_t c = labels[L - 1];
      next[S - 2] = lp(t)[c];
      grow(t)[c] = a[S - 2] + next[S - 2];
    }
    for (int64_t t = Tn - 2; t >= 0; --t) {
      const T* lpt = lp(t);
      const T* at = alpha + t * b.S2;
      T* gt = grow(t);
      for (int64_t s = 0; s < S; ++s) {
        const int64_t c = prime(labels, s, b.blank);
        const T stay = next[s];
        const T step = s < S - 1 ? next[s + 1] : neg_inf;
        const T skip = s < S - 2 && prime(labels, s + 2, b.blank) != c ? next[s + 2] : neg_inf;
        cur[s] = log_add3(stay, step, skip) + lpt[c];
        const T ab = at[s] + cur[s];
        T& acc = gt[c];
        acc = acc == neg_inf ? ab : log_add2(acc, ab);
      }
      std::swap(next, cur);
    }
  }
  for (int64_t t = 0; t < Tn; ++t) {
    const T* lpt = lp(t);
    T* gt = grow(t);
    for (int64_t c = 0; c < C; ++c) gt[c] = (std::exp(lpt[c]) - std::exp(gt[c] + nll - lpt[c])) * g;
  }
  for (int64_t t = Tn; t < b.T; ++t) std::fill(grow(t), grow(t) + C, T(0));
}
// [[/book:ctc_beta]]

template <typename T>
void ctc_backward(const Tensor& grad, const Tensor& g, const Tensor& log_probs, const Tensor& targets,
                  const Tensor& nll, const Tensor& log_alpha, const CtcLossArgs& a) {
  const Batch b = batch_of(log_probs, log_alpha, targets, a);
  const T* lp = log_probs.data<T>();
  const T* alpha = log_alpha.data<T>();
  const T* NL = nll.data<T>();
  const T* G = g.data<T>();
  T* out = grad.data<T>();
  parallel_for(0, b.N, kSampleGrain, [&](int64_t n0, int64_t n1) {
    std::vector<T> beta;
    for (int64_t n = n0; n < n1; ++n) {
      if (a.zero_infinity && NL[n] == std::numeric_limits<T>::infinity()) {
        for (int64_t t = 0; t < b.T; ++t) std::fill(out + (t * b.N + n) * b.C, out + (t * b.N + n + 1) * b.C, T(0));
        continue;
      }
      ctc_beta_grad<T>(b, n, lp, alpha + n * b.T * b.S2, NL[n], G[n], out, beta);
    }
  });
}

}  // namespace

void ctc_loss(const Tensor& nll, const Tensor& log_alpha, const Tensor& log_probs, const Tensor& targets,
              const CtcLossArgs& a) {
  AK_DISPATCH_FLOAT(log_probs.dtype, "ctc_loss",
                    [&](auto tag) { ctc_forward<decltype(tag)>(nll, log_alpha, log_probs, targets, a); });
}

void ctc_loss_backward(const Tensor& grad, const Tensor& g, const Tensor& log_probs, const Tensor& targets,
                       const Tensor& nll, const Tensor& log_alpha, const CtcLossArgs& a) {
  AK_DISPATCH_FLOAT(log_probs.dtype, "ctc_loss backward",
                    [&](auto tag) { ctc_backward<decltype(tag)>(grad, g, log_probs, targets, nll, log_alpha, a); });
}

}  // namespace aakaar::cpu
