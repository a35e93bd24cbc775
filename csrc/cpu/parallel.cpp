// The thread pool behind parallel_for (see parallel.h for why it is not
// OpenMP's). One job runs at a time. Its chunks are handed out by one atomic
// word, `state_`:
//
//   bits 63..32  generation: which job (a claim made for an old job fails)
//   bits 31..16  how many chunks the job has
//   bits 15..0   the next chunk nobody has claimed yet
//
// Whoever advances `next` with a compare-and-swap owns that chunk, the caller
// included; `done_` counts finished chunks. The caller returns when every
// chunk is claimed and done, so it waits only for chunks that are running.
// Idle workers spin briefly (the next layer's job usually follows within
// microseconds), then sleep on a condition variable. After fork() the child
// starts a new pool (see pool()).
#include "cpu/parallel.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <exception>
#include <mutex>
#if defined(__unix__) || defined(__APPLE__)
#include <pthread.h>
#endif
#include <system_error>
#include <thread>

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#define AK_CPU_RELAX() _mm_pause()
#else
#define AK_CPU_RELAX() ((void)0)
#endif

namespace aakaar {
namespace {

int default_threads() {
  unsigned hw = std::thread::hardware_concurrency();
  return hw == 0 ? 1 : static_cast<int>(hw);
}
std::atomic<int> g_num_threads{default_threads()};
thread_local bool t_in_chunk = false;

using Clock = std::chrono::steady_clock;
// How long an idle thread spins before it sleeps (workers) or starts to yield
// its core (the caller waiting for running chunks): long enough to catch the
// next layer's job without a wake-up, short enough not to burn a shared core.
constexpr auto kSpin = std::chrono::microseconds(50);
constexpr uint64_t kMaxChunks = 0xffff;

constexpr uint64_t pack(uint64_t gen, uint64_t chunks, uint64_t next) { return gen << 32 | chunks << 16 | next; }
constexpr uint64_t gen_of(uint64_t s) { return s >> 32; }

class Pool {
 public:
  void run(int64_t begin, int64_t end, int64_t chunks, detail::RangeFn fn, const void* ctx) {
    // Another thread's job is running (e.g. two Python threads in GIL-free
    // kernels): do this one inline rather than wait for the pool.
    std::unique_lock<std::mutex> one_job(run_mu_, std::try_to_lock);
    if (!one_job.owns_lock()) {
      run_inline(begin, end, fn, ctx);
      return;
    }
    chunks = std::min<int64_t>(chunks, kMaxChunks);
    spawn_workers(static_cast<size_t>(chunks - 1));
    begin_ = begin;
    end_ = end;
    step_ = (end - begin + chunks - 1) / chunks;
    fn_ = fn;
    ctx_ = ctx;
    error_ = nullptr;
    done_.store(0, std::memory_order_relaxed);
    const uint64_t gen = ++gen_;
    state_.store(pack(gen, static_cast<uint64_t>(chunks), 0), std::memory_order_seq_cst);
    // Wake the sleepers only when the awake workers cannot take every other
    // chunk (a chunk nobody claims is run by this thread: skipping a wake-up
    // never loses work).
    const int sleeping = sleepers_.load(std::memory_order_seq_cst);
    if (sleeping > 0 && chunks - 1 > workers_.load(std::memory_order_relaxed) - sleeping) {
      { std::lock_guard<std::mutex> lock(sleep_mu_); }  // a worker between its check and its wait sees the job
      wake_.notify_all();
    }
    while (claim_and_run(gen)) {
    }
    wait_done(chunks);
    if (error_) std::rethrow_exception(error_);
  }

  // Workers that are not asleep: polling since their last chunk (or running one).
  int awake() const {
    return std::max(0, workers_.load(std::memory_order_relaxed) - sleepers_.load(std::memory_order_relaxed));
  }

 private:
  static void run_inline(int64_t begin, int64_t end, detail::RangeFn fn, const void* ctx) {
    const bool prev = t_in_chunk;
    t_in_chunk = true;
    try {
      fn(ctx, begin, end);
    } catch (...) {
      t_in_chunk = prev;
      throw;
    }
    t_in_chunk = prev;
  }

  // Claims the next chunk of job `gen` and runs it; false when none is left.
  bool claim_and_run(uint64_t gen) {
    uint64_t s = state_.load(std::memory_order_acquire);
    for (;;) {
      const uint64_t chunks = (s >> 16) & kMaxChunks, next = s & kMaxChunks;
      if (gen_of(s) != gen || next >= chunks) return false;
      if (state_.compare_exchange_weak(s, s + 1, std::memory_order_acq_rel, std::memory_order_acquire)) break;
    }
    // The job's fields are stable from here: its caller cannot return (and
    // post another job) before this chunk counts itself done.
    const int64_t b = begin_ + static_cast<int64_t>(s & kMaxChunks) * step_;
    const int64_t e = std::min(end_, b + step_);
    const bool prev = t_in_chunk;
    t_in_chunk = true;
    try {
      if (b < e) fn_(ctx_, b, e);
    } catch (...) {
      std::lock_guard<std::mutex> lock(error_mu_);
      if (!error_) error_ = std::current_exception();
    }
    t_in_chunk = prev;
    done_.fetch_add(1, std::memory_order_release);
    return true;
  }

  void wait_done(int64_t chunks) {
    const auto start = Clock::now();
    for (uint32_t k = 1; done_.load(std::memory_order_acquire) < chunks; ++k) {
      // Past the spin budget the chunk's thread was probably preempted:
      // yield, in case it is waiting for this very core.
      if ((k & 63) == 0 && Clock::now() - start > kSpin) std::this_thread::yield();
      else AK_CPU_RELAX();
    }
  }

  void worker_loop() {
    uint64_t seen = 0;
    for (;;) {
      const uint64_t gen = gen_of(state_.load(std::memory_order_acquire));
      if (gen != seen) {
        seen = gen;
        while (claim_and_run(gen)) {
        }
        continue;
      }
      if (spin_for_job(seen)) continue;
      std::unique_lock<std::mutex> lock(sleep_mu_);
      sleepers_.fetch_add(1, std::memory_order_seq_cst);
      wake_.wait(lock, [&] { return gen_of(state_.load(std::memory_order_seq_cst)) != seen; });
      sleepers_.fetch_sub(1, std::memory_order_relaxed);
    }
  }

  bool spin_for_job(uint64_t seen) {
    const auto start = Clock::now();
    for (uint32_t k = 1;; ++k) {
      AK_CPU_RELAX();
      if (gen_of(state_.load(std::memory_order_acquire)) != seen) return true;
      if ((k & 63) == 0 && Clock::now() - start > kSpin) return false;
    }
  }

  // Workers are started on first need and live as long as the process.
  void spawn_workers(size_t n) {
    while (static_cast<size_t>(workers_.load(std::memory_order_relaxed)) < n) {
      try {
        std::thread([this] { worker_loop(); }).detach();
      } catch (const std::system_error&) {
        return;  // no more threads: the caller runs the chunks nobody claims
      }
      workers_.fetch_add(1, std::memory_order_relaxed);
    }
  }

  std::mutex run_mu_;  // one job at a time
  std::atomic<uint64_t> state_{0};
  std::atomic<int64_t> done_{0};
  uint64_t gen_ = 0;
  std::atomic<int> workers_{0};  // started; atomic because awake() reads it outside run_mu_
  // The job, written by its caller before it publishes `state_`.
  int64_t begin_ = 0, end_ = 0, step_ = 0;
  detail::RangeFn fn_ = nullptr;
  const void* ctx_ = nullptr;
  std::mutex error_mu_;
  std::exception_ptr error_;
  // Sleeping workers.
  std::mutex sleep_mu_;
  std::condition_variable wake_;
  std::atomic<int> sleepers_{0};
};

// Never destroyed: detached workers keep using it until the process ends.
// A child of fork() gets a fresh pool with no workers (it spawns its own when
// it needs them): the parent's pool is copied with the state of threads that
// do not exist in the child -- a condition variable with their waits still
// registered, on which notify_all() would block forever.
// Atomic because awake_workers() reads it without going through the once_flag.
std::atomic<Pool*> g_pool{nullptr};
std::once_flag g_pool_once;

Pool& pool() {
  std::call_once(g_pool_once, [] {
    g_pool.store(new Pool(), std::memory_order_release);
#if defined(__unix__) || defined(__APPLE__)
    pthread_atfork(nullptr, nullptr, [] { g_pool.store(new Pool(), std::memory_order_release); });  // the old one leaks in the child
#endif
  });
  return *g_pool.load(std::memory_order_acquire);
}

}  // namespace

int get_num_threads() { return g_num_threads.load(std::memory_order_relaxed); }

void set_num_threads(int n) { g_num_threads.store(n < 1 ? 1 : n, std::memory_order_relaxed); }

bool in_parallel_region() { return t_in_chunk; }

namespace {
std::atomic<bool> g_split_among_awake{true};
}  // namespace

bool split_among_awake() { return g_split_among_awake.load(std::memory_order_relaxed); }

void set_split_among_awake(bool enabled) { g_split_among_awake.store(enabled, std::memory_order_relaxed); }

int awake_workers() {
  const Pool* p = g_pool.load(std::memory_order_acquire);
  return p != nullptr ? p->awake() : 0;
}

namespace detail {
void run_parallel(int64_t begin, int64_t end, int64_t chunks, RangeFn fn, const void* ctx) {
  pool().run(begin, end, chunks, fn, ctx);
}
}  // namespace detail

}  // namespace aakaar
