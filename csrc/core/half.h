// float16 and bfloat16: storage types. A value is kept in 16 bits and
// converted to float32 to compute (aakaar does arithmetic on these dtypes in
// float32 and rounds each op's result back, as PyTorch's CPU kernels do).
//
// The conversions are PyTorch's own (c10/util/Half.h and BFloat16.h, after
// Maratyszcza's FP16 library): round to nearest, ties to even, in both types;
// a NaN stays a (quiet) NaN. They are written with integer bit operations and
// plain float arithmetic, so the CPU kernels, nvcc and the CUDA emulator
// (AK_HD) all compile the same code and agree to the bit.
#pragma once
#include <cstdint>
#include <cstring>

#include "core/host_device.h"

namespace aakaar {
namespace half_bits {

AK_HD uint32_t to_bits(float f) {
  uint32_t u;
  memcpy(&u, &f, sizeof u);
  return u;
}
AK_HD float from_bits(uint32_t u) {
  float f;
  memcpy(&f, &u, sizeof f);
  return f;
}

// IEEE binary16 from float32, round to nearest even. The two scalings push
// the value to where float32's own rounding (to nearest even) drops exactly
// the bits binary16 cannot keep, subnormals and overflow to inf included.
AK_HD uint16_t float_to_half(float f) {
  const float scale_to_inf = 0x1.0p+112f, scale_to_zero = 0x1.0p-110f;
  float base = ((f < 0 ? -f : f) * scale_to_inf) * scale_to_zero;
  const uint32_t w = to_bits(f), shl1_w = w + w, sign = w & 0x80000000u;
  uint32_t bias = shl1_w & 0xFF000000u;
  if (bias < 0x71000000u) bias = 0x71000000u;
  base = from_bits((bias >> 1) + 0x07800000u) + base;
  const uint32_t bits = to_bits(base);
  const uint32_t nonsign = ((bits >> 13) & 0x00007C00u) + (bits & 0x00000FFFu);
  return static_cast<uint16_t>((sign >> 16) | (shl1_w > 0xFF000000u ? 0x7E00u : nonsign));
}

AK_HD float half_to_float(uint16_t h) {
  const uint32_t w = static_cast<uint32_t>(h) << 16, sign = w & 0x80000000u, two_w = w + w;
  const float normalized = from_bits((two_w >> 4) + (0xE0u << 23)) * 0x1.0p-112f;
  const float denormalized = from_bits((two_w >> 17) | (126u << 23)) - 0.5f;
  return from_bits(sign | (two_w < (1u << 27) ? to_bits(denormalized) : to_bits(normalized)));
}

// bfloat16 is float32's upper half: round the lower 16 bits away, to nearest even.
AK_HD uint16_t float_to_bfloat16(float f) {
  if (f != f) return 0x7FC0;
  const uint32_t u = to_bits(f);
  return static_cast<uint16_t>((u + ((u >> 16) & 1u) + 0x7FFFu) >> 16);
}
AK_HD float bfloat16_to_float(uint16_t b) { return from_bits(static_cast<uint32_t>(b) << 16); }

}  // namespace half_bits

// The C++ element types. Converting constructors take a float (any other
// number converts to float first, as PyTorch's c10::Half does, so a double is
// rounded twice: double -> float -> half, exactly like PyTorch).
struct Half {
  uint16_t x;
  Half() = default;
  AK_HD Half(float f) : x(half_bits::float_to_half(f)) {}
  AK_HD operator float() const { return half_bits::half_to_float(x); }
};
struct BFloat16 {
  uint16_t x;
  BFloat16() = default;
  AK_HD BFloat16(float f) : x(half_bits::float_to_bfloat16(f)) {}
  AK_HD operator float() const { return half_bits::bfloat16_to_float(x); }
};

}  // namespace aakaar
