// The device's 2-d pooling: the backend entries `max_pool2d`, `avg_pool2d` and
// `avg_pool2d_backward` (core/backend.h), with the CPU's window rules
// (core/pool_window.h, shared with cpu/fused/conv2d_pool.cpp): a thread per output element,
// grid-stride.
//
// The average pooling's backward is a gather, not a scatter: a thread per input pixel
// adds the shares of the windows that cover it, in the order the CPU adds them (output
// rows, then columns), so no atomics and the CPU's bits. Max pooling's and the adaptive
// pools' backwards need no kernel of their own (the ops compose scatter-add and gather).
#include "core/error.h"
#include "cuda/backend_cuda.h"
#include "cuda/launch_config.cuh"  // before core/pool_window.h: it brings the CUDA (or emulator) headers
#include "core/pool_window.h"

namespace aakaar::cuda {
namespace {

constexpr int kPoolThreads = 256;

// The sizes of one call: P planes of H x W pooled into Ho x Wo.
struct Planes {
  int64_t P, H, W, Ho, Wo;
};

Planes planes(const Tensor& x, const Tensor& out) {
  return {x.shape[0], x.shape[1], x.shape[2], out.shape[1], out.shape[2]};
}

template <typename T>
__global__ void max_pool2d_kernel(Planes s, Pool2dArgs a, const T* x, T* y, int64_t* idx) {
  const int64_t total = s.P * s.Ho * s.Wo;
  for (int64_t e = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; e < total; e += int64_t(gridDim.x) * blockDim.x) {
    const int64_t p = e / (s.Ho * s.Wo), oh = e / s.Wo % s.Ho, ow = e % s.Wo;
    y[e] = pool_window::max_of_window(x + p * s.H * s.W, oh, ow, s.H, s.W, a, idx[e]);
  }
}

template <typename T>
__global__ void avg_pool2d_kernel(Planes s, Pool2dArgs a, const T* x, T* y) {
  const int64_t total = s.P * s.Ho * s.Wo;
  for (int64_t e = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; e < total; e += int64_t(gridDim.x) * blockDim.x) {
    const int64_t p = e / (s.Ho * s.Wo), oh = e / s.Wo % s.Ho, ow = e % s.Wo;
    const T* xp = x + p * s.H * s.W;
    const pool_window::AvgWindow win = pool_window::avg_window(oh, ow, s.H, s.W, a);
    T sum = 0;
    for (int64_t ih = win.h0; ih < win.h1; ++ih)
      for (int64_t iw = win.w0; iw < win.w1; ++iw) sum += xp[ih * s.W + iw];
    y[e] = win.h0 < win.h1 && win.w0 < win.w1 ? sum / T(win.divisor) : T(0);
  }
}

// The outputs [lo, hi) along one dim whose window (start o s - pad, length k) covers i.
__device__ __forceinline__ void covering(int64_t i, int64_t pad, int64_t k, int64_t stride, int64_t n_out, int64_t& lo,
                                         int64_t& hi) {
  const int64_t t = i + pad - k + 1;  // o s >= t
  lo = t <= 0 ? 0 : (t + stride - 1) / stride;
  hi = min((i + pad) / stride + 1, n_out);
}

template <typename T>
__global__ void avg_pool2d_backward_kernel(Planes s, Pool2dArgs a, const T* g, T* gx) {
  const int64_t total = s.P * s.H * s.W;
  for (int64_t e = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; e < total; e += int64_t(gridDim.x) * blockDim.x) {
    const int64_t p = e / (s.H * s.W), ih = e / s.W % s.H, iw = e % s.W;
    const T* gp = g + p * s.Ho * s.Wo;
    int64_t oh0, oh1, ow0, ow1;
    covering(ih, a.padding[0], a.kernel[0], a.stride[0], s.Ho, oh0, oh1);
    covering(iw, a.padding[1], a.kernel[1], a.stride[1], s.Wo, ow0, ow1);
    T acc = 0;
    for (int64_t oh = oh0; oh < oh1; ++oh)
      for (int64_t ow = ow0; ow < ow1; ++ow)
        acc += gp[oh * s.Wo + ow] / T(pool_window::avg_window(oh, ow, s.H, s.W, a).divisor);
    gx[e] = acc;
  }
}

int pool_blocks(int64_t n) { return grid_stride_blocks(n, kPoolThreads, 8); }

}  // namespace

void max_pool2d(const Tensor& out, const Tensor& indices, const Tensor& x, const Pool2dArgs& a) {
  AK_DISPATCH_FLOAT(x.dtype, "max_pool2d", [&](auto tag) {
    using T = decltype(tag);
    if (out.numel() == 0) return;
    AAKAAR_LAUNCH((max_pool2d_kernel<T>), pool_blocks(out.numel()), kPoolThreads, 0, planes(x, out), a,
                  x.data<T>(), out.data<T>(), indices.data<int64_t>());
    AAKAAR_CHECK_LAUNCH();
  });
}

void avg_pool2d(const Tensor& out, const Tensor& x, const Pool2dArgs& a) {
  AK_DISPATCH_FLOAT(x.dtype, "avg_pool2d", [&](auto tag) {
    using T = decltype(tag);
    if (out.numel() == 0) return;
    AAKAAR_LAUNCH((avg_pool2d_kernel<T>), pool_blocks(out.numel()), kPoolThreads, 0, planes(x, out), a,
                  x.data<T>(), out.data<T>());
    AAKAAR_CHECK_LAUNCH();
  });
}

void avg_pool2d_backward(const Tensor& grad_x, const Tensor& g, const Pool2dArgs& a) {
  AK_DISPATCH_FLOAT(g.dtype, "avg_pool2d backward", [&](auto tag) {
    using T = decltype(tag);
    if (grad_x.numel() == 0) return;
    AAKAAR_LAUNCH((avg_pool2d_backward_kernel<T>), pool_blocks(grad_x.numel()), kPoolThreads, 0,
                  planes(grad_x, g), a, g.data<T>(), grad_x.data<T>());
    AAKAAR_CHECK_LAUNCH();
  });
}

}  // namespace aakaar::cuda
