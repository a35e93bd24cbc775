// Elementwise ops: broadcasting, type promotion, in-place rules.
#include <cmath>

#include "autograd/derivatives.h"
#include "autograd/grad_mode.h"
#include "core/default_dtype.h"
#include "core/error.h"
#include "core/shape.h"
#include "ops/ops.h"
#include "ops/reduced_float.h"

namespace aakaar::ops {

// PyTorch's rule for a 0-d tensor beside a dimensioned one (c10's combine_categories): the 0-d one
// only counts when it is of a higher kind (bool < integer < floating), as a Python number does:
// uint8 (3,) with an int64 0-d tensor is uint8, float16 (3,) with a float64 0-d tensor is float16,
// int8 (3,) with a float64 0-d tensor is float64. Two 0-d or two dimensioned tensors: the table.
DType result_type(const TensorPtr& a, const TensorPtr& b) {
  const bool a0 = a->ndim() == 0, b0 = b->ndim() == 0;
  if (a0 == b0) return promote_types(a->dtype, b->dtype);
  const DType dim = a0 ? b->dtype : a->dtype, zero = a0 ? a->dtype : b->dtype;
  if (is_floating(dim)) return dim;
  if (dim == DType::Bool || is_floating(zero)) return promote_types(dim, zero);
  return dim;
}

TensorPtr wrap_scalar(Scalar s, const TensorPtr& like) {
  // A Python number does not widen a tensor of its own kind (float32 + 2.5
  // stays float32), but a float number makes an integer tensor the default
  // floating dtype (float32 unless aakaar.set_default_dtype changed it).
  DType dt = like->dtype;
  AK_CHECK(!s.big_int || is_floating(dt), ValueError, "the integer ", s.f, " is too large for int64 (the ",
           dtype_name(dt), " tensor's operand); PyTorch refuses it too (Overflow when unpacking long)");
  if (s.kind == Scalar::Kind::Float && !is_floating(dt)) dt = default_dtype();
  else if (s.kind == Scalar::Kind::Int && dt == DType::Bool) dt = DType::Int64;
  return scalar_tensor(s, dt, like->device());
}

namespace {
// The largest finite value of a floating dtype (float64: none needed).
double float_max(DType t) {
  switch (t) {
    case DType::Float16: return 65504.0;
    case DType::BFloat16: return 3.3895313892515355e38;
    case DType::Float32: return 3.4028234663852886e38;
    default: return INFINITY;
  }
}
// An integer dtype's range, as doubles (int64's upper bound 2^63 is exclusive).
std::pair<double, double> int_range(DType t) {
  switch (t) {
    case DType::UInt8: return {0.0, 255.0};
    case DType::Int8: return {-128.0, 127.0};
    case DType::Int16: return {-32768.0, 32767.0};
    case DType::Int32: return {-2147483648.0, 2147483647.0};
    default: return {-9223372036854775808.0, 9223372036854775808.0};
  }
}
}  // namespace

void check_scalar_fits(Scalar s, DType dtype, const char* op) {
  bool fits = true;
  if (dtype == DType::Bool) {
    fits = true;  // anything is true or false
  } else if (is_floating(dtype)) {
    const double v = s.to_double();
    fits = !std::isfinite(v) || std::fabs(v) <= float_max(dtype);
  } else if (s.kind == Scalar::Kind::Float) {
    const auto [lo, hi] = int_range(dtype);
    fits = s.f >= lo && (dtype == DType::Int64 ? s.f < hi : s.f <= hi);  // NaN fails both tests
  } else if (dtype == DType::UInt8) {
    fits = s.i >= -255 && s.i <= 255;  // negatives wrap, as in PyTorch
  } else if (dtype != DType::Int64) {
    const auto [lo, hi] = int_range(dtype);
    fits = static_cast<double>(s.i) >= lo && static_cast<double>(s.i) <= hi;
  }
  AK_CHECK(fits, ValueError, op, ": value ", s.kind == Scalar::Kind::Float ? str(s.f) : str(s.i),
           " cannot be converted to type ", dtype_name(dtype), " without overflow");
}

bool is_whole(double v) { return std::isfinite(v) && v == std::trunc(v); }

namespace {

// PyTorch's rule: `-` with a bool operand is an error, not a silent int op.
void check_bool_sub(BinaryOp op, DType a, DType b) {
  AK_CHECK(!(op == BinaryOp::Sub && (a == DType::Bool || b == DType::Bool)), TypeError,
           "sub: subtraction with a bool operand is not supported (got ", dtype_name(a), " and ", dtype_name(b),
           "); to invert a mask use ~ or logical_not()");
}

bool is_comparison(BinaryOp op) {
  return op == BinaryOp::Eq || op == BinaryOp::Ne || op == BinaryOp::Lt || op == BinaryOp::Le || op == BinaryOp::Gt ||
         op == BinaryOp::Ge || op == BinaryOp::LogicalAnd || op == BinaryOp::LogicalOr || op == BinaryOp::LogicalXor;
}

const char* op_name(BinaryOp op) {
  static const char* names[] = {"add", "sub", "mul", "div", "floor_divide", "remainder", "pow", "maximum", "minimum",
                                "eq", "ne", "lt", "le", "gt", "ge", "logical_and", "logical_or", "logical_xor",
                                // maths API
                                "atan2", "fmod", "copysign", "hypot", "div", "fmax", "fmin", "logaddexp",
                                "bitwise_and", "bitwise_or", "bitwise_xor", "bitwise_left_shift", "bitwise_right_shift",
                                // special functions of two arguments
                                "special_zeta", "special_chebyshev_polynomial_t", "special_chebyshev_polynomial_u",
                                "special_chebyshev_polynomial_v", "special_chebyshev_polynomial_w",
                                "special_shifted_chebyshev_polynomial_t", "special_shifted_chebyshev_polynomial_u",
                                "special_shifted_chebyshev_polynomial_v", "special_shifted_chebyshev_polynomial_w",
                                "special_hermite_polynomial_h", "special_hermite_polynomial_he",
                                "special_laguerre_polynomial_l", "special_legendre_polynomial_p"};
  static_assert(sizeof(names) / sizeof(names[0]) == static_cast<int>(BinaryOp::LegendreP) + 1, "a BinaryOp lacks a name");
  return names[static_cast<int>(op)];
}

// The dtype the kernel computes in, after checking the op accepts it.
// The maths API's binary ops: which dtypes each takes (PyTorch's rules).
bool is_bitwise(BinaryOp op) {
  return op == BinaryOp::BitwiseAnd || op == BinaryOp::BitwiseOr || op == BinaryOp::BitwiseXor ||
         op == BinaryOp::LeftShift || op == BinaryOp::RightShift;
}
DType compute_dtype_math(BinaryOp op, DType promoted) {
  AK_CHECK(!((op == BinaryOp::Hypot || op == BinaryOp::LogAddExp) && !is_floating(promoted)), TypeError, op_name(op),
           ": not implemented for ", dtype_name(promoted), " (as in PyTorch); convert to a floating dtype first");
  // torch.special's functions of two arguments have no float16/bfloat16 kernels in torch either.
  AK_CHECK(!(op >= BinaryOp::Zeta && is_reduced_float(promoted)), NotImplementedError, '"', op_name(op),
           "_cpu\" not implemented for '", dtype_name(promoted), "' (as in PyTorch); convert to float32 first");
  AK_CHECK(!(is_bitwise(op) && is_floating(promoted)), TypeError, op_name(op), ": not implemented for ",
           dtype_name(promoted), "; bitwise ops take integer or bool tensors");
  AK_CHECK(!(promoted == DType::Bool && (op == BinaryOp::LeftShift || op == BinaryOp::RightShift ||
                                         op == BinaryOp::Fmod || op == BinaryOp::DivTrunc)),
           TypeError, op_name(op), " is not supported for two bool tensors; convert one with .to(aakaar.int64) first");
  return promoted;
}

// The result type of op on operands that promote to `promoted`: true division, atan2 and
// copysign of integers (or bools) give the default floating dtype, as in PyTorch.
DType op_result_type(BinaryOp op, DType promoted) {
  const bool floats_integers = op == BinaryOp::Div || op == BinaryOp::Atan2 || op == BinaryOp::Copysign ||
                               op >= BinaryOp::Zeta;  // the special functions (as torch.special's)
  return floats_integers && !is_floating(promoted) ? default_dtype() : promoted;
}

// float16 and bfloat16 compute in float32; binary() rounds the result back.
// `promoted` is op_result_type's answer.
DType compute_dtype(BinaryOp op, DType promoted) {
  if (op > BinaryOp::LogicalXor) {
    const DType d = compute_dtype_math(op, promoted);
    return is_reduced_float(d) ? DType::Float32 : d;
  }
  if (is_reduced_float(promoted)) return DType::Float32;
  if (promoted == DType::Bool)
    AK_CHECK(op != BinaryOp::Sub && op != BinaryOp::FloorDiv && op != BinaryOp::Mod && op != BinaryOp::Pow, TypeError,
             op_name(op), " is not supported for two bool tensors; convert one with .to(aakaar.int64) first");
  return promoted;
}

// Integer division by zero would kill the process (SIGFPE); check first.
// Whether any element of a bool tensor is true, read on the host: the one-element
// result of a reduction on the GPU is copied to the CPU before it is dereferenced.
bool any_true(const TensorPtr& mask) {
  TensorPtr r = reduce(ReduceOp::Any, mask, std::nullopt, false);
  if (r->device().type != DeviceType::CPU) r = to_device(r, Device{});
  return r->data<bool>()[0];
}

// (Nothing is computed for an empty result, so nothing is divided by zero: torch's rule too.)
void check_int_divisor(BinaryOp op, DType dt, const TensorPtr& b, const Shape& result) {
  if (is_floating(dt) || shape_numel(result) == 0) return;
  if (op == BinaryOp::FloorDiv || op == BinaryOp::Mod || op == BinaryOp::Fmod || op == BinaryOp::DivTrunc) {
    TensorPtr zero = binary_scalar(BinaryOp::Eq, b, Scalar::from_int(0), false);
    AK_CHECK(!any_true(zero), RuntimeError,
             "ZeroDivisionError: integer ", op_name(op), " by zero");
  }
  // A tensor of negative integer exponents is computed, as PyTorch does (int_pow truncates
  // 1 / base^-e: 2 ** -1 == 0); only a negative *number* is refused (binary_scalar).
}

bool can_cast(DType from, DType to) {
  if (is_floating(from) && !is_floating(to)) return false;
  if (from != DType::Bool && to == DType::Bool) return false;
  return true;
}

}  // namespace

// [[book:binary_op]]
TensorPtr binary(BinaryOp op, const TensorPtr& a, const TensorPtr& b) {
  check_same_device(a, b, op_name(op));
  check_bool_sub(op, a->dtype, b->dtype);
  const DType promoted = op_result_type(op, result_type(a, b)), dt = compute_dtype(op, promoted);
  const Shape shape = broadcast_shapes(a->shape, b->shape);
  TensorPtr ca = to_dtype(a, dt), cb = to_dtype(b, dt);
  check_int_divisor(op, dt, cb, shape);
  TensorPtr out = Tensor::empty(shape, is_comparison(op) ? DType::Bool : dt, a->device());
  if (ca->shape != shape) ca = expand(ca, shape);
  if (cb->shape != shape) cb = expand(cb, shape);
  backend(a->device()).binary(op, *out, *ca, *cb);
  if (is_floating(out->dtype) && autograd::should_record({&ca, &cb})) autograd::record_binary(op, out, ca, cb);
  // A float16/bfloat16 result: computed in float32, rounded once (PyTorch's CPU kernels do the same).
  return is_reduced_float(promoted) && !is_comparison(op) ? to_dtype(out, promoted) : out;
}
// [[/book:binary_op]]

void check_scalar_operand(BinaryOp op, DType a, const Scalar& b) {
  check_bool_sub(op, a, b.kind == Scalar::Kind::Bool ? DType::Bool : a);
  AK_CHECK(!(op == BinaryOp::Pow && !is_floating(a) && b.kind == Scalar::Kind::Int && b.i < 0),
           ValueError, "integers to negative integer powers are not allowed (", dtype_name(a), " tensor ** ",
           b.i, ")");
}

TensorPtr binary_scalar(BinaryOp op, const TensorPtr& a, Scalar b, bool reverse) {
  if (reverse)
    check_bool_sub(op, a->dtype, b.kind == Scalar::Kind::Bool ? DType::Bool : a->dtype);
  else
    check_scalar_operand(op, a->dtype, b);
  // An integer tensor that a float number (or true division) makes a 16-bit default dtype is
  // converted first, as PyTorch's common dtype is: the number then meets it as below.
  if (!is_floating(a->dtype) && is_reduced_float(default_dtype()) &&
      (b.kind == Scalar::Kind::Float || op == BinaryOp::Div) && !is_comparison(op))
    return binary_scalar(op, to_dtype(a, default_dtype()), b, reverse);
  // True division computes in float: wrapping the number in the tensor's
  // integer type first would corrupt it (uint8 tensor / -3 must not see 253).
  TensorPtr s = op == BinaryOp::Div && !is_floating(a->dtype) ? scalar_tensor(b, default_dtype(), a->device())
                                                              : wrap_scalar(b, a);
  // float16/bfloat16 with a float number, as PyTorch's CPU kernels do it: x * 0.1 (0.1 * x),
  // x / 0.1 and x // 0.1 take the number unrounded into their float32 computation; 0.1 / x is
  // reciprocal(x) * 0.1; every other op (x + 0.1, x - 0.1, 0.7 - x, x ** 0.5) rounds the
  // number to the tensor's dtype first (wrap_scalar).
  if (is_reduced_float(a->dtype) && b.kind == Scalar::Kind::Float && !b.big_int) {
    if (reverse && op == BinaryOp::Div) return binary_scalar(BinaryOp::Mul, unary(UnaryOp::Reciprocal, a), b, false);
    if (op == BinaryOp::Mul || (!reverse && (op == BinaryOp::Div || op == BinaryOp::FloorDiv))) {
      TensorPtr out = binary(op, to_dtype(a, DType::Float32), scalar_tensor(b, DType::Float32, a->device()));
      return to_dtype(out, a->dtype);
    }
  }
  return reverse ? binary(op, s, a) : binary(op, a, s);
}

void binary_(BinaryOp op, const TensorPtr& self, const TensorPtr& other) {
  check_same_device(self, other, op_name(op));
  check_bool_sub(op, self->dtype, other->dtype);
  // The result's dtype and shape are checked first, on every road: the autograd one below would
  // otherwise write a broadcast result into a smaller self (c.mul_(y) with y widening c).
  const DType dt = compute_dtype(op, op_result_type(op, result_type(self, other)));
  const DType out_dt = is_comparison(op) ? DType::Bool : dt;
  AK_CHECK(can_cast(out_dt, self->dtype), TypeError, op_name(op), "_: result type ", dtype_name(out_dt),
           " can't be cast to the desired output type ", dtype_name(self->dtype));
  const Shape shape = broadcast_shapes(self->shape, other->shape);
  AK_CHECK(shape == self->shape, ValueError, op_name(op), "_: output with shape ", shape_str(self->shape),
           " doesn't match the broadcast shape ", shape_str(shape));
  if (autograd::inplace_needs_history(self, {&other})) {
    AK_CHECK(!is_comparison(op), RuntimeError, op_name(op), "_: in-place comparison on a tensor in the autograd graph");
    return autograd::inplace_with_history(self, op_name(op), [&] { return binary(op, clone(self), other); });
  }
  check_no_internal_overlap(self, op_name(op));
  TensorPtr b = to_dtype(other, dt);
  check_int_divisor(op, dt, b, shape);
  // Reading `other` while writing `self` is safe only if they are the same
  // view or do not share memory; otherwise work from a copy.
  if (b->storage == self->storage && (b->offset != self->offset || b->strides != self->strides)) b = clone(b);
  b = expand(b, shape);
  if (self->dtype == dt && out_dt == dt) {
    backend(self->device()).binary(op, *self, *self, *b);
  } else {
    TensorPtr tmp = Tensor::empty(shape, out_dt, self->device());
    backend(self->device()).binary(op, *tmp, *to_dtype(self, dt), *b);
    backend(self->device()).copy(*self, *tmp);
  }
  self->storage->bump_version();
}

namespace {
// torch's rule: an integer (or bool) result takes an integer alpha (2.5 * an
// int64 tensor has no int64 answer), and a bool alpha only a bool result
// (True * 3 has no meaning torch gives it). A bool result takes any integer
// alpha: a + alpha * b is then a or (b and alpha != 0), as in torch.
void check_alpha(BinaryOp op, DType a, DType b, DType result, Scalar alpha) {
  AK_CHECK(op == BinaryOp::Add || op == BinaryOp::Sub, ValueError, "alpha is taken by add and sub only");
  check_bool_sub(op, a, b);
  AK_CHECK(is_floating(result) || alpha.kind != Scalar::Kind::Float, TypeError, op_name(op),
           "(): alpha must be an integer for an integer (", dtype_name(result), ") result, got ", alpha.f);
  AK_CHECK(result == DType::Bool || alpha.kind != Scalar::Kind::Bool, RuntimeError, op_name(op),
           "(): a bool alpha is only supported for a bool result, not ", dtype_name(result));
}

// alpha == 1, or (a bool result) any nonzero alpha: a plain a + b.
bool alpha_is_one(Scalar alpha, DType result) {
  return alpha.kind != Scalar::Kind::Float && (alpha.i == 1 || (result == DType::Bool && alpha.i != 0));
}

// The factor of b in a + factor * b.
double signed_alpha(BinaryOp op, Scalar alpha) { return op == BinaryOp::Sub ? -alpha.to_double() : alpha.to_double(); }

// Whether the device's backend has the one-pass a + alpha * b for this dtype.
bool fused_alpha(DType dt, const Device& device) {
  return backend(device).add_scaled && (dt == DType::Float32 || dt == DType::Float64);
}
}  // namespace

TensorPtr binary_alpha(BinaryOp op, const TensorPtr& a, const TensorPtr& b, Scalar alpha) {
  check_same_device(a, b, op_name(op));
  const DType dt = result_type(a, b);
  check_alpha(op, a->dtype, b->dtype, dt, alpha);
  if (alpha_is_one(alpha, dt)) return binary(op, a, b);
  if (dt == DType::Bool)  // a or (b and False): a, broadcast against b
    return binary(BinaryOp::LogicalOr, a, binary_scalar(BinaryOp::LogicalAnd, b, Scalar::from_bool(false), false));
  if (fused_alpha(dt, a->device()) && !autograd::should_record({&a, &b})) {
    const Shape shape = broadcast_shapes(a->shape, b->shape);
    TensorPtr out = Tensor::empty(shape, dt, a->device());
    backend(a->device()).add_scaled(*out, *expand(to_dtype(a, dt), shape), *expand(to_dtype(b, dt), shape),
                              signed_alpha(op, alpha));
    return out;
  }
  // alpha * b in the result dtype: in b's own (uint8) it would wrap (254 * 2 = 252).
  return binary(op, a, binary_scalar(BinaryOp::Mul, to_dtype(b, dt), alpha, false));
}

void binary_alpha_(BinaryOp op, const TensorPtr& self, const TensorPtr& other, Scalar alpha) {
  check_same_device(self, other, op_name(op));
  const DType dt = result_type(self, other);
  check_alpha(op, self->dtype, other->dtype, dt, alpha);
  if (alpha_is_one(alpha, dt)) return binary_(op, self, other);
  if (dt == DType::Bool)  // self |= other and False: nothing changes, but the shapes are checked
    return binary_(BinaryOp::LogicalOr, self, binary_scalar(BinaryOp::LogicalAnd, other, Scalar::from_bool(false), false));
  const bool same_memory = other->storage == self->storage;
  const bool same_view = same_memory && other->offset == self->offset && other->strides == self->strides;
  if (fused_alpha(self->dtype, self->device()) && other->dtype == self->dtype && (!same_memory || same_view) &&
      !autograd::inplace_needs_history(self, {&other}) &&
      broadcast_shapes(self->shape, other->shape) == self->shape && !has_internal_overlap(*self)) {
    backend(self->device()).add_scaled(*self, *self, *expand(other, self->shape), signed_alpha(op, alpha));
    self->storage->bump_version();
    return;
  }
  // Everything else (shapes that do not fit, dtype casts, graph history, other
  // devices) keeps binary_'s checks and messages; alpha * other is one temporary.
  // alpha * other in the dtype the op computes in, as out-of-place add does:
  // in other's own dtype (uint8) it would wrap (254 * 2 = 252).
  binary_(op, self, binary_scalar(BinaryOp::Mul, to_dtype(other, result_type(self, other)), alpha, false));
}

namespace {
void check_lerp(const TensorPtr& self, const TensorPtr& end, const TensorPtr& weight) {
  check_same_device(self, end, "lerp");
  AK_CHECK(is_floating(self->dtype), TypeError, "lerp: expected a floating-point tensor, got ",
           dtype_name(self->dtype));
  AK_CHECK(end->dtype == self->dtype, TypeError, "lerp: expected dtype ", dtype_name(self->dtype),
           " for `end` but got dtype ", dtype_name(end->dtype));
  if (weight) {
    check_same_device(self, weight, "lerp");
    AK_CHECK(weight->dtype == self->dtype, TypeError, "lerp: expected dtype ", dtype_name(self->dtype),
             " for `weight` but got dtype ", dtype_name(weight->dtype));
  }
}

// weight * (end - self), recorded like any other ops (the autograd path and
// the tensor weight).
TensorPtr lerp_step(const TensorPtr& self, const TensorPtr& end, const TensorPtr& weight, double w) {
  const TensorPtr diff = binary(BinaryOp::Sub, end, self);
  return weight ? binary(BinaryOp::Mul, weight, diff) : binary_scalar(BinaryOp::Mul, diff, Scalar::from_double(w), false);
}
}  // namespace

TensorPtr lerp(const TensorPtr& self, const TensorPtr& end, const TensorPtr& weight, double w) {
  check_lerp(self, end, weight);
  if (weight) return binary(BinaryOp::Add, self, lerp_step(self, end, weight, w));
  // float16/bfloat16 with a number weight: computed in float32 and rounded once, as PyTorch's lerp
  // computes 16-bit floats (the lerp_scalar kernels are float32 and float64 only).
  if (is_reduced_float(self->dtype)) return to_dtype(lerp(as_float32(self), as_float32(end), nullptr, w), self->dtype);
  // A number weight: one node, LerpBackward, that keeps w itself (PyTorch's LerpBackward0).
  const Shape shape = broadcast_shapes(self->shape, end->shape);
  const TensorPtr a = expand(self, shape), b = expand(end, shape);
  TensorPtr out;
  if (backend(self->device()).lerp_scalar) {
    out = Tensor::empty(shape, self->dtype, self->device());
    backend(self->device()).lerp_scalar(*out, *a, *b, w);
  } else {
    autograd::GradModeGuard composite_unrecorded(false);
    out = binary(BinaryOp::Add, a, lerp_step(a, b, nullptr, w));
  }
  if (autograd::should_record({&a, &b})) autograd::record_lerp_scalar(out, a, b, w);
  return out;
}

void lerp_(const TensorPtr& self, const TensorPtr& end, const TensorPtr& weight, double w) {
  check_lerp(self, end, weight);
  const bool same_memory = end->storage == self->storage;
  const bool same_view = same_memory && end->offset == self->offset && end->strides == self->strides;
  if (!weight && backend(self->device()).lerp_scalar && (!same_memory || same_view) &&
      !autograd::inplace_needs_history(self, {&end}) &&
      broadcast_shapes(self->shape, end->shape) == self->shape && !has_internal_overlap(*self)) {
    if (is_reduced_float(self->dtype)) {  // in float32, rounded once (see lerp)
      autograd::GradModeGuard unrecorded(false);
      copy_(self, lerp(as_float32(self), as_float32(end), nullptr, w));
    } else {
      backend(self->device()).lerp_scalar(*self, *self, *expand(end, self->shape), w);
    }
    self->storage->bump_version();
    return;
  }
  // Everything else keeps binary_'s checks (shape, overlap, graph history):
  // weight * (end - self) is computed first, from the old self.
  binary_(BinaryOp::Add, self, lerp_step(self, end, weight, w));
}

namespace {
bool needs_float(UnaryOp op) {
  switch (op) {
    case UnaryOp::Exp: case UnaryOp::Log: case UnaryOp::Log1p: case UnaryOp::Expm1: case UnaryOp::Sqrt:
    case UnaryOp::Rsqrt: case UnaryOp::Sin: case UnaryOp::Cos: case UnaryOp::Tanh: case UnaryOp::Sigmoid:
    case UnaryOp::Gelu: case UnaryOp::GeluTanh: case UnaryOp::Silu: case UnaryOp::Softplus:
    case UnaryOp::Reciprocal: case UnaryOp::Elu: case UnaryOp::LeakyRelu:
    // maths API
    case UnaryOp::Tan: case UnaryOp::Asin: case UnaryOp::Acos: case UnaryOp::Atan: case UnaryOp::Sinh:
    case UnaryOp::Cosh: case UnaryOp::Asinh: case UnaryOp::Acosh: case UnaryOp::Atanh: case UnaryOp::Log2:
    case UnaryOp::Log10: case UnaryOp::Exp2:
    // special functions: integers give float32, as in PyTorch
    case UnaryOp::Erf: case UnaryOp::Erfc: case UnaryOp::Erfinv: case UnaryOp::Lgamma: case UnaryOp::Digamma:
    case UnaryOp::Polygamma: case UnaryOp::I0: case UnaryOp::I1:
      return true;
    case UnaryOp::AiryAi: case UnaryOp::BesselJ0: case UnaryOp::BesselJ1: case UnaryOp::BesselY0:
    case UnaryOp::BesselY1: case UnaryOp::ModifiedBesselI0: case UnaryOp::ModifiedBesselI1:
    case UnaryOp::ModifiedBesselK0: case UnaryOp::ModifiedBesselK1: case UnaryOp::ScaledModifiedBesselK0:
    case UnaryOp::ScaledModifiedBesselK1: case UnaryOp::SphericalBesselJ0: case UnaryOp::I0e: case UnaryOp::I1e:
    case UnaryOp::Erfcx:
      return true;
    default:
      return false;
  }
}
// Clamping integers to a fractional (or NaN, inf) bound gives floats.
bool fractional_clamp(UnaryOp op, UnaryParams p) {
  return op == UnaryOp::Clamp && ((p.has_a && !is_whole(p.a)) || (p.has_b && !is_whole(p.b)));
}

// ---- maths API (unary): dtype rules of the ops after Erf ----
// The activations take floating tensors only (PyTorch has no integer kernel for them either).
bool float_only(UnaryOp op) {
  switch (op) {
    case UnaryOp::Frac: case UnaryOp::Hardsigmoid: case UnaryOp::Hardswish: case UnaryOp::Hardtanh:
    case UnaryOp::Mish: case UnaryOp::Selu: case UnaryOp::Celu: case UnaryOp::LogSigmoid: case UnaryOp::Softshrink:
    case UnaryOp::Hardshrink: case UnaryOp::Threshold:
      return true;
    default:
      return false;
  }
}
bool is_predicate(UnaryOp op) {
  return op == UnaryOp::IsNan || op == UnaryOp::IsInf || op == UnaryOp::IsPosInf || op == UnaryOp::IsNegInf ||
         op == UnaryOp::IsFinite;
}
const char* unary_math_name(UnaryOp op) {
  switch (op) {
    case UnaryOp::Frac: return "frac";
    case UnaryOp::Hardsigmoid: return "hardsigmoid";
    case UnaryOp::Hardswish: return "hardswish";
    case UnaryOp::Hardtanh: return "hardtanh";
    case UnaryOp::Mish: return "mish";
    case UnaryOp::Selu: return "selu";
    case UnaryOp::Celu: return "celu";
    case UnaryOp::LogSigmoid: return "log_sigmoid";
    case UnaryOp::Softshrink: return "softshrink";
    case UnaryOp::Hardshrink: return "hardshrink";
    case UnaryOp::Threshold: return "threshold";
    case UnaryOp::BitwiseNot: return "bitwise_not";
    default: return "unary op";
  }
}
// The checks of the maths API's unary ops; an answer without a kernel (a predicate or
// nan_to_num of integers: nothing is NaN or infinite) is returned here.
TensorPtr unary_math_precheck(UnaryOp op, const TensorPtr& t) {
  // The Bessel and Airy functions and erfcx have no float16/bfloat16 kernels in torch (i0e, i1e do).
  AK_CHECK(!(op >= UnaryOp::AiryAi && op != UnaryOp::I0e && op != UnaryOp::I1e && is_reduced_float(t->dtype)),
           NotImplementedError, "this torch.special function is not implemented for ", dtype_name(t->dtype),
           " (as in PyTorch); convert to float32 first");
  AK_CHECK(!(float_only(op) && !is_floating(t->dtype)), TypeError, unary_math_name(op), ": not implemented for ",
           dtype_name(t->dtype), " (as in PyTorch); convert to a floating dtype first");
  AK_CHECK(!(op == UnaryOp::BitwiseNot && is_floating(t->dtype)), TypeError,
           "bitwise_not (~): not implemented for ", dtype_name(t->dtype), "; it takes integer or bool tensors");
  if (is_floating(t->dtype)) return nullptr;
  if (is_predicate(op)) return full(t->shape, Scalar::from_bool(op == UnaryOp::IsFinite), DType::Bool, t->device());
  if (op == UnaryOp::NanToNum) return clone(t);
  return nullptr;
}
}  // namespace

TensorPtr unary(UnaryOp op, const TensorPtr& t, UnaryParams p) {
  if (op > UnaryOp::Erf)
    if (TensorPtr answer = unary_math_precheck(op, t)) return answer;
  AK_CHECK(!(op == UnaryOp::Neg && t->dtype == DType::Bool), TypeError,
           "negation, the `-` operator, on a bool tensor is not supported; use logical_not() or ~ instead");
  // relu and abs of a bool: PyTorch refuses both (a RuntimeError there; our TypeError is one too).
  AK_CHECK(!((op == UnaryOp::Relu || op == UnaryOp::Abs) && t->dtype == DType::Bool), TypeError,
           op == UnaryOp::Relu ? "relu" : "abs", ": not supported for bool tensors (as in PyTorch); convert first, "
           "e.g. x.to(aakaar.uint8)");
  // Rounding a bool: PyTorch has no kernel for it (NotImplementedError, a RuntimeError), so neither do we
  // (it would be the identity; refusing keeps code that runs here running there).
  const bool rounding = op == UnaryOp::Floor || op == UnaryOp::Ceil || op == UnaryOp::Round || op == UnaryOp::Trunc;
  AK_CHECK(!(rounding && t->dtype == DType::Bool), NotImplementedError, "floor/ceil/round/trunc: not implemented for "
           "bool tensors (as in PyTorch); convert first, e.g. x.to(aakaar.uint8)");
  // Integers made floating (exp of an int64 tensor; clamped to a fractional bound) become the
  // default floating dtype, as in PyTorch; a 16-bit default then takes the branch below.
  if (!is_floating(t->dtype) && (needs_float(op) || fractional_clamp(op, p)))
    return unary(op, to_dtype(t, default_dtype()), p);
  if (is_reduced_float(t->dtype))  // computed in float32, rounded once (as PyTorch's CPU kernels)
    return op == UnaryOp::LogicalNot || is_predicate(op) ? unary(op, to_dtype(t, DType::Float32), p)
                                     : to_dtype(unary(op, to_dtype(t, DType::Float32), p), t->dtype);
  TensorPtr in = t;
  if (op == UnaryOp::Square && t->dtype == DType::Bool) in = to_dtype(t, DType::Int64);  // as PyTorch
  const bool to_bool = op == UnaryOp::LogicalNot || is_predicate(op);
  TensorPtr out = Tensor::empty(in->shape, to_bool ? DType::Bool : in->dtype, in->device());
  backend(in->device()).unary(op, *out, *in, p);
  if (is_floating(out->dtype) && autograd::should_record({&in})) autograd::record_unary(op, out, in, p);
  return out;
}

void unary_(UnaryOp op, const TensorPtr& t, UnaryParams p) {
  AK_CHECK(!is_predicate(op), TypeError, "a predicate (isnan, isinf, ...) has no in-place form");
  if (op > UnaryOp::Erf && unary_math_precheck(op, t)) return;  // nan_to_num_ of integers: nothing to change
  // logical_not_ of a non-bool tensor writes 1s and 0s in its own dtype, as PyTorch's does.
  if (op == UnaryOp::LogicalNot && t->dtype != DType::Bool) return copy_(t, unary(op, t, p));
  if (is_reduced_float(t->dtype)) return copy_(t, unary(op, t, p));
  if (autograd::inplace_needs_history(t, {}))
    return autograd::inplace_with_history(t, "unary op", [&] { return unary(op, clone(t), p); });
  AK_CHECK(!(needs_float(op) && !is_floating(t->dtype)), TypeError,
           "in-place op on a ", dtype_name(t->dtype), " tensor would need a floating-point result; use the "
           "out-of-place version");
  AK_CHECK(!(fractional_clamp(op, p) && !is_floating(t->dtype)),
           TypeError, "clamp_: a fractional, infinite or NaN bound (", p.has_a ? p.a : p.b, ") gives a float result, "
           "which can't be cast to the ", dtype_name(t->dtype), " tensor written in place");
  check_no_internal_overlap(t, "in-place unary op");
  backend(t->device()).unary(op, *t, *t, p);
  t->storage->bump_version();
}

TensorPtr where(const TensorPtr& cond, const TensorPtr& a, const TensorPtr& b) {
  AK_CHECK(cond->dtype == DType::Bool, TypeError, "where: condition must be a bool tensor, got ",
           dtype_name(cond->dtype));
  check_same_device(cond, a, "where");
  check_same_device(a, b, "where");
  const DType dt = result_type(a, b);
  const Shape shape = broadcast_shapes({cond->shape, a->shape, b->shape});
  TensorPtr out = Tensor::empty(shape, dt, a->device());
  TensorPtr ec = expand(cond, shape), ea = expand(to_dtype(a, dt), shape), eb = expand(to_dtype(b, dt), shape);
  backend(a->device()).where(*out, *ec, *ea, *eb);
  if (is_floating(dt) && autograd::should_record({&ea, &eb})) autograd::record_where(out, ec, ea, eb);
  return out;
}

TensorPtr clamp_tensor(const TensorPtr& t, const TensorPtr& lo, const TensorPtr& hi) {
  AK_CHECK(lo || hi, ValueError, "clamp: at least one of min and max must be given");
  DType dt = t->dtype;
  std::vector<Shape> shapes{t->shape};
  for (const TensorPtr& b : {lo, hi})
    if (b) {
      check_same_device(t, b, "clamp");
      dt = promote_types(dt, b->dtype);
      shapes.push_back(b->shape);
    }
  const Shape shape = broadcast_shapes(shapes);
  const auto prepare = [&](const TensorPtr& v) { return v ? expand(to_dtype(v, dt), shape) : nullptr; };
  const TensorPtr x = prepare(t), l = prepare(lo), h = prepare(hi);
  TensorPtr out = x;
  {
    autograd::GradModeGuard no_grad(false);  // the values; the gradient is recorded below as one node
    if (l) out = binary(BinaryOp::Maximum, out, l);
    if (h) out = binary(BinaryOp::Minimum, out, h);
  }
  if (is_floating(dt) && autograd::should_record({&x, &l, &h})) autograd::record_clamp_tensor(out, x, l, h);
  return out;
}

TensorPtr masked_fill(const TensorPtr& t, const TensorPtr& mask, Scalar value) {
  AK_CHECK(mask->dtype == DType::Bool, TypeError, "masked_fill: mask must be a bool tensor, got ",
           dtype_name(mask->dtype));
  const Shape shape = broadcast_shapes(t->shape, mask->shape);
  AK_CHECK(shape == t->shape, ValueError, "masked_fill: mask of shape ", shape_str(mask->shape),
           " does not broadcast to the tensor's shape ", shape_str(t->shape));
  AK_CHECK(!(value.kind == Scalar::Kind::Float && !is_floating(t->dtype)), TypeError,
           "masked_fill: cannot fill a ", dtype_name(t->dtype), " tensor with the float value ", value.f);
  check_scalar_fits(value, t->dtype, "masked_fill");
  return where(mask, scalar_tensor(value, t->dtype, t->device()), t);
}

}  // namespace aakaar::ops
