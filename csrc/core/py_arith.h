// Python's integer and float arithmetic where it differs from C's: floor
// division (the quotient rounded towards -inf), modulo (the result takes the
// divisor's sign), and integer powers. One definition for the CPU loops
// (csrc/cpu/elementwise_loops.h) and the CUDA kernels (csrc/cuda/device_math.cuh),
// so the two devices cannot drift apart.
//
// Everything here has internal linkage (an unnamed namespace): the CPU loops
// are compiled once per instruction set (baseline, AVX2, AVX-512) and each
// copy must keep its own code -- a shared inline function could be linked
// from the AVX-512 build into the baseline one. The maths functions are the C
// library's names (fmodf / fmod, ...), which exist both in the host's libm and
// as CUDA device functions.
#pragma once
#include <cmath>
#include <cstdint>
#include <type_traits>

#include "core/half.h"
#include "core/host_device.h"


namespace aakaar::py_arith {
namespace {

AK_HD float fmod_(float a, float b) { return fmodf(a, b); }
AK_HD double fmod_(double a, double b) { return fmod(a, b); }
AK_HD float copysign_(float a, float b) { return copysignf(a, b); }
AK_HD double copysign_(double a, double b) { return copysign(a, b); }
AK_HD float floor_(float a) { return floorf(a); }
AK_HD double floor_(double a) { return floor(a); }

// a // b. Integer division by zero never reaches here (the op refuses it);
// 0 keeps a stray one harmless instead of a trap.
template <typename T>
AK_HD T floor_div(T a, T b) {
  if constexpr (std::is_floating_point_v<T>) {
    if (b == 0) return a / b;
    const T mod = fmod_(a, b);
    T div = (a - mod) / b;
    if (mod != 0 && ((b < 0) != (mod < 0))) div -= 1;
    if (div == 0) return copysign_(T(0), a / b);
    T fl = floor_(div);
    if (div - fl > T(0.5)) fl += 1;
    return fl;
  } else {
    if (b == 0) return T(0);
    if constexpr (std::is_signed_v<T>) {
      if (b == -1) return static_cast<T>(0 - static_cast<std::make_unsigned_t<T>>(a));  // no INT_MIN / -1 trap
      T q = a / b;
      if ((a % b != 0) && ((a < 0) != (b < 0))) --q;
      return q;
    } else {
      return a / b;
    }
  }
}

// a % b with the divisor's sign. A zero result keeps fmod's sign (the dividend's), as
// torch.remainder does (Python's % would give the divisor's: -0.0 % 1 is 0.0 there).
template <typename T>
AK_HD T py_mod(T a, T b) {
  if constexpr (std::is_floating_point_v<T>) {
    T r = fmod_(a, b);
    if (r != 0 && ((r < 0) != (b < 0))) r += b;
    return r;
  } else {
    if (b == 0) return T(0);
    if constexpr (std::is_signed_v<T>) {
      if (b == -1) return 0;
      T r = a % b;
      if (r != 0 && ((r < 0) != (b < 0))) r += b;
      return r;
    } else {
      return a % b;
    }
  }
}

// Integer +, - and * that wrap around on overflow as PyTorch's do (two's
// complement), with defined behaviour: signed overflow is undefined in C++,
// so the arithmetic is done on the unsigned type of the same width (where
// wrapping is defined) and converted back (defined modulo 2^N since C++20,
// and what every compiler we build with does before that).
template <typename T, bool = std::is_integral_v<T> && !std::is_same_v<T, bool>>
struct wrap_type { using type = T; };  // floats and bool: the type itself
template <typename T>
struct wrap_type<T, true> { using type = std::make_unsigned_t<T>; };
template <typename T>
using wrap_type_t = typename wrap_type<T>::type;
template <typename T>
AK_HD T wrap_add(T a, T b) {
  using U = wrap_type_t<T>;
  return static_cast<T>(static_cast<U>(static_cast<U>(a) + static_cast<U>(b)));
}
template <typename T>
AK_HD T wrap_sub(T a, T b) {
  using U = wrap_type_t<T>;
  return static_cast<T>(static_cast<U>(static_cast<U>(a) - static_cast<U>(b)));
}
template <typename T>
AK_HD T wrap_mul(T a, T b) {
  using U = wrap_type_t<T>;
  // uint8 * uint8 would promote to (signed) int; 255 * 255 fits, but the
  // unsigned type of uint8 is itself, so promote explicitly to unsigned int.
  using P = std::conditional_t<(sizeof(U) < sizeof(unsigned)), unsigned, U>;
  return static_cast<T>(static_cast<U>(static_cast<P>(static_cast<U>(a)) * static_cast<P>(static_cast<U>(b))));
}

// base ** exp for integers, by squaring, wrapping around like the integer type does (with
// defined arithmetic). A negative exponent gives PyTorch's answer, 1 / base^-exp truncated
// towards zero: 1 for base 1, +-1 for base -1 (by the exponent's parity), 0 otherwise.
template <typename T>
AK_HD T int_pow(T base, T exp) {
  if constexpr (std::is_signed_v<T>) {
    if (exp < 0) {
      if (base == 1) return 1;
      if (base == -1) return (exp & 1) ? static_cast<T>(-1) : static_cast<T>(1);
      return 0;
    }
  }
  T result = 1;
  while (exp > 0) {
    if (exp & 1) result = wrap_mul(result, base);
    base = wrap_mul(base, base);
    exp >>= 1;
  }
  return result;
}

// [[book:convert_value]]
// One element converted to another dtype, with defined behaviour for every
// input. A float that does not fit the integer type (NaN, +-inf, 1e300) is
// undefined behaviour in a C++ cast; PyTorch's kernels do that cast and on
// x86 the hardware answers with INT64_MIN. We give that same answer, on
// purpose and on every device: float -> int64 is INT64_MIN when out of range,
// float -> uint8 goes through int64 and wraps (as PyTorch's does, so -1.0
// becomes 255); float -> int32, int16 and int8 go through int32 (the x86
// conversion PyTorch's casts compile to), INT32_MIN when out of its range, then
// keep the low bits (so 40000.0 is -25536 in int16, and 3e9 is 0); anything ->
// bool is "nonzero" (NaN is true); float16 and bfloat16 convert through float32.
template <typename D, typename S>
AK_HD D convert_value(S x) {
  if constexpr (std::is_same_v<S, Half> || std::is_same_v<S, BFloat16>) {
    return convert_value<D>(static_cast<float>(x));  // a 16-bit float is read as the float32 it holds
  } else if constexpr (std::is_same_v<D, bool>) {
    return x != S(0);
  } else if constexpr (std::is_same_v<D, Half> || std::is_same_v<D, BFloat16>) {
    return D(static_cast<float>(x));  // through float32, as PyTorch's c10::Half and BFloat16 do
  } else if constexpr (std::is_floating_point_v<S> && std::is_integral_v<D> && std::is_signed_v<D> &&
                       sizeof(D) <= 4) {
    // -2^31 <= x < 2^31 (both bounds exact in float and double); NaN fails both.
    const bool fits = x >= S(-2147483648.0) && x < S(2147483648.0);
    const int32_t i = fits ? static_cast<int32_t>(x) : static_cast<int32_t>(-2147483647 - 1);
    return static_cast<D>(i);  // int32 -> a narrower integer keeps the low bits (defined)
  } else if constexpr (std::is_floating_point_v<S> && std::is_integral_v<D>) {
    // -2^63 <= x < 2^63 (both bounds exact in float and double); NaN fails both.
    const bool fits = x >= S(-9223372036854775808.0) && x < S(9223372036854775808.0);
    const int64_t i = fits ? static_cast<int64_t>(x) : static_cast<int64_t>(-9223372036854775807LL - 1);
    return static_cast<D>(i);  // int64 -> a narrower integer keeps the low bits (defined)
  } else {
    return static_cast<D>(x);
  }
}
// [[/book:convert_value]]

// A clamp bound (a double) in integer type T: saturated to T's range, so a
// bound beyond the range (uint8 clamped at -5 or 300) clamps nothing, and
// the conversion itself is always defined. Only integral bounds reach here
// (a fractional or NaN bound makes the op compute in float).
template <typename T>
AK_HD T saturate_bound(double v) {
  if constexpr (std::is_same_v<T, bool>) {  // make_unsigned<bool> does not exist; a bool bound is its truth
    return v != 0.0;
  } else if constexpr (std::is_integral_v<T>) {
    using U = std::make_unsigned_t<T>;  // T's bounds, without numeric_limits (not a device function)
    const int64_t hi = static_cast<int64_t>(static_cast<U>(static_cast<U>(~U(0)) >> (std::is_signed_v<T> ? 1 : 0)));
    const int64_t lo = std::is_signed_v<T> ? -hi - 1 : 0;
    if (!(v > -9223372036854775808.0)) return static_cast<T>(lo);
    if (v >= 9223372036854775808.0) return static_cast<T>(hi);
    const int64_t i = static_cast<int64_t>(v);
    return static_cast<T>(i < lo ? lo : (i > hi ? hi : i));
  } else {
    return static_cast<T>(v);
  }
}

}  // namespace
}  // namespace aakaar::py_arith
