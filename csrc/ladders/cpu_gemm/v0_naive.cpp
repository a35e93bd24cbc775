// v0: the definition of matrix multiplication, written as a loop.
// Each C[i][j] is a dot product of row i of A with column j of B. Walking
// down a column of B touches a new cache line at every k, so for large
// matrices nearly every load misses: this is the floor of the ladder.
#include "cpu/gemm/common.h"
#include "ladders/cpu_gemm/ladder.h"

namespace aakaar::cpu::gemm_ladder {

using gemm_impl::apply_epilogue;
using gemm_impl::scale_c;

// [[book:gemm_v0]]
template <typename T>
void v0_naive(const GemmArgs<T>& g) {
  for (int64_t i = 0; i < g.M; ++i) {
    for (int64_t j = 0; j < g.N; ++j) {
      T sum = 0;
      for (int64_t k = 0; k < g.K; ++k)
        sum += g.A[i * g.rs_a + k * g.cs_a] * g.B[k * g.rs_b + j * g.cs_b];
      T& c = g.C[i * g.rs_c + j * g.cs_c];
      c = g.alpha * sum + (g.beta == T(0) ? T(0) : g.beta * c);
    }
  }
  apply_epilogue(g, 0, 0, g.M, g.N, g.C);
}
// [[/book:gemm_v0]]

AAKAAR_GEMM_INSTANTIATE(v0_naive)

}  // namespace aakaar::cpu::gemm_ladder
