// aakaar._C.cuda: what the CUDA build and the machine provide, and the caching
// allocator's statistics. Built into every module; without the CUDA sources it reports
// that no device exists.
#include <pybind11/pybind11.h>

#include <string>

#include "core/backend.h"
#include "core/error.h"
#include "core/tensor.h"

namespace py = pybind11;

#ifdef AAKAAR_WITH_CUDA
#include "cuda/allocator.h"
namespace aakaar::cuda {
int device_count();
std::string device_name(int index);
int runtime_version();
void synchronize();
bool is_emulated();
void memcpy_device(void* dst, const void* src, size_t nbytes);
uint64_t copies_to_host();
}  // namespace aakaar::cuda
#endif

void bind_cuda(py::module_& m) {
  m.def("has_cuda_backend", [] { return aakaar::has_backend(aakaar::DeviceType::CUDA); },
        "Whether a CUDA kernel table is registered (tensors can live on 'cuda').");
  py::module_ c = m.def_submodule("cuda", "CUDA device discovery and memory statistics.");
#ifdef AAKAAR_WITH_CUDA
  namespace ac = aakaar::cuda;
  c.def("is_built", [] { return true; }, "Whether the CUDA sources were compiled into this module.");
  c.def("is_emulated", &ac::is_emulated, "Whether 'cuda' runs on the CPU through the CUDA emulator.");
  c.def("device_count", &ac::device_count, "Number of CUDA devices visible (0 without a driver).");
  c.def("device_name", [](int i) {
    const int n = ac::device_count();
    AK_CHECK(i >= 0 && i < n, IndexError, "cuda device index ", i, " is out of range: ", n, " device(s) present");
    return ac::device_name(i);
  }, py::arg("index") = 0, "The name of a CUDA device.");
  c.def("runtime_version", &ac::runtime_version, "CUDA runtime version, e.g. 13000 (0 on the emulator).");
  c.def("_copies_to_host", &ac::copies_to_host,
        "How many copies from the device to the host this process has made (tests: a step that must not wait "
        "on the host reads nothing back).");
  c.def("synchronize", [] {
    AK_CHECK(aakaar::has_backend(aakaar::DeviceType::CUDA), RuntimeError, "synchronize(): no CUDA device is available");
    py::gil_scoped_release release;
    ac::synchronize();
  }, "Waits until every queued kernel and copy on the device has finished.");
  c.def("memory_stats", [] {
    const ac::MemoryStats s = ac::memory_stats();
    py::dict d;
    d["allocated_bytes"] = s.allocated;
    d["reserved_bytes"] = s.reserved;
    d["peak_allocated_bytes"] = s.peak_allocated;
    d["peak_reserved_bytes"] = s.peak_reserved;
    d["num_allocs"] = s.num_allocs;
    d["num_cache_hits"] = s.num_cache_hits;
    d["num_device_mallocs"] = s.num_device_mallocs;
    d["num_device_frees"] = s.num_device_frees;
    return d;
  }, "The caching allocator's counters (bytes are counted in whole size classes).");
  c.def("empty_cache", &ac::empty_cache, "Returns every cached, unused block of device memory to CUDA.");
  c.def("reset_peak_memory_stats", &ac::reset_peak_memory_stats, "Restarts the peak counters from the current values.");
  c.def("_memcpy", [](const aakaar::TensorPtr& dst, const aakaar::TensorPtr& src) {
    using aakaar::DeviceType;
    AK_CHECK(dst->device().type == DeviceType::CUDA && src->device().type == DeviceType::CUDA &&
                 dst->is_contiguous() && src->is_contiguous() &&
                 dst->numel() * dst->element_size() == src->numel() * src->element_size(),
             ValueError, "_memcpy: needs two contiguous cuda tensors of the same size in bytes");
    ac::memcpy_device(dst->data_ptr(), src->data_ptr(), static_cast<size_t>(src->numel() * src->element_size()));
  }, py::arg("dst"), py::arg("src"), "cudaMemcpy device to device (the benchmarks' bandwidth ceiling).");
  c.def("size_class", [](size_t n) { return ac::size_class(n); }, py::arg("nbytes"),
        "The block size the allocator serves a request of nbytes from.");
#else
  c.def("is_built", [] { return false; }, "Whether the CUDA sources were compiled into this module.");
  c.def("is_emulated", [] { return false; });
  c.def("device_count", [] { return 0; }, "Number of CUDA devices visible (0: this build has no CUDA).");
  c.def("device_name", [](int i) -> std::string {
    throw aakaar::RuntimeError(aakaar::str("cuda device ", i, " requested, but this build of aakaar has no CUDA support"));
  }, py::arg("index") = 0);
  c.def("runtime_version", [] { return 0; });
  c.def("_copies_to_host", [] { return uint64_t{0}; });
#endif
}
