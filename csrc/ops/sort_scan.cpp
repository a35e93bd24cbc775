// Sorting and the scans beyond cumsum: sort (argsort, topk, kthvalue, median and unique build on
// it in Python), flip, cumprod, cummax / cummin and logcumsumexp, each along one dim.
#include "autograd/derivatives_sort_scan.h"
#include "core/error.h"
#include "core/shape.h"
#include "ops/ops.h"

namespace aakaar::ops {

const Backend& backend_with(Device device, bool has_entry, const char* op) {
  if (!has_entry)
    throw NotImplementedError(str(op, ": not implemented on device '", device.str(),
                                  "' (its backend has no kernel for it); move the tensor with .cpu() first"));
  return backend(device);
}

std::pair<TensorPtr, TensorPtr> topk(const TensorPtr& t, int64_t k, int64_t dim, bool largest) {
  dim = t->wrap_dim(dim);
  if (is_reduced_float(t->dtype)) {  // float32 holds every 16-bit value: the same order, the same indices
    auto [v, i] = topk(to_dtype(t, DType::Float32), k, dim, largest);
    return {to_dtype(v, t->dtype), i};
  }
  TensorPtr x = t->ndim() == 0 ? reshape(t, {1}) : t;
  const int64_t n = x->shape[dim];
  AK_CHECK(k >= 0 && k <= n, RuntimeError, "selected index k out of range (k = ", k, ", size of dim ", dim, " = ", n,
           ")");
  const Backend& b = backend_with(x->device(), backend(x->device()).sort != nullptr, k == n ? "sort" : "topk");
  Shape shape = x->shape;
  shape[dim] = k;
  TensorPtr values = Tensor::empty(shape, x->dtype, x->device());
  TensorPtr indices = Tensor::empty(shape, DType::Int64, x->device());
  if (values->numel() > 0) b.sort(*values, *indices, *x, dim, largest, k);
  // The values are x gathered at the indices: their gradient is gather's.
  if (is_floating(x->dtype) && autograd::should_record({&x})) {
    autograd::record_gather(values, x, dim, indices);
    autograd::rename_node(values, "GatherBackward", "TopkBackward");
  }
  // A 0-d input gives 0-d results, k = 0 too (PyTorch's rule: its one element, unsorted).
  if (t->ndim() == 0) return k == 0 ? std::pair{clone(t), full({}, Scalar::from_int(0), DType::Int64, t->device())}
                                    : std::pair{reshape(values, {}), reshape(indices, {})};
  return {values, indices};
}

std::pair<TensorPtr, TensorPtr> sort(const TensorPtr& t, int64_t dim, bool descending) {
  dim = t->wrap_dim(dim);
  auto out = topk(t, t->ndim() == 0 ? 1 : t->shape[dim], dim, descending);
  autograd::rename_node(out.first, "TopkBackward", "SortBackward");
  return out;
}

TensorPtr flip(const TensorPtr& t, const DimList& dims) {
  TensorPtr out = t;
  std::vector<bool> seen(std::max<int64_t>(t->ndim(), 1), false);
  for (int64_t d : dims) {
    d = t->wrap_dim(d);
    AK_CHECK(!seen[d], RuntimeError, "flip: dim ", d, " appears multiple times in the list of dims");
    seen[d] = true;
    if (t->ndim() == 0 || t->shape[d] <= 1) continue;
    const int64_t n = t->shape[d];
    out = index_select(out, d, arange_int(n - 1, -1, -1, DType::Int64, t->device()));
  }
  return out == t ? clone(t) : out;
}

namespace {

// The input of a scan: integers and bool count in int64 (as cumsum), floats as they are.
TensorPtr scan_input(const TensorPtr& t, int64_t& dim, bool promote) {
  dim = t->wrap_dim(dim);
  TensorPtr x = promote && !is_floating(t->dtype) ? to_dtype(t, DType::Int64) : t;
  return x->ndim() == 0 ? reshape(x, {1}) : x;
}

}  // namespace

TensorPtr cumprod(const TensorPtr& t, int64_t dim) {
  // float16 / bfloat16: in float32, each result rounded once (PyTorch's CPU kernels accumulate so).
  if (is_reduced_float(t->dtype)) return to_dtype(cumprod(to_dtype(t, DType::Float32), dim), t->dtype);
  TensorPtr x = scan_input(t, dim, true);
  const Backend& b = backend_with(x->device(), backend(x->device()).scan != nullptr, "cumprod");
  TensorPtr out = Tensor::empty(x->shape, x->dtype, x->device());
  if (x->numel() > 0) b.scan(ScanOp::CumProd, *out, nullptr, *x, dim);
  if (is_floating(x->dtype) && autograd::should_record({&x})) autograd::record_cumprod(out, x, dim);
  return t->ndim() == 0 ? reshape(out, {}) : out;
}

std::pair<TensorPtr, TensorPtr> cummax(const TensorPtr& t, int64_t dim, bool is_max) {
  const char* name = is_max ? "cummax" : "cummin";
  if (is_reduced_float(t->dtype)) {  // exact in float32: the same values, the same indices
    auto [v, i] = cummax(to_dtype(t, DType::Float32), dim, is_max);
    return {to_dtype(v, t->dtype), i};
  }
  TensorPtr x = scan_input(t, dim, false);
  const Backend& b = backend_with(x->device(), backend(x->device()).scan != nullptr, name);
  TensorPtr values = Tensor::empty(x->shape, x->dtype, x->device());
  TensorPtr indices = Tensor::empty(x->shape, DType::Int64, x->device());
  if (x->numel() > 0) b.scan(is_max ? ScanOp::CumMax : ScanOp::CumMin, *values, indices.get(), *x, dim);
  if (is_floating(x->dtype) && autograd::should_record({&x})) {
    autograd::record_gather(values, x, dim, indices);
    autograd::rename_node(values, "GatherBackward", is_max ? "CummaxBackward" : "CumminBackward");
  }
  if (t->ndim() == 0) return {reshape(values, {}), reshape(indices, {})};
  return {values, indices};
}

TensorPtr logcumsumexp(const TensorPtr& t, int64_t dim) {
  t->wrap_dim(dim);  // a bad dim is an IndexError before the dtype is looked at (PyTorch's order)
  if (is_reduced_float(t->dtype)) return to_dtype(logcumsumexp(to_dtype(t, DType::Float32), dim), t->dtype);
  // PyTorch's class for a dtype the op has no kernel for.
  AK_CHECK(is_floating(t->dtype), NotImplementedError, "\"logcumsumexp\" not implemented for '",
           dtype_name(t->dtype), "': it needs a floating point tensor");
  TensorPtr x = scan_input(t, dim, false);
  const Backend& b = backend_with(x->device(), backend(x->device()).scan != nullptr, "logcumsumexp");
  TensorPtr out = Tensor::empty(x->shape, x->dtype, x->device());
  if (x->numel() > 0) b.scan(ScanOp::LogCumSumExp, *out, nullptr, *x, dim);
  if (autograd::should_record({&x})) autograd::record_logcumsumexp(out, x, dim);
  return t->ndim() == 0 ? reshape(out, {}) : out;
}

}  // namespace aakaar::ops
