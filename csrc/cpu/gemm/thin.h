// Thin products: C with only a few rows (or, transposed, a few columns), as
// in batch-1 inference (x @ W^T) or a matrix times a vector. Packing B into
// panels would cost as much as the whole product there; instead B is
// streamed once, row by row or column by column, by the loops of
// thin_loops.h.
#pragma once
#include <cstdint>

#include "cpu/gemm/gemm_args.h"

namespace aakaar::cpu::gemm_impl {

// Largest number of rows (or columns) of C treated as thin: each row streams
// all of B once, which beats packing only for very few rows.
constexpr int64_t kThinMax = 4;

// Computes g with the thin loops when it is thin and its layout suits them;
// returns false (touching nothing) otherwise.
template <typename T>
bool thin_gemm(const GemmArgs<T>& g);

// The AVX2/FMA build of thin_row (thin_loops.h), in thin_avx2.cpp.
void thin_row_avx2(bool columns_of_b, int64_t K, const float* a, int64_t inc_a, const float* B,
                   int64_t rs_b, int64_t cs_b, int64_t n, float* out);
void thin_row_avx2(bool columns_of_b, int64_t K, const double* a, int64_t inc_a, const double* B,
                   int64_t rs_b, int64_t cs_b, int64_t n, double* out);

}  // namespace aakaar::cpu::gemm_impl
