// The op behind every fused optimizer step: checks, step-count arithmetic,
// grouping, and then backend(device).optimizer_step (core/backend.h).
#include "ops/optimizer.h"

#include <algorithm>
#include <cmath>
#include <string>
#include <tuple>

#include "autograd/grad_mode.h"
#include "core/error.h"
#include "core/optimizer_math.h"
#include "ops/ops.h"
#include "ops/reduced_float.h"

namespace aakaar::ops {
namespace {

const char* kind_name(OptimizerKind k) {
  switch (k) {
    case OptimizerKind::SGD: return "SGD";
    case OptimizerKind::Adam: return "Adam";
    case OptimizerKind::Adagrad: return "Adagrad";
    case OptimizerKind::RMSprop: return "RMSprop";
    case OptimizerKind::Adamax: return "Adamax";
    case OptimizerKind::NAdam: return "NAdam";
    case OptimizerKind::RAdam: return "RAdam";
    case OptimizerKind::Adadelta: return "Adadelta";
    case OptimizerKind::Rprop: return "Rprop";
    case OptimizerKind::ASGD: return "ASGD";
    case OptimizerKind::Lion: return "Lion";
    case OptimizerKind::LAMB: return "LAMB";
    case OptimizerKind::Adafactor: return "Adafactor";
  }
  return "?";
}

// The state slots (core/optimizer_math.h) a kind reads with these options.
std::vector<bool> needed_slots(const OptimizerStep& s) {
  switch (s.kind) {
    case OptimizerKind::SGD: return {s.momentum != 0};
    case OptimizerKind::Adam: return {true, true, s.amsgrad};
    case OptimizerKind::Adagrad: return {true};
    case OptimizerKind::RMSprop: return {true, s.centered, s.momentum > 0};
    case OptimizerKind::ASGD: case OptimizerKind::Lion: return {true};
    default: return {true, true};  // Adamax, NAdam, RAdam, Adadelta, Rprop, LAMB, Adafactor
  }
}

void check_like(const TensorPtr& t, const TensorPtr& p, size_t i, const std::string& what, const char* name) {
  AK_CHECK(t != nullptr, ValueError, name, ".step(): ", what, " of parameter ", i, " is missing");
  AK_CHECK(t->shape == p->shape, ValueError, name, ".step(): ", what, " of parameter ", i, " has shape ",
           shape_str(t->shape), " but the parameter has shape ", shape_str(p->shape));
  AK_CHECK(t->dtype == p->dtype, TypeError, name, ".step(): ", what, " of parameter ", i, " is ", dtype_name(t->dtype),
           " but the parameter is ", dtype_name(p->dtype));
  AK_CHECK(t->device() == p->device(), RuntimeError, name, ".step(): ", what, " of parameter ", i, " is on ",
           t->device().str(), " but the parameter is on ", p->device().str());
}

// Adafactor's state: row_var (..., R, 1) and col_var (..., 1, C) for a parameter of two
// or more dimensions; for a vector, variance (like the parameter) and nothing in slot 1.
void check_adafactor_state(const TensorList& row, const TensorList& col, const TensorPtr& p, size_t i) {
  if (p->ndim() <= 1) return check_like(row[i], p, i, "the variance", "Adafactor");
  Shape r = p->shape, c = p->shape;
  r[r.size() - 1] = 1;
  c[c.size() - 2] = 1;
  for (const auto& [t, shape, what] : {std::tuple{row[i], r, "row_var"}, std::tuple{col[i], c, "col_var"}}) {
    AK_CHECK(t != nullptr, ValueError, "Adafactor.step(): ", what, " of parameter ", i, " is missing");
    AK_CHECK(t->shape == shape, ValueError, "Adafactor.step(): ", what, " of parameter ", i, " has shape ",
             shape_str(t->shape), " but a parameter of shape ", shape_str(p->shape), " needs ", shape_str(shape));
    AK_CHECK(t->dtype == p->dtype && t->device() == p->device(), TypeError, "Adafactor.step(): ", what,
             " of parameter ", i, " is ", dtype_name(t->dtype), " on ", t->device().str(), " but the parameter is ",
             dtype_name(p->dtype), " on ", p->device().str());
  }
}

double scalar_value(const TensorPtr& t) {
  return t->dtype == DType::Float64 ? *t->data<double>() : static_cast<double>(*t->data<float>());
}
void set_scalar(const TensorPtr& t, double v) {
  if (t->dtype == DType::Float64) *t->data<double>() = v;
  else *t->data<float>() = static_cast<float>(v);
  t->storage->bump_version();
}

// The numbers of step t (already incremented), NAdam's mu_product renewed first
// (core/optimizer_math.h has the arithmetic, shared with the capturable CUDA step).
void fill_step_numbers(OptimizerStep& s, double t, const TensorPtr& mu_product) {
  double product = 1;
  if (s.kind == OptimizerKind::NAdam) {
    set_scalar(mu_product, optim_math::next_mu_product(scalar_value(mu_product), optim_math::nadam_mu(s, t),
                                                       mu_product->dtype == DType::Float64));
    product = scalar_value(mu_product);
  }
  optim_math::fill_step_numbers(s, t, product);
}

TensorPtr number(double v, const TensorPtr& like) { return wrap_scalar(Scalar::from_double(v), like); }

// What the kernel gets for a parameter, its gradient or a state tensor. A float16 or bfloat16
// one is handed over as a float32 copy (ops/reduced_float.h): the kernels compute in float32 and
// float64 only, so a 16-bit step loads in float32, updates in float32 and rounds once to the
// 16-bit dtype when the caller copies the results back (copy_back), as PyTorch's fused CPU kernels
// do. The state stays in the parameter's dtype between steps, as torch.optim keeps it.
// `dense`: the kernel reads whole rows (LAMB, Adafactor), so it gets contiguous tensors.
TensorPtr staged(const TensorPtr& x, bool dense) {
  if (!x) return x;
  const TensorPtr y = as_float32(x);
  return dense && !y->is_contiguous() ? contiguous(y) : y;
}

// Writes what the kernel updated in a staged copy back to the tensor it stands for (rounding to
// its dtype) and marks it changed; a tensor the kernel updated in place is only marked.
void copy_back(const TensorPtr& original, const TensorPtr& updated) {
  if (updated != original) copy_(original, updated);
  original->storage->bump_version();
}

// SGD and Adam as primitives, for a device whose table has no optimizer_step
// (the same order of operations as the fused kernels, one op per line).
void composite_step(const OptimizerStep& s, const TensorList& params, const TensorList& grads,
                    const std::vector<TensorList>& states) {
  for (size_t i = 0; i < params.size(); ++i) {
    const TensorPtr& p = params[i];
    TensorPtr g = s.maximize ? unary(UnaryOp::Neg, grads[i]) : grads[i];
    const bool l2 = s.weight_decay != 0 && !s.decoupled_weight_decay;
    if (s.kind == OptimizerKind::SGD) {
      if (l2) g = binary_alpha(BinaryOp::Add, g, p, Scalar::from_double(s.weight_decay));
      if (s.momentum != 0) {
        const TensorPtr& buf = states[0][i];
        if (s.first_step) {
          copy_(buf, g);
        } else {
          binary_(BinaryOp::Mul, buf, number(s.momentum, buf));
          binary_alpha_(BinaryOp::Add, buf, g, Scalar::from_double(1 - s.dampening));
        }
        g = s.nesterov ? binary_alpha(BinaryOp::Add, g, buf, Scalar::from_double(s.momentum)) : buf;
      }
      binary_alpha_(BinaryOp::Add, p, g, Scalar::from_double(-s.lr));
    } else {  // Adam
      if (s.decoupled_weight_decay && s.weight_decay != 0) binary_(BinaryOp::Mul, p, number(1 - s.lr * s.weight_decay, p));
      if (l2) g = binary_alpha(BinaryOp::Add, g, p, Scalar::from_double(s.weight_decay));
      const TensorPtr &m = states[0][i], &v = states[1][i];
      lerp_(m, g, nullptr, 1 - s.beta1);
      binary_(BinaryOp::Mul, v, number(s.beta2, v));
      binary_(BinaryOp::Add, v, binary(BinaryOp::Mul, binary_scalar(BinaryOp::Mul, g, Scalar::from_double(1 - s.beta2), false), g));
      TensorPtr vv = v;
      if (s.amsgrad) {
        copy_(states[2][i], binary(BinaryOp::Maximum, states[2][i], v));
        vv = states[2][i];
      }
      TensorPtr denom = binary_scalar(BinaryOp::Div, unary(UnaryOp::Sqrt, vv), Scalar::from_double(s.bias_correction2_sqrt), false);
      denom = binary_scalar(BinaryOp::Add, denom, Scalar::from_double(s.eps), false);
      binary_(BinaryOp::Add, p, binary(BinaryOp::Div, binary_scalar(BinaryOp::Mul, m, Scalar::from_double(-s.step_size), false), denom));
    }
  }
}

// The checks both forms of the step make; returns the state slots the kind reads. The
// counters are one-element float tensors: on the CPU, or with `capturable` on each
// parameter's device.
std::vector<bool> check_step(const OptimizerStep& step, const TensorList& params, const TensorList& grads,
                             const std::vector<TensorList>& states, const TensorList& steps,
                             const TensorList& mu_products, const std::vector<TensorList>& scalars, bool capturable) {
  const char* name = kind_name(step.kind);
  const size_t n = params.size();
  AK_CHECK(grads.size() == n, ValueError, name, ".step(): ", n, " parameters but ", grads.size(), " gradients");
  const std::vector<bool> needed = needed_slots(step);
  AK_CHECK(states.size() <= 3, ValueError, name, ".step(): at most 3 state lists, got ", states.size());
  for (size_t k = 0; k < needed.size(); ++k)
    AK_CHECK(!needed[k] || (k < states.size() && states[k].size() == n), ValueError, name,
             ".step(): state list ", k, " must hold one tensor per parameter (", n, ")");
  const bool counted = step.kind != OptimizerKind::SGD && step.kind != OptimizerKind::Lion;
  AK_CHECK(!counted || steps.size() == n, ValueError, name, ".step(): one step counter per parameter expected, got ",
           steps.size(), " for ", n, " parameters");
  const bool nadam = step.kind == OptimizerKind::NAdam;
  AK_CHECK(!nadam || mu_products.size() == n, ValueError, name, ".step(): one mu_product per parameter expected");
  // ASGD's eta and mu: scalars[0][i] and scalars[1][i].
  const bool asgd = step.kind == OptimizerKind::ASGD;
  AK_CHECK(!asgd || (scalars.size() == 2 && scalars[0].size() == n && scalars[1].size() == n), ValueError, name,
           ".step(): one eta and one mu per parameter expected");
  for (const TensorList& list : scalars)
    AK_CHECK(list.size() == n, ValueError, name, ".step(): one scalar state per parameter expected, got ", list.size(),
             " for ", n, " parameters");
  AK_CHECK(mu_products.empty() || mu_products.size() == n, ValueError, name,
           ".step(): one mu_product per parameter expected");
  for (size_t i = 0; i < n; ++i) {
    const TensorPtr& p = params[i];
    AK_CHECK(p != nullptr, ValueError, name, ".step(): parameter ", i, " is None");
    AK_CHECK(is_floating(p->dtype), TypeError, name,
             ".step(): parameters must be floating point (float16, bfloat16, float32 or float64), parameter ", i,
             " is ", dtype_name(p->dtype));
    check_like(grads[i], p, i, "the gradient", name);
    if (step.kind == OptimizerKind::Adafactor) {
      check_adafactor_state(states[0], states[1], p, i);
    } else {
      for (size_t k = 0; k < needed.size(); ++k)
        if (needed[k]) check_like(states[k][i], p, i, str("state tensor ", k), name);
    }
    std::vector<const TensorList*> counters{&steps, &mu_products};
    for (const TensorList& list : scalars) counters.push_back(&list);
    const Device where = capturable ? p->device() : Device{};
    for (const TensorList* list : counters) {
      if (list->empty()) continue;
      const TensorPtr& c = (*list)[i];
      AK_CHECK(c && c->numel() == 1 && (c->dtype == DType::Float32 || c->dtype == DType::Float64), ValueError, name,
               ".step(): the step counters must be one-element float tensors");
      AK_CHECK(c->device() == where, RuntimeError, name, ".step(): the step counter of parameter ", i, " is on ",
               c->device().str(), " but ",
               capturable ? "with capturable=True the counters live on the parameter's device, "
                          : "without capturable=True the counters live on the cpu, ",
               where.str());
    }
  }
  return needed;
}

}  // namespace

// [[book:optimizer_step_op]]
void optimizer_step(OptimizerStep step, const TensorList& params, const TensorList& grads,
                    const std::vector<TensorList>& states, const TensorList& steps, const TensorList& mu_products,
                    const std::vector<TensorList>& scalars) {
  const char* name = kind_name(step.kind);
  const size_t n = params.size();
  const std::vector<bool> needed = check_step(step, params, grads, states, steps, mu_products, scalars, false);
  const bool counted = step.kind != OptimizerKind::SGD && step.kind != OptimizerKind::Lion;
  const bool nadam = step.kind == OptimizerKind::NAdam;
  const bool asgd = step.kind == OptimizerKind::ASGD;
  const bool layerwise = step.kind == OptimizerKind::LAMB || step.kind == OptimizerKind::Adafactor;
  autograd::GradModeGuard no_grad(false);
  // Groups with one dtype, one device and one step count (and for ASGD one eta and mu):
  // one backend call each.
  struct Group {
    OptimizerStep step;
    TensorList params, grads;
    std::vector<TensorList> states;
    DType dtype;
    Device device;
    double t;
    std::vector<size_t> members;
  };
  std::vector<Group> groups;
  for (size_t i = 0; i < n; ++i) {
    const TensorPtr& p = params[i];
    double t = 0;
    if (counted) {
      t = scalar_value(steps[i]) + 1;
      set_scalar(steps[i], t);
      t = scalar_value(steps[i]);
    }
    const double eta = asgd ? scalar_value(scalars[0][i]) : 0, mu = asgd ? scalar_value(scalars[1][i]) : 1;
    Group* g = nullptr;
    // NAdam's mu_product is per parameter, so each of its parameters has its own numbers.
    if (!nadam)
      for (Group& c : groups)
        if (c.dtype == p->dtype && c.device == p->device() && c.t == t && c.step.eta == eta && c.step.mu == mu)
          g = &c;
    if (g == nullptr) {
      groups.push_back({step, {}, {}, std::vector<TensorList>(needed.size()), p->dtype, p->device(), t, {}});
      g = &groups.back();
      g->step.eta = eta;
      g->step.mu = mu;
      fill_step_numbers(g->step, t, nadam ? mu_products[i] : nullptr);
    }
    // 16-bit tensors go as float32 copies, and LAMB's and Adafactor's kernels, which read whole
    // rows and columns, get contiguous ones; what they write is copied back below.
    auto dense = [&](const TensorPtr& x) { return staged(x, layerwise); };
    g->members.push_back(i);
    g->params.push_back(dense(p));
    g->grads.push_back(dense(grads[i]));
    for (size_t k = 0; k < needed.size(); ++k)
      if (needed[k]) g->states[k].push_back(dense(states[k][i]));
  }
  for (const Group& g : groups) {
    const Backend& be = backend(g.device);
    if (be.optimizer_step) {
      be.optimizer_step(g.step, g.params, g.grads, g.states);
    } else {
      AK_CHECK(step.kind == OptimizerKind::SGD || step.kind == OptimizerKind::Adam, RuntimeError, name,
               ".step(): device '", g.device.str(), "' has no fused optimizer kernel and ", name,
               " has no composite form yet; keep its parameters on the cpu");
      composite_step(g.step, g.params, g.grads, g.states);
    }
    for (size_t j = 0; j < g.members.size(); ++j) {
      const size_t i = g.members[j];
      copy_back(params[i], g.params[j]);
      // (Adafactor's slot 1 of a vector is unused: it may be the variance itself, copied back from slot 0.)
      const bool unused_col = step.kind == OptimizerKind::Adafactor && params[i]->ndim() <= 1;
      for (size_t k = 0; k < needed.size(); ++k)
        if (needed[k] && !(k == 1 && unused_col)) copy_back(states[k][i], g.states[k][j]);
      if (asgd) {
        // torch.optim.ASGD renews eta and mu from the new step count, in the counters' dtype.
        const double t = g.t;
        set_scalar(scalars[0][i], optim_math::asgd_eta(step, t));
        set_scalar(scalars[1][i], optim_math::asgd_mu(step, t));
      }
    }
  }
}
// [[/book:optimizer_step_op]]

// [[book:optimizer_step_capturable_op]]
void optimizer_step_capturable(OptimizerStep step, const TensorList& params, const TensorList& grads,
                               const std::vector<TensorList>& states, const TensorList& steps,
                               const TensorList& mu_products, const std::vector<TensorList>& scalars,
                               const TensorPtr& lr) {
  const char* name = kind_name(step.kind);
  AK_CHECK(step.kind != OptimizerKind::LAMB && step.kind != OptimizerKind::Adafactor, ValueError, name,
           ".step(): capturable=True is for the elementwise optimizers, not ", name);
  const std::vector<bool> needed = check_step(step, params, grads, states, steps, mu_products, scalars, true);
  AK_CHECK(!lr || (lr->numel() == 1 && (lr->dtype == DType::Float32 || lr->dtype == DType::Float64)), ValueError,
           name, ".step(): Tensor lr must be 1-element (float32 or float64)");
  autograd::GradModeGuard no_grad(false);
  // Groups with one dtype and one device: one backend call each. The step counts stay on
  // the device, so parameters at different steps share a call (the device works out each
  // parameter's numbers from its own counters).
  // 16-bit tensors go as float32 copies, copied back after the call (staged, copy_back).
  struct Group {
    DType dtype;
    TensorList params, grads;
    std::vector<TensorList> states;
    OptimizerCounters counters;
    std::vector<size_t> members;
  };
  std::vector<Group> groups;
  for (size_t i = 0; i < params.size(); ++i) {
    const TensorPtr& p = params[i];
    Group* g = nullptr;
    for (Group& c : groups)
      if (c.dtype == p->dtype && c.params[0]->device() == p->device()) g = &c;
    if (g == nullptr) {
      groups.push_back({p->dtype, {}, {}, std::vector<TensorList>(needed.size()), {}, {}});
      g = &groups.back();
    }
    g->members.push_back(i);
    g->params.push_back(staged(p, false));
    g->grads.push_back(staged(grads[i], false));
    for (size_t k = 0; k < needed.size(); ++k)
      if (needed[k]) g->states[k].push_back(staged(states[k][i], false));
    if (!steps.empty()) g->counters.steps.push_back(steps[i]);
    if (!mu_products.empty()) g->counters.mu_products.push_back(mu_products[i]);
    if (scalars.size() == 2) {
      g->counters.etas.push_back(scalars[0][i]);
      g->counters.mus.push_back(scalars[1][i]);
    }
  }
  for (Group& g : groups) {
    const Device device = g.params[0]->device();
    const Backend& be = backend(device);
    AK_CHECK(be.optimizer_step_capturable != nullptr, RuntimeError, name, ".step(): capturable=True needs a device "
             "that keeps the step counters itself, and '", device.str(), "' has no capturable optimizer step");
    OptimizerStep st = step;
    if (lr && lr->device().type == DeviceType::CPU) {
      st.lr = scalar_value(lr);  // host memory: reading it waits on no device
    } else if (lr) {
      AK_CHECK(lr->device() == device, RuntimeError, name, ".step(): the lr tensor is on ", lr->device().str(),
               " but the parameters are on ", device.str());
      g.counters.lr = lr;
    }
    be.optimizer_step_capturable(st, g.params, g.grads, g.states, g.counters);
    for (size_t j = 0; j < g.members.size(); ++j) {
      const size_t i = g.members[j];
      copy_back(params[i], g.params[j]);
      for (size_t k = 0; k < needed.size(); ++k)
        if (needed[k]) copy_back(states[k][i], g.states[k][j]);
    }
    for (const TensorList* list : {&g.counters.steps, &g.counters.mu_products, &g.counters.etas, &g.counters.mus})
      for (const TensorPtr& c : *list) c->storage->bump_version();
  }
}
// [[/book:optimizer_step_capturable_op]]

}  // namespace aakaar::ops
