// v3: packing. The loops of packed.h copy a block of A and a panel of B into
// contiguous strips in the exact order the inner kernel reads them, and the
// inner kernel keeps an MR x NR tile of C in local variables (registers, as
// far as the baseline ISA has them) for the whole kc loop. The arithmetic is
// still plain C++: v4 replaces only the kernel.
#include <cstdlib>
#include <new>

#include "cpu/gemm/microkernels.h"
#include "cpu/gemm/packed.h"

namespace aakaar::cpu::gemm_ladder {

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

template <typename T>
void ukernel_portable(int64_t kc, const T* a, const T* b, T* c, int64_t rs_c, T alpha, T beta) {
  constexpr int MR = Tile<T>::MR, NR = Tile<T>::NR;
  T acc[MR][NR] = {};
  for (int64_t k = 0; k < kc; ++k) {
    for (int i = 0; i < MR; ++i) {
      const T ai = a[k * MR + i];
      for (int j = 0; j < NR; ++j) acc[i][j] += ai * b[k * NR + j];
    }
  }
  for (int i = 0; i < MR; ++i)
    for (int j = 0; j < NR; ++j) {
      T& cij = c[i * rs_c + j];
      cij = alpha * acc[i][j] + (beta == T(0) ? T(0) : beta * cij);
    }
}

template void ukernel_portable<float>(int64_t, const float*, const float*, float*, int64_t, float,
                                      float);
template void ukernel_portable<double>(int64_t, const double*, const double*, double*, int64_t,
                                       double, double);

template <typename T>
void v3_packed(const GemmArgs<T>& g, Blocking blk) {
  packed_gemm<T, Tile<T>::MR, Tile<T>::NR>(g, &ukernel_portable<T>, blk);
}

AAKAAR_GEMM_INSTANTIATE_BLK(v3_packed)

}  // namespace aakaar::cpu::gemm_ladder
