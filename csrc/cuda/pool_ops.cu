// The device's 2-d pooling: the backend entries `max_pool2d`, `avg_pool2d` and
// `avg_pool2d_backward` (core/backend.h), with the CPU's window rules
// (cpu/fused/conv2d_pool.cpp): a thread per output element, grid-stride.
//
// The average pooling's backward is a gather, not a scatter: a thread per input pixel
// adds the shares of the windows that cover it, in the order the CPU adds them (output
// rows, then columns), so no atomics and the CPU's bits. Max pooling's and the adaptive
// pools' backwards need no kernel of their own (the ops compose scatter-add and gather).
#include <cmath>
#include <limits>

#include "core/error.h"
#include "cuda/backend_cuda.h"
#include "cuda/launch_config.cuh"

namespace aakaar::cuda {
namespace {

constexpr int kPoolThreads = 256;

struct PoolShape {
  int64_t P, H, W, Ho, Wo;
  int kH, kW, s0, s1, pad0, pad1, d0, d1;
  bool count_include_pad;
  int64_t divisor_override;
};

PoolShape pool_shape(const Tensor& x, const Tensor& out, const Pool2dArgs& a) {
  PoolShape s{};
  s.P = x.shape[0], s.H = x.shape[1], s.W = x.shape[2], s.Ho = out.shape[1], s.Wo = out.shape[2];
  s.kH = static_cast<int>(a.kernel[0]), s.kW = static_cast<int>(a.kernel[1]);
  s.s0 = static_cast<int>(a.stride[0]), s.s1 = static_cast<int>(a.stride[1]);
  s.pad0 = static_cast<int>(a.padding[0]), s.pad1 = static_cast<int>(a.padding[1]);
  s.d0 = static_cast<int>(a.dilation[0]), s.d1 = static_cast<int>(a.dilation[1]);
  s.count_include_pad = a.count_include_pad;
  s.divisor_override = a.divisor_override;
  return s;
}

template <typename T>
__global__ void max_pool2d_kernel(PoolShape s, const T* x, T* y, int64_t* idx) {
  const int64_t total = s.P * s.Ho * s.Wo;
  for (int64_t e = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; e < total; e += int64_t(gridDim.x) * blockDim.x) {
    const int64_t p = e / (s.Ho * s.Wo), oh = e / s.Wo % s.Ho, ow = e % s.Wo;
    const T* xp = x + p * s.H * s.W;
    // The first tap inside the input and the end of the window, as on the CPU.
    int64_t h0 = oh * s.s0 - s.pad0, w0 = ow * s.s1 - s.pad1;
    const int64_t h1 = min(h0 + int64_t(s.kH - 1) * s.d0 + 1, s.H), w1 = min(w0 + int64_t(s.kW - 1) * s.d1 + 1, s.W);
    while (h0 < 0) h0 += s.d0;
    while (w0 < 0) w0 += s.d1;
    int64_t best = h0 * s.W + w0;
    T maxval = -std::numeric_limits<T>::infinity();
    for (int64_t ih = h0; ih < h1; ih += s.d0)
      for (int64_t iw = w0; iw < w1; iw += s.d1) {
        const T v = xp[ih * s.W + iw];
        if (v > maxval || v != v) {  // a NaN always wins: the window's last NaN
          maxval = v;
          best = ih * s.W + iw;
        }
      }
    y[e] = maxval;
    idx[e] = best;
  }
}

// Output (oh, ow)'s window clipped to the input, and its divisor (the CPU's avg_window).
struct AvgWindow {
  int64_t h0, h1, w0, w1;
  double divisor;
};

__device__ __forceinline__ AvgWindow avg_window(const PoolShape& s, int64_t oh, int64_t ow) {
  int64_t h0 = oh * s.s0 - s.pad0, w0 = ow * s.s1 - s.pad1;
  int64_t h1 = min(h0 + s.kH, s.H + s.pad0), w1 = min(w0 + s.kW, s.W + s.pad1);
  const int64_t padded_size = (h1 - h0) * (w1 - w0);
  h0 = max(h0, int64_t(0)), w0 = max(w0, int64_t(0));
  h1 = min(h1, s.H), w1 = min(w1, s.W);
  const double divisor = s.divisor_override != 0 ? double(s.divisor_override)
                         : s.count_include_pad   ? double(padded_size)
                                                 : double((h1 - h0) * (w1 - w0));
  return {h0, h1, w0, w1, divisor};
}

template <typename T>
__global__ void avg_pool2d_kernel(PoolShape s, const T* x, T* y) {
  const int64_t total = s.P * s.Ho * s.Wo;
  for (int64_t e = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; e < total; e += int64_t(gridDim.x) * blockDim.x) {
    const int64_t p = e / (s.Ho * s.Wo), oh = e / s.Wo % s.Ho, ow = e % s.Wo;
    const T* xp = x + p * s.H * s.W;
    const AvgWindow win = avg_window(s, oh, ow);
    T sum = 0;
    for (int64_t ih = win.h0; ih < win.h1; ++ih)
      for (int64_t iw = win.w0; iw < win.w1; ++iw) sum += xp[ih * s.W + iw];
    y[e] = win.h0 < win.h1 && win.w0 < win.w1 ? sum / T(win.divisor) : T(0);
  }
}

// The outputs [lo, hi) along one dim whose window (start o s - pad, length k) covers i.
__device__ __forceinline__ void covering(int64_t i, int pad, int k, int stride, int64_t n_out, int64_t& lo,
                                         int64_t& hi) {
  const int64_t t = i + pad - k + 1;  // o s >= t
  lo = t <= 0 ? 0 : (t + stride - 1) / stride;
  hi = min((i + pad) / stride + 1, n_out);
}

template <typename T>
__global__ void avg_pool2d_backward_kernel(PoolShape s, const T* g, T* gx) {
  const int64_t total = s.P * s.H * s.W;
  for (int64_t e = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; e < total; e += int64_t(gridDim.x) * blockDim.x) {
    const int64_t p = e / (s.H * s.W), ih = e / s.W % s.H, iw = e % s.W;
    const T* gp = g + p * s.Ho * s.Wo;
    int64_t oh0, oh1, ow0, ow1;
    covering(ih, s.pad0, s.kH, s.s0, s.Ho, oh0, oh1);
    covering(iw, s.pad1, s.kW, s.s1, s.Wo, ow0, ow1);
    T acc = 0;
    for (int64_t oh = oh0; oh < oh1; ++oh)
      for (int64_t ow = ow0; ow < ow1; ++ow) acc += gp[oh * s.Wo + ow] / T(avg_window(s, oh, ow).divisor);
    gx[e] = acc;
  }
}

int pool_blocks(int64_t n) { return grid_stride_blocks(n, kPoolThreads, 8); }

}  // namespace

void max_pool2d(const Tensor& out, const Tensor& indices, const Tensor& x, const Pool2dArgs& a) {
  AK_DISPATCH_FLOAT(x.dtype, "max_pool2d", [&](auto tag) {
    using T = decltype(tag);
    if (out.numel() == 0) return;
    AAKAAR_LAUNCH((max_pool2d_kernel<T>), pool_blocks(out.numel()), kPoolThreads, 0, pool_shape(x, out, a),
                  x.data<T>(), out.data<T>(), indices.data<int64_t>());
    AAKAAR_CHECK_LAUNCH();
  });
}

void avg_pool2d(const Tensor& out, const Tensor& x, const Pool2dArgs& a) {
  AK_DISPATCH_FLOAT(x.dtype, "avg_pool2d", [&](auto tag) {
    using T = decltype(tag);
    if (out.numel() == 0) return;
    AAKAAR_LAUNCH((avg_pool2d_kernel<T>), pool_blocks(out.numel()), kPoolThreads, 0, pool_shape(x, out, a),
                  x.data<T>(), out.data<T>());
    AAKAAR_CHECK_LAUNCH();
  });
}

void avg_pool2d_backward(const Tensor& grad_x, const Tensor& g, const Pool2dArgs& a) {
  AK_DISPATCH_FLOAT(g.dtype, "avg_pool2d backward", [&](auto tag) {
    using T = decltype(tag);
    if (grad_x.numel() == 0) return;
    AAKAAR_LAUNCH((avg_pool2d_backward_kernel<T>), pool_blocks(grad_x.numel()), kPoolThreads, 0,
                  pool_shape(grad_x, g, a), g.data<T>(), grad_x.data<T>());
    AAKAAR_CHECK_LAUNCH();
  });
}

}  // namespace aakaar::cuda
