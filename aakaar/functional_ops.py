"""Module-level versions of the Tensor methods: ``aakaar.exp(t)`` is ``t.exp()``.

Generated from a list so the two spellings cannot drift apart.
"""

from __future__ import annotations

from typing import Any

from . import _C
from ._C import Tensor

_UNARY = [
    "neg", "abs", "sign", "exp", "log", "log1p", "expm1", "sqrt", "rsqrt", "sin", "cos", "tanh",
    "sigmoid", "relu", "silu", "floor", "ceil", "round", "reciprocal", "square", "logical_not",
    "contiguous", "clone", "numel", "nonzero", "tolist", "flatten", "squeeze", "unsqueeze",
    "transpose", "permute", "reshape", "narrow", "select", "diagonal", "split", "chunk", "unbind",
    "sum", "mean", "prod", "all", "any", "amax", "amin", "max", "min", "argmax", "argmin", "var", "std",
    "logsumexp", "softmax", "log_softmax", "cumsum", "index_select", "gather", "scatter", "scatter_add",
    "masked_fill", "clamp", "clip", "add", "sub", "mul", "div", "floor_divide", "remainder", "pow",
    "maximum", "minimum", "lerp", "eq", "ne", "lt", "le", "gt", "ge", "logical_and", "logical_or", "logical_xor",
    "as_strided", "unflatten", "swapaxes", "broadcast_to", "gelu", "softplus",
]
# The maths API (csrc/python/bind_math.cpp, aakaar/_math_ops.py).
_MATH = [
    "tan", "asin", "arcsin", "acos", "arccos", "atan", "arctan", "sinh", "cosh", "asinh", "arcsinh", "acosh",
    "arccosh", "atanh", "arctanh", "log2", "log10", "exp2", "trunc", "fix", "frac", "sgn", "bitwise_not",
    "isnan", "isinf", "isposinf", "isneginf", "isfinite", "nan_to_num", "atan2", "arctan2", "fmod", "copysign",
    "hypot", "fmax", "fmin", "logaddexp", "bitwise_and", "bitwise_or", "bitwise_xor", "bitwise_left_shift",
    "bitwise_right_shift", "divide", "true_divide", "isclose", "allclose", "equal",
    "tan_", "sin_", "cos_", "exp_", "log_", "sqrt_", "abs_", "neg_", "sigmoid_", "tanh_", "relu_", "nan_to_num_",
    # special functions (C++), and torch's top-level in-place forms
    "erf", "erfc", "erfinv", "lgamma", "digamma", "i0", "erf_", "erfc_", "i0_", "acos_", "acosh_", "arccos_",
    "arccosh_", "arcsin_", "arcsinh_", "arctan_", "arctanh_", "asin_", "asinh_", "atan_", "atanh_", "ceil_",
    "cosh_", "exp2_", "expm1_", "fix_", "floor_", "frac_", "log10_", "log1p_", "log2_", "reciprocal_", "round_",
    "rsqrt_", "sinh_", "square_", "trunc_", "clamp_", "clip_", "fill_", "zero_", "detach", "detach_",
]
_UNARY += [n for n in _MATH if n not in _UNARY]

__all__ = list(_UNARY) + ["t", "is_tensor", "numel"]


# torch's arithmetic takes a number as its first operand (torch.pow(2, t), torch.sub(1, t)): the number
# joins as a 0-d tensor of the pair's result dtype, which promotes as the number would.
_NUMBER_FIRST = {"add", "sub", "subtract", "mul", "multiply", "div", "divide", "true_divide", "floor_divide",
                 "remainder", "pow"}


def _make(name: str):
    method = getattr(Tensor, name, None)

    def fn(input: Tensor, *args: Any, **kwargs: Any) -> Any:
        if not isinstance(input, Tensor):
            other = args[0] if args else None
            if name in _NUMBER_FIRST and isinstance(input, (int, float, bool)) and isinstance(other, Tensor):
                # (a bool stays bool for sub, whose refusal of bool operands is torch's)
                bool_sub = isinstance(input, bool) and name in ("sub", "subtract")
                dt = _C.dtype.bool if bool_sub else _C.result_type(input, other)
                input = _C.full([], input, dtype=dt, device=other.device)
            else:
                raise TypeError(f"{name}(): argument 'input' (position 1) must be Tensor, not {type(input).__name__}")
        return getattr(input, name)(*args, **kwargs)

    fn.__name__ = name
    fn.__qualname__ = name
    fn.__doc__ = f"``aakaar.{name}(t, ...)`` is ``t.{name}(...)``." + (
        f"\n\n{method.__doc__}" if method is not None and method.__doc__ else ""
    )
    return fn


for _name in _UNARY:
    globals()[_name] = _make(_name)


def t(input: Tensor) -> Tensor:
    """Transpose of a matrix (``input`` must have at most 2 dims)."""
    if input.ndim > 2:
        raise _C.ArgumentError(f"t() expects a tensor with <= 2 dims, got shape {tuple(input.shape)}")
    return input.transpose(0, 1) if input.ndim == 2 else input


def is_tensor(obj: Any) -> bool:
    """Whether ``obj`` is an aakaar Tensor."""
    return isinstance(obj, Tensor)
