// The per-ISA inner loops of the fused pointwise losses (pointwise_loss_loops.h),
// declared once for each build: baseline (pointwise_loss.cpp), AVX2 and AVX-512
// (pointwise_loss_avx2.cpp, pointwise_loss_avx512.cpp). pointwise_loss.cpp splits the
// work into blocks, threads them, and hands each block to the build isa() chose.
#pragma once
#include <cstdint>

#include "core/backend.h"

namespace aakaar::cpu {

// One loss's data: contiguous, x's dtype; w, pw, aux null when absent.
struct PointwiseData {
  int64_t n;
  const void* x;
  const void* t;
  const void* w;   // null: no weight
  const void* pw;  // null: no pos_weight
  void* aux;       // null: nothing kept for the backward
  double param;
};

// forward_*: the weighted losses of elements [lo, hi) written to out (reduction none), or,
// with out null, their sum in double. backward_*: grad[k] = loss'(x_k, t_k) w_k g_k over
// [lo, hi), g_k = G[k] when G is given (reduction none), else g_all.
// vec_math_f32: out = exp, log or log1p (which = 0, 1, 2) of x, the tests' window on vec_math.h.
#define AK_POINTWISE_LOSS_DECLS                                                                                  \
  double pointwise_forward_f32(PointwiseLoss kind, const PointwiseData& d, int64_t lo, int64_t hi, float* out);  \
  double pointwise_forward_f64(PointwiseLoss kind, const PointwiseData& d, int64_t lo, int64_t hi, double* out); \
  void pointwise_backward_f32(PointwiseLoss kind, const PointwiseData& d, int64_t lo, int64_t hi, const float* G, \
                              float g_all, float* grad);                                                         \
  void pointwise_backward_f64(PointwiseLoss kind, const PointwiseData& d, int64_t lo, int64_t hi,               \
                              const double* G, double g_all, double* grad);                                      \
  void vec_math_f32(int which, int64_t n, const float* x, float* out);

namespace baseline { AK_POINTWISE_LOSS_DECLS }
namespace avx2 { AK_POINTWISE_LOSS_DECLS }
namespace avx512 { AK_POINTWISE_LOSS_DECLS }
#undef AK_POINTWISE_LOSS_DECLS

}  // namespace aakaar::cpu
