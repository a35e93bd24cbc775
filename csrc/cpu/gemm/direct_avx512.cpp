// v6: the AVX-512 kernel reading its operands in place, with no packing.
//
// Packing (v3) pays for itself when a block of A or B is read many times
// from far away: it turns strided rows into one contiguous stream that the
// TLB and the prefetchers like. The matrices of a small-batch training step
// (64 x 784 activations, 256 x 784 weights) already sit in L2, and there the
// copy costs more than it saves: a training step spent about a tenth of its
// GEMM time packing. So this kernel takes A and B where they are:
//
//   A(i, k) at a[i * rs_a + k * cs_a]   any strides: row-major, column-major
//                                       (a transposed view) or a packed strip
//   B(k, j) at b[k * rs_b + j]          rows of B with unit stride, or a packed strip
//
// AVX-512 masks make the edges free: a tile narrower than 32 columns loads
// and stores only its valid lanes (nothing past the end of B or C is read or
// written), and a tile shorter than 8 rows broadcasts its first row again in
// place of the missing ones and does not store them. No zero padding, no
// tile buffer.
//
// Compiled with the AVX-512 flags (CMakeLists.txt, *_avx512.cpp) and called
// only after the run-time check of kernel_tables.cpp. No standard headers with inline code.
#include <immintrin.h>

#include <cstdint>

#include "cpu/gemm/microkernels.h"

namespace aakaar::cpu::gemm_impl {

namespace {

inline __mmask16 lanes(int64_t n) {  // the first min(n, 16) of 16 lanes (n may be <= 0)
  return n >= 16 ? __mmask16(0xFFFF) : n <= 0 ? __mmask16(0) : __mmask16((1u << n) - 1);
}
inline __mmask8 lanes8(int64_t n) {
  return n >= 8 ? __mmask8(0xFF) : n <= 0 ? __mmask8(0) : __mmask8((1u << n) - 1);
}

}  // namespace

// [[book:gemm_ukernel_direct]]
void ukernel_avx512_f32_8x32_direct(int64_t kc, const float* a, int64_t rs_a, int64_t cs_a,
                                    const float* b, int64_t rs_b, float* c, int64_t rs_c,
                                    int64_t m, int64_t n, float alpha, float beta) {
  // Rows past m read row 0 again: valid memory, results never stored.
#define AK_ROWPTR(i) const float* a##i = a + (i < m ? i : 0) * rs_a;
  AK_ROWPTR(0) AK_ROWPTR(1) AK_ROWPTR(2) AK_ROWPTR(3) AK_ROWPTR(4) AK_ROWPTR(5) AK_ROWPTR(6) AK_ROWPTR(7)
#undef AK_ROWPTR
  // Start fetching the C tile now; its load (beta != 0) or store comes after kc steps.
  for (int64_t i = 0; i < m && i < 8; ++i) {
    _mm_prefetch(reinterpret_cast<const char*>(c + i * rs_c), _MM_HINT_T0);
    _mm_prefetch(reinterpret_cast<const char*>(c + i * rs_c + 31), _MM_HINT_T0);
  }
  const __mmask16 m0 = lanes(n), m1 = lanes(n - 16);
#define AK_ROW(i) __m512 c##i##0 = _mm512_setzero_ps(), c##i##1 = _mm512_setzero_ps();
  AK_ROW(0) AK_ROW(1) AK_ROW(2) AK_ROW(3) AK_ROW(4) AK_ROW(5) AK_ROW(6) AK_ROW(7)
#undef AK_ROW
#define AK_FMA(i)                                                        \
  ai = _mm512_set1_ps(a##i[o]);                                          \
  c##i##0 = _mm512_fmadd_ps(ai, b0, c##i##0);                            \
  c##i##1 = _mm512_fmadd_ps(ai, b1, c##i##1);
  int64_t o = 0;  // offset of column k in every row of A
  if (n == 32) {  // the common, full-width tile: plain loads
#pragma GCC unroll 4
    for (int64_t k = 0; k < kc; ++k, o += cs_a, b += rs_b) {
      const __m512 b0 = _mm512_loadu_ps(b), b1 = _mm512_loadu_ps(b + 16);
      __m512 ai;
      AK_FMA(0) AK_FMA(1) AK_FMA(2) AK_FMA(3) AK_FMA(4) AK_FMA(5) AK_FMA(6) AK_FMA(7)
    }
  } else {
    for (int64_t k = 0; k < kc; ++k, o += cs_a, b += rs_b) {
      const __m512 b0 = _mm512_maskz_loadu_ps(m0, b), b1 = _mm512_maskz_loadu_ps(m1, b + 16);
      __m512 ai;
      AK_FMA(0) AK_FMA(1) AK_FMA(2) AK_FMA(3) AK_FMA(4) AK_FMA(5) AK_FMA(6) AK_FMA(7)
    }
  }
#undef AK_FMA
  const __m512 va = _mm512_set1_ps(alpha), vb = _mm512_set1_ps(beta);
  const bool read_c = beta != 0.0f, scale = alpha != 1.0f;
  // Row by row, each under its own compile-time index, so the accumulators
  // stay in registers (a loop over an array of them would go through memory).
  // alpha == 1 skips 16 multiplies: 1.5% of a K = 64 tile (a weight gradient).
#define AK_STORE(i)                                                                        \
  if (i < m) {                                                                             \
    float* ci = c + i * rs_c;                                                              \
    __m512 x0 = c##i##0, x1 = c##i##1;                                                     \
    if (scale) {                                                                           \
      x0 = _mm512_mul_ps(va, x0);                                                          \
      x1 = _mm512_mul_ps(va, x1);                                                          \
    }                                                                                      \
    if (read_c) {                                                                          \
      x0 = _mm512_fmadd_ps(vb, _mm512_maskz_loadu_ps(m0, ci), x0);                         \
      x1 = _mm512_fmadd_ps(vb, _mm512_maskz_loadu_ps(m1, ci + 16), x1);                    \
    }                                                                                      \
    _mm512_mask_storeu_ps(ci, m0, x0);                                                     \
    _mm512_mask_storeu_ps(ci + 16, m1, x1);                                                \
  }
  AK_STORE(0) AK_STORE(1) AK_STORE(2) AK_STORE(3) AK_STORE(4) AK_STORE(5) AK_STORE(6) AK_STORE(7)
#undef AK_STORE
}
// [[/book:gemm_ukernel_direct]]

// The float64 twin: 8 x 16 doubles.
void ukernel_avx512_f64_8x16_direct(int64_t kc, const double* a, int64_t rs_a, int64_t cs_a,
                                    const double* b, int64_t rs_b, double* c, int64_t rs_c,
                                    int64_t m, int64_t n, double alpha, double beta) {
#define AK_ROWPTR(i) const double* a##i = a + (i < m ? i : 0) * rs_a;
  AK_ROWPTR(0) AK_ROWPTR(1) AK_ROWPTR(2) AK_ROWPTR(3) AK_ROWPTR(4) AK_ROWPTR(5) AK_ROWPTR(6) AK_ROWPTR(7)
#undef AK_ROWPTR
  const __mmask8 m0 = lanes8(n), m1 = lanes8(n - 8);
#define AK_ROW(i) __m512d c##i##0 = _mm512_setzero_pd(), c##i##1 = _mm512_setzero_pd();
  AK_ROW(0) AK_ROW(1) AK_ROW(2) AK_ROW(3) AK_ROW(4) AK_ROW(5) AK_ROW(6) AK_ROW(7)
#undef AK_ROW
  int64_t o = 0;
#pragma GCC unroll 4
  for (int64_t k = 0; k < kc; ++k, o += cs_a, b += rs_b) {
    const __m512d b0 = _mm512_maskz_loadu_pd(m0, b), b1 = _mm512_maskz_loadu_pd(m1, b + 8);
    __m512d ai;
#define AK_FMA(i)                                                        \
  ai = _mm512_set1_pd(a##i[o]);                                          \
  c##i##0 = _mm512_fmadd_pd(ai, b0, c##i##0);                            \
  c##i##1 = _mm512_fmadd_pd(ai, b1, c##i##1);
    AK_FMA(0) AK_FMA(1) AK_FMA(2) AK_FMA(3) AK_FMA(4) AK_FMA(5) AK_FMA(6) AK_FMA(7)
#undef AK_FMA
  }
  const __m512d va = _mm512_set1_pd(alpha), vb = _mm512_set1_pd(beta);
  const bool read_c = beta != 0.0;
#define AK_STORE(i)                                                                        \
  if (i < m) {                                                                             \
    double* ci = c + i * rs_c;                                                             \
    __m512d x0 = _mm512_mul_pd(va, c##i##0), x1 = _mm512_mul_pd(va, c##i##1);              \
    if (read_c) {                                                                          \
      x0 = _mm512_fmadd_pd(vb, _mm512_maskz_loadu_pd(m0, ci), x0);                         \
      x1 = _mm512_fmadd_pd(vb, _mm512_maskz_loadu_pd(m1, ci + 8), x1);                     \
    }                                                                                      \
    _mm512_mask_storeu_pd(ci, m0, x0);                                                     \
    _mm512_mask_storeu_pd(ci + 8, m1, x1);                                                 \
  }
  AK_STORE(0) AK_STORE(1) AK_STORE(2) AK_STORE(3) AK_STORE(4) AK_STORE(5) AK_STORE(6) AK_STORE(7)
#undef AK_STORE
}

}  // namespace aakaar::cpu::gemm_impl
