// Gathering and scattering: index_select, gather/scatter, advanced (tensor)
// indexing and index assignment, nonzero, cat and stack.
#include <cmath>
#include <cstring>
#include <functional>
#include <initializer_list>
#include <numeric>
#include <string>

#include "autograd/derivatives.h"
#include "autograd/derivatives_sort_scan.h"
#include "core/error.h"
#include "core/shape.h"
#include "ops/ops.h"

namespace aakaar::ops {
namespace {

// int64 or int32, as PyTorch 2 takes for index_select, gather, scatter and x[idx];
// checked_indices hands the kernels an int64 copy either way.
void check_index_dtype(const TensorPtr& index, const char* op) {
  AK_CHECK(index->dtype == DType::Int64 || index->dtype == DType::Int32, TypeError, op,
           ": index must be an int64 or int32 tensor, got ", dtype_name(index->dtype));
}

// Checks every index lies in [-size, size) (or [0, size) when negatives are
// not allowed) and returns a contiguous int64 copy with negatives wrapped, on the
// index's device. The check reads the values on the host: a device index is copied to
// the CPU first (on a GPU its data pointer is not addressable from host code) and the
// wrapped copy goes back to its device for the kernel.
// PyTorch raises IndexError for an index out of range in x[idx], index_select and the like, but
// RuntimeError in gather and the scatters (`runtime_error`); the message names the index and the size.
TensorPtr checked_indices(const TensorPtr& index, int64_t size, int64_t dim, bool allow_negative, const char* op,
                          bool runtime_error = false) {
  const Device device = index->device();
  const TensorPtr index64 = to_dtype(index, DType::Int64);  // int32 indices: widened here, once
  TensorPtr idx = device.type == DeviceType::CPU ? clone(contiguous(index64)) : contiguous(to_device(index64, Device{}));
  int64_t* p = idx->data<int64_t>();
  for (int64_t i = 0, n = idx->numel(); i < n; ++i) {
    const int64_t v = p[i];
    if (!(v < size && v >= (allow_negative ? -size : 0))) {
      const std::string msg = str(op, ": index ", v, " is out of bounds for dimension ", dim, " with size ", size);
      if (runtime_error) throw RuntimeError(msg);
      throw IndexError(msg);
    }
    if (v < 0) p[i] = v + size;
  }
  return device.type == DeviceType::CPU ? idx : to_device(idx, device);
}

// gather and the scatters see a 0-d self, index or src as its 1-element 1-d view (PyTorch's rule).
TensorPtr as_1d(const TensorPtr& t) { return t->ndim() == 0 ? reshape(t, {1}) : t; }
bool any_0d(std::initializer_list<const TensorPtr*> ts) {
  for (const TensorPtr* t : ts)
    if (*t && (*t)->ndim() == 0) return true;
  return false;
}

}  // namespace

TensorPtr index_select(const TensorPtr& t, int64_t dim, const TensorPtr& index) {
  check_index_dtype(index, "index_select");
  AK_CHECK(index->ndim() <= 1, IndexError, "index_select(): Index is supposed to be a vector, got shape ",
           shape_str(index->shape));
  dim = t->wrap_dim(dim);
  if (t->ndim() == 0) {  // PyTorch: a 0-d tensor gives a 0-d result, from exactly one index
    AK_CHECK(index->numel() == 1, RuntimeError, "index_select(): Index to scalar can have only 1 value, got ",
             index->numel(), " value(s)");
    return reshape(index_select(reshape(t, {1}), 0, reshape(index, {1})), {});
  }
  std::vector<TensorPtr> indices(std::max<int64_t>(t->ndim(), 1));
  // Unlike x[idx], index_select takes no negative indices (PyTorch's rule).
  indices[dim] = checked_indices(reshape(index, {-1}), t->ndim() ? t->shape[dim] : 1, dim, false, "index_select");
  TensorPtr out = ops::index(t->ndim() == 0 ? reshape(t, {1}) : t, indices);
  autograd::rename_node(out, "IndexBackward", "IndexSelectBackward");
  return out;
}

TensorPtr gather(const TensorPtr& t, int64_t dim, const TensorPtr& index) {
  check_index_dtype(index, "gather");
  check_same_device(t, index, "gather");
  dim = t->wrap_dim(dim);
  AK_CHECK(std::max<int64_t>(index->ndim(), 1) == std::max<int64_t>(t->ndim(), 1), ValueError,
           "gather: Index tensor must have the same number of dimensions as input tensor (index ",
           shape_str(index->shape), ", input ", shape_str(t->shape), ")");
  // A 0-d input or index is gathered through its 1-element view (the kernel needs a dim to step
  // along); the result has the index's shape.
  if (any_0d({&t, &index})) return reshape(gather(as_1d(t), dim, as_1d(index)), index->shape);
  for (int64_t d = 0; d < t->ndim(); ++d)
    AK_CHECK(d == dim || index->shape[d] <= t->shape[d], ValueError, "gather: index ", shape_str(index->shape),
             " is larger than the input ", shape_str(t->shape), " in dim ", d);
  TensorPtr idx = checked_indices(index, t->shape[dim], dim, false, "gather", true);
  TensorPtr out = Tensor::empty(index->shape, t->dtype, t->device());
  backend(t->device()).gather(*out, *t, dim, *idx);
  if (is_floating(t->dtype) && autograd::should_record({&t})) autograd::record_gather(out, t, dim, idx);
  return out;
}

namespace {
// Checks the arguments of scatter; returns the validated indices.
TensorPtr scatter_indices(const TensorPtr& t, int64_t& dim, const TensorPtr& index, const TensorPtr& src, bool add) {
  check_index_dtype(index, add ? "scatter_add" : "scatter");
  check_has_dims(t, add ? "scatter_add" : "scatter");  // 0-d operands were made 1-d by the callers
  dim = t->wrap_dim(dim);
  AK_CHECK(index->ndim() == t->ndim() && src->ndim() == t->ndim(), ValueError,
           "scatter: Index tensor must have the same number of dimensions as self tensor (index ",
           shape_str(index->shape), ", src ", shape_str(src->shape), ", self ", shape_str(t->shape), ")");
  for (int64_t d = 0; d < t->ndim(); ++d) {
    AK_CHECK(index->shape[d] <= src->shape[d], ValueError, "scatter: index ", shape_str(index->shape),
             " is larger than src ", shape_str(src->shape), " in dim ", d);
    AK_CHECK(d == dim || index->shape[d] <= t->shape[d], ValueError, "scatter: index ", shape_str(index->shape),
             " is larger than self ", shape_str(t->shape), " in dim ", d);
  }
  return checked_indices(index, t->shape[dim], dim, false, "scatter", true);
}
}  // namespace

void scatter_(const TensorPtr& t, int64_t dim, const TensorPtr& index, const TensorPtr& src, bool add) {
  check_no_internal_overlap(t, add ? "scatter_add_" : "scatter_");
  // A source that shares memory with the destination would be read while it
  // is written (the result then depends on the order of the writes); PyTorch
  // refuses it, and so do we, rather than pick a copy semantics silently.
  AK_CHECK(!may_overlap(*t, *src), RuntimeError, add ? "scatter_add_" : "scatter_",
           ": unsupported operation: some elements of the input tensor and the written-to tensor refer to a "
           "single memory location; pass src.clone()");
  if (autograd::inplace_needs_history(t, {&src}))
    return autograd::inplace_with_history(t, add ? "scatter_add_" : "scatter_",
                                          [&] { return scatter(t, dim, index, src, add); });
  if (any_0d({&t, &index, &src})) {
    autograd::GradModeGuard no_grad(false);  // views for the kernel only; nothing here is recorded
    const int64_t d = t->wrap_dim(dim);
    return scatter_(as_1d(t), d, as_1d(index), as_1d(src), add);
  }
  TensorPtr idx = scatter_indices(t, dim, index, src, add);
  backend(t->device()).scatter(*t, dim, *idx, *to_dtype(src, t->dtype), add);
  t->storage->bump_version();
}

TensorPtr scatter(const TensorPtr& t, int64_t dim, const TensorPtr& index, const TensorPtr& src, bool add) {
  if (any_0d({&t, &index, &src})) {
    const int64_t d = t->wrap_dim(dim);
    return reshape(scatter(as_1d(t), d, as_1d(index), as_1d(src), add), t->shape);
  }
  TensorPtr idx = scatter_indices(t, dim, index, src, add);
  TensorPtr s = to_dtype(src, t->dtype);
  TensorPtr out;
  {
    autograd::GradModeGuard no_grad(false);  // the copy is part of this op, not a recorded clone
    out = clone(t);
  }
  backend(t->device()).scatter(*out, dim, *idx, *s, add);
  if (is_floating(t->dtype) && autograd::should_record({&t, &s})) autograd::record_scatter(out, t, dim, idx, s, add);
  return out;
}

namespace {

// The plan shared by reading (index) and writing (index_put_) with tensor
// indices: for every position b of the broadcast index shape, the element
// offset it selects; for every position r of the remaining (not indexed)
// dims, the offset it adds.
struct AdvancedIndexPlan {
  Shape index_shape;                 // broadcast shape B of the index tensors
  Shape rest_shape;                  // the dims that are not indexed, in order
  std::vector<int64_t> base_offsets; // per b, in elements, including t->offset
  std::vector<int64_t> rest_offsets; // per r, in elements
  Shape result_shape;                // PyTorch's placement of B among the dims
  DimList to_result;                 // permutation from (B, rest) layout to result layout
};

// `before_bounds`, if given, sees the result's shape before any index value is
// checked against its dim (index_put_ checks the values' shape first, as PyTorch does).
AdvancedIndexPlan plan_advanced(const TensorPtr& t, const std::vector<TensorPtr>& indices,
                                const std::function<void(const Shape&)>& before_bounds = nullptr) {
  AK_CHECK(static_cast<int64_t>(indices.size()) <= t->ndim(), IndexError, "too many indices for tensor of dimension ",
           t->ndim());
  AdvancedIndexPlan plan;
  std::vector<int64_t> dims;
  std::vector<Shape> shapes;
  for (size_t d = 0; d < indices.size(); ++d)
    if (indices[d]) {
      check_index_dtype(indices[d], "index");
      dims.push_back(static_cast<int64_t>(d));
      shapes.push_back(indices[d]->shape);
    }
  AK_CHECK(!dims.empty(), IndexError, "index: expected at least one index tensor, got none");
  // Index tensors that do not broadcast together are an IndexError (PyTorch's and numpy's class),
  // not the ValueError of broadcasting operands.
  for (const Shape& s : shapes) {
    bool ok = true;
    for (size_t i = 0, n = std::max(s.size(), plan.index_shape.size()); i < n && ok; ++i) {
      const int64_t da = i < n - s.size() ? 1 : s[i - (n - s.size())];
      const int64_t db = i < n - plan.index_shape.size() ? 1 : plan.index_shape[i - (n - plan.index_shape.size())];
      ok = da == db || da == 1 || db == 1;
    }
    if (!ok) {
      std::string all;
      for (const Shape& t : shapes) all += (all.empty() ? "" : ", ") + shape_str(t);
      throw IndexError(str("shape mismatch: indexing tensors could not be broadcast together with shapes ", all));
    }
    plan.index_shape = broadcast_shapes(plan.index_shape, s);
  }
  Shape rest_strides;
  std::vector<int64_t> rest_dims;
  for (int64_t d = 0; d < t->ndim(); ++d)
    if (d >= static_cast<int64_t>(indices.size()) || !indices[d]) {
      rest_dims.push_back(d);
      plan.rest_shape.push_back(t->shape[d]);
      rest_strides.push_back(t->strides[d]);
    }
  // Offsets of the rest dims, row-major.
  const int64_t nr = shape_numel(plan.rest_shape);
  plan.rest_offsets.assign(nr, 0);
  for (int64_t r = 0; r < nr; ++r) {
    int64_t rem = r, off = 0;
    for (int64_t k = static_cast<int64_t>(plan.rest_shape.size()) - 1; k >= 0; --k) {
      off += (rem % plan.rest_shape[k]) * rest_strides[k];
      rem /= plan.rest_shape[k];
    }
    plan.rest_offsets[r] = off;
  }
  // Adjacent indexed dims keep their place; otherwise B goes first (PyTorch/numpy).
  const bool adjacent = dims.back() - dims.front() + 1 == static_cast<int64_t>(dims.size());
  const int64_t nbd = static_cast<int64_t>(plan.index_shape.size());
  const int64_t before = adjacent ? dims.front() : 0;  // rest dims that stay in front of B
  for (int64_t k = 0; k < before; ++k) plan.to_result.push_back(nbd + k);
  for (int64_t k = 0; k < nbd; ++k) plan.to_result.push_back(k);
  for (int64_t k = before; k < static_cast<int64_t>(rest_dims.size()); ++k) plan.to_result.push_back(nbd + k);
  Shape layout = plan.index_shape;
  layout.insert(layout.end(), plan.rest_shape.begin(), plan.rest_shape.end());
  for (int64_t k : plan.to_result) plan.result_shape.push_back(layout[k]);
  // Any index into a dim of size 0 is out of range; PyTorch says so before it looks at the values.
  for (int64_t d : dims)
    AK_CHECK(t->shape[d] != 0 || indices[d]->numel() == 0, IndexError, "index: index is out of bounds for dimension ", d,
             " with size 0");
  if (before_bounds) before_bounds(plan.result_shape);
  const int64_t nb = shape_numel(plan.index_shape);
  plan.base_offsets.assign(nb, t->offset);
  for (int64_t d : dims) {
    // Offsets are worked out on the host, so a device's indices are read from a host copy.
    TensorPtr idx = checked_indices(contiguous(to_device(expand(indices[d], plan.index_shape), Device{})),
                                    t->shape[d], d, true, "index");
    const int64_t* p = idx->data<int64_t>();
    for (int64_t b = 0; b < nb; ++b) plan.base_offsets[b] += p[b] * t->strides[d];
  }
  return plan;
}

// The element offsets the plan selects, in (B, rest) order, as an int64 tensor
// on `device`: with them advanced indexing is one backend gather (or scatter)
// over the storage seen as a flat vector.
TensorPtr flat_offsets(const AdvancedIndexPlan& plan, Device device) {
  const int64_t nb = static_cast<int64_t>(plan.base_offsets.size());
  const int64_t nr = static_cast<int64_t>(plan.rest_offsets.size());
  TensorPtr offsets = Tensor::empty({nb * nr}, DType::Int64);
  int64_t* o = offsets->data<int64_t>();
  for (int64_t b = 0; b < nb; ++b)
    for (int64_t r = 0; r < nr; ++r) o[b * nr + r] = plan.base_offsets[b] + plan.rest_offsets[r];
  return to_device(offsets, device);
}

// Every element of t's storage as one 1-d tensor, so that element offsets index it directly.
Tensor storage_as_flat(const TensorPtr& t) {
  const int64_t n = static_cast<int64_t>(t->storage->nbytes()) / t->element_size();
  return Tensor(t->storage, 0, {n}, {1}, t->dtype);
}

// A contiguous tensor seen as 1-d.
Tensor flat_view(const TensorPtr& t) { return Tensor(t->storage, t->offset, {t->numel()}, {1}, t->dtype); }

}  // namespace

namespace {
// x[..., idx, ...] with one index tensor: whole slices per index (the backend's
// index_select) instead of one offset per element. Null when another path must run.
TensorPtr index_along_one_dim(const TensorPtr& t, const std::vector<TensorPtr>& indices) {
  const Backend& be = backend(t->device());
  int64_t d = -1, count = 0;
  for (size_t k = 0; k < indices.size(); ++k)
    if (indices[k]) d = static_cast<int64_t>(k), ++count;
  if (count != 1 || !be.index_select || static_cast<int64_t>(indices.size()) > t->ndim()) return nullptr;
  const TensorPtr& ix = indices[d];
  check_index_dtype(ix, "index");
  TensorPtr flat = to_device(checked_indices(reshape(ix, {-1}), t->shape[d], d, true, "index"), t->device());
  Shape selected = t->shape;
  selected[d] = flat->numel();
  TensorPtr out = Tensor::empty(selected, t->dtype, t->device());
  if (out->numel() > 0) be.index_select(*out, *t, d, *flat);
  Shape result(t->shape.begin(), t->shape.begin() + d);
  result.insert(result.end(), ix->shape.begin(), ix->shape.end());
  result.insert(result.end(), t->shape.begin() + d + 1, t->shape.end());
  {
    autograd::GradModeGuard no_grad(false);  // a view of the fresh output; the op is recorded as a whole below
    out = reshape(out, result);
  }
  if (is_floating(t->dtype) && autograd::should_record({&t})) autograd::record_index(out, t, indices);
  return out;
}
}  // namespace

TensorPtr index(const TensorPtr& t, const std::vector<TensorPtr>& indices) {
  if (TensorPtr out = index_along_one_dim(t, indices)) return out;
  const AdvancedIndexPlan plan = plan_advanced(t, indices);
  Shape layout = plan.index_shape;
  layout.insert(layout.end(), plan.rest_shape.begin(), plan.rest_shape.end());
  TensorPtr out = Tensor::empty(layout, t->dtype, t->device());
  if (out->numel() > 0)
    backend(t->device()).gather(flat_view(out), storage_as_flat(t), 0, *flat_offsets(plan, t->device()));
  {
    autograd::GradModeGuard no_grad(false);  // layout only; the op is recorded as a whole below
    out = contiguous(permute(out, plan.to_result));
  }
  if (is_floating(t->dtype) && autograd::should_record({&t})) autograd::record_index(out, t, indices);
  return out;
}

TensorPtr index_put(const TensorPtr& t, const std::vector<TensorPtr>& indices, const TensorPtr& values, bool accumulate) {
  TensorPtr v = to_dtype(values, t->dtype);
  TensorPtr out;
  {
    autograd::GradModeGuard no_grad(false);
    out = clone(t);
    index_put_(out, indices, v, accumulate);
  }
  if (is_floating(t->dtype) && autograd::should_record({&t, &v})) autograd::record_index_put(out, t, indices, v, accumulate);
  return out;
}

void index_put_(const TensorPtr& t, const std::vector<TensorPtr>& indices, const TensorPtr& values, bool accumulate) {
  // PyTorch's rule: a tensor written through tensor indices has the destination's dtype (a basic
  // index, x[1:] = v, converts instead; a Python number is converted before it gets here).
  // The values must broadcast to the result's shape (checked before the index values, PyTorch's order).
  const auto check_values_shape = [&](const Shape& result) {
    bool ok = values->ndim() <= static_cast<int64_t>(result.size());
    for (int64_t k = 1; ok && k <= values->ndim(); ++k) {
      const int64_t sv = values->shape[values->ndim() - k], sr = result[result.size() - k];
      ok = sv == 1 || sv == sr;
    }
    AK_CHECK(ok, ValueError, "shape mismatch: value tensor of shape ", shape_str(values->shape),
             " cannot be broadcast to indexing result of shape ", shape_str(result));
  };
  if (values->dtype != t->dtype) {
    plan_advanced(t, indices, check_values_shape);  // the shape and the index values are reported first, as in PyTorch
    throw TypeError(str("Index put requires the source and destination dtypes match, got ", dtype_name(t->dtype),
                        " for the destination and ", dtype_name(values->dtype), " for the source"));
  }
  if (autograd::inplace_needs_history(t, {&values}))
    return autograd::inplace_with_history(t, "index_put_", [&] { return index_put(t, indices, values, accumulate); });
  const AdvancedIndexPlan plan = plan_advanced(t, indices, check_values_shape);
  check_no_internal_overlap(t, "index_put_");
  TensorPtr v = to_dtype(values, t->dtype);
  v = expand(v, plan.result_shape);
  // Bring the values into (B, rest) order, the inverse of to_result.
  DimList inverse(plan.to_result.size());
  for (size_t k = 0; k < plan.to_result.size(); ++k) inverse[plan.to_result[k]] = static_cast<int64_t>(k);
  v = contiguous(permute(v, inverse));
  if (v->storage == t->storage) v = clone(v);
  if (v->numel() > 0)
    backend(t->device()).scatter(storage_as_flat(t), 0, *flat_offsets(plan, t->device()), flat_view(v), accumulate);
  t->storage->bump_version();
}

TensorPtr nonzero(const TensorPtr& t) {
  // The result's size depends on the values, so they are counted on the host
  // (a device tensor is copied first, as PyTorch synchronises for it too).
  TensorPtr b = contiguous(to_dtype(to_device(t, Device{}), DType::Bool));
  const bool* p = b->data<bool>();
  const int64_t n = b->numel(), nd = t->ndim();
  int64_t count = 0;
  for (int64_t i = 0; i < n; ++i) count += p[i];
  TensorPtr out = Tensor::empty({count, nd}, DType::Int64);
  int64_t* o = out->data<int64_t>();
  for (int64_t i = 0, row = 0; i < n; ++i) {
    if (!p[i]) continue;
    int64_t rem = i;
    for (int64_t d = nd - 1; d >= 0; --d) {
      o[row * nd + d] = rem % t->shape[d];
      rem /= t->shape[d];
    }
    ++row;
  }
  return to_device(out, t->device());
}

TensorPtr cat(const std::vector<TensorPtr>& ts, int64_t dim) {
  AK_CHECK(!ts.empty(), ValueError, "cat: expected a non-empty list of tensors");
  // Legacy rule (PyTorch): 1-d empty tensors are skipped whatever their shape.
  std::vector<TensorPtr> parts;
  for (const auto& t : ts)
    if (!(t->ndim() == 1 && t->shape[0] == 0)) parts.push_back(t);
  // ... but their dtypes still join the result's (cat([int64 x, float64 empty]) is float64).
  DType dt = ts[0]->dtype;
  for (const auto& t : ts) dt = promote_types(dt, t->dtype);
  if (parts.empty()) return to_dtype(clone(ts[0]), dt);
  const TensorPtr& first = parts[0];
  AK_CHECK(first->ndim() > 0, ValueError, "cat: zero-dimensional tensor cannot be concatenated");
  dim = first->wrap_dim(dim);
  Shape shape = first->shape;
  shape[dim] = 0;
  for (size_t i = 0; i < parts.size(); ++i) {
    const TensorPtr& t = parts[i];
    check_same_device(first, t, "cat");
    AK_CHECK(t->ndim() == first->ndim(), ValueError, "cat: tensor ", i, " has ", t->ndim(), " dims but tensor 0 has ",
             first->ndim());
    for (int64_t d = 0; d < t->ndim(); ++d)
      AK_CHECK(d == dim || t->shape[d] == first->shape[d], ValueError, "cat: sizes of tensors must match except in dim ",
               dim, "; got ", shape_str(first->shape), " and ", shape_str(t->shape), " (tensor ", i, ")");
    shape[dim] += t->shape[dim];
    dt = promote_types(dt, t->dtype);
  }
  TensorPtr out = Tensor::empty(shape, dt, first->device());
  int64_t start = 0;
  for (const auto& t : parts) {
    TensorPtr dst = narrow(out, dim, start, t->shape[dim]);
    backend(out->device()).copy(*dst, *t);
    start += t->shape[dim];
  }
  if (is_floating(dt) && autograd::should_record(parts)) autograd::record_cat(out, parts, dim);
  return out;
}

TensorPtr stack(const std::vector<TensorPtr>& ts, int64_t dim) {
  AK_CHECK(!ts.empty(), ValueError, "stack: expected a non-empty list of tensors");
  dim = wrap_dim(dim, ts[0]->ndim() + 1);
  std::vector<TensorPtr> parts;
  for (size_t i = 0; i < ts.size(); ++i) {
    AK_CHECK(ts[i]->shape == ts[0]->shape, ValueError, "stack: expects each tensor to be equal size, but got ",
             shape_str(ts[0]->shape), " at entry 0 and ", shape_str(ts[i]->shape), " at entry ", i);
    parts.push_back(unsqueeze(ts[i], dim));
  }
  TensorPtr out = cat(parts, dim);
  autograd::rename_node(out, "CatBackward", "StackBackward");
  return out;
}

}  // namespace aakaar::ops

// ---- api-shape branch: scatter_reduce ----
namespace aakaar::ops {

TensorPtr scatter_reduce(const TensorPtr& t, int64_t dim, const TensorPtr& index, const TensorPtr& src,
                         const std::string& reduce, bool include_self) {
  ScatterReduceOp op;
  const bool mean = reduce == "mean";
  if (reduce == "sum" || mean) op = ScatterReduceOp::Sum;
  else if (reduce == "prod") op = ScatterReduceOp::Prod;
  else if (reduce == "amax") op = ScatterReduceOp::Amax;
  else if (reduce == "amin") op = ScatterReduceOp::Amin;
  else throw RuntimeError(str("reduce argument must be either sum, prod, mean, amax or amin, got ", reduce));
  AK_CHECK(src->dtype == t->dtype, RuntimeError, "scatter_reduce(): Expected self.dtype to be equal to src.dtype");
  check_same_device(t, index, "scatter_reduce");
  check_same_device(t, src, "scatter_reduce");
  if (any_0d({&t, &index, &src})) {
    const int64_t d = t->wrap_dim(dim);
    return reshape(scatter_reduce(as_1d(t), d, as_1d(index), as_1d(src), reduce, include_self), t->shape);
  }
  const Backend& b = backend_with(t->device(), backend(t->device()).scatter_reduce != nullptr, "scatter_reduce");
  TensorPtr idx = scatter_indices(t, dim, index, src, true);
  TensorPtr out;
  {
    autograd::GradModeGuard no_grad(false);  // the copies are part of this op, not recorded
    out = clone(t);
    if (!include_self) {  // the touched elements start from the identity, not from self
      Scalar id = Scalar::from_int(op == ScatterReduceOp::Prod ? 1 : 0);
      if (op == ScatterReduceOp::Amax || op == ScatterReduceOp::Amin) {
        const bool fl = is_floating(t->dtype);
        const bool mx = op == ScatterReduceOp::Amax;
        id = fl ? Scalar::from_double(mx ? -INFINITY : INFINITY)
                : (t->dtype == DType::Bool ? Scalar::from_bool(!mx)
                   : t->dtype == DType::UInt8 ? Scalar::from_int(mx ? 0 : 255)
                                              : Scalar::from_int(mx ? INT64_MIN : INT64_MAX));
      }
      b.scatter(*out, dim, *idx, *full(idx->shape, id, t->dtype, t->device()), false);
    }
    if (idx->numel() > 0) b.scatter_reduce(op, *out, dim, *idx, *src);
    if (mean) {
      TensorPtr count = full(t->shape, Scalar::from_int(include_self ? 1 : 0), t->dtype, t->device());
      b.scatter_reduce(ScatterReduceOp::Sum, *count, dim, *idx, *full(idx->shape, Scalar::from_int(1), t->dtype, t->device()));
      count = masked_fill(count, binary_scalar(BinaryOp::Eq, count, Scalar::from_int(0), false), Scalar::from_int(1));
      out = binary(is_floating(t->dtype) ? BinaryOp::Div : BinaryOp::FloorDiv, out, count);
    }
  }
  if (is_floating(t->dtype) && autograd::should_record({&t, &src}))
    autograd::record_scatter_reduce(out, t, dim, idx, src, reduce, include_self);
  return out;
}

}  // namespace aakaar::ops
