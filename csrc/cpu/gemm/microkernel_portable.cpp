// The portable micro-kernel (rung v3 of the ladder, and the library's kernel on
// a CPU without AVX2) and the per-thread packing buffers of the packed loops.
//
// v3: packing. The loops of packed.h copy a block of A and a panel of B into
// contiguous strips in the exact order the inner kernel reads them, and the
// inner kernel keeps an MR x NR tile of C in local variables (registers, as
// far as the baseline ISA has them) for the whole kc loop. The arithmetic is
// still plain C++: v4 replaces only the kernel.
#include <cstdlib>
#include <new>

#include "cpu/gemm/microkernels.h"
#include "cpu/gemm/packed.h"

namespace aakaar::cpu::gemm_impl {

void* packing_buffer(int slot, size_t bytes) {
  struct Buffer {
    void* ptr = nullptr;
    size_t size = 0;
    ~Buffer() { std::free(ptr); }
  };
  static thread_local Buffer buffers[2];
  Buffer& buf = buffers[slot];
  if (buf.size < bytes) {
    std::free(buf.ptr);
    // Round up to whole cache lines (aligned_alloc wants a multiple of the
    // alignment) and leave a little head-room for the next, larger call.
    const size_t want = (bytes + bytes / 4 + 63) / 64 * 64;
    buf.ptr = std::aligned_alloc(64, want);
    if (buf.ptr == nullptr) {
      buf.size = 0;
      throw std::bad_alloc();
    }
    buf.size = want;
  }
  return buf.ptr;
}

// [[book:gemm_ukernel_portable]]
// The tile is computed in column slices of 8 (float) / 4 (double) values so
// that a 6-row slice of accumulators fits the 16 registers of plain SSE2:
// with the whole 6 x 16 tile live, the compiler would keep it in memory and
// every multiply-add would become a load and a store.
template <typename T>
void ukernel_portable(int64_t kc, const T* a, const T* b, T* c, int64_t rs_c, T alpha, T beta) {
  constexpr int MR = Tile<T>::MR, NR = Tile<T>::NR, W = 32 / sizeof(T);
  for (int j0 = 0; j0 < NR; j0 += W) {
    T acc[MR][W] = {};
    for (int64_t k = 0; k < kc; ++k) {
      const T* bk = b + k * NR + j0;
#pragma GCC unroll 8
      for (int i = 0; i < MR; ++i) {
        const T ai = a[k * MR + i];
#pragma GCC unroll 8
        for (int j = 0; j < W; ++j) acc[i][j] += ai * bk[j];
      }
    }
    for (int i = 0; i < MR; ++i)
      for (int j = 0; j < W; ++j) {
        T& cij = c[i * rs_c + j0 + j];
        cij = alpha * acc[i][j] + (beta == T(0) ? T(0) : beta * cij);
      }
  }
}
// [[/book:gemm_ukernel_portable]]

template void ukernel_portable<float>(int64_t, const float*, const float*, float*, int64_t, float,
                                      float);
template void ukernel_portable<double>(int64_t, const double*, const double*, double*, int64_t,
                                       double, double);

}  // namespace aakaar::cpu::gemm_impl
