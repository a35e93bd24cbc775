// The ladder's registry and the micro-kernel tables each rung runs: the
// portable kernel (v3), AVX2 (v4_microkernel_avx2.cpp), AVX-512
// (v4_microkernel_avx512.cpp, v6_direct_avx512.cpp), and the widest the CPU
// runs as cpu::isa() chose it (v5 and the library). Only the *_avx2/*_avx512
// files are compiled with those instruction sets; this one is baseline.
#include "cpu/gemm/ladder.h"

#include "cpu/gemm/microkernels.h"
#include "cpu/gemm/packed.h"
#include "cpu/isa.h"

namespace aakaar::cpu::gemm_ladder {

// The AVX2/AVX-512 files are built on x86 only (CMakeLists.txt): nothing else may name them.
#if defined(__x86_64__) || defined(__i386__)
namespace {

// Full strips of a row- or column-major operand go to the AVX2 packers;
// other strides and partial strips to the portable ones.
template <int MR>
void pack_a_f32_fast(int64_t mc, int64_t kc, const float* A, int64_t rs, int64_t cs, float* out) {
  if (cs != 1) return pack_a<float, MR>(mc, kc, A, rs, cs, out);
  const int64_t full = mc / MR * MR;
  for (int64_t i0 = 0; i0 < full; i0 += MR) {
    if constexpr (MR == 6) pack_a6_rowmajor_avx2(kc, A + i0 * rs, rs, out + i0 * kc);
    else pack_a8_rowmajor_avx2(kc, A + i0 * rs, rs, out + i0 * kc);
  }
  if (full < mc) pack_a<float, MR>(mc - full, kc, A + full * rs, rs, cs, out + full * kc);
}

template <int NR>
void pack_b_f32_fast(int64_t kc, int64_t nc, const float* B, int64_t rs, int64_t cs, float* out) {
  if (rs != 1 && cs != 1) return pack_b<float, NR>(kc, nc, B, rs, cs, out);
  const int64_t full = nc / NR * NR;
  for (int64_t j0 = 0; j0 < full; j0 += NR) {
    if (cs == 1) pack_b_rowmajor_avx2(kc, NR, B + j0, rs, out + j0 * kc);
    else pack_b_colmajor_avx2(kc, NR, B + j0 * cs, cs, out + j0 * kc);
  }
  if (full < nc) pack_b<float, NR>(kc, nc - full, B + full * cs, rs, cs, out + full * kc);
}

Kernels<float> avx2_table(float*) { return {&ukernel_avx2_f32_6x16, &pack_a_f32_fast<6>, &pack_b_f32_fast<16>, 6, 16}; }
Kernels<double> avx2_table(double*) { return {&ukernel_avx2_f64_6x8, &pack_a<double, 6>, &pack_b<double, 8>, 6, 8}; }
Kernels<float> avx512_table(float*) {
  return {&ukernel_avx512_f32_8x32, &pack_a_f32_fast<8>, &pack_b_f32_fast<32>, 8, 32,
          &ukernel_avx512_f32_8x32_direct, &store_tile_transposed_avx2};
}
Kernels<double> avx512_table(double*) {
  return {&ukernel_avx512_f64_8x16, &pack_a<double, 8>, &pack_b<double, 16>, 8, 16,
          &ukernel_avx512_f64_8x16_direct};
}

}  // namespace
#endif

template <typename T>
Kernels<T> portable_kernels() {
  return {&ukernel_portable<T>, &pack_a<T, Tile<T>::MR>, &pack_b<T, Tile<T>::NR>, Tile<T>::MR, Tile<T>::NR};
}

template <typename T>
Kernels<T> avx2_kernels() {
#if defined(__x86_64__) || defined(__i386__)
  if (isa_at_least(Isa::Avx2)) return avx2_table(static_cast<T*>(nullptr));
#endif
  return portable_kernels<T>();
}

template <typename T>
Kernels<T> avx512_kernels() {
#if defined(__x86_64__) || defined(__i386__)
  if (isa_at_least(Isa::Avx512)) return avx512_table(static_cast<T*>(nullptr));
#endif
  return avx2_kernels<T>();
}

template <typename T>
Kernels<T> best_kernels() {
  return avx512_kernels<T>();
}

#define AK_KERNELS(fn) template Kernels<float> fn<float>(); template Kernels<double> fn<double>();
AK_KERNELS(portable_kernels)
AK_KERNELS(avx2_kernels)
AK_KERNELS(avx512_kernels)
AK_KERNELS(best_kernels)
#undef AK_KERNELS

template <typename T>
void v4_microkernel_avx2(const GemmArgs<T>& g, Blocking blk) {
  // Without AVX2 (not reachable through run_version: versions() leaves v4 out)
  // a direct caller still gets a correct result from the portable kernel.
  run_packed(g, avx2_kernels<T>(), blk);
}

template <typename T>
void v4_microkernel_avx512(const GemmArgs<T>& g, Blocking blk) {
  run_packed(g, avx512_kernels<T>(), blk);
}

template <typename T>
void v6_direct(const GemmArgs<T>& g, Blocking blk) {
  // Without AVX-512 (not listed by versions()) the kernels have no in-place
  // variant and the loops pack, so a direct caller still gets a right answer.
  run_packed(g, avx512_kernels<T>(), blk, Operands::InPlace);
}

AAKAAR_GEMM_INSTANTIATE_BLK(v4_microkernel_avx2)
AAKAAR_GEMM_INSTANTIATE_BLK(v4_microkernel_avx512)
AAKAAR_GEMM_INSTANTIATE_BLK(v6_direct)

std::vector<std::string> versions() {
  std::vector<std::string> v = {"v0_naive", "v1_loop_order", "v2_blocked", "v3_packed"};
  if (isa_at_least(Isa::Avx2)) v.push_back("v4_microkernel_avx2");
  if (isa_at_least(Isa::Avx512)) v.push_back("v4_microkernel_avx512");
  v.push_back("v5_threads");
  if (isa_at_least(Isa::Avx512)) v.push_back("v6_direct");
  return v;
}

template <typename T>
bool run_version(const std::string& name, const GemmArgs<T>& g, Blocking blk) {
  if (name == "v0_naive") v0_naive(g);
  else if (name == "v1_loop_order") v1_loop_order(g);
  else if (name == "v2_blocked") v2_blocked(g);
  else if (name == "v3_packed") v3_packed(g, blk);
  else if (name == "v4_microkernel_avx2" && isa_at_least(Isa::Avx2)) v4_microkernel_avx2(g, blk);
  else if (name == "v4_microkernel_avx512" && isa_at_least(Isa::Avx512)) v4_microkernel_avx512(g, blk);
  else if (name == "v5_threads") v5_threads(g, blk);
  else if (name == "v6_direct" && isa_at_least(Isa::Avx512)) v6_direct(g, blk);
  else return false;
  return true;
}
template bool run_version<float>(const std::string&, const GemmArgs<float>&, Blocking);
template bool run_version<double>(const std::string&, const GemmArgs<double>&, Blocking);

}  // namespace aakaar::cpu::gemm_ladder
