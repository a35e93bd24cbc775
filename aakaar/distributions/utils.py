"""Helpers shared by the distributions: broadcasting parameters, probs <-> logits."""
from __future__ import annotations

import numbers
from typing import Any, Sequence

import aakaar

Tensor = aakaar.Tensor


def broadcast_all(*values: Any) -> tuple[Tensor, ...]:
    """Tensors and Python numbers broadcast to one shape (torch.distributions.utils.broadcast_all).

    Numbers take the dtype of the first tensor argument, or the default dtype, so
    ``Normal(0.0, scale64)`` computes in float64 as torch does.
    """
    if not all(isinstance(v, (Tensor, numbers.Number)) for v in values):
        raise ValueError("Input arguments must all be instances of numbers.Number, torch.Tensor or objects "
                         "implementing __torch_function__.")
    if all(isinstance(v, Tensor) for v in values):
        return tuple(aakaar.broadcast_tensors(*values))
    dtype = next((v.dtype for v in values if isinstance(v, Tensor)), aakaar.get_default_dtype())
    tensors = [v if isinstance(v, Tensor) else aakaar.tensor(v, dtype=dtype) for v in values]
    return tuple(aakaar.broadcast_tensors(*tensors))


def extended_shape(batch_shape: Sequence[int], event_shape: Sequence[int],
                   sample_shape: Sequence[int] = ()) -> aakaar.Size:
    """``sample_shape + batch_shape + event_shape``, the shape of a sample."""
    return aakaar.Size(tuple(sample_shape) + tuple(batch_shape) + tuple(event_shape))


def clamp_probs(probs: Tensor) -> Tensor:
    """Probabilities kept inside ``[eps, 1 - eps]`` so their logs stay finite."""
    eps = aakaar.finfo(probs.dtype).eps
    return probs.clamp(min=eps, max=1 - eps)


def probs_to_logits(probs: Tensor, is_binary: bool = False) -> Tensor:
    """Log-odds of binary probabilities, or log-probabilities of categorical ones."""
    ps_clamped = clamp_probs(probs)
    if is_binary:
        return aakaar.log(ps_clamped) - aakaar.log1p(-ps_clamped)
    return aakaar.log(ps_clamped)


def logits_to_probs(logits: Tensor, is_binary: bool = False) -> Tensor:
    """Sigmoid of binary log-odds, or softmax over the last dimension of categorical logits."""
    if is_binary:
        return aakaar.sigmoid(logits)
    return aakaar.softmax(logits, dim=-1)


def sum_rightmost(value: Tensor, dim: int) -> Tensor:
    """``value`` summed over its ``dim`` rightmost dimensions."""
    if dim == 0:
        return value
    return value.reshape(tuple(value.shape[:-dim]) + (-1,)).sum(-1)


class lazy_property:
    """A property computed once on first access and then stored on the instance.

    Distributions built from ``logits`` compute ``probs`` only when asked (and the
    reverse), as torch does; being in ``__dict__`` is what marks a given parameter.
    """

    def __init__(self, wrapped: Any) -> None:
        self.wrapped = wrapped
        self.__doc__ = wrapped.__doc__
        self.__name__ = wrapped.__name__

    def __get__(self, instance: Any, obj_type: Any = None) -> Any:
        if instance is None:
            return self
        value = self.wrapped(instance)
        instance.__dict__[self.wrapped.__name__] = value
        return value
