// Backward of the CTC loss: grad[t, n, c] = g[n] (exp(lp) - gamma_t(c)) for t < input_lengths[n],
// gamma the posterior of symbol c at frame t, computed from the forward variables log_alpha
// (saved by the forward) and the backward variables beta (computed here), as PyTorch does;
// 0 for a sample whose loss was infinite when zero_infinity is set.
//
// exp(lp) - gamma is PyTorch's choice: the gradient with respect to the logits of the
// log_softmax that made lp (the true d loss / d lp is -gamma; the two agree after log_softmax's
// backward, since sum_c gamma_t(c) = 1). It matches torch.nn.functional.ctc_loss exactly.
//
// The device's fused kernel (backend entry ctc_loss_backward; the CPU's is in
// cpu/fused/ctc_loss.cpp) writes it. It is not itself differentiable, as in PyTorch: under
// create_graph the gradient is recorded with a node whose backward raises.
#include "autograd/derivatives_ctc_loss.h"

#include "autograd/derivatives.h"
#include "autograd/function.h"
#include "core/error.h"

namespace aakaar::autograd {

void record_ctc_loss(const TensorPtr& loss, const TensorPtr& log_probs, const TensorPtr& lp,
                     const TensorPtr& targets, const TensorPtr& nll, const TensorPtr& log_alpha, const TensorPtr& il,
                     const TensorPtr& tl, const TensorPtr& offsets, int64_t blank, bool zero_infinity) {
  record("CtcLossBackward", {log_probs}, loss, {lp, targets, nll, log_alpha, il, tl, offsets},
         [blank, zero_infinity](const TensorList& g, const TensorList& s, const Needs&) {
           const TensorPtr& lp = s[0];
           const Backend& be = backend(lp->device());
           AK_CHECK(be.ctc_loss_backward, RuntimeError, "ctc_loss backward: the ", lp->device().str(),
                    " backend has no CTC loss kernel");
           const TensorPtr gc = ops::contiguous(detach(g[0]));
           TensorPtr grad = Tensor::empty(lp->shape, lp->dtype, lp->device());
           const CtcLossArgs a{s[4].get(), s[5].get(), s[6].get(), blank, zero_infinity};
           be.ctc_loss_backward(*grad, *gc, *lp, *s[1], *s[2], *s[3], a);
           // create_graph: the gradient must say that it cannot be differentiated again (PyTorch
           // raises "derivative for aten::_ctc_loss_backward is not implemented" there too).
           if (grad_enabled())
             record("CtcLossBackwardBackward", {g[0]}, grad, {},
                    [](const TensorList&, const TensorList&, const Needs&) -> TensorList {
                      throw RuntimeError(
                          "ctc_loss: the derivative of the CTC loss's gradient (double backward) is not "
                          "implemented, as in PyTorch");
                    });
           return TensorList{grad};
         });
}

}  // namespace aakaar::autograd
