#include "cpu/gemm/thin.h"

#include <algorithm>

#include "cpu/gemm/packed.h"
#include "cpu/isa.h"
#include "cpu/parallel.h"

namespace aakaar::cpu::gemm_impl {

namespace {
#include "cpu/gemm/thin_loops.h"

// Multiply-adds per thread below which splitting the columns does not pay.
constexpr double kMinMacsPerThread = 1 << 20;

}  // namespace

template <typename T>
bool thin_gemm(const GemmArgs<T>& g0) {
  // A thin C with few columns is the transpose of one with few rows.
  const GemmArgs<T> g =
      g0.M <= kThinMax ? g0
                       : GemmArgs<T>{g0.N, g0.M, g0.K, g0.alpha, g0.B, g0.cs_b, g0.rs_b, g0.A,
                                     g0.cs_a, g0.rs_a, g0.beta, g0.C, g0.cs_c, g0.rs_c, g0.bias,
                                     g0.cs_bias, g0.rs_bias, g0.relu};
  if (g.M > kThinMax || g.M <= 0 || g.N <= 0 || g.K <= 0) return false;
  const bool rows_of_b = g.cs_b == 1, columns_of_b = g.rs_b == 1 && g.cs_a == 1;
  if (!rows_of_b && !columns_of_b) return false;

  // Split the columns of C between threads when there is enough work.
  const int64_t grain = std::max<int64_t>(64, int64_t(kMinMacsPerThread / (g.M * g.K)));
  parallel_for(0, g.N, grain, [&](int64_t j0, int64_t j1) {
    const int64_t n = j1 - j0;
    T* out = static_cast<T*>(packing_buffer(1, sizeof(T) * n));
    for (int64_t i = 0; i < g.M; ++i) {
      const T* a = g.A + i * g.rs_a;
      const T* b = g.B + j0 * g.cs_b;
      if (isa_at_least(Isa::Avx2))
        thin_row_avx2(!rows_of_b, g.K, a, g.cs_a, b, g.rs_b, g.cs_b, n, out);
      else
        thin_row(!rows_of_b, g.K, a, g.cs_a, b, g.rs_b, g.cs_b, n, out);
      T* c = g.C + i * g.rs_c + j0 * g.cs_c;
      for (int64_t j = 0; j < n; ++j) {
        T& cij = c[j * g.cs_c];
        cij = g.alpha * out[j] + (g.beta == T(0) ? T(0) : g.beta * cij);
      }
      apply_epilogue(g, i, j0, 1, n, c);
    }
  });
  return true;
}

template bool thin_gemm<float>(const GemmArgs<float>&);
template bool thin_gemm<double>(const GemmArgs<double>&);

}  // namespace aakaar::cpu::gemm_impl
