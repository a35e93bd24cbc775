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
    "xavier_uniform_", "xavier_normal_", "kaiming_uniform_", "kaiming_normal_", "trunc_normal_", "orthogonal_",
    "eye_", "dirac_", "sparse_", "uniform", "normal", "constant", "xavier_uniform", "xavier_normal",
    "kaiming_uniform", "kaiming_normal", "orthogonal", "sparse", "eye", "dirac",
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


def trunc_normal_(tensor: Tensor, mean: float = 0.0, std: float = 1.0, a: float = -2.0, b: float = 2.0,
                  generator: _C.Generator | None = None) -> Tensor:
    """N(mean, std^2) truncated to [a, b]: values outside are redrawn (rejection sampling, the
    same distribution as PyTorch's inverse-CDF method); after 64 rounds the few left are clamped."""
    _check(tensor, "trunc_normal_")
    if a > b:
        raise ValueError(f"trunc_normal_(): expected a <= b, got a={a}, b={b}")
    if mean < a - 2 * std or mean > b + 2 * std:
        import warnings

        warnings.warn("mean is more than 2 std from [a, b] in nn.init.trunc_normal_. The distribution of values may "
                      "be incorrect.", stacklevel=2)
    with no_grad():
        out = _C.randn(*tensor.shape, dtype=tensor.dtype, **_gen_kwargs(generator)) * std + mean
        for _ in range(64):
            outside = (out < a).logical_or(out > b)
            if not bool(outside.any().item()):
                break
            fresh = _C.randn(*tensor.shape, dtype=tensor.dtype, **_gen_kwargs(generator)) * std + mean
            out = _C.where(outside, fresh, out)
        tensor.copy_(out.clamp(a, b))
    return tensor


def orthogonal_(tensor: Tensor, gain: float = 1.0, generator: _C.Generator | None = None) -> Tensor:
    """A (semi-)orthogonal matrix (rows or columns orthonormal) from the QR decomposition of a
    Gaussian matrix, the sign of R's diagonal folded in so the result is uniformly distributed
    (PyTorch's method; the QR runs in numpy on the host)."""
    import numpy as np

    _check(tensor, "orthogonal_")
    if tensor.ndim < 2:
        raise ValueError("Only tensors with 2 or more dimensions are supported")
    if tensor.numel() == 0:
        return tensor
    rows = tensor.shape[0]
    cols = tensor.numel() // rows
    flat = _C.randn(rows, cols, dtype=_C.dtype.float64, **_gen_kwargs(generator)).numpy()
    if rows < cols:
        flat = flat.T
    q, r = np.linalg.qr(flat)
    q = q * np.sign(np.diag(r))
    if rows < cols:
        q = q.T
    from ..creation import tensor as make

    with no_grad():
        tensor.copy_(make(np.ascontiguousarray(q * gain), dtype=tensor.dtype).reshape(list(tensor.shape)))
    return tensor


def eye_(tensor: Tensor) -> Tensor:
    """The identity matrix (ones on the diagonal of a 2-d tensor)."""
    if tensor.ndim != 2:
        raise ValueError("Only tensors with 2 dimensions are supported")
    with no_grad():
        tensor.copy_(_C.eye(tensor.shape[0], tensor.shape[1], dtype=tensor.dtype))
    return tensor


def dirac_(tensor: Tensor, groups: int = 1) -> Tensor:
    """A convolution kernel that passes its input through (a 1 at the centre of kernel (i, i) of
    each group), for 3-, 4- and 5-d weights."""
    if tensor.ndim not in (3, 4, 5):
        raise ValueError("Only tensors with 3, 4, or 5 dimensions are supported")
    out_per_group = tensor.shape[0] // groups
    if tensor.shape[0] % groups != 0:
        raise ValueError("dim 0 must be divisible by groups")
    n = min(out_per_group, tensor.shape[1])
    centre = tuple(k // 2 for k in tensor.shape[2:])
    with no_grad():
        tensor.zero_()
        for g in range(groups):
            for d in range(n):
                tensor[(g * out_per_group + d, d) + centre] = 1.0
    return tensor


def sparse_(tensor: Tensor, sparsity: float, std: float = 0.01, generator: _C.Generator | None = None) -> Tensor:
    """N(0, std^2) with a fraction ``sparsity`` of each column set to zero (2-d tensors)."""
    if tensor.ndim != 2:
        raise ValueError("Only tensors with 2 dimensions are supported")
    rows, cols = tensor.shape
    zeros = int(math.ceil(sparsity * rows))
    normal_(tensor, 0.0, std, generator)
    with no_grad():
        for c in range(cols):
            for r in _C.randperm(rows, **_gen_kwargs(generator)).tolist()[:zeros]:
                tensor[r, c] = 0.0
    return tensor


def _deprecated(new: object, name: str) -> object:
    """PyTorch's deprecated spellings without the trailing underscore: warn, then call the new one."""

    def fn(*args: object, **kwargs: object) -> object:
        import warnings

        warnings.warn(f"`nn.init.{name}` is now deprecated in favor of `nn.init.{name}_`.", FutureWarning,
                      stacklevel=2)
        return new(*args, **kwargs)  # type: ignore[operator]

    fn.__name__ = name
    fn.__doc__ = f"Deprecated alias of ``{name}_``."
    return fn


uniform = _deprecated(uniform_, "uniform")
normal = _deprecated(normal_, "normal")
constant = _deprecated(constant_, "constant")
xavier_uniform = _deprecated(xavier_uniform_, "xavier_uniform")
xavier_normal = _deprecated(xavier_normal_, "xavier_normal")
kaiming_uniform = _deprecated(kaiming_uniform_, "kaiming_uniform")
kaiming_normal = _deprecated(kaiming_normal_, "kaiming_normal")
orthogonal = _deprecated(orthogonal_, "orthogonal")
sparse = _deprecated(sparse_, "sparse")
eye = _deprecated(eye_, "eye")
dirac = _deprecated(dirac_, "dirac")

