#include "core/default_dtype.h"

#include <atomic>

namespace aakaar {

namespace {
// A plain process-wide setting, as in PyTorch: threads see the last value set
// (atomic only so that a read racing a write is not undefined behaviour).
std::atomic<DType> g_default{DType::Float32};
}  // namespace

DType default_dtype() { return g_default.load(std::memory_order_relaxed); }

void set_default_dtype(DType d) {
  AK_CHECK(is_floating(d), TypeError, "only floating-point types are supported as the default type");
  g_default.store(d, std::memory_order_relaxed);
}

}  // namespace aakaar
