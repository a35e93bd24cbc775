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

  explicit Coef(const OptimizerStep& s) {
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
  }
};

// torch.lerp(a, b, w): from the end nearer to w, exact at w = 0 and w = 1.
template <typename T>
AK_HD T lerp(const Coef<T>& c, T a, T b) {
  return c.lerp_from_start ? a + c.lerp_w * (b - a) : b - (b - a) * c.lerp_rest;
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

}  // namespace aakaar::optim_math
