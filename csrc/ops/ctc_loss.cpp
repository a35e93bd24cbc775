// The CTC loss as one op: per sample n, -log of the total probability of every
// alignment of target n to the first input_lengths[n] frames of log_probs[:, n].
//
// The op checks the arguments as PyTorch does (the same conditions, and
// messages that name them), lays the targets out flat with each sample's
// offset, and calls the device's fused kernel (backend entry ctc_loss; the
// CPU's is in cpu/fused/ctc_loss.cpp), which also keeps the forward variables
// log_alpha for the backward (autograd/derivatives_ctc_loss.cpp).
#include <algorithm>
#include <limits>

#include "autograd/derivatives_ctc_loss.h"
#include "autograd/function.h"
#include "core/error.h"
#include "ops/ops.h"

namespace aakaar::ops {
namespace {

TensorPtr lengths_tensor(const std::vector<int64_t>& v, Device device) {
  TensorPtr host = Tensor::empty({static_cast<int64_t>(v.size())}, DType::Int64);
  std::copy(v.begin(), v.end(), host->data<int64_t>());
  return device == Device{} ? host : to_device(host, device);
}

}  // namespace

TensorPtr ctc_loss(const TensorPtr& log_probs, const TensorPtr& targets, const std::vector<int64_t>& input_lengths,
                   const std::vector<int64_t>& target_lengths, int64_t blank, bool zero_infinity) {
  AK_CHECK(log_probs && targets, ValueError, "ctc_loss(): log_probs and targets must be tensors");
  AK_CHECK(is_floating(log_probs->dtype), TypeError, "ctc_loss(): log_probs must be float32 or float64, got ",
           dtype_name(log_probs->dtype));
  AK_CHECK(targets->dtype == DType::Int64, TypeError, "ctc_loss(): targets must be int64 class indices, got ",
           dtype_name(targets->dtype));
  AK_CHECK(log_probs->ndim() == 3, ValueError, "ctc_loss(): expected a 3-dimensional log_probs (T, N, C), but got "
           "shape ", shape_str(log_probs->shape));
  AK_CHECK(targets->ndim() == 1 || targets->ndim() == 2, ValueError,
           "ctc_loss(): expected 1 to 2 dimensions for targets (concatenated, or (N, S) padded), but got shape ",
           shape_str(targets->shape));
  AK_CHECK(log_probs->numel() > 0, ValueError, "ctc_loss(): log_probs tensor must not be empty, got shape ",
           shape_str(log_probs->shape));
  check_same_device(log_probs, targets, "ctc_loss");
  const int64_t T = log_probs->shape[0], N = log_probs->shape[1], C = log_probs->shape[2];
  AK_CHECK(blank >= 0 && blank < C, ValueError, "ctc_loss(): blank must be in label range [0, ", C, "), got ",
           blank);
  AK_CHECK(static_cast<int64_t>(input_lengths.size()) == N, ValueError,
           "ctc_loss(): input_lengths must be of size batch_size ", N, ", got ", input_lengths.size(), " lengths");
  AK_CHECK(static_cast<int64_t>(target_lengths.size()) == N, ValueError,
           "ctc_loss(): target_lengths must be of size batch_size ", N, ", got ", target_lengths.size(), " lengths");
  std::vector<int64_t> offsets(static_cast<size_t>(N));
  int64_t max_len = 0, pos = 0;
  const bool padded = targets->ndim() == 2;
  const int64_t S = padded ? targets->shape[1] : 0;
  for (int64_t n = 0; n < N; ++n) {
    const int64_t len = target_lengths[static_cast<size_t>(n)];
    AK_CHECK(len >= 0, ValueError, "ctc_loss(): expected target_lengths to have value at least 0, but got value ",
             len, " (at batch index ", n, ")");
    offsets[static_cast<size_t>(n)] = padded ? n * S : pos;
    pos += len;
    max_len = std::max(max_len, len);
  }
  if (padded) {
    AK_CHECK(targets->shape[0] == N, ValueError, "ctc_loss(): expected padded targets to have size ", N,
             " (the batch size) at dimension 0, but got shape ", shape_str(targets->shape));
    AK_CHECK(S >= max_len, ValueError, "ctc_loss(): expected targets to have size at least ", max_len,
             " (the longest target length) at dimension 1, but got shape ", shape_str(targets->shape));
  } else {
    AK_CHECK(targets->shape[0] == pos, ValueError, "ctc_loss(): expected concatenated targets to have size ", pos,
             " (the sum of target_lengths), but got shape ", shape_str(targets->shape));
  }
  for (int64_t n = 0; n < N; ++n) {
    const int64_t len = input_lengths[static_cast<size_t>(n)];
    AK_CHECK(len >= 0, ValueError, "ctc_loss(): expected input_lengths to have value at least 0, but got value ",
             len, " (at batch index ", n, ")");
    AK_CHECK(len <= T, ValueError, "ctc_loss(): expected input_lengths to have value at most ", T,
             " (the length of log_probs), but got value ", len, " (at batch index ", n, ")");
  }
  // Every label a sample reads must be a class: PyTorch reads out of bounds here (undefined
  // behaviour); a clear IndexError is the only safe answer. A label equal to blank is allowed,
  // as in PyTorch.
  {
    const TensorPtr host = contiguous(to_device(targets, Device{}));
    const int64_t* tp = host->data<int64_t>();
    const int64_t row = padded ? host->strides[0] : 0;
    for (int64_t n = 0; n < N; ++n)
      for (int64_t s = 0; s < target_lengths[static_cast<size_t>(n)]; ++s) {
        const int64_t c = padded ? tp[n * row + s] : tp[offsets[static_cast<size_t>(n)] + s];
        AK_CHECK(c >= 0 && c < C, IndexError, "ctc_loss(): target label ", c, " out of range for ", C,
                 " classes (sample ", n, ", position ", s, "; labels must be in [0, ", C, "))");
      }
  }
  const Backend& be = backend(log_probs->device());
  AK_CHECK(be.ctc_loss && be.ctc_loss_backward, RuntimeError, "ctc_loss(): the ", log_probs->device().str(),
           " backend has no CTC loss kernel; compute it on the CPU (log_probs.cpu())");
  // The kernel reads contiguous data; the copies stay out of the graph.
  const TensorPtr lp = contiguous(autograd::detach(log_probs));
  const TensorPtr tg = contiguous(reshape(autograd::detach(targets), {targets->numel()}));
  const Device dev = log_probs->device();
  const TensorPtr il = lengths_tensor(input_lengths, dev), tl = lengths_tensor(target_lengths, dev),
                  off = lengths_tensor(offsets, dev);
  TensorPtr nll = Tensor::empty({N}, log_probs->dtype, dev);
  TensorPtr log_alpha = Tensor::empty({N, T, 2 * max_len + 1}, log_probs->dtype, dev);
  const CtcLossArgs args{il.get(), tl.get(), off.get(), blank, zero_infinity};
  be.ctc_loss(*nll, *log_alpha, *lp, *tg, args);
  TensorPtr loss = nll;
  if (zero_infinity) {
    // PyTorch's where(loss == inf, 0, loss): an impossible alignment costs nothing.
    const TensorPtr inf = binary_scalar(BinaryOp::Eq, nll, Scalar::from_double(std::numeric_limits<double>::infinity()), false);
    loss = where(inf, wrap_scalar(Scalar::from_double(0), nll), nll);
  }
  if (autograd::should_record({&log_probs}))
    autograd::record_ctc_loss(loss, log_probs, lp, tg, nll, log_alpha, il, tl, off, blank, zero_infinity);
  return loss;
}

}  // namespace aakaar::ops
