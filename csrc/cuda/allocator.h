// The caching device allocator. cudaMalloc and cudaFree are slow (cudaFree also waits
// for the whole device), and a training step frees and re-allocates the same sizes
// over and over; so freed blocks go to a free list of their size class and the next
// request of that class takes one back without calling CUDA at all.
//
// Reuse is safe without events because every kernel and copy runs on the one default
// stream: work that used a block is ordered before any work that reuses it.
#pragma once
#include <cstddef>
#include <cstdint>

#include "core/storage.h"

namespace aakaar::cuda {

struct MemoryStats {
  int64_t allocated = 0;       // bytes in blocks held by live storages (size classes)
  int64_t reserved = 0;        // bytes obtained from cudaMalloc: allocated + cached
  int64_t peak_allocated = 0;  // since the last reset_peak_memory_stats()
  int64_t peak_reserved = 0;
  int64_t num_allocs = 0;      // requests served
  int64_t num_cache_hits = 0;  // ... of which from a free list
  int64_t num_device_mallocs = 0;
  int64_t num_device_frees = 0;
};

// The size class a request of nbytes is served from: multiples of 512 bytes up to
// 1 MiB, then four classes per power of two (at most 25% waste).
size_t size_class(size_t nbytes);

// A Storage on `device` (only cuda:0 is supported); its memory returns to the cache
// when the last view of it goes away. Raises RuntimeError on out-of-memory, after
// releasing the cache and retrying once, with the sizes in the message.
StoragePtr allocate_storage(size_t nbytes, Device device);

// Raw blocks for temporaries inside a backend call (e.g. partial sums).
void* raw_alloc(size_t nbytes);
void raw_free(void* p);

// Returns every cached (free) block to CUDA.
void empty_cache();
MemoryStats memory_stats();
void reset_peak_memory_stats();

// A temporary device buffer for the duration of a scope.
class ScratchBuffer {
 public:
  explicit ScratchBuffer(size_t nbytes) : p_(raw_alloc(nbytes)) {}
  ~ScratchBuffer() { raw_free(p_); }
  ScratchBuffer(const ScratchBuffer&) = delete;
  ScratchBuffer& operator=(const ScratchBuffer&) = delete;
  template <typename T> T* as() const { return static_cast<T*>(p_); }

 private:
  void* p_;
};

}  // namespace aakaar::cuda
