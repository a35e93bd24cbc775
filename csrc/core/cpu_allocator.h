// The caching CPU allocator behind Storage::allocate_cpu (storage.cpp).
//
// A training step allocates the same temporaries, of the same sizes, every
// step. Blocks above a few KiB go back to the OS through munmap on free and
// come back as fresh zero pages that fault on first touch, so each step paid
// for page faults on every large temporary. Freed blocks are instead kept on
// per-size-class free lists and handed out again, up to a cap on the bytes
// kept. Small blocks go straight to malloc, which caches them well already.
#pragma once
#include <cstddef>
#include <cstdint>

namespace aakaar {

struct CpuAllocatorStats {
  int64_t allocated = 0;       // bytes in cached-size blocks held by live storages
  int64_t cached = 0;          // bytes in free blocks kept for reuse
  int64_t peak_allocated = 0;
  int64_t cache_limit = 0;     // most bytes `cached` may reach
  int64_t num_allocs = 0;      // requests of a cacheable size
  int64_t num_cache_hits = 0;  // ... served from a free list
  int64_t num_mallocs = 0;     // blocks obtained from the system
  int64_t num_frees = 0;       // blocks given back to the system
};

CpuAllocatorStats cpu_allocator_stats();
// Gives every cached block back to the system.
void cpu_empty_cache();
// Sets the cap on cached bytes (0 turns caching off), trimming the cache to it.
void cpu_set_cache_limit(int64_t bytes);
// Off: allocate and free through the system, leaving the cached blocks alone
// (for measuring what the cache is worth). On by default.
void cpu_set_cache_enabled(bool enabled);
// The block size a request of nbytes is served with (nbytes itself below the
// cacheable size).
size_t cpu_size_class(size_t nbytes);

}  // namespace aakaar
