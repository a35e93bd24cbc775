// One thread pool for the whole library, and the rule that small work never
// pays for parallelism: parallel_for runs inline unless the range holds at
// least `grain` units of work per extra thread.
//
// The pool is our own, not OpenMP's, because of one property: the calling
// thread never waits for a worker that has not started. Chunks are claimed
// from a shared counter by whoever gets there first, the caller included,
// and the caller waits only for chunks that are already running. On a shared
// machine a worker may not be scheduled for a whole 4 ms tick; an OpenMP
// team's join barrier waits for it, so a 100 us layer could take 4 ms. Here
// the caller runs the late worker's chunk itself: the worst case is the
// serial time. (It also makes the pool safe after fork(): a child has no
// workers, and the caller simply runs every chunk.)
#pragma once
#include <algorithm>
#include <cstdint>

namespace aakaar {

int get_num_threads();
void set_num_threads(int n);
// True inside a chunk of parallel_for: nested calls then run inline.
bool in_parallel_region();
// How many of the pool's workers are awake: they finished a chunk less than the
// spin time ago and are still polling for the next job. Handing one a chunk
// costs an atomic claim; waking a sleeping one costs a system call and tens of
// microseconds on a shared machine, so memory-bound loops too small to pay for
// a wake-up still split among the awake ones (a training step's layers keep
// them so; bench.train_step --ablate shows what that is worth).
int awake_workers();
// Whether loops below their grain split among the awake workers (default on;
// off only to measure what it is worth: bench.train_step --ablate).
bool split_among_awake();
void set_split_among_awake(bool enabled);

namespace detail {
using RangeFn = void (*)(const void* ctx, int64_t begin, int64_t end);
// Splits [begin, end) into `chunks` near-equal ranges and runs fn(ctx, b, e)
// on each, on the pool and the calling thread; returns when all are done and
// rethrows the first exception a chunk raised.
void run_parallel(int64_t begin, int64_t end, int64_t chunks, RangeFn fn, const void* ctx);
}  // namespace detail

// Calls fn(begin_i, end_i) on disjoint chunks covering [begin, end), at most
// max_chunks of them.
template <typename F>
void parallel_for(int64_t begin, int64_t end, int64_t grain, const F& fn, int64_t max_chunks = INT64_MAX) {
  const int64_t n = end - begin;
  if (n <= 0) return;
  const int threads = get_num_threads();
  grain = std::max<int64_t>(grain, 1);
  // n / 2 >= grain, not n >= 2 * grain: callers pass INT64_MAX for "never
  // split", and doubling it would overflow into a negative number.
  if (threads > 1 && max_chunks > 1 && n / 2 >= grain && !in_parallel_region()) {
    const int64_t chunks = std::min<int64_t>({int64_t(threads), n / grain, max_chunks});
    detail::run_parallel(begin, end, chunks,
                         [](const void* ctx, int64_t b, int64_t e) { (*static_cast<const F*>(ctx))(b, e); }, &fn);
    return;
  }
  fn(begin, end);
}

}  // namespace aakaar
