// Training fast paths: the fused Linear op and the caching CPU allocator.
//
//   linear(input, weight, bias=None, activation="none" | "relu")
//   cpu_allocator_stats() -> dict, empty_cache(), set_cpu_cache_limit(bytes),
//   set_cpu_cache_enabled(bool), cpu_size_class(nbytes)
//
// Bindings only: the op is csrc/ops/linear.cpp, the allocator csrc/core/storage.cpp.
#include <pybind11/pybind11.h>

#include "core/cpu_allocator.h"
#include "core/error.h"
#include "ops/ops.h"
#include "python/convert.h"

namespace py = pybind11;
using namespace aakaar;

// 2-d convolution and pooling (bind_conv.cpp), bound with the fused Linear op.
void bind_conv(py::module_& m);

namespace {

TensorPtr tensor_arg(py::handle h, const char* name, bool optional) {
  if (optional && h.is_none()) return nullptr;
  AK_CHECK(py::isinstance<Tensor>(h), TypeError, "linear(): ", name, " must be an aakaar.Tensor",
           optional ? " or None" : "", ", got ", py::str(py::type::of(h).attr("__name__")).cast<std::string>());
  return h.cast<TensorPtr>();
}

LinearActivation activation_arg(py::handle h) {
  if (h.is_none()) return LinearActivation::None;
  AK_CHECK(py::isinstance<py::str>(h), TypeError, "linear(): activation must be a string ('none' or 'relu'), got ",
           py::str(py::type::of(h).attr("__name__")).cast<std::string>());
  const std::string a = h.cast<std::string>();
  if (a == "none") return LinearActivation::None;
  if (a == "relu") return LinearActivation::ReLU;
  throw ValueError(str("linear(): activation must be 'none' or 'relu', got '", a, "'"));
}

}  // namespace

void bind_linear(py::module_& m) {
  bind_conv(m);
  m.def("linear", [](py::handle x, py::handle w, py::handle b, py::handle activation) {
    return ops::linear(tensor_arg(x, "input", false), tensor_arg(w, "weight", false), tensor_arg(b, "bias", true),
                       activation_arg(activation));
  }, py::arg("input"), py::arg("weight"), py::arg("bias") = py::none(), py::kw_only(),
     py::arg("activation") = "none",
     "act(input @ weight.T + bias) in one GEMM call with the bias and activation fused, and one autograd node.");

  m.def("cpu_allocator_stats", [] {
    const CpuAllocatorStats s = cpu_allocator_stats();
    py::dict d;
    d["allocated_bytes"] = s.allocated;
    d["cached_bytes"] = s.cached;
    d["peak_allocated_bytes"] = s.peak_allocated;
    d["cache_limit_bytes"] = s.cache_limit;
    d["num_allocs"] = s.num_allocs;
    d["num_cache_hits"] = s.num_cache_hits;
    d["num_mallocs"] = s.num_mallocs;
    d["num_frees"] = s.num_frees;
    return d;
  }, "Counters of the caching CPU allocator (bytes in whole size classes; blocks under 4 KiB are not counted).");
  m.def("empty_cache", &cpu_empty_cache, "Gives every cached, unused block of CPU memory back to the system.");
  m.def("set_cpu_cache_limit", [](int64_t bytes) {
    AK_CHECK(bytes >= 0, ValueError, "set_cpu_cache_limit: the limit must be >= 0 bytes, got ", bytes);
    cpu_set_cache_limit(bytes);
  }, py::arg("bytes"), "Caps the bytes the CPU allocator keeps cached (0: no caching); trims the cache to it.");
  m.def("set_cpu_cache_enabled", &cpu_set_cache_enabled, py::arg("enabled"),
        "False: the CPU allocator allocates and frees through the system, leaving cached blocks alone "
        "(to measure what the cache is worth). True by default.");
  m.def("cpu_size_class", [](int64_t nbytes) {
    AK_CHECK(nbytes >= 0, ValueError, "cpu_size_class: nbytes must be >= 0, got ", nbytes);
    return cpu_size_class(static_cast<size_t>(nbytes));
  }, py::arg("nbytes"), "The block size the CPU allocator serves a request of nbytes with.");
}
