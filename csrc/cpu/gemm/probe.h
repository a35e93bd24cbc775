// Measuring the ceiling the GEMM ladder is compared against: the core clock
// (as it runs now, boost included) and the FMA throughput of one core.
#pragma once

namespace aakaar::cpu::gemm_impl {

// Core clock in GHz from a chain of dependent integer adds (one cycle each on
// every x86 core of the last decades); 0 where not measurable.
double measure_clock_ghz();

// Single-core float32 GFLOP/s of back-to-back independent AVX2 FMAs; 0 when
// the CPU has no AVX2/FMA.
double measure_fma_gflops_avx2();

// The timed loop of the above (probe_avx2.cpp, built with -mavx2 -mfma): runs
// iters x 10 independent 8-wide FMAs and returns a value that depends on all.
float fma_chains_avx2(long iters);

}  // namespace aakaar::cpu::gemm_impl
