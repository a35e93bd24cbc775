"""``differentiable=True``: an optimizer step recorded by autograd, composed of aakaar's ops.

The fused native step (``_C._optimizer_step``) updates parameters and state in place
where autograd cannot see it. With ``differentiable=True`` a group's step instead runs
here, with grad mode on, as PyTorch's single-tensor code path does: ordinary in-place
ops on the (non-leaf) parameters and their state, so that a loss computed from the
updated parameters can be differentiated with respect to earlier parameters, gradients,
state, and hyper-parameters given as tensors (``lr=aakaar.tensor(0.01, requires_grad=True)``).

Each function transcribes torch.optim's ``_single_tensor_*`` step in its differentiable
branch, including what that branch cuts or refuses: SGD's first momentum buffer is a
detached copy of the gradient; Adam's bias corrections use the float32 step counter;
NAdam's use the float32 ``mu_product``; ASGD reads eta as a number (so ``lr`` gets no
gradient); Adagrad, RMSprop, Adamax, Adadelta and Rprop take ``lr`` as a number and so
refuse an ``lr`` tensor that requires grad (TypeError, as PyTorch's). A Python scalar
divided by a tensor is ``tensor.reciprocal() * scalar`` here because that is how
PyTorch's ``__rtruediv__`` computes it, and the float32 counters round the same way.

It is one ordinary op per line, a Python loop over the parameters: the cost of being
recordable, paid only when asked for.
"""

from __future__ import annotations

from typing import Any, Callable

from .. import _C
from .._C import Tensor
from ..autograd import enable_grad

__all__ = ["composed_step"]

K = _C.OptimizerKind


def _to_scalar(x: Any) -> Any:
    """A one-element tensor hyper-parameter as a 0-d tensor (torch.optim's _to_scalar); numbers unchanged."""
    if isinstance(x, Tensor) and x.dim() != 0:
        return x.reshape([])
    return x


def _number(x: Any) -> float:
    """What PyTorch's ``value=``/``alpha=`` arguments accept: a number, or a tensor that does not
    require grad (read as its value); a tensor that requires grad is a TypeError there."""
    return float(x.item()) if isinstance(x, Tensor) else float(x)


def _number_arg(x: Any, op: str, arg: str) -> float:
    if isinstance(x, Tensor) and x.requires_grad:
        raise TypeError(f"{op}(): argument '{arg}' must be Number, not Tensor (with differentiable=True this "
                        "optimizer takes lr as a number, as PyTorch's does: it cannot differentiate with respect "
                        "to an lr tensor that requires grad)")
    return _number(x)


def _dev(x: Any, like: Tensor) -> Any:
    """x on like's device when x is a tensor elsewhere. The step counters (and NAdam's mu_product,
    ASGD's eta and mu) are 0-d CPU tensors, as in PyTorch, whose ops let a 0-d CPU tensor meet a CUDA
    tensor; aakaar's ops want one device, so the counter's arithmetic runs on the host (the same
    bits as on the CPU) and only its result travels, where it meets the parameter's tensors."""
    if isinstance(x, Tensor) and x.device != like.device:
        return x.to(like.device)
    return x


def _rdiv(number: Any, t: Any) -> Any:
    """``number / t`` as PyTorch computes it when t is a tensor: ``t.reciprocal() * number``."""
    if isinstance(t, Tensor) and not isinstance(number, Tensor):
        return t.reciprocal() * number
    return number / _dev(t, number) if isinstance(number, Tensor) else number / t


def _addcmul_(t: Tensor, a: Tensor, b: Any, value: Any = 1.0) -> Tensor:
    """``t.addcmul_(a, b, value=value)``: t += value * a * b."""
    return t.add_(a * b * value) if isinstance(value, Tensor) else t.add_(a * b, alpha=float(value))


def _weight_decay(grad: Tensor, p: Tensor, weight_decay: Any) -> Tensor:
    """grad + weight_decay * p; a weight_decay tensor that requires grad is recorded (on a clone of p), as in PyTorch."""
    if isinstance(weight_decay, Tensor) and weight_decay.requires_grad:
        return grad.add_(p.clone() * weight_decay)
    return grad.add(p, alpha=_number(weight_decay))


def _with_grads(opt: Any, group: dict[str, Any], init: Callable[[Tensor, dict], None] | None = None) -> list[Tensor]:
    params = [p for p in group["params"] if p.grad is not None]
    if init is not None:
        for p in params:
            if len(opt.state[p]) == 0:
                init(p, opt.state[p])
    return params


def _sgd(opt: Any, group: dict[str, Any]) -> None:
    lr, wd, momentum = _to_scalar(group["lr"]), group["weight_decay"], group["momentum"]
    dampening, nesterov = group["dampening"], group["nesterov"]
    for p in _with_grads(opt, group):
        grad = -p.grad if group["maximize"] else p.grad
        if wd != 0:
            grad = _weight_decay(grad, p, wd)
        if momentum != 0:
            state = opt.state[p]
            buf = state.get("momentum_buffer")
            if buf is None:  # torch: the first buffer is a detached copy of the gradient
                buf = grad.detach().clone()
                state["momentum_buffer"] = buf
            else:
                buf.mul_(momentum).add_(grad, alpha=1 - dampening)
            grad = grad.add(buf, alpha=momentum) if nesterov else buf
        if isinstance(lr, Tensor) and lr.requires_grad:
            p.sub_(grad * lr)
        else:
            p.add_(grad, alpha=-_number(lr))


def _adam(opt: Any, group: dict[str, Any]) -> None:
    lr = _to_scalar(group["lr"])
    beta1, beta2 = (_to_scalar(b) for b in group["betas"])
    wd, eps, amsgrad = group["weight_decay"], group["eps"], group["amsgrad"]

    for p in _with_grads(opt, group, opt._init_state(group)):
        state = opt.state[p]
        step_t = state["step"]
        if step_t.requires_grad:
            raise RuntimeError("`requires_grad` is not supported for `step` in differentiable mode")
        grad = -p.grad if group["maximize"] else p.grad
        exp_avg, exp_avg_sq = state["exp_avg"], state["exp_avg_sq"]
        step_t.add_(1)
        if wd != 0:
            if group["decoupled_weight_decay"]:
                p.mul_(1 - lr * wd)
            else:
                grad = _weight_decay(grad, p, wd)
        exp_avg.lerp_(grad, _dev(1 - beta1, p))
        if isinstance(beta2, Tensor) and beta2.requires_grad:
            exp_avg_sq.lerp_(grad.square(), _dev(1 - beta2, p))
        else:
            _addcmul_(exp_avg_sq.mul_(_dev(beta2, p)), grad, grad, value=1 - _number(beta2))
        # The step counter is a float32 tensor, so the bias corrections are float32, as in torch.
        step = step_t.clone() if isinstance(beta1, Tensor) and beta1.requires_grad else step_t
        bias_correction1 = 1 - beta1 ** step
        step = step_t.clone() if isinstance(beta2, Tensor) and beta2.requires_grad else step_t
        bias_correction2 = 1 - beta2 ** step
        step_size_neg = _rdiv(lr, bias_correction1).neg()
        bias_correction2_sqrt = bias_correction2.sqrt()
        if amsgrad:
            max_exp_avg_sq = state["max_exp_avg_sq"]
            max_exp_avg_sq.copy_(max_exp_avg_sq.clone().maximum(exp_avg_sq))
            second = max_exp_avg_sq
        else:
            second = exp_avg_sq
        scale = _dev(_dev(bias_correction2_sqrt, step_size_neg) * step_size_neg, p)
        denom = (second.sqrt() / scale).add_(_dev(_rdiv(eps, step_size_neg), p))
        p.add_(exp_avg.clone() / denom)


def _adagrad(opt: Any, group: dict[str, Any]) -> None:
    lr = _to_scalar(group["lr"])
    wd, lr_decay, eps = group["weight_decay"], group["lr_decay"], group["eps"]
    for p in _with_grads(opt, group):
        state = opt.state[p]  # created with the optimizer, as PyTorch's
        state_sum, step_t = state["sum"], state["step"]
        step_t.add_(1)
        step = step_t.item()
        grad = -p.grad if group["maximize"] else p.grad
        if wd != 0:
            grad = grad.add(p, alpha=wd)
        clr = _number_arg(lr, "addcdiv_", "value") / (1 + (step - 1) * lr_decay)
        _addcmul_(state_sum, grad, grad)
        std = state_sum.sqrt() + eps
        p.add_(grad / std, alpha=-clr)


def _rmsprop(opt: Any, group: dict[str, Any]) -> None:
    lr = _to_scalar(group["lr"])
    alpha, eps, wd, momentum = group["alpha"], group["eps"], group["weight_decay"], group["momentum"]
    for p in _with_grads(opt, group, opt._init_state(group)):
        state = opt.state[p]
        grad = -p.grad if group["maximize"] else p.grad
        square_avg = state["square_avg"]
        state["step"].add_(1)
        if wd != 0:
            grad = grad.add(p, alpha=wd)
        _addcmul_(square_avg.mul_(alpha), grad, grad, value=1 - alpha)
        if group["centered"]:
            grad_avg = state["grad_avg"]
            grad_avg.lerp_(grad, 1 - alpha)
            avg = square_avg.sub(grad_avg * grad_avg).sqrt_()
        else:
            avg = square_avg.sqrt()
        avg = avg.add(eps)
        if momentum > 0:
            buf = state["momentum_buffer"]
            buf.mul_(momentum).add_(grad / avg)
            p.add_(buf, alpha=-_number_arg(lr, "add_", "alpha"))
        else:
            p.add_(grad / avg, alpha=-_number_arg(lr, "addcdiv_", "value"))


def _adamax(opt: Any, group: dict[str, Any]) -> None:
    lr = _to_scalar(group["lr"])
    beta1, beta2 = group["betas"]
    eps, wd = group["eps"], group["weight_decay"]
    for p in _with_grads(opt, group, opt._init_state(group)):
        state = opt.state[p]
        grad = -p.grad if group["maximize"] else p.grad
        exp_avg, exp_inf, step_t = state["exp_avg"], state["exp_inf"], state["step"]
        step_t.add_(1)
        if wd != 0:
            grad = grad.add(p, alpha=wd)
        exp_avg.lerp_(grad, 1 - beta1)
        norm_buf = _C.stack([exp_inf.mul_(beta2), grad.abs().add_(eps)], 0)
        exp_inf.copy_(norm_buf.amax(0))
        clr = _number_arg(lr, "addcdiv_", "value") / (1 - beta1 ** step_t.item())
        p.add_(exp_avg / exp_inf, alpha=-clr)


def _nadam(opt: Any, group: dict[str, Any]) -> None:
    lr = _to_scalar(group["lr"])
    beta1, beta2 = group["betas"]
    eps, wd, momentum_decay = group["eps"], group["weight_decay"], group["momentum_decay"]
    for p in _with_grads(opt, group, opt._init_state(group)):
        state = opt.state[p]
        grad = -p.grad if group["maximize"] else p.grad
        exp_avg, exp_avg_sq = state["exp_avg"], state["exp_avg_sq"]
        mu_product, step_t = state["mu_product"], state["step"]
        step_t.add_(1)
        step = step_t.item()
        bias_correction2 = 1 - beta2 ** step
        if wd != 0:
            if group["decoupled_weight_decay"]:
                p.mul_(1 - lr * wd)
            else:
                grad = grad.add(p, alpha=wd)
        mu = beta1 * (1.0 - 0.5 * (0.96 ** (step * momentum_decay)))
        mu_next = beta1 * (1.0 - 0.5 * (0.96 ** ((step + 1) * momentum_decay)))
        mu_product.mul_(mu)  # the float32 counter, as in torch
        exp_avg.lerp_(grad, 1 - beta1)
        _addcmul_(exp_avg_sq.mul_(beta2), grad, grad, value=1 - beta2)
        denom = exp_avg_sq.div(bias_correction2).sqrt().add(eps)
        mu_product_next = mu_product * mu_next
        grad = grad * _dev(_rdiv(-lr * (1.0 - mu), 1.0 - mu_product), p)
        exp_avg = exp_avg * _dev(_rdiv(-lr * mu_next, 1.0 - mu_product_next), p)
        p.add_(grad / denom)
        p.add_(exp_avg / denom)


def _radam(opt: Any, group: dict[str, Any]) -> None:
    lr = _to_scalar(group["lr"])
    beta1, beta2 = group["betas"]
    eps, wd = group["eps"], group["weight_decay"]
    for p in _with_grads(opt, group, opt._init_state(group)):
        state = opt.state[p]
        grad = -p.grad if group["maximize"] else p.grad
        exp_avg, exp_avg_sq, step_t = state["exp_avg"], state["exp_avg_sq"], state["step"]
        step_t.add_(1)
        step = step_t.item()
        if wd != 0:
            if group["decoupled_weight_decay"]:
                p.mul_(1 - lr * wd)
            else:
                grad = grad.add(p, alpha=wd)
        exp_avg.lerp_(grad, 1 - beta1)
        _addcmul_(exp_avg_sq.mul_(beta2), grad, grad, value=1 - beta2)
        bias_correction1 = 1 - beta1 ** step
        bias_correction2 = 1 - beta2 ** step
        bias_corrected_exp_avg = exp_avg / bias_correction1
        rho_inf = 2 / (1 - beta2) - 1
        rho_t = rho_inf - 2 * step * (beta2 ** step) / bias_correction2
        if rho_t > 5.0:
            rect = ((rho_t - 4) * (rho_t - 2) * rho_inf / ((rho_inf - 4) * (rho_inf - 2) * rho_t)) ** 0.5
            adaptive_lr = _rdiv(bias_correction2 ** 0.5, exp_avg_sq.sqrt().add(eps))
            p.add_(bias_corrected_exp_avg * lr * adaptive_lr * rect, alpha=-1.0)
        else:
            p.add_(bias_corrected_exp_avg * lr, alpha=-1.0)


def _adadelta(opt: Any, group: dict[str, Any]) -> None:
    lr = _to_scalar(group["lr"])
    rho, eps, wd = group["rho"], group["eps"], group["weight_decay"]
    for p in _with_grads(opt, group, opt._init_state(group)):
        state = opt.state[p]
        square_avg, acc_delta = state["square_avg"], state["acc_delta"]
        state["step"].add_(1)
        grad = -p.grad if group["maximize"] else p.grad
        if wd != 0:
            grad = grad.add(p, alpha=wd)
        _addcmul_(square_avg.mul_(rho), grad, grad, value=1 - rho)
        std = square_avg.add(eps).sqrt_()
        delta = acc_delta.add(eps).sqrt_().clone()
        delta.div_(std).mul_(grad)
        _addcmul_(acc_delta.mul_(rho), delta, delta, value=1 - rho)
        p.add_(delta, alpha=-_number_arg(lr, "add_", "alpha"))


def _rprop(opt: Any, group: dict[str, Any]) -> None:
    etaminus, etaplus = group["etas"]
    step_size_min, step_size_max = group["step_sizes"]

    _number_arg(group["lr"], "full_like", "fill_value")  # each element's first step size is lr, a number
    for p in _with_grads(opt, group, opt._init_state(group)):
        state = opt.state[p]
        grad = -p.grad if group["maximize"] else p.grad
        prev, step_size = state["prev"], state["step_size"]
        state["step"].add_(1)
        sign = grad.mul(prev.clone()).sign()
        # torch writes etaplus, etaminus and 1 into the sign through masks, in this order
        factor = sign.masked_fill(sign > 0, etaplus)
        factor = factor.masked_fill(factor < 0, etaminus)
        factor = factor.masked_fill(factor == 0, 1.0)
        step_size.mul_(factor).clamp_(step_size_min, step_size_max)
        grad = grad.clone().masked_fill(factor == etaminus, 0.0)
        p.sub_(grad.sign() * step_size)
        prev.copy_(grad)


def _asgd(opt: Any, group: dict[str, Any]) -> None:
    lr = _to_scalar(group["lr"])
    lambd, alpha, t0, wd = group["lambd"], group["alpha"], group["t0"], group["weight_decay"]
    for p in _with_grads(opt, group, opt._init_state(group)):
        state = opt.state[p]
        grad = -p.grad if group["maximize"] else p.grad
        mu, ax, eta, step_t = state["mu"], state["ax"], state["eta"], state["step"]
        step_t.add_(1)
        if wd != 0:
            grad = grad.add(p, alpha=wd)
        eta_value = eta.item()  # a number: torch's non-capturable path, so lr gets no gradient here
        p.mul_(1 - lambd * eta_value)
        p.add_(grad, alpha=-eta_value)
        if mu.item() != 1:
            ax.add_(p.sub(ax).mul_(_dev(mu, p)))
        else:
            ax.copy_(p)
        step = step_t.item()
        new_eta = lr / ((1 + lambd * lr * step) ** alpha)
        eta.copy_(_dev(new_eta, eta)) if isinstance(new_eta, Tensor) else eta.fill_(new_eta)
        mu.fill_(1 / max(1, step - t0))


_STEPS: dict[Any, Callable[[Any, dict], None]] = {
    K.SGD: _sgd, K.Adam: _adam, K.Adagrad: _adagrad, K.RMSprop: _rmsprop, K.Adamax: _adamax, K.NAdam: _nadam,
    K.RAdam: _radam, K.Adadelta: _adadelta, K.Rprop: _rprop, K.ASGD: _asgd,
}


def composed_step(opt: Any, kind: Any, group: dict[str, Any]) -> None:
    """One recorded step of ``group`` (grad mode on), the differentiable branch of torch.optim's
    single-tensor code. ``foreach=True`` is refused as PyTorch refuses it (its multi-tensor ops
    are not recorded), except by SGD, whose foreach path PyTorch runs."""
    if group.get("foreach") and kind != K.SGD:
        raise AssertionError("_foreach ops don't support autograd")
    with enable_grad():
        _STEPS[kind](opt, group)
