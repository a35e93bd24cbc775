// Grid sizing shared by the launchers.
#pragma once
#include <algorithm>
#include <cstdint>

#include "cuda/emu/cuda_emu.h"

namespace aakaar::cuda {

inline int multiprocessor_count() {
  int device = 0, sms = 0;
  AAKAAR_CUDA_CHECK(cudaGetDevice(&device));
  AAKAAR_CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
  return std::max(sms, 1);
}

// Blocks for a grid-stride loop over n items with `threads` per block: one block per
// `threads` items, but no more than the device keeps resident at once (blocks_per_sm on
// each multiprocessor); the loop covers the rest. Fewer, longer-lived threads also keep
// per-thread overhead (and, on the emulator, fiber switches) low.
// [[book:grid_stride_blocks]]
inline int grid_stride_blocks(int64_t n, int threads, int blocks_per_sm) {
  const int64_t wanted = (n + threads - 1) / threads;
  return static_cast<int>(std::max<int64_t>(1, std::min<int64_t>(wanted, int64_t(multiprocessor_count()) * blocks_per_sm)));
}
// [[/book:grid_stride_blocks]]

}  // namespace aakaar::cuda
