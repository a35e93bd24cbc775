// Winograd's F(2x2, 3x3): a 3x3, stride-1 convolution in 16 multiplications per 2x2 block of
// outputs instead of 36 (Lavin and Gray, "Fast Algorithms for Convolutional Neural Networks",
// 2015). conv2d.cpp uses it for float32 3x3 kernels with stride and dilation 1 and enough
// channels, in the forward, for grad_input (a convolution of the output gradient with the
// kernel flipped) and for grad_weight (the same products, summed over tiles); float64 and every
// other geometry keep im2col.
//
// For one 4x4 tile d of the input and one 3x3 kernel g, the 2x2 outputs are
//
//   Y = A^T [ (G g G^T) * (B^T d B) ] A        (* elementwise, 4x4)
//
// with the constant matrices of winograd_loops.h and below. Over channels the elementwise
// products become sums, so for each of the 16 positions k of the 4x4:
//
//   M[k] (tiles, O) = V[k] (tiles, C) @ U[k] (C, O)
//
// with V the transformed input tiles and U the transformed kernels: 16 GEMMs with the library's
// own GEMM, 2.25 times fewer multiply-adds than im2col's one. The transforms add and subtract
// (and U halves), so float32 results differ from the direct sum by a few units in the last place,
// as PyTorch's oneDNN Winograd path does; float64 stays on im2col.
#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "cpu/backend_cpu.h"
#include "cpu/fused/conv2d_winograd.h"
#include "cpu/gemm/gemm.h"
#include "cpu/isa.h"
#include "cpu/parallel.h"

#define AK_KERNEL_NS baseline
#include "cpu/fused/winograd_loops.h"
#undef AK_KERNEL_NS

namespace aakaar::cpu {

#define AK_WINOGRAD_DECLS                                                                                     \
  void winograd_pad_to_hwc_f32(const float* in, int64_t C, int64_t H, int64_t W, int64_t pt, int64_t pl,    \
                               int64_t Hp, int64_t Wp, float* xp);                                           \
  void winograd_input_tiles_f32(const float* xp, int64_t C, int64_t Wp, int64_t th, int64_t tw, int64_t t0, \
                                int64_t t1, float* V, int64_t ldv, int64_t row0);                            \
  void winograd_output_tiles_f32(const float* M, int64_t ldm, int64_t row0, int64_t O, int64_t Ho,          \
                                 int64_t Wo, int64_t tw, int64_t t0, int64_t t1, const float* bias,          \
                                 float* out, float* tmp);                                                    \
  void winograd_hwc_to_chw_f32(const float* yt, int64_t P, int64_t O, float* out);                          \
  void winograd_grad_tiles_f32(const float* gp, int64_t O, int64_t tw, int64_t t0, int64_t t1, float* P,    \
                               int64_t ldp, int64_t row0);
namespace avx2 { AK_WINOGRAD_DECLS }
namespace avx512 { AK_WINOGRAD_DECLS }
namespace baseline { AK_WINOGRAD_INSTANTIATE }
#undef AK_WINOGRAD_DECLS

namespace {

struct WinogradFns {
  decltype(&baseline::winograd_pad_to_hwc_f32) pad;
  decltype(&baseline::winograd_input_tiles_f32) input;
  decltype(&baseline::winograd_output_tiles_f32) output;
  decltype(&baseline::winograd_hwc_to_chw_f32) to_chw;
  decltype(&baseline::winograd_grad_tiles_f32) grad;
};

WinogradFns winograd_fns() {
#if defined(__x86_64__) || defined(_M_X64)
  if (isa() == Isa::Avx512)
    return {avx512::winograd_pad_to_hwc_f32, avx512::winograd_input_tiles_f32, avx512::winograd_output_tiles_f32,
            avx512::winograd_hwc_to_chw_f32, avx512::winograd_grad_tiles_f32};
  if (isa() == Isa::Avx2)
    return {avx2::winograd_pad_to_hwc_f32, avx2::winograd_input_tiles_f32, avx2::winograd_output_tiles_f32,
            avx2::winograd_hwc_to_chw_f32, avx2::winograd_grad_tiles_f32};
#endif
  return {baseline::winograd_pad_to_hwc_f32, baseline::winograd_input_tiles_f32,
          baseline::winograd_output_tiles_f32, baseline::winograd_hwc_to_chw_f32, baseline::winograd_grad_tiles_f32};
}

// U[k] (C, O) = G g G^T for each kernel g (O, C, 3, 3), in double, rounded once.
//   G = [1 0 0; 1/2 1/2 1/2; 1/2 -1/2 1/2; 0 0 1]
// flip: the kernel of grad_input, g'[c][o] = g[o][c] rotated by 180 degrees (then C and O swap
// roles: U[k] is (O, C)).
std::vector<float> transform_kernels(const float* w, int64_t O, int64_t C, bool flip) {
  static const double G[4][3] = {{1, 0, 0}, {0.5, 0.5, 0.5}, {0.5, -0.5, 0.5}, {0, 0, 1}};
  const int64_t rows = flip ? O : C, cols = flip ? C : O;  // U[k] is (rows, cols)
  std::vector<float> U(16 * rows * cols);
  for (int64_t o = 0; o < O; ++o)
    for (int64_t c = 0; c < C; ++c) {
      const float* g = w + (o * C + c) * 9;
      double k3[3][3];
      for (int p = 0; p < 3; ++p)
        for (int q = 0; q < 3; ++q) k3[p][q] = flip ? g[(2 - p) * 3 + (2 - q)] : g[p * 3 + q];
      double t[4][3];  // G g
      for (int a = 0; a < 4; ++a)
        for (int q = 0; q < 3; ++q) t[a][q] = G[a][0] * k3[0][q] + G[a][1] * k3[1][q] + G[a][2] * k3[2][q];
      const int64_t at = flip ? o * cols + c : c * cols + o;
      for (int a = 0; a < 4; ++a)
        for (int b = 0; b < 4; ++b)
          U[(a * 4 + b) * rows * cols + at] = float(t[a][0] * G[b][0] + t[a][1] * G[b][1] + t[a][2] * G[b][2]);
    }
  return U;
}

// Tiles per block of the 16 GEMMs: about 128 rows each, so that V and M (16 x 128 x channels)
// stay in the core's L2 cache.
constexpr int64_t kBlockTiles = 128;

}  // namespace

bool winograd_applies(const Tensor& x, const Tensor& w, const Conv2dArgs& a) {
  const char* env = std::getenv("AAKAAR_CONV2D_ALGO");  // "im2col": the benchmark's A/B switch
  if (env && std::strcmp(env, "im2col") == 0) return false;
  return x.dtype == DType::Float32 && w.shape[2] == 3 && w.shape[3] == 3 && a.stride[0] == 1 &&
         a.stride[1] == 1 && a.dilation[0] == 1 && a.dilation[1] == 1 && a.groups == 1 && a.padding[0] <= 2 &&
         a.padding[1] <= 2 && x.shape[1] >= 8 && w.shape[0] >= 8;
}

// out (N, O, Ho, Wo) = the 3x3 stride-1 convolution of in (N, C, H, W) whose output (oh, ow)
// reads input rows oh - pt .. oh - pt + 2 and columns ow - pl .. ow - pl + 2 (zeros outside),
// with U from transform_kernels and an optional bias.
void winograd_conv3x3(const float* in, int64_t N, int64_t C, int64_t H, int64_t W, const std::vector<float>& U,
                      int64_t O, const float* bias, int64_t pt, int64_t pl, float* out, int64_t Ho, int64_t Wo) {
  const WinogradFns fn = winograd_fns();
  const int64_t th = (Ho + 1) / 2, tw = (Wo + 1) / 2, tiles = th * tw;
  const int64_t Hp = 2 * th + 2, Wp = 2 * tw + 2;
  // Images per block when an image has few tiles (a 14x14 map has 49): the GEMMs' rows.
  const int64_t per_block = std::max<int64_t>(1, kBlockTiles / tiles);
  const int64_t macs = 16 * tiles * C * O;
  const int64_t chunks = std::max<int64_t>(1, std::min<int64_t>({int64_t(get_num_threads()), N,
                                                                 std::max<int64_t>(1, N * macs / (1 << 20))}));
  parallel_for(0, chunks, 1, [&](int64_t c0, int64_t c1) {
    for (int64_t chunk = c0; chunk < c1; ++chunk) {
      const int64_t n0 = N * chunk / chunks, n1 = N * (chunk + 1) / chunks;
      const int64_t rows_max = std::min(per_block * tiles, std::max(tiles, kBlockTiles));
      std::vector<float> xp(per_block * Hp * Wp * C), V(16 * rows_max * C), M(16 * rows_max * O), tmp(4 * O);
      std::vector<float> yt(per_block * Ho * Wo * O);  // the block's outputs, channel-minor
      for (int64_t n = n0; n < n1; n += per_block) {
        const int64_t imgs = std::min(per_block, n1 - n);
        for (int64_t i = 0; i < imgs; ++i)
          fn.pad(in + (n + i) * C * H * W, C, H, W, pt, pl, Hp, Wp, xp.data() + i * Hp * Wp * C);
        // Blocks of rows over (image, tile): whole images when they are small, else parts of one.
        const int64_t total = imgs * tiles;
        for (int64_t r0 = 0; r0 < total; r0 += rows_max) {
          const int64_t r1 = std::min(total, r0 + rows_max), rows = r1 - r0;
          for (int64_t r = r0; r < r1;) {  // the block's tiles, image by image
            const int64_t img = r / tiles, t0 = r % tiles, t1 = std::min(tiles, t0 + (r1 - r));
            fn.input(xp.data() + img * Hp * Wp * C, C, Wp, th, tw, t0, t1, V.data(), rows * C, r - r0);
            r += t1 - t0;
          }
          // [[book:winograd_gemms]]
          for (int64_t k = 0; k < 16; ++k)  // M[k] (rows, O) = V[k] (rows, C) @ U[k] (C, O)
            gemm<float>(rows, O, C, 1.0f, V.data() + k * rows * C, C, 1, U.data() + k * C * O, O, 1, 0.0f,
                        M.data() + k * rows * O, O, 1);
          // [[/book:winograd_gemms]]
          for (int64_t r = r0; r < r1;) {
            const int64_t img = r / tiles, t0 = r % tiles, t1 = std::min(tiles, t0 + (r1 - r));
            fn.output(M.data(), rows * O, r - r0, O, Ho, Wo, tw, t0, t1, bias, yt.data() + img * Ho * Wo * O,
                      tmp.data());
            r += t1 - t0;
          }
        }
        for (int64_t i = 0; i < imgs; ++i)
          fn.to_chw(yt.data() + i * Ho * Wo * O, Ho * Wo, O, out + (n + i) * O * Ho * Wo);
      }
    }
  });
}

void conv2d_winograd(const Tensor& out, const Tensor& x, const Tensor& w, const Tensor* b, const Conv2dArgs& a) {
  const int64_t O = w.shape[0], C = x.shape[1];
  const std::vector<float> U = transform_kernels(w.data<float>(), O, C, false);
  winograd_conv3x3(x.data<float>(), x.shape[0], C, x.shape[2], x.shape[3], U, O, b ? b->data<float>() : nullptr,
                   a.padding[0], a.padding[1], out.data<float>(), out.shape[2], out.shape[3]);
}

void conv2d_winograd_grad_input(const Tensor& grad_x, const Tensor& g, const Tensor& w, const Conv2dArgs& a) {
  // grad_x[c][ih][iw] = sum over o, p, q of g[o][ih + pad - p][iw + pad - q] w[o][c][p][q]: a 3x3
  // convolution of g with the flipped kernel, reading g from row ih - (2 - pad).
  const int64_t O = w.shape[0], C = w.shape[1];
  const std::vector<float> U = transform_kernels(w.data<float>(), O, C, true);
  winograd_conv3x3(g.data<float>(), g.shape[0], O, g.shape[2], g.shape[3], U, C, nullptr, 2 - a.padding[0],
                   2 - a.padding[1], grad_x.data<float>(), grad_x.shape[2], grad_x.shape[3]);
}


void conv2d_winograd_grad_weight(const Tensor& grad_w, const Tensor& g, const Tensor& x, const Conv2dArgs& a) {
  // dL/dU[k] = sum over tiles of V[k] (x's transformed tiles) times P[k] (g's, A e A^T), an
  // elementwise product per tile that over channels is the GEMM dU[k] (C, O) += V[k]^T P[k];
  // then dL/dw = G^T dU G for each kernel (the adjoint of U = G w G^T).
  const WinogradFns fn = winograd_fns();
  const int64_t N = x.shape[0], C = x.shape[1], H = x.shape[2], W = x.shape[3];
  const int64_t O = g.shape[1], Ho = g.shape[2], Wo = g.shape[3];
  const int64_t th = (Ho + 1) / 2, tw = (Wo + 1) / 2, tiles = th * tw;
  const int64_t Hp = 2 * th + 2, Wp = 2 * tw + 2;
  const int64_t per_block = std::max<int64_t>(1, kBlockTiles / tiles);
  const int64_t rows_max = std::min(per_block * tiles, std::max(tiles, kBlockTiles));
  const int64_t macs = 16 * tiles * C * O;
  const int64_t chunks = std::max<int64_t>(1, std::min<int64_t>({int64_t(get_num_threads()), N,
                                                                 std::max<int64_t>(1, N * macs / (1 << 20))}));
  const float* X = x.data<float>();
  const float* Gy = g.data<float>();
  std::vector<float> dU(chunks * 16 * C * O, 0.0f);  // each chunk's own sum, added in order below
  parallel_for(0, chunks, 1, [&](int64_t c0, int64_t c1) {
    for (int64_t chunk = c0; chunk < c1; ++chunk) {
      const int64_t n0 = N * chunk / chunks, n1 = N * (chunk + 1) / chunks;
      float* du = dU.data() + chunk * 16 * C * O;
      std::vector<float> xp(per_block * Hp * Wp * C), gp(per_block * 4 * tiles * O);
      std::vector<float> V(16 * rows_max * C), P(16 * rows_max * O);
      for (int64_t n = n0; n < n1; n += per_block) {
        const int64_t imgs = std::min(per_block, n1 - n);
        for (int64_t i = 0; i < imgs; ++i) {
          fn.pad(X + (n + i) * C * H * W, C, H, W, a.padding[0], a.padding[1], Hp, Wp, xp.data() + i * Hp * Wp * C);
          fn.pad(Gy + (n + i) * O * Ho * Wo, O, Ho, Wo, 0, 0, 2 * th, 2 * tw, gp.data() + i * 4 * tiles * O);
        }
        const int64_t total = imgs * tiles;
        for (int64_t r0 = 0; r0 < total; r0 += rows_max) {
          const int64_t r1 = std::min(total, r0 + rows_max), rows = r1 - r0;
          for (int64_t r = r0; r < r1;) {
            const int64_t img = r / tiles, t0 = r % tiles, t1 = std::min(tiles, t0 + (r1 - r));
            fn.input(xp.data() + img * Hp * Wp * C, C, Wp, th, tw, t0, t1, V.data(), rows * C, r - r0);
            fn.grad(gp.data() + img * 4 * tiles * O, O, tw, t0, t1, P.data(), rows * O, r - r0);
            r += t1 - t0;
          }
          for (int64_t k = 0; k < 16; ++k)  // dU[k] (C, O) += V[k]^T (C, rows) @ P[k] (rows, O)
            gemm<float>(C, O, rows, 1.0f, V.data() + k * rows * C, 1, C, P.data() + k * rows * O, O, 1, 1.0f,
                        du + k * C * O, O, 1);
        }
      }
    }
  });
  static const double G[4][3] = {{1, 0, 0}, {0.5, 0.5, 0.5}, {0.5, -0.5, 0.5}, {0, 0, 1}};
  float* gw = grad_w.data<float>();
  for (int64_t o = 0; o < O; ++o)
    for (int64_t c = 0; c < C; ++c) {
      double u[16];
      for (int k = 0; k < 16; ++k) {
        double sum = 0;
        for (int64_t ch = 0; ch < chunks; ++ch) sum += double(dU[(ch * 16 + k) * C * O + c * O + o]);
        u[k] = sum;
      }
      for (int p = 0; p < 3; ++p)
        for (int q = 0; q < 3; ++q) {
          double acc = 0;
          for (int ai = 0; ai < 4; ++ai)
            for (int bi = 0; bi < 4; ++bi) acc += G[ai][p] * u[ai * 4 + bi] * G[bi][q];
          gw[(o * C + c) * 9 + p * 3 + q] = float(acc);
        }
    }
}

}  // namespace aakaar::cpu
