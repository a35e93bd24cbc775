// Micro-kernels of the packed GEMM: one MR x NR tile of C held in registers
// while a packed A strip (MR x kc) and B strip (kc x NR) stream past.
// All of them share the MicroKernel signature of packed.h.
#pragma once
#include <cstdint>

namespace aakaar::cpu::gemm_impl {

// Register tile per element type. 6 x 16 floats = 12 ymm accumulators (of the
// 16 AVX2 registers), leaving room for 2 B vectors and 1 broadcast A value:
// each k step does 12 FMAs for 2 loads of B and 6 broadcasts of A.
template <typename T> struct Tile;
template <> struct Tile<float> { static constexpr int MR = 6, NR = 16; };
template <> struct Tile<double> { static constexpr int MR = 6, NR = 8; };
// The AVX-512 kernels' tile: 8 rows of two 512-bit registers.
template <typename T> struct Tile512 { static constexpr int MR = 8, NR = 128 / int(sizeof(T)); };

// Portable C++ (v3): the compiler vectorises what it can for the baseline ISA.
template <typename T>
void ukernel_portable(int64_t kc, const T* a, const T* b, T* c, int64_t rs_c, T alpha, T beta);

// AVX2 + FMA intrinsics (v4), defined in microkernel_avx2.cpp, which is
// compiled with -mavx2 -mfma; call only when cpu::isa_at_least(Isa::Avx2).
void ukernel_avx2_f32_6x16(int64_t kc, const float* a, const float* b, float* c, int64_t rs_c,
                           float alpha, float beta);
void ukernel_avx2_f64_6x8(int64_t kc, const double* a, const double* b, double* c, int64_t rs_c,
                          double alpha, double beta);

void ukernel_avx512_f32_8x32(int64_t kc, const float* a, const float* b, float* c, int64_t rs_c,
                             float alpha, float beta);
void ukernel_avx512_f64_8x16(int64_t kc, const double* a, const double* b, double* c, int64_t rs_c,
                             double alpha, double beta);

// v6: the AVX-512 tiles reading A and B in place (direct_avx512.cpp):
// A(i, k) at a[i * rs_a + k * cs_a], B(k, j) at b[k * rs_b + j]; only the
// valid m x n corner of the tile is read from B and written to c.
void ukernel_avx512_f32_8x32_direct(int64_t kc, const float* a, int64_t rs_a, int64_t cs_a,
                                    const float* b, int64_t rs_b, float* c, int64_t rs_c,
                                    int64_t m, int64_t n, float alpha, float beta);
void ukernel_avx512_f64_8x16_direct(int64_t kc, const double* a, int64_t rs_a, int64_t cs_a,
                                    const double* b, int64_t rs_b, double* c, int64_t rs_c,
                                    int64_t m, int64_t n, double alpha, double beta);

// AVX2 packing of one full strip that needs a transpose (pack_avx2.cpp).
void pack_b_colmajor_avx2(int64_t kc, int nr, const float* b, int64_t cs, float* out);
void pack_b_rowmajor_avx2(int64_t kc, int nr, const float* b, int64_t rs, float* out);
void pack_a6_rowmajor_avx2(int64_t kc, const float* a, int64_t rs, float* out);
void pack_a8_rowmajor_avx2(int64_t kc, const float* a, int64_t rs, float* out);
// An 8-row tile of C^T (row stride nr, n valid columns) stored into a
// row-major C, fused with + beta * C, + bias[0..7] (if not null) and ReLU.
void store_tile_transposed_avx2(const float* tile, int nr, int64_t n, float* c, int64_t ldc, float beta,
                                const float* bias, bool relu);

}  // namespace aakaar::cpu::gemm_impl
