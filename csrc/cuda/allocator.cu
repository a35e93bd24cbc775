// The caching device allocator (see allocator.h for why it exists).
#include "cuda/allocator.h"

#include <algorithm>
#include <map>
#include <mutex>
#include <unordered_map>
#include <vector>

#include "core/error.h"
#include "cuda/emu/cuda_emu.h"

namespace aakaar::cuda {
namespace {

constexpr size_t kSmallStep = 512;          // granularity of small classes
constexpr size_t kSmallLimit = size_t(1) << 20;  // 1 MiB

class CachingAllocator {
 public:
  // [[book:allocator_allocate]]
  void* allocate(size_t nbytes) {
    const size_t size = size_class(nbytes);
    std::lock_guard<std::mutex> lock(mu_);
    ++stats_.num_allocs;
    void* p = nullptr;
    auto it = free_.find(size);
    if (it != free_.end() && !it->second.empty()) {
      p = it->second.back();
      it->second.pop_back();
      ++stats_.num_cache_hits;
    } else {
      p = device_malloc(size, nbytes);
    }
    live_[p] = size;
    stats_.allocated += static_cast<int64_t>(size);
    if (stats_.allocated > stats_.peak_allocated) stats_.peak_allocated = stats_.allocated;
    return p;
  }
  // [[/book:allocator_allocate]]

  // [[book:allocator_release]]
  void release(void* p) {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = live_.find(p);
    if (it == live_.end()) return;  // not ours: never happens, and must not throw here
    free_[it->second].push_back(p);
    stats_.allocated -= static_cast<int64_t>(it->second);
    live_.erase(it);
  }
  // [[/book:allocator_release]]

  void empty_cache() {
    std::lock_guard<std::mutex> lock(mu_);
    release_cached_locked();
  }

  MemoryStats stats() {
    std::lock_guard<std::mutex> lock(mu_);
    return stats_;
  }

  void reset_peaks() {
    std::lock_guard<std::mutex> lock(mu_);
    stats_.peak_allocated = stats_.allocated;
    stats_.peak_reserved = stats_.reserved;
  }

 private:
  // cudaMalloc, and on failure: give the cache back to CUDA and try once more.
  void* device_malloc(size_t size, size_t requested) {
    void* p = nullptr;
    cudaError_t err = cudaMalloc(&p, size);
    if (err == cudaErrorMemoryAllocation && stats_.reserved > stats_.allocated) {
      cudaGetLastError();  // clear the error before retrying
      release_cached_locked();
      err = cudaMalloc(&p, size);
    }
    if (err != cudaSuccess || p == nullptr) {
      cudaGetLastError();
      throw RuntimeError(str("CUDA out of memory: tried to allocate ", requested, " bytes (", mib(requested),
                             " MiB) on cuda:0; ", mib(stats_.allocated), " MiB are allocated by live tensors and ",
                             mib(stats_.reserved), " MiB reserved in total (", cudaGetErrorString(err), ")"));
    }
    ++stats_.num_device_mallocs;
    stats_.reserved += static_cast<int64_t>(size);
    if (stats_.reserved > stats_.peak_reserved) stats_.peak_reserved = stats_.reserved;
    return p;
  }

  void release_cached_locked() {
    for (auto& [size, blocks] : free_) {
      for (void* p : blocks) {
        cudaFree(p);
        ++stats_.num_device_frees;
        stats_.reserved -= static_cast<int64_t>(size);
      }
      blocks.clear();
    }
    free_.clear();
  }

  static double mib(int64_t bytes) { return static_cast<double>(bytes) / (1 << 20); }
  static double mib(size_t bytes) { return static_cast<double>(bytes) / (1 << 20); }

  std::mutex mu_;
  std::map<size_t, std::vector<void*>> free_;  // size class -> cached blocks
  std::unordered_map<void*, size_t> live_;     // block -> its size class
  MemoryStats stats_;
};

// Never destroyed: storages released during interpreter shutdown still find it.
CachingAllocator& allocator() {
  static CachingAllocator* a = new CachingAllocator();
  return *a;
}

}  // namespace

// [[book:size_class]]
size_t size_class(size_t nbytes) {
  if (nbytes <= kSmallLimit) return std::max<size_t>(kSmallStep, (nbytes + kSmallStep - 1) / kSmallStep * kSmallStep);
  size_t pow2 = kSmallLimit;
  while (pow2 * 2 <= nbytes) pow2 *= 2;
  const size_t step = pow2 / 4;
  return (nbytes + step - 1) / step * step;
}
// [[/book:size_class]]

StoragePtr allocate_storage(size_t nbytes, Device device) {
  AK_CHECK(device.type == DeviceType::CUDA && device.index == 0, RuntimeError, "cannot allocate on ", device.str(),
           ": the CUDA backend supports cuda:0 only");
  if (nbytes == 0) return Storage::wrap(nullptr, 0, device, nullptr);  // nothing to hold
  void* p = allocator().allocate(nbytes);
  return Storage::wrap(p, nbytes, device, [p] { allocator().release(p); });
}

void* raw_alloc(size_t nbytes) { return allocator().allocate(nbytes); }
void raw_free(void* p) {
  if (p) allocator().release(p);
}
void empty_cache() { allocator().empty_cache(); }
MemoryStats memory_stats() { return allocator().stats(); }
void reset_peak_memory_stats() { allocator().reset_peaks(); }

}  // namespace aakaar::cuda
