// The aakaar._C extension module: error translation, dtype and device types,
// the Tensor class. The methods and functions are bound in the files beside
// this one; bindings hold no logic of their own.
#include <pybind11/pybind11.h>

#include <cstdlib>
#include <string>

#include "core/backend.h"
#include "core/error.h"
#include "cpu/isa.h"
#include "cpu/parallel.h"
#include "python/convert.h"

namespace py = pybind11;
using namespace aakaar;

// Bound in bind_gemm.cpp (the CPU GEMM ladder); weak so the core links without it.
void bind_gemm(py::module_& m) __attribute__((weak));
// Bound in bind_linear.cpp (fused Linear op, CPU allocator stats); weak like bind_gemm.
void bind_linear(py::module_& m) __attribute__((weak));
// Bound in bind_loss.cpp (fused cross-entropy); weak like bind_gemm.
void bind_loss(py::module_& m) __attribute__((weak));
// Bound in bind_optim.cpp (the fused optimizer step); weak like bind_gemm.
void bind_optim(py::module_& m) __attribute__((weak));
// Bound in bind_profiler.cpp (the profiler at the backend table); weak like bind_gemm.
void bind_profiler(py::module_& m) __attribute__((weak));
// Bound in csrc/cuda when the CUDA backend is compiled in.
void bind_cuda(py::module_& m) __attribute__((weak));
// Bound in bind_autograd.cpp (Tensor.backward, grad, grad_fn, ...).
void bind_autograd(py::module_& m) __attribute__((weak));
// Bound in bind_shape.cpp (sort, scans, scatter_reduce: the api-shape branch); weak like bind_gemm.
void bind_shape(py::module_& m) __attribute__((weak));
// Bound in bind_special.cpp (torch.special's Bessel functions, zeta, polynomials); weak like bind_gemm.
void bind_special(py::module_& m) __attribute__((weak));

namespace {
// No silent fallback: an instruction-set variable the library does not honour
// is said once, at import, with what runs instead.
void warn_about_isa_variables() {
  auto warn = [](const std::string& msg) {
    if (PyErr_WarnEx(PyExc_RuntimeWarning, msg.c_str(), 1) != 0) throw py::error_already_set();
  };
  const char* cap = std::getenv("AAKAAR_CPU_ISA");
  if (cap && std::string(cap) != "baseline" && std::string(cap) != "avx2" && std::string(cap) != "avx512")
    warn(std::string("AAKAAR_CPU_ISA='") + cap + "' is not one of baseline, avx2, avx512 and is ignored; the " +
         cpu::isa_name() + " kernels run");
  if (std::getenv("AAKAAR_GEMM_ISA"))
    warn(std::string("AAKAAR_GEMM_ISA is no longer read: AAKAAR_CPU_ISA caps every kernel family, the GEMM's "
                     "included; the ") + cpu::isa_name() + " kernels run");
}
}  // namespace

PYBIND11_MODULE(_C, m) {
  m.doc() = "aakaar's compiled core: strided tensors, CPU kernels, dispatch by device.";

  // PyTorch raises most shape, argument and dtype errors as RuntimeError, and
  // code written for it catches them so; Python habit (and this library's
  // first design) says ValueError and TypeError. Each error type here derives
  // from both, so `except RuntimeError` and `except ValueError` both work.
  static PyObject* argument_error = [] {
    PyObject* bases = PyTuple_Pack(2, PyExc_ValueError, PyExc_RuntimeError);
    PyObject* cls = PyErr_NewExceptionWithDoc(
        "aakaar._C.ArgumentError",
        "A wrong argument: a shape that does not fit, a size or value out of range. Both a ValueError and a "
        "RuntimeError (what PyTorch raises for the same mistakes).",
        bases, nullptr);
    Py_DECREF(bases);
    return cls;
  }();
  static PyObject* dtype_error = [] {
    // NotImplementedError (a RuntimeError) is what PyTorch raises for a dtype an op has
    // no kernel for ("hypot_cpu" not implemented for 'Long').
    PyObject* bases = PyTuple_Pack(2, PyExc_TypeError, PyExc_NotImplementedError);
    PyObject* cls = PyErr_NewExceptionWithDoc(
        "aakaar._C.DTypeError",
        "A dtype an operation cannot take or produce. Both a TypeError and a RuntimeError -- a "
        "NotImplementedError, what PyTorch raises for a dtype an op has no kernel for.",
        bases, nullptr);
    Py_DECREF(bases);
    return cls;
  }();
  if (!argument_error || !dtype_error) throw py::error_already_set();
  m.attr("ArgumentError") = py::handle(argument_error);
  m.attr("DTypeError") = py::handle(dtype_error);

  py::register_exception_translator([](std::exception_ptr p) {
    try {
      if (p) std::rethrow_exception(p);
    } catch (const IndexError& e) {
      PyErr_SetString(PyExc_IndexError, e.what());
    } catch (const ValueError& e) {
      PyErr_SetString(argument_error, e.what());
    } catch (const TypeError& e) {
      PyErr_SetString(dtype_error, e.what());
    } catch (const RuntimeError& e) {
      PyErr_SetString(PyExc_RuntimeError, e.what());
    } catch (const NotImplementedError& e) {
      PyErr_SetString(PyExc_NotImplementedError, e.what());
    } catch (const std::bad_alloc&) {
      PyErr_SetString(PyExc_MemoryError, "out of memory");
    }
  });

  py::enum_<DType>(m, "dtype", "The element type of a tensor.")
      .value("bool", DType::Bool)
      .value("uint8", DType::UInt8)
      .value("int64", DType::Int64)
      .value("float32", DType::Float32)
      .value("float64", DType::Float64)
      .value("int32", DType::Int32)
      .value("int16", DType::Int16)
      .value("int8", DType::Int8)
      .value("float16", DType::Float16)
      .value("bfloat16", DType::BFloat16)
      .def_property_readonly("itemsize", [](DType d) { return itemsize(d); }, "Bytes per element.")
      .def_property_readonly("is_floating_point", [](DType d) { return is_floating(d); },
                             "Whether this is a floating type (float16, bfloat16, float32, float64).")
      .def_property_readonly("is_signed", [](DType d) { return d != DType::Bool && d != DType::UInt8; },
                             "Whether the type holds negative numbers.");
  m.def("promote_types", [](DType a, DType b) { return promote_types(python::checked_dtype(a), python::checked_dtype(b)); },
        py::arg("a"), py::arg("b"),
        "The dtype an operation on dtypes a and b computes in (see the promotion table in csrc/core/dtype.h).");

  py::class_<Device>(m, "device", "Where a tensor's memory lives: 'cpu' or 'cuda:N'.")
      .def(py::init([](py::object spec) { return python::to_device(spec); }), py::arg("spec"))
      .def_property_readonly("type", [](const Device& d) { return d.type == DeviceType::CPU ? "cpu" : "cuda"; }, "'cpu' or 'cuda'.")
      .def_property_readonly("index", [](const Device& d) -> py::object {
        if (d.type == DeviceType::CPU) return py::none();
        return py::int_(d.index);
      }, "The CUDA device index (None for the cpu).")
      .def("__eq__", [](const Device& a, py::object b) {
        try { return a == python::to_device(b); } catch (const std::exception&) { return false; }
      })
      .def("__hash__", [](const Device& d) { return std::hash<std::string>()(d.str()); })
      .def("__repr__", [](const Device& d) { return "device(type='" + std::string(d.type == DeviceType::CPU ? "cpu" : "cuda") +
                                                     (d.type == DeviceType::CPU ? "" : "', index=" + std::to_string(d.index)) +
                                                     (d.type == DeviceType::CPU ? "')" : ")"); })
      .def("__str__", &Device::str);

  m.def("set_num_threads", [](int n) {
    AK_CHECK(n >= 1, ValueError, "set_num_threads: the number of threads must be positive, got ", n);
    set_num_threads(n);
  }, py::arg("n"), "Sets the number of threads CPU kernels may use.");
  m.def("get_num_threads", &get_num_threads, "The number of threads CPU kernels may use.");
  m.def("_cpu_awake_workers", &awake_workers,
        "How many workers of the CPU thread pool are awake (polling for the next job since their last one); "
        "elementwise loops too small to wake a thread still split among them. For tests.");
  m.def("_set_split_among_awake_workers", &set_split_among_awake, py::arg("enabled"),
        "Turns the split of small elementwise loops among awake workers on (the default) or off, "
        "to measure what it is worth (bench.train_step --ablate).");
  m.def("cpu_isa", &cpu::isa_name,
        "Which build of the CPU kernels runs (elementwise loops, reductions, GEMM micro-kernels): "
        "'avx512', 'avx2' or 'baseline' (cap it with AAKAAR_CPU_ISA).");
  warn_about_isa_variables();
  m.def("_backend_fused_kernels", [](const py::object& device) {
    const Backend& be = backend(python::to_device(device));
    py::dict has;
    has["linear"] = be.linear != nullptr;
    has["linear_backward"] = be.linear_backward != nullptr;
    has["cross_entropy"] = be.cross_entropy != nullptr;
    has["cross_entropy_backward"] = be.cross_entropy_backward != nullptr;
    has["add_scaled"] = be.add_scaled != nullptr;
    has["lerp_scalar"] = be.lerp_scalar != nullptr;
    has["optimizer_step"] = be.optimizer_step != nullptr;
    has["pointwise_loss"] = be.pointwise_loss != nullptr && be.pointwise_loss_backward != nullptr;
    has["ctc_loss"] = be.ctc_loss != nullptr && be.ctc_loss_backward != nullptr;
    has["conv2d"] = be.conv2d != nullptr && be.conv2d_backward != nullptr;
    has["max_pool2d"] = be.max_pool2d != nullptr;
    has["avg_pool2d"] = be.avg_pool2d != nullptr && be.avg_pool2d_backward != nullptr;
    has["sort"] = be.sort != nullptr;
    has["scan"] = be.scan != nullptr;
    has["scatter_reduce"] = be.scatter_reduce != nullptr;
    return has;
  }, py::arg("device"),
        "Which fused kernels the device's backend table has (the others are composed from primitives there).");
  m.def("has_cuda_build", [] {
#ifdef AAKAAR_WITH_CUDA
    return true;
#else
    return false;
#endif
  }, "Whether this build compiled the CUDA sources.");

  py::class_<Tensor, TensorPtr> cls(m, "Tensor", py::buffer_protocol(), py::dynamic_attr(),
                                    "An N-dimensional array: a view (shape, strides, offset) of a Storage.");
  python::bind_tensor_methods(m, cls);
  python::bind_interop(m, cls);
  python::bind_functions(m);
  python::bind_math(m, cls);
  if (bind_gemm) bind_gemm(m);
  if (bind_linear) bind_linear(m);
  if (bind_loss) bind_loss(m);
  if (bind_optim) bind_optim(m);
  if (bind_profiler) bind_profiler(m);
  if (bind_cuda) bind_cuda(m);
  if (bind_autograd) bind_autograd(m);
  if (bind_shape) bind_shape(m);
  if (bind_special) bind_special(m);
}
