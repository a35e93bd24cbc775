// Backward formulas. Each record_* is called by the matching op in csrc/ops.
// Formulas use ordinary ops, so under create_graph they are recorded too and
// the gradient can be differentiated again.
#include "autograd/derivatives.h"

#include <cmath>

#include "core/error.h"
#include "ops/ops.h"

namespace aakaar::autograd {
namespace {

using ops::binary;
TensorPtr add(const TensorPtr& a, const TensorPtr& b) { return binary(BinaryOp::Add, a, b); }
TensorPtr sub(const TensorPtr& a, const TensorPtr& b) { return binary(BinaryOp::Sub, a, b); }
TensorPtr mul(const TensorPtr& a, const TensorPtr& b) { return binary(BinaryOp::Mul, a, b); }
TensorPtr div(const TensorPtr& a, const TensorPtr& b) { return binary(BinaryOp::Div, a, b); }
TensorPtr muls(const TensorPtr& a, double s) { return ops::binary_scalar(BinaryOp::Mul, a, Scalar::from_double(s), false); }
TensorPtr adds(const TensorPtr& a, double s) { return ops::binary_scalar(BinaryOp::Add, a, Scalar::from_double(s), false); }
// The node that made `out` holds no tensors (its formula captures only shapes
// or nothing): a second backward through it needs no retain_graph, as in PyTorch.
void mark_stateless(const TensorPtr& out) {
  if (out->autograd && out->autograd->grad_fn) out->autograd->grad_fn->stateless = true;
}
TensorPtr neg(const TensorPtr& a) { return ops::unary(UnaryOp::Neg, a); }
TensorPtr as_float(const TensorPtr& mask, DType dt) { return ops::to_dtype(mask, dt); }
TensorPtr zeros_like(const TensorPtr& t) { return ops::full(t->shape, Scalar::from_int(0), t->dtype, t->device()); }
TensorPtr cmp(BinaryOp op, const TensorPtr& a, double s) { return ops::binary_scalar(op, a, Scalar::from_double(s), false); }

}  // namespace

// [[book:sum_to]]
TensorPtr sum_to(const TensorPtr& g, const Shape& shape) {
  if (g->shape == shape) return g;
  const int64_t lead = g->ndim() - static_cast<int64_t>(shape.size());
  ops::DimList dims;
  for (int64_t d = 0; d < g->ndim(); ++d)
    if (d < lead || (shape[d - lead] == 1 && g->shape[d] != 1)) dims.push_back(d);
  TensorPtr s = dims.empty() ? g : ops::sum(g, dims, true, std::nullopt);
  return ops::reshape(s, shape);
}
// [[/book:sum_to]]

// ---- elementwise ----------------------------------------------------------------

void record_binary(BinaryOp op, const TensorPtr& out, const TensorPtr& a, const TensorPtr& b) {
  switch (op) {
    // [[book:binary_add_mul]]
    case BinaryOp::Add:
      record("AddBackward", {a, b}, out, {}, [](const TensorList& g, const TensorList&, const Needs&) {
        return TensorList{g[0], g[0]};
      });
      return mark_stateless(out);
    case BinaryOp::Sub:
      record("SubBackward", {a, b}, out, {}, [](const TensorList& g, const TensorList&, const Needs& n) {
        return TensorList{g[0], n[1] ? neg(g[0]) : nullptr};
      });
      return mark_stateless(out);
    // Each factor is saved only if the other one's gradient needs it (as torch
    // does): y * 2 keeps no reference to y, so y may be changed in place later.
    case BinaryOp::Mul:
      return record("MulBackward", {a, b}, out, {requires_grad(b) ? a : nullptr, requires_grad(a) ? b : nullptr},
                    [](const TensorList& g, const TensorList& s, const Needs& n) {
        return TensorList{n[0] ? mul(g[0], s[1]) : nullptr, n[1] ? mul(g[0], s[0]) : nullptr};
      });
    // [[/book:binary_add_mul]]
    case BinaryOp::Div:
      return record("DivBackward", {a, b}, out, {requires_grad(b) ? a : nullptr, b},
                    [](const TensorList& g, const TensorList& s, const Needs& n) {
        TensorPtr ga = div(g[0], s[1]);
        return TensorList{n[0] ? ga : nullptr, n[1] ? neg(div(mul(ga, s[0]), s[1])) : nullptr};
      });
    case BinaryOp::Pow:
      return record("PowBackward", {a, b}, out, {a, b, out}, [](const TensorList& g, const TensorList& s, const Needs& n) {
        TensorList r(2);
        const TensorPtr zero = ops::full({}, Scalar::from_int(0), g[0]->dtype, g[0]->device());
        // d/da a^b = b a^(b-1), and 0 wherever b == 0 (a^0 is constant; at a == 0 the formula
        // would give 0 * inf = NaN). PyTorch's rule.
        if (n[0])
          r[0] = ops::where(cmp(BinaryOp::Eq, s[1], 0.0), zero,
                            mul(g[0], mul(s[1], binary(BinaryOp::Pow, s[0], adds(s[1], -1.0)))));
        if (n[1]) {
          // d/db a^b = a^b log a; where a == 0 and b >= 0 the limit is 0, not NaN (PyTorch's rule;
          // for b < 0 it is a^b log a = inf * -inf, as in PyTorch).
          // Under create_graph the saved output has no history: recompute a^b.
          const TensorPtr out = grad_enabled() ? binary(BinaryOp::Pow, s[0], s[1]) : s[2];
          const TensorPtr limit = binary(BinaryOp::LogicalAnd, cmp(BinaryOp::Eq, s[0], 0.0), cmp(BinaryOp::Ge, s[1], 0.0));
          r[1] = ops::where(limit, zero, mul(g[0], mul(out, ops::unary(UnaryOp::Log, s[0]))));
        }
        return r;
      });
    case BinaryOp::Maximum:
    case BinaryOp::Minimum: {
      const BinaryOp loses = op == BinaryOp::Maximum ? BinaryOp::Lt : BinaryOp::Gt;
      const BinaryOp wins = op == BinaryOp::Maximum ? BinaryOp::Gt : BinaryOp::Lt;
      return record(op == BinaryOp::Maximum ? "MaximumBackward" : "MinimumBackward", {a, b}, out, {a, b},
                    [loses, wins](const TensorList& g, const TensorList& s, const Needs&) {
                      // PyTorch's rule: ties split the gradient evenly, the loser gets nothing,
                      // and where either is NaN (no comparison holds) both get all of it.
                      const TensorPtr zero = ops::full({}, Scalar::from_int(0), g[0]->dtype, g[0]->device());
                      const TensorPtr shared = ops::where(binary(BinaryOp::Eq, s[0], s[1]), muls(g[0], 0.5), g[0]);
                      return TensorList{ops::where(binary(loses, s[0], s[1]), zero, shared),
                                        ops::where(binary(wins, s[0], s[1]), zero, shared)};
                    });
    }
    case BinaryOp::FloorDiv:
      return record("FloorDivideBackward", {a, b}, out, {}, [](const TensorList& g, const TensorList&, const Needs&) {
        return TensorList{zeros_like(g[0]), zeros_like(g[0])};
      });
    case BinaryOp::Mod:
      return record("RemainderBackward", {a, b}, out, {a, b}, [](const TensorList& g, const TensorList& s, const Needs& n) {
        return TensorList{g[0], n[1] ? neg(mul(g[0], binary(BinaryOp::FloorDiv, s[0], s[1]))) : nullptr};
      });
    default:
      if (op > BinaryOp::LogicalXor) return record_binary_math(op, out, a, b);
      return;  // comparisons and logical ops return bool: no gradient
  }
}

void record_lerp_scalar(const TensorPtr& out, const TensorPtr& a, const TensorPtr& b, double w) {
  record("LerpBackward", {a, b}, out, {}, [w](const TensorList& g, const TensorList&, const Needs& n) {
    return TensorList{n[0] ? muls(g[0], 1.0 - w) : nullptr, n[1] ? muls(g[0], w) : nullptr};
  });
  mark_stateless(out);
}

void record_unary(UnaryOp op, const TensorPtr& out, const TensorPtr& in, UnaryParams p) {
  // Each formula saves what it reads, as PyTorch's does: the input x, the
  // output y (exp, tanh, sigmoid, relu...), or nothing (neg). What is saved is
  // what an in-place op must leave alone until backward (version counters).
  enum class Saves { Nothing, Input, Output };
  auto rec = [&](const char* name, Saves saves,
                 std::function<TensorPtr(const TensorPtr& g, const TensorPtr& x, const TensorPtr& y)> f) {
    TensorList to_save;
    if (saves != Saves::Nothing) to_save.push_back(saves == Saves::Input ? in : out);
    record(name, {in}, out, to_save, [f, saves](const TensorList& g, const TensorList& s, const Needs&) {
      return TensorList{f(g[0], saves == Saves::Input ? s[0] : nullptr, saves == Saves::Output ? s[0] : nullptr)};
    });
    // These formulas capture no tensors: with nothing saved, the node can run again.
    if (saves == Saves::Nothing) mark_stateless(out);
  };
  switch (op) {
    case UnaryOp::Neg: return rec("NegBackward", Saves::Nothing, [](auto& g, auto&, auto&) { return neg(g); });
    case UnaryOp::Abs: return rec("AbsBackward", Saves::Input, [](auto& g, auto& x, auto&) { return mul(g, ops::unary(UnaryOp::Sign, x)); });
    case UnaryOp::Sign: case UnaryOp::Floor: case UnaryOp::Ceil: case UnaryOp::Round:
      // Piecewise constant: a zero gradient, under each op's own name (as PyTorch names them).
      return rec(op == UnaryOp::Sign ? "SignBackward" : op == UnaryOp::Floor ? "FloorBackward"
                 : op == UnaryOp::Ceil ? "CeilBackward" : "RoundBackward",
                 Saves::Nothing, [](auto& g, auto&, auto&) { return zeros_like(g); });
    case UnaryOp::Exp:
      return rec("ExpBackward", Saves::Output, [](auto& g, auto&, auto& y) { return mul(g, y); });
    case UnaryOp::Log: return rec("LogBackward", Saves::Input, [](auto& g, auto& x, auto&) { return div(g, x); });
    case UnaryOp::Log1p: return rec("Log1pBackward", Saves::Input, [](auto& g, auto& x, auto&) { return div(g, adds(x, 1.0)); });
    case UnaryOp::Expm1: return rec("Expm1Backward", Saves::Output, [](auto& g, auto&, auto& y) { return mul(g, adds(y, 1.0)); });
    case UnaryOp::Sqrt: return rec("SqrtBackward", Saves::Output, [](auto& g, auto&, auto& y) { return div(muls(g, 0.5), y); });
    case UnaryOp::Rsqrt: return rec("RsqrtBackward", Saves::Output, [](auto& g, auto&, auto& r) {
      return mul(muls(g, -0.5), mul(r, mul(r, r))); });
    case UnaryOp::Sin: return rec("SinBackward", Saves::Input, [](auto& g, auto& x, auto&) { return mul(g, ops::unary(UnaryOp::Cos, x)); });
    case UnaryOp::Cos: return rec("CosBackward", Saves::Input, [](auto& g, auto& x, auto&) { return neg(mul(g, ops::unary(UnaryOp::Sin, x))); });
    case UnaryOp::Tanh: return rec("TanhBackward", Saves::Output, [](auto& g, auto&, auto& y) {
      return mul(g, adds(neg(mul(y, y)), 1.0)); });
    case UnaryOp::Sigmoid: return rec("SigmoidBackward", Saves::Output, [](auto& g, auto&, auto& y) {
      return mul(g, mul(y, adds(neg(y), 1.0))); });
    case UnaryOp::Relu: return rec("ReluBackward", Saves::Output, [](auto& g, auto&, auto& y) {
      return mul(g, as_float(cmp(BinaryOp::Gt, y, 0.0), g->dtype)); });
    case UnaryOp::Erf: return rec("ErfBackward", Saves::Input, [](auto& g, auto& x, auto&) {
      // d/dx erf(x) = 2/sqrt(pi) exp(-x^2)
      return mul(muls(g, 1.1283791670955126), ops::unary(UnaryOp::Exp, neg(mul(x, x)))); });
    case UnaryOp::Gelu: return rec("GeluBackward", Saves::Input, [](auto& g, auto& x, auto&) {
      // gelu(x) = x Phi(x): derivative Phi(x) + x phi(x)
      TensorPtr cdf = muls(adds(ops::unary(UnaryOp::Erf, muls(x, M_SQRT1_2)), 1.0), 0.5);
      TensorPtr pdf = muls(ops::unary(UnaryOp::Exp, muls(mul(x, x), -0.5)), 0.3989422804014327);
      return mul(g, add(cdf, mul(x, pdf))); });
    case UnaryOp::GeluTanh: return rec("GeluTanhBackward", Saves::Input, [](auto& g, auto& x, auto&) {
      const double k = 0.7978845608028654, c = 0.044715;
      TensorPtr x2 = mul(x, x);
      TensorPtr t = ops::unary(UnaryOp::Tanh, muls(add(x, muls(mul(x2, x), c)), k));
      TensorPtr left = muls(adds(t, 1.0), 0.5);
      TensorPtr right = mul(muls(x, 0.5 * k), mul(adds(neg(mul(t, t)), 1.0), adds(muls(x2, 3 * c), 1.0)));
      return mul(g, add(left, right)); });
    case UnaryOp::Silu: return rec("SiluBackward", Saves::Input, [](auto& g, auto& x, auto&) {
      TensorPtr s = ops::unary(UnaryOp::Sigmoid, x);
      return mul(g, mul(s, adds(mul(x, adds(neg(s), 1.0)), 1.0))); });
    case UnaryOp::Softplus: {
      const double beta = p.a, threshold = p.b;
      return rec("SoftplusBackward", Saves::Input, [beta, threshold](auto& g, auto& x, auto&) {
        TensorPtr bx = muls(x, beta);
        TensorPtr s = ops::unary(UnaryOp::Sigmoid, bx);
        return mul(g, ops::where(cmp(BinaryOp::Gt, bx, threshold), ops::full({}, Scalar::from_int(1), x->dtype, x->device()), s)); });
    }
    case UnaryOp::Reciprocal: return rec("ReciprocalBackward", Saves::Output, [](auto& g, auto&, auto& r) {
      return neg(mul(g, mul(r, r))); });
    case UnaryOp::Square: return rec("SquareBackward", Saves::Input, [](auto& g, auto& x, auto&) { return mul(g, muls(x, 2.0)); });
    case UnaryOp::LeakyRelu: {
      const double slope = p.a;
      return rec("LeakyReluBackward", Saves::Input, [slope](auto& g, auto& x, auto&) {
        TensorPtr pos = as_float(cmp(BinaryOp::Gt, x, 0.0), g->dtype);
        return mul(g, adds(muls(pos, 1.0 - slope), slope)); });
    }
    case UnaryOp::Elu: {
      const double alpha = p.a;
      return rec("EluBackward", Saves::Input, [alpha](auto& g, auto& x, auto&) {
        TensorPtr neg_part = muls(ops::unary(UnaryOp::Exp, x), alpha);
        return mul(g, ops::where(cmp(BinaryOp::Gt, x, 0.0), ops::full({}, Scalar::from_int(1), x->dtype, x->device()), neg_part)); });
    }
    case UnaryOp::Clamp: {
      return rec("ClampBackward", Saves::Input, [p](auto& g, auto& x, auto&) {
        TensorPtr keep = ops::full(x->shape, Scalar::from_bool(true), DType::Bool, x->device());
        if (p.has_a) keep = binary(BinaryOp::LogicalAnd, keep, cmp(BinaryOp::Ge, x, p.a));
        if (p.has_b) keep = binary(BinaryOp::LogicalAnd, keep, cmp(BinaryOp::Le, x, p.b));
        return mul(g, as_float(keep, g->dtype)); });
    }
    case UnaryOp::LogicalNot:
      return;
    default:
      return record_unary_math(op, out, in, p);  // the maths API (derivatives_math.cpp)
  }
}

void record_where(const TensorPtr& out, const TensorPtr& cond, const TensorPtr& a, const TensorPtr& b) {
  record("WhereBackward", {a, b}, out, {cond}, [](const TensorList& g, const TensorList& s, const Needs& n) {
    TensorPtr zero = ops::full({}, Scalar::from_int(0), g[0]->dtype, g[0]->device());
    return TensorList{n[0] ? ops::where(s[0], g[0], zero) : nullptr, n[1] ? ops::where(s[0], zero, g[0]) : nullptr};
  });
}

// ---- reductions -----------------------------------------------------------------

void record_reduce(ReduceOp op, const TensorPtr& out, const TensorPtr& in, const TensorPtr& keep, bool along_dims) {
  const Shape in_shape = in->shape, keep_shape = keep->shape;
  switch (op) {
    case ReduceOp::Sum:
      record(along_dims ? "SumBackward1" : "SumBackward", {in}, out, {}, [in_shape, keep_shape](const TensorList& g, const TensorList&, const Needs&) {
        return TensorList{ops::expand(ops::reshape(g[0], keep_shape), in_shape)};
      });
      return mark_stateless(out);
    case ReduceOp::Prod:
      return record("ProdBackward", {in}, out, {in, keep}, [keep_shape](const TensorList& gs, const TensorList& s, const Needs&) {
        const TensorList g{ops::reshape(gs[0], keep_shape)};
        // d prod / d x_i = product of the others. Away from zeros that is
        // prod / x_i; a slice with exactly one zero gives that element the
        // product of the rest; with two or more zeros everything gets 0.
        const TensorPtr& x = s[0];
        ops::DimList dims;
        for (int64_t d = 0; d < x->ndim(); ++d)
          if (s[1]->shape[d] == 1 && x->shape[d] != 1) dims.push_back(d);
        if (dims.empty()) return TensorList{g[0]};  // only size-1 dims reduced: y is x
        // Under create_graph the saved output has no history: recompute it.
        const TensorPtr y = grad_enabled() ? ops::reduce(ReduceOp::Prod, x, dims, true) : s[1];
        TensorPtr is_zero = cmp(BinaryOp::Eq, x, 0.0);
        TensorPtr zeros_per = ops::sum(as_float(is_zero, x->dtype), dims, true, std::nullopt);
        TensorPtr one = ops::full({}, Scalar::from_int(1), x->dtype, x->device());
        TensorPtr zero = ops::full({}, Scalar::from_int(0), x->dtype, x->device());
        TensorPtr rest = ops::reduce(ReduceOp::Prod, ops::where(is_zero, one, x), dims, true);
        TensorPtr at_zero = ops::where(cmp(BinaryOp::Eq, zeros_per, 1.0), rest, zero);
        TensorPtr elsewhere = div(y, ops::where(is_zero, one, x));
        return TensorList{mul(g[0], ops::where(is_zero, at_zero, elsewhere))};
      });
    // [[book:amax_backward]]
    case ReduceOp::Max:
    case ReduceOp::Min:
      return record(op == ReduceOp::Max ? "AmaxBackward" : "AminBackward", {in}, out, {in, keep},
                    [keep_shape](const TensorList& gs, const TensorList& s, const Needs&) {
                      const TensorList g{ops::reshape(gs[0], keep_shape)};
                      // Tie rule (PyTorch's): amax/amin are not differentiable
                      // where several elements equal the extreme; the gradient
                      // is shared evenly among them (each of k tied elements
                      // gets g / k), the average of the one-sided choices.
                      TensorPtr mask = as_float(binary(BinaryOp::Eq, s[0], s[1]), g[0]->dtype);
                      ops::DimList dims;
                      for (int64_t d = 0; d < s[0]->ndim(); ++d)
                        if (s[1]->shape[d] == 1 && s[0]->shape[d] != 1) dims.push_back(d);
                      TensorPtr count = dims.empty() ? ops::full({}, Scalar::from_int(1), g[0]->dtype, g[0]->device())
                                                     : ops::sum(mask, dims, true, std::nullopt);
                      return TensorList{div(mul(g[0], mask), count)};
                    });
    // [[/book:amax_backward]]
    default:
      return;
  }
}

void record_mean(const TensorPtr& out, const TensorPtr& in, const Shape& keep_shape, double n, bool along_dims) {
  record(along_dims ? "MeanBackward1" : "MeanBackward", {in}, out, {}, [keep_shape, in_shape = in->shape, n](const TensorList& g, const TensorList&,
                                                                              const Needs&) {
    return TensorList{ops::binary_scalar(BinaryOp::Div, ops::expand(ops::reshape(g[0], keep_shape), in_shape),
                                         Scalar::from_double(n), false)};
  });
  mark_stateless(out);
}

// [[book:max_dim_backward]]
void record_max_dim(const TensorPtr& values, const TensorPtr& indices, const TensorPtr& in, int64_t dim, bool is_max) {
  const Shape in_shape = in->shape, keep_shape = indices->shape;
  // Tie rule: max(dim)/min(dim) return an index, and the whole gradient goes
  // to that element (with ties, the one the kernel reported: the first),
  // unlike amax/amin, which share it. This is PyTorch's rule too.
  record(is_max ? "MaxBackward0" : "MinBackward0", {in}, TensorList{values}, {indices},
         [in_shape, keep_shape, dim](const TensorList& g, const TensorList& s, const Needs&) {
    TensorPtr z = ops::full(in_shape, Scalar::from_int(0), g[0]->dtype, g[0]->device());
    return TensorList{ops::scatter(z, dim, s[0], ops::reshape(g[0], keep_shape), false)};
  });
}
// [[/book:max_dim_backward]]

void record_softmax(const TensorPtr& out, const TensorPtr& in, int64_t dim, bool log) {
  if (log)
    return record("LogSoftmaxBackward", {in}, out, {out}, [dim](const TensorList& g, const TensorList& s, const Needs&) {
      TensorPtr p = ops::unary(UnaryOp::Exp, s[0]);
      return TensorList{sub(g[0], mul(p, ops::sum(g[0], ops::DimList{dim}, true, std::nullopt)))};
    });
  // [[book:softmax_backward]]
  record("SoftmaxBackward", {in}, out, {out}, [dim](const TensorList& g, const TensorList& s, const Needs&) {
    const TensorPtr& y = s[0];  // saved output, with its history under create_graph
    TensorPtr dot = ops::sum(mul(g[0], y), ops::DimList{dim}, true, std::nullopt);
    return TensorList{mul(y, sub(g[0], dot))};
  });
  // [[/book:softmax_backward]]
}

void record_cumsum(const TensorPtr& out, const TensorPtr& in, int64_t dim) {
  record("CumsumBackward", {in}, out, {}, [dim](const TensorList& g, const TensorList&, const Needs&) {
    // Each x_i feeds y_j for j >= i: the reversed cumulative sum of g.
    TensorPtr total = ops::sum(g[0], ops::DimList{dim}, true, std::nullopt);
    return TensorList{add(sub(total, ops::cumsum(g[0], dim)), g[0])};
  });
}

// [[book:bmm_backward]]
void record_bmm(const TensorPtr& out, const TensorPtr& a, const TensorPtr& b) {
  record("BmmBackward", {a, b}, out, {a, b}, [](const TensorList& g, const TensorList& s, const Needs& n) {
    return TensorList{n[0] ? ops::bmm(g[0], ops::transpose(s[1], 1, 2)) : nullptr,
                      n[1] ? ops::bmm(ops::transpose(s[0], 1, 2), g[0]) : nullptr};
  });
}
// [[/book:bmm_backward]]

void record_mm(const TensorPtr& out, const TensorPtr& a, const TensorPtr& b) {
  record("MmBackward", {a, b}, out, {a, b}, [](const TensorList& g, const TensorList& s, const Needs& n) {
    return TensorList{n[0] ? ops::mm(g[0], ops::transpose(s[1], 0, 1)) : nullptr,
                      n[1] ? ops::mm(ops::transpose(s[0], 0, 1), g[0]) : nullptr};
  });
}

void record_cast(const TensorPtr& out, const TensorPtr& in) {
  const DType dt = in->dtype;
  // clone (same dtype) and a dtype conversion are two nodes in PyTorch: CloneBackward0, ToCopyBackward0.
  record(out->dtype == dt ? "CloneBackward" : "ToCopyBackward", {in}, out, {}, [dt](const TensorList& g, const TensorList&, const Needs&) {
    return TensorList{ops::to_dtype(g[0], dt)};
  });
  mark_stateless(out);  // only the dtype is kept, as in PyTorch's ToCopyBackward0
}

// ---- indexing -------------------------------------------------------------------

void record_gather(const TensorPtr& out, const TensorPtr& in, int64_t dim, const TensorPtr& index) {
  const Shape in_shape = in->shape;
  record("GatherBackward", {in}, out, {index}, [in_shape, dim](const TensorList& g, const TensorList& s, const Needs&) {
    TensorPtr z = ops::full(in_shape, Scalar::from_int(0), g[0]->dtype, g[0]->device());
    return TensorList{ops::scatter(z, dim, s[0], g[0], true)};
  });
}

void record_scatter(const TensorPtr& out, const TensorPtr& self, int64_t dim, const TensorPtr& index,
                    const TensorPtr& src, bool add) {
  record(add ? "ScatterAddBackward" : "ScatterBackward", {self, src}, out, {index},
         [dim, add](const TensorList& g, const TensorList& s, const Needs& n) {
           TensorList r(2);
           if (n[0]) {
             if (add) r[0] = g[0];
             else {
               TensorPtr z = ops::full(s[0]->shape, Scalar::from_int(0), g[0]->dtype, g[0]->device());
               r[0] = ops::scatter(g[0], dim, s[0], z, false);  // overwritten positions get no gradient
             }
           }
           if (n[1]) r[1] = ops::gather(g[0], dim, s[0]);
           return r;
         });
}

// [[book:index_backward]]
void record_index(const TensorPtr& out, const TensorPtr& in, const std::vector<TensorPtr>& indices) {
  const Shape in_shape = in->shape;
  record("IndexBackward", {in}, out, {}, [in_shape, indices](const TensorList& g, const TensorList&, const Needs&) {
    TensorPtr z = ops::full(in_shape, Scalar::from_int(0), g[0]->dtype, g[0]->device());
    return TensorList{ops::index_put(z, indices, g[0], true)};
  });
}
// [[/book:index_backward]]

void record_index_put(const TensorPtr& out, const TensorPtr& self, const std::vector<TensorPtr>& indices,
                      const TensorPtr& values, bool accumulate) {
  const Shape values_shape = values->shape;  // values broadcast over the indexed shape
  record("IndexPutBackward", {self, values}, out, {}, [indices, accumulate, values_shape](const TensorList& g, const TensorList&, const Needs& n) {
    TensorList r(2);
    if (n[0]) {
      if (accumulate) r[0] = g[0];
      else r[0] = ops::index_put(g[0], indices, ops::full({}, Scalar::from_int(0), g[0]->dtype, g[0]->device()), false);
    }
    if (n[1]) r[1] = sum_to(ops::index(g[0], indices), values_shape);
    return r;
  });
}

void record_cat(const TensorPtr& out, const std::vector<TensorPtr>& inputs, int64_t dim) {
  Shape sizes;
  for (const auto& t : inputs) sizes.push_back(t->shape[dim]);
  record("CatBackward", inputs, out, {}, [sizes, dim](const TensorList& g, const TensorList&, const Needs&) {
    return ops::split_sizes(g[0], sizes, dim);
  });
}

// ---- views ----------------------------------------------------------------------

namespace {

// Writes g into `reapply(zeros(shape))`: the inverse of a slicing view. It is a
// recorded op of its own (its backward is the view again), so double
// backward works through views.
// [[book:view_scatter]]
TensorPtr view_scatter(const TensorPtr& g, const Shape& shape, std::function<TensorPtr(const TensorPtr&)> reapply) {
  TensorPtr gi = ops::full(shape, Scalar::from_int(0), g->dtype, g->device());
  {
    GradModeGuard no_grad(false);
    TensorPtr dst = reapply(gi);
    ops::copy_(dst, g);
  }
  if (should_record({&g}))
    record("ViewScatterBackward", {g}, gi, {}, [reapply](const TensorList& gg, const TensorList&, const Needs&) {
      return TensorList{reapply(gg[0])};
    });
  return gi;
}
// [[/book:view_scatter]]
}  // namespace

namespace {
// A view of a leaf that requires grad (or of such a view) is marked, so an
// in-place op on it is refused like one on the leaf (PyTorch's rule).
void mark_view_of_leaf(const TensorPtr& out, const TensorPtr& in) {
  if (!out->autograd || !in->autograd || out->storage != in->storage) return;
  const bool in_is_leaf = in->autograd->requires_grad && !in->autograd->grad_fn;
  if (in_is_leaf || in->autograd->view_of_leaf) out->autograd->view_of_leaf = true;
}
}  // namespace

void record_view(const char* name, const TensorPtr& out, const TensorPtr& in,
                 std::function<TensorPtr(const TensorPtr&)> reapply) {
  const Shape in_shape = in->shape;
  record(name, {in}, out, {}, [in_shape, reapply](const TensorList& g, const TensorList&, const Needs&) {
    return TensorList{view_scatter(g[0], in_shape, reapply)};
  });
  mark_stateless(out);
  mark_view_of_leaf(out, in);
}

void record_view_with(const char* name, const TensorPtr& out, const TensorPtr& in,
                      std::function<TensorPtr(const TensorPtr&)> backward) {
  record(name, {in}, out, {}, [backward](const TensorList& g, const TensorList&, const Needs&) {
    return TensorList{backward(g[0])};
  });
  mark_stateless(out);
  mark_view_of_leaf(out, in);
}

void record_as_strided(const TensorPtr& out, const TensorPtr& in) {
  // Each output element reads one storage element; route its gradient there
  // (accumulating where the view reads an element twice), then read the
  // input's own elements back out of that storage-shaped buffer.
  const Shape in_shape = in->shape, in_strides = in->strides, out_shape = out->shape, out_strides = out->strides;
  const int64_t in_off = in->offset, out_off = out->offset;
  const int64_t storage_numel = static_cast<int64_t>(in->storage->nbytes()) / in->element_size();
  record("AsStridedBackward", {in}, out, {}, [=](const TensorList& g, const TensorList&, const Needs&) {
    TensorPtr positions = ops::arange(0, static_cast<double>(storage_numel), 1, DType::Int64);
    TensorPtr read = ops::reshape(ops::as_strided(positions, out_shape, out_strides, out_off), {-1});
    TensorPtr buffer = ops::full({storage_numel}, Scalar::from_int(0), g[0]->dtype, g[0]->device());
    buffer = ops::index_put(buffer, {read}, ops::reshape(g[0], {-1}), true);
    TensorPtr mine = ops::reshape(ops::as_strided(positions, in_shape, in_strides, in_off), {-1});
    return TensorList{ops::reshape(ops::index(buffer, {mine}), in_shape)};
  });
  mark_view_of_leaf(out, in);
}

// ---- in-place -------------------------------------------------------------------

bool inplace_needs_history(const TensorPtr& self, std::initializer_list<const TensorPtr*> others) {
  if (!grad_enabled()) return false;
  if (requires_grad(self)) return true;
  for (const TensorPtr* t : others)
    if (requires_grad(*t)) return true;
  return false;
}

// The in-place rules (PyTorch's, where this library can follow them). An
// in-place op on a tensor in the graph is computed out of place (recorded as
// usual, reading a copy of the old value) and the result is written back; the
// tensor then takes over the new history. A tensor that some node saved for
// backward may be modified: the saved value's version counter makes that
// node's backward raise, naming it, if (and only if) the value is needed.
// Refused at once:
//  - on a leaf that requires grad, or a view of one: its value is what the
//    gradient is taken with respect to, so overwriting it would make .grad
//    meaningless;
//  - when the memory is shared with another live tensor (a view or its base,
//    a sibling view): that tensor would see the new values while its history
//    still describes the old ones, and its gradient would be silently wrong.
//    (PyTorch instead rewrites the base's history; refusing keeps every
//    accepted case exactly right.) Autograd's own saved copies do not count:
//    they are checked by version. A view whose base is gone (the result of
//    matmul or reshape, say) is the sole owner of its memory and may be modified.
void inplace_with_history(const TensorPtr& self, const char* op_name, const std::function<TensorPtr()>& compute) {
  AK_CHECK(!(requires_grad(self) && !self->autograd->grad_fn), RuntimeError, "a leaf Variable that requires grad is "
           "being used in an in-place operation (", op_name, "); wrap it in `with aakaar.no_grad():` or use the "
           "out-of-place version");
  AK_CHECK(!(self->autograd && self->autograd->view_of_leaf), RuntimeError, "a view of a leaf Variable that requires "
           "grad is being used in an in-place operation (", op_name, "); wrap it in `with aakaar.no_grad():` or "
           "modify a .clone()");
  const int64_t other_holders = static_cast<int64_t>(self->storage.use_count()) - 1 - self->storage->saved_refs();
  AK_CHECK(other_holders == 0, RuntimeError, "in-place operation ", op_name, " in the autograd graph on a tensor "
           "whose memory is shared with another live tensor (a view of it, or its base) is not supported: the other "
           "tensor's gradient would be silently wrong. Use the out-of-place version (e.g. x = x.add(y)), or modify a "
           ".clone().");
  TensorPtr result = compute();
  {
    GradModeGuard no_grad(false);
    backend(self->device()).copy(*self, *result);
    self->storage->bump_version();
  }
  AutogradMeta& m = meta(self);
  if (requires_grad(result)) {
    m.requires_grad = true;
    m.grad_fn = result->autograd->grad_fn;
    m.output_nr = result->autograd->output_nr;
  } else {  // overwritten by a constant (fill_): no gradient flows any more
    m.requires_grad = false;
    m.grad_fn = nullptr;
  }
}

}  // namespace aakaar::autograd
