// Branch-free float32 exp, log, log1p, sigmoid and tanh that the compiler vectorises.
//
// std::exp is a library call the compiler cannot vectorise, so a loop of it
// runs one element at a time. These versions are plain arithmetic (a range
// reduction, a polynomial and an exponent built from bits), so in a loop over
// a contiguous array GCC emits 8-wide AVX2 code. Accuracy: within 2 ulp of
// the correctly rounded result over the whole float range; overflow gives
// inf, underflow 0, NaN stays NaN; log and log1p give -inf at 0 (and at -1),
// NaN below. (tests/cpu/test_vec_math.py measures the ulps against numpy.)
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

// [[book:log_f32]]
AK_VEC_INLINE float log_f32(float x) {
  // log(x) = e ln 2 + log(m) with x = m 2^e, m in [sqrt(1/2), sqrt(2)): the
  // exponent and mantissa come straight from the bits. A denormal x is first
  // scaled by 2^23 so that its mantissa is normalised.
  const bool tiny = x < 1.17549435e-38f;
  const float xs = tiny ? x * 8388608.0f : x;
  uint32_t bits;
  std::memcpy(&bits, &xs, sizeof bits);
  const int32_t e = static_cast<int32_t>((bits >> 23) & 0xffu) - 126;  // xs = m 2^e, m in [0.5, 1)
  bits = (bits & 0x007fffffu) | 0x3f000000u;
  float m;
  std::memcpy(&m, &bits, sizeof m);
  const bool low = m < 0.707106781186547524f;
  const float f = low ? m + m - 1.0f : m - 1.0f;  // exact: m is in [0.5, 1)
  const float ef = static_cast<float>(e - (low ? 1 : 0)) - (tiny ? 23.0f : 0.0f);
  // log(1 + f) = f - f^2/2 + f^3 P(f) on [sqrt(1/2) - 1, sqrt(2) - 1] (Cephes logf).
  const float z = f * f;
  float p = 7.0376836292e-2f;
  p = AK_FMA(p, f, -1.1514610310e-1f);
  p = AK_FMA(p, f, 1.1676998740e-1f);
  p = AK_FMA(p, f, -1.2420140846e-1f);
  p = AK_FMA(p, f, 1.4249322787e-1f);
  p = AK_FMA(p, f, -1.6668057665e-1f);
  p = AK_FMA(p, f, 2.0000714765e-1f);
  p = AK_FMA(p, f, -2.4999993993e-1f);
  p = AK_FMA(p, f, 3.3333331174e-1f);
  float y = p * f * z;
  // e ln 2 with ln 2 split in two, the small part added first (no rounding of e * 0.693359375).
  y = AK_FMA(ef, -2.12194440e-4f, y);
  y = AK_FMA(z, -0.5f, y);
  float r = f + y;
  r = AK_FMA(ef, 0.693359375f, r);
  // Special values: the bit tricks above give garbage for them, replaced here.
  r = x == std::numeric_limits<float>::infinity() ? x : r;
  r = x == 0.0f ? -std::numeric_limits<float>::infinity() : r;
  r = x < 0.0f ? std::numeric_limits<float>::quiet_NaN() : r;
  return x != x ? x : r;
}
// [[/book:log_f32]]

// log(1 + x), accurate for small x too: u = 1 + x rounds, but its rounding
// error x - (u - 1) is exact, and log(1 + x) = log(u) + (x - (u - 1)) / u to
// first order in that tiny error (Kahan's trick; for |x| < 2^-24, u = 1 and
// the result is x itself).
AK_VEC_INLINE float log1p_f32(float x) {
  const float u = 1.0f + x;
  const bool normal = u > 0.0f && u < std::numeric_limits<float>::infinity();
  const float c = (x - (u - 1.0f)) / (normal ? u : 1.0f);
  const float r = log_f32(u) + (normal ? c : 0.0f);
  return x != x ? x : r;
}

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
