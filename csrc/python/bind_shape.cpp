// Sorting, scans and scatter reductions (the api-shape branch), bound as private functions of
// aakaar._C: aakaar/shape_ops.py gives them PyTorch's names, arguments and return types.
//
// Bindings only: the ops are csrc/ops/sort_scan.cpp and csrc/ops/index.cpp.
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include "ops/ops.h"
#include "python/convert.h"

namespace py = pybind11;
using namespace aakaar;

void bind_shape(py::module_& m) {
  m.def("_sort", &ops::sort, py::arg("input"), py::arg("dim"), py::arg("descending"),
        "(values, indices) of input sorted along dim (stable); NaN is greatest.");
  m.def("_topk", &ops::topk, py::arg("input"), py::arg("k"), py::arg("dim"), py::arg("largest"),
        "(values, indices) of the k largest (or smallest) along dim, sorted (a partial sort).");
  m.def("_flip", &ops::flip, py::arg("input"), py::arg("dims"), "A copy of input reversed along each of dims.");
  m.def("_cumprod", &ops::cumprod, py::arg("input"), py::arg("dim"), "Cumulative product along dim.");
  m.def("_cummax", &ops::cummax, py::arg("input"), py::arg("dim"), py::arg("is_max"),
        "(values, indices) of the running max (or min) along dim.");
  m.def("_logcumsumexp", &ops::logcumsumexp, py::arg("input"), py::arg("dim"), "log(cumsum(exp(input))) along dim.");
  m.def("_scatter_reduce", &ops::scatter_reduce, py::arg("input"), py::arg("dim"), py::arg("index"), py::arg("src"),
        py::arg("reduce"), py::arg("include_self"), "input with src reduced into it at index along dim.");
}
