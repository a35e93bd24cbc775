// The data movements of Winograd's F(2x2, 3x3) convolution (conv2d_winograd.cpp), compiled once
// per instruction set (winograd_avx2.cpp, winograd_avx512.cpp, and the baseline in
// conv2d_winograd.cpp; cpu/isa.h chooses).
//
// Every loop's innermost index runs over channels, which the layouts keep contiguous: the image
// is copied to (rows, columns, channels) first, so that the 16 pixels of a tile are 16 rows of
// channel values and each transform is a few vector additions over them. The compiler vectorises
// these loops with the instruction set the file is compiled for.
#include <algorithm>
#include <cstdint>
#include <cstring>

#if defined(__AVX512F__)
#include <immintrin.h>
#endif

#ifndef AK_KERNEL_NS
#error "define AK_KERNEL_NS before including winograd_loops.h"
#endif

// Vec16 values passed between the inline helpers below would change the calling convention
// without AVX-512 (GCC warns); they are always inlined into one translation unit.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wpsabi"

namespace aakaar::cpu::AK_KERNEL_NS {

// Channels in blocks of 16 as one GCC vector: the compiler maps it to one AVX-512 register, two
// AVX2 or four SSE ones. Arrays of channels are read and written with memcpy (unaligned).
typedef float Vec16 __attribute__((vector_size(64)));
template <typename V>
inline V load_v(const float* p) {
  V v;
  std::memcpy(&v, p, sizeof(V));
  return v;
}
template <typename V>
inline void store_v(float* p, const V& v) {
  std::memcpy(p, &v, sizeof(V));
}

// dst[c][r] = src[r lds + c] for r < nr, c < nc: a block of up to 16 x 16 transposed, each
// column of src written as a row at its own destination. With AVX-512 in registers: four rounds
// of two-register permutes, each swapping one bit of the row index with the same bit of the
// column index; elsewhere element by element.
inline void transpose16(const float* __restrict src, int64_t lds, int nr, int nc, float* const* dst) {
#ifdef __AVX512F__
  __m512 r[16];  // fully unrolled below, so that r lives in registers
  if (nr == 16 && nc == 16) {
#pragma GCC unroll 16
    for (int i = 0; i < 16; ++i) r[i] = _mm512_loadu_ps(src + i * lds);
  } else {
    const __mmask16 cols = nc >= 16 ? __mmask16(0xFFFF) : __mmask16((1u << nc) - 1);
#pragma GCC unroll 16
    for (int i = 0; i < 16; ++i) r[i] = i < nr ? _mm512_maskz_loadu_ps(cols, src + i * lds) : _mm512_setzero_ps();
  }
  // Round `bit`: rows i and i | bit exchange the columns whose index has `bit` set.
  static constexpr int kIdx[4][2][16] = {
      {{0, 16, 2, 18, 4, 20, 6, 22, 8, 24, 10, 26, 12, 28, 14, 30},
       {1, 17, 3, 19, 5, 21, 7, 23, 9, 25, 11, 27, 13, 29, 15, 31}},
      {{0, 1, 16, 17, 4, 5, 20, 21, 8, 9, 24, 25, 12, 13, 28, 29},
       {2, 3, 18, 19, 6, 7, 22, 23, 10, 11, 26, 27, 14, 15, 30, 31}},
      {{0, 1, 2, 3, 16, 17, 18, 19, 8, 9, 10, 11, 24, 25, 26, 27},
       {4, 5, 6, 7, 20, 21, 22, 23, 12, 13, 14, 15, 28, 29, 30, 31}},
      {{0, 1, 2, 3, 4, 5, 6, 7, 16, 17, 18, 19, 20, 21, 22, 23},
       {8, 9, 10, 11, 12, 13, 14, 15, 24, 25, 26, 27, 28, 29, 30, 31}}};
#pragma GCC unroll 4
  for (int round = 0; round < 4; ++round) {
    const int bit = 1 << round;
    const __m512i ilo = _mm512_loadu_si512(kIdx[round][0]), ihi = _mm512_loadu_si512(kIdx[round][1]);
#pragma GCC unroll 16
    for (int i = 0; i < 16; ++i) {
      if (i & bit) continue;
      const __m512 a = r[i], b = r[i | bit];
      r[i] = _mm512_permutex2var_ps(a, ilo, b);
      r[i | bit] = _mm512_permutex2var_ps(a, ihi, b);
    }
  }
  if (nr == 16 && nc == 16) {
#pragma GCC unroll 16
    for (int c = 0; c < 16; ++c) _mm512_storeu_ps(dst[c], r[c]);
  } else {
    const __mmask16 rows = nr >= 16 ? __mmask16(0xFFFF) : __mmask16((1u << nr) - 1);
#pragma GCC unroll 16
    for (int c = 0; c < 16; ++c)
      if (c < nc) _mm512_mask_storeu_ps(dst[c], rows, r[c]);
  }
#else
  for (int c = 0; c < nc; ++c)
    for (int rr = 0; rr < nr; ++rr) dst[c][rr] = src[rr * lds + c];
#endif
}

// xp (Hp, Wp, C), zero outside the image: xp[r][s][c] = in[c][r - pt][s - pl]. A transposition,
// 16 channels by 16 pixels at a time.
inline void winograd_pad_to_hwc(const float* __restrict in, int64_t C, int64_t H, int64_t W, int64_t pt,
                                int64_t pl, int64_t Hp, int64_t Wp, float* __restrict xp) {
  std::fill(xp, xp + Hp * Wp * C, 0.0f);
  const int64_t HW = H * W;
  float scratch[16];  // where the pixels that fall outside xp go (none, for the paddings used)
  float* dst[16];
  for (int64_t c0 = 0; c0 < C; c0 += 16) {
    const int nch = int(std::min<int64_t>(16, C - c0));
    for (int64_t p0 = 0; p0 < HW; p0 += 16) {
      const int npix = int(std::min<int64_t>(16, HW - p0));
      for (int k = 0; k < npix; ++k) {
        const int64_t p = p0 + k, r = p / W + pt, s = p % W + pl;
        dst[k] = (r < 0 || r >= Hp || s < 0 || s >= Wp) ? scratch : xp + (r * Wp + s) * C + c0;
      }
      transpose16(in + c0 * HW + p0, HW, nch, npix, dst);
    }
  }
}

// [[book:winograd_input_tile]]
// V = B^T d B for 16 (or, at the end, one) channels of one tile, d its 4x4 pixels at d + (r Wp + s) C.
//   B^T = [1 0 -1 0; 0 1 1 0; 0 -1 1 0; 0 1 0 -1]
template <typename V>
inline void input_tile(const float* d, int64_t C, int64_t Wp, float* v, int64_t ldv) {
  V x[4][4], u[4][4];
  for (int r = 0; r < 4; ++r)
    for (int s = 0; s < 4; ++s) x[r][s] = load_v<V>(d + (r * Wp + s) * C);
  for (int s = 0; s < 4; ++s) {  // u = B^T x, down each column
    u[0][s] = x[0][s] - x[2][s];
    u[1][s] = x[1][s] + x[2][s];
    u[2][s] = x[2][s] - x[1][s];
    u[3][s] = x[1][s] - x[3][s];
  }
  for (int r = 0; r < 4; ++r) {  // (u B) along each row
    store_v<V>(v + (4 * r + 0) * ldv, u[r][0] - u[r][2]);
    store_v<V>(v + (4 * r + 1) * ldv, u[r][1] + u[r][2]);
    store_v<V>(v + (4 * r + 2) * ldv, u[r][2] - u[r][1]);
    store_v<V>(v + (4 * r + 3) * ldv, u[r][1] - u[r][3]);
  }
}

// [[/book:winograd_input_tile]]

// For tiles t0..t1 of one image (tile t = i tw + j starts at row 2i, column 2j of src, a
// (rows, row_w, C) channel-minor array), calls tile(zero, from, to) for each block of 16 channels
// and then each remaining channel: `zero` is a Vec16 or a float (the type to compute in), `from`
// the block's first channel in the tile's corner pixel, `to` in row row0 + t - t0 of dst (C wide).
template <typename TileFn>
inline void over_tiles(const float* src, int64_t C, int64_t row_w, int64_t tw, int64_t t0, int64_t t1, float* dst,
                       int64_t row0, const TileFn& tile) {
  for (int64_t t = t0; t < t1; ++t) {
    const int64_t i = t / tw, j = t % tw;
    const float* from = src + (2 * i * row_w + 2 * j) * C;
    float* to = dst + (row0 + t - t0) * C;
    int64_t c = 0;
    for (; c + 16 <= C; c += 16) tile(Vec16{}, from + c, to + c);
    for (; c < C; ++c) tile(0.0f, from + c, to + c);
  }
}

// The transformed tiles t0..t1 of one image, its pixels in xp, to rows row0.. of the 16
// matrices V[k] (tiles, C), V[k] = V + k ldv.
inline void winograd_input_tiles(const float* __restrict xp, int64_t C, int64_t Wp, int64_t th, int64_t tw,
                                 int64_t t0, int64_t t1, float* __restrict V, int64_t ldv, int64_t row0) {
  (void)th;
  over_tiles(xp, C, Wp, tw, t0, t1, V, row0, [&](auto zero, const float* from, float* to) {
    input_tile<decltype(zero)>(from, C, Wp, to, ldv);
  });
}

// [[book:winograd_output_tile]]
// Y = A^T p A (+ bias) for 16 (or one) output channels of one tile, p its 16 products at
// m + k ldm; the four outputs to y[0..3] (each `stride` apart).
//   A^T = [1 1 1 0; 0 1 -1 -1]
template <typename V>
inline void output_tile(const float* m, int64_t ldm, const float* bias, float* y, int64_t stride) {
  V p[4][4], q[2][4];
  for (int k = 0; k < 16; ++k) p[k / 4][k % 4] = load_v<V>(m + k * ldm);
  for (int s = 0; s < 4; ++s) {  // q = A^T p, down each column
    q[0][s] = p[0][s] + p[1][s] + p[2][s];
    q[1][s] = p[1][s] - p[2][s] - p[3][s];
  }
  V b = p[0][0] - p[0][0];  // zeros of the right type
  if (bias) b = b + load_v<V>(bias);
  store_v<V>(y, q[0][0] + q[0][1] + q[0][2] + b);
  store_v<V>(y + stride, q[0][1] - q[0][2] - q[0][3] + b);
  store_v<V>(y + 2 * stride, q[1][0] + q[1][1] + q[1][2] + b);
  store_v<V>(y + 3 * stride, q[1][1] - q[1][2] - q[1][3] + b);
}

// [[/book:winograd_output_tile]]

// For the weight gradient: P = A e A^T for 16 (or one) output channels of one tile, e the tile's
// 2x2 output gradients at e + (a Wg + b) O, the 16 results to p + k ldp. (The adjoint of the
// output transform: the gradient of Y = A^T P A with respect to P.)
//   A = [1 0; 1 1; 1 -1; 0 -1]
template <typename V>
inline void grad_tile(const float* e, int64_t O, int64_t Wg, float* p, int64_t ldp) {
  const V e00 = load_v<V>(e), e01 = load_v<V>(e + O), e10 = load_v<V>(e + Wg * O), e11 = load_v<V>(e + Wg * O + O);
  const V u[4][2] = {{e00, e01}, {e00 + e10, e01 + e11}, {e00 - e10, e01 - e11}, {-e10, -e11}};  // A e
  for (int r = 0; r < 4; ++r) {  // (A e) A^T along each row
    store_v<V>(p + (4 * r + 0) * ldp, u[r][0]);
    store_v<V>(p + (4 * r + 1) * ldp, u[r][0] + u[r][1]);
    store_v<V>(p + (4 * r + 2) * ldp, u[r][0] - u[r][1]);
    store_v<V>(p + (4 * r + 3) * ldp, -u[r][1]);
  }
}

// The transformed output-gradient tiles t0..t1 of one image, gp (2 th, 2 tw, O) channel-minor
// and zero past the output's edge, to rows row0.. of the 16 matrices P[k] (tiles, O).
inline void winograd_grad_tiles(const float* __restrict gp, int64_t O, int64_t tw, int64_t t0, int64_t t1,
                                float* __restrict P, int64_t ldp, int64_t row0) {
  over_tiles(gp, O, 2 * tw, tw, t0, t1, P, row0, [&](auto zero, const float* from, float* to) {
    grad_tile<decltype(zero)>(from, O, 2 * tw, to, ldp);
  });
}

// The outputs of tiles t0..t1 of one image from rows row0.. of the products M[k] (tiles, O):
// tile t's 2x2 block of pixels goes to yt (Ho Wo, O), the image's outputs channel-minor, at rows
// 2i, 2i + 1 and columns 2j, 2j + 1 where those lie inside. tmp holds 4 O floats.
inline void winograd_output_tiles(const float* __restrict M, int64_t ldm, int64_t row0, int64_t O, int64_t Ho,
                                  int64_t Wo, int64_t tw, int64_t t0, int64_t t1, const float* __restrict bias,
                                  float* __restrict yt, float* __restrict tmp) {
  for (int64_t t = t0; t < t1; ++t) {
    const int64_t i = t / tw, j = t % tw;
    const float* m = M + (row0 + t - t0) * O;
    const int64_t r = 2 * i, s = 2 * j;
    const bool right = s + 1 < Wo, down = r + 1 < Ho;
    float* y = yt + (r * Wo + s) * O;
    int64_t o = 0;
    for (; o + 16 <= O; o += 16) output_tile<Vec16>(m + o, ldm, bias ? bias + o : nullptr, tmp + o, O);
    for (; o < O; ++o) output_tile<float>(m + o, ldm, bias ? bias + o : nullptr, tmp + o, O);
    std::memcpy(y, tmp, sizeof(float) * O);
    if (right) std::memcpy(y + O, tmp + O, sizeof(float) * O);
    if (down) {
      std::memcpy(y + Wo * O, tmp + 2 * O, sizeof(float) * O);
      if (right) std::memcpy(y + Wo * O + O, tmp + 3 * O, sizeof(float) * O);
    }
  }
}

// out (O, P) = yt (P, O) transposed, 16 by 16.
inline void winograd_hwc_to_chw(const float* __restrict yt, int64_t P, int64_t O, float* __restrict out) {
  float* dst[16];
  for (int64_t p0 = 0; p0 < P; p0 += 16) {
    const int npix = int(std::min<int64_t>(16, P - p0));
    for (int64_t o0 = 0; o0 < O; o0 += 16) {
      const int nch = int(std::min<int64_t>(16, O - o0));
      for (int k = 0; k < nch; ++k) dst[k] = out + (o0 + k) * P + p0;
      transpose16(yt + p0 * O + o0, O, npix, nch, dst);
    }
  }
}

}  // namespace aakaar::cpu::AK_KERNEL_NS

#pragma GCC diagnostic pop

#define AK_WINOGRAD_INSTANTIATE                                                                                \
  void winograd_pad_to_hwc_f32(const float* in, int64_t C, int64_t H, int64_t W, int64_t pt, int64_t pl,     \
                               int64_t Hp, int64_t Wp, float* xp) {                                           \
    winograd_pad_to_hwc(in, C, H, W, pt, pl, Hp, Wp, xp);                                                     \
  }                                                                                                            \
  void winograd_input_tiles_f32(const float* xp, int64_t C, int64_t Wp, int64_t th, int64_t tw, int64_t t0,  \
                                int64_t t1, float* V, int64_t ldv, int64_t row0) {                            \
    winograd_input_tiles(xp, C, Wp, th, tw, t0, t1, V, ldv, row0);                                            \
  }                                                                                                            \
  void winograd_output_tiles_f32(const float* M, int64_t ldm, int64_t row0, int64_t O, int64_t Ho, int64_t Wo, \
                                 int64_t tw, int64_t t0, int64_t t1, const float* bias, float* out,            \
                                 float* tmp) {                                                                 \
    winograd_output_tiles(M, ldm, row0, O, Ho, Wo, tw, t0, t1, bias, out, tmp);                               \
  }                                                                                                            \
  void winograd_hwc_to_chw_f32(const float* yt, int64_t P, int64_t O, float* out) {                            \
    winograd_hwc_to_chw(yt, P, O, out);                                                                       \
  }                                                                                                            \
  void winograd_grad_tiles_f32(const float* gp, int64_t O, int64_t tw, int64_t t0, int64_t t1, float* P,       \
                               int64_t ldp, int64_t row0) {                                                    \
    winograd_grad_tiles(gp, O, tw, t0, t1, P, ldp, row0);                                                     \
  }
