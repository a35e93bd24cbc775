// Inner loops of the fused pointwise losses (MSE, L1, Huber, SmoothL1, BCE,
// BCEWithLogits), forward and backward, over one block of contiguous elements.
//
// This header is compiled three times, like cpu/elementwise_loops.h: by
// pointwise_loss.cpp for any x86-64 (SSE2), by pointwise_loss_avx2.cpp with
// -mavx2 -mfma and by pointwise_loss_avx512.cpp with AVX-512; pointwise_loss.cpp
// picks one at run time (cpu/isa.h). AK_KERNEL_NS names the namespace of each copy.
//
// In float32 the logs and exponentials are vec_math.h's branch-free versions, so
// each loop is one vector loop (8 or 16 lanes) where std::log1p and std::exp
// would be a library call per element. float64 keeps the library's functions.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <type_traits>

#include "core/backend.h"
#include "cpu/fused/pointwise_loss_kernels.h"
#include "cpu/vec_math.h"

#ifndef AK_KERNEL_NS
#error "define AK_KERNEL_NS before including pointwise_loss_loops.h"
#endif

namespace aakaar::cpu::AK_KERNEL_NS {
namespace {

constexpr int64_t kLanes = 8;  // independent double accumulators of a block sum

template <typename T>
AK_VEC_INLINE T vexp(T x) {
  if constexpr (std::is_same_v<T, float>) return exp_f32(x);
  else return std::exp(x);
}
template <typename T>
AK_VEC_INLINE T vlog(T x) {
  if constexpr (std::is_same_v<T, float>) return log_f32(x);
  else return std::log(x);
}
template <typename T>
AK_VEC_INLINE T vlog1p(T x) {
  if constexpr (std::is_same_v<T, float>) return log1p_f32(x);
  else return std::log1p(x);
}

// [[book:pointwise_loss_value]]
// One element's loss (unweighted); K is known at compile time, so each loop has no switch.
// BCEWithLogits also gives e = exp(-|x|), which the backward reuses; kPW: whether pw
// (its pos_weight) is given (without, the formulas are PyTorch's shorter ones, not pw = 1).
template <PointwiseLoss K, typename T, bool kPW = false>
AK_VEC_INLINE T loss_value(T x, T t, T pw, T p, T& e) {
  if constexpr (K == PointwiseLoss::MSE) {
    const T d = x - t;
    return d * d;
  } else if constexpr (K == PointwiseLoss::L1) {
    return std::abs(x - t);
  } else if constexpr (K == PointwiseLoss::Huber) {
    const T z = std::abs(x - t);
    return z < p ? T(0.5) * z * z : p * (z - T(0.5) * p);
  } else if constexpr (K == PointwiseLoss::SmoothL1) {
    const T z = std::abs(x - t);
    return z < p ? T(0.5) * z * z / p : z - T(0.5) * p;
  } else if constexpr (K == PointwiseLoss::BCE) {
    // Each log clamped at -100, so x = 0 or 1 gives a finite loss (PyTorch's rule).
    return (t - T(1)) * std::max(vlog1p(-x), T(-100)) - t * std::max(vlog(x), T(-100));
  } else {
    // log sigmoid(x) = min(x, 0) - log1p(exp(-|x|)): exp never overflows.
    e = vexp(-std::abs(x));
    const T log_sig = std::min(x, T(0)) - vlog1p(e);
    if constexpr (kPW) return (T(1) - t) * x - ((pw - T(1)) * t + T(1)) * log_sig;
    else return (T(1) - t) * x - log_sig;
  }
}
// [[/book:pointwise_loss_value]]

// [[book:pointwise_loss_derivative]]
// d loss / d x of one element (unweighted); e = exp(-|x|) for BCEWithLogits.
template <PointwiseLoss K, typename T, bool kPW = false>
AK_VEC_INLINE T loss_derivative(T x, T t, T pw, T p, T e) {
  const T d = x - t;
  if constexpr (K == PointwiseLoss::MSE) {
    return T(2) * d;
  } else if constexpr (K == PointwiseLoss::L1) {
    return T((d > 0) - (d < 0));  // sign; 0 at d = 0 and at NaN, as PyTorch's sgn
  } else if constexpr (K == PointwiseLoss::Huber) {
    return d < -p ? -p : (d > p ? p : d);
  } else if constexpr (K == PointwiseLoss::SmoothL1) {
    return d < -p ? T(-1) : (d > p ? T(1) : d / p);
  } else if constexpr (K == PointwiseLoss::BCE) {
    return d / std::max((T(1) - x) * x, T(1e-12f));  // PyTorch's EPSILON is the float 1e-12
  } else {
    const T s = x >= 0 ? T(1) / (T(1) + e) : e / (T(1) + e);  // sigmoid(x), stable both sides
    if constexpr (!kPW) return s - t;
    const T tp = pw * t;
    return (tp + T(1) - t) * s - tp;
  }
}
// [[/book:pointwise_loss_derivative]]

// Sum of v[0, n) in double, kLanes independent sums (so the loop vectorises
// without reordering any one sum), then the lanes in a fixed order: the same
// result for any thread count.
template <typename T>
double block_sum(const T* v, int64_t n) {
  double lanes[kLanes] = {};
  int64_t k = 0;
  for (; k + kLanes <= n; k += kLanes)
    for (int64_t j = 0; j < kLanes; ++j) lanes[j] += static_cast<double>(v[k + j]);
  for (; k < n; ++k) lanes[0] += static_cast<double>(v[k]);
  double s = 0;
  for (int64_t j = 0; j < kLanes; ++j) s += lanes[j];
  return s;
}

// Calls f(std::bool_constant<b>{}) for the runtime b: a loop specialised on which
// optional inputs it has is a plain vector loop, where a loop that tests a pointer
// per element (even one that does not change) stays scalar.
template <typename F>
AK_VEC_INLINE auto with_flag(bool b, const F& f) {
  return b ? f(std::true_type{}) : f(std::false_type{});
}

// The weighted losses of [lo, hi) into out; BCEWithLogits' exp(-|x|) into aux when
// asked. kW, kPW, kA: whether weight, pos_weight and aux are given.
template <PointwiseLoss K, typename T, bool kW, bool kPW, bool kA>
void forward_loop(const PointwiseData& d, int64_t lo, int64_t hi, T* __restrict out) {
  const T* __restrict X = static_cast<const T*>(d.x);
  const T* __restrict Tg = static_cast<const T*>(d.t);
  const T* __restrict W = static_cast<const T*>(d.w);
  const T* __restrict PW = static_cast<const T*>(d.pw);
  T* __restrict A = static_cast<T*>(d.aux);
  const T p = static_cast<T>(d.param);
  for (int64_t k = lo; k < hi; ++k) {
    T e;
    const T v = loss_value<K, T, kPW>(X[k], Tg[k], kPW ? PW[k] : T(1), p, e);
    if constexpr (kA) A[k] = e;
    out[k - lo] = kW ? v * W[k] : v;
  }
}

template <PointwiseLoss K, typename T>
void forward_loop(const PointwiseData& d, int64_t lo, int64_t hi, T* out) {
  constexpr bool kLogits = K == PointwiseLoss::BCEWithLogits;
  with_flag(d.w != nullptr, [&](auto w) {
    if constexpr (kLogits) {
      with_flag(d.pw != nullptr, [&](auto pw) {
        with_flag(d.aux != nullptr, [&](auto a) { forward_loop<K, T, w, pw, a>(d, lo, hi, out); });
      });
    } else {
      forward_loop<K, T, w, false, false>(d, lo, hi, out);
    }
  });
}

template <PointwiseLoss K, typename T>
double forward_block(const PointwiseData& d, int64_t lo, int64_t hi, T* out) {
  if (out) {
    forward_loop<K, T>(d, lo, hi, out + lo);
    return 0;
  }
  // Reduced: the block's losses go to a buffer on the stack (the vector loop), then
  // are summed in double (the second loop): both vectorise, where a running
  // double sum inside the first loop would be one dependent add per element.
  constexpr int64_t kChunk = 1024;
  T buf[kChunk];
  double s = 0;
  for (int64_t c = lo; c < hi; c += kChunk) {
    const int64_t end = std::min(hi, c + kChunk);
    forward_loop<K, T>(d, c, end, buf);
    s += block_sum(buf, end - c);
  }
  return s;
}

// grad over [lo, hi); kG: per-element gradients G (reduction none), else g_all; kA:
// BCEWithLogits' exp(-|x|) from the forward (else computed again).
template <PointwiseLoss K, typename T, bool kG, bool kW, bool kPW, bool kA>
void backward_loop(const PointwiseData& d, int64_t lo, int64_t hi, const T* __restrict G, T g_all,
                   T* __restrict out) {
  const T* __restrict X = static_cast<const T*>(d.x);
  const T* __restrict Tg = static_cast<const T*>(d.t);
  const T* __restrict W = static_cast<const T*>(d.w);
  const T* __restrict PW = static_cast<const T*>(d.pw);
  const T* __restrict A = static_cast<const T*>(d.aux);
  const T p = static_cast<T>(d.param);
  constexpr bool kLogits = K == PointwiseLoss::BCEWithLogits;
  for (int64_t k = lo; k < hi; ++k) {
    T e = T(0);
    if constexpr (kLogits) e = kA ? A[k] : vexp(-std::abs(X[k]));
    const T dv = loss_derivative<K, T, kPW>(X[k], Tg[k], kPW ? PW[k] : T(1), p, e) * (kG ? G[k] : g_all);
    out[k] = kW ? dv * W[k] : dv;
  }
}

template <PointwiseLoss K, typename T>
void backward_block(const PointwiseData& d, int64_t lo, int64_t hi, const T* G, T g_all, T* out) {
  constexpr bool kLogits = K == PointwiseLoss::BCEWithLogits;
  with_flag(G != nullptr, [&](auto g) {
    with_flag(d.w != nullptr, [&](auto w) {
      if constexpr (kLogits) {
        with_flag(d.pw != nullptr, [&](auto pw) {
          with_flag(d.aux != nullptr, [&](auto a) { backward_loop<K, T, g, w, pw, a>(d, lo, hi, G, g_all, out); });
        });
      } else {
        backward_loop<K, T, g, w, false, false>(d, lo, hi, G, g_all, out);
      }
    });
  });
}

// [[book:pointwise_loss_dispatch]]
// Calls f(std::integral_constant<PointwiseLoss, K>) for the runtime kind.
template <typename F>
auto dispatch_kind(PointwiseLoss kind, F&& f) {
  switch (kind) {
    case PointwiseLoss::MSE: return f(std::integral_constant<PointwiseLoss, PointwiseLoss::MSE>{});
    case PointwiseLoss::L1: return f(std::integral_constant<PointwiseLoss, PointwiseLoss::L1>{});
    case PointwiseLoss::Huber: return f(std::integral_constant<PointwiseLoss, PointwiseLoss::Huber>{});
    case PointwiseLoss::SmoothL1: return f(std::integral_constant<PointwiseLoss, PointwiseLoss::SmoothL1>{});
    case PointwiseLoss::BCE: return f(std::integral_constant<PointwiseLoss, PointwiseLoss::BCE>{});
    case PointwiseLoss::BCEWithLogits: break;
  }
  return f(std::integral_constant<PointwiseLoss, PointwiseLoss::BCEWithLogits>{});
}
// [[/book:pointwise_loss_dispatch]]

}  // namespace

double pointwise_forward_f32(PointwiseLoss kind, const PointwiseData& d, int64_t lo, int64_t hi, float* out) {
  return dispatch_kind(kind, [&](auto k) { return forward_block<decltype(k)::value, float>(d, lo, hi, out); });
}
double pointwise_forward_f64(PointwiseLoss kind, const PointwiseData& d, int64_t lo, int64_t hi, double* out) {
  return dispatch_kind(kind, [&](auto k) { return forward_block<decltype(k)::value, double>(d, lo, hi, out); });
}
void pointwise_backward_f32(PointwiseLoss kind, const PointwiseData& d, int64_t lo, int64_t hi, const float* G,
                            float g_all, float* grad) {
  dispatch_kind(kind, [&](auto k) { backward_block<decltype(k)::value, float>(d, lo, hi, G, g_all, grad); });
}
void pointwise_backward_f64(PointwiseLoss kind, const PointwiseData& d, int64_t lo, int64_t hi, const double* G,
                            double g_all, double* grad) {
  dispatch_kind(kind, [&](auto k) { backward_block<decltype(k)::value, double>(d, lo, hi, G, g_all, grad); });
}

void vec_math_f32(int which, int64_t n, const float* __restrict x, float* __restrict out) {
  if (which == 0) {
    for (int64_t k = 0; k < n; ++k) out[k] = exp_f32(x[k]);
  } else if (which == 1) {
    for (int64_t k = 0; k < n; ++k) out[k] = log_f32(x[k]);
  } else {
    for (int64_t k = 0; k < n; ++k) out[k] = log1p_f32(x[k]);
  }
}

}  // namespace aakaar::cpu::AK_KERNEL_NS
