// The CUDA backend's matrix multiplication: rung v7 of the GEMM ladder (cuda/gemm.cuh)
// over a batch, one launch per 65535 matrices (the grid's z dimension walks the batch).
#include "cuda/gemm.h"

#include <algorithm>

#include "cuda/emu/cuda_emu.h"
#include "cuda/gemm.cuh"

namespace aakaar::cuda {

template <typename T>
void gemm_strided_batched(int64_t batch, int64_t M, int64_t N, int64_t K, T alpha, const T* A, int64_t bs_a,
                          int64_t rs_a, int64_t cs_a, const T* B, int64_t bs_b, int64_t rs_b, int64_t cs_b, T beta,
                          T* C, int64_t bs_c, int64_t rs_c, int64_t cs_c) {
  using namespace gemm_tiles;
  check_gemm_sizes(batch, M, N, K);
  if (batch == 0 || M == 0 || N == 0) return;
  const Strides s{rs_a, cs_a, rs_b, cs_b, rs_c, cs_c, bs_a, bs_b, bs_c};
  for (int64_t b0 = 0; b0 < batch; b0 += 65535) {
    const unsigned nb = static_cast<unsigned>(std::min<int64_t>(65535, batch - b0));
    const T* a = A + b0 * bs_a;
    const T* b = B + b0 * bs_b;
    T* c = C + b0 * bs_c;
    AAKAAR_LAUNCH((gemm_double_buffered_kernel<T>), dim3(blocks_for(N, kDbBN), blocks_for(M, kDbBM), nb),
                  kDbThreads, 0, static_cast<int>(M), static_cast<int>(N), static_cast<int>(K), alpha, a, b, beta,
                  c, s, vec_ok(a, bs_a, rs_a, cs_a), vec_ok(b, bs_b, rs_b, cs_b));
    AAKAAR_CHECK_LAUNCH();
  }
}

template void gemm_strided_batched<float>(int64_t, int64_t, int64_t, int64_t, float, const float*, int64_t, int64_t,
                                          int64_t, const float*, int64_t, int64_t, int64_t, float, float*, int64_t,
                                          int64_t, int64_t);
template void gemm_strided_batched<double>(int64_t, int64_t, int64_t, int64_t, double, const double*, int64_t,
                                           int64_t, int64_t, const double*, int64_t, int64_t, int64_t, double,
                                           double*, int64_t, int64_t, int64_t);

}  // namespace aakaar::cuda
