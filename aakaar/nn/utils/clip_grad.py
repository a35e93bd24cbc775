"""Gradient clipping: ``clip_grad_norm_`` scales every gradient by ``max_norm / total_norm`` when
the norm of all of them together exceeds ``max_norm``; ``clip_grad_value_`` clamps each element.
PyTorch's formulas (the 1e-6 in the divisor, the clamp of the coefficient to 1) and return values."""

from __future__ import annotations

import math
from typing import Iterable, Union

from ... import _C
from ..._C import Tensor
from ...autograd import no_grad
from ...creation import tensor
from ..functional_norm import _vector_norm

__all__ = ["clip_grad_norm_", "clip_grad_norm", "clip_grad_value_", "get_total_norm", "clip_grads_with_norm_"]

Tensors = Union[Tensor, Iterable[Tensor]]


def _as_list(tensors: Tensors) -> list[Tensor]:
    return [tensors] if isinstance(tensors, Tensor) else list(tensors)


def get_total_norm(tensors: Tensors, norm_type: float = 2.0, error_if_nonfinite: bool = False,
                   foreach: bool | None = None) -> Tensor:
    """The norm of the norms of ``tensors`` (the norm of all their elements as one vector)."""
    ts = [t for t in _as_list(tensors) if t is not None]
    norm_type = float(norm_type)
    if not ts:
        return tensor(0.0)
    with no_grad():
        norms = [_vector_norm(t.reshape(-1), norm_type, 0) for t in ts]
        total = _vector_norm(_C.stack(norms, 0), norm_type, 0)
    if error_if_nonfinite and not math.isfinite(float(total.item())):
        raise RuntimeError(f"The total norm of order {norm_type} for gradients from `parameters` is non-finite, so "
                           "it cannot be clipped. To disable this error and scale the gradients by the non-finite "
                           "norm anyway, set `error_if_nonfinite=False`")
    return total


def clip_grads_with_norm_(parameters: Tensors, max_norm: float, total_norm: Tensor,
                          foreach: bool | None = None) -> None:
    """Scales the gradients by ``min(1, max_norm / (total_norm + 1e-6))``."""
    grads = [p.grad for p in _as_list(parameters) if p.grad is not None]
    if not grads:
        return
    coef = (total_norm * 0 + float(max_norm)) / (total_norm + 1e-6)
    coef = coef.clamp(max=1.0)
    with no_grad():
        for g in grads:
            g.mul_(coef.to(g.dtype))


def clip_grad_norm_(parameters: Tensors, max_norm: float, norm_type: float = 2.0, error_if_nonfinite: bool = False,
                    foreach: bool | None = None) -> Tensor:
    """Clips the gradients of ``parameters`` in place to a total ``norm_type`` norm of at most
    ``max_norm``; returns the total norm before clipping."""
    params = _as_list(parameters)
    grads = [p.grad for p in params if p.grad is not None]
    total = get_total_norm(grads, norm_type, error_if_nonfinite, foreach)
    if grads:
        clip_grads_with_norm_(params, max_norm, total, foreach)
    return total


def clip_grad_norm(parameters: Tensors, max_norm: float, norm_type: float = 2.0, error_if_nonfinite: bool = False,
                   foreach: bool | None = None) -> Tensor:
    """Deprecated alias of ``clip_grad_norm_`` (PyTorch warns too)."""
    import warnings

    warnings.warn("`torch.nn.utils.clip_grad_norm` is now deprecated in favor of `torch.nn.utils.clip_grad_norm_`.",
                  FutureWarning, stacklevel=2)
    return clip_grad_norm_(parameters, max_norm, norm_type, error_if_nonfinite, foreach)


def clip_grad_value_(parameters: Tensors, clip_value: float, foreach: bool | None = None) -> None:
    """Clamps every gradient element to [-clip_value, clip_value] in place."""
    clip_value = float(clip_value)
    with no_grad():
        for p in _as_list(parameters):
            if p.grad is not None:
                p.grad.clamp_(-clip_value, clip_value)
