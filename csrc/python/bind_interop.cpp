// Zero-copy exchange with numpy (array interface, buffer protocol) and any
// DLPack producer/consumer (PyTorch, JAX, CuPy, numpy >= 1.22).
//
// Aliasing: .numpy(), from_numpy(), from_dlpack() and the DLPack capsule all
// share memory: a write through one side is seen by the other, and the
// memory lives until both sides are gone.
#include <Python.h>

#include "core/error.h"
#include "python/convert.h"

namespace aakaar::python {
namespace {

// ---- DLPack (v0.8 ABI, the "dltensor" capsule) ----
struct DLDevice { int32_t device_type; int32_t device_id; };
struct DLDataType { uint8_t code; uint8_t bits; uint16_t lanes; };
struct DLTensor {
  void* data;
  DLDevice device;
  int32_t ndim;
  DLDataType dtype;
  int64_t* shape;
  int64_t* strides;
  uint64_t byte_offset;
};
struct DLManagedTensor {
  DLTensor dl_tensor;
  void* manager_ctx;
  void (*deleter)(DLManagedTensor*);
};
enum { kDLCPU = 1, kDLCUDA = 2 };
enum { kDLInt = 0, kDLUInt = 1, kDLFloat = 2, kDLBfloat = 4, kDLBool = 6 };

struct ExportContext {
  TensorPtr tensor;  // keeps the storage alive while the consumer holds it
  Shape shape, strides;
  DLManagedTensor managed;
};

DLDataType to_dl(DType d) {
  switch (d) {
    case DType::Bool: return {kDLBool, 8, 1};
    case DType::UInt8: return {kDLUInt, 8, 1};
    case DType::BFloat16: return {kDLBfloat, 16, 1};
    default:  // the signed integers and the IEEE floats: their size says which
      return {static_cast<uint8_t>(is_floating(d) ? kDLFloat : kDLInt), static_cast<uint8_t>(8 * itemsize(d)), 1};
  }
}

DType from_dl(DLDataType t) {
  if (t.lanes == 1)
    for (int v = 0; v < kNumDTypes; ++v) {
      const DLDataType c = to_dl(static_cast<DType>(v));
      if (c.code == t.code && c.bits == t.bits) return static_cast<DType>(v);
    }
  throw TypeError(str("from_dlpack: unsupported dtype (code ", int(t.code), ", ", int(t.bits), " bits, ", t.lanes,
                      " lanes); aakaar supports bool, uint8, int8, int16, int32, int64, float16, bfloat16, float32 "
                      "and float64"));
}

void capsule_destructor(PyObject* capsule) {
  // Only an unconsumed capsule still owns the tensor.
  if (PyCapsule_IsValid(capsule, "dltensor")) {
    auto* m = static_cast<DLManagedTensor*>(PyCapsule_GetPointer(capsule, "dltensor"));
    if (m && m->deleter) m->deleter(m);
  }
}

// The emulator's "cuda" memory is host memory: exporting it as kDLCUDA would hand a
// consumer (torch, CuPy) a pointer it would pass to a real GPU. Refuse instead.
void check_exportable(const TensorPtr& t, const char* what) {
#ifdef AAKAAR_CUDA_EMULATOR
  AK_CHECK(t->device().type == DeviceType::CPU, RuntimeError, what, ": this tensor is on the emulated ",
           "'cuda' device (an AAKAAR_CUDA=EMU build), whose memory is not GPU memory and cannot be shared ",
           "through DLPack; copy it with .cpu() first");
#else
  (void)t;
  (void)what;
#endif
}

py::capsule to_dlpack(const TensorPtr& t) {
  check_exportable(t, "__dlpack__");
  auto* ctx = new ExportContext{t, t->shape, t->strides, {}};
  DLTensor& dl = ctx->managed.dl_tensor;
  dl.data = t->storage->data();
  dl.byte_offset = static_cast<uint64_t>(t->offset * t->element_size());
  dl.device = {t->device().type == DeviceType::CPU ? kDLCPU : kDLCUDA, t->device().index};
  dl.ndim = static_cast<int32_t>(t->ndim());
  dl.dtype = to_dl(t->dtype);
  dl.shape = ctx->shape.data();
  dl.strides = ctx->strides.data();
  ctx->managed.manager_ctx = ctx;
  ctx->managed.deleter = [](DLManagedTensor* m) { delete static_cast<ExportContext*>(m->manager_ctx); };
  PyObject* cap = PyCapsule_New(&ctx->managed, "dltensor", capsule_destructor);
  if (!cap) {
    delete ctx;
    throw py::error_already_set();
  }
  return py::reinterpret_steal<py::capsule>(cap);
}

TensorPtr from_dlpack(py::object obj) {
  py::object cap = obj;
  if (hasattr(obj, "__dlpack__")) cap = obj.attr("__dlpack__")();
  if (!PyCapsule_IsValid(cap.ptr(), "dltensor"))
    throw TypeError("from_dlpack: expected an object with __dlpack__ or an unconsumed 'dltensor' capsule");
  auto* m = static_cast<DLManagedTensor*>(PyCapsule_GetPointer(cap.ptr(), "dltensor"));
  const DLTensor& dl = m->dl_tensor;
  if (dl.device.device_type != kDLCPU) {
    throw RuntimeError(str("from_dlpack: only cpu tensors can be imported in this build (device type ",
                           dl.device.device_type, ")"));
  }
  const DType dtype = from_dl(dl.dtype);
  Shape shape(dl.shape, dl.shape + dl.ndim);
  Shape strides = dl.strides ? Shape(dl.strides, dl.strides + dl.ndim) : contiguous_strides(shape);
  int64_t span = 1;
  for (int32_t d = 0; d < dl.ndim; ++d) {
    AK_CHECK(strides[d] >= 0, ValueError, "from_dlpack: negative strides are not supported, got ", shape_str(strides));
    if (shape[d] == 0) span = 0;
  }
  if (span) for (int32_t d = 0; d < dl.ndim; ++d) span += (shape[d] - 1) * strides[d];
  // Kernels read elements through typed pointers: a misaligned one is undefined behaviour.
  AK_CHECK(span == 0 || reinterpret_cast<uintptr_t>(static_cast<char*>(dl.data) + dl.byte_offset) % itemsize(dtype) == 0,
           ValueError, "from_dlpack: the data is not aligned to its ", itemsize(dtype), "-byte items; pass a copy");
  // The consumer now owns the managed tensor: rename the capsule so its
  // destructor does not free it too, and release it when the storage dies.
  PyCapsule_SetName(cap.ptr(), "used_dltensor");
  char* data = static_cast<char*>(dl.data) + dl.byte_offset;
  auto release = [m] {
    if (!m->deleter) return;
    if (Py_IsInitialized()) {
      py::gil_scoped_acquire gil;  // producers such as numpy decref Python objects
      m->deleter(m);
    }
  };
  auto storage = Storage::wrap(data, static_cast<size_t>(span) * itemsize(dtype), Device{}, release);
  return std::make_shared<Tensor>(storage, 0, shape, strides, dtype);
}

// ---- numpy ----
// numpy's type letters: bool, the integers by size, float16/32/64. numpy has no bfloat16.
DType dtype_from_numpy(const py::dtype& dt) {
  const char kind = dt.kind();
  const auto size = dt.itemsize();
  if (kind == 'b') return DType::Bool;
  if (kind == 'u' && size == 1) return DType::UInt8;
  if (kind == 'i' && size == 1) return DType::Int8;
  if (kind == 'i' && size == 2) return DType::Int16;
  if (kind == 'i' && size == 4) return DType::Int32;
  if (kind == 'i' && size == 8) return DType::Int64;
  if (kind == 'f' && size == 2) return DType::Float16;
  if (kind == 'f' && size == 4) return DType::Float32;
  if (kind == 'f' && size == 8) return DType::Float64;
  throw TypeError(str("from_numpy: unsupported numpy dtype ", std::string(py::str(dt)),
                      "; aakaar supports bool, uint8, int8, int16, int32, int64, float16, float32 and float64 "
                      "(convert with .astype first)"));
}

py::dtype numpy_dtype(DType d) {
  AK_CHECK(d != DType::BFloat16, TypeError, "numpy has no bfloat16 dtype (PyTorch refuses too: "
           "\"Got unsupported ScalarType BFloat16\"); convert first, e.g. t.float().numpy()");
  return py::dtype(dtype_name(d));  // numpy's names are aakaar's for the other nine
}

TensorPtr from_numpy(py::array arr) {
  const DType dtype = dtype_from_numpy(arr.dtype());
  // A tensor is always writable; sharing read-only memory (np.broadcast_to,
  // np.frombuffer of bytes) would let a write crash the process.
  AK_CHECK(arr.writeable(), ValueError, "from_numpy: the array is read-only (e.g. from np.broadcast_to or "
           "np.frombuffer); pass a writable copy, e.g. arr.copy(), or use aakaar.tensor(arr)");
  AK_CHECK(arr.dtype().byteorder() != '>', ValueError, "from_numpy: big-endian arrays are not supported");
  const int64_t isz = itemsize(dtype);
  Shape shape(arr.ndim()), strides(arr.ndim());
  int64_t span = 1;
  for (py::ssize_t d = 0; d < arr.ndim(); ++d) {
    shape[d] = arr.shape(d);
    const int64_t sb = arr.strides(d);
    AK_CHECK(sb >= 0, ValueError, "from_numpy: arrays with negative strides are not supported (got strides ",
             shape_str(Shape(arr.strides(), arr.strides() + arr.ndim())), " in bytes); pass a copy, e.g. arr.copy()");
    AK_CHECK(sb % isz == 0, ValueError, "from_numpy: strides must be multiples of the item size (got ", sb,
             " bytes for ", isz, "-byte items)");
    strides[d] = sb / isz;
    if (shape[d] == 0) span = 0;
  }
  if (span) for (size_t d = 0; d < shape.size(); ++d) span += (shape[d] - 1) * strides[d];
  // Kernels read elements through typed pointers (float*, ...): a view at an
  // odd byte offset (np.frombuffer(..., offset=1)) would make every access
  // undefined behaviour. Sharing it is refused; aakaar.tensor(arr) copies.
  AK_CHECK(span == 0 || reinterpret_cast<uintptr_t>(arr.data()) % isz == 0, ValueError,
           "from_numpy: the array's data is not aligned to its ", isz, "-byte items (address ",
           reinterpret_cast<uintptr_t>(arr.data()), "); pass an aligned copy, e.g. arr.copy(), or use aakaar.tensor(arr)");
  // Keep the array alive for as long as any tensor views its memory.
  PyObject* owner = arr.ptr();
  Py_INCREF(owner);
  auto release = [owner] {
    if (Py_IsInitialized()) {
      py::gil_scoped_acquire gil;
      Py_DECREF(owner);
    }
  };
  auto storage = Storage::wrap(arr.mutable_data(), static_cast<size_t>(span) * isz, Device{}, release);
  return std::make_shared<Tensor>(storage, 0, shape, strides, dtype);
}

// Byte strides for numpy and the buffer protocol. A dim of size 1 is never
// stepped along and may carry any stride (as_strided allows 2^62, whose
// product with the item size overflows): it gets 0. Every other byte stride
// is below the storage's size.
std::vector<py::ssize_t> byte_strides(const Tensor& t) {
  std::vector<py::ssize_t> out(t.ndim());
  for (int64_t d = 0; d < t.ndim(); ++d) {
    int64_t b = 0;
    if (t.shape[d] > 1)
      AK_CHECK(!__builtin_mul_overflow(t.strides[d], t.element_size(), &b), ValueError, "stride ", t.strides[d],
               " times the item size overflows int64");
    else if (__builtin_mul_overflow(t.strides[d], t.element_size(), &b))
      b = 0;
    out[d] = b;
  }
  return out;
}

py::array to_numpy(const TensorPtr& t) {
  AK_CHECK(t->device().type == DeviceType::CPU, TypeError, "can't convert ", t->device().str(),
           " tensor to numpy; use .cpu() first");
  std::vector<py::ssize_t> shape(t->shape.begin(), t->shape.end()), strides = byte_strides(*t);
  // The array's base owns a reference to the storage: memory stays valid.
  auto* keep = new StoragePtr(t->storage);
  py::capsule base(keep, [](void* p) { delete static_cast<StoragePtr*>(p); });
  return py::array(numpy_dtype(t->dtype), shape, strides, t->data_ptr(), base);
}

std::string buffer_format(DType d) {
  switch (d) {
    case DType::Bool: return "?";
    case DType::UInt8: return "B";
    case DType::Int8: return "b";
    case DType::Int16: return "h";
    case DType::Int32: return "i";
    case DType::Int64: return py::format_descriptor<int64_t>::format();
    case DType::Float16: return "e";
    case DType::Float32: return "f";
    case DType::Float64: return "d";
    case DType::BFloat16: break;
  }
  throw TypeError(str("the buffer protocol has no format for ", dtype_name(d), "; convert first, e.g. t.float()"));
}

}  // namespace

void bind_interop(py::module_& m, py::class_<Tensor, TensorPtr>& cls) {
  cls.def_buffer([](Tensor& t) -> py::buffer_info {
    AK_CHECK(t.device().type == DeviceType::CPU, TypeError, "the buffer protocol needs a cpu tensor");
    std::vector<py::ssize_t> shape(t.shape.begin(), t.shape.end()), strides = byte_strides(t);
    return py::buffer_info(t.data_ptr(), t.element_size(), buffer_format(t.dtype), t.ndim(), shape, strides);
  });
  cls.def("numpy", &to_numpy, "A numpy array sharing this tensor's memory (cpu tensors only).")
      .def("__array__", [](const TensorPtr& t, py::object dtype, py::object copy) {
        py::array a = to_numpy(t);
        if (!dtype.is_none()) a = a.attr("astype")(dtype);
        if (!copy.is_none() && copy.cast<bool>()) a = a.attr("copy")();
        return a;
      }, py::arg("dtype") = py::none(), py::arg("copy") = py::none())
      .def("__dlpack__", [](const TensorPtr& t, py::object stream, py::object max_version, py::object dl_device,
                            py::object copy) {
        (void)stream; (void)max_version; (void)dl_device;
        AK_CHECK(copy.is_none() || !copy.cast<bool>(), ValueError, "__dlpack__: copy=True is not supported");
        return to_dlpack(t);
      }, py::kw_only(), py::arg("stream") = py::none(), py::arg("max_version") = py::none(),
         py::arg("dl_device") = py::none(), py::arg("copy") = py::none(),
         "Exports a DLPack capsule sharing this tensor's memory.")
      .def("__dlpack_device__", [](const TensorPtr& t) {
        check_exportable(t, "__dlpack_device__");
        return py::make_tuple(t->device().type == DeviceType::CPU ? int(kDLCPU) : int(kDLCUDA), t->device().index);
      });
  m.def("from_numpy", &from_numpy, py::arg("array"), "A tensor sharing the numpy array's memory (no copy).");
  m.def("from_dlpack", &from_dlpack, py::arg("ext_tensor"),
        "A tensor sharing memory with any DLPack producer (e.g. a torch tensor), without copying.");
}

}  // namespace aakaar::python
