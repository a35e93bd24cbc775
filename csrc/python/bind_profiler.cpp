// The profiler at the backend table, for aakaar.profiler:
//
//   _C._profiler_start()
//   _C._profiler_stop() -> [(device, entry, op, calls, self_ns, total_ns), ...], most self time first
//
// Bindings only: the profiler is csrc/core/profiler.cpp.
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <tuple>

#include "core/profiler.h"

namespace py = pybind11;
using namespace aakaar;

void bind_profiler(py::module_& m) {
  m.def("_profiler_start", &profiler::start, "Start timing every backend-table call (see aakaar.profiler).");
  m.def(
      "_profiler_stop",
      [] {
        std::vector<std::tuple<std::string, std::string, std::string, int64_t, int64_t, int64_t>> rows;
        for (const auto& r : profiler::stop()) rows.emplace_back(r.device, r.entry, r.op, r.calls, r.self_ns, r.total_ns);
        return rows;
      },
      "Stop timing; the rows (device, entry, op, calls, self_ns, total_ns), most self time first.");
  m.def("_profiler_recording", &profiler::recording, "Whether the profiler is recording.");
}
