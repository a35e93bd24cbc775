// The FMA ceiling of one core: 10 independent chains of AVX2 FMAs (more than
// pipes x latency, e.g. 2 x 4 on recent cores), so the FMA units never wait.
// Compiled with -mavx2 -mfma; timed by the portable caller in probe.cpp (no
// standard headers here, so no AVX2 copy of their inline code can leak).
#include <immintrin.h>

#include "cpu/gemm/probe.h"

namespace aakaar::cpu::gemm_impl {

float fma_chains_avx2(long iters) {
  __m256 acc[10];
  for (int i = 0; i < 10; ++i) acc[i] = _mm256_set1_ps(float(i));
  const __m256 x = _mm256_set1_ps(0.999999f), y = _mm256_set1_ps(1e-6f);
  for (long n = 0; n < iters; ++n) {
#pragma GCC unroll 10
    for (int i = 0; i < 10; ++i) acc[i] = _mm256_fmadd_ps(acc[i], x, y);
  }
  __m256 sum = acc[0];
  for (int i = 1; i < 10; ++i) sum = _mm256_add_ps(sum, acc[i]);
  return _mm256_cvtss_f32(sum);
}

}  // namespace aakaar::cpu::gemm_impl
