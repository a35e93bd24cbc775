// The backward of the fused softmax cross-entropy (ops::cross_entropy, csrc/ops/cross_entropy.cpp).
#pragma once
#include "core/tensor.h"
#include "ops/ops.h"

namespace aakaar::autograd {

// Records loss = cross_entropy(x, t) with its backward. e (N, C) holds exp(x_i - max x_i)
// and inv (N) 1 / sum_j e_ij, as the forward computed them: softmax(x) = e * inv. total (0-d)
// is the mean's divisor, weight the (C,) class weights or null.
void record_cross_entropy(const TensorPtr& loss, const TensorPtr& x, const TensorPtr& t, const TensorPtr& e,
                          const TensorPtr& inv, const TensorPtr& total, const TensorPtr& weight,
                          int64_t ignore_index, double label_smoothing, Reduction r);

}  // namespace aakaar::autograd
