// The ladder's registry, run-time CPU dispatch, and v4's driver (the loops of
// packed.h around the AVX2 kernel; the kernel itself is in
// v4_microkernel_avx2.cpp, the only file built with -mavx2 -mfma).
#include "cpu/gemm/ladder.h"

#include <cstdlib>
#include <cstring>

#include "cpu/gemm/microkernels.h"
#include "cpu/gemm/packed.h"

namespace aakaar::cpu::gemm_ladder {

namespace {
bool is_forced_baseline() {
  const char* isa = std::getenv("AAKAAR_GEMM_ISA");
  return isa != nullptr && std::strcmp(isa, "baseline") == 0;
}
}  // namespace

bool cpu_has_avx2_fma() {
#if defined(__x86_64__) || defined(__i386__)
  // AAKAAR_GEMM_ISA=baseline forces the portable kernels, so the fallback of
  // a CPU without AVX2 can be tested (and timed) on one that has it.
  static const bool has = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma") &&
                          !is_forced_baseline();
  return has;
#else
  return false;
#endif
}

namespace {

// Full strips that need a transpose go to the AVX2 packers; everything else
// (already in the packed order, partial strips) to the portable ones.
void pack_a_f32_avx2(int64_t mc, int64_t kc, const float* A, int64_t rs, int64_t cs, float* out) {
  if (cs != 1) return pack_a<float, 6>(mc, kc, A, rs, cs, out);
  const int64_t full = mc / 6 * 6;
  for (int64_t i0 = 0; i0 < full; i0 += 6) pack_a6_rowmajor_avx2(kc, A + i0 * rs, rs, out + i0 * kc);
  if (full < mc) pack_a<float, 6>(mc - full, kc, A + full * rs, rs, cs, out + full * kc);
}

void pack_b_f32_avx2(int64_t kc, int64_t nc, const float* B, int64_t rs, int64_t cs, float* out) {
  if (rs != 1) return pack_b<float, 16>(kc, nc, B, rs, cs, out);
  const int64_t full = nc / 16 * 16;
  for (int64_t j0 = 0; j0 < full; j0 += 16) pack_b16_colmajor_avx2(kc, B + j0 * cs, cs, out + j0 * kc);
  if (full < nc) pack_b<float, 16>(kc, nc - full, B + full * cs, rs, cs, out + full * kc);
}

Kernels<float> avx2_kernels(float*) { return {&ukernel_avx2_f32_6x16, &pack_a_f32_avx2, &pack_b_f32_avx2}; }
Kernels<double> avx2_kernels(double*) { return {&ukernel_avx2_f64_6x8, &pack_a<double, 6>, &pack_b<double, 8>}; }

}  // namespace

template <typename T>
Kernels<T> portable_kernels() {
  return {&ukernel_portable<T>, &pack_a<T, Tile<T>::MR>, &pack_b<T, Tile<T>::NR>};
}

template <typename T>
Kernels<T> best_kernels() {
#if defined(__x86_64__) || defined(__i386__)
  if (cpu_has_avx2_fma()) return avx2_kernels(static_cast<T*>(nullptr));
#endif
  return portable_kernels<T>();
}

template Kernels<float> portable_kernels<float>();
template Kernels<double> portable_kernels<double>();
template Kernels<float> best_kernels<float>();
template Kernels<double> best_kernels<double>();

template <typename T>
void v4_microkernel_avx2(const GemmArgs<T>& g, Blocking blk) {
#if defined(__x86_64__) || defined(__i386__)
  if (cpu_has_avx2_fma()) {
    packed_gemm<T, Tile<T>::MR, Tile<T>::NR>(g, avx2_kernels(static_cast<T*>(nullptr)), blk);
    return;
  }
#endif
  // Not reachable through run_version (versions() leaves v4 out on such a
  // CPU); a direct caller still gets a correct result from the portable kernel.
  packed_gemm<T, Tile<T>::MR, Tile<T>::NR>(g, portable_kernels<T>(), blk);
}
AAKAAR_GEMM_INSTANTIATE_BLK(v4_microkernel_avx2)

std::vector<std::string> versions() {
  std::vector<std::string> v = {"v0_naive", "v1_loop_order", "v2_blocked", "v3_packed"};
  if (cpu_has_avx2_fma()) v.push_back("v4_microkernel_avx2");
  v.push_back("v5_threads");
  return v;
}

template <typename T>
bool run_version(const std::string& name, const GemmArgs<T>& g, Blocking blk) {
  if (name == "v0_naive") v0_naive(g);
  else if (name == "v1_loop_order") v1_loop_order(g);
  else if (name == "v2_blocked") v2_blocked(g);
  else if (name == "v3_packed") v3_packed(g, blk);
  else if (name == "v4_microkernel_avx2" && cpu_has_avx2_fma()) v4_microkernel_avx2(g, blk);
  else if (name == "v5_threads") v5_threads(g, blk);
  else return false;
  return true;
}
template bool run_version<float>(const std::string&, const GemmArgs<float>&, Blocking);
template bool run_version<double>(const std::string&, const GemmArgs<double>&, Blocking);

}  // namespace aakaar::cpu::gemm_ladder
