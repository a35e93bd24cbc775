#include "cpu/parallel.h"

#include <thread>

namespace aakaar {
namespace {
int default_threads() {
  unsigned hw = std::thread::hardware_concurrency();
  return hw == 0 ? 1 : static_cast<int>(hw);
}
int g_num_threads = default_threads();
}  // namespace

int get_num_threads() { return g_num_threads; }

void set_num_threads(int n) {
  g_num_threads = n < 1 ? 1 : n;
#ifdef AAKAAR_OPENMP
  omp_set_num_threads(g_num_threads);
#endif
}

bool in_parallel_region() {
#ifdef AAKAAR_OPENMP
  return omp_in_parallel();
#else
  return false;
#endif
}

}  // namespace aakaar
