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
//   v5_threads          v4 (or v3's kernel without AVX2) split over threads
//   v6_direct           the AVX-512 kernel reading A and B in place, unpacked:
//                       for operands that already sit in L2 (v5 and the
//                       library use it there)
//
// All versions compute C = alpha * A @ B + beta * C on strided operands, with
// the conventions of gemm.h (beta == 0: C is not read).
#pragma once
#include <cstdint>
#include <string>
#include <vector>

namespace aakaar::cpu::gemm_ladder {

// The whole problem in one small struct, so every version has one signature.
template <typename T>
struct GemmArgs {
  int64_t M, N, K;
  T alpha;
  const T* A; int64_t rs_a, cs_a;
  const T* B; int64_t rs_b, cs_b;
  T beta;
  T* C; int64_t rs_c, cs_c;
  // Optional epilogue, applied once to each finished element of C:
  //   C(i, j) = act(C(i, j) + bias[i * rs_bias + j * cs_bias])
  // (Linear's bias is one value per column: rs_bias = 0.) v3..v5 apply it to
  // each tile while it is still in L1; v0..v2 in a pass over C at the end.
  const T* bias = nullptr;
  int64_t rs_bias = 0, cs_bias = 0;
  bool relu = false;
};

// Cache blocking of the packed versions (v3..v5), in elements. KC x NR of B
// should sit in L1, MC x KC of A in L2, KC x NC of B in L3. Zero means
// "use the default for this element type".
struct Blocking {
  int64_t mc = 0, kc = 0, nc = 0;
};

template <typename T> void v0_naive(const GemmArgs<T>& g);
template <typename T> void v1_loop_order(const GemmArgs<T>& g);
template <typename T> void v2_blocked(const GemmArgs<T>& g);
template <typename T> void v3_packed(const GemmArgs<T>& g, Blocking blk = {});
template <typename T> void v4_microkernel_avx2(const GemmArgs<T>& g, Blocking blk = {});
template <typename T> void v4_microkernel_avx512(const GemmArgs<T>& g, Blocking blk = {});
template <typename T> void v5_threads(const GemmArgs<T>& g, Blocking blk = {});
template <typename T> void v6_direct(const GemmArgs<T>& g, Blocking blk = {});

// Names of the versions this CPU can run, in ladder order.
std::vector<std::string> versions();

// Runs the version called `name`; returns false when there is no such version
// (or the CPU cannot run it), leaving C untouched.
template <typename T>
bool run_version(const std::string& name, const GemmArgs<T>& g, Blocking blk = {});

}  // namespace aakaar::cpu::gemm_ladder
