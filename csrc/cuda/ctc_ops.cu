// The CTC loss on the device: the backend entries ctc_loss and ctc_loss_backward
// (core/backend.h), the forward-backward recursion of cpu/fused/ctc_loss.cpp (whose
// comment derives it) in log space.
//
// As PyTorch's kernels: one block per sample for each recursion, its threads over the
// positions s of the extended target l' = (blank, l_1, blank, ..., l_L, blank); frame t
// needs all of frame t - 1, so a barrier separates the frames. The forward variables go
// to log_alpha (which the op keeps for the backward), the backward ones to a scratch
// tensor of the same shape. Then the gradient needs no more recursion: a block per
// (frame, sample), its threads over the classes c, folds alpha_t(s) + beta_t(s) over the
// positions holding c, in the CPU's order of s -- every frame at once.
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

// [[book:cuda_ctc_beta]]
template <typename T>
__global__ void __launch_bounds__(kCtcThreads) ctc_beta_kernel(CtcBatch<T> b, const T* nll_all, bool zero_infinity,
                                                               T* beta_all) {
  const int64_t n = blockIdx.x;
  const int64_t Tn = b.in_len[n], L = b.tg_len[n], S = 2 * L + 1;
  // An impossible alignment with zero_infinity gets no gradient: its betas are not needed.
  if (Tn == 0 || (zero_infinity && nll_all[n] == std::numeric_limits<T>::infinity())) return;  // whole block
  const int64_t* labels = b.targets + b.tg_off[n];
  T* beta = beta_all + n * b.T_ * b.S2;
  auto lp = [&](int64_t t) { return b.lp + (t * b.N + n) * b.C; };
  // The last frame: paths end on the trailing blank or the last label.
  T* last = beta + (Tn - 1) * b.S2;
  for (int64_t s = threadIdx.x; s < S; s += blockDim.x)
    last[s] = s == S - 1 ? lp(Tn - 1)[b.blank] : (L > 0 && s == S - 2) ? lp(Tn - 1)[labels[L - 1]] : neg_inf<T>();
  for (int64_t t = Tn - 2; t >= 0; --t) {
    __syncthreads();  // frame t + 1 is complete
    const T* next = beta + (t + 1) * b.S2;
    T* cur = beta + t * b.S2;
    const T* lpt = lp(t);
    for (int64_t s = threadIdx.x; s < S; s += blockDim.x) {
      const int64_t c = prime(labels, s, b.blank);
      const T step = s < S - 1 ? next[s + 1] : neg_inf<T>();
      const T skip = s < S - 2 && prime(labels, s + 2, b.blank) != c ? next[s + 2] : neg_inf<T>();
      cur[s] = log_add3(next[s], step, skip) + lpt[c];
    }
  }
}

// Block t N + n: frame t's gradient of sample n, a thread per class c:
// g (exp(lp) - exp(log sum_{s: l'_s = c} exp(alpha_t(s) + beta_t(s)) + nll - lp)), 0 past the input.
template <typename T>
__global__ void __launch_bounds__(kCtcThreads) ctc_grad_kernel(CtcBatch<T> b, const T* alpha_all, const T* beta_all,
                                                               const T* nll_all, const T* G, bool zero_infinity,
                                                               T* grad) {
  const int64_t t = blockIdx.x / b.N, n = blockIdx.x % b.N;
  const int64_t Tn = b.in_len[n], S = 2 * b.tg_len[n] + 1;
  const int64_t* labels = b.targets + b.tg_off[n];
  const T nll = nll_all[n];
  T* gt = grad + (t * b.N + n) * b.C;
  if (t >= Tn || (zero_infinity && nll == std::numeric_limits<T>::infinity())) {
    for (int64_t c = threadIdx.x; c < b.C; c += blockDim.x) gt[c] = T(0);
    return;
  }
  const T* at = alpha_all + (n * b.T_ + t) * b.S2;
  const T* bt = beta_all + (n * b.T_ + t) * b.S2;
  const T* lpt = b.lp + (t * b.N + n) * b.C;
  const T g = G[n];
  for (int64_t c = threadIdx.x; c < b.C; c += blockDim.x) {
    T acc = neg_inf<T>();
    // Any other class than the blank sits only at odd positions.
    const int64_t step = c == b.blank ? 1 : 2;
    for (int64_t s = c == b.blank ? 0 : 1; s < S; s += step) {
      if (prime(labels, s, b.blank) != c) continue;
      const T ab = at[s] + bt[s];
      acc = acc == neg_inf<T>() ? ab : log_add2(acc, ab);
    }
    gt[c] = (dmath::exp_(lpt[c]) - dmath::exp_(acc + nll - lpt[c])) * g;
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
    ScratchBuffer beta(sizeof(T) * static_cast<size_t>(b.N * b.T_ * b.S2));
    AAKAAR_LAUNCH((ctc_beta_kernel<T>), static_cast<int>(b.N), kCtcThreads, 0, b, nll.data<T>(), a.zero_infinity,
                  beta.as<T>());
    AAKAAR_CHECK_LAUNCH();
    AAKAAR_LAUNCH((ctc_grad_kernel<T>), static_cast<int>(b.T_ * b.N), kCtcThreads, 0,
                  b, log_alpha.data<T>(), beta.as<T>(), nll.data<T>(), g.data<T>(), a.zero_infinity, grad.data<T>());
    AAKAAR_CHECK_LAUNCH();
  });
}

}  // namespace aakaar::cuda
