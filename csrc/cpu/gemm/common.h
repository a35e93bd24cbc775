// Small helpers shared by the ladder's source files (portable code only: the
// *_avx2.cpp files must not include this, so no AVX2-compiled copy of these
// inline functions can be picked by the linker for the portable build).
#pragma once
#include <cstdint>

#include "cpu/gemm/ladder.h"

namespace aakaar::cpu::gemm_ladder {

// C = beta * C, except that beta == 0 writes zeros without reading C, so a
// freshly allocated (garbage, maybe NaN) output is safe.
template <typename T>
void scale_c(int64_t M, int64_t N, T beta, T* C, int64_t rs_c, int64_t cs_c) {
  if (beta == T(1)) return;
  for (int64_t i = 0; i < M; ++i)
    for (int64_t j = 0; j < N; ++j) {
      T& c = C[i * rs_c + j * cs_c];
      c = beta == T(0) ? T(0) : beta * c;
    }
}

// The epilogue of GemmArgs on an m x n block of C whose element (0, 0) is
// C(i0, j0) of the problem g.
template <typename T>
void apply_epilogue(const GemmArgs<T>& g, int64_t i0, int64_t j0, int64_t m, int64_t n, T* c) {
  if (g.bias == nullptr && !g.relu) return;
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < n; ++j) {
      T& x = c[i * g.rs_c + j * g.cs_c];
      if (g.bias != nullptr) x += g.bias[(i0 + i) * g.rs_bias + (j0 + j) * g.cs_bias];
      if (g.relu) x = x < T(0) ? T(0) : x;  // NaN stays NaN, as in torch.relu
    }
}

}  // namespace aakaar::cpu::gemm_ladder

// Explicit instantiation of a ladder version for float and double.
#define AAKAAR_GEMM_INSTANTIATE(fn)                         \
  template void fn<float>(const GemmArgs<float>&);          \
  template void fn<double>(const GemmArgs<double>&);
#define AAKAAR_GEMM_INSTANTIATE_BLK(fn)                              \
  template void fn<float>(const GemmArgs<float>&, Blocking);         \
  template void fn<double>(const GemmArgs<double>&, Blocking);
