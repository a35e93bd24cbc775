// The device's 2-d convolution: the backend entries `conv2d` and `conv2d_backward`
// (core/backend.h), as implicit GEMMs. conv1d, conv3d and the transposed convolutions
// reach these two entries too (nn/functional_conv.py reshapes them into conv2d).
//
// The CPU (cpu/fused/conv2d.cpp) copies every receptive field into a column of a matrix
// (im2col) and multiplies. Here no such matrix exists: one tiled GEMM kernel computes
// C (M, N) = A (M, K) @ B (K, N) per group, and a problem type says where each element
// of A and B lives -- the tile loader works out the input pixel an im2col column would
// have held, and reads zero for a tap in the padding. The three products of a convolution:
//
//   forward      out[n, o, i, j]    M = O/G (o)   N = N Ho Wo (n, i, j)   K = C/G kH kW (c, p, q)
//                A = w[o, c, p, q]   B = x[n, c, i s0 - pad0 + p d0, j s1 - pad1 + q d1]
//   grad weight  gw[o, c, p, q]     M = O/G (o)   N = C/G kH kW           K = N Ho Wo
//                A = g[n, o, i, j]   B = the forward's B, transposed
//   grad input   gx[n, c, h, v]     M = C/G (c)   N = N H W (n, h, v)     K = O/G kH kW (o, p, q)
//                A = w[o, c, p, q]   B = g[n, o, (h + pad0 - p d0) / s0, (v + pad1 - q d1) / s1]
//                                        where both divisions are exact and in range, else 0
//
// Every output element is one thread's own sum in a fixed order (no atomics): a given
// launch always gives the same bits. When the output has too few tiles to fill the device
// (the weight gradient), K is cut into chunks summed by separate blocks into a scratch
// buffer, and a second kernel adds the chunks in order. The bias gradient is a block per channel, summed in
// double as the CPU does.
#include <algorithm>
#include <climits>
#include <cstdint>

#include "core/error.h"
#include "cuda/allocator.h"
#include "cuda/backend_cuda.h"
#include "cuda/launch_config.cuh"
#include "cuda/row_reduce.cuh"

namespace aakaar::cuda {
namespace {

// The sizes of one call (the CPU's names): N images of C channels, H x W, into O channels,
// Ho x Wo, kernel kH x kW, G groups of Cg input and Og output channels.
struct ConvShape {
  int64_t N, C, H, W, O, kH, kW, Ho, Wo, G, Cg, Og;
  int s0, s1, pad0, pad1, d0, d1;
};

ConvShape conv_shape(const Tensor& x, const Tensor& w, const Shape& out_shape, const Conv2dArgs& a) {
  ConvShape s{};
  s.N = x.shape[0], s.C = x.shape[1], s.H = x.shape[2], s.W = x.shape[3];
  s.O = w.shape[0], s.kH = w.shape[2], s.kW = w.shape[3];
  s.Ho = out_shape[2], s.Wo = out_shape[3];
  s.G = a.groups, s.Cg = s.C / s.G, s.Og = s.O / s.G;
  s.s0 = static_cast<int>(a.stride[0]), s.s1 = static_cast<int>(a.stride[1]);
  s.pad0 = static_cast<int>(a.padding[0]), s.pad1 = static_cast<int>(a.padding[1]);
  s.d0 = static_cast<int>(a.dilation[0]), s.d1 = static_cast<int>(a.dilation[1]);
  return s;
}

// ---- the tiled kernel ----------------------------------------------------------------------
// A block computes a 64 x 64 tile of C in steps of 16 along K; each of its 256 threads owns
// a 4 x 4 fragment (rows ty + 16 i, columns tx + 16 j, so neighbouring threads read
// neighbouring shared words). Each thread loads 4 elements of A's tile and 4 of B's per step;
// its B elements stay in one column (tid % 64), so the problem decodes that column (which
// image, which pixel) once per block, not once per element.
constexpr int kBM = 64, kBN = 64, kBK = 16, kThreads = 256;

// [[book:cuda_implicit_gemm]]
template <typename T, typename Problem>
__global__ void __launch_bounds__(kThreads) implicit_gemm_kernel(Problem pb, int64_t k_chunk, T* partial) {
  __shared__ T As[kBK][kBM];
  __shared__ T Bs[kBK][kBN];
  const int tid = threadIdx.x, tx = tid % 16, ty = tid / 16;
  // blockIdx.x: the column tile, and which chunk of K (split) this block sums
  const int64_t tiles_n = (pb.N + kBN - 1) / kBN, split = blockIdx.x / tiles_n;
  const int64_t grp = blockIdx.z, m0 = int64_t(blockIdx.y) * kBM, n0 = blockIdx.x % tiles_n * kBN;
  const int64_t k_begin = split * k_chunk, k_end = min(pb.K, k_begin + k_chunk);
  const int b_n = tid % kBN, b_k = tid / kBN;  // B elements (b_k + 4 i, b_n) of each step
  const typename Problem::Col col = pb.col(grp, n0 + b_n);
  T acc[4][4] = {};
  for (int64_t k0 = k_begin; k0 < k_end; k0 += kBK) {
    for (int i = 0; i < 4; ++i) {
      const int e = tid + i * kThreads, am = e / kBK, ak = e % kBK;  // A: 16 consecutive k per row
      As[ak][am] = m0 + am < pb.M && k0 + ak < k_end ? pb.a(grp, m0 + am, k0 + ak) : T(0);
      const int bk = b_k + 4 * i;
      Bs[bk][b_n] = col.valid && k0 + bk < k_end ? pb.b(col, k0 + bk) : T(0);
    }
    __syncthreads();
    for (int kk = 0; kk < kBK; ++kk) {
      T ra[4], rb[4];
      for (int i = 0; i < 4; ++i) ra[i] = As[kk][ty + 16 * i], rb[i] = Bs[kk][tx + 16 * i];
      for (int i = 0; i < 4; ++i)
        for (int j = 0; j < 4; ++j) acc[i][j] += ra[i] * rb[j];
    }
    __syncthreads();  // the tiles are overwritten by the next step
  }
  for (int i = 0; i < 4; ++i)
    for (int j = 0; j < 4; ++j) {
      const int64_t m = m0 + ty + 16 * i, n = n0 + tx + 16 * j;
      if (m >= pb.M || n >= pb.N) continue;
      if (partial) partial[((split * gridDim.z + grp) * pb.M + m) * pb.N + n] = acc[i][j];
      else pb.store(grp, m, n, acc[i][j]);
    }
}
// [[/book:cuda_implicit_gemm]]

// The forward's B: column n = (image, i, j) of the im2col matrix, row k = (c, p, q).
template <typename T>
struct Im2colColumn {
  bool valid;
  const T* x;  // the image's first channel of the group
  int ih0, iw0;  // the tap (0, 0)'s pixel, maybe in the padding
};

template <typename T>
__device__ __forceinline__ Im2colColumn<T> im2col_column(const ConvShape& s, const T* x, int64_t grp, int64_t n) {
  Im2colColumn<T> c{};
  const int64_t hw = s.Ho * s.Wo;
  c.valid = n < s.N * hw;
  if (!c.valid) return c;
  const int64_t img = n / hw, r = n % hw;
  c.x = x + (img * s.C + grp * s.Cg) * s.H * s.W;
  c.ih0 = static_cast<int>(r / s.Wo) * s.s0 - s.pad0;
  c.iw0 = static_cast<int>(r % s.Wo) * s.s1 - s.pad1;
  return c;
}

// Row k = (c, p, q) of an im2col column: the pixel tap (p, q) of channel c meets, 0 in the padding.
template <typename T>
__device__ __forceinline__ T im2col_at(const ConvShape& s, const Im2colColumn<T>& c, int64_t k) {
  const int64_t kk = s.kH * s.kW, ch = k / kk, r = k % kk;
  const int64_t ih = c.ih0 + (r / s.kW) * s.d0, iw = c.iw0 + (r % s.kW) * s.d1;
  return ih >= 0 && ih < s.H && iw >= 0 && iw < s.W ? c.x[(ch * s.H + ih) * s.W + iw] : T(0);
}

template <typename T>
struct ForwardProblem {
  using Col = Im2colColumn<T>;
  ConvShape s;
  int64_t M, N, K;
  const T *x, *w, *bias;
  T* out;
  __device__ Col col(int64_t grp, int64_t n) const { return im2col_column(s, x, grp, n); }
  __device__ T a(int64_t grp, int64_t m, int64_t k) const { return w[(grp * s.Og + m) * K + k]; }
  __device__ T b(const Col& c, int64_t k) const { return im2col_at(s, c, k); }
  __device__ void store(int64_t grp, int64_t m, int64_t n, T v) const {
    const int64_t hw = s.Ho * s.Wo, o = grp * s.Og + m;
    out[((n / hw) * s.O + o) * hw + n % hw] = bias ? v + bias[o] : v;
  }
};

// grad weight: B's column n is row n = (c, p, q) of im2col, its row k = (image, i, j).
struct TapColumn {
  bool valid;
  int64_t ch;  // the input channel, counted from the first of all groups
  int p, q;
};

template <typename T>
struct WeightGradProblem {
  using Col = TapColumn;
  ConvShape s;
  int64_t M, N, K;
  const T *x, *g;
  T* gw;
  __device__ Col col(int64_t grp, int64_t n) const {
    const int64_t kk = s.kH * s.kW;
    return {n < N, grp * s.Cg + n / kk, static_cast<int>(n % kk / s.kW), static_cast<int>(n % s.kW)};
  }
  __device__ T a(int64_t grp, int64_t m, int64_t k) const {
    const int64_t hw = s.Ho * s.Wo;
    return g[((k / hw) * s.O + grp * s.Og + m) * hw + k % hw];
  }
  __device__ T b(const Col& c, int64_t k) const {
    const int64_t hw = s.Ho * s.Wo, img = k / hw, r = k % hw;
    const int64_t ih = (r / s.Wo) * s.s0 - s.pad0 + c.p * s.d0, iw = (r % s.Wo) * s.s1 - s.pad1 + c.q * s.d1;
    return ih >= 0 && ih < s.H && iw >= 0 && iw < s.W
               ? x[((img * s.C + c.ch) * s.H + ih) * s.W + iw]
               : T(0);
  }
  __device__ void store(int64_t grp, int64_t m, int64_t n, T v) const { gw[(grp * s.Og + m) * N + n] = v; }
};

// grad input: B's column n = (image, h, v), its row k = (o, p, q): the output position whose
// tap (p, q) read pixel (h, v), when there is one.
template <typename T>
struct PixelColumn {
  bool valid;
  const T* g;  // the image's first output channel of the group
  int th, tv;  // h + pad0, v + pad1
};

template <typename T>
struct InputGradProblem {
  using Col = PixelColumn<T>;
  ConvShape s;
  int64_t M, N, K;
  const T *w, *g;
  T* gx;
  __device__ Col col(int64_t grp, int64_t n) const {
    Col c{};
    const int64_t hw = s.H * s.W;
    c.valid = n < N;
    if (!c.valid) return c;
    const int64_t img = n / hw, r = n % hw;
    c.g = g + (img * s.O + grp * s.Og) * s.Ho * s.Wo;
    c.th = static_cast<int>(r / s.W) + s.pad0;
    c.tv = static_cast<int>(r % s.W) + s.pad1;
    return c;
  }
  __device__ T a(int64_t grp, int64_t m, int64_t k) const {
    const int64_t kk = s.kH * s.kW;  // k = (o, tap): w[grp Og + o, m, tap]
    return w[((grp * s.Og + k / kk) * s.Cg + m) * kk + k % kk];
  }
  __device__ T b(const Col& c, int64_t k) const {
    const int64_t kk = s.kH * s.kW, o = k / kk, r = k % kk;
    const int oh_s = c.th - static_cast<int>(r / s.kW) * s.d0, ow_s = c.tv - static_cast<int>(r % s.kW) * s.d1;
    if (oh_s < 0 || ow_s < 0 || oh_s % s.s0 != 0 || ow_s % s.s1 != 0) return T(0);
    const int64_t oh = oh_s / s.s0, ow = ow_s / s.s1;
    return oh < s.Ho && ow < s.Wo ? c.g[(o * s.Ho + oh) * s.Wo + ow] : T(0);
  }
  __device__ void store(int64_t grp, int64_t m, int64_t n, T v) const {
    const int64_t hw = s.H * s.W;
    gx[((n / hw) * s.C + grp * s.Cg + m) * hw + n % hw] = v;
  }
};

// A split's partial sums, added in split order (the same bits on every run) and stored.
template <typename T, typename Problem>
__global__ void sum_splits_kernel(Problem pb, int64_t groups, int64_t splits, const T* partial) {
  const int64_t total = groups * pb.M * pb.N;
  for (int64_t e = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; e < total; e += int64_t(gridDim.x) * blockDim.x) {
    T acc = 0;
    for (int64_t sp = 0; sp < splits; ++sp) acc += partial[sp * total + e];
    pb.store(e / (pb.M * pb.N), e / pb.N % pb.M, e % pb.N, acc);
  }
}

// How many chunks K is cut into: one, unless the output tiles are too few to keep every
// multiprocessor busy (the weight gradient: a small output, a sum over every image and
// position); then enough to give each about two blocks, each chunk at least 128 deep.
int64_t k_splits(int64_t tiles, int64_t K) {
  const int64_t wanted = 2 * int64_t(multiprocessor_count());
  if (tiles >= wanted) return 1;
  return std::max<int64_t>(1, std::min<int64_t>({(wanted + tiles - 1) / tiles, K / 128, 64}));
}

template <typename T, typename Problem>
void launch_gemm(const Problem& pb, int64_t groups) {
  const int64_t tiles_n = (pb.N + kBN - 1) / kBN, gy = (pb.M + kBM - 1) / kBM;
  if (tiles_n == 0 || gy == 0 || groups == 0) return;
  const int64_t splits = k_splits(tiles_n * gy * groups, pb.K);
  const int64_t k_chunk = ((pb.K + splits - 1) / splits + kBK - 1) / kBK * kBK;
  const int64_t gx = tiles_n * splits;
  AK_CHECK(gx <= INT32_MAX && gy <= 65535 && groups <= 65535, RuntimeError, "conv2d: sizes too large for the CUDA "
           "kernel (", pb.M, " x ", pb.N, " outputs per group, ", groups, " groups)");
  const dim3 grid(static_cast<unsigned>(gx), static_cast<unsigned>(gy), static_cast<unsigned>(groups));
  if (splits == 1) {
    AAKAAR_LAUNCH((implicit_gemm_kernel<T, Problem>), grid, kThreads, 0, pb, k_chunk, static_cast<T*>(nullptr));
    AAKAAR_CHECK_LAUNCH();
    return;
  }
  const int64_t total = groups * pb.M * pb.N;
  ScratchBuffer partial(sizeof(T) * static_cast<size_t>(splits * total));
  AAKAAR_LAUNCH((implicit_gemm_kernel<T, Problem>), grid, kThreads, 0, pb, k_chunk, partial.as<T>());
  AAKAAR_CHECK_LAUNCH();
  AAKAAR_LAUNCH((sum_splits_kernel<T, Problem>), grid_stride_blocks(total, 256, 8), 256, 0, pb, groups, splits,
                partial.as<T>());
  AAKAAR_CHECK_LAUNCH();
}

// grad_b[o] = the sum of g over images and positions: a block per channel, in double.
template <typename T>
struct SumD {
  __device__ __forceinline__ T identity() const { return T(0); }
  __device__ __forceinline__ T combine(T a, T b) const { return a + b; }
};

template <typename T>
__global__ void bias_grad_kernel(const T* g, int64_t N, int64_t O, int64_t hw, T* gb) {
  for (int64_t o = blockIdx.x; o < O; o += gridDim.x) {
    double acc = 0;
    for (int64_t i = threadIdx.x; i < N * hw; i += blockDim.x)
      acc += static_cast<double>(g[((i / hw) * O + o) * hw + i % hw]);
    acc = block_reduce(acc, SumD<double>{});
    if (threadIdx.x == 0) gb[o] = static_cast<T>(acc);
  }
}

template <typename T>
void conv2d_forward(const Tensor& out, const Tensor& x, const Tensor& w, const Tensor* b, const Conv2dArgs& a) {
  ForwardProblem<T> pb{};
  pb.s = conv_shape(x, w, out.shape, a);
  pb.M = pb.s.Og, pb.N = pb.s.N * pb.s.Ho * pb.s.Wo, pb.K = pb.s.Cg * pb.s.kH * pb.s.kW;
  pb.x = x.data<T>(), pb.w = w.data<T>(), pb.bias = b ? b->data<T>() : nullptr, pb.out = out.data<T>();
  launch_gemm<T>(pb, pb.s.G);
}

template <typename T>
void conv2d_backward_impl(const Tensor* grad_x, const Tensor* grad_w, const Tensor* grad_b, const Tensor& g,
                          const Tensor& x, const Tensor& w, const Conv2dArgs& a) {
  const ConvShape s = conv_shape(x, w, g.shape, a);
  if (grad_b) {
    const int blocks = static_cast<int>(std::max<int64_t>(1, std::min<int64_t>(s.O, multiprocessor_count() * 8)));
    AAKAAR_LAUNCH((bias_grad_kernel<T>), blocks, row_block_threads(s.N * s.Ho * s.Wo), 0, g.data<T>(), s.N, s.O,
                  s.Ho * s.Wo, grad_b->data<T>());
    AAKAAR_CHECK_LAUNCH();
  }
  if (grad_w) {  // the kernel reads x; w is a stand-in for its shape (ops/conv.cpp)
    WeightGradProblem<T> pb{};
    pb.s = s;
    pb.M = s.Og, pb.N = s.Cg * s.kH * s.kW, pb.K = s.N * s.Ho * s.Wo;
    pb.x = x.data<T>(), pb.g = g.data<T>(), pb.gw = grad_w->data<T>();
    if (pb.K == 0) fill(*grad_w, Scalar::from_double(0.0));
    else launch_gemm<T>(pb, s.G);
  }
  if (grad_x) {  // reads w; x is a stand-in for its shape
    InputGradProblem<T> pb{};
    pb.s = s;
    pb.M = s.Cg, pb.N = s.N * s.H * s.W, pb.K = s.Og * s.kH * s.kW;
    pb.w = w.data<T>(), pb.g = g.data<T>(), pb.gx = grad_x->data<T>();
    if (pb.K == 0) fill(*grad_x, Scalar::from_double(0.0));
    else launch_gemm<T>(pb, s.G);
  }
}

}  // namespace

void conv2d(const Tensor& out, const Tensor& x, const Tensor& w, const Tensor* b, const Conv2dArgs& a) {
  AK_DISPATCH_FLOAT(x.dtype, "conv2d", [&](auto tag) { conv2d_forward<decltype(tag)>(out, x, w, b, a); });
}

void conv2d_backward(const Tensor* grad_x, const Tensor* grad_w, const Tensor* grad_b, const Tensor& g,
                     const Tensor& x, const Tensor& w, const Conv2dArgs& a) {
  AK_DISPATCH_FLOAT(g.dtype, "conv2d backward", [&](auto tag) {
    conv2d_backward_impl<decltype(tag)>(grad_x, grad_w, grad_b, g, x, w, a);
  });
}

}  // namespace aakaar::cuda
