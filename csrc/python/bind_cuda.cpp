// aakaar._C.cuda: what the CUDA build and the machine provide. Built into
// every module; without the CUDA sources it reports that no device exists.
#include <pybind11/pybind11.h>

#include <string>

#include "core/backend.h"
#include "core/error.h"

namespace py = pybind11;

#ifdef AAKAAR_WITH_CUDA
namespace aakaar::cuda {
int device_count();
std::string device_name(int index);
int runtime_version();
}  // namespace aakaar::cuda
#endif

void bind_cuda(py::module_& m) {
  m.def("has_cuda_backend", [] { return aakaar::has_backend(aakaar::DeviceType::CUDA); },
        "Whether a CUDA kernel table is registered (tensors can live on 'cuda').");
  py::module_ c = m.def_submodule("cuda", "CUDA device discovery.");
#ifdef AAKAAR_WITH_CUDA
  c.def("is_built", [] { return true; }, "Whether the CUDA sources were compiled into this module.");
  c.def("device_count", &aakaar::cuda::device_count, "Number of CUDA devices visible (0 without a driver).");
  c.def("device_name", [](int i) {
    const int n = aakaar::cuda::device_count();
    AK_CHECK(i >= 0 && i < n, IndexError, "cuda device index ", i, " is out of range: ", n, " device(s) present");
    return aakaar::cuda::device_name(i);
  }, py::arg("index") = 0, "The name of a CUDA device.");
  c.def("runtime_version", &aakaar::cuda::runtime_version, "CUDA runtime version, e.g. 13000.");
#else
  c.def("is_built", [] { return false; }, "Whether the CUDA sources were compiled into this module.");
  c.def("device_count", [] { return 0; }, "Number of CUDA devices visible (0: this build has no CUDA).");
  c.def("device_name", [](int i) -> std::string {
    throw aakaar::RuntimeError(aakaar::str("cuda device ", i, " requested, but this build of aakaar has no CUDA support"));
  }, py::arg("index") = 0);
  c.def("runtime_version", [] { return 0; });
#endif
}
