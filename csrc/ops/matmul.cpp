// matmul in all its forms, reduced to one batched call of the backend's
// GEMM over 3-d operands with arbitrary strides (so transposes are free).
#include "autograd/derivatives.h"
#include "core/error.h"
#include "core/shape.h"
#include "ops/ops.h"

namespace aakaar::ops {
namespace {

void check_matmul_dtypes(const TensorPtr& a, const TensorPtr& b, const char* op) {
  check_same_device(a, b, op);
  AK_CHECK(a->dtype == b->dtype, TypeError, op, ": expected both operands to have the same dtype, got ",
           dtype_name(a->dtype), " and ", dtype_name(b->dtype));
  AK_CHECK(is_floating(a->dtype), TypeError, op, " supports float32 and float64 (and float16/bfloat16, computed in float32), got ",
           dtype_name(a->dtype));
}

}  // namespace

TensorPtr bmm(const TensorPtr& a, const TensorPtr& b) {
  check_matmul_dtypes(a, b, "bmm");
  if (is_reduced_float(a->dtype))  // float32 products and sums, each result rounded once (PyTorch's CPU gemm)
    return to_dtype(bmm(to_dtype(a, DType::Float32), to_dtype(b, DType::Float32)), a->dtype);
  AK_CHECK(a->ndim() == 3 && b->ndim() == 3, ValueError, "bmm: expected 3-d tensors, got ", shape_str(a->shape),
           " and ", shape_str(b->shape));
  AK_CHECK(a->shape[0] == b->shape[0] && a->shape[2] == b->shape[1], ValueError,
           "bmm: shapes ", shape_str(a->shape), " and ", shape_str(b->shape), " cannot be multiplied");
  TensorPtr out = Tensor::empty({a->shape[0], a->shape[1], b->shape[2]}, a->dtype, a->device());
  if (a->shape[2] == 0) backend(a->device()).fill(*out, Scalar::from_int(0));  // empty sums are 0
  else if (out->numel() > 0) backend(a->device()).bmm(*out, *a, *b);
  if (autograd::should_record({&a, &b})) autograd::record_bmm(out, a, b);
  return out;
}

TensorPtr mm(const TensorPtr& a, const TensorPtr& b) {
  check_matmul_dtypes(a, b, "mm");
  AK_CHECK(a->ndim() == 2 && b->ndim() == 2, ValueError, "mm: expected 2-d tensors, got ", shape_str(a->shape),
           " and ", shape_str(b->shape));
  AK_CHECK(a->shape[1] == b->shape[0], ValueError, "mm: shapes ", shape_str(a->shape), " and ", shape_str(b->shape),
           " cannot be multiplied (", a->shape[1], " != ", b->shape[0], ")");
  if (is_reduced_float(a->dtype))  // float32 products and sums, rounded once (as bmm)
    return to_dtype(mm(to_dtype(a, DType::Float32), to_dtype(b, DType::Float32)), a->dtype);
  // The batched kernel writes through a 1-batch view of the result, and one node records the
  // product (PyTorch's MmBackward0), not a view of a bmm.
  const int64_t M = a->shape[0], K = a->shape[1], N = b->shape[1];
  TensorPtr out = Tensor::empty({M, N}, a->dtype, a->device());
  {
    autograd::GradModeGuard no_grad(false);
    TensorPtr out3 = reshape(out, {1, M, N});
    if (K == 0) backend(a->device()).fill(*out, Scalar::from_int(0));  // empty sums are 0
    else if (out->numel() > 0) backend(a->device()).bmm(*out3, *unsqueeze(a, 0), *unsqueeze(b, 0));
  }
  if (autograd::should_record({&a, &b})) autograd::record_mm(out, a, b);
  return out;
}

TensorPtr matmul(const TensorPtr& a, const TensorPtr& b) {
  check_matmul_dtypes(a, b, "matmul");
  AK_CHECK(a->ndim() > 0 && b->ndim() > 0, ValueError, "matmul: both arguments need at least 1 dimension, got ",
           shape_str(a->shape), " and ", shape_str(b->shape));
  // 1-d operands are promoted to matrices (a row for a, a column for b) and
  // the added dim is removed from the result, as numpy does.
  const bool a_vec = a->ndim() == 1, b_vec = b->ndim() == 1;
  TensorPtr A = a_vec ? unsqueeze(a, 0) : a;
  TensorPtr B = b_vec ? unsqueeze(b, 1) : b;
  const int64_t M = A->shape[A->ndim() - 2], K = A->shape[A->ndim() - 1];
  const int64_t K2 = B->shape[B->ndim() - 2], N = B->shape[B->ndim() - 1];
  AK_CHECK(K == K2, ValueError, "matmul: shapes ", shape_str(a->shape), " and ", shape_str(b->shape),
           " cannot be multiplied (", K, " != ", K2, ")");
  if (a->ndim() == 2 && b->ndim() == 2) return mm(a, b);
  const Shape batch_a(A->shape.begin(), A->shape.end() - 2), batch_b(B->shape.begin(), B->shape.end() - 2);
  const Shape batch = broadcast_shapes(batch_a, batch_b);
  const int64_t nb = shape_numel(batch);
  auto as_3d = [&](const TensorPtr& t, int64_t rows, int64_t cols) {
    Shape full = batch;
    full.push_back(rows);
    full.push_back(cols);
    return reshape(expand(t, full), {nb, rows, cols});  // a view unless batch dims were expanded non-uniformly
  };
  TensorPtr out = bmm(as_3d(A, M, K), as_3d(B, K, N));
  Shape shape = batch;
  if (!a_vec) shape.push_back(M);
  if (!b_vec) shape.push_back(N);
  return reshape(out, shape);
}

}  // namespace aakaar::ops
