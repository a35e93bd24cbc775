"""The activations of ``torch.nn.functional`` beyond relu/gelu/silu/... (``functional.py``).

Most are single ops of the compiled core (``csrc/python/bind_math.cpp``), so their
forward is PyTorch's formula in one pass and their gradient PyTorch's, kinks
included: hardtanh and relu6 pass nothing at their bounds, threshold nothing at
the threshold, hardswish ``x / 3 + 1/2`` at -3 and at 3. The rest compose ops whose
gradients already are PyTorch's (softsign, tanhshrink, prelu, glu, softmin), the
way PyTorch itself composes them. ``inplace=True`` is accepted where PyTorch accepts it.
"""

from __future__ import annotations

import warnings

from .. import _C
from .._C import Tensor

__all__ = [
    "hardsigmoid", "hardswish", "hardtanh", "hardtanh_", "relu6", "softsign", "mish", "celu", "celu_", "selu",
    "selu_", "prelu", "glu", "logsigmoid", "softmin", "tanhshrink", "softshrink", "hardshrink", "threshold",
    "threshold_",
]


def _check(x: object, fn: str) -> None:
    if not isinstance(x, Tensor):
        raise TypeError(f"{fn}(): argument 'input' must be an aakaar.Tensor, not {type(x).__name__}")


def hardsigmoid(input: Tensor, inplace: bool = False) -> Tensor:
    """``min(max(x + 3, 0), 6) / 6``."""
    _check(input, "hardsigmoid")
    return _C.hardsigmoid_(input) if inplace else _C.hardsigmoid(input)


def hardswish(input: Tensor, inplace: bool = False) -> Tensor:
    """``x * min(max(x + 3, 0), 6) / 6``."""
    _check(input, "hardswish")
    return _C.hardswish_(input) if inplace else _C.hardswish(input)


def hardtanh(input: Tensor, min_val: float = -1.0, max_val: float = 1.0, inplace: bool = False) -> Tensor:
    """``x`` clamped to ``[min_val, max_val]``; the gradient is 0 at the bounds (unlike clamp's)."""
    _check(input, "hardtanh")
    if min_val > max_val:
        raise ValueError("min_val cannot be greater than max_val")
    return _C.hardtanh_(input, min_val, max_val) if inplace else _C.hardtanh(input, min_val, max_val)


def hardtanh_(input: Tensor, min_val: float = -1.0, max_val: float = 1.0) -> Tensor:
    return hardtanh(input, min_val, max_val, inplace=True)


def relu6(input: Tensor, inplace: bool = False) -> Tensor:
    """``min(max(x, 0), 6)``: hardtanh(x, 0, 6), as in PyTorch."""
    return hardtanh(input, 0.0, 6.0, inplace)


def softsign(input: Tensor) -> Tensor:
    """``x / (1 + |x|)`` (PyTorch's own composition)."""
    _check(input, "softsign")
    return input / (input.abs() + 1)


def mish(input: Tensor, inplace: bool = False) -> Tensor:
    """``x * tanh(softplus(x))``."""
    _check(input, "mish")
    return _C.mish_(input) if inplace else _C.mish(input)


def celu(input: Tensor, alpha: float = 1.0, inplace: bool = False) -> Tensor:
    """``x`` for ``x > 0``, else ``alpha * (exp(x / alpha) - 1)``."""
    _check(input, "celu")
    return _C.celu_(input, alpha) if inplace else _C.celu(input, alpha)


def celu_(input: Tensor, alpha: float = 1.0) -> Tensor:
    return celu(input, alpha, inplace=True)


def selu(input: Tensor, inplace: bool = False) -> Tensor:
    """``scale * (x if x > 0 else alpha * (exp(x) - 1))`` with the self-normalising constants."""
    _check(input, "selu")
    return _C.selu_(input) if inplace else _C.selu(input)


def selu_(input: Tensor) -> Tensor:
    return selu(input, inplace=True)


def prelu(input: Tensor, weight: Tensor) -> Tensor:
    """``x`` for ``x > 0``, else ``weight * x``; weight has one element or one per channel (dim 1)."""
    _check(input, "prelu")
    if not isinstance(weight, Tensor):
        raise TypeError(f"prelu(): argument 'weight' must be an aakaar.Tensor, not {type(weight).__name__}")
    if weight.ndim > 1:
        raise _C.ArgumentError(f"prelu: Expected `weight` to be a scalar or 1D tensor, but got: ndim = {weight.ndim}")
    n = weight.numel()
    w = weight
    if n != 1:
        if input.ndim == 0:
            raise _C.ArgumentError("prelu: Not allow zero-dim input tensor.")
        channels = input.shape[1] if input.ndim > 1 else 1
        if channels != n:
            raise _C.ArgumentError(
                f"prelu: Mismatch of parameter numbers and input channel size. Found parameter numbers = {n} "
                f"and channel size = {channels}."
            )
        if input.ndim > 1:
            w = weight.reshape((1, n) + (1,) * (input.ndim - 2))
    elif weight.ndim == 1 and input.ndim == 0:
        w = weight.reshape(())
    return _C.where(input > 0, input, w * input)


def glu(input: Tensor, dim: int = -1) -> Tensor:
    """``a * sigmoid(b)`` where ``a`` and ``b`` are the two halves of ``input`` along ``dim``."""
    _check(input, "glu")
    if input.ndim == 0:
        raise _C.ArgumentError("glu does not support scalars because halving size must be even")
    size = input.shape[dim]
    if size % 2:
        raise _C.ArgumentError(f"Halving dimension must be even, but dimension {dim} is size {size}")
    a, b = input.chunk(2, dim)
    return a * b.sigmoid()


def logsigmoid(input: Tensor) -> Tensor:
    """``log(sigmoid(x))``, computed stably."""
    _check(input, "logsigmoid")
    return _C.logsigmoid(input)


def _softmax_dim(name: str, ndim: int) -> int:
    # PyTorch's legacy choice when no dim is given, with its warning.
    warnings.warn(
        f"Implicit dimension choice for {name} has been deprecated. Change the call to include dim=X as an argument.",
        UserWarning,
        stacklevel=3,
    )
    return 0 if ndim in (0, 1, 3) else 1


def softmin(input: Tensor, dim: int | None = None, _stacklevel: int = 3, dtype: _C.dtype | None = None) -> Tensor:
    """``softmax(-x)`` along ``dim``."""
    _check(input, "softmin")
    if dim is None:
        dim = _softmax_dim("softmin", input.ndim)
    if dtype is not None:
        input = input.to(dtype)
    return (-input).softmax(dim)


def tanhshrink(input: Tensor) -> Tensor:
    """``x - tanh(x)`` (PyTorch's own composition)."""
    _check(input, "tanhshrink")
    return input - input.tanh()


def softshrink(input: Tensor, lambd: float = 0.5) -> Tensor:
    """``x - lambd`` above ``lambd``, ``x + lambd`` below ``-lambd``, 0 between."""
    _check(input, "softshrink")
    return _C.softshrink(input, lambd)


def hardshrink(input: Tensor, lambd: float = 0.5) -> Tensor:
    """``x`` outside ``[-lambd, lambd]``, 0 inside."""
    _check(input, "hardshrink")
    return _C.hardshrink(input, lambd)


def threshold(input: Tensor, threshold: float, value: float, inplace: bool = False) -> Tensor:
    """``x`` where ``x > threshold``, else ``value``."""
    _check(input, "threshold")
    return _C.threshold_(input, threshold, value) if inplace else _C.threshold(input, threshold, value)


def threshold_(input: Tensor, threshold: float, value: float) -> Tensor:
    return _C.threshold_(input, threshold, value)
