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

// The fused forward of a Linear layer with its activation:
//
//   C[M,N] = act(alpha * A @ B + beta * C + bias)
//
// with bias[j * bias_stride] added to every element of column j (bias may be
// null) and act = identity or ReLU (NaN stays NaN). The bias and the
// activation are applied to each tile of C while it is still in cache, so
// they cost no extra pass over C.
enum class GemmActivation { None, ReLU };

template <typename T>
void gemm_bias_act(int64_t M, int64_t N, int64_t K, T alpha,
                   const T* A, int64_t rs_a, int64_t cs_a,
                   const T* B, int64_t rs_b, int64_t cs_b, T beta,
                   T* C, int64_t rs_c, int64_t cs_c,
                   const T* bias, int64_t bias_stride, GemmActivation act);

extern template void gemm<float>(int64_t, int64_t, int64_t, float, const float*, int64_t, int64_t,
                                  const float*, int64_t, int64_t, float, float*, int64_t, int64_t);
extern template void gemm<double>(int64_t, int64_t, int64_t, double, const double*, int64_t, int64_t,
                                  const double*, int64_t, int64_t, double, double*, int64_t, int64_t);
extern template void gemm_bias_act<float>(int64_t, int64_t, int64_t, float, const float*, int64_t,
                                          int64_t, const float*, int64_t, int64_t, float, float*,
                                          int64_t, int64_t, const float*, int64_t, GemmActivation);
extern template void gemm_bias_act<double>(int64_t, int64_t, int64_t, double, const double*,
                                           int64_t, int64_t, const double*, int64_t, int64_t,
                                           double, double*, int64_t, int64_t, const double*,
                                           int64_t, GemmActivation);

}  // namespace aakaar::cpu
