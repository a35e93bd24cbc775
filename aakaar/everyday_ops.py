"""PyTorch's everyday functions that aakaar composes from its own differentiable ops: the
aliases (``multiply``, ``greater``, ``concat``, ...), small elementwise composites
(``addcmul``, ``xlogy``, ``sinc``, ``logit``, ``heaviside``, ``float_power``, ...), integer
helpers (``gcd``, ``lcm``, ``frexp``), differences and integrals (``diff``, ``trapezoid``),
statistics (``cov``, ``corrcoef``, ``quantile``), and sampling (``normal``, ``multinomial``,
``poisson``). Gradients come from the ops they are made of.

Every function here is also a Tensor method where torch has one (:func:`install`).
Complex dtypes do not exist in aakaar: ``is_complex`` is always False and ``isreal`` all True.
"""

from __future__ import annotations

import builtins
import math
from typing import Any, Sequence

import numpy as np

from . import _C
from ._C import Tensor
from .shape_ops import _wrap

_F64 = _C.dtype.float64
_I64 = _C.dtype.int64
_BOOL = _C.dtype.bool


def _is_float(t: Tensor) -> bool:
    return t.dtype.is_floating_point


def _as_tensor(x: Any, like: Tensor) -> Tensor:
    if isinstance(x, Tensor):
        return x
    from .creation import tensor
    dtype = like.dtype if (_is_float(like) or not isinstance(x, float)) else _C._get_default_dtype()
    return tensor(x, dtype=dtype, device=like.device)


def _float_of(t: Tensor) -> Tensor:
    """t itself when floating, else t in the default floating dtype (as PyTorch)."""
    return t if _is_float(t) else t.to(_C._get_default_dtype())


def _promoted(input: Any, other: Any, floating: bool = False) -> tuple[Tensor, Tensor]:
    """input and other (tensors or numbers) as tensors of torch's result dtype for the pair (a 0-d
    tensor or a number joins by category only); with ``floating``, an integral result dtype becomes
    the default floating dtype, as torch's float ops (xlogy, logaddexp2, ldexp) compute."""
    dt = _C.result_type(input, other)
    if floating and not dt.is_floating_point:
        dt = _C._get_default_dtype()
    device = (input if isinstance(input, Tensor) else other).device
    from .creation import tensor
    return tuple(v.to(dt) if isinstance(v, Tensor) else tensor(v, dtype=dt, device=device)  # type: ignore[return-value]
                 for v in (input, other))


def _check_tensor(x: Any, fn: str, name: str = "input") -> None:
    if not isinstance(x, Tensor):
        raise TypeError(f"{fn}(): argument '{name}' must be Tensor, not {type(x).__name__}")


# ---- aliases ---------------------------------------------------------------------------------------
# name -> the method it is (torch documents each of these as an alias).
ALIASES = {
    "absolute": "abs", "absolute_": "abs_", "negative": "neg", "negative_": "neg_", "multiply": "mul",
    "multiply_": "mul_", "greater": "gt", "greater_": "gt_", "greater_equal": "ge", "greater_equal_": "ge_",
    "less": "lt", "less_": "lt_", "less_equal": "le", "less_equal_": "le_", "not_equal": "ne", "not_equal_": "ne_",
    "true_divide_": "div_", "clip_": "clamp_", "swapdims_": "swapaxes_",
}


def subtract(input: Tensor, other: Any, *, alpha: Any = 1) -> Tensor:
    """``input - alpha * other`` (alias of sub)."""
    return input.sub(other, alpha=alpha)


def _subtract_(self: Tensor, other: Any, *, alpha: Any = 1) -> Tensor:
    """In-place subtract; returns self."""
    return self.sub_(other, alpha=alpha)


def positive(input: Tensor) -> Tensor:
    """``input`` itself (torch.positive); refused for bool tensors, as in PyTorch."""
    if input.dtype == _BOOL:
        raise _C.DTypeError("The `+` operator, on a bool tensor is not supported.")
    return input


def concat(tensors: Sequence[Tensor], dim: int = 0, *, axis: Any = None) -> Tensor:
    """Alias of :func:`aakaar.cat`."""
    return _C.cat(list(tensors), axis if axis is not None else dim)


concatenate = concat


def clamp_min(input: Tensor, min: Any) -> Tensor:  # noqa: A002
    """``input.clamp(min=min)``."""
    return input.clamp(min=min)


def clamp_max(input: Tensor, max: Any) -> Tensor:  # noqa: A002
    """``input.clamp(max=max)``."""
    return input.clamp(max=max)


def _clamp_min_(self: Tensor, min: Any) -> Tensor:  # noqa: A002
    """In-place clamp_min; returns self."""
    return self.clamp_(min=min)


def _clamp_max_(self: Tensor, max: Any) -> Tensor:  # noqa: A002
    """In-place clamp_max; returns self."""
    return self.clamp_(max=max)


# ---- predicates ------------------------------------------------------------------------------------

def is_floating_point(input: Tensor) -> bool:
    """Whether ``input``'s dtype is a floating dtype."""
    _check_tensor(input, "is_floating_point")
    return input.dtype.is_floating_point


def is_complex(input: Tensor) -> bool:
    """Always False: aakaar has no complex dtypes."""
    _check_tensor(input, "is_complex")
    return False


def is_nonzero(input: Tensor) -> bool:
    """The truth of a one-element tensor; a RuntimeError for any other size, as in PyTorch."""
    _check_tensor(input, "is_nonzero")
    n = input.numel()
    if n == 0:
        raise RuntimeError("Boolean value of Tensor with no values is ambiguous")
    if n > 1:
        raise RuntimeError("Boolean value of Tensor with more than one value is ambiguous")
    return bool(input.item())


def isreal(input: Tensor) -> Tensor:
    """All True (a real dtype has no imaginary part)."""
    return _C.full(list(input.shape), True, dtype=_BOOL, device=input.device)


def is_same_size(input: Tensor, other: Tensor) -> bool:
    """Whether the two shapes are equal."""
    return tuple(input.shape) == tuple(other.shape)


def signbit(input: Tensor) -> Tensor:
    """Bool tensor: where the sign bit is set (True for -0.0 and negative NaN's sign, as torch)."""
    if input.dtype == _BOOL:
        return _C.full(list(input.shape), False, dtype=_BOOL, device=input.device)
    if not _is_float(input):
        return input < 0
    return _C.full([], 1.0, dtype=input.dtype, device=input.device).copysign(input) < 0


# ---- elementwise composites ------------------------------------------------------------------------

def _integral_value(value: Any, *ts: Tensor) -> Any:
    """torch takes addcmul's value in the integer result's type: 1.5 counts as 1 for int64 tensors."""
    dt = ts[0].dtype
    for t in ts[1:]:
        dt = _C.promote_types(dt, t.dtype)
    if dt.is_floating_point or dt == _BOOL or isinstance(value, bool) or not isinstance(value, (int, float)):
        return value
    from ._dtype_info import iinfo
    info = iinfo(dt)
    # torch's range check: a float must fit the type; an int may wrap below (-1 into uint8) but not above
    if value > info.max or (isinstance(value, float) and value < info.min):
        raise RuntimeError(f"value cannot be converted to type {dt.name}_t without overflow")
    return int(value)


def addcmul(input: Tensor, tensor1: Tensor, tensor2: Tensor, *, value: Any = 1) -> Tensor:
    """``input + value * tensor1 * tensor2``."""
    value = _integral_value(value, input, tensor1, tensor2)
    prod = tensor1 * tensor2
    return input + (prod * value if value != 1 else prod)


def addcdiv(input: Tensor, tensor1: Tensor, tensor2: Tensor, *, value: Any = 1) -> Tensor:
    """``input + value * tensor1 / tensor2``; integer tensors are refused, as in PyTorch."""
    if not _is_float(tensor1) and not _is_float(tensor2):
        raise RuntimeError("Integer division with addcdiv is no longer supported, and in a future release addcdiv "
                           "will perform a true division of tensor1 and tensor2. Use addcmul or a float dtype.")
    quot = tensor1 / tensor2
    return input + (quot * value if value != 1 else quot)


def _addcmul_(self: Tensor, tensor1: Tensor, tensor2: Tensor, *, value: Any = 1) -> Tensor:
    """In-place addcmul: self += value * tensor1 * tensor2; returns self."""
    value = _integral_value(value, self, tensor1, tensor2)
    prod = tensor1 * tensor2
    return self.add_(prod * value if value != 1 else prod)


def _addcdiv_(self: Tensor, tensor1: Tensor, tensor2: Tensor, *, value: Any = 1) -> Tensor:
    """In-place addcdiv: self += value * tensor1 / tensor2; returns self."""
    quot = addcdiv(self.new_zeros(()), tensor1, tensor2, value=1)
    return self.add_(quot * value if value != 1 else quot)


def deg2rad(input: Tensor) -> Tensor:
    """Degrees to radians (integers give float32)."""
    return _float_of(input) * (math.pi / 180.0)


def rad2deg(input: Tensor) -> Tensor:
    """Radians to degrees (integers give float32)."""
    return _float_of(input) * (180.0 / math.pi)


def float_power(input: Any, exponent: Any) -> Tensor:
    """``input ** exponent`` computed in float64 (PyTorch's float_power)."""
    if isinstance(input, Tensor):
        base = input.to(_F64)
        exp = exponent.to(_F64) if isinstance(exponent, Tensor) else builtins.float(exponent)
        return base.pow(exp)
    return _C.full([], builtins.float(input), dtype=_F64, device=exponent.device).pow(exponent.to(_F64))


def _float_power_(self: Tensor, exponent: Any) -> Tensor:
    """In-place float_power (self must be float64, as in torch); returns self."""
    if self.dtype != _F64:
        raise RuntimeError(f"the base given to float_power_ has dtype {self.dtype.name} but the operation's result "
                           "requires dtype double")
    return self.pow_(exponent.to(_F64) if isinstance(exponent, Tensor) else exponent)


def ldexp(input: Tensor, other: Tensor) -> Tensor:
    """``input * 2 ** other`` (a floating result)."""
    x, e = _promoted(input, other, floating=True)  # both in the pair's (floating) result dtype, as torch
    return x * e.__rpow__(2.0)


def logaddexp2(input: Tensor, other: Tensor) -> Tensor:
    """``log2(2 ** input + 2 ** other)``, computed stably: max + log2(1 + 2 ** -|input - other|)."""
    if not _C.result_type(input, other).is_floating_point:
        raise NotImplementedError(f'"logaddexp2_cpu" not implemented for \'{_torch_name(_C.result_type(input, other))}\'')
    a, b = _promoted(input, other)
    m = a.maximum(b)
    d = (a - b).abs()
    out = m + (-d).exp2().log1p() * (1.0 / math.log(2.0))
    # equal infinities: inf - inf is NaN in d, the answer is the infinity itself
    return _C.where((a == b) & a.isinf(), a, out)


def logit(input: Tensor, eps: Any = None) -> Tensor:
    """``log(p / (1 - p))``, with ``p`` clamped to ``[eps, 1 - eps]`` when eps is given."""
    x = _float_of(input)
    if eps is not None:
        x = x.clamp(eps, 1.0 - eps)
    return (x / (1.0 - x)).log()


def xlogy(input: Any, other: Any) -> Tensor:
    """``input * log(other)``, 0 where ``input`` is 0 (unless ``other`` is NaN), as torch.xlogy."""
    x, y = _promoted(input, other, floating=True)
    # x * log(y) is already 0 where x == 0 and log(y) is finite; the mask covers only the points where
    # that product is NaN (log(y) infinite or NaN for y <= 0), so the x-gradient stays log(y) as torch's.
    out = x * y.log()
    nan_product = (x == 0) & ~y.isnan() & ((y <= 0) | y.isinf())
    return _C.where(nan_product, x * 0, out)


def sinc(input: Tensor) -> Tensor:
    """``sin(pi x) / (pi x)``, 1 at 0 (gradient 0 there, as torch)."""
    x = _float_of(input)
    zero = x == 0
    px = _C.where(zero, x * 0 + 1, x) * math.pi
    return _C.where(zero, x * 0 + 1, px.sin() / px)


_NO_ARG = object()


def where(condition: Tensor, input: Any = _NO_ARG, other: Any = _NO_ARG) -> Any:
    """``input`` where ``condition`` holds, else ``other`` (either may be a number); with the
    condition alone, its nonzero indices as a tuple (``nonzero(as_tuple=True)``), as torch.where."""
    if input is _NO_ARG and other is _NO_ARG:
        return condition.nonzero(as_tuple=True)
    if input is _NO_ARG or other is _NO_ARG:
        raise TypeError("where() takes a condition alone, or a condition, input and other")
    if isinstance(condition, Tensor) and condition.dtype == _C.dtype.uint8:
        condition = condition.to(_BOOL)  # torch still takes a uint8 condition (deprecated there)
    return _C.where(condition, input, other)


def heaviside(input: Tensor, values: Tensor) -> Tensor:
    """0 where input < 0, ``values`` where input == 0, 1 where input > 0 (same dtypes required)."""
    _check_tensor(values, "heaviside", "values")
    if input.dtype != values.dtype:
        raise RuntimeError(f"heaviside is not yet implemented for tensors with different dtypes "
                           f"({input.dtype.name} and {values.dtype.name})")
    return _C.where(input == 0, values, (input > 0).to(input.dtype))


def nextafter(input: Tensor, other: Tensor) -> Tensor:
    """The next floating value after ``input`` towards ``other``. Computed by numpy on the host
    (a bit-level operation; the result is copied back to ``input``'s device); no gradient."""
    _check_tensor(other, "nextafter", "other")
    input, other = _promoted(input, other)  # the pair's result dtype, as torch (a 0-d tensor by category)
    if not _is_float(input) or input.dtype == _C.dtype.bfloat16:
        raise NotImplementedError(f'"nextafter_cpu" not implemented for \'{_torch_name(input.dtype)}\'')
    _C.broadcast_shapes(input.shape, other.shape)  # torch's error (a RuntimeError) for shapes that do not broadcast
    a, b = np.broadcast_arrays(input.detach().cpu().numpy(), other.detach().cpu().numpy())
    return _C.from_numpy(np.array(np.nextafter(a, b), order="C"))._to_device(input.device)


def frexp(input: Tensor) -> tuple[Tensor, Tensor]:
    """(mantissa, exponent) with ``input = mantissa * 2 ** exponent`` and 0.5 <= |mantissa| < 1 (both 0
    for 0; exponent int32), as torch.frexp. Floating tensors only; computed by numpy on the host."""
    if not _is_float(input):
        raise RuntimeError("torch.frexp() only supports floating-point dtypes")
    m, e = np.frexp(input.detach().cpu().numpy())
    mant = _C.from_numpy(np.array(m, order="C"))._to_device(input.device)
    return _FrexpResult(mant, _C.from_numpy(np.array(e, dtype=np.int32, order="C"))._to_device(input.device))


def gcd(input: Tensor, other: Tensor) -> Tensor:
    """Greatest common divisor of integer tensors (non-negative; gcd(0, 0) = 0)."""
    a, b = _promoted(input, other)  # both in the pair's result dtype first (uint8 wraps a negative 0-d int)
    if _is_float(a) or a.dtype == _BOOL:
        raise NotImplementedError(f'"gcd_cpu" not implemented for \'{_torch_name(a.dtype)}\'')
    a, b = a.abs(), b.abs()
    a, b = a + b * 0, b + a * 0  # broadcast
    while bool((b != 0).any()):
        nz = b != 0
        r = a.remainder(_C.where(nz, b, b * 0 + 1))
        a, b = _C.where(nz, b, a), _C.where(nz, r, b)
    return a


def lcm(input: Tensor, other: Tensor) -> Tensor:
    """Least common multiple of integer tensors (non-negative; 0 when either is 0)."""
    g = gcd(input, other)
    safe = _C.where(g == 0, g * 0 + 1, g)
    return (input.floor_divide(safe) * other).abs()


def _torch_name(dt: Any) -> str:
    """PyTorch's ScalarType name of a dtype, as its error messages print it."""
    return {"float32": "Float", "float64": "Double", "float16": "Half", "bfloat16": "BFloat16",
            "bool": "Bool", "int64": "Long", "int32": "Int", "int16": "Short", "int8": "Char",
            "uint8": "Byte"}.get(dt.name, dt.name)


def _inplace(fn):
    """The in-place form of an out-of-place composite: computes, then copies into self."""
    def method(self: Tensor, *args: Any, **kwargs: Any) -> Tensor:
        out = fn(self, *args, **kwargs)
        if out.dtype != self.dtype and not (_is_float(self) or not _is_float(out)):
            raise RuntimeError(f"result type {_torch_name(out.dtype)} can't be cast to the desired output type "
                               f"{_torch_name(self.dtype)}")
        return self.copy_(out)
    method.__name__ = fn.__name__ + "_"
    method.__doc__ = f"In-place :func:`{fn.__name__}`; returns self."
    return method


# ---- differences, integrals, reductions ------------------------------------------------------------

def diff(input: Tensor, n: int = 1, dim: int = -1, prepend: Tensor | None = None,
         append: Tensor | None = None) -> Tensor:
    """The n-th forward difference along ``dim`` (``prepend``/``append`` joined first)."""
    if input.ndim == 0:
        raise RuntimeError("diff expects input to be at least one-dimensional")
    if n < 0:
        raise RuntimeError(f"order must be non-negative but got {n}")
    if n == 0:
        return input
    parts = [t for t in (prepend, input, append) if t is not None]
    x = _C.cat(parts, dim) if len(parts) > 1 else input
    for _ in range(n):
        length = x.shape[dim]
        if length == 0:
            break
        a, b = x.narrow(dim, 1, length - 1), x.narrow(dim, 0, length - 1)
        x = (a != b) if x.dtype == _BOOL else a - b
    return x


def _trapezoid_areas(y: Tensor, x: Any, dx: Any, dim: int, fn: str) -> tuple[Tensor, Any]:
    """The trapezoids along ``dim`` as (terms, factor): each trapezoid's area is term * factor,
    the terms being (y[i+1] + y[i]) times the spacing when ``x`` is a tensor of sample points,
    and (y[i+1] + y[i]) with the factor spacing / 2 for a number ``x`` or ``dx`` (default 1)."""
    if x is not None and dx is not None:
        raise TypeError(f"{fn}() received an invalid combination of arguments: x and dx both given")
    n = y.shape[dim]
    mid = y.narrow(dim, 1, n - 1) + y.narrow(dim, 0, n - 1)
    if isinstance(x, Tensor):
        d = diff(x, dim=dim if x.ndim > 1 else -1)
        if x.ndim == 1:
            shape = [1] * y.ndim
            shape[dim] = n - 1
            d = d.reshape(shape)
        return mid * d, 0.5
    step = dx if dx is not None else (x if x is not None else 1)
    return _float_of(mid), step / 2


def trapezoid(y: Tensor, x: Any = None, *, dx: Any = None, dim: int = -1) -> Tensor:
    """The trapezoid rule along ``dim``, with sample points ``x`` or spacing ``dx`` (default 1)."""
    if y.shape[dim] == 0:
        return _float_of(y).sum(dim) * 0
    terms, factor = _trapezoid_areas(y, x, dx, dim, "trapezoid")
    return terms.sum(dim) * factor


trapz = trapezoid


def cumulative_trapezoid(y: Tensor, x: Any = None, *, dx: Any = None, dim: int = -1) -> Tensor:
    """The running trapezoid rule along ``dim`` (one fewer element than ``y`` there)."""
    if y.shape[dim] == 0:
        return _float_of(y)
    terms, factor = _trapezoid_areas(y, x, dx, dim, "cumulative_trapezoid")
    return terms.cumsum(dim) * factor


def dist(input: Tensor, other: Tensor, p: float = 2) -> Tensor:
    """The p-norm of ``input - other``."""
    from .linalg import vector_norm
    return vector_norm(input - other, p)


def renorm(input: Tensor, p: float, dim: int, maxnorm: float) -> Tensor:
    """Each slice along ``dim`` scaled down so its p-norm is at most ``maxnorm``."""
    from .linalg import vector_norm
    if p <= 0:
        raise RuntimeError(f"renorm: non-positive-norm not supported, got p = {p}")
    if maxnorm < 0:
        raise RuntimeError(f"renorm: expected maxnorm to be >= 0 but got {maxnorm}")
    if input.ndim < 2:
        raise RuntimeError(f"renorm: input needs at least 2 dimensions, got {input.ndim} dimensions")
    dim = _wrap(dim, input.ndim)
    others = [d for d in range(input.ndim) if d != dim]
    norms = vector_norm(input, p, dim=others, keepdim=True) if others else input.abs()
    # torch: factor = maxnorm / (norm + 1e-7) where norm > maxnorm, else 1 (not differentiated through the mask)
    # (1.0, not norms * 0 + 1: a NaN norm leaves its slice as it is, as torch)
    factor = _C.where(norms > maxnorm, maxnorm / (norms + 1e-7), 1.0)
    return input * factor


def cov(input: Tensor, *, correction: int = 1, fweights: Tensor | None = None,
        aweights: Tensor | None = None) -> Tensor:
    """Covariance of the rows (variables) of a 1-D or 2-D ``input`` over its columns (observations)."""
    if input.ndim > 2:
        raise RuntimeError(f"cov(): expected input to have two or fewer dimensions but got an input with "
                           f"{input.ndim} dimensions")
    if input.dtype == _BOOL:
        raise RuntimeError("cov(): bool dtype is not supported for input")
    x = _float_of(input)
    x = x.reshape(1, -1) if x.ndim < 2 else x
    n = x.shape[1]
    w = None
    if fweights is not None:
        if fweights.ndim > 1 or fweights.numel() != n:
            raise ValueError(f"cov(): expected fweights to have one dimension of size {n}")
        if _is_float(fweights):
            raise TypeError("cov(): expected fweights to have integral dtype")
        w = fweights.to(x.dtype)
    if aweights is not None:
        if aweights.ndim > 1 or aweights.numel() != n:
            raise ValueError(f"cov(): expected aweights to have one dimension of size {n}")
        if not _is_float(aweights):
            raise TypeError("cov(): expected aweights to have floating point dtype")
        w = aweights.to(x.dtype) if w is None else w * aweights.to(x.dtype)
    if w is None:
        wsum = _C.full([], builtins.float(n), dtype=x.dtype, device=x.device)
        avg = x.mean(1)
        norm = wsum - correction
    else:
        wsum = w.sum()
        avg = (x * w).sum(1) / wsum
        norm = wsum - correction * ((w * aweights.to(x.dtype)).sum() / wsum if aweights is not None else 1)
    norm = norm.clamp(min=0)
    xc = x - avg.unsqueeze(1)
    xw = xc * w if w is not None else xc
    c = xw.matmul(xc.transpose(0, 1)) / norm
    return c.reshape(()) if input.ndim < 2 or c.shape[0] == 1 and input.ndim < 2 else c


def corrcoef(input: Tensor) -> Tensor:
    """Pearson correlation coefficients of the rows of ``input`` (clipped to [-1, 1])."""
    c = cov(input)
    if c.ndim == 0:
        return c / c
    d = c.diagonal()
    std = d.sqrt()
    c = c / std.unsqueeze(1) / std.unsqueeze(0)
    return c.clamp(-1, 1)


def _quantile(input: Tensor, q: Any, dim: Any, keepdim: bool, interpolation: str, ignore_nan: bool,
              name: str) -> Tensor:
    if not _is_float(input):
        raise RuntimeError(f"{name}() input tensor must be either float or double dtype")
    if interpolation not in ("linear", "lower", "higher", "midpoint", "nearest"):
        raise RuntimeError(f"{name}() interpolation must be one of linear, lower, higher, midpoint or nearest, "
                           f"but got {interpolation}")
    if isinstance(q, Tensor) and q.dtype != input.dtype:
        raise RuntimeError(f"{name}() q tensor must be same dtype as the input tensor")
    scalar_q = not isinstance(q, Tensor) or q.ndim == 0  # a 0-d q tensor gives no quantile dim, as a float
    qt = _as_tensor(builtins.float(q) if not isinstance(q, Tensor) else q, input).to(input.dtype)
    if qt.ndim > 1:
        raise RuntimeError(f"{name}() q must be a scalar or 1D tensor")
    if qt.dtype != input.dtype:
        raise RuntimeError(f"{name}() q tensor must be same dtype as the input tensor")
    if bool(((qt < 0) | (qt > 1)).any()):
        raise RuntimeError(f"{name}() q values must be in the range [0, 1]")
    if input.numel() == 0:  # torch's message names quantile for nanquantile too
        raise RuntimeError("quantile() input tensor must be non-empty")
    x = input.reshape(-1) if dim is None else input
    d = 0 if dim is None else _wrap(dim, input.ndim)
    if x.ndim == 0:
        x = x.reshape(1)
    srt = x.sort(dim=d).values  # NaN sorts last
    nan = x.isnan()
    n_valid = (~nan).sum(d, keepdim=True).to(x.dtype) if ignore_nan else \
        _C.full([], builtins.float(x.shape[d]), dtype=x.dtype, device=x.device)
    any_nan = nan.any(d, keepdim=True)
    outs = []
    for qv in qt.reshape(-1).unbind(0):
        rank = qv * (n_valid - 1)
        if interpolation == "lower":
            rank = rank.floor()
        elif interpolation == "higher":
            rank = rank.ceil()
        elif interpolation == "nearest":
            rank = rank.round()
        lo = rank.floor().clamp(min=0)
        hi = rank.ceil().clamp(min=0)
        shape = list(srt.shape)
        shape[d] = 1
        lo_i, hi_i = lo.to(_I64).expand(shape), hi.to(_I64).expand(shape)
        vlo, vhi = srt.gather(d, lo_i), srt.gather(d, hi_i)
        if interpolation == "midpoint":
            val = vlo + (vhi - vlo) * 0.5
        else:
            val = vlo + (vhi - vlo) * (rank - lo)
        bad = (n_valid == 0) if ignore_nan else any_nan
        # A constant NaN (not val * nan): the gradient of where's unused branch must stay 0, not 0 * nan.
        nan_value = _C.full([], float("nan"), dtype=x.dtype)._to_device(x.device)
        val = _C.where(bad.expand(shape) if isinstance(bad, Tensor) and bad.ndim else bad, nan_value, val)
        if input.ndim == 0:  # a 0-d input gives 0-d quantiles, keepdim or not
            val = val.reshape(())
        elif not keepdim:
            val = val.squeeze(d)
        elif dim is None:
            val = val.reshape([1] * input.ndim)
        outs.append(val)
    if scalar_q:
        return outs[0]
    return _C.stack(outs, 0)


def quantile(input: Tensor, q: Any, dim: Any = None, keepdim: bool = False, *,
             interpolation: str = "linear") -> Tensor:
    """The q-th quantiles of ``input`` (over all elements, or along ``dim``); NaN where a NaN is
    present. ``q`` a float or 1-D tensor in [0, 1] (then the quantiles stack on a new first dim)."""
    return _quantile(input, q, dim, keepdim, interpolation, False, "quantile")


def nanquantile(input: Tensor, q: Any, dim: Any = None, keepdim: bool = False, *,
                interpolation: str = "linear") -> Tensor:
    """:func:`quantile` ignoring NaN (NaN only where a slice is all NaN)."""
    return _quantile(input, q, dim, keepdim, interpolation, True, "nanquantile")


# ---- construction and indexing ---------------------------------------------------------------------

def diagflat(input: Tensor, offset: int = 0) -> Tensor:
    """A 2-D matrix with the flattened ``input`` on diagonal ``offset``."""
    from .shape_ops import diag
    return diag(input.reshape(-1), offset)


def logspace(start: Any, end: Any, steps: int, base: float = 10.0, *, dtype: Any = None, device: Any = None,
             requires_grad: bool = False) -> Tensor:
    """``base ** linspace(start, end, steps)``."""
    dt = dtype or _C._get_default_dtype()
    exps = _C.linspace(start, end, steps, dtype=_F64)
    out = _C.full([], builtins.float(base), dtype=_F64).pow(exps)
    out = (out.round() if not dt.is_floating_point else out).to(dt)
    if device is not None:
        out = out.to(device)
    return out.requires_grad_(requires_grad) if requires_grad else out


def vander(x: Tensor, N: int | None = None, increasing: bool = False) -> Tensor:
    """The Vandermonde matrix of a 1-D ``x``: columns x^0 ... x^(N-1) (reversed unless increasing)."""
    if x.ndim != 1:
        raise RuntimeError("x must be a one-dimensional tensor.")
    n = x.shape[0] if N is None else N
    if n < 0:
        raise RuntimeError("N must be non-negative.")
    xx = x if _is_float(x) else x.to(_I64)
    if n == 0:
        return xx.reshape(-1, 1)[:, :0]
    cols = [xx * 0 + 1]
    for _ in range(1, n):
        cols.append(cols[-1] * xx)
    out = _C.stack(cols, 1)
    return out if increasing else out.flip([1])


def unravel_index(indices: Any, shape: Any) -> tuple[Tensor, ...]:
    """The coordinates in ``shape`` of flat ``indices`` (a tuple of int64 tensors)."""
    from .creation import tensor
    idx = indices if isinstance(indices, Tensor) else tensor(indices)
    if _is_float(idx) or idx.dtype == _BOOL:
        raise TypeError("expected 'indices' to be integer dtype, but got " + idx.dtype.name)
    shape = (shape,) if isinstance(shape, int) else tuple(int(s) for s in shape)
    if builtins.any(s < 0 for s in shape):
        raise _C.ArgumentError("'shape' cannot have negative values, but got " + str(shape))
    total = math.prod(shape)
    # torch wraps every index modulo the number of elements (no range check)
    rem = idx.to(_I64).remainder(total) if total else idx.to(_I64)
    coords = []
    for s in reversed(shape):
        coords.append(rem.remainder(s))
        rem = rem.floor_divide(s)
    return tuple(reversed(coords))


def combinations(input: Tensor, r: int = 2, with_replacement: bool = False) -> Tensor:
    """All length-``r`` combinations of the elements of a 1-D tensor, as the rows of a matrix."""
    import itertools
    if input.ndim != 1:
        raise RuntimeError(f"Expect a 1D vector, but got shape {list(input.shape)}")
    if r < 0:
        raise RuntimeError(f"Expect a non-negative number, but got {r}")
    if r == 0:
        return input.new_empty((0,))
    make = itertools.combinations_with_replacement if with_replacement else itertools.combinations
    rows = list(make(range(input.shape[0]), r))
    if not rows:
        return input.new_empty((0, r))
    from .creation import tensor
    idx = tensor(rows, dtype=_I64, device=input.device)
    return input.index_select(0, idx.reshape(-1)).reshape(len(rows), r)


def index_reduce(input: Tensor, dim: int, index: Tensor, source: Tensor, reduce: str, *,
                 include_self: bool = True) -> Tensor:
    """Rows of ``source`` reduced into ``input`` at ``index`` along ``dim`` with ``reduce`` in
    'prod', 'mean', 'amax', 'amin' (through scatter_reduce)."""
    if reduce not in ("prod", "mean", "amax", "amin"):
        raise RuntimeError(f"index_reduce(): Expected reduce to be one of prod, mean, amax or amin but got {reduce}.")
    if index.ndim > 1:
        raise IndexError("index_reduce_(): Index is supposed to be a vector")
    d = dim % builtins.max(input.ndim, 1)
    if source.ndim and index.numel() != source.shape[d]:
        raise RuntimeError(f"index_reduce_(): Number of indices ({index.numel()}) should be equal to "
                           f"source.size(dim) ({source.shape[d]})")
    shape = [1] * source.ndim
    if source.ndim:
        shape[d] = -1
    full_index = index.reshape(shape).expand(list(source.shape)) if source.ndim else index.reshape(())
    return input.scatter_reduce(d, full_index, source, reduce, include_self=include_self)


def _index_reduce_(self: Tensor, dim: int, index: Tensor, source: Tensor, reduce: str, *,
                   include_self: bool = True) -> Tensor:
    """In-place index_reduce; returns self."""
    return self.copy_(index_reduce(self, dim, index, source, reduce, include_self=include_self))


def put(input: Tensor, index: Tensor, source: Tensor, accumulate: bool = False) -> Tensor:
    """A copy of ``input`` with the flat positions ``index`` set to ``source`` (added with accumulate)."""
    out = input.clone()
    return _put_(out, index, source, accumulate)


def _put_(self: Tensor, index: Tensor, source: Tensor, accumulate: bool = False) -> Tensor:
    """Writes ``source`` at the flat positions ``index`` of self (adds with accumulate); returns self."""
    if index.dtype != _I64:
        raise RuntimeError(f"put_(): Expected a long tensor for index, but got {_torch_name(index.dtype)}")
    if source.dtype != self.dtype:
        raise RuntimeError(f"put_(): self and source expected to have the same dtype, but got "
                           f"self.dtype = {_torch_name(self.dtype)} and source.dtype = {_torch_name(source.dtype)}")
    if index.numel() != source.numel():
        raise RuntimeError(f"put_(): Expected source and index to have the same number of elements, but got "
                           f"source.numel() = {source.numel()}, index.numel() = {index.numel()}")
    n = self.numel()
    flat_idx = index.reshape(-1)
    if flat_idx.numel() and (bool((flat_idx >= n).any()) or bool((flat_idx < -n).any())):
        raise IndexError(f"put_(): index out of range for a tensor of {n} elements")
    if self.is_contiguous():
        self.view(-1).index_put_((flat_idx,), source.reshape(-1), accumulate)
    else:
        flat = self.contiguous().view(-1)
        flat.index_put_((flat_idx,), source.reshape(-1), accumulate)
        self.copy_(flat.view(list(self.shape)))
    return self


def chain_matmul(*matrices: Tensor, out: Any = None) -> Tensor:
    """The product of 2-D matrices (deprecated in torch for linalg.multi_dot, which this calls)."""
    from .linalg import multi_dot
    if len(matrices) == 1 and isinstance(matrices[0], (list, tuple)):
        matrices = tuple(matrices[0])
    if len(matrices) == 1:
        return matrices[0].clone()
    return multi_dot(list(matrices))


# ---- sampling --------------------------------------------------------------------------------------

def _gen(generator: Any) -> Any:
    return generator if generator is not None else _C.default_generator()


def normal(mean: Any, std: Any = 1.0, size: Any = None, *, generator: Any = None, dtype: Any = None,
           device: Any = None, requires_grad: bool = False) -> Tensor:
    """Samples of N(mean, std): tensor means and/or stds broadcast; floats with ``size``."""
    if isinstance(mean, Tensor) or isinstance(std, Tensor):
        like = mean if isinstance(mean, Tensor) else std
        m = mean if isinstance(mean, Tensor) else builtins.float(mean)
        s = std if isinstance(std, Tensor) else builtins.float(std)
        if isinstance(s, Tensor):
            if bool((s < 0).any()):
                raise RuntimeError("normal expects all elements of std >= 0.0")
        elif s < 0:
            raise RuntimeError(f"normal expects std >= 0.0, but found std {s}")
        shape = _C.broadcast_shapes(list(mean.shape) if isinstance(mean, Tensor) else [],
                                    list(std.shape) if isinstance(std, Tensor) else [])
        z = _C.randn(*shape, generator=generator, dtype=like.dtype if _is_float(like) else _C._get_default_dtype())._to_device(like.device)
        return z * s + m  # differentiable in mean and std as torch's (d/dstd = the standard normal draw)
    if size is None:
        raise TypeError("normal() received an invalid combination of arguments: with float mean and std, "
                        "give size")
    if std < 0:
        raise RuntimeError(f"normal expects std >= 0.0, but found std {std}")
    shape = [size] if isinstance(size, int) else list(size)
    z = _C.randn(*shape, generator=generator, dtype=dtype or _C._get_default_dtype(), device=device) * std + mean
    return z.requires_grad_(requires_grad) if requires_grad else z


def multinomial(input: Tensor, num_samples: int, replacement: bool = False, *, generator: Any = None) -> Tensor:
    """``num_samples`` category indices per row of the weights ``input`` (1-D or 2-D, non-negative,
    not all zero); without replacement each category at most once (Gumbel top-k), with
    replacement by inverting the cumulative weights."""
    if input.ndim not in (1, 2):
        raise RuntimeError("prob_dist must be 1 or 2 dim")
    if not _is_float(input):
        raise RuntimeError(f"multinomial only supports floating-point dtypes for input, got: {_torch_name(input.dtype)}")
    if num_samples <= 0:
        raise RuntimeError("cannot sample n_sample <= 0 samples")
    w = input.detach().reshape(1, -1) if input.ndim == 1 else input.detach()
    n_cat = w.shape[1]
    if not replacement and num_samples > n_cat:
        raise RuntimeError("cannot sample n_sample > prob_dist.size(-1) samples without replacement")
    if bool((w < 0).any()) or not bool(w.isfinite().all()):
        raise RuntimeError("probability tensor contains either `inf`, `nan` or element < 0")
    if bool((w.sum(1) <= 0).any()):
        raise RuntimeError("invalid multinomial distribution (sum of probabilities <= 0)")
    if not replacement and bool(((w > 0).sum(1) < num_samples).any()):
        raise RuntimeError("invalid multinomial distribution (with replacement=False, not enough non-negative "
                           "category to sample)")
    w64 = w.to(_F64)
    u = _C.rand(w.shape[0], num_samples if replacement else n_cat, generator=generator, dtype=_F64)._to_device(w.device)
    if replacement:
        cdf = w64.cumsum(1)
        cdf = cdf / cdf[:, -1:]
        from .shape_extras import searchsorted
        out = searchsorted(cdf.contiguous(), u.contiguous(), right=True).clamp(max=n_cat - 1)
    else:
        # Gumbel top-k: log(u) / w is largest for the categories drawn first (weight 0: never)
        keys = _C.where(w64 > 0, u.log() / w64, w64 * 0 - float("inf"))
        out = keys.topk(num_samples, 1).indices
    return out.reshape(-1) if input.ndim == 1 else out


def poisson(input: Tensor, generator: Any = None) -> Tensor:
    """Poisson samples with rates ``input``. Drawn by numpy's generator, seeded from aakaar's
    (so ``aakaar.manual_seed`` and ``generator=`` make it reproducible)."""
    if not _is_float(input):
        raise RuntimeError(f'"poisson_cpu" not implemented for \'{_torch_name(input.dtype)}\'')
    rates = input.detach().cpu().to(_F64).numpy()
    if (rates < 0).any() or np.isnan(rates).any():
        raise RuntimeError("poisson: invalid Poisson rate, expected rate to be non-negative")
    seed = int(_C.randint(0, 2 ** 62, [1], generator=generator).item())
    draws = np.random.default_rng(seed).poisson(rates).astype(np.float64)
    return _C.from_numpy(np.array(draws, order="C"))._to_device(input.device).to(input.dtype)


class _FrexpResult(tuple):
    """(mantissa, exponent), with both names as fields like torch.return_types.frexp."""

    def __new__(cls, mantissa: Tensor, exponent: Tensor):
        return super().__new__(cls, (mantissa, exponent))

    mantissa = property(lambda self: self[0])
    exponent = property(lambda self: self[1])


__all__ = [
    *ALIASES.keys(), "subtract", "positive", "concat", "concatenate", "clamp_min", "clamp_max",
    "is_floating_point", "is_complex", "is_nonzero", "isreal", "is_same_size", "signbit", "addcmul", "addcdiv",
    "deg2rad", "rad2deg", "float_power", "ldexp", "logaddexp2", "logit", "xlogy", "sinc", "heaviside",
    "nextafter", "frexp", "gcd", "lcm", "where", "diff", "trapezoid", "trapz", "cumulative_trapezoid", "dist", "renorm",
    "cov", "corrcoef", "quantile", "nanquantile", "diagflat", "logspace", "vander", "unravel_index",
    "combinations", "index_reduce", "put", "chain_matmul", "normal", "multinomial", "poisson",
    "cosine_similarity", "pairwise_distance", "pdist", "fill", "set_default_dtype",
]
__all__ = [n for n in __all__ if not n.endswith("_") or n in ("absolute_", "negative_")]

# Tensor methods torch has, each the function above (input is self).
_METHODS = [
    "subtract", "positive", "clamp_min", "clamp_max", "is_floating_point", "is_complex", "is_nonzero", "isreal",
    "is_same_size", "signbit", "addcmul", "addcdiv", "deg2rad", "rad2deg", "float_power", "ldexp", "logaddexp2",
    "logit", "xlogy", "sinc", "heaviside", "nextafter", "frexp", "gcd", "lcm", "diff", "dist", "renorm", "cov",
    "corrcoef", "quantile", "nanquantile", "diagflat", "index_reduce", "put", "multinomial",
]
# In-place forms made by _inplace (compute, then copy into self).
_INPLACE = ["deg2rad", "rad2deg", "ldexp", "logit", "xlogy", "sinc", "heaviside", "nextafter", "gcd", "lcm",
            "renorm"]


def _alias(name: str, target: str):
    def fn(input: Tensor, *args: Any, **kwargs: Any) -> Any:
        return getattr(input, target)(*args, **kwargs)
    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = f"Alias of ``{target}``."
    return fn


for _name, _target in ALIASES.items():
    globals()[_name] = _alias(_name, _target)


def install() -> None:
    """Attach the methods (and in-place forms) to the Tensor class."""
    g = globals()
    for name in _METHODS:
        setattr(Tensor, name, g[name])
    for name in _INPLACE:
        setattr(Tensor, name + "_", _inplace(g[name]))
    for name, target in ALIASES.items():
        if name != "swapdims_" or hasattr(Tensor, target):
            setattr(Tensor, name, g[name])
    Tensor.subtract_ = _subtract_
    Tensor.clamp_min_ = _clamp_min_
    Tensor.clamp_max_ = _clamp_max_
    Tensor.addcmul_ = _addcmul_
    Tensor.addcdiv_ = _addcdiv_
    Tensor.float_power_ = _float_power_
    Tensor.index_reduce_ = _index_reduce_
    Tensor.put_ = _put_


# ---- distances (torch's top-level names; aakaar.nn.functional has its own spelling) -----------------

def cosine_similarity(x1: Tensor, x2: Tensor, dim: int = 1, eps: float = 1e-8) -> Tensor:
    """The cosine of the angle between x1 and x2 along ``dim`` (broadcasting): each is divided by
    its norm clamped to at least ``eps`` first, as torch does."""
    from .linalg import vector_norm
    n1 = vector_norm(x1, 2, dim, keepdim=True).clamp(min=eps)
    n2 = vector_norm(x2, 2, dim, keepdim=True).clamp(min=eps)
    return ((x1 / n1) * (x2 / n2)).sum(dim)


def pairwise_distance(x1: Tensor, x2: Tensor, p: float = 2.0, eps: float = 1e-6, keepdim: bool = False) -> Tensor:
    """The p-norm of ``x1 - x2 + eps`` along the last dim."""
    from .linalg import vector_norm
    return vector_norm(x1 - x2 + eps, p, -1, keepdim)


def pdist(input: Tensor, p: float = 2.0) -> Tensor:
    """The p-norm distances between every pair of rows i < j of a 2-D input, in row-major order."""
    from .linalg import vector_norm
    if input.ndim != 2:
        raise RuntimeError(f"pdist only supports 2D tensors, got: {input.ndim}D")
    n = input.shape[0]
    if n < 2:
        return input.new_empty((0,))
    from .shape_extras import triu_indices
    i, j = triu_indices(n, n, 1)
    return vector_norm(input.index_select(0, i) - input.index_select(0, j), p, -1)


def fill(input: Tensor, value: Any) -> Tensor:
    """A new tensor like ``input`` filled with ``value``."""
    return input.clone().fill_(value)


def set_default_dtype(d: Any) -> None:
    """Sets the default floating dtype, process-wide as in PyTorch: the dtype of Python floats made
    tensors, of factories given no dtype, and of integers promoted to floats (int64 tensor * 1.5).
    Floating dtypes only; anything else is a TypeError with PyTorch's words."""
    if not isinstance(d, _C.dtype):
        raise TypeError("invalid dtype object: only floating-point types are supported as the default type")
    _C._set_default_dtype(d)
