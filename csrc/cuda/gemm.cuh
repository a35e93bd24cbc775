// The kernel behind the CUDA backend's matmul: rung v7 of the GEMM ladder
// (csrc/ladders/cuda/gemm.cu, which explains every rung), with the helpers the
// ladder's rungs share. The backend launches it through gemm.h; the ladder
// includes this header for its last rung.
//
// All kernels handle any M, N, K (not just multiples of the tile sizes): tile
// loads past the edge of A or B read zeros, and stores past the edge of C are skipped.
#pragma once
#include <cstdint>
#include <stdexcept>
#include <string>
#include <type_traits>

#include "cuda/emu/cuda_emu.h"

namespace aakaar::cuda::gemm_tiles {

struct Strides {  // of A, B and C, in elements
  int64_t rs_a, cs_a, rs_b, cs_b, rs_c, cs_c;
  int64_t bs_a, bs_b, bs_c;  // from one matrix of a batch to the next (blockIdx.z)
};

// Moves A, B and C to this block's matrix of the batch.
template <typename T>
__device__ __forceinline__ void select_batch(const T*& A, const T*& B, T*& C, const Strides& s) {
  A += blockIdx.z * s.bs_a;
  B += blockIdx.z * s.bs_b;
  C += blockIdx.z * s.bs_c;
}

template <typename T>
__device__ __forceinline__ void store_c(T* C, int64_t off, T alpha, T acc, T beta) {
  C[off] = beta == T(0) ? alpha * acc : alpha * acc + beta * C[off];
}

// [[book:cuda_gemm_load4]]
// Four consecutive elements row[c], ..., row[c + 3] (stride cs) of which only the first
// `valid` exist: one float4 load when the operand allows it and all 4 exist.
template <typename T>
__device__ __forceinline__ void load4(const T* row, int64_t cs, int c, int valid, bool vec, T (&v)[4]) {
  if constexpr (std::is_same<T, float>::value) {
    if (vec && valid >= 4) {
      const float4 q = *reinterpret_cast<const float4*>(row + c);
      v[0] = q.x, v[1] = q.y, v[2] = q.z, v[3] = q.w;
      return;
    }
  }
  for (int q = 0; q < 4; ++q) v[q] = q < valid ? row[(c + q) * cs] : T(0);
}
// [[/book:cuda_gemm_load4]]

// Can v6 and v7 read this operand's rows with float4 loads? Its elements along a row must be
// contiguous, and every group of 4 it loads -- starting at a multiple of 4 within a row --
// 16-byte aligned: the base pointer, the row stride and the batch stride all keep that.
template <typename T>
inline bool vec_ok(const T* p, int64_t bs, int64_t rs, int64_t cs) {
  return std::is_same<T, float>::value && cs == 1 && rs % 4 == 0 && bs % 4 == 0 &&
         reinterpret_cast<uintptr_t>(p) % 16 == 0;
}

// The sizes every rung takes: indices inside the kernels are int, and the grid's y
// dimension (row tiles; column tiles in v1) is limited to 65535 blocks of at least 32.
inline void check_gemm_sizes(int64_t batch, int64_t M, int64_t N, int64_t K) {
  if (batch < 0 || M < 0 || N < 0 || K < 0)
    throw std::invalid_argument("gemm: negative size batch=" + std::to_string(batch) + " M=" + std::to_string(M) +
                                " N=" + std::to_string(N) + " K=" + std::to_string(K));
  if (M > 65535LL * 32 || N > 65535LL * 32 || K > (1 << 30))
    throw std::invalid_argument("gemm: sizes M=" + std::to_string(M) + " N=" + std::to_string(N) +
                                " K=" + std::to_string(K) + " are too large for the CUDA kernels");
}

inline unsigned blocks_for(int64_t n, int per_block) { return static_cast<unsigned>((n + per_block - 1) / per_block); }

// ---- v7: double buffering and conflict-free fragments ----------------------------------------
// v6 waits twice per 8-deep step of K: at a barrier until the tile is in shared memory,
// then at another before the next load may overwrite it -- and no arithmetic runs while
// the tile travels from global memory. v7 keeps two tiles in shared memory: each thread
// loads the next step's groups of 4 into registers, computes on the current tile
// meanwhile, then stores them into the other one. One barrier per step, and the global
// loads' latency hides behind 512 multiply-adds per thread.
// Two more changes:
//  * a thread's 8x8 block of C is four 4x4 quadrants, 64 rows and 64 columns apart, so
//    the 8 threads of a quarter-warp (served together for float4) read 8 adjacent float4s
//    of a B row (128 bytes, each bank once) where v6's read 8-float strips: two passes;
//  * A's transposed tile rows are padded by 4 floats, so the two halves of a warp that
//    store a column of A write to different banks.
constexpr int kDbBM = 128, kDbBN = 128, kDbBK = 8, kDbThreads = 256;
constexpr int kDbPad = 4;  // floats of padding per row of the transposed A tile

// Four adjacent values between registers and shared memory (16-byte aligned): one
// 16-byte access for float.
template <typename T>
__device__ __forceinline__ void load4_shared(const T* p, T* r) {
  if constexpr (std::is_same<T, float>::value) {
    const float4 q = *reinterpret_cast<const float4*>(p);
    r[0] = q.x, r[1] = q.y, r[2] = q.z, r[3] = q.w;
  } else {
    for (int q = 0; q < 4; ++q) r[q] = p[q];
  }
}
template <typename T>
__device__ __forceinline__ void store4_shared(T* p, const T* r) {
  if constexpr (std::is_same<T, float>::value) *reinterpret_cast<float4*>(p) = make_float4(r[0], r[1], r[2], r[3]);
  else for (int q = 0; q < 4; ++q) p[q] = r[q];
}

// [[book:cuda_gemm_v7]]
// Two blocks per multiprocessor for float (at most 128 registers a thread); double's
// 64 accumulators take twice the registers, so it gets one.
template <typename T>
__global__ void __launch_bounds__(kDbThreads, sizeof(T) == 4 ? 2 : 1)
    gemm_double_buffered_kernel(int M, int N, int K, T alpha, const T* A, const T* B, T beta, T* C, Strides s,
                                bool vec_a, bool vec_b) {
  select_batch(A, B, C, s);
  __align__(16) __shared__ T As[2][kDbBK][kDbBM + kDbPad];  // transposed, as in v5 and v6
  __align__(16) __shared__ T Bs[2][kDbBK][kDbBN];
  const int tid = threadIdx.x;
  const int row0 = blockIdx.y * kDbBM, col0 = blockIdx.x * kDbBN;
  const int t_r = tid / 16, t_c = tid % 16;  // quadrant rows t_r*4 (+64), columns t_c*4 (+64)
  const int a_r = tid / 2, a_c = tid % 2 * 4;            // A tile: 128 rows x 2 groups of 4
  const int b_r = tid / 32, b_c = tid % 32 * 4;          // B tile: 8 rows x 32 groups of 4
  T acc[8][8] = {};
  T a_reg[8], b_reg[8], va[4], vb[4];

  // The groups of 4 of step k0 into va, vb (zeros past the edges, as in v6).
  auto load_tiles = [&](int k0) {
    const int a_valid = row0 + a_r < M ? min(4, K - (k0 + a_c)) : 0;
    load4(a_valid > 0 ? A + (row0 + a_r) * s.rs_a : A, s.cs_a, k0 + a_c, a_valid, vec_a, va);
    const int b_valid = k0 + b_r < K ? min(4, N - (col0 + b_c)) : 0;
    load4(b_valid > 0 ? B + (k0 + b_r) * s.rs_b : B, s.cs_b, col0 + b_c, b_valid, vec_b, vb);
  };
  auto store_tiles = [&](int buf) {
    for (int q = 0; q < 4; ++q) As[buf][a_c + q][a_r] = va[q];
    store4_shared(&Bs[buf][b_r][b_c], vb);
  };

  load_tiles(0);
  store_tiles(0);
  __syncthreads();
  int buf = 0;
  for (int k0 = 0; k0 < K; k0 += kDbBK) {
    const bool more = k0 + kDbBK < K;
    if (more) load_tiles(k0 + kDbBK);  // in flight while the FMAs below run
    for (int kk = 0; kk < kDbBK; ++kk) {
      for (int h = 0; h < 2; ++h) {
        load4_shared(&As[buf][kk][h * 64 + t_r * 4], a_reg + h * 4);
        load4_shared(&Bs[buf][kk][h * 64 + t_c * 4], b_reg + h * 4);
      }
      for (int m = 0; m < 8; ++m)
        for (int n = 0; n < 8; ++n) acc[m][n] += a_reg[m] * b_reg[n];
    }
    if (more) store_tiles(buf ^ 1);  // the other tile: nobody reads it in this step
    __syncthreads();
    buf ^= 1;
  }
  for (int m = 0; m < 8; ++m) {
    const int i = row0 + (m / 4) * 64 + t_r * 4 + m % 4;
    for (int n = 0; n < 8; ++n) {
      const int j = col0 + (n / 4) * 64 + t_c * 4 + n % 4;
      if (i < M && j < N) store_c(C, i * s.rs_c + j * s.cs_c, alpha, acc[m][n], beta);
    }
  }
}
// [[/book:cuda_gemm_v7]]

}  // namespace aakaar::cuda::gemm_tiles
