// The library's CPU matrix multiplication.
//
//   C[M,N] = alpha * A[M,K] @ B[K,N] + beta * C[M,N]
//
// Every matrix is addressed by a row stride and a column stride (in elements),
// so transposed and strided views are multiplied without copying them first:
// element (i, j) of A is A[i * rs_a + j * cs_a]. When beta == 0, C is written
// without being read (it may hold garbage or NaN).
#pragma once
#include <cstdint>

namespace aakaar::cpu {

template <typename T>
void gemm(int64_t M, int64_t N, int64_t K, T alpha,
          const T* A, int64_t rs_a, int64_t cs_a,
          const T* B, int64_t rs_b, int64_t cs_b, T beta,
          T* C, int64_t rs_c, int64_t cs_c);

extern template void gemm<float>(int64_t, int64_t, int64_t, float, const float*, int64_t, int64_t,
                                  const float*, int64_t, int64_t, float, float*, int64_t, int64_t);
extern template void gemm<double>(int64_t, int64_t, int64_t, double, const double*, int64_t, int64_t,
                                  const double*, int64_t, int64_t, double, double*, int64_t, int64_t);

}  // namespace aakaar::cpu
