#include "core/storage.h"

#include <cstdlib>
#include <mutex>
#if defined(__unix__) || defined(__APPLE__)
#include <pthread.h>
#endif
#include <new>
#include <string>
#include <unordered_map>
#include <vector>

#include "core/cpu_allocator.h"
#include "core/error.h"

namespace aakaar {

// ---- the caching CPU allocator (see cpu_allocator.h for why) ---------------
namespace {

// 64 bytes: one cache line, and enough for any vector load.
constexpr size_t kAlign = 64;
// Below this, malloc's own per-thread caches are as fast as ours; caching
// pays from here up, where glibc starts to return memory to the system.
constexpr size_t kMinCached = 4096;
// Default cap on cached bytes: a few training steps' worth of temporaries for
// the book's models, small beside the memory of any machine that runs them.
// AAKAAR_CPU_CACHE_LIMIT (bytes) overrides it at start-up.
constexpr int64_t kDefaultCacheLimit = int64_t(256) << 20;

int64_t initial_cache_limit() {
  const char* env = std::getenv("AAKAAR_CPU_CACHE_LIMIT");
  if (env == nullptr || *env == '\0') return kDefaultCacheLimit;
  char* end = nullptr;
  const long long v = std::strtoll(env, &end, 10);
  return (end != env && *end == '\0' && v >= 0) ? static_cast<int64_t>(v) : kDefaultCacheLimit;
}

void* system_alloc(size_t size, size_t requested) {
  void* p = std::aligned_alloc(kAlign, size);
  if (p == nullptr) throw RuntimeError(str("out of memory: could not allocate ", requested, " bytes on cpu"));
  return p;
}

// [[book:cpu_allocator]]
class CachingCpuAllocator {
 public:
  // A block of at least `size` bytes (size is already a size class).
  void* allocate(size_t size, size_t requested) {
    {
      std::lock_guard<std::mutex> lock(mu_);
      ++stats_.num_allocs;
      auto it = enabled_ ? free_.find(size) : free_.end();
      if (it != free_.end() && !it->second.empty()) {
        void* p = it->second.back();
        it->second.pop_back();
        ++stats_.num_cache_hits;
        stats_.cached -= static_cast<int64_t>(size);
        note_allocated(size);
        return p;
      }
    }
    // A miss: ask the system outside the lock (it may take a while).
    void* p = system_alloc(size, requested);
    std::lock_guard<std::mutex> lock(mu_);
    ++stats_.num_mallocs;
    note_allocated(size);
    return p;
  }

  // Keeps the block for the next request of its size class, unless that
  // would take the cache over its cap.
  void release(void* p, size_t size) {
    {
      std::lock_guard<std::mutex> lock(mu_);
      stats_.allocated -= static_cast<int64_t>(size);
      if (enabled_ && stats_.cached + static_cast<int64_t>(size) <= stats_.cache_limit) {
        free_[size].push_back(p);
        stats_.cached += static_cast<int64_t>(size);
        return;
      }
      ++stats_.num_frees;
    }
    std::free(p);
  }

  void set_limit(int64_t bytes) {
    std::vector<void*> dropped;
    {
      std::lock_guard<std::mutex> lock(mu_);
      stats_.cache_limit = bytes;
      // Trim in no particular order: which blocks go does not matter.
      for (auto it = free_.begin(); it != free_.end() && stats_.cached > bytes; ++it) {
        auto& blocks = it->second;
        while (!blocks.empty() && stats_.cached > bytes) {
          dropped.push_back(blocks.back());
          blocks.pop_back();
          stats_.cached -= static_cast<int64_t>(it->first);
          ++stats_.num_frees;
        }
      }
    }
    for (void* p : dropped) std::free(p);
  }

  void empty_cache() {
    std::vector<void*> dropped;
    {
      std::lock_guard<std::mutex> lock(mu_);
      for (auto& [size, blocks] : free_) {
        stats_.num_frees += static_cast<int64_t>(blocks.size());
        dropped.insert(dropped.end(), blocks.begin(), blocks.end());
      }
      free_.clear();
      stats_.cached = 0;
    }
    for (void* p : dropped) std::free(p);
  }

  // Off: every request goes to the system and every block back to it; the
  // blocks already cached stay for when it is switched on again. This is how
  // a benchmark measures what the cache is worth without emptying it.
  void set_enabled(bool on) {
    std::lock_guard<std::mutex> lock(mu_);
    enabled_ = on;
  }

  CpuAllocatorStats stats() {
    std::lock_guard<std::mutex> lock(mu_);
    return stats_;
  }

  CachingCpuAllocator() { stats_.cache_limit = initial_cache_limit(); }

  void lock_for_fork() { mu_.lock(); }
  void unlock_after_fork() { mu_.unlock(); }

 private:
  void note_allocated(size_t size) {
    stats_.allocated += static_cast<int64_t>(size);
    if (stats_.allocated > stats_.peak_allocated) stats_.peak_allocated = stats_.allocated;
  }

  std::mutex mu_;
  bool enabled_ = true;
  std::unordered_map<size_t, std::vector<void*>> free_;  // size class -> free blocks
  CpuAllocatorStats stats_;
};
// [[/book:cpu_allocator]]

// Never destroyed: storages freed while the interpreter shuts down still
// find it (a static object could already be gone by then).
// fork() copies the lock as it is: if another thread held it, the child could
// never take it. Holding it across fork() (prepare, then release in both
// processes) leaves it consistent in the child.
CachingCpuAllocator& cpu_allocator() {
  static CachingCpuAllocator* a = [] {
    auto* alloc = new CachingCpuAllocator();
#if defined(__unix__) || defined(__APPLE__)
    pthread_atfork([] { cpu_allocator().lock_for_fork(); }, [] { cpu_allocator().unlock_after_fork(); },
                   [] { cpu_allocator().unlock_after_fork(); });
#endif
    return alloc;
  }();
  return *a;
}

}  // namespace

// Sizes are rounded up to a quarter of their power of two (4096, 5120, 6144,
// 7168, 8192, 10240, ...): at most 25% is wasted, and a training step, which
// asks for the same sizes every time, finds its blocks again.
size_t cpu_size_class(size_t nbytes) {
  if (nbytes < kMinCached) return nbytes == 0 ? kAlign : (nbytes + kAlign - 1) / kAlign * kAlign;
  size_t pow2 = kMinCached;
  while (pow2 * 2 <= nbytes) pow2 *= 2;
  const size_t step = pow2 / 4;
  return (nbytes + step - 1) / step * step;
}

CpuAllocatorStats cpu_allocator_stats() { return cpu_allocator().stats(); }
void cpu_empty_cache() { cpu_allocator().empty_cache(); }
void cpu_set_cache_limit(int64_t bytes) { cpu_allocator().set_limit(bytes < 0 ? 0 : bytes); }
void cpu_set_cache_enabled(bool enabled) { cpu_allocator().set_enabled(enabled); }

std::shared_ptr<Storage> Storage::allocate_cpu(size_t nbytes) {
  const size_t size = cpu_size_class(nbytes);
  if (size < kMinCached) {
    void* p = system_alloc(size, nbytes);
    return std::make_shared<Storage>(p, nbytes, Device{}, [p] { std::free(p); });
  }
  void* p = cpu_allocator().allocate(size, nbytes);
  return std::make_shared<Storage>(p, nbytes, Device{}, [p, size] { cpu_allocator().release(p, size); });
}

// ---- storages ----------------------------------------------------------------

std::shared_ptr<Storage> Storage::wrap(void* data, size_t nbytes, Device device,
                                       std::function<void()> release) {
  return std::make_shared<Storage>(data, nbytes, device, std::move(release));
}

Storage::~Storage() {
  if (release_) release_();
}

std::string shape_str(const std::vector<int64_t>& v) {
  std::string s = "[";
  for (size_t i = 0; i < v.size(); ++i) {
    if (i) s += ", ";
    s += std::to_string(v[i]);
  }
  return s + "]";
}

}  // namespace aakaar
