// The packed GEMM of v3..v6: the five loops of BLIS (Goto's algorithm)
// around a register-tile micro-kernel (v6 skips the packing of operands it
// reads in place; see Operands and orient below).
// [[book:gemm_loops_sketch]]
//   for jc in N step NC:            B panel  KC x NC  -> packed, lives in L3
//     for pc in K step KC:
//       pack B[pc:pc+KC, jc:jc+NC]  into NR-wide strips
//       for ic in M step MC:        A block  MC x KC  -> packed, lives in L2
//         pack A[ic:ic+MC, pc:pc+KC] into MR-tall strips
//         for jr in NC step NR:     B strip  KC x NR  -> stays in L1
//           for ir in MC step MR:
//             micro-kernel: C[MR x NR] (+)= A strip @ B strip, in registers
// [[/book:gemm_loops_sketch]]
// Packing copies each block once into exactly the order the micro-kernel
// reads it (unit stride, no TLB or cache-set conflicts, aligned), whatever
// the strides of the operands: transposed and strided views are handled
// here, never by copying a whole matrix. Strips are zero-padded to MR / NR,
// so the kernel always computes a full tile; edge tiles go through a small
// buffer and only their valid part is written to C.
#pragma once
#include <algorithm>
#include <cstddef>
#include <cstdint>

#include "cpu/gemm/common.h"
#include "cpu/gemm/microkernels.h"

namespace aakaar::cpu::gemm_impl {

// c[MR x NR] (row stride rs_c, column stride 1) = alpha * a_strip @ b_strip
// + beta * c. a_strip[k * MR + i], b_strip[k * NR + j]; beta == 0: c not read.
template <typename T>
using MicroKernel = void (*)(int64_t kc, const T* a, const T* b, T* c, int64_t rs_c, T alpha,
                             T beta);

// A thread-local, 64-byte aligned scratch buffer that only ever grows, so a
// training loop does not go back to malloc for every product. `slot` picks
// one of a few independent buffers (A block, B panel).
void* packing_buffer(int slot, size_t bytes);

// Packing routines: pack_a(mc, kc, A, rs, cs, out), pack_b(kc, nc, B, rs, cs, out).
template <typename T>
using PackA = void (*)(int64_t mc, int64_t kc, const T* A, int64_t rs, int64_t cs, T* out);
template <typename T>
using PackB = void (*)(int64_t kc, int64_t nc, const T* B, int64_t rs, int64_t cs, T* out);

// What the five loops call: a micro-kernel and the two packing routines that
// lay the operands out for it.
template <typename T>
struct Kernels {
  MicroKernel<T> ukr;
  PackA<T> pack_a;
  PackB<T> pack_b;
  int mr, nr;  // the kernel's register tile: Tile<T> or Tile512<T>
  // v6: the same tile reading A and B in place (null where there is none):
  // A(i, k) at a[i * rs_a + k * cs_a], B(k, j) at b[k * rs_b + j], only the
  // valid m x n corner of the tile read from B and written to c.
  void (*direct)(int64_t kc, const T* a, int64_t rs_a, int64_t cs_a, const T* b, int64_t rs_b, T* c,
                 int64_t rs_c, int64_t m, int64_t n, T alpha, T beta) = nullptr;
  // Stores a full-height (8-row) tile, row stride nr, into a column-major C
  // (C(i, j) at c[j * ldc + i]): + beta * C, + bias[i] unless null, ReLU.
  void (*store_transposed)(const T* tile, int nr, int64_t n, T* c, int64_t ldc, T beta, const T* bias,
                           bool relu) = nullptr;
};

// Where the loops take their operands from: always packed (v3, v4), in
// place wherever the layout allows (v6), or in place when the operand fits
// in L2, where packing costs more than it saves (v5, the library).
enum class Operands { Packed, InPlace, Auto };

// The portable kernel and packing (v3); the AVX2 ones (v4, tile Tile<T>); the
// AVX-512 ones (tile Tile512<T>); and the fastest this CPU runs (v5 and the
// library): AVX-512, else AVX2, else portable, as cpu::isa() chose (cpu/isa.h;
// AAKAAR_CPU_ISA caps it).
template <typename T>
Kernels<T> portable_kernels();
template <typename T>
Kernels<T> avx2_kernels();
template <typename T>
Kernels<T> avx512_kernels();
template <typename T>
Kernels<T> best_kernels();

// [[book:gemm_pack_a]]
template <typename T, int MR>
void pack_a(int64_t mc, int64_t kc, const T* A, int64_t rs, int64_t cs, T* out) {
  for (int64_t i0 = 0; i0 < mc; i0 += MR) {
    const int64_t m = std::min<int64_t>(MR, mc - i0);
    const T* a = A + i0 * rs;
    if (m == MR && rs == 1) {  // column-major A (e.g. a transposed view): MR contiguous values per k
      for (int64_t k = 0; k < kc; ++k)
        for (int i = 0; i < MR; ++i) out[k * MR + i] = a[k * cs + i];
    } else if (m == MR) {  // row-major A: read MR rows side by side
      for (int64_t k = 0; k < kc; ++k)
        for (int i = 0; i < MR; ++i) out[k * MR + i] = a[i * rs + k * cs];
    } else {  // the last, partial strip: pad with zeros
      for (int64_t k = 0; k < kc; ++k)
        for (int i = 0; i < MR; ++i) out[k * MR + i] = i < m ? a[i * rs + k * cs] : T(0);
    }
    out += MR * kc;
  }
}
// [[/book:gemm_pack_a]]

template <typename T, int NR>
void pack_b(int64_t kc, int64_t nc, const T* B, int64_t rs, int64_t cs, T* out) {
  for (int64_t j0 = 0; j0 < nc; j0 += NR) {
    const int64_t n = std::min<int64_t>(NR, nc - j0);
    const T* b = B + j0 * cs;
    if (n == NR && cs == 1) {  // row-major B: NR contiguous values per k
      for (int64_t k = 0; k < kc; ++k)
        for (int j = 0; j < NR; ++j) out[k * NR + j] = b[k * rs + j];
    } else if (n == NR && rs == 1) {  // column-major B: walk each column down k
      for (int j = 0; j < NR; ++j)
        for (int64_t k = 0; k < kc; ++k) out[k * NR + j] = b[j * cs + k];
    } else {
      for (int64_t k = 0; k < kc; ++k)
        for (int j = 0; j < NR; ++j) out[k * NR + j] = j < n ? b[k * rs + j * cs] : T(0);
    }
    out += NR * kc;
  }
}

// C(m x n) = tile + beta * C, for a tile the kernel computed into a buffer
// (row stride NR) because C is not a full, row-major tile.
template <typename T, int NR>
inline void store_tile(const T* tile, T* C, const GemmArgs<T>& g, int64_t m, int64_t n, T beta) {
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < n; ++j) {
      T& c = C[i * g.rs_c + j * g.cs_c];
      c = tile[i * NR + j] + (beta == T(0) ? T(0) : beta * c);
    }
}

// Runs one micro-kernel call for the tile at (i0, j0) of C, m x n valid.
// On the last block of K, the epilogue (bias, ReLU) is applied right away,
// while the tile is still in L1: a fused Linear + ReLU costs no extra pass.
template <typename T, int MR, int NR>
inline void run_tile(MicroKernel<T> ukr, int64_t kc, const T* a, const T* b, const GemmArgs<T>& g,
                     int64_t i0, int64_t j0, int64_t m, int64_t n, T beta, bool last_k) {
  T* C = g.C + i0 * g.rs_c + j0 * g.cs_c;
  if (m == MR && n == NR && g.cs_c == 1) {
    ukr(kc, a, b, C, g.rs_c, g.alpha, beta);
  } else {
    alignas(64) T tile[MR * NR];
    ukr(kc, a, b, tile, NR, g.alpha, T(0));
    store_tile<T, NR>(tile, C, g, m, n, beta);
  }
  if (last_k) apply_epilogue(g, i0, j0, m, n, C);
}

// The same with the in-place kernel: it writes partial row-major tiles
// itself; only a C with non-unit column stride goes through the buffer.
template <typename T, int MR, int NR>
inline void run_tile_direct(const Kernels<T>& kr, int64_t kc, const T* a, int64_t rs_a, int64_t cs_a,
                            const T* b, int64_t rs_b, const GemmArgs<T>& g, int64_t i0, int64_t j0,
                            int64_t m, int64_t n, T beta, bool last_k) {
  T* C = g.C + i0 * g.rs_c + j0 * g.cs_c;
  if (g.cs_c == 1) {
    kr.direct(kc, a, rs_a, cs_a, b, rs_b, C, g.rs_c, m, n, g.alpha, beta);
    if (last_k) apply_epilogue(g, i0, j0, m, n, C);
    return;
  }
  alignas(64) T tile[MR * NR];
  kr.direct(kc, a, rs_a, cs_a, b, rs_b, tile, NR, m, n, g.alpha, T(0));
  if (kr.store_transposed != nullptr && g.rs_c == 1 && m == MR && MR == 8) {
    // C^T of a row-major C (orient): transpose on the way out, with the
    // epilogue when its bias runs down the tile's rows (Linear's does).
    const bool bias_here = g.bias != nullptr && g.rs_bias == 1 && g.cs_bias == 0;
    const bool epilogue_here = last_k && (g.bias == nullptr || bias_here);
    kr.store_transposed(tile, NR, n, C, g.cs_c, beta, epilogue_here && bias_here ? g.bias + i0 : nullptr,
                        epilogue_here && g.relu);
    if (last_k && !epilogue_here) apply_epilogue(g, i0, j0, m, n, C);
    return;
  }
  store_tile<T, NR>(tile, C, g, m, n, beta);
  if (last_k) apply_epilogue(g, i0, j0, m, n, C);
}

// Default blocking per element type for the AVX2 and portable tiles: KC x NR
// of B is 16 KiB (half of L1), MC x KC of A is 144-192 KiB (a fraction of a
// 512 KiB..2 MiB L2).
template <typename T> constexpr Blocking default_blocking();
template <> constexpr Blocking default_blocking<float>() { return {144, 256, 4080}; }
template <> constexpr Blocking default_blocking<double>() { return {96, 256, 4080}; }

// The AVX-512 tiles (rows of B of 128 bytes: 32 floats or 16 doubles) do
// better with the B strip in L2 than in L1: KC = 512 (a 64 KiB strip) and
// MC = 96. L2 feeds one 128-byte row of the strip per 16 FMA cycles with
// ease, and the long KC makes half as many passes over C. Measured on the
// Zen 4 core this was tuned on, 1024^3 float32 on one thread: 1.07x numpy's
// OpenBLAS, against 0.97x with the L1-sized strip (KC = 128, MC = 288); float64
// gains as much. (The AVX2 tiles measured the same either way.)
constexpr Blocking kWideTileBlocking{96, 512, 4080};

inline Blocking resolve_blocking(Blocking blk, Blocking def, int MR, int NR, int elem_size) {
  if (int64_t(NR) * elem_size >= 128) def = kWideTileBlocking;
  if (blk.kc <= 0) blk.kc = def.kc;
  if (blk.mc <= 0) blk.mc = def.mc;
  if (blk.nc <= 0) blk.nc = def.nc;
  // Whole strips only: round MC up to MR and NC up to NR.
  blk.mc = (blk.mc + MR - 1) / MR * MR;
  blk.nc = (blk.nc + NR - 1) / NR * NR;
  return blk;
}

// The size of equal blocks (a multiple of `unit`) that cover n in as few
// blocks of at most max_block as possible.
inline int64_t balanced_block(int64_t n, int64_t max_block, int64_t unit) {
  const int64_t blocks = (n + max_block - 1) / max_block;
  const int64_t size = (n + blocks - 1) / blocks;
  return (size + unit - 1) / unit * unit;
}

// The same product as C^T = B^T @ A^T: operands swapped, every stride pair
// (and the bias's) exchanged, M and N exchanged.
template <typename T>
GemmArgs<T> transposed(const GemmArgs<T>& g) {
  return GemmArgs<T>{g.N, g.M, g.K, g.alpha, g.B, g.cs_b, g.rs_b, g.A, g.cs_a, g.rs_a, g.beta,
                     g.C, g.cs_c, g.rs_c, g.bias, g.cs_bias, g.rs_bias, g.relu};
}

// A column-major C (unit row stride) is the transpose of a row-major one:
// solve C^T = B^T @ A^T and keep the packed kernels' unit-stride stores.
template <typename T>
GemmArgs<T> prefer_row_major_c(const GemmArgs<T>& g) {
  return g.cs_c == 1 || g.rs_c != 1 ? g : transposed(g);
}

// With the in-place kernel A is never copied, whatever its layout; what
// still costs is a B without unit column stride (a transposing pack), a C
// without one (stored through a tile buffer and a register transpose), and
// the tiles' padding where M or N is not a multiple of MR or NR. So of
// C = A @ B and C^T = B^T @ A^T, take the cheaper, in about cycles: a
// transposed element ~1, a padded multiply-add 1/16 (a 16-lane FMA a cycle).
// Linear's forward x @ W^T (64 x 784 x 256) becomes W @ x^T: the batch is
// packed, not the weight (four times fewer copies), and W is read in place;
// with 47 outputs it also fills the 32-wide tiles better.
template <typename T>
double orientation_cost(const GemmArgs<T>& g, int mr, int nr) {
  const auto padded = [](int64_t n, int64_t t) { return (n + t - 1) / t * t; };
  const double waste = double(padded(g.M, mr) * padded(g.N, nr) - g.M * g.N) * double(g.K) / 16.0;
  return double(g.cs_b == 1 ? 0 : g.K * g.N) + double(g.cs_c == 1 ? 0 : g.M * g.N) + waste;
}

template <typename T>
GemmArgs<T> orient(const GemmArgs<T>& g, const Kernels<T>& kr, Operands ops) {
  if (kr.direct == nullptr || ops == Operands::Packed) return prefer_row_major_c(g);
  const GemmArgs<T> t = transposed(g);
  return orientation_cost(t, kr.mr, kr.nr) < orientation_cost(g, kr.mr, kr.nr) ? t : g;
}

// Operands::Auto reads an operand in place when it fits in this many bytes:
// it then stays in L2 (1-2 MiB per core) across the loops' re-reads, and
// the copy would cost more than the strided reads.
constexpr int64_t kInPlaceBytes = int64_t(1) << 20;

struct Plan {
  bool direct_a = false, direct_b = false;
};

template <typename T>
Plan plan_operands(const GemmArgs<T>& g, const Kernels<T>& kr, Operands ops) {
  Plan p;
  if (kr.direct == nullptr || ops == Operands::Packed) return p;
  const bool always = ops == Operands::InPlace;
  const auto fits = [](int64_t rows, int64_t cols) { return rows * cols * int64_t(sizeof(T)) <= kInPlaceBytes; };
  p.direct_b = g.cs_b == 1 && (always || fits(g.K, g.N));
  p.direct_a = always || ((g.rs_a == 1 || g.cs_a == 1) && fits(g.M, g.K));
  return p;
}

// The five loops, single-threaded, on the problem g as it is given (no
// change of orientation), with operands packed or read in place as `ops` says.
template <typename T, int MR, int NR>
void gemm_loops(const GemmArgs<T>& g, const Kernels<T>& kr, Blocking blk, Operands ops) {
  if (g.M <= 0 || g.N <= 0) return;
  if (g.K <= 0) {
    scale_c(g.M, g.N, g.beta, g.C, g.rs_c, g.cs_c);
    apply_epilogue(g, 0, 0, g.M, g.N, g.C);
    return;
  }
  const Plan plan = plan_operands(g, kr, ops);
  // In place, A is not blocked for L2 (one MC block: nothing to pack), and
  // longer K blocks mean fewer passes over C (Linear's K = 784 in one: its
  // transposed C is stored once, not read back and stored again).
  if (plan.direct_a && blk.mc <= 0) blk.mc = g.M;
  if ((plan.direct_a || plan.direct_b) && blk.kc <= 0) blk.kc = 1024;
  blk = resolve_blocking(blk, default_blocking<T>(), MR, NR, int(sizeof(T)));
  // Split K (and M) into equal blocks no larger than asked: K = 784 as
  // 4 x 196 rather than 3 x 256 + 16 keeps every kernel call long enough
  // to hide its C tile load and store.
  blk.kc = balanced_block(g.K, blk.kc, 1);
  blk.mc = balanced_block(g.M, blk.mc, MR);
  const int64_t kc_max = blk.kc, mc_max = blk.mc;
  const int64_t nc_max = std::min(blk.nc, (g.N + NR - 1) / NR * NR);
  T* abuf = plan.direct_a ? nullptr : static_cast<T*>(packing_buffer(0, sizeof(T) * mc_max * kc_max));
  T* bbuf = plan.direct_b ? nullptr : static_cast<T*>(packing_buffer(1, sizeof(T) * nc_max * kc_max));
  const bool in_place = plan.direct_a || plan.direct_b;

  // [[book:gemm_five_loops]]
  for (int64_t jc = 0; jc < g.N; jc += blk.nc) {
    const int64_t nc = std::min(blk.nc, g.N - jc);
    for (int64_t pc = 0; pc < g.K; pc += blk.kc) {
      const int64_t kc = std::min(blk.kc, g.K - pc);
      // The first pass over K applies the caller's beta; later passes add.
      const T beta = pc == 0 ? g.beta : T(1);
      const bool last_k = pc + kc == g.K;
      const T* B = g.B + pc * g.rs_b + jc * g.cs_b;
      if (!plan.direct_b) kr.pack_b(kc, nc, B, g.rs_b, g.cs_b, bbuf);
      for (int64_t ic = 0; ic < g.M; ic += blk.mc) {
        const int64_t mc = std::min(blk.mc, g.M - ic);
        const T* A = g.A + ic * g.rs_a + pc * g.cs_a;
        if (!plan.direct_a) kr.pack_a(mc, kc, A, g.rs_a, g.cs_a, abuf);
        for (int64_t jr = 0; jr < nc; jr += NR) {
          const int64_t n = std::min<int64_t>(NR, nc - jr);
          for (int64_t ir = 0; ir < mc; ir += MR) {
            const int64_t m = std::min<int64_t>(MR, mc - ir);
            if (!in_place) {
              run_tile<T, MR, NR>(kr.ukr, kc, abuf + ir * kc, bbuf + jr * kc, g, ic + ir, jc + jr, m,
                                  n, beta, last_k);
              continue;
            }
            // v6: each operand from where it is, or from its packed strip.
            const T* a = plan.direct_a ? A + ir * g.rs_a : abuf + ir * kc;
            const T* b = plan.direct_b ? B + jr : bbuf + jr * kc;
            run_tile_direct<T, MR, NR>(kr, kc, a, plan.direct_a ? g.rs_a : 1, plan.direct_a ? g.cs_a : MR,
                                       b, plan.direct_b ? g.rs_b : NR, g, ic + ir, jc + jr, m, n, beta,
                                       last_k);
          }
        }
      }
    }
  }
  // [[/book:gemm_five_loops]]
}

// gemm_loops with the tile of the kernels it is given, on the problem as it
// is (v5 orients once, then runs the loops on each thread's slice).
template <typename T>
void run_loops(const GemmArgs<T>& g, const Kernels<T>& kr, Blocking blk, Operands ops) {
  if (kr.mr == Tile512<T>::MR && kr.nr == Tile512<T>::NR)
    gemm_loops<T, Tile512<T>::MR, Tile512<T>::NR>(g, kr, blk, ops);
  else
    gemm_loops<T, Tile<T>::MR, Tile<T>::NR>(g, kr, blk, ops);
}

// The whole problem on one thread: orient it, then run the loops.
template <typename T>
void run_packed(const GemmArgs<T>& g, const Kernels<T>& kr, Blocking blk, Operands ops = Operands::Packed) {
  run_loops(orient(g, kr, ops), kr, blk, ops);
}

}  // namespace aakaar::cpu::gemm_impl
