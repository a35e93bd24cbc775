// The backward of the CTC loss (ops::ctc_loss, csrc/ops/ctc_loss.cpp).
#pragma once
#include "core/tensor.h"
#include "ops/ops.h"

namespace aakaar::autograd {

// Records loss = ctc_loss(log_probs, ...) (N,) with its backward. lp and targets are the
// contiguous copies the kernel read, nll the raw losses (before zero_infinity), log_alpha
// the forward variables; il, tl, offsets the (N,) int64 lengths and label offsets.
void record_ctc_loss(const TensorPtr& loss, const TensorPtr& log_probs, const TensorPtr& lp,
                     const TensorPtr& targets, const TensorPtr& nll, const TensorPtr& log_alpha, const TensorPtr& il,
                     const TensorPtr& tl, const TensorPtr& offsets, int64_t blank, bool zero_infinity);

}  // namespace aakaar::autograd
