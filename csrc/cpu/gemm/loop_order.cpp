// Rung v1 of the ladder (csrc/ladders/cpu_gemm), and the library's path for
// products too small to pack (gemm.cpp).
//
// v1: the same arithmetic in i-k-j order. The inner loop now adds a multiple
// of row k of B to row i of C: both are walked with stride 1 (for row-major
// operands), every cache line is used in full, and the compiler can
// vectorise the loop. No extra cleverness; only the order changed.
#include "cpu/gemm/common.h"

namespace aakaar::cpu::gemm_impl {

// [[book:gemm_v1]]
template <typename T>
void v1_loop_order(const GemmArgs<T>& g) {
  scale_c(g.M, g.N, g.beta, g.C, g.rs_c, g.cs_c);
  // A stride-1 version of the inner loop for the common row-major case: the
  // compiler vectorises it only when it can see the stride is 1.
  const bool unit = g.cs_b == 1 && g.cs_c == 1;
  for (int64_t i = 0; i < g.M; ++i) {
    T* c_row = g.C + i * g.rs_c;
    for (int64_t k = 0; k < g.K; ++k) {
      const T a = g.alpha * g.A[i * g.rs_a + k * g.cs_a];
      const T* b_row = g.B + k * g.rs_b;
      if (unit) {
        for (int64_t j = 0; j < g.N; ++j) c_row[j] += a * b_row[j];
      } else {
        for (int64_t j = 0; j < g.N; ++j) c_row[j * g.cs_c] += a * b_row[j * g.cs_b];
      }
    }
  }
  apply_epilogue(g, 0, 0, g.M, g.N, g.C);
}
// [[/book:gemm_v1]]

AAKAAR_GEMM_INSTANTIATE(v1_loop_order)

}  // namespace aakaar::cpu::gemm_impl
