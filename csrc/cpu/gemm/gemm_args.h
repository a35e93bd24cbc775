// The arguments of one GEMM call, and the drivers of the library's GEMM that
// gemm.cpp chooses between. The same struct is the signature of every rung of
// the teaching ladder (csrc/ladders/cpu_gemm), which times these drivers as
// its rungs v1 and v5.
#pragma once
#include <cstdint>

namespace aakaar::cpu::gemm_impl {

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

// i-k-j loops over C, with the epilogue after (loop_order.cpp): the library's
// path for tiny products, and rung v1 of the ladder.
template <typename T> void v1_loop_order(const GemmArgs<T>& g);
// The packed loops with the widest micro-kernel, C split over the thread pool
// (threads.cpp): the library's path for everything else, and rung v5.
template <typename T> void v5_threads(const GemmArgs<T>& g, Blocking blk = {});

}  // namespace aakaar::cpu::gemm_impl
