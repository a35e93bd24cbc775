// The inner loop of 2-d max pooling over one output row whose windows lie wholly inside the
// input, compiled once per instruction set (conv2d_pool.cpp, pool_avx2.cpp, pool_avx512.cpp;
// cpu/isa.h chooses). The rule is max_of_window's (core/pool_window.h): a later tap wins if it is
// greater or NaN. Written as selects rather than branches: on real data whether a tap beats the
// running maximum is a coin toss, and a mispredicted branch per tap cost more than the window.
// The 2x2, stride-2 case (the CNN's pooling) is a straight-line body the compiler vectorises.
#include <cstdint>

#include "core/backend.h"

#ifndef AK_KERNEL_NS
#error "define AK_KERNEL_NS before including pool_loops.h"
#endif

namespace aakaar::cpu::AK_KERNEL_NS {

// Whether tap value v takes over from the running maximum m (bitwise |: no branch for the NaN test).
template <typename T>
inline bool takes_over(T v, T m) {
  return (v > m) | (v != v);
}

// y[0..n), idx[0..n) for 2x2 windows at stride 2: window o reads r0[2o], r0[2o + 1], r1[2o],
// r1[2o + 1], where r0[0] is flat position i0 of the plane and r1 = r0 + W.
template <typename T>
void max_row_2x2_s2(const T* __restrict r0, int64_t i0, int64_t W, int64_t n, T* __restrict y,
                    int64_t* __restrict idx) {
  const T* __restrict r1 = r0 + W;
  for (int64_t o = 0; o < n; ++o) {
    const T v0 = r0[2 * o], v1 = r0[2 * o + 1], v2 = r1[2 * o], v3 = r1[2 * o + 1];
    const int64_t i = i0 + 2 * o;
    bool t = takes_over(v1, v0);
    T m = t ? v1 : v0;
    int64_t b = t ? i + 1 : i;
    t = takes_over(v2, m);
    m = t ? v2 : m;
    b = t ? i + W : b;
    t = takes_over(v3, m);
    y[o] = t ? v3 : m;
    idx[o] = t ? i + W + 1 : b;
  }
}

// Any window shape: the taps in max_of_window's order, h0 the window's first input row.
template <typename T>
void max_row_any(const T* xp, int64_t h0, int64_t W, const Pool2dArgs& a, int64_t lo, int64_t hi, T* y,
                 int64_t* idx) {
  const int64_t kH = a.kernel[0], kW = a.kernel[1], dH = a.dilation[0], dW = a.dilation[1];
  const int64_t s1 = a.stride[1], p1 = a.padding[1];
  for (int64_t ow = lo; ow < hi; ++ow) {
    const int64_t w0 = ow * s1 - p1;
    int64_t best = h0 * W + w0;
    T m = xp[best];
    for (int64_t i = 0; i < kH; ++i)
      for (int64_t j = 0; j < kW; ++j) {
        const int64_t at = (h0 + i * dH) * W + w0 + j * dW;
        const T v = xp[at];
        const bool take = takes_over(v, m);
        m = take ? v : m;
        best = take ? at : best;
      }
    y[ow] = m;
    idx[ow] = best;
  }
}

// Output columns [lo, hi) of one row, windows inside the input: the entry point per ISA.
template <typename T>
void max_row_interior(const T* xp, int64_t h0, int64_t W, const Pool2dArgs& a, int64_t lo, int64_t hi, T* y,
                      int64_t* idx) {
  if (a.kernel[0] == 2 && a.kernel[1] == 2 && a.stride[1] == 2 && a.dilation[0] == 1 && a.dilation[1] == 1) {
    const int64_t w0 = lo * 2 - a.padding[1];
    max_row_2x2_s2(xp + h0 * W + w0, h0 * W + w0, W, hi - lo, y + lo, idx + lo);
    return;
  }
  max_row_any(xp, h0, W, a, lo, hi, y, idx);
}

#define AK_POOL_INSTANTIATE                                                                                    \
  void max_row_interior_f32(const float* xp, int64_t h0, int64_t W, const Pool2dArgs& a, int64_t lo,         \
                            int64_t hi, float* y, int64_t* idx) {                                           \
    max_row_interior(xp, h0, W, a, lo, hi, y, idx);                                                         \
  }                                                                                                          \
  void max_row_interior_f64(const double* xp, int64_t h0, int64_t W, const Pool2dArgs& a, int64_t lo,        \
                            int64_t hi, double* y, int64_t* idx) {                                          \
    max_row_interior(xp, h0, W, a, lo, hi, y, idx);                                                         \
  }

}  // namespace aakaar::cpu::AK_KERNEL_NS
