#include "cpu/gemm/probe.h"

#include <chrono>
#include <cstdint>

#include "cpu/gemm/ladder.h"

namespace aakaar::cpu::gemm_ladder {

double measure_clock_ghz() {
#if defined(__x86_64__)
  double best = 0;
  for (int trial = 0; trial < 5; ++trial) {  // the best of a few: the core may be shared
    uint64_t x = 0;
    const int64_t iters = 2'000'000;
    auto t0 = std::chrono::steady_clock::now();
    for (int64_t i = 0; i < iters; ++i) {
      // 16 adds, each waiting for the one before: 16 cycles per iteration;
      // the loop counter runs alongside on other ports.
      asm volatile(
          "add $1, %0\n\tadd $1, %0\n\tadd $1, %0\n\tadd $1, %0\n\t"
          "add $1, %0\n\tadd $1, %0\n\tadd $1, %0\n\tadd $1, %0\n\t"
          "add $1, %0\n\tadd $1, %0\n\tadd $1, %0\n\tadd $1, %0\n\t"
          "add $1, %0\n\tadd $1, %0\n\tadd $1, %0\n\tadd $1, %0\n\t"
          : "+r"(x));
    }
    const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    const double ghz = double(x) / s * 1e-9;
    if (ghz > best) best = ghz;
  }
  return best;
#else
  return 0.0;
#endif
}

double measure_fma_gflops_avx2() {
  if (!cpu_has_avx2_fma()) return 0.0;
  double best = 0;
  volatile float sink = 0;  // keeps the loop from being optimised away
  for (int trial = 0; trial < 5; ++trial) {
    const long iters = 2'000'000;
    auto t0 = std::chrono::steady_clock::now();
    sink = sink + fma_chains_avx2(iters);
    const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    const double gflops = double(iters) * 10 * 8 * 2 / s * 1e-9;
    if (gflops > best) best = gflops;
  }
  return best;
}

}  // namespace aakaar::cpu::gemm_ladder
