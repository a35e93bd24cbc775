// Branch-free float32 exp, sigmoid and tanh that the compiler vectorises.
//
// std::exp is a library call the compiler cannot vectorise, so a loop of it
// runs one element at a time. These versions are plain arithmetic (a range
// reduction, a polynomial and an exponent built from bits), so in a loop over
// a contiguous array GCC emits 8-wide AVX2 code. Accuracy: within 2 ulp of
// the correctly rounded result over the whole float range; overflow gives
// inf, underflow 0, NaN stays NaN.
#pragma once
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>

namespace aakaar::cpu {

// Fused multiply-add where the hardware has it (the AVX2 build); a plain
// multiply and add in the baseline build, where std::fma would be a slow
// software routine.
#ifdef __FMA__
#define AK_FMA(a, b, c) std::fma(a, b, c)
#else
#define AK_FMA(a, b, c) ((a) * (b) + (c))
#endif

// Forced inline: a call inside a loop would stop it from being vectorised.
#define AK_VEC_INLINE inline __attribute__((always_inline))
// The same for a lambda: in a large file GCC's inlining budget runs out and a
// lambda left as a call in a loop keeps the loop scalar.
#define AK_VEC_LAMBDA __attribute__((always_inline))

// 2^n for an integer-valued float n in [-126, 127], built from its bits.
AK_VEC_INLINE float exp2_int(float n) {
  // Shifted as unsigned: n + 127 is in [1, 254] for the n exp_f32 passes, and
  // an unsigned shift stays defined whatever reaches here.
  const uint32_t bits = static_cast<uint32_t>(static_cast<int32_t>(n) + 127) << 23;
  float r;
  std::memcpy(&r, &bits, sizeof r);
  return r;
}

// Round to the nearest integer (ties to even) for |v| < 2^22: adding 1.5*2^23
// pushes the fraction bits out of the mantissa. Unlike std::nearbyint this is
// plain arithmetic, so it vectorises.
AK_VEC_INLINE float round_magic(float v) { return (v + 12582912.0f) - 12582912.0f; }

// [[book:exp_f32]]
AK_VEC_INLINE float exp_f32(float x) {
  // exp(x) = 2^n * exp(r) with n = round(x / ln 2) and |r| <= ln(2)/2; ln 2 is
  // split in two so that n*ln2 is subtracted without rounding error.
  float xc = x < -104.0f ? -104.0f : x;
  xc = xc > 89.0f ? 89.0f : xc;
  // NaN passes both clamps; converting it to an integer in exp2_int would be
  // undefined, so work on 0 instead (the NaN is returned at the end).
  xc = x != x ? 0.0f : xc;
  const float n = round_magic(xc * 1.44269504088896341f);
  float r = AK_FMA(n, -0.693359375f, xc);
  r = AK_FMA(n, 2.12194440e-4f, r);
  // Minimax polynomial for exp(r) on [-ln2/2, ln2/2] (Cephes expf).
  float p = 1.9875691500e-4f;
  p = AK_FMA(p, r, 1.3981999507e-3f);
  p = AK_FMA(p, r, 8.3334519073e-3f);
  p = AK_FMA(p, r, 4.1665795894e-2f);
  p = AK_FMA(p, r, 1.6666665459e-1f);
  p = AK_FMA(p, r, 5.0000001201e-1f);
  p = AK_FMA(p, r * r, r) + 1.0f;
  // Scale by 2^n in two halves, so that n below -126 (results in the
  // denormal range) never leaves the exponent range of one factor.
  const float a = round_magic(n * 0.5f - 0.25f), b = n - a;  // a = floor(n / 2)
  float y = p * exp2_int(a) * exp2_int(b);
  y = x > 88.7228394f ? std::numeric_limits<float>::infinity() : y;
  y = x < -103.972694f ? 0.0f : y;
  return x != x ? x : y;
}
// [[/book:exp_f32]]

AK_VEC_INLINE float sigmoid_f32(float x) { return 1.0f / (1.0f + exp_f32(-x)); }

AK_VEC_INLINE float tanh_f32(float x) {
  const float ax = std::fabs(x);
  // Near 0, 1 - 2/(e^{2x}+1) cancels; an odd polynomial is accurate there
  // (Cephes tanhf, |x| < 0.625).
  const float z = x * x;
  float p = -5.70498872745e-3f;
  p = AK_FMA(p, z, 2.06390887954e-2f);
  p = AK_FMA(p, z, -5.37397155531e-2f);
  p = AK_FMA(p, z, 1.33314422036e-1f);
  p = AK_FMA(p, z, -3.33332819422e-1f);
  const float small = AK_FMA(p * z, x, x);
  const float e = exp_f32(2.0f * (ax < 10.0f ? ax : 10.0f));
  const float large = std::copysign(1.0f - 2.0f / (e + 1.0f), x);
  const float y = ax < 0.625f ? small : large;
  return x != x ? x : y;  // NaN in, NaN out (the clamp above would turn it into +-1)
}

}  // namespace aakaar::cpu
