// The one switch for the instruction set. The default build never assumes
// more than baseline x86-64, so one wheel runs everywhere; the hot code is
// compiled again with AVX2/FMA (files named *_avx2.cpp) and AVX-512
// (*_avx512.cpp), and the widest build this CPU runs is chosen once, here, for
// every kernel family: the elementwise loops and row reductions below and the
// GEMM micro-kernels (cpu/gemm). AAKAAR_CPU_ISA=baseline|avx2|avx512 in the
// environment caps the choice (the tests use it to run every build on one CPU).
#pragma once
#include <cstdint>

#include "core/backend.h"

namespace aakaar::cpu {

#define AK_ISA_DECLS                                                              \
  void binary(BinaryOp op, const Tensor& out, const Tensor& a, const Tensor& b); \
  void unary(UnaryOp op, const Tensor& out, const Tensor& in, UnaryParams p);   \
  void copy(const Tensor& dst, const Tensor& src);                               \
  void add_scaled(const Tensor& out, const Tensor& a, const Tensor& b, double alpha); \
  void lerp_scalar(const Tensor& out, const Tensor& a, const Tensor& b, double w); \
  void linear_mask_colsum_f32(int64_t M, int64_t N, const float* g, int64_t rs_g, const float* y, float* gm, \
                              double* acc); \
  float sum_contiguous_f32(const float* x, int64_t n);                           \
  double sum_contiguous_f64(const double* x, int64_t n);                         \
  float max_contiguous_f32(const float* x, int64_t n, float init);              \
  float min_contiguous_f32(const float* x, int64_t n, float init);              \
  double max_contiguous_f64(const double* x, int64_t n, double init);           \
  double min_contiguous_f64(const double* x, int64_t n, double init);

namespace baseline { AK_ISA_DECLS }
namespace avx2 { AK_ISA_DECLS }
namespace avx512 { AK_ISA_DECLS }
#undef AK_ISA_DECLS

// Ordered: a CPU that runs one level runs every level below it.
enum class Isa : int8_t { Baseline, Avx2, Avx512 };

// The widest level this CPU runs (AVX2 counts only with FMA; AVX-512 means
// F, DQ, BW and VL), capped by AAKAAR_CPU_ISA; detected once.
Isa isa();
inline bool isa_at_least(Isa level) { return isa() >= level; }
// "avx512", "avx2" or "baseline": the level isa() chose.
const char* isa_name();

// The vector loops compiled once per level (elementwise_loops.h), for the
// level isa() chose.
struct IsaKernels {
  void (*binary)(BinaryOp, const Tensor&, const Tensor&, const Tensor&);
  void (*unary)(UnaryOp, const Tensor&, const Tensor&, UnaryParams);
  void (*copy)(const Tensor&, const Tensor&);
  // out = a + alpha * b, float32/float64, same dtype, shapes already broadcast.
  void (*add_scaled)(const Tensor&, const Tensor&, const Tensor&, double);
  // out = a + w * (b - a) (torch.lerp, scalar weight), same conditions.
  void (*lerp_scalar)(const Tensor&, const Tensor&, const Tensor&, double);
  // Linear backward's ReLU mask and bias column sums over float rows (elementwise_loops.h).
  void (*linear_mask_colsum_f32)(int64_t, int64_t, const float*, int64_t, const float*, float*, double*);
  float (*sum_f32)(const float*, int64_t);
  double (*sum_f64)(const double*, int64_t);
  float (*max_f32)(const float*, int64_t, float);
  float (*min_f32)(const float*, int64_t, float);
  double (*max_f64)(const double*, int64_t, double);
  double (*min_f64)(const double*, int64_t, double);
};
const IsaKernels& isa_kernels();

}  // namespace aakaar::cpu
