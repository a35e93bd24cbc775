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

// The ceiling the GEMM's kernels are compared against: single-core float32
// GFLOP/s of independent FMAs of the widest vector width they use -- AVX-512
// where the CPU has it (and AAKAAR_CPU_ISA allows it), else AVX2; 0 without AVX2.
// A core that splits 512-bit FMAs in two halves gets no more than with AVX2.
double measure_fma_gflops();

// iters x 12 independent 16-wide FMAs (probe_avx512.cpp, built with the
// AVX-512 flags); called only when the CPU has AVX-512.
float fma_chains_avx512(long iters);

}  // namespace aakaar::cpu::gemm_impl
