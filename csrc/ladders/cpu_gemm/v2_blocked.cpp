// v2: cache blocking. v1 streams all of B through the cache for every row of
// A; once B is larger than the cache, each row of A reloads it from memory.
// Here C is computed tile by tile: a KB x NB tile of B (64 KiB for float) is
// reused by MB rows of A while it is still in L2, and a 1 x NB strip of C
// stays in L1 across the KB updates of the inner loops.
#include <algorithm>

#include "cpu/gemm/common.h"
#include "ladders/cpu_gemm/ladder.h"

namespace aakaar::cpu::gemm_ladder {

using gemm_impl::apply_epilogue;
using gemm_impl::scale_c;

namespace {
constexpr int64_t kMB = 64, kKB = 128, kNB = 128;
}

// [[book:gemm_v2]]
template <typename T>
void v2_blocked(const GemmArgs<T>& g) {
  scale_c(g.M, g.N, g.beta, g.C, g.rs_c, g.cs_c);
  const bool unit = g.cs_b == 1 && g.cs_c == 1;
  for (int64_t j0 = 0; j0 < g.N; j0 += kNB) {
    const int64_t j1 = std::min(g.N, j0 + kNB);
    for (int64_t k0 = 0; k0 < g.K; k0 += kKB) {
      const int64_t k1 = std::min(g.K, k0 + kKB);
      for (int64_t i0 = 0; i0 < g.M; i0 += kMB) {
        const int64_t i1 = std::min(g.M, i0 + kMB);
        // The tile product, in v1's i-k-j order.
        for (int64_t i = i0; i < i1; ++i) {
          T* c_row = g.C + i * g.rs_c;
          for (int64_t k = k0; k < k1; ++k) {
            const T a = g.alpha * g.A[i * g.rs_a + k * g.cs_a];
            const T* b_row = g.B + k * g.rs_b;
            if (unit) {
              for (int64_t j = j0; j < j1; ++j) c_row[j] += a * b_row[j];
            } else {
              for (int64_t j = j0; j < j1; ++j) c_row[j * g.cs_c] += a * b_row[j * g.cs_b];
            }
          }
        }
      }
    }
  }
  apply_epilogue(g, 0, 0, g.M, g.N, g.C);
}
// [[/book:gemm_v2]]

AAKAAR_GEMM_INSTANTIATE(v2_blocked)

}  // namespace aakaar::cpu::gemm_ladder
