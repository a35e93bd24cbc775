// The CPU's fused steps of the optimizers that look at a whole parameter before
// updating it: LAMB (its trust ratio needs ||w|| and ||update||) and Adafactor (its
// second moment is factored into row and column means, and its step is scaled by
// the parameter's and the update's root mean square). Part of the backend entry
// `optimizer_step` (optimizer.cpp hands these kinds here).
//
// Each parameter takes two passes: the first updates the state and writes the update
// into a buffer, whose sums of squares (in double) give the norms; the second applies
// the scaled update. The parameters are shared among the threads (a parameter is
// one thread's work); a small model stays on one thread. Every tensor is contiguous
// here: the op (ops/optimizer.cpp) hands contiguous copies of anything strided and
// copies the results back.
//
// Compiled once per instruction set (optimizer_layerwise.cpp, _avx2.cpp, _avx512.cpp),
// as optimizer_loops.h is; optimizer_layerwise.cpp chooses.
#ifndef AK_KERNEL_NS
#error "define AK_KERNEL_NS before including optimizer_layerwise.h"
#endif

#include <algorithm>
#include <cmath>
#include <vector>

#include "core/backend.h"
#include "core/optimizer_math.h"
#include "cpu/parallel.h"

namespace aakaar::cpu::AK_KERNEL_NS {
namespace {

namespace om = optim_math;

// The sum of squares of x in double: eight running sums, so that the additions overlap
// (a strict left-to-right sum would wait for each add; the order is irrelevant in double).
template <typename T>
double sum_squares(const T* x, int64_t n) {
  double acc[8] = {0, 0, 0, 0, 0, 0, 0, 0};
  int64_t i = 0;
  for (; i + 8 <= n; i += 8)
    for (int k = 0; k < 8; ++k) acc[k] += double(x[i + k]) * double(x[i + k]);
  for (; i < n; ++i) acc[0] += double(x[i]) * double(x[i]);
  return ((acc[0] + acc[1]) + (acc[2] + acc[3])) + ((acc[4] + acc[5]) + (acc[6] + acc[7]));
}

// [[book:lamb_step]]
// LAMB for one parameter: the direction u of every element (moments updated) into a
// buffer, the two norms, then p -= lr * trust * u.
template <typename T>
void lamb_one(const OptimizerStep& st, const om::Coef<T> c, const Tensor& pt, const Tensor& gt, const Tensor& mt,
              const Tensor& vt, std::vector<T>& buffer) {
  // c is a copy: a local the stores to m and v cannot alias, so the loop vectorises.
  const int64_t n = pt.numel();
  // Distinct tensors (the op checks them): __restrict lets the loops vectorise.
  T* __restrict p = pt.data<T>();
  const T* __restrict g = gt.data<T>();
  T* __restrict m = mt.data<T>();
  T* __restrict v = vt.data<T>();
  buffer.resize(static_cast<size_t>(n));
  T* __restrict u = buffer.data();
  for (int64_t i = 0; i < n; ++i) u[i] = om::lamb_direction(c, true, p[i], g[i], m[i], v[i]);
  // The trust ratio ||w|| / ||update||, and 1 when either norm is 0 (a fresh zero
  // parameter, or a zero update) as the reference implementations of the paper do.
  const double w_norm = std::sqrt(sum_squares(p, n)), u_norm = std::sqrt(sum_squares(u, n));
  const double trust = (w_norm > 0 && u_norm > 0) ? w_norm / u_norm : 1.0;
  const T neg_step = T(-st.lr * trust);
  for (int64_t i = 0; i < n; ++i) p[i] = p[i] + neg_step * u[i];
}
// [[/book:lamb_step]]

// torch.lerp_(a, b, w) with a scalar weight, in T.
template <typename T>
T lerp(T a, T b, T w) {
  return w < T(0.5) ? a + w * (b - a) : b - (b - a) * (T(1) - w);
}

// [[book:adafactor_step]]
// torch.optim.Adafactor's step for one parameter: a parameter of two or more
// dimensions keeps the running means of g^2 over its rows (row_var, ..., R, 1) and
// over its columns (col_var, ..., 1, C) and estimates g^2 as their outer product
// over the mean of row_var; a vector (or scalar) keeps the full variance.
template <typename T>
void adafactor_one(const OptimizerStep& st, const Tensor& pt, const Tensor& gt, const Tensor& rt, const Tensor* ct,
                   std::vector<T>& buffer) {
  const int64_t n = pt.numel();
  T* __restrict p = pt.data<T>();
  const T* __restrict g = gt.data<T>();
  const T sign = st.maximize ? T(-1) : T(1);
  const T w = T(st.one_minus_beta2_t);
  const T eps1_sq = T(st.eps * st.eps);
  // alpha = max(eps2, RMS(p)) * rho_t, from p before its weight decay (torch rounds the norm to T).
  const double rms = double(T(std::sqrt(sum_squares(p, n)))) / std::sqrt(double(n));
  const double alpha = std::max(st.eps2, rms) * st.rho_t;
  if (st.weight_decay != 0) {
    const T decay = T(1 - st.lr * st.weight_decay);
    for (int64_t i = 0; i < n; ++i) p[i] = p[i] * decay;
  }
  buffer.resize(static_cast<size_t>(n));
  T* __restrict u = buffer.data();  // the update, rsqrt(max(var_estimate, eps1^2)) * g
  T* __restrict r = rt.data<T>();
  if (pt.ndim() > 1) {
    const int64_t R = pt.shape[pt.ndim() - 2], C = pt.shape[pt.ndim() - 1];
    T* col = ct->data<T>();
    std::vector<double> col_sq(static_cast<size_t>(C));
    for (int64_t b = 0; b < n / (R * C); ++b) {
      const T* gb = g + b * R * C;
      T *rb = r + b * R, *cb = col + b * C, *ub = u + b * R * C;
      std::fill(col_sq.begin(), col_sq.end(), 0.0);
      double row_var_sum = 0;
      for (int64_t i = 0; i < R; ++i) {
        const T* gi = gb + i * C;
        for (int64_t j = 0; j < C; ++j) col_sq[j] += double(gi[j]) * double(gi[j]);
        // torch: norm(g, dim=-1)^2 / C, each rounded to T
        const T norm = T(std::sqrt(sum_squares(gi, C)));
        rb[i] = lerp(rb[i], (norm * norm) / T(C), w);
        row_var_sum += double(rb[i]);
      }
      for (int64_t j = 0; j < C; ++j) {
        const T norm = T(std::sqrt(col_sq[j]));
        cb[j] = lerp(cb[j], (norm * norm) / T(R), w);
      }
      const T row_mean = std::max(T(row_var_sum / double(R)), T(st.eps));  // row_var.mean(-2).clamp(min=eps1)
      for (int64_t i = 0; i < R; ++i) {
        const T ri = rb[i];
        const T* __restrict gi = gb + i * C;
        T* __restrict ui = ub + i * C;
        for (int64_t j = 0; j < C; ++j) {
          const T var = std::max((ri * cb[j]) / row_mean, eps1_sq);
          ui[j] = (T(1) / std::sqrt(var)) * (gi[j] * sign);
        }
      }
    }
  } else {
    for (int64_t i = 0; i < n; ++i) {
      const T gi = g[i] * sign;
      r[i] = lerp(r[i], gi * gi, w);
      u[i] = (T(1) / std::sqrt(std::max(r[i], eps1_sq))) * gi;
    }
  }
  // The step is clipped so that the update's RMS is at most d.
  const double u_norm = double(T(std::sqrt(sum_squares(u, n))));
  const double denom = std::max(1.0, u_norm / (std::sqrt(double(n)) * st.d));
  const T neg_step = T(-alpha / denom);
  for (int64_t i = 0; i < n; ++i) p[i] = p[i] + neg_step * u[i];
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
    std::vector<T> buffer;  // this thread's update of one parameter
    for (int64_t i = begin; i < end; ++i) {
      const Tensor& p = *params[i];
      if (p.numel() == 0) continue;
      if (st.kind == OptimizerKind::LAMB) {
        lamb_one<T>(st, c, p, *grads[i], *states[0][i], *states[1][i], buffer);
      } else {
        const Tensor* col = p.ndim() > 1 ? states[1][i].get() : nullptr;
        adafactor_one<T>(st, p, *grads[i], *states[0][i], col, buffer);
      }
    }
  });
}

}  // namespace

void optimizer_layerwise(const OptimizerStep& st, const TensorList& params, const TensorList& grads,
                         const std::vector<TensorList>& states) {
  if (params[0]->dtype == DType::Float32) layerwise_typed<float>(st, params, grads, states);
  else layerwise_typed<double>(st, params, grads, states);
}

}  // namespace aakaar::cpu::AK_KERNEL_NS
