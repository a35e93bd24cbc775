#include "cpu/gemm/probe.h"

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <vector>

#include "cpu/gemm/gemm_args.h"
#include "cpu/isa.h"

namespace aakaar::cpu::gemm_impl {

namespace {

// Many short trials (well under a scheduler time slice, so that some run
// without being preempted on a busy machine); other work only ever makes a
// trial slower, so keep a high reading, but the second highest rather than
// the highest, so that a single glitch of the timer cannot set the result.
template <typename F>
double best_of_short_trials(F trial_rate) {
  std::vector<double> rates;
  for (int t = 0; t < 41; ++t) rates.push_back(trial_rate());
  std::sort(rates.begin(), rates.end());
  return rates[rates.size() - 2];
}

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

}  // namespace

double measure_clock_ghz() {
#if defined(__x86_64__)
  return best_of_short_trials([] {
    uint64_t x = 0;
    const int64_t iters = 100'000;  // 1.6 M cycles: about half a millisecond
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
    return double(x) / seconds_since(t0) * 1e-9;
  });
#else
  return 0.0;
#endif
}

double measure_fma_gflops_avx2() {
  if (!isa_at_least(Isa::Avx2)) return 0.0;
  static volatile float sink = 0;  // keeps the loop from being optimised away
  return best_of_short_trials([] {
    const long iters = 200'000;  // 2 M FMAs: about 1 M cycles at 2 per cycle
    auto t0 = std::chrono::steady_clock::now();
    sink = sink + fma_chains_avx2(iters);
    return double(iters) * 10 * 8 * 2 / seconds_since(t0) * 1e-9;
  });
}

double measure_fma_gflops() {
  const double avx2 = measure_fma_gflops_avx2();
  if (!isa_at_least(Isa::Avx512)) return avx2;
  static volatile float sink = 0;
  const double avx512 = best_of_short_trials([] {
    const long iters = 100'000;  // 1.2 M FMAs: about 0.6 M cycles at 2 per cycle
    auto t0 = std::chrono::steady_clock::now();
    sink = sink + fma_chains_avx512(iters);
    return double(iters) * 12 * 16 * 2 / seconds_since(t0) * 1e-9;
  });
  return std::max(avx2, avx512);
}

}  // namespace aakaar::cpu::gemm_impl
