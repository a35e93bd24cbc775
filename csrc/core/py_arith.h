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
#include <type_traits>

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

// a % b with the divisor's sign.
template <typename T>
AK_HD T py_mod(T a, T b) {
  if constexpr (std::is_floating_point_v<T>) {
    T r = fmod_(a, b);
    if (r != 0 && ((r < 0) != (b < 0))) r += b;
    else if (r == 0) r = copysign_(T(0), b);
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

// base ** exp for integers (exp >= 0; the op refuses negative ones), by squaring,
// wrapping around like the integer type does.
template <typename T>
AK_HD T int_pow(T base, T exp) {
  T result = 1;
  while (exp > 0) {
    if (exp & 1) result = static_cast<T>(result * base);
    base = static_cast<T>(base * base);
    exp >>= 1;
  }
  return result;
}

}  // namespace
}  // namespace aakaar::py_arith
