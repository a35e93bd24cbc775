"""torch's ``out=`` argument on the top-level functions (``aakaar.add(a, b, out=c)``).

The op computes its result as usual; the result is then written into ``out``, which is resized
to the result's shape when it differs (as torch does) and returned. The dtype rules are torch's,
which differ by op:

* most ops: the result's dtype must be castable to ``out``'s (``aakaar.can_cast``), else a
  RuntimeError "result type Float can't be cast to the desired output type Long";
* ops that write their own dtype only (``EXACT``: abs, floor, amax, tril, ...): ``out`` must have
  the result's dtype;
* ``BOOL_OUT`` ops write bool, ``LONG_OUT`` ops write int64 (argmax, nonzero);
* ops returning (values, indices) take a tuple of two tensors, each of the result's dtype;
* sum, prod, nansum, cumsum and cumprod compute in ``out``'s dtype.

As in torch, out= refuses arguments that require grad while grad mode is on (the written tensor
could not carry a gradient).
"""

from __future__ import annotations

import functools
import warnings
from typing import Any, Callable

from ._C import Tensor

# The ops whose torch form takes out= (checked against torch 2.13 CPU).
CASTING = """acos acosh add addcdiv addcmul angle arccos arccosh arcsin arcsinh arctan arctan2 arctanh asin asinh
atan atan2 atanh bitwise_and bitwise_left_shift bitwise_not bitwise_or bitwise_right_shift bitwise_xor
copysign cos cosh deg2rad diff digamma div divide eq erf erfc erfinv exp exp2 expm1 floor_divide fmax fmin fmod ge
greater greater_equal gt hypot i0 igamma igammac kron ldexp le less less_equal lgamma log log10 log1p log2 logaddexp
logaddexp2 logical_and logical_not logical_or logical_xor logit logsumexp lt max maximum mean min minimum mul multiply
mvlgamma nanmean ne nextafter not_equal pow rad2deg reciprocal remainder rsqrt sigmoid sin sinc sinh sqrt
square std sub subtract tan tanh true_divide var xlogy gcd lcm heaviside float_power""".split()
EXACT = """abs absolute ceil floor fix frac neg negative round sgn sign trunc lerp amax amin cross diag log_softmax
softmax msort norm tril triu tensordot inner logcumsumexp nan_to_num quantile nanquantile histc where matmul mm bmm mv
dot outer""".split()
CONCAT = "cat concat concatenate stack hstack vstack dstack column_stack".split()
BOOL_OUT = "all any isneginf isposinf signbit".split()
LONG_OUT = "argmax argmin nonzero".split()
IN_OUT_DTYPE = "sum prod nansum cumsum cumprod".split()  # computed in out's dtype, as torch
# clamp/clip: castable with a tensor bound, the exact dtype with number bounds (torch's two kernels).
CLAMP = "clamp clip".split()
TUPLE_OUT = "sort topk kthvalue mode cummax cummin aminmax frexp median nanmedian".split()

def _tname(dt: Any) -> str:
    from .everyday_ops import _torch_name
    return _torch_name(dt)


def _write(result: Tensor, out: Any, name: str, rule: str) -> Tensor:
    from . import can_cast, dtype as _dtype
    if not isinstance(out, Tensor):
        raise TypeError(f"{name}(): argument 'out' must be Tensor, not {type(out).__name__}")
    if rule == "exact" and out.dtype != result.dtype:
        raise RuntimeError(f"{name}(): expected out tensor to have dtype {_tname(result.dtype)}, "
                           f"but got {_tname(out.dtype)} instead")
    if rule == "bool" and out.dtype != _dtype.bool:
        raise RuntimeError(f"{name}(): out= must be a bool tensor, got {_tname(out.dtype)}")
    if rule == "long" and out.dtype != _dtype.int64:
        raise RuntimeError(f"{name}(): expected out tensor to have dtype Long, but got {_tname(out.dtype)} instead")
    if rule in ("cast", "concat") and not can_cast(result.dtype, out.dtype):
        msg = f"result type {_tname(result.dtype)} can't be cast to the desired output type {_tname(out.dtype)}"
        raise (TypeError(f"torch.cat(): input types can't be cast to the desired output type {_tname(out.dtype)}")
               if rule == "concat" else RuntimeError(f"{name}(): {msg}"))
    if out.device != result.device:
        raise RuntimeError(f"{name}(): expected out on {result.device}, got a tensor on {out.device}")
    if tuple(out.shape) != tuple(result.shape):
        if out.numel() != 0:  # torch's warning: resizing a non-empty out is deprecated there
            warnings.warn(f"{name}(): an output with one or more elements was resized since it had shape "
                          f"{list(out.shape)}, which does not match the required output shape {list(result.shape)}.",
                          UserWarning, stacklevel=3)
        out.resize_(*result.shape)
    return out.copy_(result)


def _bool_dtype() -> Any:
    from . import dtype
    return dtype.bool


def _requires_grad(args: Any) -> bool:
    for a in args:
        if isinstance(a, Tensor) and a.requires_grad:
            return True
        if isinstance(a, (list, tuple)) and _requires_grad(a):
            return True
    return False


def with_out(fn: Callable, name: str, rule: str) -> Callable:
    """``fn`` taking torch's ``out=``; without it, ``fn`` unchanged."""

    @functools.wraps(fn)
    def wrapper(*args: Any, out: Any = None, **kwargs: Any) -> Any:
        rule_now = rule
        if out is None:
            return fn(*args, **kwargs)
        from .autograd import is_grad_enabled
        if is_grad_enabled() and _requires_grad(list(args) + list(kwargs.values())):
            raise RuntimeError(f"{name}(): functions with out=... arguments don't support automatic "
                               "differentiation, but one of the arguments requires grad.")
        if rule_now == "in_out_dtype" and isinstance(out, Tensor):
            if name in ("cumsum", "cumprod") and out.dtype == _bool_dtype():
                raise NotImplementedError(f'"{name}_out_cpu" not implemented for \'Bool\'')
            kwargs.setdefault("dtype", out.dtype)
        result = fn(*args, **kwargs)
        if rule_now == "clamp":
            tensor_bound = any(isinstance(v, Tensor) for v in list(args[1:]) + list(kwargs.values()))
            rule_now = "cast" if tensor_bound else "exact"
        if isinstance(result, tuple):
            if not isinstance(out, (tuple, list)) or len(out) != len(result):
                raise TypeError(f"{name}(): argument 'out' must be a tuple of {len(result)} Tensors")
            written = [_write(r, o, name, "exact") for r, o in zip(result, out)]
            return type(result)(*written) if hasattr(result, "_fields") else tuple(written)
        return _write(result, out, name, rule_now)

    wrapper.__wrapped_out__ = True  # type: ignore[attr-defined]
    return wrapper


def install(namespace: dict) -> None:
    """Wraps each listed function of ``namespace`` (the aakaar module) to take ``out=``."""
    for names, rule in ((CASTING, "cast"), (EXACT, "exact"), (CONCAT, "concat"), (BOOL_OUT, "bool"),
                        (LONG_OUT, "long"), (IN_OUT_DTYPE, "in_out_dtype"), (CLAMP, "clamp"), (TUPLE_OUT, "exact")):
        for name in names:
            fn = namespace.get(name)
            if fn is not None and not getattr(fn, "__wrapped_out__", False):
                namespace[name] = with_out(fn, name, rule)
