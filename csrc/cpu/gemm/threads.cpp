// Rung v5 of the ladder (csrc/ladders/cpu_gemm), and the library's GEMM for
// everything that is neither tiny nor thin (gemm.cpp).
//
// v5: threads. C is cut into as many slices as there are threads and each
// thread runs the single-threaded packed GEMM on its slice, with its own
// packing buffers: no barriers, no shared writes. Cutting along N means each
// thread packs only its part of B but all of A; cutting along M, the
// reverse. So we cut the dimension whose cut duplicates the smaller operand.
// Small products stay on one thread: waking a team costs microseconds.
#include <algorithm>

#include "cpu/gemm/microkernels.h"
#include "cpu/gemm/packed.h"
#include "cpu/parallel.h"

namespace aakaar::cpu::gemm_impl {

namespace {
// About 20 microseconds of single-core work: below this per thread, the
// fork/join of the team costs more than it saves.
constexpr double kMinMacsPerThread = 1 << 20;
}  // namespace

template <typename T>
void v5_threads(const GemmArgs<T>& g0, Blocking blk) {
  const Kernels<T> kr = best_kernels<T>();
  const int64_t MR = kr.mr, NR = kr.nr;
  // Operands that fit in L2 are read in place (v6), the rest packed.
  const GemmArgs<T> g = orient(g0, kr, Operands::Auto);
  const double macs = double(g.M) * double(g.N) * double(g.K);
  int64_t parts = std::min<int64_t>(get_num_threads(), int64_t(macs / kMinMacsPerThread));
  if (parts <= 1 || g.M <= 0 || g.N <= 0 || g.K <= 0) {
    run_loops(g, kr, blk, Operands::Auto);
    return;
  }
  // [[book:gemm_v5_split]]
  // Work is cut in whole register tiles, so no tile is shared by two threads.
  const int64_t n_tiles = (g.N + NR - 1) / NR, m_tiles = (g.M + MR - 1) / MR;
  bool cut_n = g.M <= g.N ? n_tiles >= parts : m_tiles < parts;
  const int64_t tiles = cut_n ? n_tiles : m_tiles;
  parts = std::min(parts, tiles);
  parallel_for(0, parts, 1, [&](int64_t p0, int64_t p1) {
    for (int64_t p = p0; p < p1; ++p) {
      const int64_t t0 = tiles * p / parts, t1 = tiles * (p + 1) / parts;
      GemmArgs<T> s = g;
      if (cut_n) {
        const int64_t j0 = t0 * NR, j1 = std::min(g.N, t1 * NR);
        s.N = j1 - j0;
        s.B = g.B + j0 * g.cs_b;
        s.C = g.C + j0 * g.cs_c;
        if (s.bias != nullptr) s.bias = g.bias + j0 * g.cs_bias;
      } else {
        const int64_t i0 = t0 * MR, i1 = std::min(g.M, t1 * MR);
        s.M = i1 - i0;
        s.A = g.A + i0 * g.rs_a;
        s.C = g.C + i0 * g.rs_c;
        if (s.bias != nullptr) s.bias = g.bias + i0 * g.rs_bias;
      }
      if (s.M > 0 && s.N > 0) run_loops(s, kr, blk, Operands::Auto);
    }
  });
  // [[/book:gemm_v5_split]]
}

AAKAAR_GEMM_INSTANTIATE_BLK(v5_threads)

}  // namespace aakaar::cpu::gemm_impl
