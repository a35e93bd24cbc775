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
AK_EMATH_UNARY(erf_, erff, erf)
AK_EMATH_UNARY(erfc_, erfcf, erfc)
AK_EMATH_UNARY(lgamma_, lgammaf, lgamma)
AK_EMATH_UNARY(log_, logf, log)
AK_EMATH_UNARY(sqrt_, sqrtf, sqrt)
AK_EMATH_UNARY(floor_, floorf, floor)
AK_EMATH_UNARY(sin_, sinf, sin)
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

// ---- special functions (torch.special) -------------------------------------------
// PyTorch's own algorithms (aten/src/ATen/native/Math.h), so that values agree with
// torch to rounding: erfinv's rational start with two Newton steps, digamma's
// recurrence to x >= 10 and asymptotic series, polygamma through the Hurwitz zeta
// function (Cephes). I0 and I1 are summed from their power series in double (all
// terms positive, so the relative error stays a few ulps; the series is also what
// overflows where the function does).

template <typename T>
AK_HD T pi_() { return T(3.14159265358979323846); }

// torch's calc_erfinv: rational approximation, then two Newton-Raphson steps.
template <typename T>
AK_HD T erfinv(T y) {
  const T a[4] = {T(0.886226899), T(-1.645349621), T(0.914624893), T(-0.140543331)};
  const T b[4] = {T(-2.118377725), T(1.442710462), T(-0.329097515), T(0.012229801)};
  const T c[4] = {T(-1.970840454), T(-1.624906493), T(3.429567803), T(1.641345311)};
  const T d[2] = {T(3.543889200), T(1.637067800)};
  const T y_abs = fabs_(y);
  if (y_abs > T(1)) return std::numeric_limits<T>::quiet_NaN();
  if (y_abs == T(1)) return copysign_(std::numeric_limits<T>::infinity(), y);
  T x;
  if (y_abs <= T(0.7)) {
    const T z = y * y;
    const T num = ((a[3] * z + a[2]) * z + a[1]) * z + a[0];
    const T dem = (((b[3] * z + b[2]) * z + b[1]) * z + b[0]) * z + T(1);
    x = y * num / dem;
  } else {
    const T z = sqrt_(-log_((T(1) - y_abs) / T(2)));
    const T num = ((c[3] * z + c[2]) * z + c[1]) * z + c[0];
    const T dem = (d[1] * z + d[0]) * z + T(1);
    x = copysign_(num, y) / dem;
  }
  const T k = T(2) / sqrt_(pi_<T>());
  x = x - (erf_(x) - y) / (k * exp_(-x * x));
  x = x - (erf_(x) - y) / (k * exp_(-x * x));
  return x;
}

// torch's calc_digamma: +-inf at +-0 (sign opposite to the zero's), NaN at the negative
// integers, the reflection formula below 0, the recurrence up to 10, then the series.
template <typename T>
AK_HD T digamma(T x) {
  if (x == T(0)) return copysign_(std::numeric_limits<T>::infinity(), -x);
  if (x < T(0)) {
    if (x == trunc_(x)) return std::numeric_limits<T>::quiet_NaN();
    const T r = x - trunc_(x);  // tan(pi r) is more accurate than tan(pi x)
    return digamma(T(1) - x) - pi_<T>() / tan_(pi_<T>() * r);
  }
  T result = 0;
  while (x < T(10)) {
    result -= T(1) / x;
    x += T(1);
  }
  if (x == T(10)) return result + T(2.25175258906672110764);
  const T A[] = {T(8.33333333333333333333E-2), T(-2.10927960927960927961E-2), T(7.57575757575757575758E-3),
                 T(-4.16666666666666666667E-3), T(3.96825396825396825397E-3), T(-8.33333333333333333333E-3),
                 T(8.33333333333333333333E-2)};
  T y = 0;
  if (x < T(1.0e17)) {
    const T z = T(1) / (x * x);
    T p = A[0];
    for (int i = 1; i < 7; ++i) p = p * z + A[i];
    y = z * p;
  }
  return result + log_(x) - (T(0.5) / x) - y;
}

// torch's calc_trigamma (polygamma of order 1).
template <typename T>
AK_HD T trigamma(T x) {
  T sign = 1, result = 0;
  if (x < T(0.5)) {
    sign = -1;
    const T s = sin_(pi_<T>() * x);
    result -= (pi_<T>() * pi_<T>()) / (s * s);
    x = T(1) - x;
  }
  for (int i = 0; i < 6; ++i) {
    result += T(1) / (x * x);
    x += T(1);
  }
  const T ixx = T(1) / (x * x);
  result += (T(1) + T(1) / (T(2) * x) + ixx * (T(1) / T(6) - ixx * (T(1) / T(30) - ixx * (T(1) / T(42))))) / x;
  return sign * result;
}

// The Hurwitz zeta function zeta(x, q) = sum_k (k + q)^-x (Cephes, as torch; in double).
AK_HD double hurwitz_zeta(double x, double q) {
  const double machep = 1.11022302462515654042E-16;
  const double A[] = {12.0, -720.0, 30240.0, -1209600.0, 47900160.0, -1.8924375803183791606e9, 7.47242496e10,
                      -2.950130727918164224e12, 1.1646782814350067249e14, -4.5979787224074726105e15,
                      1.8152105401943546773e17, -7.1661652561756670113e18};
  if (x == 1.0) return std::numeric_limits<double>::infinity();
  if (x < 1.0) return std::numeric_limits<double>::quiet_NaN();
  if (q <= 0.0) {
    if (q == floor(q)) return std::numeric_limits<double>::infinity();
    if (x != floor(x)) return std::numeric_limits<double>::quiet_NaN();
  }
  double s = pow(q, -x), a = q, b = 0.0;
  int i = 0;
  while (i < 9 || a <= 9.0) {
    i += 1;
    a += 1.0;
    b = pow(a, -x);
    s += b;
    if (-machep * s < b && b < machep * s) return s;
  }
  const double w = a;
  s += b * w / (x - 1.0);
  s -= 0.5 * b;
  a = 1.0;
  double k = 0.0;
  for (int j = 0; j < 12; ++j) {
    a *= x + k;
    b /= w;
    double t = a * b / A[j];
    s = s + t;
    t = fabs(t / s);
    if (t < machep) return s;
    k += 1.0;
    a *= x + k;
    b /= w;
    k += 1.0;
  }
  return s;
}

// torch.polygamma(n, x): digamma for n = 0, trigamma for 1, else
// (-1)^(n+1) n! zeta(n + 1, x). n >= 0 is checked by the op.
template <typename T>
AK_HD T polygamma(T x, int n) {
  if (n == 0) return digamma(x);
  if (n == 1) return trigamma(x);
  const T sign = (n % 2) ? T(1) : T(-1);
  return sign * exp_(lgamma_(static_cast<T>(n) + T(1))) * static_cast<T>(hurwitz_zeta(double(n) + 1.0, double(x)));
}

// Modified Bessel functions of the first kind, orders 0 and 1, from their power series
// sum_k (x/2)^(2k + nu) / (k! (k + nu)!), summed in double until a term stops counting.
template <typename T>
AK_HD T bessel_i(T xt, int nu) {
  const double x = double(xt);
  if (x != x) return xt;
  // torch's Chebyshev expansions give NaN at +-inf (and inf / -inf for large finite x): so here too
  if (fabs(x) == std::numeric_limits<double>::infinity()) return std::numeric_limits<T>::quiet_NaN();
  const double h = 0.5 * x, q = h * h;
  double term = nu == 0 ? 1.0 : h, sum = term;
  for (int k = 1; k < 2000; ++k) {
    term *= q / (double(k) * double(k + nu));
    sum += term;
    if (fabs(term) <= 1e-17 * fabs(sum)) break;
  }
  return static_cast<T>(sum);
}

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
