// Packing strips that need a transpose, 8 x 8 at a time in AVX2 registers.
//
// Linear's forward reads W^T (a column-major B) and x (a row-major A): both
// reach the packed order only through a transpose, which pack_a / pack_b in
// packed.h do one float at a time, a cache line per element. Here eight
// 8-float loads, one per column (or row) of the source, are transposed with
// 24 shuffles and stored as eight rows of the packed strip.
//
// Compiled with -mavx2 -mfma (CMakeLists.txt, *_avx2.cpp) and called only
// after the run-time check of kernel_tables.cpp. Like the kernels, it includes no
// standard headers with inline code, so no AVX2 copy of shared inline code
// can leak into the portable build at link time.
#include <immintrin.h>

#include <cstdint>

#include "cpu/gemm/microkernels.h"

namespace aakaar::cpu::gemm_impl {

namespace {

// r[0..7] = rows of an 8 x 8 block; on return r[i] holds column i.
inline void transpose8(__m256 r[8]) {
  const __m256 t0 = _mm256_unpacklo_ps(r[0], r[1]), t1 = _mm256_unpackhi_ps(r[0], r[1]);
  const __m256 t2 = _mm256_unpacklo_ps(r[2], r[3]), t3 = _mm256_unpackhi_ps(r[2], r[3]);
  const __m256 t4 = _mm256_unpacklo_ps(r[4], r[5]), t5 = _mm256_unpackhi_ps(r[4], r[5]);
  const __m256 t6 = _mm256_unpacklo_ps(r[6], r[7]), t7 = _mm256_unpackhi_ps(r[6], r[7]);
  const __m256 u0 = _mm256_shuffle_ps(t0, t2, 0x44), u1 = _mm256_shuffle_ps(t0, t2, 0xEE);
  const __m256 u2 = _mm256_shuffle_ps(t1, t3, 0x44), u3 = _mm256_shuffle_ps(t1, t3, 0xEE);
  const __m256 u4 = _mm256_shuffle_ps(t4, t6, 0x44), u5 = _mm256_shuffle_ps(t4, t6, 0xEE);
  const __m256 u6 = _mm256_shuffle_ps(t5, t7, 0x44), u7 = _mm256_shuffle_ps(t5, t7, 0xEE);
  r[0] = _mm256_permute2f128_ps(u0, u4, 0x20);
  r[1] = _mm256_permute2f128_ps(u1, u5, 0x20);
  r[2] = _mm256_permute2f128_ps(u2, u6, 0x20);
  r[3] = _mm256_permute2f128_ps(u3, u7, 0x20);
  r[4] = _mm256_permute2f128_ps(u0, u4, 0x31);
  r[5] = _mm256_permute2f128_ps(u1, u5, 0x31);
  r[6] = _mm256_permute2f128_ps(u2, u6, 0x31);
  r[7] = _mm256_permute2f128_ps(u3, u7, 0x31);
}

}  // namespace

// [[book:gemm_pack_b_transpose]]
// One full strip of B, nr wide (16 or 32: a multiple of 8), from a
// column-major source (B(k, j) at b[j * cs + k]): out[k * nr + j].
// Eight columns at a time, each walked down all of K: the source (Linear's
// batch, which arrives cold every step) is read as 8 sequential streams
// that the hardware prefetchers follow, not as nr streams each advancing
// 32 bytes at a time (too many for them to follow).
void pack_b_colmajor_avx2(int64_t kc, int nr, const float* b, int64_t cs, float* out) {
  const int64_t kfull = kc / 8 * 8;
  for (int j0 = 0; j0 < nr; j0 += 8) {
    for (int64_t k0 = 0; k0 < kfull; k0 += 8) {
      __m256 r[8];
      for (int j = 0; j < 8; ++j) r[j] = _mm256_loadu_ps(b + (j0 + j) * cs + k0);  // column j, 8 k's
      transpose8(r);  // r[k] = B(k0 + k, j0 .. j0 + 7)
      for (int k = 0; k < 8; ++k) _mm256_storeu_ps(out + (k0 + k) * nr + j0, r[k]);
    }
  }
  for (int64_t k = kfull; k < kc; ++k)
    for (int j = 0; j < nr; ++j) out[k * nr + j] = b[j * cs + k];
}
// [[/book:gemm_pack_b_transpose]]

// One full 6-tall strip of A from a row-major source (A(i, k) at
// a[i * rs + k]): out[k * 6 + i]. Two zero rows pad the 8 x 8 transpose.
// Each packed row is stored as 8 floats, in increasing k, so its 2 padding
// floats land where the next row then goes; the last row of a block is
// stored as 4 + 2 so nothing is written past it. (Not a masked store: on
// AMD cores vmaskmovps to memory is microcoded and slower than scalar code.)
void pack_a6_rowmajor_avx2(int64_t kc, const float* a, int64_t rs, float* out) {
  int64_t k0 = 0;
  for (; k0 + 8 <= kc; k0 += 8) {
    __m256 r[8];
    for (int i = 0; i < 6; ++i) r[i] = _mm256_loadu_ps(a + i * rs + k0);
    r[6] = r[7] = _mm256_setzero_ps();
    transpose8(r);
    float* o = out + k0 * 6;
    for (int k = 0; k < 7; ++k) _mm256_storeu_ps(o + k * 6, r[k]);
    _mm_storeu_ps(o + 42, _mm256_castps256_ps128(r[7]));
    _mm_storel_pi(reinterpret_cast<__m64*>(o + 46), _mm256_extractf128_ps(r[7], 1));
  }
  for (; k0 < kc; ++k0)
    for (int i = 0; i < 6; ++i) out[k0 * 6 + i] = a[i * rs + k0];
}

// One full strip of B, nr wide (a multiple of 8), from a row-major source
// (B(k, j) at b[k * rs + j]): a copy of nr floats per k, in 256-bit moves
// (the portable build would move them 128 bits at a time).
void pack_b_rowmajor_avx2(int64_t kc, int nr, const float* b, int64_t rs, float* out) {
  for (int64_t k = 0; k < kc; ++k)
    for (int j = 0; j < nr; j += 8) _mm256_storeu_ps(out + k * nr + j, _mm256_loadu_ps(b + k * rs + j));
}

// The same for the 8-tall strips of the AVX-512 kernel: a plain 8 x 8 transpose.
void pack_a8_rowmajor_avx2(int64_t kc, const float* a, int64_t rs, float* out) {
  int64_t k0 = 0;
  for (; k0 + 8 <= kc; k0 += 8) {
    __m256 r[8];
    for (int i = 0; i < 8; ++i) r[i] = _mm256_loadu_ps(a + i * rs + k0);
    transpose8(r);
    for (int k = 0; k < 8; ++k) _mm256_storeu_ps(out + (k0 + k) * 8, r[k]);
  }
  for (; k0 < kc; ++k0)
    for (int i = 0; i < 8; ++i) out[k0 * 8 + i] = a[i * rs + k0];
}

// The way back out for v6's C^T = W @ x^T (packed.h, orient): the kernel
// computed an 8 x n tile of C^T (row stride nr) and C is row-major, so the
// tile goes out transposed, 8 x 8 at a time: each column of the tile becomes
// 8 contiguous floats of a row of C (C(j, i) at c[j * ldc + i]). Fused on
// the way: + beta * C, then + bias[i] and ReLU (the Linear epilogue, whose
// bias runs along the tile's rows here) when `bias` / `relu` say so.
void store_tile_transposed_avx2(const float* tile, int nr, int64_t n, float* c, int64_t ldc, float beta,
                                const float* bias, bool relu) {
  const __m256 vb = _mm256_set1_ps(beta), zero = _mm256_setzero_ps();
  const __m256 vbias = bias != nullptr ? _mm256_loadu_ps(bias) : zero;
  for (int64_t j0 = 0; j0 < n; j0 += 8) {
    __m256 r[8];
    for (int i = 0; i < 8; ++i) r[i] = _mm256_loadu_ps(tile + i * nr + j0);
    transpose8(r);  // r[j] = tile(0..7, j0 + j) = C(j0 + j, 0..7)
    for (int64_t j = 0; j < 8 && j0 + j < n; ++j) {
      float* cj = c + (j0 + j) * ldc;
      __m256 v = r[j];
      if (beta != 0.0f) v = _mm256_fmadd_ps(vb, _mm256_loadu_ps(cj), v);
      v = _mm256_add_ps(v, vbias);
      // x < 0 ? 0 : x, as apply_epilogue: NaN stays NaN (the compare is false).
      if (relu) v = _mm256_blendv_ps(v, zero, _mm256_cmp_ps(v, zero, _CMP_LT_OQ));
      _mm256_storeu_ps(cj, v);
    }
  }
}

}  // namespace aakaar::cpu::gemm_impl
