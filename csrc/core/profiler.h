// Where the time goes: a profiler at the one road to the kernels.
//
// Every kernel call passes through the backend table (core/backend.h), so the
// table is the one place that sees all of them. While the profiler records,
// backend() hands out a copy of each device's table whose entries are
// trampolines: each notes the entry (and, for binary, unary, reduce and the
// pointwise losses, which operation), times the real entry and passes every
// argument through unchanged. Times are *self* times: an entry called from
// inside another (a composite running on a device without a fused kernel)
// is subtracted from its caller. Stopped, backend() returns the real tables
// again, and the only cost left is one relaxed atomic load per op.
//
// CUDA entries are timed on the host: a launch returns before the GPU is done,
// so on a GPU the profile shows launch costs, not kernel times.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "core/backend.h"

namespace aakaar::profiler {

// One row of a profile: a table entry (and an operation, or "" for entries
// without one), how often it ran and for how long.
struct Record {
  std::string device;
  std::string entry;
  std::string op;
  int64_t calls = 0;
  int64_t self_ns = 0;   // time in this entry, without the entries it called
  int64_t total_ns = 0;  // time in this entry, with them
};

// Starts recording (clearing what an earlier run recorded). Starting twice is an error.
void start();
// Stops recording and returns the rows, most self time first.
std::vector<Record> stop();
bool recording();

// The profiled table of a device while recording (backend() calls this).
const Backend* profiled(DeviceType type, const Backend* real);

}  // namespace aakaar::profiler
