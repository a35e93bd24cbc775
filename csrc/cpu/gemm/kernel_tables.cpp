// The micro-kernel tables of the packed loops (packed.h): the portable kernel,
// AVX2's and AVX-512's, and the widest the CPU runs as cpu::isa() chose it
// (best_kernels(): v5 and the library). Only the *_avx2/*_avx512 files are
// compiled with those instruction sets; this one is baseline.
#include "cpu/gemm/microkernels.h"
#include "cpu/gemm/packed.h"
#include "cpu/isa.h"

namespace aakaar::cpu::gemm_impl {

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

}  // namespace aakaar::cpu::gemm_impl
