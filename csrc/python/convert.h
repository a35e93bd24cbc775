// Turning Python arguments into C++ values, with errors that say what was
// expected. Shared by the binding files; no tensor logic lives here.
#pragma once
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <optional>

#include "core/backend.h"
#include "core/tensor.h"

namespace aakaar::python {
namespace py = pybind11;

// A Python bool/int/float (or numpy scalar); nullopt for anything else.
std::optional<Scalar> as_scalar(py::handle h);
Scalar to_scalar(py::handle h, const char* what);
// (2, 3), [2, 3] or the varargs 2, 3 as a shape.
Shape to_shape(py::handle h, const char* what);
Shape shape_from_args(const py::args& args, const char* what);
// "cpu", "cuda", "cuda:1" or an aakaar.device.
Device to_device(py::handle h);
std::optional<DType> to_optional_dtype(py::handle h);
// d itself, or a DTypeError when it is not one of the five (ak.dtype(99)).
DType checked_dtype(DType d);
py::tuple shape_tuple(const Shape& s);
// The same as an aakaar.Size (Tensor.shape, Tensor.size(), broadcast_shapes), as torch.Size.
py::tuple size_object(const Shape& s);
// A tensor, or a Python number/list turned into one (like `like` where given).
TensorPtr as_tensor(py::handle h, const TensorPtr& like, const char* what);
// a op other for an operator (other a tensor or a Python number, else NotImplemented); reverse: other op a.
py::object binary_op(BinaryOp op, const TensorPtr& a, py::handle other, bool reverse);

void bind_interop(py::module_& m, py::class_<Tensor, TensorPtr>& cls);
void bind_tensor_methods(py::module_& m, py::class_<Tensor, TensorPtr>& cls);
void bind_functions(py::module_& m);
void bind_math(py::module_& m, py::class_<Tensor, TensorPtr>& cls);  // the maths API (bind_math.cpp)

}  // namespace aakaar::python
