// The FMA ceiling of one core with AVX-512: as probe_avx2.cpp, with 16-lane FMAs. Some cores run
// them as two 256-bit halves (AMD's Zen 4: no more flops per cycle than AVX2), others at full
// width (Zen 5, Intel's server cores): only measuring tells, and the GEMM's AVX-512 kernels are
// compared against this ceiling where the CPU has them. Compiled with the AVX-512 flags; timed by
// the portable caller in probe.cpp.
#include <immintrin.h>

#include "cpu/gemm/probe.h"

namespace aakaar::cpu::gemm_impl {

float fma_chains_avx512(long iters) {
  __m512 acc[12];
  for (int i = 0; i < 12; ++i) acc[i] = _mm512_set1_ps(float(i));
  const __m512 x = _mm512_set1_ps(0.999999f), y = _mm512_set1_ps(1e-6f);
  for (long n = 0; n < iters; ++n) {
#pragma GCC unroll 12
    for (int i = 0; i < 12; ++i) acc[i] = _mm512_fmadd_ps(acc[i], x, y);
  }
  __m512 sum = acc[0];
  for (int i = 1; i < 12; ++i) sum = _mm512_add_ps(sum, acc[i]);
  return _mm512_reduce_add_ps(sum);
}

}  // namespace aakaar::cpu::gemm_impl
