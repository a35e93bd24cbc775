// The GEMM ladder, after siboehm's "How to optimize a CUDA matmul kernel": each version
// changes one thing, and the book measures what that one thing buys. v1..v6 live here;
// v7, the kernel the backend's matmul runs, lives with the backend (csrc/cuda/gemm.cuh),
// together with the helpers every rung shares (Strides, store_c, load4, vec_ok).
//
// All versions handle any M, N, K (not just multiples of the tile sizes): tile loads
// past the edge of A or B read zeros, and stores past the edge of C are skipped.
#include "ladders/cuda/gemm.h"

#include <algorithm>
#include <stdexcept>
#include <string>
#include <type_traits>

#include "cuda/emu/cuda_emu.h"
#include "cuda/gemm.cuh"

namespace aakaar::cuda {

namespace {

using namespace gemm_tiles;  // Strides, select_batch, store_c, load4, vec_ok, blocks_for (cuda/gemm.cuh)

// ---- v1: naive --------------------------------------------------------------------
// threadIdx.x picks the row, so the 32 threads of a warp read 32 different rows of A
// and write 32 different rows of C: every access is a separate memory transaction.
// [[book:cuda_gemm_v1]]
template <typename T>
__global__ void gemm_naive_kernel(int M, int N, int K, T alpha, const T* A, const T* B, T beta, T* C, Strides s) {
  select_batch(A, B, C, s);
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  const int j = blockIdx.y * blockDim.y + threadIdx.y;
  if (i >= M || j >= N) return;  // no barrier in this kernel, so returning early is fine
  T acc = T(0);
  for (int k = 0; k < K; ++k) acc += A[i * s.rs_a + k * s.cs_a] * B[k * s.rs_b + j * s.cs_b];
  store_c(C, i * s.rs_c + j * s.cs_c, alpha, acc, beta);
}
// [[/book:cuda_gemm_v1]]

// ---- v2: coalesced ----------------------------------------------------------------
// The only change: threadIdx.x picks the column. A warp now reads one element of A
// (broadcast to all lanes) and 32 consecutive elements of B, and writes 32 consecutive
// elements of C.
// [[book:cuda_gemm_v2]]
template <typename T>
__global__ void gemm_coalesced_kernel(int M, int N, int K, T alpha, const T* A, const T* B, T beta, T* C,
                                      Strides s) {
  select_batch(A, B, C, s);
  const int j = blockIdx.x * blockDim.x + threadIdx.x;
  const int i = blockIdx.y * blockDim.y + threadIdx.y;
  if (i >= M || j >= N) return;
  T acc = T(0);
  for (int k = 0; k < K; ++k) acc += A[i * s.rs_a + k * s.cs_a] * B[k * s.rs_b + j * s.cs_b];
  store_c(C, i * s.rs_c + j * s.cs_c, alpha, acc, beta);
}
// [[/book:cuda_gemm_v2]]

// ---- v3: shared-memory tiles --------------------------------------------------------
// A 32x32 block of threads computes a 32x32 tile of C. For each 32-wide slice of K, the
// block loads a tile of A and a tile of B into shared memory (each thread one element
// of each), waits, and every thread reads 32 values from each tile: every element
// loaded from global memory is reused 32 times.
constexpr int kTile = 32;

// [[book:cuda_gemm_v3]]
template <typename T>
__global__ void gemm_shared_tiles_kernel(int M, int N, int K, T alpha, const T* A, const T* B, T beta, T* C,
                                         Strides s) {
  select_batch(A, B, C, s);
  __shared__ T As[kTile][kTile];
  __shared__ T Bs[kTile][kTile];
  const int tx = threadIdx.x, ty = threadIdx.y;
  const int i = blockIdx.y * kTile + ty;  // this thread's row and column of C
  const int j = blockIdx.x * kTile + tx;
  T acc = T(0);
  // No early return for threads outside C: they still load tiles and reach the barriers.
  for (int k0 = 0; k0 < K; k0 += kTile) {
    As[ty][tx] = (i < M && k0 + tx < K) ? A[i * s.rs_a + (k0 + tx) * s.cs_a] : T(0);
    Bs[ty][tx] = (k0 + ty < K && j < N) ? B[(k0 + ty) * s.rs_b + j * s.cs_b] : T(0);
    __syncthreads();  // the tiles are complete
    for (int kk = 0; kk < kTile; ++kk) acc += As[ty][kk] * Bs[kk][tx];
    __syncthreads();  // everyone is done reading before the next tiles overwrite them
  }
  if (i < M && j < N) store_c(C, i * s.rs_c + j * s.cs_c, alpha, acc, beta);
}
// [[/book:cuda_gemm_v3]]

// ---- v4: 1-D block tiling -------------------------------------------------------------
// A block of 512 threads computes a 64x64 tile of C; each thread computes 8 vertically
// adjacent elements. One value of B loaded from shared memory into a register now
// serves 8 multiply-adds, so the kernel does more arithmetic per shared-memory load.
constexpr int k1dBM = 64, k1dBN = 64, k1dBK = 8, k1dTM = 8;
constexpr int k1dThreads = k1dBM * k1dBN / k1dTM;  // 512

// [[book:cuda_gemm_v4]]
template <typename T>
__global__ void gemm_blocktile_1d_kernel(int M, int N, int K, T alpha, const T* A, const T* B, T beta, T* C,
                                         Strides s) {
  select_batch(A, B, C, s);
  __shared__ T As[k1dBM][k1dBK];
  __shared__ T Bs[k1dBK][k1dBN];
  const int tid = threadIdx.x;
  const int row0 = blockIdx.y * k1dBM, col0 = blockIdx.x * k1dBN;
  // Which element of each tile this thread loads: 512 threads, 512 elements per tile.
  const int a_r = tid / k1dBK, a_c = tid % k1dBK;
  const int b_r = tid / k1dBN, b_c = tid % k1dBN;
  // Which 8 elements of C this thread computes: rows t_r*8 .. t_r*8+7 of column t_c.
  const int t_r = tid / k1dBN, t_c = tid % k1dBN;
  T acc[k1dTM] = {};
  for (int k0 = 0; k0 < K; k0 += k1dBK) {
    As[a_r][a_c] = (row0 + a_r < M && k0 + a_c < K) ? A[(row0 + a_r) * s.rs_a + (k0 + a_c) * s.cs_a] : T(0);
    Bs[b_r][b_c] = (k0 + b_r < K && col0 + b_c < N) ? B[(k0 + b_r) * s.rs_b + (col0 + b_c) * s.cs_b] : T(0);
    __syncthreads();
    for (int kk = 0; kk < k1dBK; ++kk) {
      const T b = Bs[kk][t_c];
      for (int r = 0; r < k1dTM; ++r) acc[r] += As[t_r * k1dTM + r][kk] * b;
    }
    __syncthreads();
  }
  const int j = col0 + t_c;
  for (int r = 0; r < k1dTM; ++r) {
    const int i = row0 + t_r * k1dTM + r;
    if (i < M && j < N) store_c(C, i * s.rs_c + j * s.cs_c, alpha, acc[r], beta);
  }
}
// [[/book:cuda_gemm_v4]]

// ---- v5: 2-D block tiling (register blocking) ------------------------------------------
// A block of 256 threads computes a 128x128 tile of C; each thread an 8x8 sub-block.
// Per step of kk, a thread loads 8 values of A and 8 of B into registers and does 64
// multiply-adds with them: 4 FMAs per shared-memory load instead of 1 (v4) or 0.5 (v3).
constexpr int k2dBM = 128, k2dBN = 128, k2dBK = 8, k2dTM = 8, k2dTN = 8;
constexpr int k2dThreads = (k2dBM / k2dTM) * (k2dBN / k2dTN);  // 256

// [[book:cuda_gemm_v5]]
template <typename T>
__global__ void __launch_bounds__(k2dThreads)
    gemm_blocktile_2d_kernel(int M, int N, int K, T alpha, const T* A, const T* B, T beta, T* C, Strides s) {
  select_batch(A, B, C, s);
  __shared__ T As[k2dBK][k2dBM];  // A's tile stored transposed: a column of A is contiguous
  __shared__ T Bs[k2dBK][k2dBN];
  const int tid = threadIdx.x;
  const int row0 = blockIdx.y * k2dBM, col0 = blockIdx.x * k2dBN;
  const int t_r = tid / (k2dBN / k2dTN), t_c = tid % (k2dBN / k2dTN);  // 16x16 threads
  T acc[k2dTM][k2dTN] = {};
  T a_reg[k2dTM], b_reg[k2dTN];
  for (int k0 = 0; k0 < K; k0 += k2dBK) {
    // 1024 elements per tile, 256 threads: 4 each, strided so a warp's loads are adjacent.
    for (int e = tid; e < k2dBM * k2dBK; e += k2dThreads) {
      const int r = e / k2dBK, c = e % k2dBK;  // A tile: 128 rows x 8 columns
      As[c][r] = (row0 + r < M && k0 + c < K) ? A[(row0 + r) * s.rs_a + (k0 + c) * s.cs_a] : T(0);
    }
    for (int e = tid; e < k2dBK * k2dBN; e += k2dThreads) {
      const int r = e / k2dBN, c = e % k2dBN;  // B tile: 8 rows x 128 columns
      Bs[r][c] = (k0 + r < K && col0 + c < N) ? B[(k0 + r) * s.rs_b + (col0 + c) * s.cs_b] : T(0);
    }
    __syncthreads();
    for (int kk = 0; kk < k2dBK; ++kk) {
      for (int m = 0; m < k2dTM; ++m) a_reg[m] = As[kk][t_r * k2dTM + m];
      for (int n = 0; n < k2dTN; ++n) b_reg[n] = Bs[kk][t_c * k2dTN + n];
      for (int m = 0; m < k2dTM; ++m)
        for (int n = 0; n < k2dTN; ++n) acc[m][n] += a_reg[m] * b_reg[n];
    }
    __syncthreads();
  }
  for (int m = 0; m < k2dTM; ++m) {
    const int i = row0 + t_r * k2dTM + m;
    for (int n = 0; n < k2dTN; ++n) {
      const int j = col0 + t_c * k2dTN + n;
      if (i < M && j < N) store_c(C, i * s.rs_c + j * s.cs_c, alpha, acc[m][n], beta);
    }
  }
}
    // [[/book:cuda_gemm_v5]]

// ---- v6: vectorised loads -----------------------------------------------------------------
// v5's tiles and 8x8 register blocks, but every access moves 4 floats at once: a float4
// load from global memory (one 16-byte transaction instead of four), a float4 store of the
// B tile, and float4 loads of a thread's 8 values of A and of B in the inner loop -- which
// is why A's tile is stored transposed: a thread's 8 values of A are then adjacent too.
// A float4 needs 16-byte alignment, so the host (vec_ok, in cuda/gemm.cuh) decides per operand whether
// its rows are contiguous and aligned; an operand that is not, and any group of 4 that
// runs past the edge of the matrix, is read with scalar loads instead, so every size and
// stride works and nothing outside A or B is read. float only: T = double reads scalars.
constexpr int kVecBM = 128, kVecBN = 128, kVecBK = 8, kVecTM = 8, kVecTN = 8;
constexpr int kVecThreads = (kVecBM / kVecTM) * (kVecBN / kVecTN);  // 256
static_assert(kVecBM * kVecBK == 4 * kVecThreads && kVecBK * kVecBN == 4 * kVecThreads,
              "each thread loads exactly one group of 4 of each tile");

// [[book:cuda_gemm_v6]]
// (load4, which fetches a group of four from global memory, is in cuda/gemm.cuh: v7 uses it too.)
// Eight adjacent values of a shared-memory row (16-byte aligned) into registers.
template <typename T>
__device__ __forceinline__ void load8_shared(const T* p, T (&r)[8]) {
  if constexpr (std::is_same<T, float>::value) {
    const float4 lo = reinterpret_cast<const float4*>(p)[0], hi = reinterpret_cast<const float4*>(p)[1];
    r[0] = lo.x, r[1] = lo.y, r[2] = lo.z, r[3] = lo.w, r[4] = hi.x, r[5] = hi.y, r[6] = hi.z, r[7] = hi.w;
  } else {
    for (int q = 0; q < 8; ++q) r[q] = p[q];
  }
}

template <typename T>
__global__ void __launch_bounds__(kVecThreads)
    gemm_vectorized_kernel(int M, int N, int K, T alpha, const T* A, const T* B, T beta, T* C, Strides s,
                           bool vec_a, bool vec_b) {
  select_batch(A, B, C, s);
  __align__(16) __shared__ T As[kVecBK][kVecBM];  // transposed, as in v5; 16-byte aligned for float4
  __align__(16) __shared__ T Bs[kVecBK][kVecBN];
  const int tid = threadIdx.x;
  const int row0 = blockIdx.y * kVecBM, col0 = blockIdx.x * kVecBN;
  const int t_r = tid / (kVecBN / kVecTN), t_c = tid % (kVecBN / kVecTN);
  // The group of 4 each thread loads: A tile 128 rows x (2 groups of 4), B tile 8 rows x 32 groups.
  const int a_r = tid / (kVecBK / 4), a_c = tid % (kVecBK / 4) * 4;
  const int b_r = tid / (kVecBN / 4), b_c = tid % (kVecBN / 4) * 4;
  T acc[kVecTM][kVecTN] = {};
  T a_reg[kVecTM], b_reg[kVecTN], v[4];
  for (int k0 = 0; k0 < K; k0 += kVecBK) {
    // Rows past the edge of A load nothing (valid = 0): no pointer into them is formed.
    const int a_valid = row0 + a_r < M ? min(4, K - (k0 + a_c)) : 0;
    load4(a_valid > 0 ? A + (row0 + a_r) * s.rs_a : A, s.cs_a, k0 + a_c, a_valid, vec_a, v);
    for (int q = 0; q < 4; ++q) As[a_c + q][a_r] = v[q];  // transposing costs 4 scalar stores
    const int b_valid = k0 + b_r < K ? min(4, N - (col0 + b_c)) : 0;
    load4(b_valid > 0 ? B + (k0 + b_r) * s.rs_b : B, s.cs_b, col0 + b_c, b_valid, vec_b, v);
    if constexpr (std::is_same<T, float>::value)  // B's group stays a row: one 16-byte store
      *reinterpret_cast<float4*>(&Bs[b_r][b_c]) = make_float4(v[0], v[1], v[2], v[3]);
    else
      for (int q = 0; q < 4; ++q) Bs[b_r][b_c + q] = v[q];
    __syncthreads();
    for (int kk = 0; kk < kVecBK; ++kk) {
      load8_shared(&As[kk][t_r * kVecTM], a_reg);
      load8_shared(&Bs[kk][t_c * kVecTN], b_reg);
      for (int m = 0; m < kVecTM; ++m)
        for (int n = 0; n < kVecTN; ++n) acc[m][n] += a_reg[m] * b_reg[n];
    }
    __syncthreads();
  }
  for (int m = 0; m < kVecTM; ++m) {
    const int i = row0 + t_r * kVecTM + m;
    for (int n = 0; n < kVecTN; ++n) {
      const int j = col0 + t_c * kVecTN + n;
      if (i < M && j < N) store_c(C, i * s.rs_c + j * s.cs_c, alpha, acc[m][n], beta);
    }
  }
}
// [[/book:cuda_gemm_v6]]

}  // namespace

template <typename T>
void gemm_batched(GemmVersion version, int64_t batch, int64_t M, int64_t N, int64_t K, T alpha, const T* A,
                  int64_t bs_a, int64_t rs_a, int64_t cs_a, const T* B, int64_t bs_b, int64_t rs_b, int64_t cs_b, T beta,
                  T* C, int64_t bs_c, int64_t rs_c, int64_t cs_c) {
  check_gemm_sizes(batch, M, N, K);
  if (batch == 0 || M == 0 || N == 0) return;
  const int m = static_cast<int>(M), n = static_cast<int>(N), k = static_cast<int>(K);
  // The grid's z dimension walks the batch, at most 65535 matrices per launch.
  for (int64_t b0 = 0; b0 < batch; b0 += 65535) {
    const unsigned nb = static_cast<unsigned>(std::min<int64_t>(65535, batch - b0));
    const Strides s{rs_a, cs_a, rs_b, cs_b, rs_c, cs_c, bs_a, bs_b, bs_c};
    const T* a = A + b0 * bs_a;
    const T* b = B + b0 * bs_b;
    T* c = C + b0 * bs_c;
    switch (version) {
      case GemmVersion::Naive:
        AAKAAR_LAUNCH((gemm_naive_kernel<T>), dim3(blocks_for(M, 32), blocks_for(N, 32), nb), dim3(32, 32), 0,
                      m, n, k, alpha, a, b, beta, c, s);
        break;
      case GemmVersion::Coalesced:
        AAKAAR_LAUNCH((gemm_coalesced_kernel<T>), dim3(blocks_for(N, 32), blocks_for(M, 32), nb), dim3(32, 32), 0,
                      m, n, k, alpha, a, b, beta, c, s);
        break;
      case GemmVersion::SharedTiles:
        AAKAAR_LAUNCH((gemm_shared_tiles_kernel<T>), dim3(blocks_for(N, kTile), blocks_for(M, kTile), nb),
                      dim3(kTile, kTile), 0, m, n, k, alpha, a, b, beta, c, s);
        break;
      case GemmVersion::BlockTiling1D:
        AAKAAR_LAUNCH((gemm_blocktile_1d_kernel<T>), dim3(blocks_for(N, k1dBN), blocks_for(M, k1dBM), nb),
                      k1dThreads, 0, m, n, k, alpha, a, b, beta, c, s);
        break;
      case GemmVersion::BlockTiling2D:
        AAKAAR_LAUNCH((gemm_blocktile_2d_kernel<T>), dim3(blocks_for(N, k2dBN), blocks_for(M, k2dBM), nb),
                      k2dThreads, 0, m, n, k, alpha, a, b, beta, c, s);
        break;
      case GemmVersion::VectorLoads:
        AAKAAR_LAUNCH((gemm_vectorized_kernel<T>), dim3(blocks_for(N, kVecBN), blocks_for(M, kVecBM), nb),
                      kVecThreads, 0, m, n, k, alpha, a, b, beta, c, s, vec_ok(a, bs_a, rs_a, cs_a),
                      vec_ok(b, bs_b, rs_b, cs_b));
        break;
      case GemmVersion::DoubleBuffered:
        AAKAAR_LAUNCH((gemm_double_buffered_kernel<T>), dim3(blocks_for(N, kDbBN), blocks_for(M, kDbBM), nb),
                      kDbThreads, 0, m, n, k, alpha, a, b, beta, c, s, vec_ok(a, bs_a, rs_a, cs_a),
                      vec_ok(b, bs_b, rs_b, cs_b));
        break;
      default:
        throw std::invalid_argument("gemm: unknown version " + std::to_string(static_cast<int>(version)));
    }
    AAKAAR_CHECK_LAUNCH();
  }
}

template <typename T>
void gemm(GemmVersion version, int64_t M, int64_t N, int64_t K, T alpha, const T* A, int64_t rs_a, int64_t cs_a,
          const T* B, int64_t rs_b, int64_t cs_b, T beta, T* C, int64_t rs_c, int64_t cs_c) {
  gemm_batched<T>(version, 1, M, N, K, alpha, A, 0, rs_a, cs_a, B, 0, rs_b, cs_b, beta, C, 0, rs_c, cs_c);
}

template void gemm<float>(GemmVersion, int64_t, int64_t, int64_t, float, const float*, int64_t, int64_t,
                          const float*, int64_t, int64_t, float, float*, int64_t, int64_t);
template void gemm<double>(GemmVersion, int64_t, int64_t, int64_t, double, const double*, int64_t, int64_t,
                           const double*, int64_t, int64_t, double, double*, int64_t, int64_t);
template void gemm_batched<float>(GemmVersion, int64_t, int64_t, int64_t, int64_t, float, const float*, int64_t,
                                  int64_t, int64_t, const float*, int64_t, int64_t, int64_t, float, float*, int64_t,
                                  int64_t, int64_t);
template void gemm_batched<double>(GemmVersion, int64_t, int64_t, int64_t, int64_t, double, const double*, int64_t,
                                   int64_t, int64_t, const double*, int64_t, int64_t, int64_t, double, double*, int64_t,
                                   int64_t, int64_t);

}  // namespace aakaar::cuda
