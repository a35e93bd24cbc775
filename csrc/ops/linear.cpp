// The Linear layer as one op: out = act(x @ W^T + b).
//
// Written as three ops (matmul, add, relu) a layer makes three passes over
// its output and three temporaries, and records three autograd nodes. Here
// the GEMM adds the bias and applies the ReLU to each tile of the output
// while the tile is still in cache (cpu::gemm_bias_act), and one node holds
// the whole backward (autograd/derivatives_linear.cpp). W^T is not copied:
// it is W read with its two strides swapped.
#include "autograd/derivatives_linear.h"
#include "autograd/function.h"
#include "core/error.h"
#include "cpu/gemm/gemm.h"
#include "ops/ops.h"

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
  AK_CHECK(is_floating(x->dtype), TypeError, "linear supports float32 and float64, got ", dtype_name(x->dtype));
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

// [[book:linear_forward]]
template <typename T>
void linear_cpu(const Tensor& out, const Tensor& x, const Tensor& w, const Tensor* b, LinearActivation act) {
  const int64_t M = x.shape[0], K = x.shape[1], N = w.shape[0];
  // B = W^T: element (k, j) of B is W[j, k], so B's row stride is W's column stride.
  cpu::gemm_bias_act<T>(M, N, K, T(1), x.data<T>(), x.strides[0], x.strides[1],
                        w.data<T>(), w.strides[1], w.strides[0], T(0),
                        out.data<T>(), out.strides[0], out.strides[1],
                        b ? b->data<T>() : nullptr, b ? b->strides[0] : 0,
                        act == LinearActivation::ReLU ? cpu::GemmActivation::ReLU : cpu::GemmActivation::None);
}
// [[/book:linear_forward]]

}  // namespace

TensorPtr linear(const TensorPtr& x, const TensorPtr& w, const TensorPtr& b, LinearActivation act) {
  check_linear_args(x, w, b);
  if (x->device().type != DeviceType::CPU) return linear_composite(x, w, b, act);
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
  if (out->numel() > 0) {
    AK_DISPATCH_FLOAT(x->dtype, "linear", [&](auto tag) {
      linear_cpu<decltype(tag)>(*out, *x, *w, b.get(), act);
    });
  }
  if (autograd::should_record({&x, &w, &b})) autograd::record_linear(out, x, w, b, act);
  return out;
}

}  // namespace aakaar::ops
