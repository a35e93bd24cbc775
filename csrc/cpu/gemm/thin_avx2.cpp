// The thin-product loops of thin_loops.h compiled for AVX2/FMA; called only
// after the run-time check (see thin.cpp). Declared in thin.h, which is not
// included here: its standard headers have inline code that must not be
// compiled with AVX2 (the linker could pick that copy for the portable build).
#include <cstdint>

namespace aakaar::cpu::gemm_impl {

namespace {
#include "cpu/gemm/thin_loops.h"
}  // namespace

void thin_row_avx2(bool columns_of_b, int64_t K, const float* a, int64_t inc_a, const float* B,
                   int64_t rs_b, int64_t cs_b, int64_t n, float* out) {
  thin_row(columns_of_b, K, a, inc_a, B, rs_b, cs_b, n, out);
}
void thin_row_avx2(bool columns_of_b, int64_t K, const double* a, int64_t inc_a, const double* B,
                   int64_t rs_b, int64_t cs_b, int64_t n, double* out) {
  thin_row(columns_of_b, K, a, inc_a, B, rs_b, cs_b, n, out);
}

}  // namespace aakaar::cpu::gemm_impl
