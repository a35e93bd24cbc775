// The CPU's fused steps of the optimizers that look at a whole parameter before
// updating it: LAMB (its trust ratio needs ||w|| and ||update||) and Adafactor (its
// second moment is factored into row and column means, and its step is scaled by
// the parameter's and the update's root mean square). Part of the backend entry
// `optimizer_step` (optimizer.cpp hands these kinds here).
//
// Each parameter takes two passes: the first updates the state and sums the
// squares the norms need (in double), the second recomputes the update from the
// new state with the same arithmetic and applies it. The parameters are shared
// among the threads (a parameter is one thread's work); a small model stays on
// one thread. Every tensor is contiguous here: the op (ops/optimizer.cpp) hands
// contiguous copies of anything strided and copies the results back.
#include <algorithm>
#include <cmath>

#include "core/error.h"
#include "core/optimizer_math.h"
#include "cpu/backend_cpu.h"
#include "cpu/parallel.h"

namespace aakaar::cpu {
namespace {

namespace om = optim_math;

// [[book:lamb_step]]
template <typename T>
void lamb_one(const OptimizerStep& st, const om::Coef<T>& c, const Tensor& pt, const Tensor& gt, const Tensor& mt,
              const Tensor& vt) {
  const int64_t n = pt.numel();
  T* p = pt.data<T>();
  const T* g = gt.data<T>();
  T *m = mt.data<T>(), *v = vt.data<T>();
  double w_sq = 0, u_sq = 0;
  for (int64_t i = 0; i < n; ++i) {
    const T u = om::lamb_direction(c, true, p[i], g[i], m[i], v[i]);
    w_sq += double(p[i]) * double(p[i]);
    u_sq += double(u) * double(u);
  }
  // The trust ratio ||w|| / ||update||, and 1 when either norm is 0 (a fresh zero
  // parameter, or a zero update) as the reference implementations of the paper do.
  const double w_norm = std::sqrt(w_sq), u_norm = std::sqrt(u_sq);
  const double trust = (w_norm > 0 && u_norm > 0) ? w_norm / u_norm : 1.0;
  const T neg_step = T(-st.lr * trust);
  for (int64_t i = 0; i < n; ++i) p[i] = p[i] + neg_step * om::lamb_direction(c, false, p[i], g[i], m[i], v[i]);
}
// [[/book:lamb_step]]

// torch.lerp_(a, b, w) with a scalar weight, in T.
template <typename T>
T lerp(T a, T b, T w) {
  return w < T(0.5) ? a + w * (b - a) : b - (b - a) * (T(1) - w);
}

template <typename T>
T norm_of(const T* x, int64_t n) {
  double s = 0;
  for (int64_t i = 0; i < n; ++i) s += double(x[i]) * double(x[i]);
  return T(std::sqrt(s));
}

// [[book:adafactor_step]]
// torch.optim.Adafactor's step for one parameter: a parameter of two or more
// dimensions keeps the running means of g^2 over its rows (row_var, ..., R, 1) and
// over its columns (col_var, ..., 1, C) and estimates g^2 as their outer product
// over the mean of row_var; a vector (or scalar) keeps the full variance.
template <typename T>
void adafactor_one(const OptimizerStep& st, const Tensor& pt, const Tensor& gt, const Tensor& rt, const Tensor* ct) {
  const int64_t n = pt.numel();
  T* p = pt.data<T>();
  const T* g = gt.data<T>();
  const T sign = st.maximize ? T(-1) : T(1);
  const T w = T(st.one_minus_beta2_t);
  const T eps1_sq = T(st.eps * st.eps);
  // alpha = max(eps2, RMS(p)) * rho_t, from p before its weight decay.
  const double rms = double(norm_of(p, n)) / std::sqrt(double(n));
  const double alpha = std::max(st.eps2, rms) * st.rho_t;
  if (st.weight_decay != 0) {
    const T decay = T(1 - st.lr * st.weight_decay);
    for (int64_t i = 0; i < n; ++i) p[i] = p[i] * decay;
  }
  T* r = rt.data<T>();
  const bool factored = pt.ndim() > 1;
  const int64_t R = factored ? pt.shape[pt.ndim() - 2] : 1, C = factored ? pt.shape[pt.ndim() - 1] : n;
  const int64_t batches = factored ? n / std::max<int64_t>(R * C, 1) : 1;
  T* col = factored ? ct->data<T>() : nullptr;
  std::vector<T> row_mean_of_batch(static_cast<size_t>(batches));
  if (factored) {
    std::vector<double> col_sq(static_cast<size_t>(C));
    for (int64_t b = 0; b < batches; ++b) {
      const T* gb = g + b * R * C;
      T* rb = r + b * R;
      T* cb = col + b * C;
      std::fill(col_sq.begin(), col_sq.end(), 0.0);
      double row_var_sum = 0;
      for (int64_t i = 0; i < R; ++i) {
        double s = 0;
        for (int64_t j = 0; j < C; ++j) {
          const double x = double(gb[i * C + j] * sign);
          s += x * x;
          col_sq[j] += x * x;
        }
        const T norm = T(std::sqrt(s));
        rb[i] = lerp(rb[i], (norm * norm) / T(C), w);
        row_var_sum += double(rb[i]);
      }
      for (int64_t j = 0; j < C; ++j) {
        const T norm = T(std::sqrt(col_sq[j]));
        cb[j] = lerp(cb[j], (norm * norm) / T(R), w);
      }
      // row_var.mean(dim=-2).clamp(min=eps1)
      row_mean_of_batch[b] = std::max(T(row_var_sum / double(R)), T(st.eps));
    }
  } else {
    for (int64_t i = 0; i < n; ++i) {
      const T gi = g[i] * sign;
      r[i] = lerp(r[i], gi * gi, w);
    }
  }
  // update = rsqrt(max(var_estimate, eps1^2)) * g; first its norm, then the step.
  auto update = [&](int64_t i) -> T {
    T var;
    if (factored) {
      const int64_t b = i / (R * C), row = (i / C) % R, cj = i % C;
      var = (r[b * R + row] * col[b * C + cj]) / row_mean_of_batch[b];
    } else {
      var = r[i];
    }
    var = std::max(var, eps1_sq);
    return (T(1) / std::sqrt(var)) * (g[i] * sign);
  };
  double u_sq = 0;
  for (int64_t i = 0; i < n; ++i) {
    const double u = double(update(i));
    u_sq += u * u;
  }
  const double u_norm = double(T(std::sqrt(u_sq)));
  const double denom = std::max(1.0, u_norm / (std::sqrt(double(n)) * st.d));
  const T neg_step = T(-alpha / denom);
  for (int64_t i = 0; i < n; ++i) p[i] = p[i] + neg_step * update(i);
}
// [[/book:adafactor_step]]

template <typename T>
void layerwise_typed(const OptimizerStep& st, const TensorList& params, const TensorList& grads,
                     const std::vector<TensorList>& states) {
  const om::Coef<T> c(st);
  int64_t total = 0;
  for (const TensorPtr& p : params) total += p->numel();
  const int64_t count = static_cast<int64_t>(params.size());
  // One thread for a small model (as optimizer.cpp's threshold), else a parameter per chunk.
  const int64_t grain = total < (int64_t(1) << 16) ? count : 1;
  parallel_for(0, count, std::max<int64_t>(grain, 1), [&](int64_t begin, int64_t end) {
    for (int64_t i = begin; i < end; ++i) {
      const Tensor& p = *params[i];
      if (p.numel() == 0) continue;
      if (st.kind == OptimizerKind::LAMB) {
        lamb_one<T>(st, c, p, *grads[i], *states[0][i], *states[1][i]);
      } else {
        const Tensor* col = p.ndim() > 1 ? states[1][i].get() : nullptr;
        adafactor_one<T>(st, p, *grads[i], *states[0][i], col);
      }
    }
  });
}

}  // namespace

void optimizer_step_layerwise(const OptimizerStep& st, const TensorList& params, const TensorList& grads,
                              const std::vector<TensorList>& states) {
  if (params.empty()) return;
  if (params[0]->dtype == DType::Float32) layerwise_typed<float>(st, params, grads, states);
  else layerwise_typed<double>(st, params, grads, states);
}

}  // namespace aakaar::cpu
