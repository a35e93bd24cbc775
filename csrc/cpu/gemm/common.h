// Small helpers shared by the GEMM's source files and the ladder's (portable code only: the
// *_avx2.cpp files must not include this, so no AVX2-compiled copy of these
// inline functions can be picked by the linker for the portable build).
#pragma once
#include <cstdint>

#include "cpu/gemm/gemm_args.h"

namespace aakaar::cpu::gemm_impl {

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
// C(i0, j0) of the problem g. Row by row, with separate loops for the bias
// and the ReLU, so that on the usual unit strides each loop vectorises.
template <typename T>
void apply_epilogue(const GemmArgs<T>& g, int64_t i0, int64_t j0, int64_t m, int64_t n, T* c) {
  if (g.bias == nullptr && !g.relu) return;
  const int64_t cs = g.cs_c, bs = g.cs_bias;
  for (int64_t i = 0; i < m; ++i) {
    T* row = c + i * g.rs_c;
    if (g.bias != nullptr) {
      const T* b = g.bias + (i0 + i) * g.rs_bias + j0 * bs;
      if (cs == 1 && bs == 1) {
        for (int64_t j = 0; j < n; ++j) row[j] += b[j];
      } else if (cs == 1 && bs == 0) {  // one bias value per row (the transposed problem)
        const T b0 = b[0];
        for (int64_t j = 0; j < n; ++j) row[j] += b0;
      } else {
        for (int64_t j = 0; j < n; ++j) row[j * cs] += b[j * bs];
      }
    }
    if (g.relu) {  // x < 0 ? 0 : x keeps NaN as NaN, as torch.relu does
      if (cs == 1) {
        for (int64_t j = 0; j < n; ++j) row[j] = row[j] < T(0) ? T(0) : row[j];
      } else {
        for (int64_t j = 0; j < n; ++j) row[j * cs] = row[j * cs] < T(0) ? T(0) : row[j * cs];
      }
    }
  }
}

}  // namespace aakaar::cpu::gemm_impl

// Explicit instantiation of a ladder version for float and double.
#define AAKAAR_GEMM_INSTANTIATE(fn)                         \
  template void fn<float>(const GemmArgs<float>&);          \
  template void fn<double>(const GemmArgs<double>&);
#define AAKAAR_GEMM_INSTANTIATE_BLK(fn)                              \
  template void fn<float>(const GemmArgs<float>&, Blocking);         \
  template void fn<double>(const GemmArgs<double>&, Blocking);
