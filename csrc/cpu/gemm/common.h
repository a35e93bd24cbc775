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

}  // namespace aakaar::cpu::gemm_ladder

// Explicit instantiation of a ladder version for float and double.
#define AAKAAR_GEMM_INSTANTIATE(fn)                         \
  template void fn<float>(const GemmArgs<float>&);          \
  template void fn<double>(const GemmArgs<double>&);
#define AAKAAR_GEMM_INSTANTIATE_BLK(fn)                              \
  template void fn<float>(const GemmArgs<float>&, Blocking);         \
  template void fn<double>(const GemmArgs<double>&, Blocking);
