// One thread pool for the whole library (OpenMP underneath), and the rule that
// small work never pays for parallelism: parallel_for runs inline unless the
// range holds at least `grain` units of work per extra thread.
#pragma once
#include <algorithm>
#include <cstdint>

#ifdef AAKAAR_OPENMP
#include <omp.h>
#endif

namespace aakaar {

int get_num_threads();
void set_num_threads(int n);
bool in_parallel_region();

// Calls fn(begin_i, end_i) on disjoint chunks covering [begin, end).
template <typename F>
void parallel_for(int64_t begin, int64_t end, int64_t grain, const F& fn) {
  const int64_t n = end - begin;
  if (n <= 0) return;
  int threads = get_num_threads();
#ifdef AAKAAR_OPENMP
  grain = std::max<int64_t>(grain, 1);
  // n / 2 >= grain, not n >= 2 * grain: callers pass INT64_MAX for "never
  // split", and doubling it would overflow into a negative number.
  if (threads > 1 && n / 2 >= grain && !in_parallel_region()) {
    const int64_t chunks = std::min<int64_t>(threads, n / grain);
#pragma omp parallel num_threads(static_cast<int>(chunks))
    {
      const int64_t t = omp_get_thread_num();
      const int64_t nt = omp_get_num_threads();
      const int64_t step = (n + nt - 1) / nt;
      const int64_t b = begin + t * step;
      const int64_t e = std::min(end, b + step);
      if (b < e) fn(b, e);
    }
    return;
  }
#endif
  (void)threads;
  fn(begin, end);
}

}  // namespace aakaar
