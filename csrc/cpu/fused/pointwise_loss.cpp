// The CPU's fused pointwise losses: the backend entries `pointwise_loss` and
// `pointwise_loss_backward` (core/backend.h) for MSE, L1, Huber, SmoothL1, BCE
// and BCEWithLogits.
//
// Written as ops, mse_loss(x, t) is a subtraction, a square and a mean: three
// passes, two temporaries the size of the input, three autograd nodes, and a
// backward of three more passes. Here the forward is one pass that sums each
// element's loss as it goes, and the backward one pass that writes
//
//   grad_x[k] = loss'(x[k], t[k]) * g_k * w[k],   g_k = g / n (mean), g (sum), g[k] (none)
//
// with the derivative of each loss in closed form (PyTorch's formulas, so the
// same values: BCE's denominator clamped at 1e-12, Huber's gradient clipped at
// +-delta). BCEWithLogits keeps exp(-|x|) from the forward, so its backward
// computes no exponential.
//
// Sums go by fixed blocks of kBlock elements, each summed in double, then the
// block sums in order: the result is the same for any thread count, and a
// float32 sum of a million elements loses no digits.
#include <algorithm>
#include <cmath>
#include <type_traits>
#include <vector>

#include "core/error.h"
#include "cpu/backend_cpu.h"
#include "cpu/parallel.h"
#include "cpu/vec_math.h"

namespace aakaar::cpu {
namespace {

constexpr int64_t kBlock = 4096;

template <typename T>
inline T exp_any(T x) {
  if constexpr (std::is_same_v<T, float>) return exp_f32(x);
  else return std::exp(x);
}

// Blocks per task: a few hundred thousand cheap elements, fewer for those with a log or exp.
int64_t block_grain(PointwiseLoss kind) {
  return kind == PointwiseLoss::BCE || kind == PointwiseLoss::BCEWithLogits ? 4 : 16;
}

struct Inputs {
  int64_t n;
  const void* x;
  const void* t;
  const void* w;   // null: no weight
  const void* pw;  // null: no pos_weight
  void* aux;       // null: nothing kept for the backward
  double param;
};

// [[book:pointwise_loss_value]]
// One element's loss (unweighted); K is known at compile time, so each loop has no switch.
template <PointwiseLoss K, typename T>
inline T loss_value(T x, T t, const T* pw, T p, T* aux) {
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
    return (t - T(1)) * std::max(std::log1p(-x), T(-100)) - t * std::max(std::log(x), T(-100));
  } else {
    // log sigmoid(x) = min(x, 0) - log1p(exp(-|x|)): exp never overflows.
    const T e = exp_any(-std::abs(x));
    if (aux) *aux = e;
    const T log_sig = std::min(x, T(0)) - std::log1p(e);
    return (T(1) - t) * x - (pw ? (*pw - T(1)) * t + T(1) : T(1)) * log_sig;
  }
}
// [[/book:pointwise_loss_value]]

// [[book:pointwise_loss_derivative]]
// d loss / d x of one element (unweighted).
template <PointwiseLoss K, typename T>
inline T loss_derivative(T x, T t, const T* pw, T p, const T* aux) {
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
    const T e = aux ? *aux : exp_any(-std::abs(x));
    const T s = x >= 0 ? T(1) / (T(1) + e) : e / (T(1) + e);  // sigmoid(x), stable both sides
    if (!pw) return s - t;
    const T tp = *pw * t;
    return (tp + T(1) - t) * s - tp;
  }
}
// [[/book:pointwise_loss_derivative]]

template <PointwiseLoss K, typename T>
void forward_typed(const Tensor& loss, const Inputs& in, Reduction r) {
  const T* X = static_cast<const T*>(in.x);
  const T* Tg = static_cast<const T*>(in.t);
  const T* W = static_cast<const T*>(in.w);
  const T* PW = static_cast<const T*>(in.pw);
  T* A = static_cast<T*>(in.aux);
  const T p = static_cast<T>(in.param);
  const int64_t n = in.n, blocks = (n + kBlock - 1) / kBlock;
  auto block_range = [n](int64_t b) { return std::pair<int64_t, int64_t>{b * kBlock, std::min(n, (b + 1) * kBlock)}; };
  if (r == Reduction::None) {
    T* L = loss.data<T>();
    parallel_for(0, blocks, block_grain(K), [&](int64_t b0, int64_t b1) {
      for (int64_t b = b0; b < b1; ++b) {
        const auto [lo, hi] = block_range(b);
        for (int64_t k = lo; k < hi; ++k) {
          const T v = loss_value<K, T>(X[k], Tg[k], PW ? PW + k : nullptr, p, A ? A + k : nullptr);
          L[k] = W ? v * W[k] : v;
        }
      }
    });
    return;
  }
  std::vector<double> part(static_cast<size_t>(blocks));
  parallel_for(0, blocks, block_grain(K), [&](int64_t b0, int64_t b1) {
    for (int64_t b = b0; b < b1; ++b) {
      const auto [lo, hi] = block_range(b);
      double acc = 0;
      if (!W && !PW && !A) {
        for (int64_t k = lo; k < hi; ++k) acc += static_cast<double>(loss_value<K, T>(X[k], Tg[k], nullptr, p, nullptr));
      } else {
        for (int64_t k = lo; k < hi; ++k) {
          const T v = loss_value<K, T>(X[k], Tg[k], PW ? PW + k : nullptr, p, A ? A + k : nullptr);
          acc += static_cast<double>(W ? v * W[k] : v);
        }
      }
      part[static_cast<size_t>(b)] = acc;
    }
  });
  double total = 0;
  for (double s : part) total += s;
  // The mean of nothing is 0/0 = NaN, as in PyTorch.
  *loss.data<T>() = static_cast<T>(r == Reduction::Mean ? total / static_cast<double>(n) : total);
}

template <PointwiseLoss K, typename T>
void backward_typed(const Tensor& grad, const Tensor& g, const Inputs& in, Reduction r) {
  const T* X = static_cast<const T*>(in.x);
  const T* Tg = static_cast<const T*>(in.t);
  const T* W = static_cast<const T*>(in.w);
  const T* PW = static_cast<const T*>(in.pw);
  const T* A = static_cast<const T*>(in.aux);
  const T p = static_cast<T>(in.param);
  const T* G = g.data<T>();
  const int64_t n = in.n, blocks = (n + kBlock - 1) / kBlock;
  const T g_all = r == Reduction::Mean ? static_cast<T>(static_cast<double>(G[0]) / static_cast<double>(n))
                  : r == Reduction::Sum ? G[0] : T(0);
  T* out = grad.data<T>();
  parallel_for(0, blocks, block_grain(K), [&](int64_t b0, int64_t b1) {
    for (int64_t b = b0; b < b1; ++b) {
      const int64_t lo = b * kBlock, hi = std::min(n, lo + kBlock);
      if (r != Reduction::None && !W && !PW && !A) {
        for (int64_t k = lo; k < hi; ++k) out[k] = loss_derivative<K, T>(X[k], Tg[k], nullptr, p, nullptr) * g_all;
        continue;
      }
      for (int64_t k = lo; k < hi; ++k) {
        const T gk = r == Reduction::None ? G[k] : g_all;
        const T dv = loss_derivative<K, T>(X[k], Tg[k], PW ? PW + k : nullptr, p, A ? A + k : nullptr) * gk;
        out[k] = W ? dv * W[k] : dv;
      }
    }
  });
}

Inputs inputs_of(const Tensor* aux, const Tensor& x, const Tensor& t, const Tensor* weight, const Tensor* pos_weight,
                 double param) {
  return Inputs{x.numel(),
                x.data_ptr(),
                t.data_ptr(),
                weight ? weight->data_ptr() : nullptr,
                pos_weight ? pos_weight->data_ptr() : nullptr,
                aux ? aux->data_ptr() : nullptr,
                param};
}

// [[book:pointwise_loss_dispatch]]
// Calls f(std::integral_constant<PointwiseLoss, K>) for the runtime kind.
template <typename F>
void dispatch_kind(PointwiseLoss kind, F&& f) {
  switch (kind) {
    case PointwiseLoss::MSE: return f(std::integral_constant<PointwiseLoss, PointwiseLoss::MSE>{});
    case PointwiseLoss::L1: return f(std::integral_constant<PointwiseLoss, PointwiseLoss::L1>{});
    case PointwiseLoss::Huber: return f(std::integral_constant<PointwiseLoss, PointwiseLoss::Huber>{});
    case PointwiseLoss::SmoothL1: return f(std::integral_constant<PointwiseLoss, PointwiseLoss::SmoothL1>{});
    case PointwiseLoss::BCE: return f(std::integral_constant<PointwiseLoss, PointwiseLoss::BCE>{});
    case PointwiseLoss::BCEWithLogits:
      return f(std::integral_constant<PointwiseLoss, PointwiseLoss::BCEWithLogits>{});
  }
  throw RuntimeError("pointwise_loss: unknown loss kind");
}

}  // namespace

void pointwise_loss(PointwiseLoss kind, const Tensor& loss, const Tensor* aux, const Tensor& x, const Tensor& t,
                    const Tensor* weight, const Tensor* pos_weight, double param, Reduction r) {
  const Inputs in = inputs_of(aux, x, t, weight, pos_weight, param);
  AK_DISPATCH_FLOAT(x.dtype, "pointwise_loss", [&](auto tag) {
    using T = decltype(tag);
    dispatch_kind(kind, [&](auto k) { forward_typed<decltype(k)::value, T>(loss, in, r); });
  });
}
// [[/book:pointwise_loss_dispatch]]

void pointwise_loss_backward(PointwiseLoss kind, const Tensor& grad_x, const Tensor& g, const Tensor* aux,
                             const Tensor& x, const Tensor& t, const Tensor* weight, const Tensor* pos_weight,
                             double param, Reduction r) {
  const Inputs in = inputs_of(aux, x, t, weight, pos_weight, param);
  AK_DISPATCH_FLOAT(x.dtype, "pointwise_loss backward", [&](auto tag) {
    using T = decltype(tag);
    dispatch_kind(kind, [&](auto k) { backward_typed<decltype(k)::value, T>(grad_x, g, in, r); });
  });
}

}  // namespace aakaar::cpu
