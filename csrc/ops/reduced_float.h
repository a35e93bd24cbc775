// The 16-bit floats for ops whose kernels compute in float32 and float64 only.
#pragma once
#include "ops/ops.h"

namespace aakaar::ops {
// float16 and bfloat16 operands of an op whose kernels compute in float32 and float64 only (linear,
// conv2d, the pools, the fused losses): the op runs on float32 copies and rounds its results once to
// the 16-bit dtype, as PyTorch's CPU kernels accumulate 16-bit floats in float32. to_dtype is
// recorded by autograd, so gradients come back in the 16-bit dtype. Null and other dtypes pass.
inline TensorPtr as_float32(const TensorPtr& t) {
  return t && is_reduced_float(t->dtype) ? to_dtype(t, DType::Float32) : t;
}

}  // namespace aakaar::ops
