// Backward formulas of the maths API's elementwise ops (the UnaryOp entries after
// Erf and the BinaryOp entries after LogicalXor): PyTorch's formulas from its
// derivatives.yaml, written with ordinary ops so that create_graph records them
// too. Where an op has a kink, the mask is torch's (hardtanh passes nothing at its
// bounds, threshold nothing at the threshold, fmax sends a tie to its first operand).
// torch's CPU kernels answer differently for a NaN input in their vectorised loop and in
// their scalar one (small tensors, the tail of large ones): NaN in one, the gradient of the
// branch the comparisons pick in the other. The scalar loop's answer is followed here.
#include <cmath>

#include "autograd/derivatives.h"
#include "core/error.h"
#include "ops/ops.h"

namespace aakaar::autograd {
namespace {

using ops::binary;
using ops::unary;
TensorPtr mul(const TensorPtr& a, const TensorPtr& b) { return binary(BinaryOp::Mul, a, b); }
TensorPtr div(const TensorPtr& a, const TensorPtr& b) { return binary(BinaryOp::Div, a, b); }
TensorPtr add(const TensorPtr& a, const TensorPtr& b) { return binary(BinaryOp::Add, a, b); }
TensorPtr sub(const TensorPtr& a, const TensorPtr& b) { return binary(BinaryOp::Sub, a, b); }
TensorPtr muls(const TensorPtr& a, double s) { return ops::binary_scalar(BinaryOp::Mul, a, Scalar::from_double(s), false); }
TensorPtr adds(const TensorPtr& a, double s) { return ops::binary_scalar(BinaryOp::Add, a, Scalar::from_double(s), false); }
TensorPtr rsubs(double s, const TensorPtr& a) { return ops::binary_scalar(BinaryOp::Sub, a, Scalar::from_double(s), true); }
TensorPtr cmp(BinaryOp op, const TensorPtr& a, double s) { return ops::binary_scalar(op, a, Scalar::from_double(s), false); }
TensorPtr both(const TensorPtr& a, const TensorPtr& b) { return binary(BinaryOp::LogicalAnd, a, b); }
TensorPtr either(const TensorPtr& a, const TensorPtr& b) { return binary(BinaryOp::LogicalOr, a, b); }
TensorPtr zero_like(const TensorPtr& g) { return ops::full({}, Scalar::from_int(0), g->dtype, g->device()); }
TensorPtr not_(const TensorPtr& a) { return unary(UnaryOp::LogicalNot, a); }
// g where keep, 0 elsewhere (not g * mask: 0 * inf would be NaN, and torch masks).
TensorPtr keep_where(const TensorPtr& keep, const TensorPtr& g) { return ops::where(keep, g, zero_like(g)); }

void mark_stateless(const TensorPtr& out) {
  if (out->autograd && out->autograd->grad_fn) out->autograd->grad_fn->stateless = true;
}

// One node with input x (or output y) saved: formula(g, saved).
void rec1(const char* name, const TensorPtr& out, const TensorPtr& in, const TensorPtr& saved,
          std::function<TensorPtr(const TensorPtr&, const TensorPtr&)> f) {
  record(name, {in}, out, saved ? TensorList{saved} : TensorList{},
         [f, has = saved != nullptr](const TensorList& g, const TensorList& s, const Needs&) {
           return TensorList{f(g[0], has ? s[0] : nullptr)};
         });
  if (!saved) mark_stateless(out);
}

}  // namespace

void record_unary_math(UnaryOp op, const TensorPtr& out, const TensorPtr& in, UnaryParams p) {
  const TensorPtr& x = in;
  const TensorPtr& y = out;
  switch (op) {
    case UnaryOp::Tan:  // (1 + y^2)
      return rec1("TanBackward", out, in, y, [](auto& g, auto& y) { return mul(g, adds(mul(y, y), 1.0)); });
    case UnaryOp::Asin:  // 1 / sqrt(1 - x^2)
      return rec1("AsinBackward", out, in, x, [](auto& g, auto& x) {
        return mul(g, unary(UnaryOp::Rsqrt, rsubs(1.0, mul(x, x)))); });
    case UnaryOp::Acos:
      return rec1("AcosBackward", out, in, x, [](auto& g, auto& x) {
        return mul(g, unary(UnaryOp::Neg, unary(UnaryOp::Rsqrt, rsubs(1.0, mul(x, x))))); });
    case UnaryOp::Atan:
      return rec1("AtanBackward", out, in, x, [](auto& g, auto& x) { return div(g, adds(mul(x, x), 1.0)); });
    case UnaryOp::Sinh:
      return rec1("SinhBackward", out, in, x, [](auto& g, auto& x) { return mul(g, unary(UnaryOp::Cosh, x)); });
    case UnaryOp::Cosh:
      return rec1("CoshBackward", out, in, x, [](auto& g, auto& x) { return mul(g, unary(UnaryOp::Sinh, x)); });
    case UnaryOp::Asinh:
      return rec1("AsinhBackward", out, in, x, [](auto& g, auto& x) {
        return mul(g, unary(UnaryOp::Rsqrt, adds(mul(x, x), 1.0))); });
    case UnaryOp::Acosh:
      return rec1("AcoshBackward", out, in, x, [](auto& g, auto& x) {
        return mul(g, unary(UnaryOp::Rsqrt, adds(mul(x, x), -1.0))); });
    case UnaryOp::Atanh:
      return rec1("AtanhBackward", out, in, x, [](auto& g, auto& x) { return div(g, rsubs(1.0, mul(x, x))); });
    case UnaryOp::Log2:
      return rec1("Log2Backward", out, in, x, [](auto& g, auto& x) { return div(g, muls(x, M_LN2)); });
    case UnaryOp::Log10:
      return rec1("Log10Backward", out, in, x, [](auto& g, auto& x) { return div(g, muls(x, M_LN10)); });
    case UnaryOp::Exp2:
      return rec1("Exp2Backward", out, in, y, [](auto& g, auto& y) { return muls(mul(g, y), M_LN2); });
    case UnaryOp::Trunc:
      return rec1("TruncBackward", out, in, nullptr, [](auto& g, auto&) {
        return ops::full(g->shape, Scalar::from_int(0), g->dtype, g->device()); });
    case UnaryOp::Frac:
      return rec1("FracBackward", out, in, nullptr, [](auto& g, auto&) { return g; });
    case UnaryOp::NanToNum:  // torch: grad * isfinite(x)
      return rec1("NanToNumBackward", out, in, x, [](auto& g, auto& x) {
        return keep_where(unary(UnaryOp::IsFinite, x), g); });
    case UnaryOp::Hardsigmoid:  // 1/6 on (-3, 3), 0 elsewhere (the bounds included)
      // torch multiplies by the float 1.0f / 6.0f, in float64 too: the same number here.
      return rec1("HardsigmoidBackward", out, in, x, [](auto& g, auto& x) {
        return keep_where(both(cmp(BinaryOp::Gt, x, -3.0), cmp(BinaryOp::Lt, x, 3.0)),
                          muls(g, static_cast<double>(1.0f / 6.0f))); });
    case UnaryOp::Hardswish:  // 0 up to -3, x / 3 + 1/2 on (-3, 3), 1 from 3 on (torch's choice at the kinks)
      return rec1("HardswishBackward", out, in, x, [](auto& g, auto& x) {
        const TensorPtr mid = ops::where(cmp(BinaryOp::Lt, x, 3.0),
                                         adds(div(x, ops::full({}, Scalar::from_int(3), x->dtype, x->device())), 0.5),
                                         ops::full({}, Scalar::from_int(1), x->dtype, x->device()));
        return mul(g, ops::where(cmp(BinaryOp::Le, x, -3.0), zero_like(x), mid)); });
    case UnaryOp::Hardtanh: {  // nothing passes at the bounds (torch's hardtanh_backward, unlike clamp's)
      const double lo = p.a, hi = p.b;
      return rec1("HardtanhBackward", out, in, x, [lo, hi](auto& g, auto& x) {
        return keep_where(not_(either(cmp(BinaryOp::Le, x, lo), cmp(BinaryOp::Ge, x, hi))), g); });
    }
    case UnaryOp::Mish:  // tanh(sp) + x sigmoid(x) (1 - tanh(sp)^2), sp = softplus(x)
      return rec1("MishBackward", out, in, x, [](auto& g, auto& x) {
        const TensorPtr t = unary(UnaryOp::Tanh, unary(UnaryOp::Log1p, unary(UnaryOp::Exp, x)));
        const TensorPtr s = unary(UnaryOp::Sigmoid, x);
        return mul(g, add(t, mul(mul(x, s), rsubs(1.0, mul(t, t))))); });
    case UnaryOp::Selu:
    case UnaryOp::Celu: {
      // torch's elu_backward: x <= 0 ? input_scale * neg_coef * exp(x * input_scale) : pos_coef.
      const bool selu = op == UnaryOp::Selu;
      const double alpha = selu ? 1.6732632423543772848170429916717 : p.a;
      const double scale = selu ? 1.0507009873554804934193349852946 : 1.0;
      // torch's celu backward takes 1.0 / alpha.toFloat(): alpha rounded to float first.
      const double input_scale = selu ? 1.0 : 1.0 / static_cast<double>(static_cast<float>(p.a));
      return rec1(selu ? "SeluBackward" : "CeluBackward", out, in, x, [=](auto& g, auto& x) {
        const TensorPtr neg = muls(unary(UnaryOp::Exp, muls(x, input_scale)), input_scale * alpha * scale);
        const TensorPtr pos = ops::full({}, Scalar::from_double(scale), x->dtype, x->device());
        return mul(g, ops::where(cmp(BinaryOp::Le, x, 0.0), neg, pos)); });
    }
    case UnaryOp::LogSigmoid:  // sigmoid(-x)
      return rec1("LogSigmoidBackward", out, in, x, [](auto& g, auto& x) {
        return mul(g, unary(UnaryOp::Sigmoid, unary(UnaryOp::Neg, x))); });
    case UnaryOp::Softshrink:
    case UnaryOp::Hardshrink: {  // nothing passes on [-lambd, lambd]
      const double l = p.a;
      return rec1(op == UnaryOp::Softshrink ? "SoftshrinkBackward" : "HardshrinkBackward", out, in, x,
                  [l](auto& g, auto& x) {
                    return keep_where(not_(both(cmp(BinaryOp::Ge, x, -l), cmp(BinaryOp::Le, x, l))), g); });
    }
    case UnaryOp::Threshold: {  // nothing passes where x <= threshold
      const double th = p.a;
      return rec1("ThresholdBackward", out, in, x, [th](auto& g, auto& x) {
        return keep_where(not_(cmp(BinaryOp::Le, x, th)), g); });
    }
    // ---- special functions (torch's derivatives.yaml) ----
    case UnaryOp::Erfc:  // -2 / sqrt(pi) exp(-x^2)
      return rec1("ErfcBackward", out, in, x, [](auto& g, auto& x) {
        return mul(g, muls(unary(UnaryOp::Exp, unary(UnaryOp::Neg, mul(x, x))), -M_2_SQRTPI)); });
    case UnaryOp::Erfinv:  // sqrt(pi) / 2 exp(y^2)
      return rec1("ErfinvBackward", out, in, y, [](auto& g, auto& y) {
        return mul(g, muls(unary(UnaryOp::Exp, mul(y, y)), 0.5 * std::sqrt(M_PI))); });
    case UnaryOp::Lgamma:  // digamma(x)
      return rec1("LgammaBackward", out, in, x, [](auto& g, auto& x) { return mul(g, unary(UnaryOp::Digamma, x)); });
    case UnaryOp::Digamma:  // polygamma(1, x)
    case UnaryOp::Polygamma: {  // polygamma(n + 1, x)
      UnaryParams next;
      next.a = (op == UnaryOp::Digamma ? 0.0 : p.a) + 1.0;
      next.has_a = true;
      return rec1(op == UnaryOp::Digamma ? "DigammaBackward" : "PolygammaBackward", out, in, x,
                  [next](auto& g, auto& x) { return mul(g, unary(UnaryOp::Polygamma, x, next)); });
    }
    case UnaryOp::I0:  // i1(x)
      return rec1("I0Backward", out, in, x, [](auto& g, auto& x) { return mul(g, unary(UnaryOp::I1, x)); });
    case UnaryOp::I1:  // i0(x) - i1(x) / x, and 1/2 at 0 (torch's special_i1 backward)
      return rec1("SpecialI1Backward", out, in, x, [](auto& g, auto& x) {
        const TensorPtr at0 = cmp(BinaryOp::Eq, x, 0.0);
        const TensorPtr safe = ops::where(at0, ops::full({}, Scalar::from_int(1), x->dtype, x->device()), x);
        const TensorPtr d = sub(unary(UnaryOp::I0, x), div(unary(UnaryOp::I1, safe), safe));
        return mul(g, ops::where(at0, ops::full({}, Scalar::from_double(0.5), x->dtype, x->device()), d)); });
    case UnaryOp::I0e:  // i1e(x) - sgn(x) i0e(x)
      return rec1("SpecialI0EBackward", out, in, x, [](auto& g, auto& x) {
        return mul(g, sub(unary(UnaryOp::I1e, x), mul(unary(UnaryOp::Sign, x), unary(UnaryOp::I0e, x)))); });
    case UnaryOp::I1e:  // i0e(x) - i1e(x) (sgn(x) + 1 / x), and 1/2 where |x| <= eps (torch's i1e_backward)
      return rec1("SpecialI1EBackward", out, in, x, [](auto& g, auto& x) {
        const double eps = x->dtype == DType::Float32 ? 1.1920928955078125e-07 : 2.220446049250313e-16;
        const TensorPtr not_tiny = cmp(BinaryOp::Gt, unary(UnaryOp::Abs, x), eps);
        const TensorPtr safe = ops::where(not_tiny, x, ops::full({}, Scalar::from_double(eps), x->dtype, x->device()));
        const TensorPtr y = unary(UnaryOp::I1e, x);
        const TensorPtr d = sub(unary(UnaryOp::I0e, safe), mul(y, add(unary(UnaryOp::Sign, x), unary(UnaryOp::Reciprocal, safe))));
        return mul(g, ops::where(not_tiny, d, ops::full({}, Scalar::from_double(0.5), x->dtype, x->device()))); });
    case UnaryOp::Erfcx:  // 2 x erfcx(x) - 2 / sqrt(pi)
      return rec1("SpecialErfcxBackward", out, in, x, [](auto& g, auto& x) {
        return mul(g, adds(muls(mul(x, unary(UnaryOp::Erfcx, x)), 2.0), -M_2_SQRTPI)); });
    default:
      return;  // predicates, bitwise_not, and the special functions torch does not differentiate
  }
}

void record_clamp_tensor(const TensorPtr& out, const TensorPtr& x, const TensorPtr& lo, const TensorPtr& hi) {
  // torch's clamp_backward_min_max: x where lo <= x <= hi; lo where x < lo (and lo < hi when
  // both are given); hi where x > hi or hi < lo (a crossed pair gives hi). NaN anywhere: nothing.
  TensorList inputs{x};
  if (lo) inputs.push_back(lo);
  if (hi) inputs.push_back(hi);
  const bool has_lo = lo != nullptr, has_hi = hi != nullptr;
  record("ClampBackward0", inputs, out, inputs, [has_lo, has_hi](const TensorList& g, const TensorList& s, const Needs&) {
    const TensorPtr& x = s[0];
    const TensorPtr l = has_lo ? s[1] : nullptr, h = has_hi ? s[has_lo ? 2 : 1] : nullptr;
    TensorPtr keep_x;
    if (l && h) keep_x = both(binary(BinaryOp::Ge, x, l), binary(BinaryOp::Le, x, h));
    else keep_x = l ? binary(BinaryOp::Ge, x, l) : binary(BinaryOp::Le, x, h);
    TensorList r{keep_where(keep_x, g[0])};
    if (l) {
      TensorPtr to_lo = binary(BinaryOp::Lt, x, l);
      if (h) to_lo = both(to_lo, binary(BinaryOp::Lt, l, h));
      r.push_back(keep_where(to_lo, g[0]));
    }
    if (h) {
      TensorPtr to_hi = binary(BinaryOp::Gt, x, h);
      if (l) to_hi = either(to_hi, binary(BinaryOp::Lt, h, l));
      r.push_back(keep_where(to_hi, g[0]));
    }
    return r;
  });
}

void record_binary_math(BinaryOp op, const TensorPtr& out, const TensorPtr& a, const TensorPtr& b) {
  switch (op) {
    case BinaryOp::Atan2:  // (b, -a) / (a^2 + b^2), and 0 where that denominator is 0 (torch's)
      return record("Atan2Backward", {a, b}, out, {a, b}, [](const TensorList& g, const TensorList& s, const Needs& n) {
        const TensorPtr d = add(mul(s[0], s[0]), mul(s[1], s[1]));
        const TensorPtr r = ops::where(cmp(BinaryOp::Eq, d, 0.0), zero_like(d), unary(UnaryOp::Reciprocal, d));
        return TensorList{n[0] ? mul(mul(g[0], s[1]), r) : nullptr,
                          n[1] ? mul(mul(g[0], unary(UnaryOp::Neg, s[0])), r) : nullptr};
      });
    case BinaryOp::Fmod:  // g, -g trunc(a / b)
      return record("FmodBackward", {a, b}, out, {a, b}, [](const TensorList& g, const TensorList& s, const Needs& n) {
        return TensorList{g[0], n[1] ? unary(UnaryOp::Neg, mul(g[0], binary(BinaryOp::DivTrunc, s[0], s[1]))) : nullptr};
      });
    case BinaryOp::Copysign:  // a: g * (y / a), 0 where a == 0; b: 0
      return record("CopysignBackward", {a, b}, out, {a, out}, [](const TensorList& g, const TensorList& s, const Needs&) {
        const TensorPtr ratio = div(s[1], s[0]);
        const TensorPtr zero = zero_like(g[0]);
        return TensorList{mul(g[0], ops::where(cmp(BinaryOp::Eq, s[0], 0.0), zero, ratio)),
                          ops::full(g[0]->shape, Scalar::from_int(0), g[0]->dtype, g[0]->device())};
      });
    case BinaryOp::Hypot:  // (a, b) / y
      return record("HypotBackward", {a, b}, out, {a, b, out}, [](const TensorList& g, const TensorList& s, const Needs& n) {
        // Under create_graph the saved output has no history: recompute it.
        const TensorPtr y = grad_enabled() ? binary(BinaryOp::Hypot, s[0], s[1]) : s[2];
        return TensorList{n[0] ? div(mul(g[0], s[0]), y) : nullptr, n[1] ? div(mul(g[0], s[1]), y) : nullptr};
      });
    case BinaryOp::DivTrunc:  // piecewise constant: torch's gradient is 0
      record("DivBackward", {a, b}, out, {}, [](const TensorList& g, const TensorList&, const Needs&) {
        const TensorPtr z = ops::full(g[0]->shape, Scalar::from_int(0), g[0]->dtype, g[0]->device());
        return TensorList{z, z};
      });
      return mark_stateless(out);
    case BinaryOp::Fmax:
    case BinaryOp::Fmin: {
      // torch: a gets g where (a >= b (a <= b for fmin) or b is NaN), b gets the rest: a tie goes to a.
      const BinaryOp wins = op == BinaryOp::Fmax ? BinaryOp::Ge : BinaryOp::Le;
      return record(op == BinaryOp::Fmax ? "FmaxBackward" : "FminBackward", {a, b}, out, {a, b},
                    [wins](const TensorList& g, const TensorList& s, const Needs&) {
                      const TensorPtr to_a = either(binary(wins, s[0], s[1]), unary(UnaryOp::IsNan, s[1]));
                      const TensorPtr zero = zero_like(g[0]);
                      return TensorList{ops::where(to_a, g[0], zero), ops::where(to_a, zero, g[0])};
                    });
    }
    case BinaryOp::LogAddExp:  // g / (1 + exp(b - a)), g / (1 + exp(a - b))
      return record("LogaddexpBackward", {a, b}, out, {a, b}, [](const TensorList& g, const TensorList& s, const Needs& n) {
        return TensorList{n[0] ? div(g[0], adds(unary(UnaryOp::Exp, sub(s[1], s[0])), 1.0)) : nullptr,
                          n[1] ? div(g[0], adds(unary(UnaryOp::Exp, sub(s[0], s[1])), 1.0)) : nullptr};
      });
    case BinaryOp::Zeta:  // x: not implemented (torch's); q: -x zeta(x + 1, q)
      return record("SpecialZetaBackward", {a, b}, out, {a, b}, [](const TensorList& g, const TensorList& s, const Needs& n) {
        AK_CHECK(!n[0], NotImplementedError, "the derivative for 'zeta' is not implemented.");
        return TensorList{nullptr, mul(g[0], mul(unary(UnaryOp::Neg, s[0]), binary(BinaryOp::Zeta, adds(s[0], 1.0), s[1])))};
      });
    default:
      return;  // bitwise ops (integers) and the polynomials (torch: not differentiable)
  }
}

}  // namespace aakaar::autograd
