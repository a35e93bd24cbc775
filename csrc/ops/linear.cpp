// The Linear layer as one op: out = act(x @ W^T + b).
//
// A device whose backend has the fused kernel (the CPU's is in
// cpu/fused/linear.cpp) computes it in one GEMM with the bias and the
// activation applied to each tile, and one autograd node holds the whole
// backward (autograd/derivatives_linear.cpp). A device without it gets the
// same function from ordinary ops: matmul, add and relu, each recorded.
#include "autograd/derivatives_linear.h"
#include "autograd/function.h"
#include "core/error.h"
#include "ops/ops.h"
#include "ops/reduced_float.h"

namespace aakaar::ops {
namespace {

void check_linear_args(const TensorPtr& x, const TensorPtr& w, const TensorPtr& b) {
  AK_CHECK(x && w, ValueError, "linear: input and weight must be tensors");
  AK_CHECK(w->ndim() == 2, ValueError, "linear: weight must be 2-d (out_features, in_features), got shape ",
           shape_str(w->shape));
  AK_CHECK(x->ndim() >= 1, ValueError, "linear: input must have at least 1 dimension, got a 0-d tensor");
  AK_CHECK(x->shape.back() == w->shape[1], ValueError, "linear: input shape ", shape_str(x->shape),
           " does not end in in_features=", w->shape[1], " (weight shape ", shape_str(w->shape), ")");
  check_same_device(x, w, "linear");
  AK_CHECK(x->dtype == w->dtype, TypeError, "linear: input and weight must have the same dtype, got ",
           dtype_name(x->dtype), " and ", dtype_name(w->dtype));
  AK_CHECK(is_floating(x->dtype), TypeError, "linear supports float32 and float64 (and float16/bfloat16, computed in float32), got ", dtype_name(x->dtype));
  if (b) {
    check_same_device(x, b, "linear");
    AK_CHECK(b->ndim() == 1 && b->shape[0] == w->shape[0], ValueError, "linear: bias must have shape [",
             w->shape[0], "] (out_features), got ", shape_str(b->shape));
    AK_CHECK(b->dtype == x->dtype, TypeError, "linear: bias has dtype ", dtype_name(b->dtype), " but input is ",
             dtype_name(x->dtype));
  }
}

// Devices without a fused kernel get the same function from ordinary ops.
TensorPtr linear_composite(const TensorPtr& x, const TensorPtr& w, const TensorPtr& b, LinearActivation act) {
  TensorPtr out = matmul(x, transpose(w, 0, 1));
  if (b) out = binary(BinaryOp::Add, out, b);
  if (act == LinearActivation::ReLU) out = unary(UnaryOp::Relu, out);
  return out;
}

}  // namespace

TensorPtr linear(const TensorPtr& x, const TensorPtr& w, const TensorPtr& b, LinearActivation act) {
  check_linear_args(x, w, b);
  if (is_reduced_float(x->dtype)) return to_dtype(linear(as_float32(x), as_float32(w), as_float32(b), act), x->dtype);
  const Backend& be = backend(x->device());
  if (!be.linear) return linear_composite(x, w, b, act);
  const int64_t K = w->shape[1], N = w->shape[0];
  if (x->ndim() != 2) {
    // (..., K) -> (rows, K), a view whenever the leading dims can be merged;
    // reshape records its own backward, so the gradient finds its way back.
    Shape lead(x->shape.begin(), x->shape.end() - 1);
    TensorPtr out2 = linear(reshape(x, {shape_numel(lead), K}), w, b, act);
    lead.push_back(N);
    return reshape(out2, lead);
  }
  TensorPtr out = Tensor::empty({x->shape[0], N}, x->dtype, x->device());
  if (out->numel() > 0) be.linear(*out, *x, *w, b.get(), act);
  if (autograd::should_record({&x, &w, &b})) autograd::record_linear(out, x, w, b, act);
  return out;
}

}  // namespace aakaar::ops
