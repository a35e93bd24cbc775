// The CUDA backend's matrix multiplication (its `bmm` entry, cuda/backend_cuda.cu):
//
//   C[b] = alpha * A[b] @ B[b] + beta * C[b]   for b in [0, batch)
//
// Same contract as the CPU gemm (csrc/cpu/gemm/gemm.h): element (i, j) of matrix b of
// A is A[b * bs_a + i * rs_a + j * cs_a], so transposed and strided views need no copy,
// and strides of 0 reuse one matrix for the whole batch; when beta == 0, C is written
// without being read. Pointers are device pointers. The kernel is rung v7 of the GEMM
// ladder (csrc/ladders/cuda/gemm.cu explains how it was reached).
#pragma once
#include <cstdint>

namespace aakaar::cuda {

template <typename T>
void gemm_strided_batched(int64_t batch, int64_t M, int64_t N, int64_t K, T alpha, const T* A, int64_t bs_a,
                          int64_t rs_a, int64_t cs_a, const T* B, int64_t bs_b, int64_t rs_b, int64_t cs_b, T beta,
                          T* C, int64_t bs_c, int64_t rs_c, int64_t cs_c);

}  // namespace aakaar::cuda
