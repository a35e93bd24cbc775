// Placeholder: a plain i-k-j loop so the core links; replaced by the blocked,
// packed, vectorised ladder in this folder.
#include "cpu/gemm/gemm.h"

namespace aakaar::cpu {

template <typename T>
void gemm(int64_t M, int64_t N, int64_t K, T alpha, const T* A, int64_t rs_a, int64_t cs_a,
          const T* B, int64_t rs_b, int64_t cs_b, T beta, T* C, int64_t rs_c, int64_t cs_c) {
  for (int64_t i = 0; i < M; ++i) {
    for (int64_t j = 0; j < N; ++j) {
      T& c = C[i * rs_c + j * cs_c];
      c = beta == T(0) ? T(0) : beta * c;
    }
    for (int64_t k = 0; k < K; ++k) {
      const T a = alpha * A[i * rs_a + k * cs_a];
      for (int64_t j = 0; j < N; ++j) C[i * rs_c + j * cs_c] += a * B[k * rs_b + j * cs_b];
    }
  }
}

template void gemm<float>(int64_t, int64_t, int64_t, float, const float*, int64_t, int64_t,
                          const float*, int64_t, int64_t, float, float*, int64_t, int64_t);
template void gemm<double>(int64_t, int64_t, int64_t, double, const double*, int64_t, int64_t,
                           const double*, int64_t, int64_t, double, double*, int64_t, int64_t);

}  // namespace aakaar::cpu
