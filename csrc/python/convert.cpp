#include "python/convert.h"

#include "core/default_dtype.h"
#include "core/error.h"
#include "ops/ops.h"

namespace aakaar::python {

std::optional<Scalar> as_scalar(py::handle h) {
  if (PyBool_Check(h.ptr())) return Scalar::from_bool(h.ptr() == Py_True);
  if (PyLong_Check(h.ptr())) {
    int overflow = 0;
    long long v = PyLong_AsLongLongAndOverflow(h.ptr(), &overflow);
    if (overflow) {
      // Beyond int64 a Python int can only mean a float, as in PyTorch:
      // ak.ones(2) * 2**63 is 9.2e18. An integer tensor refuses it
      // (Scalar::big_int; see wrap_scalar).
      const double d = PyLong_AsDouble(h.ptr());
      if (d == -1.0 && PyErr_Occurred()) {
        PyErr_Clear();
        throw ValueError("integer is too large to be represented even as a float");
      }
      Scalar s = Scalar::from_double(d);
      s.big_int = true;
      return s;
    }
    return Scalar::from_int(v);
  }
  if (PyFloat_Check(h.ptr())) return Scalar::from_double(PyFloat_AS_DOUBLE(h.ptr()));
  // numpy scalars and other numbers
  if (py::isinstance<py::array>(h)) return std::nullopt;
  if (hasattr(h, "dtype") && hasattr(h, "item") && !py::isinstance<Tensor>(h)) {
    py::object v = h.attr("item")();
    if (PyBool_Check(v.ptr()) || PyLong_Check(v.ptr()) || PyFloat_Check(v.ptr())) return as_scalar(v);
  }
  return std::nullopt;
}

Scalar to_scalar(py::handle h, const char* what) {
  // A 0-d tensor is a number wherever PyTorch's signature asks for one (arange(t.sum()), full(s, t)).
  if (py::isinstance<Tensor>(h) && h.cast<TensorPtr>()->ndim() == 0) return to_scalar(h.attr("item")(), what);
  auto s = as_scalar(h);
  if (!s) throw TypeError(str(what, ": expected a number (bool, int or float), got ", std::string(py::str(h.get_type().attr("__name__")))));
  return *s;
}

Shape to_shape(py::handle h, const char* what) {
  if (PyLong_Check(h.ptr()) && !PyBool_Check(h.ptr())) return {h.cast<int64_t>()};
  if (!py::isinstance<py::sequence>(h) || py::isinstance<py::str>(h))
    throw TypeError(str(what, ": expected a shape (a sequence of ints), got ", std::string(py::str(h.get_type().attr("__name__")))));
  Shape s;
  for (py::handle item : h) {
    if (!(PyLong_Check(item.ptr()) || hasattr(item, "__index__")) || PyBool_Check(item.ptr()))
      throw TypeError(str(what, ": shape entries must be ints, got ", std::string(py::str(item.get_type().attr("__name__")))));
    s.push_back(item.attr("__index__")().cast<int64_t>());
  }
  return s;
}

Shape shape_from_args(const py::args& args, const char* what) {
  if (args.size() == 1 && !PyLong_Check(args[0].ptr())) return to_shape(args[0], what);
  return to_shape(args, what);
}

Device to_device(py::handle h) {
  if (py::isinstance<Device>(h)) return h.cast<Device>();
  if (!py::isinstance<py::str>(h)) throw TypeError("device must be a string like 'cpu' or 'cuda:0', or an aakaar.device");
  std::string s = h.cast<std::string>();
  if (s == "cpu") return Device{DeviceType::CPU, 0};
  if (s == "cuda") return Device{DeviceType::CUDA, 0};
  if (s.rfind("cuda:", 0) == 0) {
    try {
      size_t used = 0;
      int idx = std::stoi(s.substr(5), &used);
      if (used == s.size() - 5 && idx >= 0) return Device{DeviceType::CUDA, idx};
    } catch (const std::exception&) {
    }
  }
  throw ValueError(str("unknown device '", s, "': expected 'cpu', 'cuda' or 'cuda:N'"));
}

std::optional<DType> to_optional_dtype(py::handle h) {
  if (h.is_none()) return std::nullopt;
  if (!py::isinstance<DType>(h)) throw TypeError("dtype must be an aakaar dtype such as aakaar.float32");
  return checked_dtype(h.cast<DType>());
}

DType checked_dtype(DType d) {
  const int v = static_cast<int>(d);
  AK_CHECK(v >= 0 && v < kNumDTypes, TypeError, "invalid dtype (enum value ", v, ")");
  return d;
}

py::tuple shape_tuple(const Shape& s) {
  py::tuple t(s.size());
  for (size_t i = 0; i < s.size(); ++i) t[i] = py::int_(s[i]);
  return t;
}

py::tuple size_object(const Shape& s) {
  // aakaar.Size (aakaar/size.py), looked up once and kept for the life of the process (never
  // released: a static py::object would be destroyed after the interpreter is gone).
  static PyObject* size_type = py::object(py::module_::import("aakaar.size").attr("Size")).release().ptr();
  py::tuple items = shape_tuple(s);
  // tuple's own constructor on the subtype: the entries are ints already, so Size.__new__'s
  // checks are skipped (a shape is read far more often than a Size is built by hand).
  py::tuple args = py::make_tuple(items);
  PyObject* r = PyTuple_Type.tp_new(reinterpret_cast<PyTypeObject*>(size_type), args.ptr(), nullptr);
  if (r == nullptr) throw py::error_already_set();
  return py::reinterpret_steal<py::tuple>(r);
}

TensorPtr as_tensor(py::handle h, const TensorPtr& like, const char* what) {
  if (py::isinstance<Tensor>(h)) return h.cast<TensorPtr>();
  if (auto s = as_scalar(h)) return like ? ops::wrap_scalar(*s, like) : ops::scalar_tensor(*s, s->kind == Scalar::Kind::Float ? default_dtype() : (s->kind == Scalar::Kind::Int ? DType::Int64 : DType::Bool));
  // Lists and arrays go through aakaar.tensor (Python), which checks raggedness.
  py::object tensor_fn = py::module_::import("aakaar").attr("tensor");
  try {
    return tensor_fn(h).cast<TensorPtr>();
  } catch (py::error_already_set&) {
    throw TypeError(str(what, ": expected a tensor or a number, got ", std::string(py::str(h.get_type().attr("__name__")))));
  }
}

}  // namespace aakaar::python
