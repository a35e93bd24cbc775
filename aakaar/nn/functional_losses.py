"""Every loss of ``torch.nn.functional``, with PyTorch's argument names,
defaults, reductions, checks and exception classes. ``aakaar.nn.functional``
re-exports them; ``aakaar.nn.loss`` wraps each in a module.

Which losses are single fused ops of the core (one pass forward, one pass
backward, one autograd node; entries of the backend table, composed from
ordinary ops on a device without them):

* ``cross_entropy`` with class-index targets (any rank, weight, ignore_index,
  label_smoothing): ``_C.cross_entropy`` on logits moved to (rows, C); with
  probability targets too, when neither they nor the weights need a gradient;
* ``mse_loss``, ``l1_loss``, ``huber_loss``, ``smooth_l1_loss``,
  ``binary_cross_entropy`` and ``binary_cross_entropy_with_logits``:
  ``_C.pointwise_loss``, when neither the target nor a weight needs a gradient;
* ``ctc_loss``: ``_C.ctc_loss``, the alpha recursion in log space forward and
  the beta recursion backward (the CPU's and CUDA's kernels; no composite: a device
  without the kernel raises NotImplementedError).

Every fused node can be differentiated twice (``create_graph=True``): its backward is
written with recorded ops then, so a gradient of a gradient matches PyTorch's
(tests/nn/test_losses_double_backward.py). The exception is ``ctc_loss``, whose
gradient, as in PyTorch, raises RuntimeError when differentiated again.

Everything else composes tensor ops, written the way PyTorch's own composite
is (the same formula, so the same rounding), and the C++ autograd engine
differentiates it. Where a naive composition would misbehave (0 * inf in a
branch that ``where`` discards, a log of 0) the comment says how it is avoided.

Bad input raises what PyTorch raises (``ArgumentError`` is both the ValueError
and the RuntimeError PyTorch uses for shape errors, ``DTypeError`` both
TypeError and RuntimeError), with a message naming the loss, the argument and
the shapes.
"""

from __future__ import annotations

import math
import operator
from typing import Callable

from .. import _C
from .._C import ArgumentError, DTypeError, Tensor
from ..autograd import no_grad

__all__ = [
    "l1_loss", "mse_loss", "nll_loss", "cross_entropy", "poisson_nll_loss", "gaussian_nll_loss", "kl_div",
    "binary_cross_entropy", "binary_cross_entropy_with_logits", "huber_loss", "smooth_l1_loss",
    "margin_ranking_loss", "hinge_embedding_loss", "soft_margin_loss", "multilabel_soft_margin_loss",
    "multi_margin_loss", "cosine_embedding_loss", "triplet_margin_loss", "multilabel_margin_loss",
    "triplet_margin_with_distance_loss", "pairwise_distance", "logsigmoid", "ctc_loss",
]

_I64 = _C.dtype.int64


# ---------------------------------------------------------------- shared checks

def _shape(t: Tensor) -> tuple:
    return tuple(t.shape)


def _check_tensor(x: object, fn: str, name: str = "input") -> None:
    if not isinstance(x, Tensor):
        raise TypeError(f"{fn}(): {name} must be an aakaar.Tensor, got {type(x).__name__}")


def _check_float(x: Tensor, fn: str, name: str = "input") -> None:
    if not x.dtype.is_floating_point:
        raise DTypeError(f"{fn}(): {name} must be a floating-point tensor, got {x.dtype.name} (shape {_shape(x)})")


def _legacy_reduction(size_average: bool | None, reduce: bool | None) -> str:
    """PyTorch's mapping of the deprecated size_average/reduce flags to a reduction string."""
    size_average = True if size_average is None else size_average
    reduce = True if reduce is None else reduce
    if size_average and reduce:
        return "mean"
    return "sum" if reduce else "none"


def _reduction(reduction: object, size_average: bool | None, reduce: bool | None, fn: str,
               extra: tuple[str, ...] = ()) -> str:
    if size_average is not None or reduce is not None:
        return _legacy_reduction(size_average, reduce)
    if reduction not in ("mean", "sum", "none") + extra:
        allowed = ", ".join(repr(r) for r in ("mean", "sum", "none") + extra)
        raise ArgumentError(f"{fn}(): reduction must be one of {allowed}, got {reduction!r}"
                            if extra else f"{fn}(): reduction must be 'mean', 'sum' or 'none', got {reduction!r}")
    return reduction  # type: ignore[return-value]


def _reduce(loss: Tensor, reduction: str) -> Tensor:
    if reduction == "mean":
        return loss.mean()  # an empty loss gives 0/0 = NaN, as in PyTorch
    if reduction == "sum":
        return loss.sum()
    return loss


def _check_same_shape(input: Tensor, target: Tensor, fn: str, name: str = "target") -> None:
    """The pointwise losses want equal shapes: PyTorch broadcasts with a warning that it is
    "likely to lead to incorrect results"; here it is an error that names both shapes."""
    if _shape(input) != _shape(target):
        raise ArgumentError(f"{fn}(): input shape {_shape(input)} and {name} shape {_shape(target)} differ "
                            f"(the shapes must be equal; broadcast the {name} explicitly if you mean it)")


def _scalar(value: float, like: Tensor) -> Tensor:
    return _C.full((), value, dtype=like.dtype, device=like.device)


def _needs_grad(*ts: Tensor | None) -> bool:
    from ..autograd import is_grad_enabled
    return is_grad_enabled() and any(t is not None and t.requires_grad for t in ts)


def logsigmoid(input: Tensor) -> Tensor:
    """log(sigmoid(x)) = min(x, 0) - log1p(exp(-|x|)): finite for every finite x."""
    return input.clamp(max=0.0) - (-input.abs()).exp().log1p()


# ---------------------------------------------------------------- pointwise regression losses

def _pointwise(kind: str, input: Tensor, target: Tensor, reduction: str, param: float = 0.0,
               weight: Tensor | None = None, pos_weight: Tensor | None = None) -> Tensor | None:
    """The fused op when it applies (the core has it for this device and only the input may
    need a gradient), else None and the caller composes."""
    fused = getattr(_C, "pointwise_loss", None)
    if fused is None or _needs_grad(target, weight, pos_weight):
        return None
    if input.dtype != target.dtype or (weight is not None and weight.dtype != input.dtype) or (
            pos_weight is not None and pos_weight.dtype != input.dtype):
        return None
    if not _C._backend_fused_kernels(input.device).get("pointwise_loss", False):
        return None
    return fused(kind, input, target, reduction, param, weight, pos_weight)


def _regression_args(input: Tensor, target: Tensor, fn: str, reduction: object, size_average=None,
                     reduce=None) -> str:
    _check_tensor(input, fn)
    _check_tensor(target, fn, "target")
    red = _reduction(reduction, size_average, reduce, fn)
    _check_same_shape(input, target, fn)
    _check_float(input, fn)
    _check_float(target, fn, "target")
    return red


def _elementwise_weight(weight: Tensor | None, input: Tensor, fn: str) -> Tensor | None:
    if weight is None:
        return None
    _check_tensor(weight, fn, "weight")
    _check_same_shape(input, weight, fn, "weight")
    return weight


def _weighted_mean(kind: str, input: Tensor, target: Tensor, weight: Tensor, red: str) -> Tensor | None:
    """L1 and MSE with a weight: PyTorch's mean divides by the sum of the weights, not by n."""
    if red != "mean":
        return None
    total = _pointwise(kind, input, target, "sum", 0.0, weight)
    if total is None:
        diff = input - target
        total = ((diff.abs() if kind == "l1" else diff * diff) * weight).sum()
    return total / weight.sum()


def l1_loss(input: Tensor, target: Tensor, size_average: bool | None = None, reduce: bool | None = None,
            reduction: str = "mean", weight: Tensor | None = None) -> Tensor:
    """|input - target| (times ``weight``, the input's shape; the mean then divides by the sum of the
    weights, as PyTorch's); the gradient at 0 is 0."""
    red = _regression_args(input, target, "l1_loss", reduction, size_average, reduce)
    weight = _elementwise_weight(weight, input, "l1_loss")
    if weight is not None and red == "mean":
        return _weighted_mean("l1", input, target, weight, red)
    fused = _pointwise("l1", input, target, red, 0.0, weight)
    if fused is not None:
        return fused
    loss = (input - target).abs()
    return _reduce(loss * weight if weight is not None else loss, red)


def mse_loss(input: Tensor, target: Tensor, size_average: bool | None = None, reduce: bool | None = None,
             reduction: str = "mean", weight: Tensor | None = None) -> Tensor:
    """(input - target)^2 (times ``weight``); shapes must match exactly: no silent broadcasting."""
    red = _regression_args(input, target, "mse_loss", reduction, size_average, reduce)
    weight = _elementwise_weight(weight, input, "mse_loss")
    if weight is not None and red == "mean":
        return _weighted_mean("mse", input, target, weight, red)
    fused = _pointwise("mse", input, target, red, 0.0, weight)
    if fused is not None:
        return fused
    diff = input - target
    loss = diff * diff
    return _reduce(loss * weight if weight is not None else loss, red)


def _huber_composite(diff: Tensor, delta: float) -> Tensor:
    # 0.5 d^2 inside |d| < delta, delta (|d| - delta/2) outside; each branch is finite everywhere.
    ad = diff.abs()
    return _C.where(ad < delta, diff * diff * 0.5, (ad - 0.5 * delta) * delta)


def huber_loss(input: Tensor, target: Tensor, reduction: str = "mean", delta: float = 1.0,
               weight: Tensor | None = None) -> Tensor:
    """0.5 d^2 for |d| < delta, else delta (|d| - delta / 2), d = input - target."""
    fn = "huber_loss"
    red = _regression_args(input, target, fn, reduction)
    if not delta > 0:
        raise ArgumentError(f"huber_loss(): delta must be positive, got {delta}")
    weight = _elementwise_weight(weight, input, fn)
    fused = _pointwise("huber", input, target, red, float(delta), weight)
    if fused is not None:
        return fused
    loss = _huber_composite(input - target, delta)
    return _reduce(loss * weight if weight is not None else loss, red)


def smooth_l1_loss(input: Tensor, target: Tensor, size_average: bool | None = None, reduce: bool | None = None,
                   reduction: str = "mean", beta: float = 1.0) -> Tensor:
    """0.5 d^2 / beta for |d| < beta, else |d| - beta / 2; beta = 0 is the L1 loss."""
    fn = "smooth_l1_loss"
    red = _regression_args(input, target, fn, reduction, size_average, reduce)
    if beta < 0:
        raise ArgumentError(f"smooth_l1_loss(): beta must be non-negative, got {beta}")
    if beta == 0.0:
        return l1_loss(input, target, reduction=red)
    fused = _pointwise("smooth_l1", input, target, red, float(beta))
    if fused is not None:
        return fused
    diff = input - target
    ad = diff.abs()
    return _reduce(_C.where(ad < beta, diff * diff * (0.5 / beta), ad - 0.5 * beta), red)


# ---------------------------------------------------------------- classification: NLL and cross-entropy

def _class_layout(input: Tensor, target: Tensor, fn: str) -> tuple[int, tuple]:
    """C and the expected target shape for an input (C,), (N, C) or (N, C, d1, ...)."""
    if input.ndim == 0:
        raise ArgumentError(f"{fn}(): input must have a class dim: (C,), (N, C) or (N, C, d1, ...), got a 0-d tensor")
    if input.ndim == 1:
        return input.shape[0], ()
    return input.shape[1], (input.shape[0],) + tuple(input.shape[2:])


def _unravel(i: int, shape: tuple) -> tuple:
    out = []
    for n in reversed(shape):
        out.append(i % n)
        i //= n
    return tuple(reversed(out))


def _check_class_targets(input: Tensor, target: Tensor, fn: str, ignore_index: int, check_range: bool = True) -> int:
    """The number of classes, after checking the target's dtype and shape and (``check_range``) that every
    target names a class or is ``ignore_index``. The fused cross-entropy op checks the range itself, with the
    same message for targets of rank <= 1, so its caller skips the check here: five kernel calls and a
    host read per step of a training loop."""
    C, expected = _class_layout(input, target, fn)
    if target.dtype != _I64:
        raise DTypeError(f"{fn}(): target must be int64 class indices, got {target.dtype.name} "
                         f"(input shape {_shape(input)}, target shape {_shape(target)})")
    if _shape(target) != expected:
        raise ArgumentError(f"{fn}(): target shape {_shape(target)} does not match input shape {_shape(input)} "
                            f"(expected target shape {expected}: the input's shape without the class dim)")
    if check_range and target.numel():
        flat = target.reshape(-1)
        bad = ((flat < 0) | (flat >= C)) & (flat != ignore_index)
        if bool(bad.any().item()):
            i = int(bad.to(_I64).argmax().item())
            value = int(flat[i].item())
            where = f"batch index {i}" if target.ndim <= 1 else f"target index {_unravel(i, _shape(target))}"
            raise IndexError(f"{fn}(): target {value} out of range for {C} classes (at {where}; "
                             f"class indices must be in [0, {C}))")
    return C


def _check_weight(weight: Tensor | None, C: int, fn: str) -> None:
    if weight is None:
        return
    _check_tensor(weight, fn, "weight")
    if weight.ndim != 1 or weight.shape[0] != C:
        raise ArgumentError(f"{fn}(): weight must have shape ({C},), one value per class, got {_shape(weight)}")


def _to_rows(input: Tensor, target: Tensor, probs: bool = False) -> tuple[Tensor, Tensor]:
    """(N, C, d1, ...) and (N, d1, ...) as (rows, C) and (rows,): the class dim moved last
    (probability targets, of the input's shape, moved like the input)."""
    if input.ndim == 1:
        return input.unsqueeze(0), (target.unsqueeze(0) if probs else target.reshape(1))
    if input.ndim == 2:
        return input, target
    C = input.shape[1]
    perm = [0] + list(range(2, input.ndim)) + [1]
    rows = target.permute(*perm).reshape(-1, C) if probs else target.reshape(-1)
    return input.permute(*perm).reshape(-1, C), rows


def _from_rows(loss: Tensor, input: Tensor) -> Tensor:
    if input.ndim == 1:
        return loss.reshape(())
    if input.ndim == 2:
        return loss
    return loss.reshape((input.shape[0],) + tuple(input.shape[2:]))


def _nll_rows(logp: Tensor, t: Tensor, weight: Tensor | None, ignore_index: int, reduction: str) -> Tensor:
    """-w[t] logp[i, t] per row, 0 where t == ignore_index; the mean divides by the sum of the
    weights of the rows not ignored (0/0 = NaN when all are), as PyTorch."""
    keep = t != ignore_index
    safe = _C.where(keep, t, _C.zeros((), dtype=_I64, device=t.device))
    picked = logp.gather(1, safe.unsqueeze(1)).squeeze(1)
    w = keep.to(logp.dtype) if weight is None else weight.index_select(0, safe) * keep.to(logp.dtype)
    # where, not a product with the mask: an ignored row's -inf log-probability would make 0 * inf = NaN.
    loss = _C.where(keep, -picked * w, _scalar(0.0, logp))
    if reduction == "mean":
        return loss.sum() / w.sum()
    return _reduce(loss, reduction)


def nll_loss(input: Tensor, target: Tensor, weight: Tensor | None = None, size_average: bool | None = None,
             ignore_index: int = -100, reduce: bool | None = None, reduction: str = "mean") -> Tensor:
    """Negative log-likelihood -w[t] input[n, t] of class indices ``target`` under log-probabilities
    ``input`` of shape (C,), (N, C) or (N, C, d1, ...) (target: (), (N,) or (N, d1, ...))."""
    fn = "nll_loss"
    _check_tensor(input, fn)
    _check_tensor(target, fn, "target")
    red = _reduction(reduction, size_average, reduce, fn)
    _check_float(input, fn)
    C = _check_class_targets(input, target, fn, ignore_index)
    _check_weight(weight, C, fn)
    x, t = _to_rows(input, target)
    loss = _nll_rows(x, t, weight, ignore_index, "none" if red == "none" else red)
    return _from_rows(loss, input) if red == "none" else loss


def _cross_entropy_probs(input: Tensor, target: Tensor, weight: Tensor | None, red: str,
                         label_smoothing: float) -> Tensor:
    """Class-probability targets (PyTorch's formula): -sum_c w_c t_c log_softmax(x)_c, the mean
    dividing by the number of rows, not by the weights."""
    C = input.shape[1] if input.ndim > 1 else input.shape[0]
    cdim = 1 if input.ndim > 1 else 0
    logp = input.log_softmax(cdim)
    if label_smoothing > 0:
        target = target * (1 - label_smoothing) + label_smoothing / C
    terms = logp * target
    if weight is not None:
        shape = [1] * input.ndim
        shape[cdim] = C
        terms = terms * weight.reshape(*shape)
    if red == "none":
        return -terms.sum(cdim)
    total = -terms.sum()
    if red == "sum":
        return total
    rows = input.numel() // C if C else 0
    return total / rows if rows else total * float("nan")


def cross_entropy(input: Tensor, target: Tensor, weight: Tensor | None = None, size_average: bool | None = None,
                  ignore_index: int = -100, reduce: bool | None = None, reduction: str = "mean",
                  label_smoothing: float = 0.0) -> Tensor:
    """Softmax cross-entropy of logits (C,), (N, C) or (N, C, d1, ...).

    ``target`` holds either class indices (int64, the input's shape without
    the class dim) or class probabilities (floating, the input's shape).
    Class indices are one fused op of the core (``_C.cross_entropy``) on the
    logits viewed as (rows, C): per row the stable log-sum-exp (max, exp,
    sum) minus the target's logit, the class weights, ``ignore_index`` and
    label smoothing, and one autograd node that writes the whole gradient in
    one pass. Probability targets take the same fused op (the loss
    sum_c w_c q'_c (lse - x_c) per row, q' the smoothed probabilities, the mean over
    rows) unless they or the weights need a gradient: then they compose
    ``log_softmax``, a product and a sum.
    """
    fn = "cross_entropy"
    _check_tensor(input, fn)
    _check_tensor(target, fn, "target")
    red = _reduction(reduction, size_average, reduce, fn)
    _check_float(input, fn)
    if not 0.0 <= label_smoothing <= 1.0:
        raise ArgumentError(f"cross_entropy(): label_smoothing must be between 0.0 and 1.0, got {label_smoothing}")
    if input.ndim == 0:
        raise ArgumentError("cross_entropy(): input must have a class dim: (C,), (N, C) or (N, C, d1, ...), "
                            "got a 0-d tensor")
    if _shape(target) == _shape(input) and (target.dtype.is_floating_point or target.dtype != _I64):
        if not target.dtype.is_floating_point:
            raise DTypeError(f"cross_entropy(): probability targets must be floating, got {target.dtype.name}")
        if ignore_index >= 0:
            raise ArgumentError(f"cross_entropy(): ignore_index={ignore_index} is not supported for probability "
                                "targets")
        C = input.shape[1] if input.ndim > 1 else input.shape[0]
        _check_weight(weight, C, fn)
        if target.dtype == input.dtype and (weight is None or weight.dtype == input.dtype) and not _needs_grad(
                target, weight):
            # Fused: the same kernel and node as class indices, with the (rows, C) probabilities as target.
            x, q = _to_rows(input, target, probs=True)
            loss = _C.cross_entropy(x, q, red, weight=weight, label_smoothing=float(label_smoothing))
            return _from_rows(loss, input) if red == "none" else loss
        return _cross_entropy_probs(input, target, weight, red, label_smoothing)
    if target.dtype.is_floating_point:
        raise DTypeError(f"cross_entropy(): target must be int64 class indices, got {target.dtype.name} (or class "
                         f"probabilities of the input's shape {_shape(input)}, got target shape {_shape(target)})")
    C = _check_class_targets(input, target, fn, ignore_index, check_range=target.ndim > 1)
    _check_weight(weight, C, fn)
    x, t = _to_rows(input, target)
    loss = _C.cross_entropy(x, t, red, weight=weight, ignore_index=ignore_index,
                            label_smoothing=float(label_smoothing))
    return _from_rows(loss, input) if red == "none" else loss


# ---------------------------------------------------------------- likelihoods and divergences

def poisson_nll_loss(input: Tensor, target: Tensor, log_input: bool = True, full: bool = False,
                     size_average: bool | None = None, eps: float = 1e-8, reduce: bool | None = None,
                     reduction: str = "mean") -> Tensor:
    """exp(input) - target * input (log_input), else input - target * log(input + eps); ``full`` adds
    Stirling's term target log target - target + log(2 pi target) / 2 where target > 1."""
    red = _regression_args(input, target, "poisson_nll_loss", reduction, size_average, reduce)
    if log_input:
        loss = input.exp() - target * input
    else:
        loss = input - target * (input + eps).log()
    if full:  # differentiable in the target too, as torch's, NaN gradient at target 0 included
        stirling = target * target.log() - target + (target * (2 * math.pi)).log() * 0.5
        loss = loss + stirling.masked_fill(target <= 1, 0.0)
    return _reduce(loss, red)


def gaussian_nll_loss(input: Tensor, target: Tensor, var: Tensor | float, full: bool = False, eps: float = 1e-6,
                      reduction: str = "mean") -> Tensor:
    """(log(max(var, eps)) + (input - target)^2 / max(var, eps)) / 2 (+ log(2 pi) / 2 with ``full``).

    ``var`` has the input's shape, or it without the last dim, or that with a
    last dim of 1 (one variance shared by the last dim), or is a number. The
    clamp is invisible to the gradient, as in PyTorch.
    """
    fn = "gaussian_nll_loss"
    _check_tensor(input, fn)
    _check_tensor(target, fn, "target")
    red = _reduction(reduction, None, None, fn)
    _check_float(input, fn)
    if not isinstance(var, Tensor):
        if float(var) < 0:
            raise ArgumentError(f"gaussian_nll_loss(): var has a negative value ({var})")
        var = _C.full(_shape(input), float(var), dtype=input.dtype, device=input.device)
    elif var.numel() and bool((var < 0).any().item()):
        raise ArgumentError(f"gaussian_nll_loss(): var has negative entries (var shape {_shape(var)})")
    if _shape(var) != _shape(input):
        if _shape(input)[:-1] == _shape(var):
            var = var.unsqueeze(-1)  # one variance per row of the last dim
        elif not (var.ndim == input.ndim
                  and sum(v for i, v in zip(_shape(input), _shape(var)) if i != v) == 1):
            # PyTorch's rule: var may differ from the input in one dim only, where it is 1.
            raise ArgumentError(f"gaussian_nll_loss(): var shape {_shape(var)} fits neither the input shape "
                                f"{_shape(input)}, nor it without its last dim, nor it with one dim of size 1")
    if _shape(input) != _shape(target):
        try:
            _C.broadcast_shapes(_shape(input), _shape(target))
        except Exception:
            raise ArgumentError(f"gaussian_nll_loss(): input shape {_shape(input)} and target shape "
                                f"{_shape(target)} do not broadcast") from None
    if var.requires_grad:
        # max(var, eps) forward, identity backward: PyTorch clamps a clone under no_grad.
        var = var + (var.detach().clamp(min=eps) - var.detach())
    else:
        var = var.clamp(min=eps)
    diff = input - target
    loss = (var.log() + diff * diff / var) * 0.5
    if full:
        loss = loss + 0.5 * math.log(2 * math.pi)
    return _reduce(loss, red)


def kl_div(input: Tensor, target: Tensor, size_average: bool | None = None, reduce: bool | None = None,
           reduction: str = "mean", log_target: bool = False) -> Tensor:
    """target (log target - input), input being log-probabilities; with ``log_target`` the target
    is log-probabilities too: exp(target) (target - input). 'batchmean' divides the sum by N."""
    fn = "kl_div"
    _check_tensor(input, fn)
    _check_tensor(target, fn, "target")
    red = _reduction(reduction, size_average, reduce, fn, extra=("batchmean",))
    _check_float(input, fn)
    _check_float(target, fn, "target")
    try:
        _C.broadcast_shapes(_shape(input), _shape(target))
    except Exception:
        raise ArgumentError(f"kl_div(): input shape {_shape(input)} and target shape {_shape(target)} do not "
                            "broadcast") from None
    if log_target:
        loss = target.exp() * (target - input)
    else:
        # xlogy(t, t): 0 where t == 0 (the where keeps 0 * -inf out of both value and gradient)
        zero = target == 0
        safe = _C.where(zero, _scalar(1.0, target), target)
        loss = _C.where(zero, _scalar(0.0, target), target * safe.log()) - target * input
    if red == "batchmean":
        total = loss.sum()
        return total / input.shape[0] if input.ndim else total
    return _reduce(loss, red)


# ---------------------------------------------------------------- binary classification

def _check_bce_weight(weight: Tensor | None, input: Tensor, fn: str, name: str = "weight") -> Tensor | None:
    if weight is None:
        return None
    _check_tensor(weight, fn, name)
    try:
        shape = _C.broadcast_shapes(_shape(input), _shape(weight))
    except Exception:
        shape = None
    if shape is None or tuple(shape) != _shape(input):
        raise ArgumentError(f"{fn}(): {name} shape {_shape(weight)} does not broadcast to the input shape "
                            f"{_shape(input)}")
    return weight.broadcast_to(_shape(input)) if _shape(weight) != _shape(input) else weight


def binary_cross_entropy(input: Tensor, target: Tensor, weight: Tensor | None = None,
                         size_average: bool | None = None, reduce: bool | None = None,
                         reduction: str = "mean") -> Tensor:
    """-w (t log x + (1 - t) log(1 - x)) with each log clamped at -100, for probabilities x in [0, 1]."""
    fn = "binary_cross_entropy"
    red = _regression_args(input, target, fn, reduction, size_average, reduce)
    weight = _check_bce_weight(weight, input, fn)
    for t, name in ((input, "input"), (target, "target")):
        # NaN fails this check too, as in PyTorch (it compares 0 <= x <= 1).
        if t.numel() and not bool(((t >= 0) & (t <= 1)).all().item()):
            raise ArgumentError(f"binary_cross_entropy(): all elements of {name} should be between 0 and 1 "
                                f"({name} shape {_shape(t)})")
    fused = _pointwise("bce", input, target, red, 0.0, weight)
    if fused is not None:
        return fused
    log_x = input.log().clamp(min=-100.0)
    log_1mx = (-input).log1p().clamp(min=-100.0)
    loss = -(target * log_x + (1 - target) * log_1mx)
    if weight is not None:
        loss = loss * weight
    return _reduce(loss, red)


def binary_cross_entropy_with_logits(input: Tensor, target: Tensor, weight: Tensor | None = None,
                                     size_average: bool | None = None, reduce: bool | None = None,
                                     reduction: str = "mean", pos_weight: Tensor | None = None) -> Tensor:
    """(1 - t) x - (1 + (p - 1) t) log sigmoid(x), times ``weight``; p is ``pos_weight`` (broadcast
    along the last dim, one per class). Stable for any logits: log sigmoid is never log(0)."""
    fn = "binary_cross_entropy_with_logits"
    red = _regression_args(input, target, fn, reduction, size_average, reduce)
    weight = _check_bce_weight(weight, input, fn)
    pos_weight = _check_bce_weight(pos_weight, input, fn, "pos_weight")
    fused = _pointwise("bce_with_logits", input, target, red, 0.0, weight, pos_weight)
    if fused is not None:
        return fused
    ls = logsigmoid(input)
    if pos_weight is not None:
        ls = ls * ((pos_weight - 1) * target + 1)
    loss = (1 - target) * input - ls
    if weight is not None:
        loss = loss * weight
    return _reduce(loss, red)


# ---------------------------------------------------------------- margins and embeddings

def _broadcast_check(fn: str, **tensors: Tensor) -> None:
    try:
        _C.broadcast_shapes(*(_shape(t) for t in tensors.values()))
    except Exception:
        desc = ", ".join(f"{k} {_shape(v)}" for k, v in tensors.items())
        raise ArgumentError(f"{fn}(): shapes do not broadcast: {desc}") from None


def margin_ranking_loss(input1: Tensor, input2: Tensor, target: Tensor, margin: float = 0.0,
                        size_average: bool | None = None, reduce: bool | None = None,
                        reduction: str = "mean") -> Tensor:
    """max(0, -y (x1 - x2) + margin), y in {1, -1}."""
    fn = "margin_ranking_loss"
    for t, n in ((input1, "input1"), (input2, "input2"), (target, "target")):
        _check_tensor(t, fn, n)
    red = _reduction(reduction, size_average, reduce, fn)
    if not (input1.ndim == input2.ndim == target.ndim):
        raise ArgumentError(f"margin_ranking_loss(): input1, input2 and target must have the same number of dims, "
                            f"got shapes {_shape(input1)}, {_shape(input2)} and {_shape(target)}")
    _broadcast_check(fn, input1=input1, input2=input2, target=target)
    return _reduce((-target * (input1 - input2) + margin).clamp(min=0.0), red)


def hinge_embedding_loss(input: Tensor, target: Tensor, margin: float = 1.0, size_average: bool | None = None,
                         reduce: bool | None = None, reduction: str = "mean") -> Tensor:
    """x where y = 1, max(0, margin - x) where y = -1."""
    fn = "hinge_embedding_loss"
    _check_tensor(input, fn)
    _check_tensor(target, fn, "target")
    red = _reduction(reduction, size_average, reduce, fn)
    _broadcast_check(fn, input=input, target=target)
    zero = _scalar(0.0, input)
    margin_clamp = (margin - input).clamp(min=0.0)
    loss = _C.where(target != 1, margin_clamp, zero) + _C.where(target != -1, input, zero)
    return _reduce(loss, red)


def soft_margin_loss(input: Tensor, target: Tensor, size_average: bool | None = None, reduce: bool | None = None,
                     reduction: str = "mean") -> Tensor:
    """log(1 + exp(-y x)) (PyTorch's formula, so it overflows to inf where PyTorch's does)."""
    red = _regression_args(input, target, "soft_margin_loss", reduction, size_average, reduce)
    return _reduce((-input * target).exp().log1p(), red)


def multilabel_soft_margin_loss(input: Tensor, target: Tensor, weight: Tensor | None = None,
                                size_average: bool | None = None, reduce: bool | None = None,
                                reduction: str = "mean") -> Tensor:
    """-(t log sigmoid(x) + (1 - t) log sigmoid(-x)), times ``weight``, averaged over the classes
    (the last dim)."""
    fn = "multilabel_soft_margin_loss"
    red = _regression_args(input, target, fn, reduction, size_average, reduce)
    if input.ndim == 0:
        raise ArgumentError(f"{fn}(): input must have a class dim, got a 0-d tensor")
    loss = -(target * logsigmoid(input) + (1 - target) * logsigmoid(-input))
    if weight is not None:
        _check_tensor(weight, fn, "weight")
        _broadcast_check(fn, input=input, weight=weight)
        loss = loss * weight
    C = input.shape[-1]
    loss = loss.sum(input.ndim - 1) / C
    return _reduce(loss, red)


def multi_margin_loss(input: Tensor, target: Tensor, p: int = 1, margin: float = 1.0,
                      weight: Tensor | None = None, size_average: bool | None = None, reduce: bool | None = None,
                      reduction: str = "mean") -> Tensor:
    """sum over i != y of max(0, margin - x[y] + x[i])^p * w[y], divided by C; p is 1 or 2."""
    fn = "multi_margin_loss"
    _check_tensor(input, fn)
    _check_tensor(target, fn, "target")
    red = _reduction(reduction, size_average, reduce, fn)
    if p not in (1, 2):
        raise ArgumentError(f"multi_margin_loss(): only p == 1 and p == 2 are supported, got p={p}")
    _check_float(input, fn)
    if input.ndim not in (1, 2) or (input.ndim == 2 and input.shape[1] == 0) or input.numel() == 0 and input.ndim == 1:
        raise ArgumentError(f"multi_margin_loss(): input must be (C,) or (N, C) with C > 0, got {_shape(input)}")
    expected = () if input.ndim == 1 else (input.shape[0],)
    if target.dtype != _I64:
        raise DTypeError(f"multi_margin_loss(): target must be int64 class indices, got {target.dtype.name}")
    if _shape(target) not in (expected, (1,) if input.ndim == 1 else expected):
        raise ArgumentError(f"multi_margin_loss(): target shape {_shape(target)} does not match input shape "
                            f"{_shape(input)} (expected {expected})")
    C = input.shape[-1]
    _check_weight(weight, C, fn)
    x = input.reshape(-1, C)
    t = target.reshape(-1)
    if t.numel() and bool(((t < 0) | (t >= C)).any().item()):
        raise IndexError(f"multi_margin_loss(): target out of range: class indices must be in [0, {C}) "
                         f"(input shape {_shape(input)})")
    xt = x.gather(1, t.unsqueeze(1))
    z = (x - xt + margin).clamp(min=0.0)
    if p == 2:
        z = z * z
    if weight is not None:
        z = z * weight.index_select(0, t).unsqueeze(1)
    cols = _C.arange(0, C, device=input.device).reshape(1, C)
    z = _C.where(cols == t.unsqueeze(1), _scalar(0.0, x), z)
    loss = z.sum(1) / C
    if input.ndim == 1:
        loss = loss.reshape(())
    return _reduce(loss, red)


def multilabel_margin_loss(input: Tensor, target: Tensor, size_average: bool | None = None,
                           reduce: bool | None = None, reduction: str = "mean") -> Tensor:
    """sum over the target classes j (target's entries up to the first -1) and the other classes i of
    max(0, 1 - (x[j] - x[i])), divided by C."""
    fn = "multilabel_margin_loss"
    _check_tensor(input, fn)
    _check_tensor(target, fn, "target")
    red = _reduction(reduction, size_average, reduce, fn)
    _check_float(input, fn)
    if input.ndim not in (1, 2):
        raise ArgumentError(f"multilabel_margin_loss(): input must be (C,) or (N, C), got {_shape(input)}")
    if target.dtype != _I64:
        raise DTypeError(f"multilabel_margin_loss(): target must be int64 class indices, got {target.dtype.name}")
    if _shape(target) != _shape(input):
        raise ArgumentError(f"multilabel_margin_loss(): target shape {_shape(target)} must equal the input shape "
                            f"{_shape(input)} (class indices, padded with -1)")
    C = input.shape[-1]
    x = input.reshape(-1, C)
    t = target.reshape(-1, C)
    if t.numel() and bool(((t < -1) | (t >= C)).any().item()):
        raise IndexError(f"multilabel_margin_loss(): target index out of range: entries must be in [-1, {C}) "
                         f"(input shape {_shape(input)})")
    # The targets of a row are its entries before the first -1.
    valid = (t < 0).to(_I64).cumsum(1) == 0
    safe = _C.where(valid, t, _C.zeros((), dtype=_I64, device=t.device))
    is_target = _C.zeros(_shape(x), dtype=x.dtype, device=x.device).scatter_add(1, safe, valid.to(x.dtype)) > 0
    xt = x.gather(1, safe)  # (N, K)
    z = (1 - xt.unsqueeze(2) + x.unsqueeze(1)).clamp(min=0.0)  # (N, K, C)
    use = valid.unsqueeze(2) & is_target.logical_not().unsqueeze(1)
    loss = _C.where(use, z, _scalar(0.0, x)).sum((1, 2)) / C
    if input.ndim == 1:
        loss = loss.reshape(())
    return _reduce(loss, red)


def cosine_embedding_loss(input1: Tensor, input2: Tensor, target: Tensor, margin: float = 0.0,
                          size_average: bool | None = None, reduce: bool | None = None,
                          reduction: str = "mean") -> Tensor:
    """1 - cos(x1, x2) where y = 1, max(0, cos(x1, x2) - margin) where y = -1."""
    fn = "cosine_embedding_loss"
    for t, n in ((input1, "input1"), (input2, "input2"), (target, "target")):
        _check_tensor(t, fn, n)
    red = _reduction(reduction, size_average, reduce, fn)
    d = target.ndim
    if d not in (0, 1):
        raise ArgumentError(f"cosine_embedding_loss(): target must be 0-d or 1-d, got shape {_shape(target)}")
    if input1.ndim != d + 1 or input2.ndim != d + 1:
        raise ArgumentError(f"cosine_embedding_loss(): a {d}-d target needs {d + 1}-d inputs, got input1 "
                            f"{_shape(input1)} and input2 {_shape(input2)}")
    _broadcast_check(fn, input1=input1, input2=input2)
    eps = 1e-12
    prod = (input1 * input2).sum(d)
    mag1 = (input1 * input1).sum(d) + eps
    mag2 = (input2 * input2).sum(d) + eps
    cos = prod / (mag1 * mag2).sqrt()
    zero = _scalar(0.0, cos)
    loss = _C.where(target == 1, 1 - cos, zero) + _C.where(target == -1, (cos - margin).clamp(min=0.0), zero)
    return _reduce(loss, red)


def pairwise_distance(x1: Tensor, x2: Tensor, p: float = 2.0, eps: float = 1e-6, keepdim: bool = False) -> Tensor:
    """The p-norm of x1 - x2 + eps over the last dim (PyTorch's definition, eps inside the norm)."""
    _check_tensor(x1, "pairwise_distance", "x1")
    _check_tensor(x2, "pairwise_distance", "x2")
    diff = x1 - x2 + eps
    dim = max(x1.ndim, x2.ndim) - 1
    if dim < 0:
        diff, dim = diff.reshape(1), 0
    a = diff.abs()
    if p == 2:
        return (diff * diff).sum(dim, keepdim=keepdim).sqrt()
    if p == 1:
        return a.sum(dim, keepdim=keepdim)
    if p == math.inf:
        return a.amax(dim, keepdim=keepdim)
    if p == 0:
        return (a != 0).to(diff.dtype).sum(dim, keepdim=keepdim)
    return (a ** p).sum(dim, keepdim=keepdim) ** (1.0 / p)


def _triplet_dims(anchor: Tensor, positive: Tensor, negative: Tensor, fn: str) -> None:
    for t, n in ((anchor, "anchor"), (positive, "positive"), (negative, "negative")):
        _check_tensor(t, fn, n)
    if not (anchor.ndim == positive.ndim == negative.ndim):
        raise ArgumentError(f"{fn}(): anchor, positive and negative must have the same number of dims, got shapes "
                            f"{_shape(anchor)}, {_shape(positive)} and {_shape(negative)}")


def triplet_margin_loss(anchor: Tensor, positive: Tensor, negative: Tensor, margin: float = 1.0, p: float = 2,
                        eps: float = 1e-6, swap: bool = False, size_average: bool | None = None,
                        reduce: bool | None = None, reduction: str = "mean") -> Tensor:
    """max(0, margin + d(a, p) - d(a, n)), d the pairwise p-norm distance (with ``swap``, d(a, n) is
    min(d(a, n), d(p, n)))."""
    fn = "triplet_margin_loss"
    _triplet_dims(anchor, positive, negative, fn)
    red = _reduction(reduction, size_average, reduce, fn)
    if anchor.ndim == 0:
        raise ArgumentError(f"{fn}(): inputs must have at least one dim, got 0-d tensors")
    _broadcast_check(fn, anchor=anchor, positive=positive, negative=negative)
    d_pos = pairwise_distance(anchor, positive, p, eps)
    d_neg = pairwise_distance(anchor, negative, p, eps)
    if swap:
        d_neg = d_neg.minimum(pairwise_distance(positive, negative, p, eps))
    return _reduce((margin + d_pos - d_neg).clamp(min=0.0), red)


def triplet_margin_with_distance_loss(anchor: Tensor, positive: Tensor, negative: Tensor, *,
                                      distance_function: Callable[[Tensor, Tensor], Tensor] | None = None,
                                      margin: float = 1.0, swap: bool = False, reduction: str = "mean") -> Tensor:
    """triplet_margin_loss with any distance (``pairwise_distance`` by default); margin must be > 0."""
    fn = "triplet_margin_with_distance_loss"
    _triplet_dims(anchor, positive, negative, fn)
    red = _reduction(reduction, None, None, fn)
    if margin <= 0:
        raise ArgumentError(f"{fn}(): margin must be greater than 0, got {margin}")
    dist = distance_function if distance_function is not None else pairwise_distance
    d_pos = dist(anchor, positive)
    d_neg = dist(anchor, negative)
    if swap:
        d_neg = d_neg.minimum(dist(positive, negative))
    return _reduce((margin + d_pos - d_neg).clamp(min=0.0), red)


# ---------------------------------------------------------------- sequences: CTC

def _ctc_lengths(lengths: object, name: str) -> list[int]:
    """input_lengths / target_lengths as a list of ints: a tensor of integers (any shape, as
    PyTorch flattens it), or a tuple or list of ints."""
    if isinstance(lengths, Tensor):
        if lengths.dtype.is_floating_point or lengths.dtype == _C.dtype.bool:
            raise DTypeError(f"ctc_loss(): {name} must be integral, got {lengths.dtype.name}")
        return [int(v) for v in lengths.reshape(-1).tolist()]
    if isinstance(lengths, (tuple, list)):
        try:  # ints, or anything an int is read from exactly (numpy integers), as PyTorch's int lists
            return [operator.index(v) for v in lengths]
        except TypeError:
            pass
    raise TypeError(f"ctc_loss(): {name} must be a tensor of integers or a tuple/list of ints, got "
                    f"{type(lengths).__name__}" + (f" {lengths!r}" if isinstance(lengths, (tuple, list)) else ""))


def ctc_loss(log_probs: Tensor, targets: Tensor, input_lengths: Tensor | list[int] | tuple[int, ...],
             target_lengths: Tensor | list[int] | tuple[int, ...], blank: int = 0, reduction: str = "mean",
             zero_infinity: bool = False) -> Tensor:
    """Connectionist Temporal Classification loss: -log of the total probability of every
    alignment of each target to its input frames.

    ``log_probs`` is (T, N, C) (or (T, C) unbatched), log-probabilities such as
    ``log_softmax(2)``; ``targets`` holds labels in [0, C) (converted to int64 as PyTorch does;
    one outside the range is an IndexError, where PyTorch reads out of bounds), either
    padded, (N, S) with S >= max(target_lengths), or concatenated, 1-D of length
    sum(target_lengths); the lengths are tensors or tuples of N ints. 'mean' divides each
    sample's loss by its target length (at least 1) and averages over the batch, as PyTorch.
    ``zero_infinity`` turns the infinite loss of an impossible alignment (a target longer than
    its input allows) and its gradient into 0.

    One fused op of the core (``_C.ctc_loss``). Its gradient with respect to ``log_probs`` is
    PyTorch's, exp(log_probs) - posterior: the gradient to the logits of the log_softmax that
    made log_probs (equal to the true one after log_softmax's backward). It cannot be
    differentiated twice (as in PyTorch): a second backward raises RuntimeError.
    """
    fn = "ctc_loss"
    _check_tensor(log_probs, fn, "log_probs")
    _check_tensor(targets, fn, "targets")
    if reduction not in ("mean", "sum", "none"):
        raise ValueError(f"{reduction} is not a valid value for reduction (ctc_loss() takes 'mean', 'sum' or "
                         "'none')")
    _check_float(log_probs, fn, "log_probs")
    if targets.dtype != _I64:
        # PyTorch converts any targets to int64 (floats truncated) before the kernel reads them.
        targets = targets.to(_I64)
    il = _ctc_lengths(input_lengths, "input_lengths")
    tl = _ctc_lengths(target_lengths, "target_lengths")
    if log_probs.ndim not in (2, 3):
        raise ArgumentError(f"ctc_loss(): expected a 3-dimensional log_probs (T, N, C) or, unbatched, a "
                            f"2-dimensional one (T, C), but got shape {_shape(log_probs)}")
    if not _C._backend_fused_kernels(log_probs.device).get("ctc_loss", False):
        raise NotImplementedError(f"ctc_loss(): no CTC kernel for device {log_probs.device}; move log_probs and "
                                  "targets to the CPU (.cpu()) to compute it there")
    batched = log_probs.ndim == 3
    lp = log_probs if batched else log_probs.unsqueeze(1)
    loss = _C.ctc_loss(lp, targets, il, tl, blank=int(blank), zero_infinity=bool(zero_infinity))
    if reduction == "mean":
        from ..creation import tensor
        # PyTorch's divisor: each target length, at least 1 (an empty target's loss is not divided by 0)
        lengths = tensor([float(max(v, 1)) for v in tl], dtype=loss.dtype, device=loss.device)
        return (loss / lengths).mean()
    if reduction == "sum":
        return loss.sum()
    return loss if batched else loss.squeeze(0)
