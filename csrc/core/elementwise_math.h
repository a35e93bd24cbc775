// The scalar formulas of the maths API's elementwise ops (trigonometric and
// hyperbolic functions, nan_to_num, the activations of torch.nn.functional,
// atan2, fmod, bitwise shifts, ...): one definition for the CPU loops
// (csrc/cpu/elementwise_loops.h) and the CUDA kernels (csrc/cuda/elementwise_ops.cu),
// so the two devices cannot drift apart. Each formula is PyTorch's own, written
// the same way (the same operations in the same order), so that results agree
// with torch to the last bit or to the libm's last ulp.
//
// Like py_arith.h, everything has internal linkage: the CPU loops are compiled
// once per instruction set and each copy must keep its own code. The maths
// functions are called by their C names (tanf / tan, ...), which exist both in
// the host's libm and as CUDA device functions.
#pragma once
#include <cmath>
#include <cstdint>
#include <limits>
#include <type_traits>

#include "core/host_device.h"

namespace aakaar::emath {
namespace {

#define AK_EMATH_UNARY(name, f32, f64)                     \
  AK_HD float name(float x) { return f32(x); }             \
  AK_HD double name(double x) { return f64(x); }
AK_EMATH_UNARY(tan_, tanf, tan)
AK_EMATH_UNARY(asin_, asinf, asin)
AK_EMATH_UNARY(acos_, acosf, acos)
AK_EMATH_UNARY(atan_, atanf, atan)
AK_EMATH_UNARY(sinh_, sinhf, sinh)
AK_EMATH_UNARY(cosh_, coshf, cosh)
AK_EMATH_UNARY(asinh_, asinhf, asinh)
AK_EMATH_UNARY(acosh_, acoshf, acosh)
AK_EMATH_UNARY(atanh_, atanhf, atanh)
AK_EMATH_UNARY(log2_, log2f, log2)
AK_EMATH_UNARY(log10_, log10f, log10)
AK_EMATH_UNARY(exp2_, exp2f, exp2)
AK_EMATH_UNARY(trunc_, truncf, trunc)
AK_EMATH_UNARY(exp_, expf, exp)
AK_EMATH_UNARY(expm1_, expm1f, expm1)
AK_EMATH_UNARY(log1p_, log1pf, log1p)
AK_EMATH_UNARY(tanh_, tanhf, tanh)
AK_EMATH_UNARY(fabs_, fabsf, fabs)
#undef AK_EMATH_UNARY
#define AK_EMATH_BINARY(name, f32, f64)                          \
  AK_HD float name(float x, float y) { return f32(x, y); }       \
  AK_HD double name(double x, double y) { return f64(x, y); }
AK_EMATH_BINARY(atan2_, atan2f, atan2)
AK_EMATH_BINARY(fmod_, fmodf, fmod)
AK_EMATH_BINARY(hypot_, hypotf, hypot)
AK_EMATH_BINARY(copysign_, copysignf, copysign)
#undef AK_EMATH_BINARY

template <typename T>
AK_HD bool isnan_(T x) { return x != x; }

// ---- unary ---------------------------------------------------------------------

// x - trunc(x): NaN for +-inf, as torch's frac.
template <typename T>
AK_HD T frac(T x) { return x - trunc_(x); }

// torch.nan_to_num: NaN, +inf and -inf replaced (the op resolves the defaults).
template <typename T>
AK_HD T nan_to_num(T x, T nan, T posinf, T neginf) {
  if (x != x) return nan;
  if (x == std::numeric_limits<T>::infinity()) return posinf;
  if (x == -std::numeric_limits<T>::infinity()) return neginf;
  return x;
}

// min(max(v, lo), hi) with NaN kept, the order of torch's clamp.
template <typename T>
AK_HD T clamp_nan(T v, T lo, T hi) {
  if (v != v) return v;
  v = v < lo ? lo : v;
  return v > hi ? hi : v;
}

// torch: min(max(x + 3, 0), 6) / 6.
template <typename T>
AK_HD T hardsigmoid(T x) { return clamp_nan(x + T(3), T(0), T(6)) / T(6); }

// torch: x * min(max(x + 3, 0), 6) / 6.
template <typename T>
AK_HD T hardswish(T x) { return x * clamp_nan(x + T(3), T(0), T(6)) / T(6); }

// torch: x * tanh(log1p(exp(x))) -- exp overflowing to inf still gives x.
template <typename T>
AK_HD T mish(T x) { return x * tanh_(log1p_(exp_(x))); }

// torch's ELU kernel, x <= 0 ? expm1(x * input_scale) * neg_coef : x * pos_coef;
// selu is (alpha * scale, scale, 1), celu (alpha, 1, 1 / alpha).
constexpr double kSeluAlpha = 1.6732632423543772848170429916717;
constexpr double kSeluScale = 1.0507009873554804934193349852946;
template <typename T>
AK_HD T elu_general(T x, T neg_coef, T pos_coef, T input_scale) {
  return x <= T(0) ? expm1_(x * input_scale) * neg_coef : x * pos_coef;
}
template <typename T>
AK_HD T selu(T x) { return elu_general(x, T(kSeluAlpha * kSeluScale), T(kSeluScale), T(1)); }
template <typename T>
AK_HD T celu(T x, T alpha) { return elu_general(x, alpha, T(1), T(1) / alpha); }

// log(sigmoid(x)) = min(x, 0) - log1p(exp(-|x|)), stable for every x.
template <typename T>
AK_HD T log_sigmoid(T x) {
  const T m = x < T(0) ? x : T(0);
  return m - log1p_(exp_(-fabs_(x)));
}

// x - l above l, x + l below -l, 0 between; NaN stays NaN. (torch's float32 and float64
// kernels disagree on the sign of that 0; here it is always +0.)
template <typename T>
AK_HD T softshrink(T x, T l) { return x > l ? x - l : (x < -l ? x + l : (x != x ? x : T(0))); }

// torch: 0 on [-l, l], x elsewhere (NaN stays NaN).
template <typename T>
AK_HD T hardshrink(T x, T l) { return (x >= -l && x <= l) ? T(0) : x; }

// torch: x <= threshold ? value : x.
template <typename T>
AK_HD T threshold(T x, T th, T value) { return x <= th ? value : x; }

// ---- binary --------------------------------------------------------------------

// a / b rounded towards zero: torch's trunc(a / b) for floats, C's division for
// integers (division by zero is refused by the op; -1 is negation, which wraps).
template <typename T>
AK_HD T div_trunc(T a, T b) {
  if constexpr (std::is_floating_point_v<T>) {
    return trunc_(a / b);
  } else if constexpr (std::is_signed_v<T>) {
    if (b == 0) return T(0);
    if (b == T(-1)) return static_cast<T>(T(0) - static_cast<std::make_unsigned_t<T>>(a));
    return static_cast<T>(a / b);
  } else {
    return b == 0 ? T(0) : static_cast<T>(a / b);
  }
}

// C's fmod for floats, C's % for integers (the dividend's sign).
template <typename T>
AK_HD T fmod_any(T a, T b) {
  if constexpr (std::is_floating_point_v<T>) {
    return fmod_(a, b);
  } else if constexpr (std::is_signed_v<T>) {
    if (b == 0 || b == T(-1)) return T(0);
    return static_cast<T>(a % b);
  } else {
    return b == 0 ? T(0) : static_cast<T>(a % b);
  }
}

// torch.fmax / fmin: a NaN operand is ignored (NaN only when both are); of two equal
// values (0 and -0) the first is returned, as torch's kernel does.
template <typename T>
AK_HD T fmax_any(T a, T b) {
  if (isnan_(a)) return b;
  if (isnan_(b)) return a;
  return a >= b ? a : b;
}
template <typename T>
AK_HD T fmin_any(T a, T b) {
  if (isnan_(a)) return b;
  if (isnan_(b)) return a;
  return a <= b ? a : b;
}

// torch's logaddexp: log(exp(a) + exp(b)) = max + log1p(exp(-|a - b|)); two
// equal infinities give themselves (not inf - inf = NaN).
template <typename T>
AK_HD T logaddexp(T a, T b) {
  if (a == b && (a == std::numeric_limits<T>::infinity() || a == -std::numeric_limits<T>::infinity())) return a;
  const T m = a > b ? a : b;
  if (a != a || b != b) return a + b;
  return m + log1p_(exp_(-fabs_(a - b)));
}

// torch's shifts: a shift by a negative count or by the width or more gives 0
// (left) or fills with the sign bit (right), rather than C's undefined behaviour.
template <typename T>
AK_HD T left_shift(T a, T b) {
  using U = std::make_unsigned_t<T>;
  constexpr T width = static_cast<T>(sizeof(T) * 8);
  if (static_cast<std::make_signed_t<T>>(b) < 0 || b >= width) return T(0);
  return static_cast<T>(static_cast<U>(static_cast<U>(a) << b));
}
template <typename T>
AK_HD T right_shift(T a, T b) {
  constexpr T max_shift = static_cast<T>(sizeof(T) * 8 - (std::is_signed_v<T> ? 1 : 0));
  if (static_cast<std::make_signed_t<T>>(b) < 0 || b >= max_shift) return static_cast<T>(a >> max_shift);
  return static_cast<T>(a >> b);
}

}  // namespace
}  // namespace aakaar::emath
