// The CTC loss on the device: the backend entries ctc_loss and ctc_loss_backward
// (core/backend.h), the forward-backward recursion of cpu/fused/ctc_loss.cpp (whose
// comment derives it) in log space.
//
// As PyTorch's kernel: one block per sample, its threads over the positions s of the
// extended target l' = (blank, l_1, blank, ..., l_L, blank); frame t needs all of frame
// t - 1, so a barrier separates the frames. The forward variables go straight to
// log_alpha (which the op keeps for the backward). The backward variables live in two
// rows of a scratch buffer (frame t + 1 and frame t); after each frame the threads turn
// to the classes c and fold alpha_t(s) + beta_t(s) over the positions holding c, in the
// CPU's order of s, into that frame's gradient.
#include <cmath>
#include <limits>

#include "core/error.h"
#include "cuda/allocator.h"
#include "cuda/backend_cuda.h"
#include "cuda/device_math.cuh"

namespace aakaar::cuda {
namespace {

constexpr int kCtcThreads = 256;

template <typename T>
struct CtcBatch {
  int64_t T_, N, C, S2;  // frames, batch, classes, width of a log_alpha row (2 S + 1)
  const int64_t* in_len;
  const int64_t* tg_len;
  const int64_t* tg_off;
  const int64_t* targets;
  int64_t blank;
  const T* lp;  // (T, N, C)
};

template <typename T>
__device__ __forceinline__ T neg_inf() {
  return -std::numeric_limits<T>::infinity();
}

// l'_s: blank at even s, the target's label s / 2 at odd s.
__device__ __forceinline__ int64_t prime(const int64_t* labels, int64_t s, int64_t blank) {
  return s % 2 == 0 ? blank : labels[s / 2];
}

// log(exp(a) + exp(b) + exp(c)), shifted by the max; -inf terms add nothing (the CPU's recipe).
template <typename T>
__device__ __forceinline__ T log_add3(T a, T b, T c) {
  T m = a > b ? a : b;
  m = m > c ? m : c;
  if (m == neg_inf<T>()) return neg_inf<T>();
  T s = dmath::exp_(a - m);
  if (b != neg_inf<T>()) s += dmath::exp_(b - m);
  if (c != neg_inf<T>()) s += dmath::exp_(c - m);
  return dmath::log_(s) + m;
}

template <typename T>
__device__ __forceinline__ T log_add2(T a, T b) {
  T m = a > b ? a : b;
  if (m == neg_inf<T>()) m = 0;
  return dmath::log_(dmath::exp_(a - m) + dmath::exp_(b - m)) + m;
}

// [[book:cuda_ctc_alpha]]
template <typename T>
__global__ void __launch_bounds__(kCtcThreads) ctc_alpha_kernel(CtcBatch<T> b, T* alpha_all, T* nll) {
  const int64_t n = blockIdx.x;
  const int64_t Tn = b.in_len[n], L = b.tg_len[n], S = 2 * L + 1;
  const int64_t* labels = b.targets + b.tg_off[n];
  T* alpha = alpha_all + n * b.T_ * b.S2;
  auto lp = [&](int64_t t) { return b.lp + (t * b.N + n) * b.C; };
  if (Tn > 0) {
    // Frame 0: a path starts on the leading blank or on the first label.
    for (int64_t s = threadIdx.x; s < S; s += blockDim.x)
      alpha[s] = s == 0 ? lp(0)[b.blank] : s == 1 ? lp(0)[labels[0]] : neg_inf<T>();
  }
  for (int64_t t = 1; t < Tn; ++t) {
    __syncthreads();  // frame t - 1 is complete
    const T* prev = alpha + (t - 1) * b.S2;
    T* cur = alpha + t * b.S2;
    const T* lpt = lp(t);
    for (int64_t s = threadIdx.x; s < S; s += blockDim.x) {
      const int64_t c = prime(labels, s, b.blank);
      const T step = s > 0 ? prev[s - 1] : neg_inf<T>();
      // Skipping the blank in between is allowed only between two different labels.
      const T skip = s > 1 && prime(labels, s - 2, b.blank) != c ? prev[s - 2] : neg_inf<T>();
      cur[s] = log_add3(prev[s], step, skip) + lpt[c];
    }
  }
  __syncthreads();
  if (threadIdx.x == 0) {
    if (Tn == 0) {
      nll[n] = L == 0 ? T(0) : std::numeric_limits<T>::infinity();
    } else {
      // A complete path ends on the last label or on the trailing blank.
      const T* last = alpha + (Tn - 1) * b.S2;
      nll[n] = -(L == 0 ? last[0] : log_add2(last[S - 1], last[S - 2]));
    }
  }
}
// [[/book:cuda_ctc_alpha]]

// Frame t's gradient of sample n from alpha_t and beta_t: a thread per class c.
template <typename T>
__device__ __forceinline__ void collect(const CtcBatch<T>& b, int64_t n, int64_t t, int64_t S, const int64_t* labels,
                                        const T* at, const T* beta, T nll, T g, T* grad) {
  const T* lpt = b.lp + (t * b.N + n) * b.C;
  T* gt = grad + (t * b.N + n) * b.C;
  for (int64_t c = threadIdx.x; c < b.C; c += blockDim.x) {
    T acc = neg_inf<T>();
    for (int64_t s = 0; s < S; ++s) {
      if (prime(labels, s, b.blank) != c) continue;
      const T ab = at[s] + beta[s];
      acc = acc == neg_inf<T>() ? ab : log_add2(acc, ab);
    }
    gt[c] = (dmath::exp_(lpt[c]) - dmath::exp_(acc + nll - lpt[c])) * g;
  }
}

// [[book:cuda_ctc_beta]]
template <typename T>
__global__ void __launch_bounds__(kCtcThreads) ctc_beta_kernel(CtcBatch<T> b, const T* alpha_all, const T* nll_all,
                                                               const T* G, bool zero_infinity, T* beta_buf,
                                                               T* grad) {
  const int64_t n = blockIdx.x;
  const int64_t Tn = b.in_len[n], L = b.tg_len[n], S = 2 * L + 1;
  const int64_t* labels = b.targets + b.tg_off[n];
  const T* alpha = alpha_all + n * b.T_ * b.S2;
  const T nll = nll_all[n];
  // An impossible alignment with zero_infinity: no gradient at all; frames past the input: none either.
  const bool skip = zero_infinity && nll == std::numeric_limits<T>::infinity();
  for (int64_t t = skip ? 0 : Tn; t < b.T_; ++t)
    for (int64_t c = threadIdx.x; c < b.C; c += blockDim.x) grad[(t * b.N + n) * b.C + c] = T(0);
  if (skip || Tn == 0) return;  // the same for every thread: no barrier is skipped by some only
  const T g = G[n];
  T* next = beta_buf + n * 2 * b.S2;  // beta_{t+1}
  T* cur = next + b.S2;               // beta_t
  auto lp = [&](int64_t t) { return b.lp + (t * b.N + n) * b.C; };
  // The last frame: paths end on the trailing blank or the last label.
  for (int64_t s = threadIdx.x; s < S; s += blockDim.x)
    next[s] = s == S - 1 ? lp(Tn - 1)[b.blank] : (L > 0 && s == S - 2) ? lp(Tn - 1)[labels[L - 1]] : neg_inf<T>();
  __syncthreads();
  collect(b, n, Tn - 1, S, labels, alpha + (Tn - 1) * b.S2, next, nll, g, grad);
  for (int64_t t = Tn - 2; t >= 0; --t) {
    const T* lpt = lp(t);
    for (int64_t s = threadIdx.x; s < S; s += blockDim.x) {
      const int64_t c = prime(labels, s, b.blank);
      const T step = s < S - 1 ? next[s + 1] : neg_inf<T>();
      const T skip2 = s < S - 2 && prime(labels, s + 2, b.blank) != c ? next[s + 2] : neg_inf<T>();
      cur[s] = log_add3(next[s], step, skip2) + lpt[c];
    }
    __syncthreads();  // beta_t is complete; beta_{t+1} is read by no one any more
    collect(b, n, t, S, labels, alpha + t * b.S2, cur, nll, g, grad);
    T* tmp = next;
    next = cur;
    cur = tmp;
  }
}
// [[/book:cuda_ctc_beta]]

template <typename T>
CtcBatch<T> batch_of(const Tensor& log_probs, const Tensor& log_alpha, const Tensor& targets, const CtcLossArgs& a) {
  return CtcBatch<T>{log_probs.shape[0],
                     log_probs.shape[1],
                     log_probs.shape[2],
                     log_alpha.shape[2],
                     a.input_lengths->data<int64_t>(),
                     a.target_lengths->data<int64_t>(),
                     a.target_offsets->data<int64_t>(),
                     targets.data<int64_t>(),
                     a.blank,
                     log_probs.data<T>()};
}

}  // namespace

void ctc_loss(const Tensor& nll, const Tensor& log_alpha, const Tensor& log_probs, const Tensor& targets,
              const CtcLossArgs& a) {
  AK_DISPATCH_FLOAT(log_probs.dtype, "ctc_loss", [&](auto tag) {
    using T = decltype(tag);
    const CtcBatch<T> b = batch_of<T>(log_probs, log_alpha, targets, a);
    if (b.N == 0) return;
    AAKAAR_LAUNCH((ctc_alpha_kernel<T>), static_cast<int>(b.N), kCtcThreads, 0, b, log_alpha.data<T>(), nll.data<T>());
    AAKAAR_CHECK_LAUNCH();
  });
}

void ctc_loss_backward(const Tensor& grad, const Tensor& g, const Tensor& log_probs, const Tensor& targets,
                       const Tensor& nll, const Tensor& log_alpha, const CtcLossArgs& a) {
  AK_DISPATCH_FLOAT(log_probs.dtype, "ctc_loss backward", [&](auto tag) {
    using T = decltype(tag);
    const CtcBatch<T> b = batch_of<T>(log_probs, log_alpha, targets, a);
    if (b.N == 0) return;
    ScratchBuffer beta(sizeof(T) * static_cast<size_t>(b.N * 2 * b.S2));
    AAKAAR_LAUNCH((ctc_beta_kernel<T>), static_cast<int>(b.N), kCtcThreads, 0, b, log_alpha.data<T>(), nll.data<T>(),
                  g.data<T>(), a.zero_infinity, beta.as<T>(), grad.data<T>());
    AAKAAR_CHECK_LAUNCH();
  });
}

}  // namespace aakaar::cuda
