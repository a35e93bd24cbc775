// The maths API: the elementwise Tensor methods and _C functions a PyTorch user
// reaches for beyond the basics of bind_tensor.cpp -- inverse trigonometric and
// hyperbolic functions, log2/log10/exp2, trunc/frac, the predicates isnan/isinf/...,
// nan_to_num, atan2, fmod, copysign, hypot, fmax/fmin, logaddexp, div's
// rounding_mode, the bitwise ops and shifts (with their operators), and the
// activations that aakaar.nn.functional wraps. Each line forwards to an op in csrc/ops.
#include <cmath>
#include <limits>

#include "core/error.h"
#include "ops/ops.h"
#include "python/convert.h"

namespace aakaar::python {
namespace {

TensorPtr inplace(BinaryOp op, const TensorPtr& a, py::handle other, const char* name) {
  ops::binary_(op, a, as_tensor(other, a, name));
  return a;
}

BinaryOp div_op(py::handle rounding_mode) {
  if (rounding_mode.is_none()) return BinaryOp::Div;
  const std::string mode = py::str(rounding_mode);
  if (mode == "trunc") return BinaryOp::DivTrunc;
  if (mode == "floor") return BinaryOp::FloorDiv;
  throw ValueError(str("div expected rounding_mode to be one of None, 'trunc', or 'floor' but found '", mode, "'"));
}

// torch.nan_to_num's defaults: NaN -> 0, +inf -> the dtype's largest finite value, -inf -> its lowest.
UnaryParams nan_to_num_params(const TensorPtr& t, py::handle nan, py::handle posinf, py::handle neginf) {
  // float16's largest is 65504 = (2 - 2^-10) 2^15; bfloat16's (2 - 2^-7) 2^127.
  const double big = t->dtype == DType::Float32    ? std::numeric_limits<float>::max()
                     : t->dtype == DType::Float16  ? 65504.0
                     : t->dtype == DType::BFloat16 ? std::ldexp(2.0 - std::ldexp(1.0, -7), 127)
                                                   : std::numeric_limits<double>::max();
  UnaryParams p;
  p.a = nan.is_none() ? 0.0 : to_scalar(nan, "nan_to_num: nan").to_double();
  p.b = posinf.is_none() ? big : to_scalar(posinf, "nan_to_num: posinf").to_double();
  p.c = neginf.is_none() ? -big : to_scalar(neginf, "nan_to_num: neginf").to_double();
  p.has_a = p.has_b = true;
  return p;
}

UnaryParams params(double a, double b = 0) {
  UnaryParams p;
  p.a = a;
  p.b = b;
  p.has_a = p.has_b = true;
  return p;
}

// torch refuses a negative order with a RuntimeError (ArgumentError is one).
UnaryParams polygamma_params(int64_t n) {
  AK_CHECK(n >= 0, ValueError, "polygamma(n, x) does not support negative n, got n = ", n);
  return params(static_cast<double>(n));
}

void check_celu_alpha(double alpha) {
  AK_CHECK(alpha != 0, ValueError, "celu: alpha must not be 0 (it divides the input: ZeroDivisionError)");
}

}  // namespace

// a op other for a named method, a Python number taking the operators' road (bind_tensor.cpp).
// Declared here rather than in convert.h, which every binding file includes.
TensorPtr binary_any(BinaryOp op, const TensorPtr& a, py::handle other, const char* what);

void bind_math(py::module_& m, py::class_<Tensor, TensorPtr>& cls) {
  // ---- unary methods, each with its in-place form ----
#define AK_MATH_UNARY(name, OP, doc)                                                                       \
  cls.def(name, [](const TensorPtr& t) { return ops::unary(UnaryOp::OP, t); }, "Elementwise " doc ".");       \
  cls.def(name "_", [](const TensorPtr& t) { ops::unary_(UnaryOp::OP, t); return t; }, "In-place " name "; returns self.");
  AK_MATH_UNARY("tan", Tan, "tangent")
  AK_MATH_UNARY("asin", Asin, "arcsine") AK_MATH_UNARY("arcsin", Asin, "arcsine (alias of asin)")
  AK_MATH_UNARY("acos", Acos, "arccosine") AK_MATH_UNARY("arccos", Acos, "arccosine (alias of acos)")
  AK_MATH_UNARY("atan", Atan, "arctangent") AK_MATH_UNARY("arctan", Atan, "arctangent (alias of atan)")
  AK_MATH_UNARY("sinh", Sinh, "hyperbolic sine")
  AK_MATH_UNARY("cosh", Cosh, "hyperbolic cosine")
  AK_MATH_UNARY("asinh", Asinh, "inverse hyperbolic sine") AK_MATH_UNARY("arcsinh", Asinh, "asinh (alias)")
  AK_MATH_UNARY("acosh", Acosh, "inverse hyperbolic cosine") AK_MATH_UNARY("arccosh", Acosh, "acosh (alias)")
  AK_MATH_UNARY("atanh", Atanh, "inverse hyperbolic tangent") AK_MATH_UNARY("arctanh", Atanh, "atanh (alias)")
  AK_MATH_UNARY("log2", Log2, "base-2 logarithm")
  AK_MATH_UNARY("log10", Log10, "base-10 logarithm")
  AK_MATH_UNARY("exp2", Exp2, "2 ** x")
  AK_MATH_UNARY("trunc", Trunc, "rounding towards zero") AK_MATH_UNARY("fix", Trunc, "trunc (alias)")
  AK_MATH_UNARY("frac", Frac, "fractional part, x - trunc(x)")
  AK_MATH_UNARY("sgn", Sign, "sign (sgn is sign for real tensors)")
  AK_MATH_UNARY("bitwise_not", BitwiseNot, "bitwise not (logical not of a bool tensor)")
  // special functions (torch's algorithms, core/elementwise_math.h; real dtypes only)
  AK_MATH_UNARY("erf", Erf, "error function")
  AK_MATH_UNARY("erfc", Erfc, "complementary error function, 1 - erf(x) without cancellation")
  AK_MATH_UNARY("erfinv", Erfinv, "inverse error function (NaN outside [-1, 1], +-inf at +-1)")
  AK_MATH_UNARY("lgamma", Lgamma, "log |gamma(x)|")
  AK_MATH_UNARY("digamma", Digamma, "digamma, the derivative of lgamma (-inf at +0, +inf at -0, NaN at negative integers)")
  AK_MATH_UNARY("i0", I0, "modified Bessel function of the first kind, order 0")
#undef AK_MATH_UNARY
  cls.def("_special_i1", [](const TensorPtr& t) { return ops::unary(UnaryOp::I1, t); },
          "Modified Bessel function of the first kind, order 1 (aakaar.special.i1).");
  cls.def("polygamma", [](const TensorPtr& t, int64_t n) { return ops::unary(UnaryOp::Polygamma, t, polygamma_params(n)); },
          py::arg("n"), "The n-th derivative of digamma (n >= 0; n = 0 is digamma).");
  cls.def("polygamma_", [](const TensorPtr& t, int64_t n) {
    ops::unary_(UnaryOp::Polygamma, t, polygamma_params(n));
    return t;
  }, py::arg("n"), "In-place polygamma; returns self.");
#define AK_PREDICATE(name, OP, doc) \
  cls.def(name, [](const TensorPtr& t) { return ops::unary(UnaryOp::OP, t); }, "Bool tensor: " doc ".");
  AK_PREDICATE("isnan", IsNan, "where the element is NaN")
  AK_PREDICATE("isinf", IsInf, "where the element is +inf or -inf")
  AK_PREDICATE("isposinf", IsPosInf, "where the element is +inf")
  AK_PREDICATE("isneginf", IsNegInf, "where the element is -inf")
  AK_PREDICATE("isfinite", IsFinite, "where the element is neither infinite nor NaN")
#undef AK_PREDICATE
  cls.def("nan_to_num", [](const TensorPtr& t, py::handle nan, py::handle posinf, py::handle neginf) {
    return ops::unary(UnaryOp::NanToNum, t, nan_to_num_params(t, nan, posinf, neginf));
  }, py::arg("nan") = 0.0, py::arg("posinf") = py::none(), py::arg("neginf") = py::none(),
  "NaN, +inf and -inf replaced by nan, posinf and neginf (by default 0 and the dtype's largest and lowest values).");
  cls.def("nan_to_num_", [](const TensorPtr& t, py::handle nan, py::handle posinf, py::handle neginf) {
    ops::unary_(UnaryOp::NanToNum, t, nan_to_num_params(t, nan, posinf, neginf));
    return t;
  }, py::arg("nan") = 0.0, py::arg("posinf") = py::none(), py::arg("neginf") = py::none(), "In-place nan_to_num; returns self.");

  // ---- binary methods ----
#define AK_MATH_BINARY(name, OP, doc)                                                                               \
  cls.def(name, [](const TensorPtr& a, py::handle b) { return binary_any(BinaryOp::OP, a, b, name); }, \
          py::arg("other"), "Elementwise " doc ", with broadcasting and type promotion.");
#define AK_MATH_BINARY_(name, OP)                                                                        \
  cls.def(name "_", [](const TensorPtr& a, py::handle b) { return inplace(BinaryOp::OP, a, b, name "_"); }, \
          py::arg("other"), "In-place " name "; returns self.");
  AK_MATH_BINARY("atan2", Atan2, "atan2(self, other), the angle of the point (other, self)")
  AK_MATH_BINARY_("atan2", Atan2)
  AK_MATH_BINARY("arctan2", Atan2, "atan2 (alias)")
  AK_MATH_BINARY_("arctan2", Atan2)
  AK_MATH_BINARY("fmod", Fmod, "C's fmod: the remainder with the dividend's sign")
  AK_MATH_BINARY_("fmod", Fmod)
  AK_MATH_BINARY("copysign", Copysign, "magnitude of self with the sign of other")
  AK_MATH_BINARY_("copysign", Copysign)
  AK_MATH_BINARY("hypot", Hypot, "sqrt(self^2 + other^2), without overflow")
  AK_MATH_BINARY_("hypot", Hypot)
  AK_MATH_BINARY("fmax", Fmax, "maximum that ignores a NaN operand")
  AK_MATH_BINARY("fmin", Fmin, "minimum that ignores a NaN operand")
  AK_MATH_BINARY("logaddexp", LogAddExp, "log(exp(self) + exp(other)), computed stably")
  AK_MATH_BINARY("bitwise_and", BitwiseAnd, "bitwise and (integers and bool)")
  AK_MATH_BINARY_("bitwise_and", BitwiseAnd)
  AK_MATH_BINARY("bitwise_or", BitwiseOr, "bitwise or (integers and bool)")
  AK_MATH_BINARY_("bitwise_or", BitwiseOr)
  AK_MATH_BINARY("bitwise_xor", BitwiseXor, "bitwise xor (integers and bool)")
  AK_MATH_BINARY_("bitwise_xor", BitwiseXor)
  AK_MATH_BINARY("bitwise_left_shift", LeftShift, "self << other (0 for shifts past the width, as torch)")
  AK_MATH_BINARY_("bitwise_left_shift", LeftShift)
  AK_MATH_BINARY("bitwise_right_shift", RightShift, "self >> other (arithmetic for signed integers)")
  AK_MATH_BINARY_("bitwise_right_shift", RightShift)
#undef AK_MATH_BINARY
#undef AK_MATH_BINARY_
  // div with torch's rounding_mode (None: true division; 'trunc'; 'floor'), and its aliases.
  for (const char* name : {"div", "divide"}) {
    cls.def(name, [](const TensorPtr& a, py::handle b, py::handle rounding_mode) {
      return binary_any(div_op(rounding_mode), a, b, "div");
    }, py::arg("other"), py::kw_only(), py::arg("rounding_mode") = py::none(),
    "self / other; rounding_mode='trunc' rounds towards zero, 'floor' towards -inf (integers stay integers).");
    cls.def((std::string(name) + "_").c_str(), [](const TensorPtr& a, py::handle b, py::handle rounding_mode) {
      ops::binary_(div_op(rounding_mode), a, as_tensor(b, a, "div_"));
      return a;
    }, py::arg("other"), py::kw_only(), py::arg("rounding_mode") = py::none(), "In-place div; returns self.");
  }
  cls.def("true_divide", [](const TensorPtr& a, py::handle b) { return binary_any(BinaryOp::Div, a, b, "true_divide"); },
          py::arg("other"), "self / other in floating point (div with no rounding_mode).");

  // ---- operators: & | ^ on integers and bool (bitwise; logical for bool), ~, << and >> ----
#define AK_OPERATOR(pyname, rname, iname, OP)                                                                      \
  cls.def(pyname, [](const TensorPtr& a, py::handle b) { return binary_op(BinaryOp::OP, a, b, false); });          \
  cls.def(rname, [](const TensorPtr& a, py::handle b) { return binary_op(BinaryOp::OP, a, b, true); });            \
  cls.def(iname, [](const TensorPtr& a, py::handle b) { return inplace(BinaryOp::OP, a, b, iname); });
  AK_OPERATOR("__and__", "__rand__", "__iand__", BitwiseAnd)
  AK_OPERATOR("__or__", "__ror__", "__ior__", BitwiseOr)
  AK_OPERATOR("__xor__", "__rxor__", "__ixor__", BitwiseXor)
  AK_OPERATOR("__lshift__", "__rlshift__", "__ilshift__", LeftShift)
  AK_OPERATOR("__rshift__", "__rrshift__", "__irshift__", RightShift)
#undef AK_OPERATOR
  cls.def("__invert__", [](const TensorPtr& t) { return ops::unary(UnaryOp::BitwiseNot, t); },
          "~x: bitwise not of an integer tensor, logical not of a bool one.");

  // ---- activations (aakaar.nn.functional wraps these), each with an in-place form ----
#define AK_ACTIVATION(name, OP, doc)                                                               \
  m.def(name, [](const TensorPtr& t) { return ops::unary(UnaryOp::OP, t); }, py::arg("input"), doc); \
  m.def(name "_", [](const TensorPtr& t) { ops::unary_(UnaryOp::OP, t); return t; }, py::arg("input"), "In-place " name ".");
  AK_ACTIVATION("hardsigmoid", Hardsigmoid, "min(max(x + 3, 0), 6) / 6.")
  AK_ACTIVATION("hardswish", Hardswish, "x * min(max(x + 3, 0), 6) / 6.")
  AK_ACTIVATION("mish", Mish, "x * tanh(softplus(x)).")
  AK_ACTIVATION("selu", Selu, "scale * (x if x > 0 else alpha * (exp(x) - 1)), the self-normalising constants.")
  AK_ACTIVATION("logsigmoid", LogSigmoid, "log(sigmoid(x)), computed stably.")
#undef AK_ACTIVATION
  m.def("hardtanh", [](const TensorPtr& t, double lo, double hi) { return ops::unary(UnaryOp::Hardtanh, t, params(lo, hi)); },
        py::arg("input"), py::arg("min_val") = -1.0, py::arg("max_val") = 1.0,
        "x clamped to [min_val, max_val]; its gradient is 0 at the bounds (torch's).");
  m.def("hardtanh_", [](const TensorPtr& t, double lo, double hi) { ops::unary_(UnaryOp::Hardtanh, t, params(lo, hi)); return t; },
        py::arg("input"), py::arg("min_val") = -1.0, py::arg("max_val") = 1.0, "In-place hardtanh.");
  m.def("celu", [](const TensorPtr& t, double alpha) {
    check_celu_alpha(alpha);
    return ops::unary(UnaryOp::Celu, t, params(alpha));
  }, py::arg("input"), py::arg("alpha") = 1.0, "x if x > 0 else alpha * (exp(x / alpha) - 1).");
  m.def("celu_", [](const TensorPtr& t, double alpha) {
    check_celu_alpha(alpha);
    ops::unary_(UnaryOp::Celu, t, params(alpha));
    return t;
  }, py::arg("input"), py::arg("alpha") = 1.0, "In-place celu.");
  m.def("softshrink", [](const TensorPtr& t, double l) {
    AK_CHECK(l >= 0, ValueError, "softshrink: lambda must be greater or equal to 0, but found to be ", l, ".");
    return ops::unary(UnaryOp::Softshrink, t, params(l));
  }, py::arg("input"), py::arg("lambd") = 0.5, "x - lambd above lambd, x + lambd below -lambd, 0 between.");
  m.def("hardshrink", [](const TensorPtr& t, double l) { return ops::unary(UnaryOp::Hardshrink, t, params(l)); },
        py::arg("input"), py::arg("lambd") = 0.5, "x outside [-lambd, lambd], 0 inside.");
  m.def("threshold", [](const TensorPtr& t, double th, double value) {
    return ops::unary(UnaryOp::Threshold, t, params(th, value));
  }, py::arg("input"), py::arg("threshold"), py::arg("value"), "x where x > threshold, else value.");
  m.def("threshold_", [](const TensorPtr& t, double th, double value) {
    ops::unary_(UnaryOp::Threshold, t, params(th, value));
    return t;
  }, py::arg("input"), py::arg("threshold"), py::arg("value"), "In-place threshold.");
}

}  // namespace aakaar::python
