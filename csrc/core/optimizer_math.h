// The update of every fused optimizer, one element at a time.
//
// Shared by the kernels of every device (AK_HD, as py_arith.h): the CPU's
// multi-tensor loops (cpu/fused/optimizer_loops.h) call these on each element
// of each parameter, with the flags known at compile time so that the loop
// vectorises. Each line follows the operation order of torch.optim's
// single-tensor code (its default on the CPU), with the numbers rounded to the
// parameter's dtype first as PyTorch's kernels do (a Python float scalar
// becomes a float in a float32 kernel), so the two libraries agree to a few
// units in the last place per step.
//
// Slots: p the parameter, g its gradient, s0..s2 the state tensors, in the
// order of OptimizerStep's kind (core/backend.h):
//   SGD      s0 momentum_buffer
//   Adam     s0 exp_avg, s1 exp_avg_sq, s2 max_exp_avg_sq (amsgrad)
//   Adagrad  s0 sum
//   RMSprop  s0 square_avg, s1 grad_avg (centered), s2 momentum_buffer (momentum > 0)
//   Adamax   s0 exp_avg, s1 exp_inf
//   NAdam    s0 exp_avg, s1 exp_avg_sq
//   RAdam    s0 exp_avg, s1 exp_avg_sq
//   Adadelta s0 square_avg, s1 acc_delta
//   Rprop    s0 prev, s1 step_size
//   ASGD     s0 ax
//   Lion     s0 exp_avg
//   LAMB     s0 exp_avg, s1 exp_avg_sq (two passes: cpu/fused/optimizer_layerwise.cpp)
//   Adafactor s0 row_var (or variance), s1 col_var (cpu/fused/optimizer_layerwise.cpp)
#pragma once
#include <cmath>

#include "core/backend.h"
#include "core/host_device.h"

namespace aakaar::optim_math {

// OptimizerStep's numbers in the kernel's dtype, each rounded once, as PyTorch
// rounds a Python float scalar (worked out in double first, like Python does).
template <typename T>
struct Coef {
  T sign;       // -1 with maximize, else 1 (g * sign is exactly -g or g)
  T wd, decay;  // decay = 1 - lr * wd when decoupled, else 1 (p * 1 is exact)
  T neg_lr, momentum, one_minus_dampening;
  T lerp_w, lerp_rest;  // lerp weight 1 - beta1 (or 1 - alpha) and 1 - that weight
  bool lerp_from_start;
  T beta2, one_minus_beta2, eps, neg_step_size, bc1, bc2, bc2_sqrt, lr;
  T alpha, one_minus_alpha, rho, one_minus_rho, grad_coef, avg_coef, rect;
  T etaminus, etaplus, step_size_min, step_size_max;  // Rprop
  T asgd_decay, neg_eta, mu;                          // ASGD: 1 - lambd * eta, -eta, mu
  T beta1, one_minus_beta1;                           // Lion and LAMB (the papers' form, not a lerp)

  AK_HD explicit Coef(const OptimizerStep& s) {
    sign = s.maximize ? T(-1) : T(1);
    wd = T(s.weight_decay);
    decay = s.decoupled_weight_decay && s.weight_decay != 0 ? T(1 - s.lr * s.weight_decay) : T(1);
    neg_lr = T(-s.lr);
    lr = T(s.lr);
    momentum = T(s.momentum);
    one_minus_dampening = T(1 - s.dampening);
    const double w = s.kind == OptimizerKind::RMSprop ? 1 - s.alpha : 1 - s.beta1;
    lerp_w = T(w);
    lerp_rest = T(1) - lerp_w;  // PyTorch's lerp computes 1 - weight in the kernel's dtype
    lerp_from_start = std::abs(w) < 0.5;
    beta2 = T(s.beta2);
    one_minus_beta2 = T(1 - s.beta2);
    eps = T(s.eps);
    neg_step_size = T(-s.step_size);
    bc1 = T(s.bias_correction1);
    bc2 = T(s.bias_correction2);
    bc2_sqrt = T(s.bias_correction2_sqrt);
    alpha = T(s.alpha);
    one_minus_alpha = T(1 - s.alpha);
    rho = T(s.rho);
    one_minus_rho = T(1 - s.rho);
    grad_coef = T(s.grad_coef);
    avg_coef = T(s.avg_coef);
    rect = T(s.rect);
    etaminus = T(s.etaminus);
    etaplus = T(s.etaplus);
    step_size_min = T(s.step_size_min);
    step_size_max = T(s.step_size_max);
    asgd_decay = T(1 - s.lambd * s.eta);
    neg_eta = T(-s.eta);
    mu = T(s.mu);
    beta1 = T(s.beta1);
    one_minus_beta1 = T(1 - s.beta1);
  }
};

// NAdam's momentum coefficient of step t.
AK_HD double nadam_mu(const OptimizerStep& s, double t) {
  return s.beta1 * (1.0 - 0.5 * std::pow(0.96, t * s.momentum_decay));
}
// mu_product * mu as torch's `mu_product *= mu` rounds it: in the counter's dtype (float32
// by default; f64 for a float64 counter).
AK_HD double next_mu_product(double mu_product, double mu, bool f64) {
  return f64 ? mu_product * mu : static_cast<double>(static_cast<float>(mu_product) * static_cast<float>(mu));
}
// ASGD's eta and mu after step t, which torch.optim renews from the new step count.
AK_HD double asgd_eta(const OptimizerStep& s, double t) { return s.lr / std::pow(1 + s.lambd * s.lr * t, s.alpha); }
AK_HD double asgd_mu(const OptimizerStep& s, double t) {
  const double d = t - s.t0;
  return 1 / (d > 1.0 ? d : 1.0);  // 1 / max(1, t - t0)
}

// [[book:step_numbers]]
// The numbers of step t (the counter already incremented) that torch.optim works out in
// Python, in double: the op (ops/optimizer.cpp) calls this on the host with its CPU
// counters, a capturable CUDA step (cuda/optimizer_ops.cu) on the device with the counters
// it keeps there, so both get the same numbers. mu_product: NAdam's running product of
// momentum coefficients, already multiplied by this step's mu (next_mu_product).
AK_HD void fill_step_numbers(OptimizerStep& s, double t, double mu_product) {
  switch (s.kind) {
    case OptimizerKind::SGD: case OptimizerKind::RMSprop: case OptimizerKind::Adadelta:
    case OptimizerKind::Rprop: case OptimizerKind::ASGD: case OptimizerKind::Lion:
      return;
    case OptimizerKind::LAMB:
      s.bias_correction1 = 1 - std::pow(s.beta1, t);
      s.bias_correction2 = 1 - std::pow(s.beta2, t);
      return;
    case OptimizerKind::Adafactor: {
      s.one_minus_beta2_t = std::pow(t, s.beta2_decay);
      const double r = 1 / std::pow(t, 0.5);
      s.rho_t = r < s.lr ? r : s.lr;  // std::min(lr, r), lr on a tie
      return;
    }
    case OptimizerKind::Adam:
      s.bias_correction1 = 1 - std::pow(s.beta1, t);
      s.bias_correction2 = 1 - std::pow(s.beta2, t);
      s.step_size = s.lr / s.bias_correction1;
      s.bias_correction2_sqrt = std::pow(s.bias_correction2, 0.5);
      return;
    case OptimizerKind::Adagrad:
      s.step_size = s.lr / (1 + (t - 1) * s.lr_decay);
      return;
    case OptimizerKind::Adamax:
      s.step_size = s.lr / (1 - std::pow(s.beta1, t));
      return;
    case OptimizerKind::NAdam: {
      s.bias_correction2 = 1 - std::pow(s.beta2, t);
      const double mu = nadam_mu(s, t), mu_next = nadam_mu(s, t + 1);
      s.grad_coef = -s.lr * (1.0 - mu) / (1.0 - mu_product);
      const double product_next = mu_product * mu_next;
      s.avg_coef = (-s.lr * mu_next) / (1.0 - product_next);
      return;
    }
    case OptimizerKind::RAdam: {
      s.bias_correction1 = 1 - std::pow(s.beta1, t);
      s.bias_correction2 = 1 - std::pow(s.beta2, t);
      const double rho_inf = 2 / (1 - s.beta2) - 1;
      const double rho_t = rho_inf - 2 * t * std::pow(s.beta2, t) / s.bias_correction2;
      s.rect = rho_t > 5.0 ? std::pow((rho_t - 4) * (rho_t - 2) * rho_inf / ((rho_inf - 4) * (rho_inf - 2) * rho_t), 0.5)
                           : 0.0;
      s.bias_correction2_sqrt = std::pow(s.bias_correction2, 0.5);
      return;
    }
  }
}
// [[/book:step_numbers]]

// torch.lerp(a, b, w): from the end nearer to w, exact at w = 0 and w = 1. PyTorch's
// vectorised kernel rounds the multiply-add once (fmadd); where the loops are built with
// FMA (cpu/fused/optimizer_avx2.cpp, _avx512.cpp, which contract nothing else) so do we;
// so do the CUDA kernels (cuda/optimizer_ops.cu: a GPU has FMA), and, to match them bit
// for bit, every loop of an emulator build (std::fma is exact on any CPU).
template <typename T>
AK_HD T lerp(const Coef<T>& c, T a, T b) {
#if defined(__FMA__) || defined(__CUDACC__) || defined(AAKAAR_CUDA_EMULATOR)
  return c.lerp_from_start ? std::fma(c.lerp_w, b - a, a) : std::fma(-c.lerp_rest, b - a, b);
#else
  return c.lerp_from_start ? a + c.lerp_w * (b - a) : b - (b - a) * c.lerp_rest;
#endif
}
// torch.maximum: NaN if either is NaN.
template <typename T>
AK_HD T maximum(T a, T b) {
  return (a < b || b != b) ? b : a;
}

// The gradient as every optimizer first sees it: negated with maximize, plus
// weight_decay * p (L2) when has_wd; with decoupled decay p shrinks instead.
template <typename T>
AK_HD T decayed_grad(const Coef<T>& c, bool has_wd, T& p, T g) {
  g = g * c.sign;
  if (has_wd) g = g + c.wd * p;
  return g;
}

// [[book:sgd_element]]
template <typename T>
AK_HD void sgd(const Coef<T>& c, bool has_wd, bool has_momentum, bool nesterov, bool first, T& p, T g, T& buf) {
  g = decayed_grad(c, has_wd, p, g);
  if (has_momentum) {
    const T b = first ? g : buf * c.momentum + c.one_minus_dampening * g;
    buf = b;
    g = nesterov ? g + c.momentum * b : b;
  }
  p = p + c.neg_lr * g;
}
// [[/book:sgd_element]]

// [[book:adam_element]]
// Adam, and AdamW when c.decay != 1 (p shrinks before the step instead of g growing).
template <typename T>
AK_HD void adam(const Coef<T>& c, bool has_wd, bool amsgrad, T& p, T g, T& m, T& v, T& v_max) {
  p = p * c.decay;
  g = decayed_grad(c, has_wd, p, g);
  m = lerp(c, m, g);
  v = v * c.beta2 + (c.one_minus_beta2 * g) * g;
  T vv = v;
  if (amsgrad) {
    v_max = maximum(v_max, v);
    vv = v_max;
  }
  const T denom = std::sqrt(vv) / c.bc2_sqrt + c.eps;
  p = p + (c.neg_step_size * m) / denom;
}
// [[/book:adam_element]]

// neg_step_size = -lr / (1 + (t - 1) * lr_decay).
template <typename T>
AK_HD void adagrad(const Coef<T>& c, bool has_wd, T& p, T g, T& sum) {
  g = decayed_grad(c, has_wd, p, g);
  sum = sum + g * g;
  const T std_ = std::sqrt(sum) + c.eps;
  p = p + (c.neg_step_size * g) / std_;
}

template <typename T>
AK_HD void rmsprop(const Coef<T>& c, bool has_wd, bool centered, bool has_momentum, T& p, T g, T& sq, T& g_avg,
                   T& buf) {
  g = decayed_grad(c, has_wd, p, g);
  sq = sq * c.alpha + (c.one_minus_alpha * g) * g;
  T avg;
  if (centered) {
    g_avg = lerp(c, g_avg, g);
    avg = std::sqrt(sq + (T(-1) * g_avg) * g_avg);
  } else {
    avg = std::sqrt(sq);
  }
  avg = avg + c.eps;
  if (has_momentum) {
    buf = buf * c.momentum + g / avg;
    p = p + c.neg_lr * buf;
  } else {
    p = p + (c.neg_lr * g) / avg;
  }
}

// neg_step_size = -lr / (1 - beta1^t).
template <typename T>
AK_HD void adamax(const Coef<T>& c, bool has_wd, T& p, T g, T& m, T& u) {
  g = decayed_grad(c, has_wd, p, g);
  m = lerp(c, m, g);
  u = maximum(u * c.beta2, std::abs(g) + c.eps);
  p = p + (c.neg_step_size * m) / u;
}

// grad_coef = -lr (1 - mu_t) / (1 - prod mu), avg_coef = -lr mu_{t+1} / (1 - prod mu * mu_{t+1}).
template <typename T>
AK_HD void nadam(const Coef<T>& c, bool has_wd, T& p, T g, T& m, T& v) {
  p = p * c.decay;
  g = decayed_grad(c, has_wd, p, g);
  m = lerp(c, m, g);
  v = v * c.beta2 + (c.one_minus_beta2 * g) * g;
  const T denom = std::sqrt(v / c.bc2) + c.eps;
  p = p + (c.grad_coef * g) / denom;
  p = p + (c.avg_coef * m) / denom;
}

// rectified: rho_t > 5 this step (then c.rect is the rectification term).
template <typename T>
AK_HD void radam(const Coef<T>& c, bool has_wd, bool rectified, T& p, T g, T& m, T& v) {
  p = p * c.decay;
  g = decayed_grad(c, has_wd, p, g);
  m = lerp(c, m, g);
  v = v * c.beta2 + (c.one_minus_beta2 * g) * g;
  const T m_hat = m / c.bc1;
  T update = m_hat * c.lr;
  if (rectified) update = (update * (c.bc2_sqrt / (std::sqrt(v) + c.eps))) * c.rect;
  p = p - update;
}

template <typename T>
AK_HD void adadelta(const Coef<T>& c, bool has_wd, T& p, T g, T& sq, T& acc) {
  g = decayed_grad(c, has_wd, p, g);
  sq = sq * c.rho + (c.one_minus_rho * g) * g;
  const T std_ = std::sqrt(sq + c.eps);
  T delta = std::sqrt(acc + c.eps);
  delta = delta / std_;
  delta = delta * g;
  acc = acc * c.rho + (c.one_minus_rho * delta) * delta;
  p = p + c.neg_lr * delta;
}

// torch.sign on the CPU: -1, 0 or 1, and 0 for NaN.
template <typename T>
AK_HD T sign(T x) {
  return x > T(0) ? T(1) : (x < T(0) ? T(-1) : T(0));
}
// torch.clamp(x, lo, hi): NaN stays NaN.
template <typename T>
AK_HD T clamp(T x, T lo, T hi) {
  return x != x ? x : (x < lo ? lo : (x > hi ? hi : x));
}

// [[book:rprop_element]]
// Rprop: each element's step size grows by etaplus while its gradient keeps its sign and
// shrinks by etaminus when the sign flips (and then that element skips this step).
template <typename T>
AK_HD void rprop(const Coef<T>& c, T& p, T g, T& prev, T& step_size) {
  g = g * c.sign;
  const T prod = g * prev;
  const T factor = prod > T(0) ? c.etaplus : (prod < T(0) ? c.etaminus : T(1));  // NaN: sign 0, factor 1
  step_size = clamp(step_size * factor, c.step_size_min, c.step_size_max);
  if (factor == c.etaminus) g = T(0);
  p = p + (T(-1) * sign(g)) * step_size;
  prev = g;
}
// [[/book:rprop_element]]

// ASGD: an SGD step with eta and a decay of p, then ax, the running average of p
// (mu = 1 before t0: ax is p itself).
template <typename T>
AK_HD void asgd(const Coef<T>& c, bool has_wd, bool average, T& p, T g, T& ax) {
  g = decayed_grad(c, has_wd, p, g);
  p = p * c.asgd_decay;
  p = p + c.neg_eta * g;
  ax = average ? ax + (p - ax) * c.mu : p;
}

// [[book:lion_element]]
// Lion (Chen et al. 2023): the sign of an interpolation of momentum and gradient, plus
// decoupled weight decay; the momentum then moves with the other beta.
template <typename T>
AK_HD void lion(const Coef<T>& c, T& p, T g, T& m) {
  g = g * c.sign;
  const T interp = c.beta1 * m + c.one_minus_beta1 * g;
  const T update = sign(interp) + c.wd * p;
  p = p - c.lr * update;
  m = c.beta2 * m + c.one_minus_beta2 * g;
}
// [[/book:lion_element]]

// LAMB's Adam-like direction of one element, weight decay added (You et al. 2020, Algorithm 2);
// the first pass updates the moments (update_moments), the second recomputes it from them.
template <typename T>
AK_HD T lamb_direction(const Coef<T>& c, bool update_moments, T p, T g, T& m, T& v) {
  if (update_moments) {
    g = g * c.sign;
    m = c.beta1 * m + c.one_minus_beta1 * g;
    v = c.beta2 * v + (c.one_minus_beta2 * g) * g;
  }
  const T r = (m / c.bc1) / (std::sqrt(v / c.bc2) + c.eps);
  return r + c.wd * p;
}

}  // namespace aakaar::optim_math
