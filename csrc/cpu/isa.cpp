#include "cpu/isa.h"

namespace aakaar::cpu {

bool has_avx2() {
#if defined(__x86_64__) || defined(_M_X64)
  static const bool ok = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
  return ok;
#else
  return false;
#endif
}

const ElementwiseKernels& kernels() {
  static const ElementwiseKernels baseline_k{baseline::binary, baseline::unary, baseline::copy,
                                             baseline::sum_contiguous_f32, baseline::sum_contiguous_f64,
                                             baseline::max_contiguous_f32, baseline::min_contiguous_f32,
                                             baseline::max_contiguous_f64, baseline::min_contiguous_f64};
#if defined(__x86_64__) || defined(_M_X64)
  static const ElementwiseKernels avx2_k{avx2::binary, avx2::unary, avx2::copy, avx2::sum_contiguous_f32,
                                         avx2::sum_contiguous_f64, avx2::max_contiguous_f32, avx2::min_contiguous_f32,
                                         avx2::max_contiguous_f64, avx2::min_contiguous_f64};
  return has_avx2() ? avx2_k : baseline_k;
#else
  return baseline_k;
#endif
}

const char* isa_name() { return has_avx2() ? "avx2" : "baseline"; }

}  // namespace aakaar::cpu
