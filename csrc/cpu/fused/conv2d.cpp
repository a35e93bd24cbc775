// The CPU's 2-d convolution: the backend entries `conv2d` and `conv2d_backward`
// (core/backend.h), by im2col and the library's GEMM.
//
// For one image and one group, im2col copies every receptive field into a
// column of a matrix cols (Cg kH kW, Ho Wo): row (c, p, q) holds the input
// pixels that kernel tap (c, p, q) meets at each output position, zero where
// the tap falls in the padding. The convolution is then one product
//
//   out[n, group] (Og, Ho Wo) = W_group (Og, Cg kH kW) @ cols + b
//
// and the backward two more, plus col2im (the adjoint of im2col, which adds
// each column back to the pixels it came from):
//
//   grad_W_group += g[n, group] @ cols^T
//   grad_x[n, group] = col2im(W_group^T @ g[n, group])
//   grad_b = sums of g over images and positions
//
// A 1x1 kernel with stride 1 and no padding needs no copy: cols is the image.
// With stride 1 and an output as wide as the input (a 'same' convolution),
// each kernel tap's row of cols is the image shifted, one flat copy (and
// col2im one flat add) with the padding columns zeroed: not one short copy
// per output row.
// float32 3x3 convolutions with stride 1 (and enough channels) take Winograd's road instead,
// in the forward and the backward (conv2d_winograd.cpp): fewer multiplications, same GEMM.
// Images are spread over the thread pool; each chunk of images has its own
// cols buffer and, in the backward, its own partial grad_W, summed in chunk
// order at the end (so a given thread count always gives the same bits).
#include <algorithm>
#include <cstring>
#include <vector>

#include "core/error.h"
#include "cpu/backend_cpu.h"
#include "cpu/fused/conv2d_winograd.h"
#include "cpu/gemm/gemm.h"
#include "cpu/parallel.h"

namespace aakaar::cpu {
namespace {

// The geometry of one call, in the names of the comments above.
struct Geometry {
  int64_t N, C, H, W, O, kH, kW, Ho, Wo, G, Cg, Og;
  int64_t ckk() const { return Cg * kH * kW; }
  int64_t hw_out() const { return Ho * Wo; }
};

Geometry geometry(const Tensor& x, const Tensor& w, const Shape& out_shape, const Conv2dArgs& a) {
  Geometry g{};
  g.N = x.shape[0], g.C = x.shape[1], g.H = x.shape[2], g.W = x.shape[3];
  g.O = w.shape[0], g.kH = w.shape[2], g.kW = w.shape[3];
  g.Ho = out_shape[2], g.Wo = out_shape[3];
  g.G = a.groups, g.Cg = g.C / g.G, g.Og = g.O / g.G;
  return g;
}

// Whether cols is the image itself (1x1 kernel, stride 1, no padding).
bool is_pointwise(const Geometry& g, const Conv2dArgs& a) {
  return g.kH == 1 && g.kW == 1 && a.stride[0] == 1 && a.stride[1] == 1 && a.padding[0] == 0 &&
         a.padding[1] == 0 && g.Ho == g.H && g.Wo == g.W;
}

// The output columns [lo, hi) whose tap at input column offset `off` (iw = ow s - pad + q d)
// lands inside [0, W): the rest read padding.
void valid_range(int64_t off, int64_t s, int64_t W, int64_t Wo, int64_t& lo, int64_t& hi) {
  lo = off >= 0 ? 0 : (-off + s - 1) / s;
  hi = W - 1 - off >= 0 ? std::min(Wo, (W - 1 - off) / s + 1) : 0;
  lo = std::min(lo, Wo);
  hi = std::max(hi, lo);
}

// r[0..n) = src[i] for lo <= i < hi, 0 elsewhere. Rows are short (a 14-pixel row of an EMNIST
// feature map): inline loops, where memcpy and fill calls cost more than the copy itself.
template <typename T>
void copy_row(int64_t n, int64_t lo, int64_t hi, const T* __restrict src, T* __restrict r) {
  for (int64_t i = 0; i < lo; ++i) r[i] = T(0);
  for (int64_t i = lo; i < hi; ++i) r[i] = src[i];
  for (int64_t i = hi; i < n; ++i) r[i] = T(0);
}

// The rows of a tap that read the input (oh0 <= oh < oh1, lo <= ow < hi) when stride is 1 and
// Wo == W (a 'same' convolution): then row oh of the tap's im2col row is row oh + shift of the
// input shifted by off, and the whole tap is one flat copy from the input, flat index
// i -> i + shift W + off, for i in [i0, i1), except the padding columns at each row's ends.
struct FlatTap {
  int64_t shift, off, lo, hi, oh0, oh1, i0, i1;
  bool empty() const { return oh1 <= oh0 || lo >= hi; }
};

bool flat_taps(const Geometry& g, const Conv2dArgs& a) {
  return a.stride[0] == 1 && a.stride[1] == 1 && g.Wo == g.W;
}

FlatTap flat_tap(const Geometry& g, const Conv2dArgs& a, int64_t p, int64_t q) {
  FlatTap t{};
  t.shift = p * a.dilation[0] - a.padding[0];
  t.off = q * a.dilation[1] - a.padding[1];
  valid_range(t.off, 1, g.W, g.Wo, t.lo, t.hi);
  t.oh0 = std::max<int64_t>(0, -t.shift);
  t.oh1 = std::min(g.Ho, g.H - t.shift);
  t.i0 = t.oh0 * g.Wo + t.lo;
  t.i1 = (t.oh1 - 1) * g.Wo + t.hi;
  return t;
}

// Zeros the padding columns of rows oh0..oh1-1 of one tap's row of cols.
template <typename T>
void zero_row_ends(const FlatTap& t, int64_t Wo, T* r) {
  for (int64_t oh = t.oh0; oh < t.oh1; ++oh) {
    for (int64_t ow = 0; ow < t.lo; ++ow) r[oh * Wo + ow] = T(0);
    for (int64_t ow = t.hi; ow < Wo; ++ow) r[oh * Wo + ow] = T(0);
  }
}

// [[book:im2col]]
// cols (Cg kH kW, Ho Wo) from one image's group of channels x (Cg, H, W).
template <typename T>
void im2col(const T* x, const Geometry& g, const Conv2dArgs& a, T* cols) {
  const int64_t s0 = a.stride[0], s1 = a.stride[1];
  if (flat_taps(g, a)) {  // one flat copy per tap rather than one per output row
    const int64_t n = g.hw_out();
    for (int64_t c = 0; c < g.Cg; ++c) {
      const T* xc = x + c * g.H * g.W;
      for (int64_t p = 0; p < g.kH; ++p) {
        for (int64_t q = 0; q < g.kW; ++q) {
          T* r = cols + ((c * g.kH + p) * g.kW + q) * n;
          const FlatTap t = flat_tap(g, a, p, q);
          if (t.empty()) {
            std::fill(r, r + n, T(0));
            continue;
          }
          std::fill(r, r + t.i0, T(0));
          copy_row(t.i1 - t.i0, 0, t.i1 - t.i0, xc + t.i0 + t.shift * g.W + t.off, r + t.i0);
          std::fill(r + t.i1, r + n, T(0));
          zero_row_ends(t, g.Wo, r);
        }
      }
    }
    return;
  }
  for (int64_t c = 0; c < g.Cg; ++c) {
    const T* xc = x + c * g.H * g.W;
    for (int64_t p = 0; p < g.kH; ++p) {
      for (int64_t q = 0; q < g.kW; ++q) {
        T* row = cols + ((c * g.kH + p) * g.kW + q) * g.hw_out();
        const int64_t off = q * a.dilation[1] - a.padding[1];
        int64_t lo, hi;
        valid_range(off, s1, g.W, g.Wo, lo, hi);
        for (int64_t oh = 0; oh < g.Ho; ++oh) {
          T* r = row + oh * g.Wo;
          const int64_t ih = oh * s0 - a.padding[0] + p * a.dilation[0];
          if (ih < 0 || ih >= g.H) {
            std::fill(r, r + g.Wo, T(0));
            continue;
          }
          const T* src = xc + ih * g.W + off;  // src[ow * s1] is the tap's pixel
          if (s1 == 1) {
            copy_row(g.Wo, lo, hi, src, r);
          } else {
            std::fill(r, r + lo, T(0));
            for (int64_t ow = lo; ow < hi; ++ow) r[ow] = src[ow * s1];
            std::fill(r + hi, r + g.Wo, T(0));
          }
        }
      }
    }
  }
}
// [[/book:im2col]]

// dst[i] += src[i]: restrict, so GCC vectorises it (cols and the image never overlap).
template <typename T>
void add_row(int64_t n, const T* __restrict src, T* __restrict dst) {
  for (int64_t i = 0; i < n; ++i) dst[i] += src[i];
}

// sum of r[0..n) in double, over eight independent partial sums: one running sum would be a
// chain of dependent adds that cannot be vectorised.
template <typename T>
double sum_in_double(const T* __restrict r, int64_t n) {
  double acc[8] = {0, 0, 0, 0, 0, 0, 0, 0};
  int64_t i = 0;
  for (; i + 8 <= n; i += 8)
    for (int k = 0; k < 8; ++k) acc[k] += double(r[i + k]);
  double total = 0;
  for (; i < n; ++i) total += double(r[i]);
  for (int k = 0; k < 8; ++k) total += acc[k];
  return total;
}

// The adjoint of im2col: x (Cg, H, W) += each column's entries at the pixels they came from.
// cols is scratch: the flat path zeros its padding entries before one flat add per tap.
template <typename T>
void col2im_add(T* cols, const Geometry& g, const Conv2dArgs& a, T* x) {
  const int64_t s0 = a.stride[0], s1 = a.stride[1];
  if (flat_taps(g, a)) {
    const int64_t n = g.hw_out();
    for (int64_t c = 0; c < g.Cg; ++c) {
      T* xc = x + c * g.H * g.W;
      for (int64_t p = 0; p < g.kH; ++p) {
        for (int64_t q = 0; q < g.kW; ++q) {
          T* r = cols + ((c * g.kH + p) * g.kW + q) * n;
          const FlatTap t = flat_tap(g, a, p, q);
          if (t.empty()) continue;
          zero_row_ends(t, g.Wo, r);
          add_row(t.i1 - t.i0, r + t.i0, xc + t.i0 + t.shift * g.W + t.off);
        }
      }
    }
    return;
  }
  for (int64_t c = 0; c < g.Cg; ++c) {
    T* xc = x + c * g.H * g.W;
    for (int64_t p = 0; p < g.kH; ++p) {
      for (int64_t q = 0; q < g.kW; ++q) {
        const T* row = cols + ((c * g.kH + p) * g.kW + q) * g.hw_out();
        const int64_t off = q * a.dilation[1] - a.padding[1];
        int64_t lo, hi;
        valid_range(off, s1, g.W, g.Wo, lo, hi);
        for (int64_t oh = 0; oh < g.Ho; ++oh) {
          const int64_t ih = oh * s0 - a.padding[0] + p * a.dilation[0];
          if (ih < 0 || ih >= g.H) continue;
          const T* r = row + oh * g.Wo;
          T* dst = xc + ih * g.W + off;
          if (s1 == 1) {
            add_row(hi - lo, r + lo, dst + lo);
          } else {
            for (int64_t ow = lo; ow < hi; ++ow) dst[ow * s1] += r[ow];
          }
        }
      }
    }
  }
}

// Contiguous chunks of images for the pool: enough multiply-adds in each to pay for a thread.
int64_t image_chunks(const Geometry& g) {
  const double macs_per_image = double(g.O) * double(g.ckk()) * double(g.hw_out());
  const double min_macs = double(1 << 20);
  const int64_t by_work = std::max<int64_t>(1, int64_t(macs_per_image * double(g.N) / min_macs));
  return std::max<int64_t>(1, std::min<int64_t>({int64_t(get_num_threads()), g.N, by_work}));
}

// Calls fn(chunk, n0, n1) for each chunk of images, the chunks on the pool.
template <typename F>
void for_image_chunks(int64_t N, int64_t chunks, const F& fn) {
  parallel_for(0, chunks, 1, [&](int64_t c0, int64_t c1) {
    for (int64_t c = c0; c < c1; ++c) fn(c, N * c / chunks, N * (c + 1) / chunks);
  });
}

// Each group's weights transposed, (K, Og) row-major, once per call: the forward's B operand.
template <typename T>
std::vector<T> transposed_weights(const T* w, const Geometry& g) {
  const int64_t K = g.ckk();
  std::vector<T> wt(g.G * K * g.Og);
  for (int64_t grp = 0; grp < g.G; ++grp)
    for (int64_t o = 0; o < g.Og; ++o)
      for (int64_t k = 0; k < K; ++k) wt[(grp * K + k) * g.Og + o] = w[(grp * g.Og + o) * K + k];
  return wt;
}

// [[book:conv2d_forward]]
template <typename T>
void conv2d_forward(const Tensor& out, const Tensor& x, const Tensor& w, const Tensor* b, const Conv2dArgs& a) {
  const Geometry g = geometry(x, w, out.shape, a);
  const bool pointwise = is_pointwise(g, a);
  const int64_t K = g.ckk(), P = g.hw_out();
  const T* X = x.data<T>();
  const T* B = b ? b->data<T>() : nullptr;
  T* Y = out.data<T>();
  const std::vector<T> wt = transposed_weights(w.data<T>(), g);
  for_image_chunks(g.N, image_chunks(g), [&](int64_t, int64_t n0, int64_t n1) {
    std::vector<T> buf(pointwise ? 0 : K * P);
    for (int64_t n = n0; n < n1; ++n) {
      for (int64_t grp = 0; grp < g.G; ++grp) {
        const T* xg = X + (n * g.C + grp * g.Cg) * g.H * g.W;
        const T* cols = xg;
        if (!pointwise) {
          im2col(xg, g, a, buf.data());
          cols = buf.data();
        }
        // out (Og, P) = W_group (Og, K) @ cols (K, P) + b, computed as its transpose
        // out^T (P, Og) = cols^T (P, K) @ W_group^T (K, Og): the GEMM's 8 x 32 tiles then run
        // along P in steps of 8 (196 = 24.5 x 8) rather than 32 (6.1 x 32, an eighth wasted),
        // and read W^T's rows, aligned, instead of cols' 196-float rows. The bias (one value per
        // row of out) is written first and the product added to it (beta = 1).
        T* yg = Y + (n * g.O + grp * g.Og) * P;
        const T* wtg = wt.data() + grp * K * g.Og;
        if (B)
          for (int64_t o = 0; o < g.Og; ++o) std::fill(yg + o * P, yg + (o + 1) * P, B[grp * g.Og + o]);
        gemm<T>(P, g.Og, K, T(1), cols, 1, P, wtg, g.Og, 1, B ? T(1) : T(0), yg, 1, P);
      }
    }
  });
}
// [[/book:conv2d_forward]]

// [[book:conv2d_backward]]
template <typename T>
void conv2d_backward_impl(const Tensor* grad_x, const Tensor* grad_w, const Tensor* grad_b, const Tensor& gy,
                          const Tensor& x, const Tensor& w, const Conv2dArgs& a) {
  const Geometry g = geometry(x, w, gy.shape, a);
  const bool pointwise = is_pointwise(g, a);
  const int64_t K = g.ckk(), P = g.hw_out(), wsize = g.O * K;
  const T* X = x.data<T>();
  const T* Wt = w.data<T>();
  const T* Gy = gy.data<T>();
  if (grad_b) {  // float32 sums accumulate in double: N Ho Wo terms each
    T* gb = grad_b->data<T>();
    for (int64_t o = 0; o < g.O; ++o) {
      double acc = 0;
      for (int64_t n = 0; n < g.N; ++n) acc += sum_in_double(Gy + (n * g.O + o) * P, P);
      gb[o] = static_cast<T>(acc);
    }
  }
  if (!grad_x && !grad_w) return;
  const int64_t chunks = image_chunks(g);
  // Chunk 0 writes grad_w itself; the others their own partial sums, added at the end.
  std::vector<T> partials(grad_w ? (chunks - 1) * wsize : 0);
  if (grad_w && g.N == 0) std::fill(grad_w->data<T>(), grad_w->data<T>() + wsize, T(0));
  if (grad_x) std::fill(grad_x->data<T>(), grad_x->data<T>() + grad_x->numel(), T(0));
  for_image_chunks(g.N, chunks, [&](int64_t chunk, int64_t n0, int64_t n1) {
    std::vector<T> buf(pointwise ? 0 : K * P);
    T* gw = grad_w ? (chunk == 0 ? grad_w->data<T>() : partials.data() + (chunk - 1) * wsize) : nullptr;
    for (int64_t n = n0; n < n1; ++n) {
      for (int64_t grp = 0; grp < g.G; ++grp) {
        const int64_t xoff = (n * g.C + grp * g.Cg) * g.H * g.W;
        const T* gyg = Gy + (n * g.O + grp * g.Og) * P;
        const T* wg = Wt + grp * g.Og * K;
        if (gw) {  // grad_W_group (Og, K) += g (Og, P) @ cols^T (P, K)
          const T* cols = X + xoff;
          if (!pointwise) {
            im2col(X + xoff, g, a, buf.data());
            cols = buf.data();
          }
          gemm<T>(g.Og, K, P, T(1), gyg, P, 1, cols, 1, P, n == n0 ? T(0) : T(1), gw + grp * g.Og * K, K, 1);
        }
        if (grad_x) {  // dcols (K, P) = W_group^T (K, Og) @ g (Og, P), then col2im
          T* gx = grad_x->data<T>() + xoff;
          if (pointwise) {
            gemm<T>(K, P, g.Og, T(1), wg, 1, K, gyg, P, 1, T(0), gx, P, 1);
          } else {
            gemm<T>(K, P, g.Og, T(1), wg, 1, K, gyg, P, 1, T(0), buf.data(), P, 1);
            col2im_add(buf.data(), g, a, gx);
          }
        }
      }
    }
  });
  if (grad_w) {
    T* gw = grad_w->data<T>();
    for (int64_t c = 1; c < chunks; ++c) {
      const T* part = partials.data() + (c - 1) * wsize;
      for (int64_t i = 0; i < wsize; ++i) gw[i] += part[i];
    }
  }
}
// [[/book:conv2d_backward]]

}  // namespace

void conv2d(const Tensor& out, const Tensor& x, const Tensor& w, const Tensor* b, const Conv2dArgs& a) {
  if (winograd_applies(x, w, a)) return conv2d_winograd(out, x, w, b, a);
  AK_DISPATCH_FLOAT(x.dtype, "conv2d", [&](auto tag) { conv2d_forward<decltype(tag)>(out, x, w, b, a); });
}

void conv2d_backward(const Tensor* grad_x, const Tensor* grad_w, const Tensor* grad_b, const Tensor& g,
                     const Tensor& x, const Tensor& w, const Conv2dArgs& a) {
  if (winograd_applies(x, w, a)) {  // grad_x and grad_w by Winograd; grad_b below
    if (grad_x) conv2d_winograd_grad_input(*grad_x, g, w, a);
    if (grad_w) conv2d_winograd_grad_weight(*grad_w, g, x, a);
    grad_x = grad_w = nullptr;
  }
  AK_DISPATCH_FLOAT(g.dtype, "conv2d backward", [&](auto tag) {
    conv2d_backward_impl<decltype(tag)>(grad_x, grad_w, grad_b, g, x, w, a);
  });
}

}  // namespace aakaar::cpu
