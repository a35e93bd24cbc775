// The CUDA GEMM ladder (gemm.cu): every rung is kept, validated and benchmarked.
// Its top rung, v7, is the backend's matmul (csrc/cuda/gemm.h).
//
//   C[M,N] = alpha * A[M,K] @ B[K,N] + beta * C[M,N]
//
// Same contract as the CPU gemm (csrc/cpu/gemm/gemm.h): element (i, j) of A is
// A[i * rs_a + j * cs_a], so transposed and strided views need no copy; when beta == 0,
// C is written without being read. Pointers are device pointers.
#pragma once
#include <cstdint>

namespace aakaar::cuda {

enum class GemmVersion {
  Naive = 1,          // one thread per C element; a warp walks down a column (uncoalesced)
  Coalesced = 2,      // same, but a warp walks along a row: coalesced loads of B and stores
  SharedTiles = 3,    // 32x32 tiles of A and B staged in shared memory
  BlockTiling1D = 4,  // each thread computes 8 elements of a column of C
  BlockTiling2D = 5,  // each thread computes an 8x8 block of C from registers
  VectorLoads = 6,    // v5 with float4 loads wherever the operands' layout allows them
  DoubleBuffered = 7, // v6 with two shared tiles (one barrier per step) and conflict-free reads
};
// v6 and v7 take any operands: they use float4 loads for those whose layout allows them
// and scalar loads for the rest. v7 is the kernel the backend's matmul runs (cuda/gemm.h).
constexpr GemmVersion kBestGemm = GemmVersion::DoubleBuffered;
constexpr int kGemmVersions = 7;

template <typename T>
void gemm(GemmVersion version, int64_t M, int64_t N, int64_t K, T alpha, const T* A, int64_t rs_a,
          int64_t cs_a, const T* B, int64_t rs_b, int64_t cs_b, T beta, T* C, int64_t rs_c, int64_t cs_c);

// `batch` independent products in one launch (grid z): matrix b of A starts at A + b * bs_a,
// and likewise for B and C. Strides of 0 reuse one matrix for the whole batch.
template <typename T>
void gemm_batched(GemmVersion version, int64_t batch, int64_t M, int64_t N, int64_t K, T alpha, const T* A,
                  int64_t bs_a, int64_t rs_a, int64_t cs_a, const T* B, int64_t bs_b, int64_t rs_b, int64_t cs_b, T beta,
                  T* C, int64_t bs_c, int64_t rs_c, int64_t cs_c);

}  // namespace aakaar::cuda
