// The GEMM ladder: every step from the triple loop to a BLAS-class kernel,
// kept side by side so each one can be run, validated and timed.
//
//   v0_naive            i-j-k triple loop, one dot product per element of C
//   v1_loop_order       i-k-j: the inner loop streams rows of B and C
//   v2_blocked          v1 on tiles that fit in cache
//   v3_packed           A and B copied into contiguous panels (BLIS loops),
//                       a portable register-tile micro-kernel
//   v4_microkernel_avx2 the same loops with a hand-written AVX2/FMA kernel
//   v4_microkernel_avx512  an 8 x 32 tile in the 32 AVX-512 registers
//   v5_threads          the widest kernel the CPU runs, split over threads
//   v6_direct           the AVX-512 kernel reading A and B in place, unpacked:
//                       for operands that already sit in L2 (v5 and the
//                       library use it there)
//
// All versions compute C = alpha * A @ B + beta * C on strided operands, with
// the conventions of cpu/gemm/gemm.h (beta == 0: C is not read).
//
// This folder holds the rungs only the book runs (v0, v2, and the drivers that
// fix v3, v4 and v6 to one micro-kernel). The rungs the library itself runs
// live with the library's GEMM in csrc/cpu/gemm, under the names of what they
// are: v1 is loop_order.cpp (tiny products), v3's kernel
// microkernel_portable.cpp, v4's microkernel_avx2.cpp and microkernel_avx512.cpp,
// v5 threads.cpp (the library's path), v6's direct_avx512.cpp.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "cpu/gemm/gemm_args.h"

namespace aakaar::cpu::gemm_ladder {

using gemm_impl::Blocking;
using gemm_impl::GemmArgs;
// Rungs v1 and v5 are the library's own drivers (cpu/gemm/gemm_args.h).
using gemm_impl::v1_loop_order;
using gemm_impl::v5_threads;

template <typename T> void v0_naive(const GemmArgs<T>& g);
template <typename T> void v2_blocked(const GemmArgs<T>& g);
template <typename T> void v3_packed(const GemmArgs<T>& g, Blocking blk = {});
template <typename T> void v4_microkernel_avx2(const GemmArgs<T>& g, Blocking blk = {});
template <typename T> void v4_microkernel_avx512(const GemmArgs<T>& g, Blocking blk = {});
template <typename T> void v6_direct(const GemmArgs<T>& g, Blocking blk = {});

// Names of the versions this CPU can run, in ladder order.
std::vector<std::string> versions();

// Runs the version called `name`; returns false when there is no such version
// (or the CPU cannot run it), leaving C untouched.
template <typename T>
bool run_version(const std::string& name, const GemmArgs<T>& g, Blocking blk = {});

}  // namespace aakaar::cpu::gemm_ladder
