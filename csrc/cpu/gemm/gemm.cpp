// The library's matrix multiplication: the top of the ladder (v5's threads
// over the packed loops, with the widest micro-kernel cpu::isa() allows, and
// v6's in-place reads for operands already in L2), plus the cases where
// packing cannot pay for itself (tiny products: v1's loop; a few rows or
// columns: thin.cpp).
#include "cpu/gemm/gemm.h"

#include "cpu/gemm/common.h"
#include "cpu/gemm/gemm_args.h"
#include "cpu/gemm/thin.h"

namespace aakaar::cpu {

namespace {

template <typename T>
void run(const gemm_impl::GemmArgs<T>& g) {
  using namespace gemm_impl;
  if (g.M <= 0 || g.N <= 0) return;
  if (g.K <= 0 || g.alpha == T(0)) {  // BLAS semantics: A and B are not read
    scale_c(g.M, g.N, g.beta, g.C, g.rs_c, g.cs_c);
    apply_epilogue(g, 0, 0, g.M, g.N, g.C);
    return;
  }
  // Tiny products: the set-up of the packed loops costs more than the work.
  if (g.M * g.N * g.K < 4096) {
    v1_loop_order(g);  // applies the epilogue too
    return;
  }
  // A few rows (or columns) of C: packing would cost as much as the product.
  if (thin_gemm(g)) return;
  v5_threads(g);
}

}  // namespace

template <typename T>
void gemm(int64_t M, int64_t N, int64_t K, T alpha, const T* A, int64_t rs_a, int64_t cs_a,
          const T* B, int64_t rs_b, int64_t cs_b, T beta, T* C, int64_t rs_c, int64_t cs_c) {
  run(gemm_impl::GemmArgs<T>{M, N, K, alpha, A, rs_a, cs_a, B, rs_b, cs_b, beta, C, rs_c, cs_c});
}

template <typename T>
void gemm_bias_act(int64_t M, int64_t N, int64_t K, T alpha, const T* A, int64_t rs_a,
                   int64_t cs_a, const T* B, int64_t rs_b, int64_t cs_b, T beta, T* C,
                   int64_t rs_c, int64_t cs_c, const T* bias, int64_t bias_stride,
                   GemmActivation act) {
  run(gemm_impl::GemmArgs<T>{M, N, K, alpha, A, rs_a, cs_a, B, rs_b, cs_b, beta, C, rs_c, cs_c,
                               bias, 0, bias_stride, act == GemmActivation::ReLU});
}

template void gemm<float>(int64_t, int64_t, int64_t, float, const float*, int64_t, int64_t,
                          const float*, int64_t, int64_t, float, float*, int64_t, int64_t);
template void gemm<double>(int64_t, int64_t, int64_t, double, const double*, int64_t, int64_t,
                           const double*, int64_t, int64_t, double, double*, int64_t, int64_t);
template void gemm_bias_act<float>(int64_t, int64_t, int64_t, float, const float*, int64_t,
                                   int64_t, const float*, int64_t, int64_t, float, float*, int64_t,
                                   int64_t, const float*, int64_t, GemmActivation);
template void gemm_bias_act<double>(int64_t, int64_t, int64_t, double, const double*, int64_t,
                                    int64_t, const double*, int64_t, int64_t, double, double*,
                                    int64_t, int64_t, const double*, int64_t, GemmActivation);

}  // namespace aakaar::cpu
