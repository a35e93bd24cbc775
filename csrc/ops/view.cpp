// Views: new shape/strides/offset over the same storage, never a copy
// (except reshape/contiguous/clone, which copy only when they must).
#include <algorithm>

#include "autograd/derivatives.h"
#include "core/error.h"
#include "ops/ops.h"

namespace aakaar::ops {

namespace {
TensorPtr make_view(const TensorPtr& t, Shape shape, Shape strides, int64_t offset) {
  auto v = t->view_as_strided(std::move(shape), std::move(strides), offset);
  return v;
}

// narrow, split and chunk of a 0-d tensor: a RuntimeError in PyTorch (our ValueError is
// one), where ops that take a dim to wrap (unbind, unflatten) give an IndexError.
void check_has_dims_runtime(const TensorPtr& t, const char* op) {
  AK_CHECK(t->ndim() > 0, ValueError, op, "() cannot be applied to a 0-d tensor (it has no dims)");
}
}  // namespace

TensorPtr as_strided(const TensorPtr& t, const Shape& shape, const Shape& strides, std::optional<int64_t> offset) {
  AK_CHECK(shape.size() == strides.size(), ValueError, "as_strided: shape ", shape_str(shape), " and strides ",
           shape_str(strides), " must have the same length");
  const int64_t off = offset.value_or(t->offset);
  AK_CHECK(off >= 0, ValueError, "as_strided: negative storage offset ", off);
  int64_t lo = off, hi = off, step = 0;  // smallest and largest element index reached
  bool empty = false;
  for (size_t d = 0; d < shape.size(); ++d) {
    AK_CHECK(shape[d] >= 0, ValueError, "as_strided: negative size in shape ", shape_str(shape));
    AK_CHECK(strides[d] >= 0, ValueError, "as_strided: negative strides are not supported, got ", shape_str(strides));
    if (shape[d] == 0) empty = true;
    else
      AK_CHECK(!__builtin_mul_overflow(shape[d] - 1, strides[d], &step) && !__builtin_add_overflow(hi, step, &hi),
               RuntimeError, "as_strided: shape ", shape_str(shape), " with strides ", shape_str(strides),
               " reaches beyond any storage (int64 overflow)");
  }
  // More than 2^63 elements (stride-0 dims make it possible over a tiny
  // storage) would wrap numel() around; PyTorch refuses such a size too.
  checked_numel(shape);
  const int64_t capacity = static_cast<int64_t>(t->storage->nbytes()) / t->element_size();
  AK_CHECK(empty || hi < capacity, RuntimeError, "as_strided: shape ", shape_str(shape), " with strides ",
           shape_str(strides), " and offset ", off, " would read element ", hi, " of a storage of ", capacity,
           " elements");
  (void)lo;
  TensorPtr out = make_view(t, shape, strides, off);
  if (autograd::should_record({&t})) autograd::record_as_strided(out, t);
  return out;
}

Shape infer_shape(Shape shape, int64_t numel) {
  int64_t known = 1, infer = -1;
  for (size_t d = 0; d < shape.size(); ++d) {
    if (shape[d] == -1) {
      AK_CHECK(infer < 0, ValueError, "only one dimension can be inferred (-1) in shape ", shape_str(shape));
      infer = static_cast<int64_t>(d);
    } else {
      AK_CHECK(shape[d] >= 0, ValueError, "invalid shape ", shape_str(shape), ": negative dimension");
      AK_CHECK(!__builtin_mul_overflow(known, shape[d], &known), ValueError, "shape ", shape_str(shape),
               " has too many elements (more than 2^63)");
    }
  }
  if (infer >= 0) {
    AK_CHECK(known != 0 && numel % known == 0, ValueError, "shape ", shape_str(shape),
             " is invalid for input of size ", numel);
    shape[infer] = numel / known;
  }
  AK_CHECK(checked_numel(shape) == numel, ValueError, "shape ", shape_str(shape), " is invalid for input of size ",
           numel);
  return shape;
}

// [[book:view_strides]]
// Can memory laid out as (old_shape, old_strides) be read as new_shape without
// copying? Walk both shapes from the right in "chunks": runs of old dims that
// are contiguous with each other. Each chunk must be re-split exactly by a run
// of new dims; inside a chunk the new strides are multiples of the chunk's
// innermost stride. (This is PyTorch's rule.)
std::optional<Shape> view_strides(const Shape& old_shape_in, const Shape& old_strides_in, const Shape& new_shape) {
  Shape old_shape = old_shape_in, old_strides = old_strides_in;
  if (old_shape.empty()) { old_shape = {1}; old_strides = {1}; }
  Shape new_strides(new_shape.size());
  if (shape_numel(old_shape) == 0) return contiguous_strides(new_shape);
  int64_t view_d = static_cast<int64_t>(new_shape.size()) - 1;
  int64_t chunk_base_stride = old_strides.back();
  int64_t tensor_numel = 1, view_numel = 1;
  for (int64_t tensor_d = static_cast<int64_t>(old_shape.size()) - 1; tensor_d >= 0; --tensor_d) {
    tensor_numel *= old_shape[tensor_d];
    // A chunk ends where the next dim to the left is not contiguous with it.
    if (tensor_d == 0 ||
        (old_shape[tensor_d - 1] != 1 && old_strides[tensor_d - 1] != tensor_numel * chunk_base_stride)) {
      while (view_d >= 0 && (view_numel < tensor_numel || new_shape[view_d] == 1)) {
        new_strides[view_d] = view_numel * chunk_base_stride;
        view_numel *= new_shape[view_d];
        --view_d;
      }
      if (view_numel != tensor_numel) return std::nullopt;
      if (tensor_d > 0) {
        chunk_base_stride = old_strides[tensor_d - 1];
        tensor_numel = 1;
        view_numel = 1;
      }
    }
  }
  if (view_d != -1) return std::nullopt;
  return new_strides;
}
// [[/book:view_strides]]

TensorPtr view(const TensorPtr& t, Shape shape) {
  shape = infer_shape(std::move(shape), t->numel());
  auto strides = view_strides(t->shape, t->strides, shape);
  AK_CHECK(strides.has_value(), ValueError, "view size ", shape_str(shape),
           " is not compatible with input tensor's size ", shape_str(t->shape), " and stride ", shape_str(t->strides),
           " (at least one dimension spans across two contiguous subspaces). Use .reshape(...) instead, "
           "or call .contiguous() first.");
  TensorPtr out = make_view(t, shape, *strides, t->offset);
  if (autograd::should_record({&t}))
    autograd::record_view_with("ViewBackward", out, t, [in_shape = t->shape](const TensorPtr& g) { return reshape(g, in_shape); });
  return out;
}

TensorPtr reshape(const TensorPtr& t, Shape shape) {
  shape = infer_shape(std::move(shape), t->numel());
  if (view_strides(t->shape, t->strides, shape)) return view(t, shape);
  return view(contiguous(t), shape);
}

// [[book:transpose]]
// Transposing swaps two entries of shape and of strides; the data stays put.
TensorPtr transpose(const TensorPtr& t, int64_t d0, int64_t d1) {
  d0 = t->wrap_dim(d0);
  d1 = t->wrap_dim(d1);
  Shape shape = t->shape, strides = t->strides;
  if (t->ndim() > 0) {
    std::swap(shape[d0], shape[d1]);
    std::swap(strides[d0], strides[d1]);
  }
  TensorPtr out = make_view(t, shape, strides, t->offset);
  if (autograd::should_record({&t}))
    autograd::record_view_with("TransposeBackward", out, t, [d0, d1](const TensorPtr& g) { return transpose(g, d0, d1); });
  return out;
}
// [[/book:transpose]]

TensorPtr permute(const TensorPtr& t, DimList dims) {
  const int64_t nd = t->ndim();
  AK_CHECK(static_cast<int64_t>(dims.size()) == nd, ValueError, "permute: expected ", nd, " dims for a tensor of shape ",
           shape_str(t->shape), ", got ", shape_str(dims));
  std::vector<bool> seen(nd, false);
  Shape shape(nd), strides(nd);
  for (int64_t i = 0; i < nd; ++i) {
    const int64_t d = t->wrap_dim(dims[i]);
    AK_CHECK(!seen[d], ValueError, "permute: dim ", d, " appears more than once in ", shape_str(dims));
    seen[d] = true;
    shape[i] = t->shape[d];
    strides[i] = t->strides[d];
  }
  TensorPtr out = make_view(t, shape, strides, t->offset);
  if (autograd::should_record({&t})) {
    DimList inverse(nd);
    for (int64_t i = 0; i < nd; ++i) inverse[t->wrap_dim(dims[i])] = i;
    autograd::record_view_with("PermuteBackward", out, t, [inverse](const TensorPtr& g) { return permute(g, inverse); });
  }
  return out;
}

// [[book:expand]]
// Expanding a size-1 dim to n gives it stride 0: all n positions read the same
// element. A new leading dim of size n > 1 gets stride 0 too; one of size 1
// gets the stride a row-major layout would give it (PyTorch's choice: it is
// never stepped along, so any stride is correct). No memory is allocated.
TensorPtr expand(const TensorPtr& t, const Shape& shape) {
  const int64_t nd = static_cast<int64_t>(shape.size()), old = t->ndim();
  AK_CHECK(nd >= old, ValueError, "expand: the target shape ", shape_str(shape), " has fewer dims than the tensor's ",
           shape_str(t->shape));
  Shape out_shape(nd), strides(nd);
  for (int64_t i = nd - 1; i >= 0; --i) {
    const int64_t j = i - (nd - old);  // matching dim of t, if any
    int64_t size = shape[i];
    if (j >= 0) {
      if (size == -1) size = t->shape[j];
      AK_CHECK(size >= 0, ValueError, "expand: invalid size ", shape[i], " in ", shape_str(shape));
      AK_CHECK(t->shape[j] == size || t->shape[j] == 1, ValueError, "expand: the tensor of shape ", shape_str(t->shape),
               " cannot be expanded to ", shape_str(shape), " (dim ", i, ": ", t->shape[j],
               " is not 1 and differs from ", size, ")");
      strides[i] = t->shape[j] == size ? t->strides[j] : 0;
    } else {
      AK_CHECK(size >= 0, ValueError, "expand: -1 is not allowed for a new leading dim in ", shape_str(shape));
      // A new dim that is not stretched gets the stride a contiguous layout
      // would give it (PyTorch's rule, so strides agree with torch).
      strides[i] = 0;
      if (size == 1 && i != nd - 1 && __builtin_mul_overflow(out_shape[i + 1], strides[i + 1], &strides[i]))
        strides[i] = 0;  // a size-1 dim is never stepped along: any stride is correct
    }
    out_shape[i] = size;
  }
  checked_numel(out_shape);
  if (out_shape == t->shape && strides == t->strides) return t;  // nothing to expand
  TensorPtr out = make_view(t, out_shape, strides, t->offset);
  if (autograd::should_record({&t}))
    autograd::record_view_with("ExpandBackward", out, t, [in_shape = t->shape](const TensorPtr& g) {
      return autograd::sum_to(g, in_shape);
    });
  return out;
}
// [[/book:expand]]

TensorPtr squeeze(const TensorPtr& t, std::optional<DimList> dims) {
  std::vector<bool> drop(t->ndim(), false);
  if (dims) {
    for (int64_t d : *dims) {
      d = t->wrap_dim(d);
      if (t->ndim() > 0 && t->shape[d] == 1) drop[d] = true;
    }
  } else {
    for (int64_t d = 0; d < t->ndim(); ++d) drop[d] = t->shape[d] == 1;
  }
  Shape shape, strides;
  for (int64_t d = 0; d < t->ndim(); ++d)
    if (!drop[d]) { shape.push_back(t->shape[d]); strides.push_back(t->strides[d]); }
  TensorPtr out = make_view(t, shape, strides, t->offset);
  if (autograd::should_record({&t}))
    autograd::record_view_with("SqueezeBackward", out, t, [in_shape = t->shape](const TensorPtr& g) { return reshape(g, in_shape); });
  return out;
}

TensorPtr unsqueeze(const TensorPtr& t, int64_t dim) {
  dim = wrap_dim(dim, t->ndim() + 1);
  Shape shape = t->shape, strides = t->strides;
  int64_t stride = 1;  // the new dim has size 1, so its stride is never used: avoid overflow, not precision
  if (dim < t->ndim() && __builtin_mul_overflow(t->strides[dim], t->shape[dim], &stride)) stride = 1;
  shape.insert(shape.begin() + dim, 1);
  strides.insert(strides.begin() + dim, stride);
  TensorPtr out = make_view(t, shape, strides, t->offset);
  if (autograd::should_record({&t}))
    autograd::record_view_with("UnsqueezeBackward", out, t, [in_shape = t->shape](const TensorPtr& g) { return reshape(g, in_shape); });
  return out;
}

TensorPtr flatten(const TensorPtr& t, int64_t start, int64_t end) {
  if (t->ndim() == 0) {
    t->wrap_dim(start);  // a 0-d tensor accepts only 0 and -1, as in PyTorch
    t->wrap_dim(end);
    return reshape(t, {1});
  }
  start = t->wrap_dim(start);
  end = t->wrap_dim(end);
  AK_CHECK(start <= end, ValueError, "flatten: start_dim (", start, ") must not come after end_dim (", end, ")");
  Shape shape(t->shape.begin(), t->shape.begin() + start);
  int64_t n = 1;
  for (int64_t d = start; d <= end; ++d) n *= t->shape[d];
  shape.push_back(n);
  shape.insert(shape.end(), t->shape.begin() + end + 1, t->shape.end());
  return reshape(t, shape);
}

TensorPtr unflatten(const TensorPtr& t, int64_t dim, Shape sizes) {
  AK_CHECK(t->ndim() > 0, RuntimeError, "unflatten() cannot be applied to a 0-d tensor (it has no dims)");  // torch's class
  dim = t->wrap_dim(dim);
  sizes = infer_shape(sizes, t->shape[dim]);
  Shape shape(t->shape.begin(), t->shape.begin() + dim);
  shape.insert(shape.end(), sizes.begin(), sizes.end());
  shape.insert(shape.end(), t->shape.begin() + dim + 1, t->shape.end());
  return view(t, shape);
}

TensorPtr slice(const TensorPtr& t, int64_t dim, std::optional<int64_t> start, std::optional<int64_t> stop,
                int64_t step) {
  AK_CHECK(t->ndim() > 0, IndexError, "cannot slice a 0-d tensor");
  dim = t->wrap_dim(dim);
  AK_CHECK(step > 0, ValueError, "slice step must be positive, got ", step,
           " (negative steps are not supported; use .flip())");
  const int64_t size = t->shape[dim];
  // Python's clamping rules for out-of-range bounds.
  auto clamp = [size](int64_t v) {
    if (v < 0) v += size;
    return std::min(std::max<int64_t>(v, 0), size);
  };
  const int64_t b = start ? clamp(*start) : 0;
  const int64_t e = std::max(b, stop ? clamp(*stop) : size);
  Shape shape = t->shape, strides = t->strides;
  // ceil((e - b) / step) without forming e - b + step - 1, which overflows for a huge step.
  shape[dim] = e == b ? 0 : (e - b - 1) / step + 1;
  // stride x step: a dim of length <= 1 is never stepped along, so its stride
  // may stay as it is (x[:1:2**63-1] must not overflow); for longer ones the
  // product is below the storage size.
  if (__builtin_mul_overflow(t->strides[dim], step, &strides[dim])) {
    AK_CHECK(shape[dim] <= 1, IndexError, "slice: step ", step, " times stride ", t->strides[dim],
             " overflows int64");
    strides[dim] = t->strides[dim];
  }
  TensorPtr out = make_view(t, shape, strides, t->offset + b * t->strides[dim]);  // b <= size: inside the storage (or one past it)
  if (autograd::should_record({&t}))
    autograd::record_view("SliceBackward", out, t, [dim, b, e, step](const TensorPtr& x) { return slice(x, dim, b, e, step); });
  return out;
}

TensorPtr narrow(const TensorPtr& t, int64_t dim, int64_t start, int64_t length) {
  check_has_dims_runtime(t, "narrow");
  dim = t->wrap_dim(dim);
  const int64_t size = t->shape[dim];
  // PyTorch's classes: a start outside [-size, size] is an IndexError; a length that is negative
  // or runs past the end is a RuntimeError (our ValueError is one too).
  AK_CHECK(start >= -size && start <= size, IndexError, "narrow: start ", start, " is out of range (expected to be in range of [",
           -size, ", ", size, "]) for dim ", dim, " of size ", size);
  if (start < 0) start += size;
  AK_CHECK(length >= 0, ValueError, "narrow: length must be non-negative, got length ", length);
  // `length <= size - start`, not `start + length <= size`: the sum overflows for start near 2^63.
  AK_CHECK(length <= size - start, ValueError, "narrow: start ", start, " and length ", length,
           " run past the end of dim ", dim, " of size ", size);
  return slice(t, dim, start, start + length, 1);
}

TensorPtr select(const TensorPtr& t, int64_t dim, int64_t index) {
  AK_CHECK(t->ndim() > 0, IndexError, "invalid index of a 0-dim tensor");
  dim = t->wrap_dim(dim);
  const int64_t size = t->shape[dim];
  AK_CHECK(index >= -size && index < size, IndexError, "index ", index, " is out of bounds for dimension ", dim,
           " with size ", size);
  if (index < 0) index += size;
  Shape shape = t->shape, strides = t->strides;
  shape.erase(shape.begin() + dim);
  strides.erase(strides.begin() + dim);
  TensorPtr out = make_view(t, shape, strides, t->offset + index * t->strides[dim]);
  if (autograd::should_record({&t}))
    autograd::record_view("SelectBackward", out, t, [dim, index](const TensorPtr& x) { return select(x, dim, index); });
  return out;
}

TensorPtr diagonal(const TensorPtr& t, int64_t offset, int64_t d0, int64_t d1) {
  d0 = t->wrap_dim(d0);
  d1 = t->wrap_dim(d1);
  AK_CHECK(d0 != d1, ValueError, "diagonal: dims must differ, got ", d0, " and ", d1);
  int64_t off = t->offset, len;
  if (offset >= 0) {
    len = std::max<int64_t>(0, std::min(t->shape[d0], t->shape[d1] - offset));
    if (len > 0) off += offset * t->strides[d1];
  } else {
    len = std::max<int64_t>(0, std::min(t->shape[d0] + offset, t->shape[d1]));
    if (len > 0) off -= offset * t->strides[d0];
  }
  Shape shape, strides;
  for (int64_t d = 0; d < t->ndim(); ++d)
    if (d != d0 && d != d1) { shape.push_back(t->shape[d]); strides.push_back(t->strides[d]); }
  shape.push_back(len);
  strides.push_back(t->strides[d0] + t->strides[d1]);
  TensorPtr out = make_view(t, shape, strides, off);
  if (autograd::should_record({&t}))
    autograd::record_view("DiagonalBackward", out, t, [offset, d0, d1](const TensorPtr& x) { return diagonal(x, offset, d0, d1); });
  return out;
}

std::vector<TensorPtr> split(const TensorPtr& t, int64_t size, int64_t dim) {
  check_has_dims_runtime(t, "split");
  dim = t->wrap_dim(dim);
  AK_CHECK(size > 0 || t->shape[dim] == 0, ValueError, "split: split_size must be positive, got ", size);
  std::vector<TensorPtr> out;
  const int64_t n = t->shape[dim];
  if (n == 0) return {t};
  for (int64_t s = 0; s < n; s += size) out.push_back(narrow(t, dim, s, std::min(size, n - s)));
  return out;
}

std::vector<TensorPtr> split_sizes(const TensorPtr& t, const Shape& sizes, int64_t dim) {
  check_has_dims_runtime(t, "split");
  dim = t->wrap_dim(dim);
  int64_t total = 0;
  for (int64_t s : sizes) {
    AK_CHECK(s >= 0, ValueError, "split: sizes must be non-negative, got ", shape_str(sizes));
    AK_CHECK(!__builtin_add_overflow(total, s, &total), ValueError, "split: sizes ", shape_str(sizes),
             " sum to more than 2^63 but dim ", dim, " has size ", t->shape[dim]);
  }
  AK_CHECK(total == t->shape[dim], ValueError, "split: sizes ", shape_str(sizes), " sum to ", total,
           " but dim ", dim, " has size ", t->shape[dim]);
  std::vector<TensorPtr> out;
  int64_t start = 0;
  for (int64_t s : sizes) { out.push_back(narrow(t, dim, start, s)); start += s; }
  return out;
}

std::vector<TensorPtr> chunk(const TensorPtr& t, int64_t chunks, int64_t dim) {
  AK_CHECK(chunks > 0, ValueError, "chunk: number of chunks must be positive, got ", chunks);
  check_has_dims_runtime(t, "chunk");
  dim = t->wrap_dim(dim);
  // An empty dim still gives `chunks` (empty) pieces, as in PyTorch.
  if (t->shape[dim] == 0) return std::vector<TensorPtr>(chunks, narrow(t, dim, 0, 0));
  const int64_t size = (t->shape[dim] - 1) / chunks + 1;  // ceil(n / chunks); n + chunks - 1 could overflow
  return split(t, std::max<int64_t>(size, 1), dim);
}

std::vector<TensorPtr> unbind(const TensorPtr& t, int64_t dim) {
  check_has_dims(t, "unbind");
  dim = t->wrap_dim(dim);
  std::vector<TensorPtr> out;
  for (int64_t i = 0; i < t->shape[dim]; ++i) out.push_back(select(t, dim, i));
  return out;
}

TensorPtr contiguous(const TensorPtr& t) { return t->is_contiguous() ? t : clone(t); }

TensorPtr clone(const TensorPtr& t) {
  TensorPtr out = Tensor::empty(t->shape, t->dtype, t->device());
  backend(t->device()).copy(*out, *t);
  if (autograd::should_record({&t})) autograd::record_cast(out, t);
  return out;
}

TensorPtr to_dtype(const TensorPtr& t, DType dtype, bool copy) {
  if (t->dtype == dtype && !copy) return t;
  TensorPtr out = Tensor::empty(t->shape, dtype, t->device());
  backend(t->device()).copy(*out, *t);
  if (is_floating(dtype) && autograd::should_record({&t})) autograd::record_cast(out, t);
  return out;
}

TensorPtr to_device(const TensorPtr& t, Device device) {
  if (t->device() == device) return t;
  // Host <-> device: the backend of the non-CPU side moves the bytes (its `copy`
  // accepts one operand on the CPU, see csrc/cuda/copy.cu). backend() raises a
  // RuntimeError naming the device when it is not available.
  const Backend& accel = backend(device.type == DeviceType::CPU ? t->device() : device);
  TensorPtr out = Tensor::empty(t->shape, t->dtype, device);
  accel.copy(*out, *t);
  // The gradient goes back the way the data came.
  if (is_floating(t->dtype) && autograd::should_record({&t}))
    autograd::record("ToDeviceBackward", {t}, out, {}, [from = t->device()](const autograd::TensorList& g,
                                                                            const autograd::TensorList&,
                                                                            const autograd::Needs&) {
      return autograd::TensorList{to_device(g[0], from)};
    });
  return out;
}

void copy_(const TensorPtr& dst, const TensorPtr& src) {
  check_same_device(dst, src, "copy_");
  if (autograd::inplace_needs_history(dst, {&src}))
    return autograd::inplace_with_history(dst, "copy_", [&] { return to_dtype(expand(src, dst->shape), dst->dtype, true); });
  check_no_internal_overlap(dst, "copy_");  // PyTorch refuses it too: which write would win?
  TensorPtr s = expand(src, dst->shape);
  // If src overlaps dst in memory, copy through a temporary so no element is
  // read after it was overwritten.
  if (s->storage == dst->storage) s = clone(s);
  backend(dst->device()).copy(*dst, *s);
  dst->storage->bump_version();
}

void fill_(const TensorPtr& dst, Scalar value) {
  check_scalar_fits(value, dst->dtype, "fill_");
  if (autograd::inplace_needs_history(dst, {}))
    return autograd::inplace_with_history(dst, "fill_", [&] { return full(dst->shape, value, dst->dtype, dst->device()); });
  backend(dst->device()).fill(*dst, value);
  dst->storage->bump_version();
}

// 0-d tensors accept dim 0 and -1 (wrap_dim), but ops that index t->shape[dim]
// need a real dim: without this check they would read past an empty shape.
void check_has_dims(const TensorPtr& t, const char* op) {
  AK_CHECK(t->ndim() > 0, IndexError, op, "() cannot be applied to a 0-d tensor (it has no dims)");
}

bool has_internal_overlap(const Tensor& t) {
  bool stretched = false;
  for (int64_t d = 0; d < t.ndim(); ++d) {
    if (t.shape[d] == 0) return false;  // nothing is written
    if (t.shape[d] > 1 && t.strides[d] == 0) stretched = true;
  }
  return stretched;
}

void check_no_internal_overlap(const TensorPtr& t, const char* op) {
  AK_CHECK(!has_internal_overlap(*t), RuntimeError, op,
           ": unsupported operation: more than one element of the written-to tensor refers to a single memory "
           "location (it was expanded, shape ", shape_str(t->shape), ", strides ", shape_str(t->strides),
           "); call .clone() first");
}

bool may_overlap(const Tensor& a, const Tensor& b) {
  if (a.storage != b.storage || a.numel() == 0 || b.numel() == 0) return false;
  // Byte extents [first, last] of each view (strides are never negative here).
  auto extent = [](const Tensor& t) {
    int64_t hi = t.offset;
    for (int64_t d = 0; d < t.ndim(); ++d) hi += (t.shape[d] - 1) * t.strides[d];
    return std::make_pair(t.offset * t.element_size(), (hi + 1) * t.element_size() - 1);
  };
  const auto [a0, a1] = extent(a);
  const auto [b0, b1] = extent(b);
  return a0 <= b1 && b0 <= a1;
}

void check_same_device(const TensorPtr& a, const TensorPtr& b, const char* op) {
  AK_CHECK(a->device() == b->device(), RuntimeError, op, ": expected all tensors to be on the same device, but found ",
           a->device().str(), " and ", b->device().str());
}

}  // namespace aakaar::ops
