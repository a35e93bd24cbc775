#include "cpu/isa.h"

#include <cstdlib>
#include <cstring>

namespace aakaar::cpu {

bool has_avx2() {
#if defined(__x86_64__) || defined(_M_X64)
  static const bool ok = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
  return ok;
#else
  return false;
#endif
}

bool has_avx512() {
#if defined(__x86_64__) || defined(_M_X64)
  static const bool ok = has_avx2() && __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512dq") &&
                         __builtin_cpu_supports("avx512bw") && __builtin_cpu_supports("avx512vl");
  return ok;
#else
  return false;
#endif
}

namespace {

#define AK_KERNEL_TABLE(ns)                                                                            \
  ElementwiseKernels {                                                                                 \
    ns::binary, ns::unary, ns::copy, ns::add_scaled, ns::lerp_scalar, ns::linear_mask_colsum_f32, ns::sum_contiguous_f32, ns::sum_contiguous_f64,                   \
        ns::max_contiguous_f32, ns::min_contiguous_f32, ns::max_contiguous_f64, ns::min_contiguous_f64 \
  }

// The widest build this CPU runs, capped by AAKAAR_CPU_ISA if set.
const char* choose_isa() {
  const char* cap = std::getenv("AAKAAR_CPU_ISA");
  const bool allow_avx512 = !cap || std::strcmp(cap, "avx512") == 0;
  const bool allow_avx2 = allow_avx512 || std::strcmp(cap, "avx2") == 0;
  if (allow_avx512 && has_avx512()) return "avx512";
  if (allow_avx2 && has_avx2()) return "avx2";
  return "baseline";
}

}  // namespace

const char* isa_name() {
  static const char* name = choose_isa();
  return name;
}

const ElementwiseKernels& kernels() {
  static const ElementwiseKernels table = [] {
#if defined(__x86_64__) || defined(_M_X64)
    if (std::strcmp(isa_name(), "avx512") == 0) return AK_KERNEL_TABLE(avx512);
    if (std::strcmp(isa_name(), "avx2") == 0) return AK_KERNEL_TABLE(avx2);
#endif
    return AK_KERNEL_TABLE(baseline);
  }();
  return table;
}

}  // namespace aakaar::cpu
