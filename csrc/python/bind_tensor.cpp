// Tensor methods and operators. Each line forwards to an op in csrc/ops.
#include <type_traits>

#include "core/error.h"
#include "ops/ops.h"
#include "python/convert.h"

namespace aakaar::python {
namespace {

using ops::DimList;

// A dim argument: an int (not a bool: x.var(True) must not mean dim=1, and
// x.any(True) not dim=1 either -- PyTorch refuses both), a sequence of ints, or None.
std::optional<int64_t> to_dim(py::handle h, const char* what) {
  if (h.is_none()) return std::nullopt;
  if (PyBool_Check(h.ptr()) || !(PyLong_Check(h.ptr()) || hasattr(h, "__index__")))
    throw TypeError(str(what, ": dim must be an int, got ", std::string(py::str(h.get_type().attr("__name__")))));
  return h.attr("__index__")().cast<int64_t>();
}

std::optional<DimList> to_dims(py::handle h) {
  if (h.is_none()) return std::nullopt;
  if (PyBool_Check(h.ptr()))
    throw TypeError("dim must be an int or a tuple of ints, got bool (did you mean keepdim=True or unbiased?)");
  if (PyLong_Check(h.ptr())) return DimList{h.cast<int64_t>()};
  return to_shape(h, "dim");
}

// PyTorch's two spellings of a variance's correction: unbiased (True: 1, False: 0) or correction.
double variance_correction(py::handle unbiased, py::handle correction, const char* fn) {
  AK_CHECK(unbiased.is_none() || correction.is_none(), TypeError, fn,
           "(): give unbiased or correction, not both");
  if (!unbiased.is_none()) {
    AK_CHECK(PyBool_Check(unbiased.ptr()), TypeError, fn, "(): unbiased must be a bool, got ",
             std::string(py::str(unbiased.get_type().attr("__name__"))));
    return unbiased.ptr() == Py_True ? 1.0 : 0.0;
  }
  return correction.is_none() ? 1.0 : correction.cast<double>();
}

TensorPtr inplace_op(BinaryOp op, const TensorPtr& a, py::handle other) {
  if (!py::isinstance<Tensor>(other))
    if (auto s = as_scalar(other)) ops::check_scalar_operand(op, a->dtype, *s);
  if (is_reduced_float(a->dtype) && !py::isinstance<Tensor>(other))
    if (auto s = as_scalar(other); s && s->kind == Scalar::Kind::Float) {
      // float16 *= 0.1: the number joins the float32 computation unrounded, as out of place.
      ops::copy_(a, ops::binary_scalar(op, a, *s, false));
      return a;
    }
  ops::binary_(op, a, as_tensor(other, a, "in-place op"));
  return a;
}

// ---- indexing ----------------------------------------------------------------

struct ParsedIndex {
  TensorPtr view;                    // after ints, slices, None and Ellipsis
  std::vector<TensorPtr> advanced;   // per dim of `view`: an int64 index tensor or null
  bool has_advanced = false;
  // How the key's tensor items split: bool tensors (masks) and the rest (int tensors, lists,
  // Python bools). One mask alone decides PyTorch's masked_fill path of setitem.
  int masks = 0, other_advanced = 0;
};

int64_t dims_consumed(py::handle item) {
  if (item.is_none() || item.ptr() == Py_Ellipsis) return 0;
  if (py::isinstance<Tensor>(item)) {
    auto t = item.cast<TensorPtr>();
    return t->dtype == DType::Bool ? t->ndim() : 1;  // a 0-d mask (x[True]) adds a dim instead
  }
  return 1;
}

// A 0-d integer tensor in an index is an integer (a select, with its bounds
// check even where the result is empty), as PyTorch treats it -- not an
// advanced index broadcast against the others.
bool is_integer_scalar_tensor(py::handle item) {
  if (!py::isinstance<Tensor>(item)) return false;
  auto t = item.cast<TensorPtr>();
  return t->ndim() == 0 && t->dtype == DType::Int64;
}

TensorPtr index_tensor_from(py::handle item) {
  if (py::isinstance<Tensor>(item)) return item.cast<TensorPtr>();
  // An empty list selects nothing: an empty int64 index (aakaar.tensor([]) would be float32), as in PyTorch.
  if ((py::isinstance<py::list>(item) || py::isinstance<py::tuple>(item)) && py::len(item) == 0)
    return ops::empty({0}, DType::Int64);
  // Lists (and numpy arrays) of ints or bools become index tensors.
  return py::module_::import("aakaar").attr("tensor")(item).cast<TensorPtr>();
}

// PyTorch's (and old NumPy's) rule for a list key: x[[[0, 1], [1, 2]]] is x[[0, 1], [1, 2]]. A list
// shorter than 32 holding a tensor, a sequence, a slice, None or Ellipsis is read as a tuple of
// indices; any other list (x[[0, 2]]) is one index.
bool list_reads_as_tuple(py::handle key) {
  if (!py::isinstance<py::list>(key)) return false;
  const Py_ssize_t n = PyList_GET_SIZE(key.ptr());
  if (n >= 32) return false;
  for (Py_ssize_t i = 0; i < n; ++i) {
    PyObject* item = PyList_GET_ITEM(key.ptr(), i);
    if (py::isinstance<Tensor>(item) || PySlice_Check(item) || item == Py_Ellipsis || item == Py_None) return true;
    if (PySequence_Check(item)) return true;
  }
  return false;
}

// A tuple or a NumPy array inside an index is an index tensor, as a list is.
bool is_sequence_index(py::handle item) {
  return py::isinstance<py::list>(item) || py::isinstance<py::tuple>(item) || py::isinstance<py::array>(item);
}

ParsedIndex parse_index(const TensorPtr& t, py::handle key) {
  py::tuple items;
  if (py::isinstance<py::tuple>(key)) items = py::reinterpret_borrow<py::tuple>(key);
  else if (list_reads_as_tuple(key)) items = py::tuple(py::reinterpret_borrow<py::list>(key));
  else items = py::make_tuple(key);
  // Lists and arrays are converted up front so dims are counted correctly.
  std::vector<py::object> parts;
  int masks = 0, other_advanced = 0;
  for (py::handle item : items) {
    if (is_sequence_index(item)) {
      parts.push_back(py::cast(index_tensor_from(item)));
      const TensorPtr it = parts.back().cast<TensorPtr>();
      ++(it->dtype == DType::Bool && it->ndim() > 0 ? masks : other_advanced);
    } else if (PyBool_Check(item.ptr())) {  // x[True] is a 0-d mask, as in numpy and PyTorch
      parts.push_back(py::cast(ops::scalar_tensor(Scalar::from_bool(item.ptr() == Py_True), DType::Bool)));
      ++other_advanced;  // (PyTorch makes it an int64 index: not a mask for setitem's masked_fill path)
    } else {
      parts.push_back(py::reinterpret_borrow<py::object>(item));
      // (A 0-d bool tensor is an index like a Python bool in PyTorch, not a mask.)
      if (py::isinstance<Tensor>(item) && !is_integer_scalar_tensor(item)) {
        const TensorPtr it = item.cast<TensorPtr>();
        ++(it->dtype == DType::Bool && it->ndim() > 0 ? masks : other_advanced);
      }
    }
  }
  // A lone slice with a zero step is a ValueError before any count of dims (PyTorch's order; in a
  // tuple, too many indices is reported first).
  if (PySlice_Check(key.ptr()) && !key.attr("step").is_none())
    AK_CHECK(key.attr("step").attr("__index__")().cast<int64_t>() != 0, ValueError, "slice step cannot be zero");
  int64_t consumed = 0, ellipses = 0;
  for (auto& item : parts) {
    consumed += dims_consumed(item);
    if (item.ptr() == Py_Ellipsis) ++ellipses;
  }
  AK_CHECK(ellipses <= 1, IndexError, "an index can only have a single ellipsis ('...')");
  AK_CHECK(consumed <= t->ndim(), IndexError, "too many indices for tensor of dimension ", t->ndim(), " (got ",
           consumed, ")");
  ParsedIndex out;
  out.view = t;
  out.masks = masks;
  out.other_advanced = other_advanced;
  std::vector<std::pair<int64_t, TensorPtr>> adv;
  int64_t d = 0;
  for (auto& item : parts) {
    if (item.ptr() == Py_Ellipsis) {
      d += t->ndim() - consumed;
    } else if (item.is_none()) {
      out.view = ops::unsqueeze(out.view, d);
      for (auto& a : adv) if (a.first >= d) ++a.first;
      ++d;
    } else if (PySlice_Check(item.ptr())) {
      py::slice s = py::reinterpret_borrow<py::slice>(item);
      auto get = [](py::handle h) -> std::optional<int64_t> {
        if (h.is_none()) return std::nullopt;
        return h.attr("__index__")().cast<int64_t>();
      };
      std::optional<int64_t> step = get(s.attr("step"));
      out.view = ops::slice(out.view, d, get(s.attr("start")), get(s.attr("stop")), step.value_or(1));
      ++d;
    } else if (is_integer_scalar_tensor(item)) {
      const TensorPtr idx = ops::to_device(item.cast<TensorPtr>(), Device{});
      out.view = ops::select(out.view, d, idx->data<int64_t>()[0]);
    } else if (py::isinstance<Tensor>(item)) {
      TensorPtr idx = item.cast<TensorPtr>();
      if (idx->dtype == DType::UInt8) {
        // PyTorch reads a uint8 index as a mask (deprecated there, with this warning); reading it as
        // integer indices instead would give another answer without a word.
        if (PyErr_WarnEx(PyExc_UserWarning,
                         "indexing with dtype uint8 is deprecated (as in PyTorch): the index is read as a mask; "
                         "use a bool tensor for a mask, or int64 for indices", 1) != 0)
          throw py::error_already_set();
        idx = ops::to_dtype(idx, DType::Bool);
      }
      if (idx->dtype == DType::Bool) {
        const int64_t k = std::max<int64_t>(idx->ndim(), 1);
        if (idx->ndim() == 0) {  // x[True] adds a dim of size 1 (or 0 for False)
          out.view = ops::unsqueeze(out.view, d);
          idx = ops::reshape(idx, {1});
        }
        for (int64_t j = 0; j < k; ++j)
          AK_CHECK(out.view->shape[d + j] == idx->shape[j], IndexError, "the shape of the mask ", shape_str(idx->shape),
                   " at index ", j, " does not match the shape of the indexed tensor ", shape_str(out.view->shape),
                   " at index ", d + j);
        TensorPtr nz = ops::nonzero(idx);
        for (int64_t j = 0; j < k; ++j) adv.push_back({d + j, ops::select(nz, 1, j)});
        d += k;
      } else {
        AK_CHECK(idx->dtype == DType::Int64 || idx->dtype == DType::Int32, IndexError,
                 "tensors used as indices must be int64, int32 or bool tensors, got ", dtype_name(idx->dtype));
        adv.push_back({d, ops::to_dtype(idx, DType::Int64)});
        ++d;
      }
    } else if (PyLong_Check(item.ptr()) || hasattr(item, "__index__")) {
      out.view = ops::select(out.view, d, item.attr("__index__")().cast<int64_t>());
    } else {
      throw IndexError(str("only integers, slices (`:`), ellipsis (`...`), None and int64 or bool tensors are valid "
                           "indices (got ", std::string(py::str(item.get_type().attr("__name__"))), ")"));
    }
  }
  if (!adv.empty()) {
    out.has_advanced = true;
    out.advanced.assign(out.view->ndim(), nullptr);
    for (auto& a : adv) out.advanced[a.first] = a.second;
  }
  return out;
}

TensorPtr getitem(const TensorPtr& t, py::handle key) {
  ParsedIndex p = parse_index(t, key);
  return p.has_advanced ? ops::index(p.view, p.advanced) : p.view;
}

// The key is a Python bool itself (x[True] = v; not in a tuple: x[(True,)] is an index like any)?
std::optional<bool> lone_bool(py::handle key) {
  if (!PyBool_Check(key.ptr())) return std::nullopt;
  return key.ptr() == Py_True;
}

void setitem(const TensorPtr& t, py::handle key, py::handle value) {
  if (auto b = lone_bool(key)) {
    // PyTorch's special case: a lone True writes v into x[None] as a basic index would (the
    // value converted to x's dtype); a lone False writes nothing (a number is still checked).
    if (!py::isinstance<Tensor>(value)) {
      if (*b) return setitem(t, py::none(), value);
      if (auto s = as_scalar(value)) ops::check_scalar_fits(*s, t->dtype, "index assignment");
      return;
    }
    if (*b) ops::copy_(ops::unsqueeze(t, 0), ops::to_dtype(value.cast<TensorPtr>(), t->dtype));
    return;
  }
  // The value is converted (and a number checked against the dtype) before the key is read,
  // as PyTorch does: uint8_scalar[0, [1]] = -2.5 reports the value first.
  TensorPtr v;
  if (auto s = py::isinstance<Tensor>(value) ? std::nullopt : as_scalar(value)) {
    // A number is written in self's dtype, with PyTorch's overflow check
    // (uint8_tensor[0] = 256 and int64_tensor[0] = nan are errors).
    AK_CHECK(!s->big_int || is_floating(t->dtype), ValueError, "index assignment: the integer ", s->f,
             " is too large for ", dtype_name(t->dtype));
    ops::check_scalar_fits(*s, t->dtype, "index assignment");
    v = ops::scalar_tensor(*s, t->dtype, t->device());
  } else {
    v = as_tensor(value, t, "index assignment");
  }
  ParsedIndex p = parse_index(t, key);
  // Leading size-1 dims of the value are dropped first (PyTorch's rule: x[()] = tensor([v]) writes
  // into a 0-d x), so a value may have more dims than the destination if the extra ones are 1s.
  int64_t lead = 0;
  while (lead < v->ndim() && v->shape[lead] == 1) ++lead;
  if (lead > 0) v = ops::reshape(v, Shape(v->shape.begin() + lead, v->shape.end()));
  // One bool mask and a one-element value: PyTorch fills through masked_fill_, which converts the
  // value to x's dtype (any other advanced index requires the dtypes to match).
  if (p.has_advanced && p.masks == 1 && p.other_advanced == 0 && v->numel() == 1 && v->device().type == DeviceType::CPU)
    v = ops::to_dtype(v, t->dtype);
  if (p.has_advanced) ops::index_put_(p.view, p.advanced, v, false);
  else ops::copy_(p.view, ops::to_dtype(v, t->dtype));
}

// A tensor src is used as given (its shape is checked against index, as in
// PyTorch); a Python number is broadcast to index's shape.
// A tensor src must have self's dtype (PyTorch's rule for scatter and scatter_add); a number is converted.
TensorPtr same_dtype_src(const TensorPtr& t, const TensorPtr& src, const char* what) {
  AK_CHECK(src->dtype == t->dtype, RuntimeError, what, "(): Expected self.dtype to be equal to src.dtype (self is ",
           dtype_name(t->dtype), ", src is ", dtype_name(src->dtype), ")");
  return src;
}

TensorPtr scatter_src(const TensorPtr& t, const TensorPtr& index, py::handle src, const char* what) {
  if (py::isinstance<Tensor>(src)) return same_dtype_src(t, src.cast<TensorPtr>(), what);
  return ops::expand(ops::wrap_scalar(to_scalar(src, what), t), index->shape);
}

UnaryParams clamp_params(py::handle lo, py::handle hi) {
  UnaryParams p;
  if (!lo.is_none()) { p.a = to_scalar(lo, "clamp min").to_double(); p.has_a = true; }
  if (!hi.is_none()) { p.b = to_scalar(hi, "clamp max").to_double(); p.has_b = true; }
  return p;
}

}  // namespace

// Binary operators: the other operand may be a tensor or a Python number;
// anything else returns NotImplemented so Python can try the reflected op.
py::object binary_op(BinaryOp op, const TensorPtr& a, py::handle other, bool reverse) {
  if (py::isinstance<Tensor>(other)) {
    TensorPtr b = other.cast<TensorPtr>();
    return py::cast(reverse ? ops::binary(op, b, a) : ops::binary(op, a, b));
  }
  if (auto s = as_scalar(other)) return py::cast(ops::binary_scalar(op, a, *s, reverse));
  return py::reinterpret_borrow<py::object>(Py_NotImplemented);
}

// a op other for a named method (a.mul(other), a.div(other), a.fmod(other), ...): a Python number
// takes the operators' road (ops::binary_scalar: uint8.div(-3) divides by -3, not by 253;
// float16.mul(1e10) uses the number unrounded), anything else is made a tensor (as_tensor).
// (Declared where it is used, in bind_math.cpp too.)
TensorPtr binary_any(BinaryOp op, const TensorPtr& a, py::handle other, const char* what) {
  if (!py::isinstance<Tensor>(other))
    if (auto s = as_scalar(other)) return ops::binary_scalar(op, a, *s, false);
  return ops::binary(op, a, as_tensor(other, a, what));
}

// The other operand of add / sub (which take alpha): a Python bool stays a bool (a 0-d bool
// tensor, which promotion then treats as the number it is), so that x.sub(True) is refused
// as x - True is, and as PyTorch refuses both.
TensorPtr alpha_operand(py::handle b, const TensorPtr& a, const char* what) {
  return as_tensor(b, py::isinstance<py::bool_>(b) ? nullptr : a, what);
}

TensorPtr clamp_any(const TensorPtr& t, py::handle lo, py::handle hi) {
  AK_CHECK(!lo.is_none() || !hi.is_none(), ValueError, "clamp: at least one of min and max must be given");
  if (py::isinstance<Tensor>(lo) || py::isinstance<Tensor>(hi))
    return ops::clamp_tensor(t, lo.is_none() ? nullptr : as_tensor(lo, t, "clamp"),
                             hi.is_none() ? nullptr : as_tensor(hi, t, "clamp"));
  return ops::unary(UnaryOp::Clamp, t, clamp_params(lo, hi));
}

void bind_tensor_methods(py::module_& m, py::class_<Tensor, TensorPtr>& cls) {
  (void)m;
  // ---- attributes ----
  cls.def_property_readonly("shape", [](const Tensor& t) { return size_object(t.shape); }, "The size of each dimension.")
      .def_property_readonly("ndim", &Tensor::ndim, "Number of dimensions.")
      .def_property_readonly("dtype", [](const Tensor& t) { return t.dtype; }, "The element type (an aakaar.dtype).")
      .def_property_readonly("device", &Tensor::device, "The device the tensor's memory is on.")
      .def_property_readonly("is_cuda", [](const Tensor& t) { return t.device().type == DeviceType::CUDA; }, "Whether the tensor lives on a CUDA device.")
      .def_property_readonly("itemsize", &Tensor::element_size, "Bytes per element.")
      .def("dim", &Tensor::ndim, "Number of dimensions.")
      .def("numel", &Tensor::numel, "Number of elements.")
      .def("element_size", &Tensor::element_size, "Bytes per element.")
      .def("size", [](const Tensor& t, py::object dim) -> py::object {
        if (dim.is_none()) return size_object(t.shape);
        AK_CHECK(t.ndim() > 0, IndexError, "size(", dim.cast<int64_t>(), "): a 0-d tensor has no dims");
        return py::int_(t.shape[t.wrap_dim(dim.cast<int64_t>())]);
      }, py::arg("dim") = py::none(), "The shape, or the size of one dim.")
      .def("stride", [](const Tensor& t, py::object dim) -> py::object {
        if (dim.is_none()) return shape_tuple(t.strides);
        AK_CHECK(t.ndim() > 0, IndexError, "stride(", dim.cast<int64_t>(), "): a 0-d tensor has no dims");
        return py::int_(t.strides[t.wrap_dim(dim.cast<int64_t>())]);
      }, py::arg("dim") = py::none(), "Strides in elements, or the stride of one dim.")
      .def("storage_offset", [](const Tensor& t) { return t.offset; }, "Offset of element 0 in the storage, in elements.")
      .def("data_ptr", [](const Tensor& t) { return reinterpret_cast<uintptr_t>(t.data_ptr()); },
           "Address of the first element.")
      .def("untyped_storage_ptr", [](const Tensor& t) { return reinterpret_cast<uintptr_t>(t.storage->data()); },
           "Address of the start of the storage (shared by all views).")
      .def("storage_nbytes", [](const Tensor& t) { return t.storage->nbytes(); }, "Size in bytes of the storage this tensor views (shared by all its views).")
      .def_property_readonly("_version", [](const Tensor& t) { return t.storage->version(); }, "How many in-place writes the storage has seen (autograd uses it to detect modified saved tensors).")
      .def("is_contiguous", &Tensor::is_contiguous, "Whether the layout is row-major with no gaps.")
      .def("__len__", [](const Tensor& t) {
        AK_CHECK(t.ndim() > 0, TypeError, "len() of a 0-d tensor");
        return t.shape[0];
      }, "Size of the first dim.");

  // ---- views ----
  cls.def("view", [](const TensorPtr& t, py::args shape) { return ops::view(t, shape_from_args(shape, "view")); },
          "A view with another shape; raises if the layout does not allow one (see reshape).")
      .def("reshape", [](const TensorPtr& t, py::args shape) { return ops::reshape(t, shape_from_args(shape, "reshape")); },
           "Like view, but copies when no view is possible.")
      .def("transpose", &ops::transpose, py::arg("dim0"), py::arg("dim1"), "Swaps two dims (a view).")
      .def("swapaxes", &ops::transpose, py::arg("dim0"), py::arg("dim1"), "Alias of transpose: swaps two dims (a view).")
      .def("permute", [](const TensorPtr& t, py::args dims) { return ops::permute(t, shape_from_args(dims, "permute")); },
           "Reorders the dims (a view).")
      .def_property_readonly("T", [](const TensorPtr& t) {
        DimList dims(t->ndim());
        for (int64_t i = 0; i < t->ndim(); ++i) dims[i] = t->ndim() - 1 - i;
        return ops::permute(t, dims);
      }, "All dims reversed (the transpose of a matrix).")
      .def_property_readonly("mT", [](const TensorPtr& t) {
        AK_CHECK(t->ndim() >= 2, ValueError, "tensor.mT is only supported on tensors with at least 2 dims, got shape ",
                 shape_str(t->shape));
        return ops::transpose(t, -2, -1);
      }, "The last two dims swapped.")
      .def("expand", [](const TensorPtr& t, py::args shape) { return ops::expand(t, shape_from_args(shape, "expand")); },
           "Broadcasts size-1 dims to larger sizes with stride 0 (a view).")
      .def("broadcast_to", [](const TensorPtr& t, py::object shape) { return ops::expand(t, to_shape(shape, "broadcast_to")); }, "Expands to `shape` following the broadcasting rules (a view with stride 0 where stretched).")
      .def("expand_as", [](const TensorPtr& t, const TensorPtr& o) { return ops::expand(t, o->shape); }, "Expands to `other`'s shape (a view).")
      .def("squeeze", [](const TensorPtr& t, py::object dim) { return ops::squeeze(t, to_dims(dim)); },
           py::arg("dim") = py::none(), "Removes size-1 dims (all, or the given ones).")
      .def("unsqueeze", &ops::unsqueeze, py::arg("dim"), "Inserts a size-1 dim.")
      .def("flatten", &ops::flatten, py::arg("start_dim") = 0, py::arg("end_dim") = -1, "Merges dims start_dim..end_dim into one (a view when the layout allows, else a copy).")
      .def("unflatten", [](const TensorPtr& t, int64_t dim, py::object sizes) {
        return ops::unflatten(t, dim, to_shape(sizes, "unflatten"));
      }, py::arg("dim"), py::arg("sizes"), "Splits dim into `sizes` (a view; one size may be -1).")
      .def("narrow", &ops::narrow, py::arg("dim"), py::arg("start"), py::arg("length"), "The `length` elements of dim starting at `start` (a view).")
      .def("select", &ops::select, py::arg("dim"), py::arg("index"), "The slice at `index` along dim, with that dim removed (a view).")
      .def("diagonal", &ops::diagonal, py::arg("offset") = 0, py::arg("dim1") = 0, py::arg("dim2") = 1, "The diagonal (shifted by offset) of the dims dim1 and dim2, as a new last dim (a view).")
      .def("as_strided", [](const TensorPtr& t, py::object size, py::object stride, std::optional<int64_t> offset) {
        return ops::as_strided(t, to_shape(size, "as_strided"), to_shape(stride, "as_strided"), offset);
      }, py::arg("size"), py::arg("stride"), py::arg("storage_offset") = py::none(), "A view with the given sizes, strides and storage offset, checked to stay inside the storage.")
      .def("split", [](const TensorPtr& t, py::object size, int64_t dim) {
        if (PyLong_Check(size.ptr())) return ops::split(t, size.cast<int64_t>(), dim);
        return ops::split_sizes(t, to_shape(size, "split"), dim);
      }, py::arg("split_size_or_sections"), py::arg("dim") = 0, "Views of consecutive pieces along dim: equal pieces of size split_size (the last may be smaller), or pieces of the listed sizes.")
      .def("chunk", &ops::chunk, py::arg("chunks"), py::arg("dim") = 0, "`chunks` views along dim of size ceil(n / chunks) (fewer if n is small), as in PyTorch.")
      .def("unbind", &ops::unbind, py::arg("dim") = 0, "The slices along dim as a tuple of views with that dim removed.")
      .def("contiguous", &ops::contiguous, "This tensor if already contiguous, else a row-major copy.")
      .def("clone", &ops::clone, "A copy with its own storage.")
      .def("copy_", [](const TensorPtr& t, const TensorPtr& src) { ops::copy_(t, src); return t; }, py::arg("src"), "Copies src (broadcast to self's shape, converted to self's dtype) into self; returns self.")
      .def("fill_", [](const TensorPtr& t, py::handle v) { ops::fill_(t, to_scalar(v, "fill_")); return t; }, "Sets every element to `value`; returns self.")
      .def("zero_", [](const TensorPtr& t) { ops::fill_(t, Scalar::from_int(0)); return t; }, "Sets every element to 0; returns self.")
      .def("__getitem__", &getitem, "Indexing: ints, slices, None and ... give views; int/bool tensors or lists give copies (advanced indexing).")
      .def("__setitem__", &setitem, "Index assignment: writes `value` (broadcast) into the indexed elements.");

  // ---- arithmetic ----
#define AK_BINARY(pyname, rpyname, iname, OP)                                                               \
  cls.def(pyname, [](const TensorPtr& a, py::handle b) { return binary_op(BinaryOp::OP, a, b, false); }, \
          py::is_operator());                                                                            \
  if (rpyname[0]) cls.def(rpyname, [](const TensorPtr& a, py::handle b) { return binary_op(BinaryOp::OP, a, b, true); }, \
                          py::is_operator());                                                            \
  if (iname[0]) cls.def(iname, [](const TensorPtr& a, py::handle b) { return inplace_op(BinaryOp::OP, a, b); });
  AK_BINARY("__add__", "__radd__", "__iadd__", Add)
  AK_BINARY("__sub__", "__rsub__", "__isub__", Sub)
  AK_BINARY("__mul__", "__rmul__", "__imul__", Mul)
  AK_BINARY("__truediv__", "__rtruediv__", "__itruediv__", Div)
  AK_BINARY("__floordiv__", "__rfloordiv__", "__ifloordiv__", FloorDiv)
  AK_BINARY("__mod__", "__rmod__", "__imod__", Mod)
  AK_BINARY("__pow__", "__rpow__", "__ipow__", Pow)
  AK_BINARY("__eq__", "", "", Eq)
  AK_BINARY("__ne__", "", "", Ne)
  AK_BINARY("__lt__", "", "", Lt)
  AK_BINARY("__le__", "", "", Le)
  AK_BINARY("__gt__", "", "", Gt)
  AK_BINARY("__ge__", "", "", Ge)
#undef AK_BINARY
  cls.attr("__hash__") = py::none();  // tensors compare elementwise, so they are unhashable (like numpy)
  // & | ^ ~ << >> (bitwise on integers, logical on bool) are bound in bind_math.cpp.
  cls.def("__neg__", [](const TensorPtr& t) { return ops::unary(UnaryOp::Neg, t); }, "Elementwise negation.")
      .def("__pos__", [](const TensorPtr& t) { return t; }, "The tensor itself.")
      .def("__abs__", [](const TensorPtr& t) { return ops::unary(UnaryOp::Abs, t); }, "Elementwise absolute value.")
      .def("__matmul__", &ops::matmul, py::is_operator(), "Matrix product (see matmul).")
      .def("__rmatmul__", [](const TensorPtr& a, const TensorPtr& b) { return ops::matmul(b, a); }, py::is_operator(), "Matrix product with the operands swapped.")
      .def("matmul", &ops::matmul, py::arg("other"), "Matrix product: 1-D operands are vectors, more dims are batches that broadcast.")
      .def("mm", &ops::mm, py::arg("mat2"), "Product of two matrices.")
      .def("bmm", &ops::bmm, py::arg("mat2"), "Batched product of two 3-D tensors (batch, n, m) @ (batch, m, p).");

#define AK_NAMED_BINARY(name, OP)                                                                   \
  cls.def(name, [](const TensorPtr& a, py::handle b) { return binary_any(BinaryOp::OP, a, b, name); }, \
          py::arg("other"), "Elementwise " name " with broadcasting and type promotion; other may be a tensor or a number."); \
  cls.def(name "_", [](const TensorPtr& a, py::handle b) { return inplace_op(BinaryOp::OP, a, b); }, py::arg("other"), \
          "In-place " name ": the result must keep self's shape and dtype; returns self.");
#define AK_ALPHA_BINARY(name, OP, SYM)                                                                  \
  cls.def(name, [](const TensorPtr& a, py::handle b, py::handle alpha) {                               \
    return ops::binary_alpha(BinaryOp::OP, a, alpha_operand(b, a, name), to_scalar(alpha, name "(): alpha")); \
  }, py::arg("other"), py::kw_only(), py::arg("alpha") = 1,                                            \
  "Elementwise self " SYM " alpha * other, with broadcasting and type promotion; other may be a tensor or a number."); \
  cls.def(name "_", [](const TensorPtr& a, py::handle b, py::handle alpha) {                           \
    ops::binary_alpha_(BinaryOp::OP, a, alpha_operand(b, a, name "_"), to_scalar(alpha, name "_(): alpha")); \
    return a;                                                                                          \
  }, py::arg("other"), py::kw_only(), py::arg("alpha") = 1,                                            \
  "In-place self " SYM " alpha * other: the result must keep self's shape and dtype; returns self. Outside the autograd graph, on the CPU, one fused pass.");
  AK_ALPHA_BINARY("add", Add, "+")
  AK_ALPHA_BINARY("sub", Sub, "-")
#undef AK_ALPHA_BINARY
  // lerp's end must be a tensor (as in torch); its weight a number or a tensor.
  const auto lerp_args = [](py::handle end, py::handle weight, const char* name) {
    if (!py::isinstance<Tensor>(end))
      throw TypeError(std::string(name) + ": end must be a Tensor, got " +
                      std::string(py::str(end.get_type().attr("__name__"))));
    TensorPtr w = py::isinstance<Tensor>(weight) ? weight.cast<TensorPtr>() : nullptr;
    const double wv = w ? 0.0 : to_scalar(weight, (std::string(name) + ": weight").c_str()).to_double();
    return std::make_tuple(end.cast<TensorPtr>(), w, wv);
  };
  cls.def("lerp", [lerp_args](const TensorPtr& a, py::handle end, py::handle weight) {
    auto [e, w, wv] = lerp_args(end, weight, "lerp()");
    return ops::lerp(a, e, w, wv);
  }, py::arg("end"), py::arg("weight"),
  "Linear interpolation self + weight * (end - self), with broadcasting; end (and a tensor weight) must have "
  "self's floating dtype, weight may be a number or a tensor.");
  cls.def("lerp_", [lerp_args](const TensorPtr& a, py::handle end, py::handle weight) {
    auto [e, w, wv] = lerp_args(end, weight, "lerp_()");
    ops::lerp_(a, e, w, wv);
    return a;
  }, py::arg("end"), py::arg("weight"),
  "In-place self + weight * (end - self): the result must keep self's shape; returns self. With a number "
  "as weight, outside the autograd graph, on the CPU, one fused pass (an exponential moving average).");
  AK_NAMED_BINARY("mul", Mul)
  // div (with rounding_mode) is bound in bind_math.cpp.
  AK_NAMED_BINARY("floor_divide", FloorDiv)
  AK_NAMED_BINARY("remainder", Mod)
  AK_NAMED_BINARY("pow", Pow)
  AK_NAMED_BINARY("maximum", Maximum)
  AK_NAMED_BINARY("minimum", Minimum)
  AK_NAMED_BINARY("eq", Eq)
  AK_NAMED_BINARY("ne", Ne)
  AK_NAMED_BINARY("lt", Lt)
  AK_NAMED_BINARY("le", Le)
  AK_NAMED_BINARY("gt", Gt)
  AK_NAMED_BINARY("ge", Ge)
  AK_NAMED_BINARY("logical_and", LogicalAnd)
  AK_NAMED_BINARY("logical_or", LogicalOr)
  AK_NAMED_BINARY("logical_xor", LogicalXor)
#undef AK_NAMED_BINARY

#define AK_UNARY(name, OP)                                                                  \
  cls.def(name, [](const TensorPtr& t) { return ops::unary(UnaryOp::OP, t); }, "Elementwise " name ".");  \
  cls.def(name "_", [](const TensorPtr& t) { ops::unary_(UnaryOp::OP, t); return t; }, "In-place " name "; returns self.");
  AK_UNARY("neg", Neg) AK_UNARY("abs", Abs) AK_UNARY("sign", Sign) AK_UNARY("exp", Exp) AK_UNARY("log", Log)
  AK_UNARY("log1p", Log1p) AK_UNARY("expm1", Expm1) AK_UNARY("sqrt", Sqrt) AK_UNARY("rsqrt", Rsqrt)
  AK_UNARY("sin", Sin) AK_UNARY("cos", Cos) AK_UNARY("tanh", Tanh) AK_UNARY("sigmoid", Sigmoid)
  AK_UNARY("relu", Relu) AK_UNARY("silu", Silu) AK_UNARY("floor", Floor) AK_UNARY("ceil", Ceil)
  AK_UNARY("round", Round) AK_UNARY("reciprocal", Reciprocal) AK_UNARY("square", Square)
  AK_UNARY("logical_not", LogicalNot)
#undef AK_UNARY
  cls.def("clamp", &clamp_any, py::arg("min") = py::none(), py::arg("max") = py::none(), "Limits every element to [min, max] (either may be None; tensors broadcast).")
      .def("clip", &clamp_any, py::arg("min") = py::none(), py::arg("max") = py::none(), "Alias of clamp.")
      .def("clamp_", [](const TensorPtr& t, py::handle lo, py::handle hi) {
        AK_CHECK(!lo.is_none() || !hi.is_none(), ValueError, "clamp_: at least one of min and max must be given");
        ops::unary_(UnaryOp::Clamp, t, clamp_params(lo, hi));
        return t;
      }, py::arg("min") = py::none(), py::arg("max") = py::none(), "In-place clamp.")
      .def("gelu", [](const TensorPtr& t, const std::string& approximate) {
        AK_CHECK(approximate == "none" || approximate == "tanh", ValueError,
                 "gelu: approximate must be 'none' or 'tanh', got '", approximate, "'");
        return ops::unary(approximate == "tanh" ? UnaryOp::GeluTanh : UnaryOp::Gelu, t);
      }, py::arg("approximate") = "none",
         "GELU, x * Phi(x) with Phi the normal CDF (or its tanh approximation with approximate='tanh').")
      .def("softplus", [](const TensorPtr& t, double beta, double threshold) {
        UnaryParams p;
        p.a = beta;
        p.b = threshold;
        p.has_a = p.has_b = true;
        return ops::unary(UnaryOp::Softplus, t, p);
      }, py::arg("beta") = 1.0, py::arg("threshold") = 20.0,
         "log(1 + exp(beta * x)) / beta, computed stably; x itself where beta * x > threshold.");

  // ---- reductions ----
  cls.def("sum", [](const TensorPtr& t, py::object dim, bool keepdim, py::object dtype) {
        return ops::sum(t, to_dims(dim), keepdim, to_optional_dtype(dtype));
      }, py::arg("dim") = py::none(), py::arg("keepdim") = false, py::arg("dtype") = py::none(), "Sum over dim (an int, a tuple, or None for all), keepdim keeps reduced dims as size 1; ints sum in int64.")
      .def("mean", [](const TensorPtr& t, py::object dim, bool keepdim) { return ops::mean(t, to_dims(dim), keepdim); },
           py::arg("dim") = py::none(), py::arg("keepdim") = false, "Mean over dim (None for all); floating-point tensors only.")
      .def("prod", [](const TensorPtr& t, py::object dim, bool keepdim) {
        return ops::reduce(ReduceOp::Prod, t, to_dims(dim), keepdim);
      }, py::arg("dim") = py::none(), py::arg("keepdim") = false, "Product over dim (None for all); ints multiply in int64.")
      .def("all", [](const TensorPtr& t, py::object dim, bool keepdim) {
        return ops::reduce(ReduceOp::All, t, to_dims(dim), keepdim);
      }, py::arg("dim") = py::none(), py::arg("keepdim") = false, "Whether every element is nonzero, over dim (None for all).")
      .def("any", [](const TensorPtr& t, py::object dim, bool keepdim) {
        return ops::reduce(ReduceOp::Any, t, to_dims(dim), keepdim);
      }, py::arg("dim") = py::none(), py::arg("keepdim") = false, "Whether some element is nonzero, over dim (None for all).")
      .def("amax", [](const TensorPtr& t, py::object dim, bool keepdim) {
        return ops::reduce(ReduceOp::Max, t, to_dims(dim), keepdim);
      }, py::arg("dim") = py::none(), py::arg("keepdim") = false, "Largest value over dim (None for all); NaN propagates.")
      .def("amin", [](const TensorPtr& t, py::object dim, bool keepdim) {
        return ops::reduce(ReduceOp::Min, t, to_dims(dim), keepdim);
      }, py::arg("dim") = py::none(), py::arg("keepdim") = false, "Smallest value over dim (None for all); NaN propagates.")
      .def("_max_dim", [](const TensorPtr& t, int64_t dim, bool keepdim) { return ops::max_dim(t, dim, keepdim, true); }, "(values, indices) of the maximum along one dim.")
      .def("_min_dim", [](const TensorPtr& t, int64_t dim, bool keepdim) { return ops::max_dim(t, dim, keepdim, false); }, "(values, indices) of the minimum along one dim.")
      .def("argmax", [](const TensorPtr& t, py::object dim, bool keepdim) {
        return ops::argmax(t, to_dim(dim, "argmax"), keepdim, true);
      }, py::arg("dim") = py::none(), py::arg("keepdim") = false, "Index of the largest value (over the flattened tensor, or along dim); the first one on ties.")
      .def("argmin", [](const TensorPtr& t, py::object dim, bool keepdim) {
        return ops::argmax(t, to_dim(dim, "argmin"), keepdim, false);
      }, py::arg("dim") = py::none(), py::arg("keepdim") = false, "Index of the smallest value (over the flattened tensor, or along dim); the first one on ties.")
      .def("var", [](const TensorPtr& t, py::object dim, py::object unbiased, bool keepdim, py::object correction) {
        // x.var(True) is PyTorch's var(unbiased=True), not dim=1.
        if (PyBool_Check(dim.ptr())) return ops::var(t, std::nullopt, dim.ptr() == Py_True ? 1.0 : 0.0, keepdim);
        return ops::var(t, to_dims(dim), variance_correction(unbiased, correction, "var"), keepdim);
      }, py::arg("dim") = py::none(), py::arg("unbiased") = py::none(), py::arg("keepdim") = false, py::kw_only(),
         py::arg("correction") = py::none(),
         "Variance over dim with `correction` (default 1, Bessel's; unbiased=False is correction 0) subtracted from the count; two-pass, stable.")
      .def("std", [](const TensorPtr& t, py::object dim, py::object unbiased, bool keepdim, py::object correction) {
        if (PyBool_Check(dim.ptr())) return ops::std_dev(t, std::nullopt, dim.ptr() == Py_True ? 1.0 : 0.0, keepdim);
        return ops::std_dev(t, to_dims(dim), variance_correction(unbiased, correction, "std"), keepdim);
      }, py::arg("dim") = py::none(), py::arg("unbiased") = py::none(), py::arg("keepdim") = false, py::kw_only(),
         py::arg("correction") = py::none(),
         "Standard deviation: sqrt of var (same arguments); its gradient is 0 where the deviation is 0.")
      .def("logsumexp", [](const TensorPtr& t, py::object dim, bool keepdim) {
        // dim is required, as in torch (None is a TypeError there, not "every dim").
        const auto dims = to_dims(dim);
        if (!dims) throw TypeError("logsumexp(): argument 'dim' must be tuple of ints, not NoneType");
        return ops::logsumexp(t, *dims, keepdim);
      }, py::arg("dim"), py::arg("keepdim") = false, "log(sum(exp(x))) over dim, computed stably by shifting by the maximum.")
      .def("softmax", [](const TensorPtr& t, int64_t dim) { return ops::softmax(t, dim, false); }, py::arg("dim"), "exp(x) / sum(exp(x)) along dim, computed stably (max subtracted first).")
      .def("log_softmax", [](const TensorPtr& t, int64_t dim) { return ops::softmax(t, dim, true); }, py::arg("dim"), "log(softmax(x)) along dim, computed stably.")
      .def("cumsum", [](const TensorPtr& t, int64_t dim, py::object dtype) {
        // dtype=: the input converted first, the result in that dtype (an int32 result wraps at 32 bits,
        // which the int64 running sum's low bits are), as in PyTorch.
        const auto dt = to_optional_dtype(dtype);
        TensorPtr out = ops::cumsum(dt ? ops::to_dtype(t, *dt) : t, dim);
        return dt && out->dtype != *dt ? ops::to_dtype(out, *dt) : out;
      }, py::arg("dim"), py::kw_only(), py::arg("dtype") = py::none(),
      "Cumulative sum along dim; ints accumulate in int64 (dtype=: converted first, the result in that dtype).");

  // ---- indexing ----
  cls.def("index_select", &ops::index_select, py::arg("dim"), py::arg("index"), "The entries at `index` (1-D int64, no negatives) along dim, as a copy.")
      .def("gather", &ops::gather, py::arg("dim"), py::arg("index"), "out[i][j] = self[index[i][j]][j] (for dim 0; likewise for other dims): picks along dim.")
      .def("scatter", [](const TensorPtr& t, int64_t dim, const TensorPtr& index, py::handle src) {
        return ops::scatter(t, dim, index, scatter_src(t, index, src, "scatter"), false);
      }, py::arg("dim"), py::arg("index"), py::arg("src"), "A copy of self with src written at `index` along dim (src may be a number).")
      .def("scatter_", [](const TensorPtr& t, int64_t dim, const TensorPtr& index, py::handle src) {
        ops::scatter_(t, dim, index, scatter_src(t, index, src, "scatter_"), false);
        return t;
      }, py::arg("dim"), py::arg("index"), py::arg("src"), "Writes src into self at `index` along dim; returns self.")
      .def("scatter_add", [](const TensorPtr& t, int64_t dim, const TensorPtr& index, const TensorPtr& src) {
        return ops::scatter(t, dim, index, same_dtype_src(t, src, "scatter_add"), true);
      }, py::arg("dim"), py::arg("index"), py::arg("src"), "A copy of self with src added at `index` along dim (repeated indices accumulate).")
      .def("scatter_add_", [](const TensorPtr& t, int64_t dim, const TensorPtr& index, const TensorPtr& src) {
        ops::scatter_(t, dim, index, same_dtype_src(t, src, "scatter_add_"), true);
        return t;
      }, py::arg("dim"), py::arg("index"), py::arg("src"), "Adds src into self at `index` along dim (repeated indices accumulate); returns self.")
      .def("masked_fill", [](const TensorPtr& t, const TensorPtr& mask, py::handle v) {
        return ops::masked_fill(t, mask, to_scalar(v, "masked_fill"));
      }, py::arg("mask"), py::arg("value"), "A copy with `value` where mask (bool, broadcast to self) is True.")
      .def("masked_fill_", [](const TensorPtr& t, const TensorPtr& mask, py::handle v) {
        ops::copy_(t, ops::masked_fill(t, mask, to_scalar(v, "masked_fill_")));
        return t;
      }, py::arg("mask"), py::arg("value"), "Writes `value` where mask (bool, broadcast to self) is True; returns self.")
      .def("index_put_", [](const TensorPtr& t, std::vector<TensorPtr> indices, const TensorPtr& values, bool acc) {
        ops::index_put_(t, indices, values, acc);
        return t;
      }, py::arg("indices"), py::arg("values"), py::arg("accumulate") = false, "self[indices] = values (or += with accumulate=True, summing repeated indices); returns self.")
      .def("nonzero", &ops::nonzero, "The indices of the nonzero elements, as an (n, ndim) int64 tensor.");

  // ---- conversion ----
  cls.def("_to_dtype", [](const TensorPtr& t, DType d, bool copy) { return ops::to_dtype(t, d, copy); },
          py::arg("dtype"), py::arg("copy") = false, "A copy converted to dtype (self if it already has it, unless copy=True).")
      .def("_bitcast", [](const TensorPtr& t, DType d) {
        // The same bytes read as another dtype: torch's t.view(dtype), with its conditions. Between
        // item sizes the last dim (stride 1) grows or shrinks by their ratio; aakaar.save stores
        // bfloat16 through int16, which numpy has.
        const int64_t from = t->element_size(), to = itemsize(d);
        if (from == to) return std::make_shared<Tensor>(t->storage, t->offset, t->shape, t->strides, d);
        const std::string what = str(" to view ", dtype_name(t->dtype), " as ", dtype_name(d), " (different element sizes)");
        const int64_t nd = t->ndim();
        AK_CHECK(nd > 0, RuntimeError, "self.dim() cannot be 0", what);
        AK_CHECK(t->strides[nd - 1] == 1, RuntimeError, "self.stride(-1) must be 1", what, ", but got ", t->strides[nd - 1]);
        Shape shape = t->shape, strides = t->strides;
        int64_t offset = t->offset;
        if (from > to) {  // more, smaller items: the last dim grows
          const int64_t r = from / to;
          for (int64_t i = 0; i < nd - 1; ++i) strides[i] *= r;
          shape[nd - 1] *= r;
          offset *= r;
        } else {  // fewer, larger items: the last dim, the offset and every other stride must divide
          const int64_t r = to / from;
          AK_CHECK(shape[nd - 1] % r == 0, RuntimeError, "self.size(-1) must be divisible by ", r, what, ", but got ",
                   shape[nd - 1]);
          AK_CHECK(offset % r == 0, RuntimeError, "self.storage_offset() must be divisible by ", r, what, ", but got ",
                   offset);
          for (int64_t i = 0; i < nd - 1; ++i) {
            AK_CHECK(strides[i] % r == 0, RuntimeError, "self.stride(", i, ") must be divisible by ", r, what,
                     ", but got ", strides[i]);
            strides[i] /= r;
          }
          shape[nd - 1] /= r;
          offset /= r;
        }
        return std::make_shared<Tensor>(t->storage, offset, shape, strides, d);
      }, py::arg("dtype"), "This tensor's memory read as another dtype (shares storage; torch's view(dtype)).")
      .def("_to_device", [](const TensorPtr& t, py::object d) { return ops::to_device(t, to_device(d)); }, "The tensor on another device (self if already there).")
      .def("item", [](const TensorPtr& self) -> py::object {
        AK_CHECK(self->numel() == 1, ValueError, "a tensor with ", self->numel(), " elements (shape ",
                 shape_str(self->shape), ") cannot be converted to a Python scalar");
        // A device tensor's data pointer is not addressable from the host: read a CPU copy
        // of the one element (as torch does, this waits for the device).
        const TensorPtr host = self->device().type == DeviceType::CPU ? self : ops::to_device(self, Device{});
        const Tensor& t = *host;
        return AK_DISPATCH_STORAGE(t.dtype, "item", [&](auto tag) -> py::object {
          using T = decltype(tag);
          const T v = *reinterpret_cast<const T*>(t.data_ptr());
          if constexpr (std::is_same_v<T, bool>) return py::bool_(v);
          else if constexpr (std::is_integral_v<T>) return py::int_(static_cast<int64_t>(v));
          else return py::float_(static_cast<double>(static_cast<std::conditional_t<std::is_floating_point_v<T>, T, float>>(v)));
        });
      }, "The value of a one-element tensor as a Python number.");
}

}  // namespace aakaar::python
