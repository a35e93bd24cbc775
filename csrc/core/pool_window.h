// The windows of 2-d pooling, PyTorch's rules, for the CPU's kernels (cpu/fused/conv2d_pool.cpp)
// and the device's (cuda/pool_ops.cu) alike: one plane p (H, W) read at output (oh, ow).
#pragma once
#include <cstdint>
#include <limits>

#include "core/backend.h"
#include "core/host_device.h"

namespace aakaar::pool_window {

// [[book:max_pool2d]]
// The maximum of output (oh, ow)'s window and its flat position h W + w in the plane. The taps
// outside the input are skipped; the first tap's index stands even when every value is -inf; a
// NaN always wins, so the window's last NaN is the answer (PyTorch's rule: val > max || isnan(val)).
template <typename T>
AK_HD T max_of_window(const T* xp, int64_t oh, int64_t ow, int64_t H, int64_t W, const Pool2dArgs& a,
                      int64_t& best) {
  const int64_t dH = a.dilation[0], dW = a.dilation[1];
  // The first tap inside the input, and the end of the window (PyTorch's loop bounds).
  int64_t h0 = oh * a.stride[0] - a.padding[0], w0 = ow * a.stride[1] - a.padding[1];
  const int64_t h_end = h0 + (a.kernel[0] - 1) * dH + 1, w_end = w0 + (a.kernel[1] - 1) * dW + 1;
  const int64_t h1 = h_end < H ? h_end : H, w1 = w_end < W ? w_end : W;
  while (h0 < 0) h0 += dH;
  while (w0 < 0) w0 += dW;
  best = h0 * W + w0;
  T maxval = -std::numeric_limits<T>::infinity();
  for (int64_t ih = h0; ih < h1; ih += dH)
    for (int64_t iw = w0; iw < w1; iw += dW) {
      const T v = xp[ih * W + iw];
      if (v > maxval || v != v) {
        maxval = v;
        best = ih * W + iw;
      }
    }
  return maxval;
}
// [[/book:max_pool2d]]

// Output (oh, ow)'s window of average pooling, clipped to the input, and its divisor:
// divisor_override, or the window's size within the padded input (count_include_pad), or
// the number of input pixels it covers.
struct AvgWindow {
  int64_t h0, h1, w0, w1;
  double divisor;
};

AK_HD AvgWindow avg_window(int64_t oh, int64_t ow, int64_t H, int64_t W, const Pool2dArgs& a) {
  int64_t h0 = oh * a.stride[0] - a.padding[0], w0 = ow * a.stride[1] - a.padding[1];
  int64_t h1 = h0 + a.kernel[0], w1 = w0 + a.kernel[1];
  if (h1 > H + a.padding[0]) h1 = H + a.padding[0];
  if (w1 > W + a.padding[1]) w1 = W + a.padding[1];
  const int64_t padded_size = (h1 - h0) * (w1 - w0);  // the window within the padded input
  h0 = h0 > 0 ? h0 : 0, w0 = w0 > 0 ? w0 : 0;
  h1 = h1 < H ? h1 : H, w1 = w1 < W ? w1 : W;
  const double divisor = a.divisor_override != 0 ? double(a.divisor_override)
                         : a.count_include_pad   ? double(padded_size)
                                                 : double((h1 - h0) * (w1 - w0));
  return {h0, h1, w0, w1, divisor};
}

}  // namespace aakaar::pool_window
