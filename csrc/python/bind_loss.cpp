// Loss functions fused into one op each.
//
//   cross_entropy(input, target, reduction="mean" | "sum" | "none")
//
// Bindings only: the op is csrc/ops/cross_entropy.cpp.
#include <pybind11/pybind11.h>

#include "core/error.h"
#include "ops/ops.h"
#include "python/convert.h"

namespace py = pybind11;
using namespace aakaar;

namespace {

TensorPtr tensor_arg(py::handle h, const char* fn, const char* name) {
  AK_CHECK(py::isinstance<Tensor>(h), TypeError, fn, "(): ", name, " must be an aakaar.Tensor, got ",
           py::str(py::type::of(h).attr("__name__")).cast<std::string>());
  return h.cast<TensorPtr>();
}

Reduction reduction_arg(py::handle h, const char* fn) {
  const std::string r = py::isinstance<py::str>(h) ? h.cast<std::string>() : std::string();
  if (r == "mean") return Reduction::Mean;
  if (r == "sum") return Reduction::Sum;
  if (r == "none") return Reduction::None;
  throw ValueError(str(fn, "(): reduction must be 'mean', 'sum' or 'none', got ",
                       py::repr(h).cast<std::string>()));
}

}  // namespace

void bind_loss(py::module_& m) {
  m.def("cross_entropy", [](py::handle x, py::handle t, py::handle reduction) {
    return ops::cross_entropy(tensor_arg(x, "cross_entropy", "input"), tensor_arg(t, "cross_entropy", "target"),
                              reduction_arg(reduction, "cross_entropy"));
  }, py::arg("input"), py::arg("target"), py::arg("reduction") = "mean",
     "Softmax cross-entropy of logits (N, C) against int64 class indices (N,) in [0, C): one fused op and "
     "one autograd node (CrossEntropyBackward).");
}
