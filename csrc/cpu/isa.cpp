#include "cpu/isa.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>

namespace aakaar::cpu {
namespace {

// What the CPU itself runs, whatever the cap.
Isa detect() {
#if defined(__x86_64__) || defined(_M_X64)
  if (!(__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma"))) return Isa::Baseline;
  if (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512dq") &&
      __builtin_cpu_supports("avx512bw") && __builtin_cpu_supports("avx512vl"))
    return Isa::Avx512;
  return Isa::Avx2;
#else
  return Isa::Baseline;
#endif
}

// AAKAAR_CPU_ISA, or the widest level when it is unset. An unknown value
// caps nothing: `import aakaar` warns about it (aakaar/__init__.py), naming
// the level used instead.
Isa cap_from_env() {
  const char* cap = std::getenv("AAKAAR_CPU_ISA");
  if (cap == nullptr) return Isa::Avx512;
  if (std::strcmp(cap, "baseline") == 0) return Isa::Baseline;
  if (std::strcmp(cap, "avx2") == 0) return Isa::Avx2;
  return Isa::Avx512;
}

#define AK_KERNEL_TABLE(ns)                                                                            \
  IsaKernels {                                                                                         \
    ns::binary, ns::unary, ns::copy, ns::add_scaled, ns::lerp_scalar, ns::linear_mask_colsum_f32,      \
        ns::sum_contiguous_f32, ns::sum_contiguous_f64, ns::max_contiguous_f32, ns::min_contiguous_f32, \
        ns::max_contiguous_f64, ns::min_contiguous_f64                                                 \
  }

}  // namespace

Isa isa() {
  static const Isa level = std::min(detect(), cap_from_env());
  return level;
}

const char* isa_name() {
  switch (isa()) {
    case Isa::Avx512: return "avx512";
    case Isa::Avx2: return "avx2";
    default: return "baseline";
  }
}

const IsaKernels& isa_kernels() {
  static const IsaKernels table = [] {
#if defined(__x86_64__) || defined(_M_X64)
    if (isa() == Isa::Avx512) return AK_KERNEL_TABLE(avx512);
    if (isa() == Isa::Avx2) return AK_KERNEL_TABLE(avx2);
#endif
    return AK_KERNEL_TABLE(baseline);
  }();
  return table;
}

}  // namespace aakaar::cpu
