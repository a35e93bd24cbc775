// v4: the micro-kernel in AVX2/FMA registers. This file is compiled with
// -mavx2 -mfma (CMakeLists.txt, for *_avx2.cpp) and is only called after a
// run-time check, so the rest of the library stays portable. It includes no
// library or standard headers with inline code, so no AVX2-compiled copy of
// a shared inline function can leak into the portable build at link time.
//
// Per k step of the 6 x 16 float kernel: load 16 floats of the B strip into
// two ymm registers, broadcast each of the 6 A values in turn, and do 12
// fused multiply-adds into 12 accumulators (6 rows x 2 vectors). 12 FMAs
// against 8 loads keeps both FMA pipes busy; the accumulators never leave
// the registers until the whole kc loop is done.
#include <immintrin.h>

#include <cstdint>

#include "cpu/gemm/microkernels.h"

namespace aakaar::cpu::gemm_impl {

namespace {

// c = alpha * acc + beta * c, with beta == 0 meaning "do not read c".
inline void store_f32(float* c, __m256 acc, __m256 alpha, __m256 beta, bool read_c) {
  acc = _mm256_mul_ps(alpha, acc);
  if (read_c) acc = _mm256_fmadd_ps(beta, _mm256_loadu_ps(c), acc);
  _mm256_storeu_ps(c, acc);
}

inline void store_f64(double* c, __m256d acc, __m256d alpha, __m256d beta, bool read_c) {
  acc = _mm256_mul_pd(alpha, acc);
  if (read_c) acc = _mm256_fmadd_pd(beta, _mm256_loadu_pd(c), acc);
  _mm256_storeu_pd(c, acc);
}

}  // namespace

void ukernel_avx2_f32_6x16(int64_t kc, const float* a, const float* b, float* c, int64_t rs_c,
                           float alpha, float beta) {
  // Ask for the C tile now; it is needed only after the kc loop.
  for (int i = 0; i < 6; ++i) {
    _mm_prefetch(reinterpret_cast<const char*>(c + i * rs_c), _MM_HINT_T0);
    _mm_prefetch(reinterpret_cast<const char*>(c + i * rs_c + 15), _MM_HINT_T0);
  }
  __m256 c00 = _mm256_setzero_ps(), c01 = _mm256_setzero_ps();
  __m256 c10 = _mm256_setzero_ps(), c11 = _mm256_setzero_ps();
  __m256 c20 = _mm256_setzero_ps(), c21 = _mm256_setzero_ps();
  __m256 c30 = _mm256_setzero_ps(), c31 = _mm256_setzero_ps();
  __m256 c40 = _mm256_setzero_ps(), c41 = _mm256_setzero_ps();
  __m256 c50 = _mm256_setzero_ps(), c51 = _mm256_setzero_ps();
  // [[book:gemm_ukernel_avx2_loop]]
#pragma GCC unroll 4
  for (int64_t k = 0; k < kc; ++k) {
    const __m256 b0 = _mm256_loadu_ps(b), b1 = _mm256_loadu_ps(b + 8);
    __m256 ai;
    ai = _mm256_broadcast_ss(a + 0); c00 = _mm256_fmadd_ps(ai, b0, c00); c01 = _mm256_fmadd_ps(ai, b1, c01);
    ai = _mm256_broadcast_ss(a + 1); c10 = _mm256_fmadd_ps(ai, b0, c10); c11 = _mm256_fmadd_ps(ai, b1, c11);
    ai = _mm256_broadcast_ss(a + 2); c20 = _mm256_fmadd_ps(ai, b0, c20); c21 = _mm256_fmadd_ps(ai, b1, c21);
    ai = _mm256_broadcast_ss(a + 3); c30 = _mm256_fmadd_ps(ai, b0, c30); c31 = _mm256_fmadd_ps(ai, b1, c31);
    ai = _mm256_broadcast_ss(a + 4); c40 = _mm256_fmadd_ps(ai, b0, c40); c41 = _mm256_fmadd_ps(ai, b1, c41);
    ai = _mm256_broadcast_ss(a + 5); c50 = _mm256_fmadd_ps(ai, b0, c50); c51 = _mm256_fmadd_ps(ai, b1, c51);
    a += 6;
    b += 16;
  }
  // [[/book:gemm_ukernel_avx2_loop]]
  const __m256 va = _mm256_set1_ps(alpha), vb = _mm256_set1_ps(beta);
  const bool read_c = beta != 0.0f;
  store_f32(c + 0 * rs_c, c00, va, vb, read_c); store_f32(c + 0 * rs_c + 8, c01, va, vb, read_c);
  store_f32(c + 1 * rs_c, c10, va, vb, read_c); store_f32(c + 1 * rs_c + 8, c11, va, vb, read_c);
  store_f32(c + 2 * rs_c, c20, va, vb, read_c); store_f32(c + 2 * rs_c + 8, c21, va, vb, read_c);
  store_f32(c + 3 * rs_c, c30, va, vb, read_c); store_f32(c + 3 * rs_c + 8, c31, va, vb, read_c);
  store_f32(c + 4 * rs_c, c40, va, vb, read_c); store_f32(c + 4 * rs_c + 8, c41, va, vb, read_c);
  store_f32(c + 5 * rs_c, c50, va, vb, read_c); store_f32(c + 5 * rs_c + 8, c51, va, vb, read_c);
}

void ukernel_avx2_f64_6x8(int64_t kc, const double* a, const double* b, double* c, int64_t rs_c,
                          double alpha, double beta) {
  for (int i = 0; i < 6; ++i) {
    _mm_prefetch(reinterpret_cast<const char*>(c + i * rs_c), _MM_HINT_T0);
    _mm_prefetch(reinterpret_cast<const char*>(c + i * rs_c + 7), _MM_HINT_T0);
  }
  __m256d c00 = _mm256_setzero_pd(), c01 = _mm256_setzero_pd();
  __m256d c10 = _mm256_setzero_pd(), c11 = _mm256_setzero_pd();
  __m256d c20 = _mm256_setzero_pd(), c21 = _mm256_setzero_pd();
  __m256d c30 = _mm256_setzero_pd(), c31 = _mm256_setzero_pd();
  __m256d c40 = _mm256_setzero_pd(), c41 = _mm256_setzero_pd();
  __m256d c50 = _mm256_setzero_pd(), c51 = _mm256_setzero_pd();
#pragma GCC unroll 4
  for (int64_t k = 0; k < kc; ++k) {
    const __m256d b0 = _mm256_loadu_pd(b), b1 = _mm256_loadu_pd(b + 4);
    __m256d ai;
    ai = _mm256_broadcast_sd(a + 0); c00 = _mm256_fmadd_pd(ai, b0, c00); c01 = _mm256_fmadd_pd(ai, b1, c01);
    ai = _mm256_broadcast_sd(a + 1); c10 = _mm256_fmadd_pd(ai, b0, c10); c11 = _mm256_fmadd_pd(ai, b1, c11);
    ai = _mm256_broadcast_sd(a + 2); c20 = _mm256_fmadd_pd(ai, b0, c20); c21 = _mm256_fmadd_pd(ai, b1, c21);
    ai = _mm256_broadcast_sd(a + 3); c30 = _mm256_fmadd_pd(ai, b0, c30); c31 = _mm256_fmadd_pd(ai, b1, c31);
    ai = _mm256_broadcast_sd(a + 4); c40 = _mm256_fmadd_pd(ai, b0, c40); c41 = _mm256_fmadd_pd(ai, b1, c41);
    ai = _mm256_broadcast_sd(a + 5); c50 = _mm256_fmadd_pd(ai, b0, c50); c51 = _mm256_fmadd_pd(ai, b1, c51);
    a += 6;
    b += 8;
  }
  const __m256d va = _mm256_set1_pd(alpha), vb = _mm256_set1_pd(beta);
  const bool read_c = beta != 0.0;
  store_f64(c + 0 * rs_c, c00, va, vb, read_c); store_f64(c + 0 * rs_c + 4, c01, va, vb, read_c);
  store_f64(c + 1 * rs_c, c10, va, vb, read_c); store_f64(c + 1 * rs_c + 4, c11, va, vb, read_c);
  store_f64(c + 2 * rs_c, c20, va, vb, read_c); store_f64(c + 2 * rs_c + 4, c21, va, vb, read_c);
  store_f64(c + 3 * rs_c, c30, va, vb, read_c); store_f64(c + 3 * rs_c + 4, c31, va, vb, read_c);
  store_f64(c + 4 * rs_c, c40, va, vb, read_c); store_f64(c + 4 * rs_c + 4, c41, va, vb, read_c);
  store_f64(c + 5 * rs_c, c50, va, vb, read_c); store_f64(c + 5 * rs_c + 4, c51, va, vb, read_c);
}

}  // namespace aakaar::cpu::gemm_impl
