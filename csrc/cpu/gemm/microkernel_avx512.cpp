// v4 on AVX-512: the same loops as v4, with an 8 x 32 float tile in 512-bit
// registers. This file is compiled with the AVX-512 flags (CMakeLists.txt,
// *_avx512.cpp) and only called after the run-time check of kernel_tables.cpp. Like
// the AVX2 kernel it includes no standard headers with inline code.
//
// Why a second kernel when a core's FMA throughput in flops is often the same
// (some cores, e.g. AMD Zen 4, split a 512-bit FMA into two 256-bit halves)?
// AVX-512 has 32 registers, not 16: the tile grows from 6 x 16 to 8 x 32, so
// per k step 2 loads and 8 broadcasts feed 16 FMAs of 16 lanes (256
// multiply-adds for 10 loads, against 96 for 8 with AVX2), and half as many
// instructions go through the front end for the same work. And 8 rows divide
// the batch sizes of training (64, 128, 256) exactly: no padded strip.
#include <immintrin.h>

#include <cstdint>

#include "cpu/gemm/microkernels.h"

namespace aakaar::cpu::gemm_impl {

namespace {

inline void store_f32x16(float* c, __m512 acc, __m512 alpha, __m512 beta, bool read_c) {
  acc = _mm512_mul_ps(alpha, acc);
  if (read_c) acc = _mm512_fmadd_ps(beta, _mm512_loadu_ps(c), acc);
  _mm512_storeu_ps(c, acc);
}

}  // namespace

// [[book:gemm_ukernel_avx512]]
void ukernel_avx512_f32_8x32(int64_t kc, const float* a, const float* b, float* c, int64_t rs_c,
                             float alpha, float beta) {
  for (int i = 0; i < 8; ++i) {
    _mm_prefetch(reinterpret_cast<const char*>(c + i * rs_c), _MM_HINT_T0);
    _mm_prefetch(reinterpret_cast<const char*>(c + i * rs_c + 31), _MM_HINT_T0);
  }
#define AK_ROW(i) __m512 c##i##0 = _mm512_setzero_ps(), c##i##1 = _mm512_setzero_ps();
  AK_ROW(0) AK_ROW(1) AK_ROW(2) AK_ROW(3) AK_ROW(4) AK_ROW(5) AK_ROW(6) AK_ROW(7)
#undef AK_ROW
#pragma GCC unroll 4
  for (int64_t k = 0; k < kc; ++k) {
    const __m512 b0 = _mm512_loadu_ps(b), b1 = _mm512_loadu_ps(b + 16);
    __m512 ai;
#define AK_FMA(i)                                                        \
  ai = _mm512_set1_ps(a[i]);                                             \
  c##i##0 = _mm512_fmadd_ps(ai, b0, c##i##0);                            \
  c##i##1 = _mm512_fmadd_ps(ai, b1, c##i##1);
    AK_FMA(0) AK_FMA(1) AK_FMA(2) AK_FMA(3) AK_FMA(4) AK_FMA(5) AK_FMA(6) AK_FMA(7)
#undef AK_FMA
    a += 8;
    b += 32;
  }
  const __m512 va = _mm512_set1_ps(alpha), vb = _mm512_set1_ps(beta);
  const bool read_c = beta != 0.0f;
#define AK_STORE(i)                                                      \
  store_f32x16(c + i * rs_c, c##i##0, va, vb, read_c);                   \
  store_f32x16(c + i * rs_c + 16, c##i##1, va, vb, read_c);
  AK_STORE(0) AK_STORE(1) AK_STORE(2) AK_STORE(3) AK_STORE(4) AK_STORE(5) AK_STORE(6) AK_STORE(7)
#undef AK_STORE
}
// [[/book:gemm_ukernel_avx512]]

namespace {
inline void store_f64x8(double* c, __m512d acc, __m512d alpha, __m512d beta, bool read_c) {
  acc = _mm512_mul_pd(alpha, acc);
  if (read_c) acc = _mm512_fmadd_pd(beta, _mm512_loadu_pd(c), acc);
  _mm512_storeu_pd(c, acc);
}
}  // namespace

// The float64 twin: 8 x 16 doubles, the same 16 accumulators.
void ukernel_avx512_f64_8x16(int64_t kc, const double* a, const double* b, double* c, int64_t rs_c,
                             double alpha, double beta) {
  for (int i = 0; i < 8; ++i) {
    _mm_prefetch(reinterpret_cast<const char*>(c + i * rs_c), _MM_HINT_T0);
    _mm_prefetch(reinterpret_cast<const char*>(c + i * rs_c + 15), _MM_HINT_T0);
  }
#define AK_ROW(i) __m512d c##i##0 = _mm512_setzero_pd(), c##i##1 = _mm512_setzero_pd();
  AK_ROW(0) AK_ROW(1) AK_ROW(2) AK_ROW(3) AK_ROW(4) AK_ROW(5) AK_ROW(6) AK_ROW(7)
#undef AK_ROW
#pragma GCC unroll 4
  for (int64_t k = 0; k < kc; ++k) {
    const __m512d b0 = _mm512_loadu_pd(b), b1 = _mm512_loadu_pd(b + 8);
    __m512d ai;
#define AK_FMA(i)                                                        \
  ai = _mm512_set1_pd(a[i]);                                             \
  c##i##0 = _mm512_fmadd_pd(ai, b0, c##i##0);                            \
  c##i##1 = _mm512_fmadd_pd(ai, b1, c##i##1);
    AK_FMA(0) AK_FMA(1) AK_FMA(2) AK_FMA(3) AK_FMA(4) AK_FMA(5) AK_FMA(6) AK_FMA(7)
#undef AK_FMA
    a += 8;
    b += 16;
  }
  const __m512d va = _mm512_set1_pd(alpha), vb = _mm512_set1_pd(beta);
  const bool read_c = beta != 0.0;
#define AK_STORE(i)                                                      \
  store_f64x8(c + i * rs_c, c##i##0, va, vb, read_c);                    \
  store_f64x8(c + i * rs_c + 8, c##i##1, va, vb, read_c);
  AK_STORE(0) AK_STORE(1) AK_STORE(2) AK_STORE(3) AK_STORE(4) AK_STORE(5) AK_STORE(6) AK_STORE(7)
#undef AK_STORE
}

}  // namespace aakaar::cpu::gemm_impl
