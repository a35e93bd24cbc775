// Backward formulas of cumprod, logcumsumexp and scatter_reduce, written with ordinary ops (so a
// gradient can be differentiated again), following PyTorch's formulas, zeros included.
#include "autograd/derivatives_sort_scan.h"

#include <cmath>

#include "ops/ops.h"

namespace aakaar::autograd {
namespace {

using ops::binary;
TensorPtr mul(const TensorPtr& a, const TensorPtr& b) { return binary(BinaryOp::Mul, a, b); }
TensorPtr div(const TensorPtr& a, const TensorPtr& b) { return binary(BinaryOp::Div, a, b); }
TensorPtr number(double v, const TensorPtr& like) { return ops::full({}, Scalar::from_double(v), like->dtype, like->device()); }
TensorPtr cmp(BinaryOp op, const TensorPtr& a, double v) { return ops::binary_scalar(op, a, Scalar::from_double(v), false); }
TensorPtr as(const TensorPtr& mask, const TensorPtr& like) { return ops::to_dtype(mask, like->dtype); }

// sum_{j >= i} v_j along dim: the reversed cumulative sum.
TensorPtr reverse_cumsum(const TensorPtr& v, int64_t dim) {
  return ops::flip(ops::cumsum(ops::flip(v, {dim}), dim), {dim});
}
TensorPtr reverse_logcumsumexp(const TensorPtr& v, int64_t dim) {
  return ops::flip(ops::logcumsumexp(ops::flip(v, {dim}), dim), {dim});
}
bool any_true(const TensorPtr& mask) {
  TensorPtr a = ops::to_device(ops::reduce(ReduceOp::Any, mask, std::nullopt, false), Device{});
  return a->data<bool>()[0];
}

}  // namespace

void record_cumprod(const TensorPtr& out, const TensorPtr& in, int64_t dim) {
  record("CumprodBackward", {in}, out, {in, out}, [dim](const TensorList& g, const TensorList& s, const Needs&) {
    const TensorPtr &x = s[0], &y = s[1];
    // d y_j / d x_i = prod_{k <= j, k != i} x_k for j >= i. Without zeros that is y_j / x_i.
    const TensorPtr is_zero = cmp(BinaryOp::Eq, x, 0.0);
    if (!any_true(is_zero)) return TensorList{div(reverse_cumsum(mul(g[0], y), dim), x)};
    // With zeros (z: a row's first zero): before z the formula holds (y_j = 0 from z on);
    // at z the gradient is sum_{j >= z} g_j prod_{k <= j, k != z} x_k, the cumulative product
    // with x_z replaced by 1; after z every product holds x_z = 0.
    const TensorPtr zeros_so_far = ops::cumsum(ops::to_dtype(is_zero, DType::Int64), dim);
    const TensorPtr before = cmp(BinaryOp::Eq, zeros_so_far, 0.0);
    const TensorPtr first = binary(BinaryOp::LogicalAnd, is_zero, cmp(BinaryOp::Eq, zeros_so_far, 1.0));
    const TensorPtr zero = number(0, x), one = number(1, x);
    TensorPtr part1 = ops::where(before, div(reverse_cumsum(mul(g[0], y), dim), ops::where(before, x, one)), zero);
    TensorPtr y1 = ops::cumprod(ops::where(first, one, x), dim);
    TensorPtr part2 = ops::where(first, reverse_cumsum(mul(g[0], y1), dim), zero);
    return TensorList{binary(BinaryOp::Add, part1, part2)};
  });
}

void record_logcumsumexp(const TensorPtr& out, const TensorPtr& in, int64_t dim) {
  record("LogcumsumexpBackward", {in}, out, {in, out}, [dim](const TensorList& g, const TensorList& s, const Needs&) {
    const TensorPtr &x = s[0], &y = s[1];
    // grad_i = sum_{j >= i} g_j exp(x_i - y_j), summed in log space for the positive and the
    // negative parts of g separately (PyTorch's formula: no overflow, no cancellation of huge terms).
    const TensorPtr ninf = number(-INFINITY, x);
    auto part = [&](const TensorPtr& mask, const TensorPtr& magnitude) {
      TensorPtr lg = ops::where(mask, ops::unary(UnaryOp::Log, magnitude), ninf);
      return ops::unary(UnaryOp::Exp, binary(BinaryOp::Add, reverse_logcumsumexp(binary(BinaryOp::Sub, lg, y), dim), x));
    };
    TensorPtr pos = part(cmp(BinaryOp::Gt, g[0], 0.0), g[0]);
    TensorPtr neg = part(cmp(BinaryOp::Lt, g[0], 0.0), ops::unary(UnaryOp::Neg, g[0]));
    return TensorList{binary(BinaryOp::Sub, pos, neg)};
  });
}

void record_scatter_reduce(const TensorPtr& out, const TensorPtr& self, int64_t dim, const TensorPtr& index,
                           const TensorPtr& src, const std::string& reduce, bool include_self) {
  record("ScatterReduceBackward", {self, src}, out, {self, index, src, out},
         [dim, reduce, include_self](const TensorList& gl, const TensorList& s, const Needs& n) {
    const TensorPtr &g = gl[0], &x = s[0], &index = s[1], &src = s[2], &result = s[3];
    TensorPtr grad_self, grad_src;
    if (reduce == "sum") {
      grad_self = g;
      grad_src = ops::gather(g, dim, index);
    } else if (reduce == "mean") {
      TensorPtr count = ops::full(x->shape, Scalar::from_int(include_self ? 1 : 0), g->dtype, g->device());
      count = ops::scatter(count, dim, index, ops::full(index->shape, Scalar::from_int(1), g->dtype, g->device()), true);
      count = ops::masked_fill(count, cmp(BinaryOp::Eq, count, 0.0), Scalar::from_int(1));
      grad_self = div(g, count);
      grad_src = div(ops::gather(g, dim, index), ops::gather(count, dim, index));
    } else if (reduce == "prod") {
      // Products that leave one factor out, without dividing by a zero (PyTorch's formula).
      TensorPtr masked_self = ops::masked_fill(x, cmp(BinaryOp::Eq, x, 0.0), Scalar::from_int(1));
      grad_self = div(mul(g, ops::scatter_reduce(masked_self, dim, index, src, "prod", include_self)), masked_self);
      TensorPtr src_zero = cmp(BinaryOp::Eq, src, 0.0);
      TensorPtr zeros_there = ops::gather(
          ops::scatter(ops::full(x->shape, Scalar::from_int(0), g->dtype, g->device()), dim, index, as(src_zero, g), true),
          dim, index);
      TensorPtr single_zero = binary(BinaryOp::LogicalAnd, src_zero, cmp(BinaryOp::Eq, zeros_there, 1.0));
      TensorPtr masked_src_result =
          ops::scatter_reduce(x, dim, index, ops::masked_fill(src, single_zero, Scalar::from_int(1)), "prod", include_self);
      grad_src = ops::where(single_zero, ops::gather(mul(g, masked_src_result), dim, index),
                            div(ops::gather(mul(g, result), dim, index), ops::masked_fill(src, src_zero, Scalar::from_int(1))));
    } else {  // amax, amin: the gradient is shared evenly by the elements equal to the result
      TensorPtr value = ops::gather(result, dim, index);
      TensorPtr self_is = as(binary(BinaryOp::Eq, x, result), g);
      TensorPtr src_is = as(binary(BinaryOp::Eq, src, value), g);
      TensorPtr shared = div(g, ops::scatter(self_is, dim, index, src_is, true));
      grad_self = mul(self_is, shared);
      grad_src = mul(src_is, ops::gather(shared, dim, index));
    }
    if (!include_self && n[0]) {  // self's elements that were written to took no part
      TensorPtr touched = ops::scatter(ops::full(x->shape, Scalar::from_bool(false), DType::Bool, g->device()), dim,
                                       index, ops::full(index->shape, Scalar::from_bool(true), DType::Bool, g->device()),
                                       false);
      grad_self = ops::masked_fill(grad_self, touched, Scalar::from_int(0));
    }
    return TensorList{n[0] ? grad_self : nullptr, n[1] ? grad_src : nullptr};
  });
}

}  // namespace aakaar::autograd
