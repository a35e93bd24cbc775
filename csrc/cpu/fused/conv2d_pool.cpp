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
#include <type_traits>

#include "core/error.h"
#include "core/pool_window.h"
#include "cpu/backend_cpu.h"
#include "cpu/isa.h"
#include "cpu/parallel.h"

// The baseline (SSE2) build of the row loop.
#define AK_KERNEL_NS baseline
#include "cpu/fused/pool_loops.h"
namespace aakaar::cpu::baseline {
AK_POOL_INSTANTIATE
}  // namespace aakaar::cpu::baseline
#undef AK_KERNEL_NS

namespace aakaar::cpu {

#define AK_POOL_DECLS                                                                                       \
  void max_row_interior_f32(const float*, int64_t, int64_t, const Pool2dArgs&, int64_t, int64_t, float*,   \
                            int64_t*);                                                                      \
  void max_row_interior_f64(const double*, int64_t, int64_t, const Pool2dArgs&, int64_t, int64_t, double*, \
                            int64_t*);
namespace avx2 { AK_POOL_DECLS }
namespace avx512 { AK_POOL_DECLS }
#undef AK_POOL_DECLS

namespace {

// Planes per chunk of the pool: about 64K window reads each.
int64_t plane_grain(int64_t per_plane) { return std::max<int64_t>(1, (1 << 16) / std::max<int64_t>(per_plane, 1)); }

// The interior row loop for this CPU's instruction set (pool_loops.h).
template <typename T>
using MaxRowFn = void (*)(const T*, int64_t, int64_t, const Pool2dArgs&, int64_t, int64_t, T*, int64_t*);

template <typename T>
MaxRowFn<T> max_row_for_isa() {
  constexpr bool f32 = std::is_same_v<T, float>;
#if defined(__x86_64__) || defined(_M_X64)
  if (isa() == Isa::Avx512) {
    if constexpr (f32) return avx512::max_row_interior_f32; else return avx512::max_row_interior_f64;
  }
  if (isa() == Isa::Avx2) {
    if constexpr (f32) return avx2::max_row_interior_f32; else return avx2::max_row_interior_f64;
  }
#endif
  if constexpr (f32) return baseline::max_row_interior_f32; else return baseline::max_row_interior_f64;
}

template <typename T>
void max_pool2d_impl(const Tensor& out, const Tensor& indices, const Tensor& x, const Pool2dArgs& a) {
  const int64_t P = x.shape[0], H = x.shape[1], W = x.shape[2], Ho = out.shape[1], Wo = out.shape[2];
  const T* X = x.data<T>();
  T* Y = out.data<T>();
  int64_t* I = indices.data<int64_t>();
  const int64_t kh_span = (a.kernel[0] - 1) * a.dilation[0] + 1, kw_span = (a.kernel[1] - 1) * a.dilation[1] + 1;
  // The output columns whose windows lie wholly inside the input's columns: [lo, hi).
  const int64_t s1 = a.stride[1], p1 = a.padding[1];
  const int64_t lo = std::min(Wo, (p1 + s1 - 1) / s1);
  const int64_t hi = std::max(lo, std::min(Wo, W + p1 - kw_span >= 0 ? (W + p1 - kw_span) / s1 + 1 : 0));
  const MaxRowFn<T> max_row_interior = max_row_for_isa<T>();
  parallel_for(0, P, plane_grain(Ho * Wo * a.kernel[0] * a.kernel[1]), [&](int64_t p0, int64_t p1_) {
    for (int64_t p = p0; p < p1_; ++p) {
      const T* xp = X + p * H * W;
      for (int64_t oh = 0; oh < Ho; ++oh) {
        const int64_t o = (p * Ho + oh) * Wo;
        const int64_t h0 = oh * a.stride[0] - a.padding[0];
        const bool rows_inside = h0 >= 0 && h0 + kh_span <= H;
        const int64_t l = rows_inside ? lo : Wo, h = rows_inside ? hi : Wo;
        for (int64_t ow = 0; ow < l; ++ow) Y[o + ow] = pool_window::max_of_window(xp, oh, ow, H, W, a, I[o + ow]);
        if (rows_inside) max_row_interior(xp, h0, W, a, l, h, Y + o, I + o);
        for (int64_t ow = h; ow < Wo; ++ow) Y[o + ow] = pool_window::max_of_window(xp, oh, ow, H, W, a, I[o + ow]);
      }
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
