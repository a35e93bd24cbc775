// Reductions: which dims, what dtype the result has, keepdim, and the
// composite ones (mean, var, logsumexp) built from the kernels.
#include <cmath>

#include "autograd/derivatives.h"
#include "core/default_dtype.h"
#include "core/error.h"
#include "ops/ops.h"

namespace aakaar::ops {
namespace {

// Normalised, sorted dims to reduce; all dims when none are given.
std::vector<bool> reduced_mask(const TensorPtr& t, const std::optional<DimList>& dims) {
  std::vector<bool> mask(t->ndim(), !dims.has_value() || dims->empty());
  if (dims)
    for (int64_t d : *dims) {
      d = t->wrap_dim(d);
      if (t->ndim() == 0) continue;
      AK_CHECK(!mask[d] || dims->empty(), ValueError, "dim ", d, " appears multiple times in the list of dims");
      mask[d] = true;
    }
  return mask;
}

Shape keepdim_shape(const TensorPtr& t, const std::vector<bool>& mask) {
  Shape s = t->shape;
  for (size_t d = 0; d < s.size(); ++d)
    if (mask[d]) s[d] = 1;
  return s;
}

// The keepdim result with the reduced dims removed (a recorded view).
TensorPtr drop_dims(const TensorPtr& t, const std::vector<bool>& mask, bool keepdim) {
  if (keepdim) return t;
  DimList dims;
  for (int64_t d = 0; d < t->ndim(); ++d)
    if (mask[d]) dims.push_back(d);
  if (dims.empty()) return t;
  return squeeze(t, dims);
}

const char* reduce_name(ReduceOp op) {
  static const char* names[] = {"sum", "prod", "max", "min", "all", "any"};
  return names[static_cast<int>(op)];
}

int64_t reduced_count(const TensorPtr& t, const std::vector<bool>& mask) {
  int64_t n = 1;
  for (int64_t d = 0; d < t->ndim(); ++d)
    if (mask[d]) n *= t->shape[d];
  return n;
}

// float16 and bfloat16 reduce in float32 and round the result once, as PyTorch's CPU kernels.
template <typename F>
TensorPtr in_float32(const TensorPtr& t, F f) {
  return is_reduced_float(t->dtype) ? to_dtype(f(to_dtype(t, DType::Float32)), t->dtype) : f(t);
}

}  // namespace

TensorPtr reduce(ReduceOp op, const TensorPtr& t, std::optional<DimList> dims, bool keepdim) {
  if (is_reduced_float(t->dtype) && op != ReduceOp::All && op != ReduceOp::Any)
    return in_float32(t, [&](const TensorPtr& x) { return reduce(op, x, dims, keepdim); });
  if ((op == ReduceOp::All || op == ReduceOp::Any) && t->dtype == DType::UInt8)
    // PyTorch's legacy rule: all/any of a uint8 tensor is a uint8 tensor (of 0s and 1s).
    return to_dtype(reduce(op, to_dtype(t, DType::Bool), std::move(dims), keepdim), DType::UInt8);
  if ((op == ReduceOp::All || op == ReduceOp::Any) && dims && dims->empty()) {
    // all/any over an empty dim list reduce nothing (sum's empty list reduces every dim), as PyTorch.
    TensorPtr b = to_dtype(t, DType::Bool);
    return b == t ? clone(t) : b;
  }
  const auto mask = reduced_mask(t, dims);
  if ((op == ReduceOp::Max || op == ReduceOp::Min) && reduced_count(t, mask) == 0) {
    // Every reduced dim must be non-empty, even when the result is empty (PyTorch's rule). PyTorch's
    // classes: an IndexError for a named dim, a RuntimeError for the whole tensor.
    const std::string msg = str(reduce_name(op), "(): cannot reduce over a zero-size dimension of a tensor of shape ",
                                shape_str(t->shape), " (max and min have no identity)");
    if (dims && !dims->empty()) throw IndexError(msg);
    throw RuntimeError(msg);
  }
  TensorPtr in = t;
  DType out_dt = t->dtype;
  if (op == ReduceOp::All || op == ReduceOp::Any) {
    in = to_dtype(t, DType::Bool);
    out_dt = DType::Bool;
  } else if ((op == ReduceOp::Sum || op == ReduceOp::Prod) && !is_floating(t->dtype)) {
    in = to_dtype(t, DType::Int64);  // integer sums accumulate in int64, like PyTorch
    out_dt = DType::Int64;
  }
  // The kernel writes the keepdim shape; the result is allocated in its final shape and the kernel
  // writes through a keepdim view of it, so one node (SumBackward0 in PyTorch) records the reduction.
  const Shape keep_shape = keepdim_shape(t, mask);
  Shape out_shape;
  for (size_t d = 0; d < keep_shape.size(); ++d)
    if (keepdim || !mask[d]) out_shape.push_back(keep_shape[d]);
  TensorPtr out = Tensor::empty(out_shape, out_dt, t->device());
  TensorPtr keep = out_shape == keep_shape ? out : reshape(out, keep_shape);
  backend(t->device()).reduce(op, *keep, *in);
  if (is_floating(out_dt) && autograd::should_record({&in})) autograd::record_reduce(op, out, in, keep, dims.has_value() && !dims->empty());
  return out;
}

TensorPtr sum(const TensorPtr& t, std::optional<DimList> dims, bool keepdim, std::optional<DType> dtype) {
  TensorPtr out = reduce(ReduceOp::Sum, dtype ? to_dtype(t, *dtype) : t, std::move(dims), keepdim);
  // Integers (and bools) sum in int64; the result then takes the asked dtype,
  // as in PyTorch (dtype=bool: whether the sum is nonzero; uint8: it wraps).
  return dtype && out->dtype != *dtype ? to_dtype(out, *dtype) : out;
}

TensorPtr mean(const TensorPtr& t, std::optional<DimList> dims, bool keepdim) {
  if (is_reduced_float(t->dtype)) return in_float32(t, [&](const TensorPtr& x) { return mean(x, dims, keepdim); });
  AK_CHECK(is_floating(t->dtype), TypeError, "mean(): input dtype must be floating point, got ", dtype_name(t->dtype),
           "; convert with .to(aakaar.float32) first");
  const auto mask = reduced_mask(t, dims);
  const double n = static_cast<double>(reduced_count(t, mask));
  TensorPtr out;
  {
    autograd::GradModeGuard no_grad(false);  // one node for the whole mean (PyTorch's MeanBackward0), below
    out = binary_scalar(BinaryOp::Div, reduce(ReduceOp::Sum, t, dims, keepdim), Scalar::from_double(n), false);
  }
  if (autograd::should_record({&t})) autograd::record_mean(out, t, keepdim_shape(t, mask), n, dims.has_value() && !dims->empty());
  return out;
}

TensorPtr var(const TensorPtr& t, std::optional<DimList> dims, double correction, bool keepdim) {
  if (is_reduced_float(t->dtype))
    return in_float32(t, [&](const TensorPtr& x) { return var(x, dims, correction, keepdim); });
  AK_CHECK(is_floating(t->dtype), TypeError, "var/std: input dtype must be floating point, got ",
           dtype_name(t->dtype));
  const auto mask = reduced_mask(t, dims);
  const int64_t n = reduced_count(t, mask);
  // Two passes (mean, then squared deviations): far more accurate than
  // E[x^2] - E[x]^2, which cancels catastrophically when the mean is large.
  TensorPtr m = mean(t, dims, true);
  TensorPtr d = binary(BinaryOp::Sub, t, m);
  TensorPtr ss = reduce(ReduceOp::Sum, binary(BinaryOp::Mul, d, d), dims, keepdim);
  const double denom = std::max(0.0, static_cast<double>(n) - correction);
  return binary_scalar(BinaryOp::Div, ss, Scalar::from_double(denom), false);
}

TensorPtr std_dev(const TensorPtr& t, std::optional<DimList> dims, double correction, bool keepdim) {
  if (is_reduced_float(t->dtype))
    return in_float32(t, [&](const TensorPtr& x) { return std_dev(x, dims, correction, keepdim); });
  TensorPtr v = var(t, std::move(dims), correction, keepdim);
  TensorPtr out;
  {
    autograd::GradModeGuard no_grad(false);  // recorded below with its own formula
    out = unary(UnaryOp::Sqrt, v);
  }
  if (autograd::should_record({&v}))
    // d sqrt(v) = g / (2 sqrt(v)); where the deviation is 0 (a constant slice)
    // that is 0 * inf. PyTorch defines the gradient there as 0, and so do we.
    autograd::record("StdBackward", {v}, out, {out}, [](const autograd::TensorList& g, const autograd::TensorList& s,
                                                        const autograd::Needs&) {
      TensorPtr y = s[0];
      TensorPtr zero = full({}, Scalar::from_int(0), y->dtype, y->device());
      TensorPtr safe = where(binary_scalar(BinaryOp::Eq, y, Scalar::from_int(0), false),
                             full({}, Scalar::from_int(1), y->dtype, y->device()), y);
      TensorPtr grad = binary(BinaryOp::Div, g[0], binary_scalar(BinaryOp::Mul, safe, Scalar::from_double(2.0), false));
      return autograd::TensorList{where(binary_scalar(BinaryOp::Eq, y, Scalar::from_int(0), false), zero, grad)};
    });
  return out;
}

std::pair<TensorPtr, TensorPtr> max_dim(const TensorPtr& t, int64_t dim, bool keepdim, bool is_max) {
  if (is_reduced_float(t->dtype)) {  // float32 holds every 16-bit value exactly: the same max, the same index
    auto [values, indices] = max_dim(to_dtype(t, DType::Float32), dim, keepdim, is_max);
    return {to_dtype(values, t->dtype), indices};
  }
  dim = t->wrap_dim(dim);
  TensorPtr in = t->ndim() == 0 ? reshape(t, {1}) : t;
  AK_CHECK(in->shape[dim] > 0, IndexError, is_max ? "max" : "min", "(): cannot reduce dim ", dim,
           " of size 0 (tensor of shape ", shape_str(t->shape), ")");
  // The results are allocated in their final shape and the kernel writes through keepdim views,
  // so one node (PyTorch's MaxBackward0 / MinBackward0) records the op.
  Shape ks = in->shape;
  ks[dim] = 1;
  Shape out_shape = t->ndim() == 0 ? Shape{} : keepdim ? ks : t->shape;  // a 0-d input gives 0-d results
  if (!keepdim && t->ndim() > 0) out_shape.erase(out_shape.begin() + dim);
  TensorPtr values = Tensor::empty(out_shape, in->dtype, in->device());
  TensorPtr indices = Tensor::empty(out_shape, DType::Int64, in->device());
  TensorPtr values_keep = reshape(values, ks), indices_keep = reshape(indices, ks);
  backend(in->device()).arg_reduce(is_max, *values_keep, *indices_keep, *in, dim);
  if (is_floating(in->dtype) && autograd::should_record({&in})) autograd::record_max_dim(values, indices_keep, in, dim, is_max);
  return {values, indices};
}

TensorPtr argmax(const TensorPtr& t, std::optional<int64_t> dim, bool keepdim, bool is_max) {
  // PyTorch's refusals and their classes: bool input, and a whole-tensor argmax of nothing.
  const char* name = is_max ? "argmax" : "argmin";
  AK_CHECK(t->dtype != DType::Bool, RuntimeError, name, "(): does not support bool input");
  AK_CHECK(dim || t->numel() > 0, IndexError, name,
           "(): Expected reduction dim to be specified for input.numel() == 0.");
  if (!dim) {
    TensorPtr idx = max_dim(reshape(t, {-1}), 0, false, is_max).second;
    return keepdim ? reshape(idx, Shape(t->ndim(), 1)) : idx;
  }
  return max_dim(t, *dim, keepdim, is_max).second;
}

TensorPtr logsumexp(const TensorPtr& t, DimList dims, bool keepdim) {
  // Integers give the default floating dtype, as in PyTorch.
  if (!is_floating(t->dtype)) return logsumexp(to_dtype(t, default_dtype()), dims, keepdim);
  if (is_reduced_float(t->dtype)) return in_float32(t, [&](const TensorPtr& x) { return logsumexp(x, dims, keepdim); });
  const TensorPtr& x = t;
  // A sum of no exponentials is 0 and log 0 = -inf (as PyTorch); the max
  // below has no identity, so an empty reduction is answered here.
  const auto mask = reduced_mask(x, dims);
  if (reduced_count(x, mask) == 0)
    return drop_dims(full(keepdim_shape(x, mask), Scalar::from_double(-INFINITY), x->dtype, x->device()), mask, keepdim);
  // log sum exp(x) = m + log sum exp(x - m), with m the max: no overflow.
  // Where m is infinite, x - m would be NaN, so shift by 0 there instead.
  TensorPtr m = reduce(ReduceOp::Max, x, dims, true);
  // The scalars live on x's device: an op never mixes devices.
  TensorPtr infinite = binary(BinaryOp::Eq, unary(UnaryOp::Abs, m),
                              scalar_tensor(Scalar::from_double(INFINITY), x->dtype, x->device()));
  m = where(infinite, scalar_tensor(Scalar::from_double(0), x->dtype, x->device()), m);
  TensorPtr s = reduce(ReduceOp::Sum, unary(UnaryOp::Exp, binary(BinaryOp::Sub, x, m)), dims, true);
  TensorPtr out = binary(BinaryOp::Add, unary(UnaryOp::Log, s), m);
  return drop_dims(out, reduced_mask(x, dims), keepdim);
}

TensorPtr softmax(const TensorPtr& t, int64_t dim, bool log) {
  if (!is_floating(t->dtype)) return softmax(to_dtype(t, default_dtype()), dim, log);
  if (is_reduced_float(t->dtype)) return in_float32(t, [&](const TensorPtr& x) { return softmax(x, dim, log); });
  TensorPtr x = t;
  dim = x->wrap_dim(dim);
  if (x->ndim() == 0) x = reshape(x, {1});
  TensorPtr out = Tensor::empty(x->shape, x->dtype, x->device());
  backend(x->device()).softmax(*out, *x, dim, log);
  if (autograd::should_record({&x})) autograd::record_softmax(out, x, dim, log);
  return t->ndim() == 0 ? reshape(out, {}) : out;
}

TensorPtr cumsum(const TensorPtr& t, int64_t dim) {
  if (is_reduced_float(t->dtype)) return in_float32(t, [&](const TensorPtr& x) { return cumsum(x, dim); });
  dim = t->wrap_dim(dim);
  TensorPtr x = is_floating(t->dtype) ? t : to_dtype(t, DType::Int64);
  if (x->ndim() == 0) x = reshape(x, {1});
  TensorPtr out = Tensor::empty(x->shape, x->dtype, x->device());
  backend(x->device()).cumsum(*out, *x, dim);
  if (is_floating(x->dtype) && autograd::should_record({&x})) autograd::record_cumsum(out, x, dim);
  return t->ndim() == 0 ? reshape(out, {}) : out;
}

}  // namespace aakaar::ops
