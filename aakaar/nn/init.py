"""Weight initialisation, in place and without recording a graph.

Each function fills a tensor from the aakaar random generator (the default
one, or ``generator=``), so ``ak.manual_seed(s)`` makes a model's initial
weights reproducible. The formulas follow PyTorch's ``torch.nn.init``:

* Xavier/Glorot keeps the variance of activations *and* of gradients about
  constant for linear/tanh layers: ``std = gain * sqrt(2 / (fan_in + fan_out))``.
* Kaiming/He accounts for ReLU halving the variance: ``std = gain / sqrt(fan)``
  with ``gain = sqrt(2 / (1 + a^2))`` for a leaky ReLU of slope ``a``.
  ``nn.Linear`` uses ``kaiming_uniform_(w, a=sqrt(5))``, i.e. U(±1/sqrt(fan_in)).
"""

from __future__ import annotations

import math

from .. import _C
from .._C import Tensor
from ..autograd import no_grad

__all__ = [
    "calculate_gain", "uniform_", "normal_", "zeros_", "ones_", "constant_",
    "xavier_uniform_", "xavier_normal_", "kaiming_uniform_", "kaiming_normal_",
]

_LINEAR_LIKE = ("linear", "conv1d", "conv2d", "conv3d", "conv_transpose1d", "conv_transpose2d",
                "conv_transpose3d", "sigmoid")


def calculate_gain(nonlinearity: str, param: float | None = None) -> float:
    """The factor that keeps activation variance at 1 through ``nonlinearity``."""
    if nonlinearity in _LINEAR_LIKE:
        return 1.0
    if nonlinearity == "tanh":
        return 5.0 / 3
    if nonlinearity == "relu":
        return math.sqrt(2.0)
    if nonlinearity == "leaky_relu":
        if param is None:
            slope = 0.01
        elif isinstance(param, (int, float)) and not isinstance(param, bool):
            slope = float(param)
        else:
            raise ValueError(f"calculate_gain(): negative_slope {param!r} is not a valid number")
        return math.sqrt(2.0 / (1 + slope**2))
    if nonlinearity == "selu":
        return 3.0 / 4
    raise ValueError(f"calculate_gain(): unsupported nonlinearity {nonlinearity!r}")


def _check(tensor: Tensor, fn: str) -> None:
    if not isinstance(tensor, Tensor):
        raise TypeError(f"{fn}(): expected an aakaar.Tensor, got {type(tensor).__name__}")
    if not tensor.dtype.is_floating_point:
        raise TypeError(f"{fn}(): expected a floating-point tensor, got {tensor.dtype}")


def _fans(tensor: Tensor, fn: str) -> tuple[int, int]:
    """(fan_in, fan_out) of a weight shaped (out, in, *kernel)."""
    if tensor.ndim < 2:
        raise ValueError(f"{fn}(): fan in and fan out need a tensor with at least 2 dims, got shape {tuple(tensor.shape)}")
    receptive = 1
    for s in tensor.shape[2:]:
        receptive *= s
    return tensor.shape[1] * receptive, tensor.shape[0] * receptive


def _gen_kwargs(generator: _C.Generator | None) -> dict:
    return {} if generator is None else {"generator": generator}


def uniform_(tensor: Tensor, a: float = 0.0, b: float = 1.0, generator: _C.Generator | None = None) -> Tensor:
    """Fills with U(a, b)."""
    _check(tensor, "uniform_")
    if a > b:
        raise ValueError(f"uniform_(): expected a <= b, got a={a}, b={b}")
    with no_grad():
        sample = _C.rand(*tensor.shape, dtype=tensor.dtype, **_gen_kwargs(generator))
        tensor.copy_(sample * (b - a) + a)
    return tensor


def normal_(tensor: Tensor, mean: float = 0.0, std: float = 1.0, generator: _C.Generator | None = None) -> Tensor:
    """Fills with N(mean, std^2)."""
    _check(tensor, "normal_")
    if std < 0:
        raise ValueError(f"normal_(): std must be non-negative, got {std}")
    with no_grad():
        sample = _C.randn(*tensor.shape, dtype=tensor.dtype, **_gen_kwargs(generator))
        tensor.copy_(sample * std + mean)
    return tensor


def constant_(tensor: Tensor, val: float) -> Tensor:
    """Fills with ``val``."""
    if not isinstance(tensor, Tensor):
        raise TypeError(f"constant_(): expected an aakaar.Tensor, got {type(tensor).__name__}")
    with no_grad():
        tensor.fill_(val)
    return tensor


def zeros_(tensor: Tensor) -> Tensor:
    return constant_(tensor, 0)


def ones_(tensor: Tensor) -> Tensor:
    return constant_(tensor, 1)


def xavier_uniform_(tensor: Tensor, gain: float = 1.0, generator: _C.Generator | None = None) -> Tensor:
    """U(-a, a) with ``a = gain * sqrt(6 / (fan_in + fan_out))``."""
    _check(tensor, "xavier_uniform_")
    fan_in, fan_out = _fans(tensor, "xavier_uniform_")
    bound = gain * math.sqrt(6.0 / (fan_in + fan_out))
    return uniform_(tensor, -bound, bound, generator)


def xavier_normal_(tensor: Tensor, gain: float = 1.0, generator: _C.Generator | None = None) -> Tensor:
    """N(0, std^2) with ``std = gain * sqrt(2 / (fan_in + fan_out))``."""
    _check(tensor, "xavier_normal_")
    fan_in, fan_out = _fans(tensor, "xavier_normal_")
    return normal_(tensor, 0.0, gain * math.sqrt(2.0 / (fan_in + fan_out)), generator)


def _kaiming_std(tensor: Tensor, a: float, mode: str, nonlinearity: str, fn: str) -> float:
    if mode not in ("fan_in", "fan_out"):
        raise ValueError(f"{fn}(): mode must be 'fan_in' or 'fan_out', got {mode!r}")
    fan_in, fan_out = _fans(tensor, fn)
    fan = fan_in if mode == "fan_in" else fan_out
    if fan == 0:
        raise ValueError(f"{fn}(): cannot initialise a tensor with zero {mode} (shape {tuple(tensor.shape)})")
    return calculate_gain(nonlinearity, a) / math.sqrt(fan)


def kaiming_uniform_(
    tensor: Tensor, a: float = 0.0, mode: str = "fan_in", nonlinearity: str = "leaky_relu",
    generator: _C.Generator | None = None,
) -> Tensor:
    """U(-b, b) with ``b = sqrt(3) * gain / sqrt(fan)`` (a uniform of that std)."""
    _check(tensor, "kaiming_uniform_")
    bound = math.sqrt(3.0) * _kaiming_std(tensor, a, mode, nonlinearity, "kaiming_uniform_")
    return uniform_(tensor, -bound, bound, generator)


def kaiming_normal_(
    tensor: Tensor, a: float = 0.0, mode: str = "fan_in", nonlinearity: str = "leaky_relu",
    generator: _C.Generator | None = None,
) -> Tensor:
    """N(0, std^2) with ``std = gain / sqrt(fan)``."""
    _check(tensor, "kaiming_normal_")
    return normal_(tensor, 0.0, _kaiming_std(tensor, a, mode, nonlinearity, "kaiming_normal_"), generator)
