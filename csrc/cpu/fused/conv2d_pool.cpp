// The CPU's 2-d pooling: the backend entries `max_pool2d`, `avg_pool2d` and
// `avg_pool2d_backward` (core/backend.h). Every plane (one channel of one
// image) is independent, so planes are spread over the thread pool.
//
// The window of output (oh, ow) starts at (oh s0 - pad0, ow s1 - pad1); its
// taps that fall outside the input are skipped, never read (core/pool_window.h,
// shared with the device's kernels). Max pooling's
// backward needs no kernel: its gradient is a scatter-add of g at the saved
// indices (the op composes it; autograd/derivatives_conv.cpp).
#include <algorithm>

#include "core/error.h"
#include "core/pool_window.h"
#include "cpu/backend_cpu.h"
#include "cpu/parallel.h"

namespace aakaar::cpu {
namespace {

// Planes per chunk of the pool: about 64K window reads each.
int64_t plane_grain(int64_t per_plane) { return std::max<int64_t>(1, (1 << 16) / std::max<int64_t>(per_plane, 1)); }

template <typename T>
void max_pool2d_impl(const Tensor& out, const Tensor& indices, const Tensor& x, const Pool2dArgs& a) {
  const int64_t P = x.shape[0], H = x.shape[1], W = x.shape[2], Ho = out.shape[1], Wo = out.shape[2];
  const T* X = x.data<T>();
  T* Y = out.data<T>();
  int64_t* I = indices.data<int64_t>();
  parallel_for(0, P, plane_grain(Ho * Wo * a.kernel[0] * a.kernel[1]), [&](int64_t p0, int64_t p1) {
    for (int64_t p = p0; p < p1; ++p)
      for (int64_t oh = 0; oh < Ho; ++oh)
        for (int64_t ow = 0; ow < Wo; ++ow) {
          const int64_t o = (p * Ho + oh) * Wo + ow;
          Y[o] = pool_window::max_of_window(X + p * H * W, oh, ow, H, W, a, I[o]);
        }
  });
}

using pool_window::avg_window;
using pool_window::AvgWindow;

template <typename T>
void avg_pool2d_impl(const Tensor& out, const Tensor& x, const Pool2dArgs& a) {
  const int64_t P = x.shape[0], H = x.shape[1], W = x.shape[2], Ho = out.shape[1], Wo = out.shape[2];
  const T* X = x.data<T>();
  T* Y = out.data<T>();
  parallel_for(0, P, plane_grain(Ho * Wo * a.kernel[0] * a.kernel[1]), [&](int64_t p0, int64_t p1) {
    for (int64_t p = p0; p < p1; ++p) {
      const T* xp = X + p * H * W;
      for (int64_t oh = 0; oh < Ho; ++oh) {
        for (int64_t ow = 0; ow < Wo; ++ow) {
          const AvgWindow win = avg_window(oh, ow, H, W, a);
          T sum = 0;  // in T, as PyTorch's CPU kernel sums (a window is small)
          for (int64_t ih = win.h0; ih < win.h1; ++ih)
            for (int64_t iw = win.w0; iw < win.w1; ++iw) sum += xp[ih * W + iw];
          Y[(p * Ho + oh) * Wo + ow] = win.h0 < win.h1 && win.w0 < win.w1 ? sum / T(win.divisor) : T(0);
        }
      }
    }
  });
}

template <typename T>
void avg_pool2d_backward_impl(const Tensor& grad_x, const Tensor& g, const Pool2dArgs& a) {
  const int64_t P = grad_x.shape[0], H = grad_x.shape[1], W = grad_x.shape[2], Ho = g.shape[1], Wo = g.shape[2];
  const T* G = g.data<T>();
  T* GX = grad_x.data<T>();
  parallel_for(0, P, plane_grain(Ho * Wo * a.kernel[0] * a.kernel[1]), [&](int64_t p0, int64_t p1) {
    for (int64_t p = p0; p < p1; ++p) {
      T* gp = GX + p * H * W;
      std::fill(gp, gp + H * W, T(0));
      for (int64_t oh = 0; oh < Ho; ++oh) {
        for (int64_t ow = 0; ow < Wo; ++ow) {
          const AvgWindow win = avg_window(oh, ow, H, W, a);
          const T share = G[(p * Ho + oh) * Wo + ow] / T(win.divisor);
          for (int64_t ih = win.h0; ih < win.h1; ++ih)
            for (int64_t iw = win.w0; iw < win.w1; ++iw) gp[ih * W + iw] += share;
        }
      }
    }
  });
}

}  // namespace

void max_pool2d(const Tensor& out, const Tensor& indices, const Tensor& x, const Pool2dArgs& a) {
  AK_DISPATCH_FLOAT(x.dtype, "max_pool2d", [&](auto tag) { max_pool2d_impl<decltype(tag)>(out, indices, x, a); });
}

void avg_pool2d(const Tensor& out, const Tensor& x, const Pool2dArgs& a) {
  AK_DISPATCH_FLOAT(x.dtype, "avg_pool2d", [&](auto tag) { avg_pool2d_impl<decltype(tag)>(out, x, a); });
}

void avg_pool2d_backward(const Tensor& grad_x, const Tensor& g, const Pool2dArgs& a) {
  AK_DISPATCH_FLOAT(g.dtype, "avg_pool2d backward", [&](auto tag) {
    avg_pool2d_backward_impl<decltype(tag)>(grad_x, g, a);
  });
}

}  // namespace aakaar::cpu
