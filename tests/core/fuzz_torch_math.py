"""Fuzz groups "math" and "sortconv" of the differential fuzz against PyTorch
(fuzz_torch_worker.py), compared strictly (fuzz_torch_common.strict): what the
library gained after the first campaigns.

math: every dtype (bool, uint8, int8, int16, int32, int64, float16, bfloat16,
float32, float64) through binary ops with type promotion (tensor with tensor,
broadcast, tensor with a Python scalar), the maths API (trigonometric and
hyperbolic functions, logarithms and exponentials, rounding, fmod, remainder,
copysign, hypot, atan2, div's rounding modes, floor_divide) and the bitwise
ops and shifts, with special values (NaN, +-inf, -0.0, each dtype's extremes).

sortconv: sort / argsort / topk / cumsum / cumprod / cummax / cummin /
logcumsumexp over every dtype and dim (out of range too, k out of range), and
the argument corners of conv2d and max_pool2d: input and weight shapes (zero
sizes, 3-d input, channel mismatches, groups), strides, paddings ('same',
'valid', negative, larger than half the window), dilations, ceil_mode.
"""

from __future__ import annotations

import numpy as np
import torch
from hypothesis import strategies as st

import aakaar as ak
from fuzz_torch_common import Discrepancy, strict

INTS = ["uint8", "int8", "int16", "int32", "int64"]
HALVES = ["float16", "bfloat16"]
ALL_DTYPES = ["bool", *INTS, *HALVES, "float32", "float64"]
# 16-bit floats are built as float32 (numpy has no bfloat16) and converted in both libraries.
_BASE = {"float16": "float32", "bfloat16": "float32"}
_RANGE = {"uint8": (0, 255), "int8": (-128, 127), "int16": (-(2**15), 2**15 - 1),
          "int32": (-(2**31), 2**31 - 1), "int64": (-(2**63), 2**63 - 1)}
_FLOAT_SPECIALS = [0.0, -0.0, 1.0, -1.0, 0.5, -2.5, float("nan"), float("inf"), float("-inf"), 1e30, 65504.0,
                   70000.0, 1e-40, 3.0e38]


def _values(draw, dtype: str, n: int, tame: bool) -> list:
    if dtype == "bool":
        return draw(st.lists(st.booleans(), min_size=n, max_size=n))
    if dtype in _RANGE:
        lo, hi = _RANGE[dtype]
        small = st.integers(max(lo, -20), min(hi, 20))
        ints = small if tame else st.one_of(small, st.sampled_from([lo, hi, lo + 1, hi - 1, 0, -1 if lo < 0 else 1]))
        return draw(st.lists(ints, min_size=n, max_size=n))
    floats = st.floats(-10, 10, width=32)
    specials = [0.0, -0.0, 1.0, float("nan"), float("inf"), float("-inf")] if tame else _FLOAT_SPECIALS
    return draw(st.lists(st.one_of(floats, st.sampled_from(specials)), min_size=n, max_size=n))


@st.composite
def typed(draw, dtypes=ALL_DTYPES, shape=None, tame=False, max_dims=3):
    """(numpy array, dtype name): the array holds the values in a dtype numpy has."""
    dtype = draw(st.sampled_from(dtypes))
    if shape is None:
        shape = tuple(draw(st.lists(st.integers(0, 4), max_size=max_dims)))
    n = int(np.prod(shape)) if shape else 1
    arr = np.array(_values(draw, dtype, n, tame), dtype=_BASE.get(dtype, dtype)).reshape(shape)
    return arr, dtype


def build(lib, arr, dtype):
    t = lib.tensor(arr)
    return t.to(getattr(lib, dtype)) if dtype in _BASE else t


def _dtype_name(x) -> str:
    return str(x.dtype).split(".")[-1]


def _as_np(x):
    """A result as numpy: 16-bit floats read as float32 (exactly), in both libraries."""
    if _dtype_name(x) in _BASE:
        x = x.float()
    return x.detach().numpy() if isinstance(x, torch.Tensor) else x.detach().numpy()


def _tolerance(dtype: str, rtol: float) -> float:
    # A result rounded to a 16-bit float can differ by one unit in its last place when the float32
    # value it rounds lies on the other side of a rounding boundary.
    return {"float16": max(rtol, 1e-3), "bfloat16": max(rtol, 8e-3)}.get(dtype, rtol)


def check_tensors(ra, rt, rtol=1e-6, atol=0.0):
    """Same type, shape, dtype and values (NaN where torch's NaN; -0.0 not told from 0.0)."""
    if isinstance(rt, (tuple, list)):
        if not isinstance(ra, (tuple, list)) or len(ra) != len(rt):
            raise Discrepancy(f"aakaar {ra!r}, torch {rt!r}")
        for a, t in zip(ra, rt):
            check_tensors(a, t, rtol, atol)
        return
    if not isinstance(rt, torch.Tensor):
        if ra != rt:
            raise Discrepancy(f"aakaar {ra!r}, torch {rt!r}")
        return
    if not isinstance(ra, ak.Tensor):
        raise Discrepancy(f"aakaar returned {type(ra).__name__}, torch a tensor")
    if tuple(ra.shape) != tuple(rt.shape) or _dtype_name(ra) != _dtype_name(rt):
        raise Discrepancy(f"aakaar {_dtype_name(ra)}{tuple(ra.shape)}, torch {_dtype_name(rt)}{tuple(rt.shape)}")
    a, t = _as_np(ra), _as_np(rt)
    if a.dtype.kind == "f":
        r = _tolerance(_dtype_name(rt), rtol)
        np.testing.assert_allclose(a, t, rtol=r, atol=max(atol, r * 1e-3), equal_nan=True)
    else:
        np.testing.assert_array_equal(a, t)


# ---------------------------------------------------------------- math

BINARY = ["add", "sub", "mul", "div", "maximum", "minimum", "eq", "lt", "ge", "fmod", "remainder", "copysign",
          "hypot", "atan2", "floor_divide", "bitwise_and", "bitwise_or", "bitwise_xor", "bitwise_left_shift",
          "bitwise_right_shift", "div_trunc", "div_floor", "pow"]
UNARY = ["sin", "cos", "tan", "asin", "acos", "atan", "sinh", "cosh", "tanh", "asinh", "acosh", "atanh", "exp",
         "exp2", "expm1", "log", "log2", "log10", "log1p", "sqrt", "rsqrt", "reciprocal", "trunc", "ceil", "floor",
         "round", "frac", "abs", "neg", "bitwise_not", "sigmoid", "square"]
# Transcendental functions may differ from torch's by an ulp or two (different approximations).
_LOOSE = {"sin", "cos", "tan", "asin", "acos", "atan", "sinh", "cosh", "tanh", "asinh", "acosh", "atanh", "exp",
          "exp2", "expm1", "log", "log2", "log10", "log1p", "rsqrt", "sigmoid", "hypot", "atan2", "pow", "div",
          "div_trunc", "div_floor", "floor_divide", "fmod", "remainder"}


def _scalar_operand_we_accept(op):
    def accepted(exc) -> bool:
        """Where PyTorch refuses and aakaar computes, on purpose: a Python number as the second
        operand of maximum, minimum, atan2 and hypot (``x.maximum(0)``). PyTorch's signatures for
        these four take only a tensor (a TypeError at the argument parser), while its add, fmod,
        copysign, ... take a number, and so do numpy's np.maximum / np.arctan2 / np.hypot; aakaar
        takes the number as every other binary op does (a tensor of the tensor's kind, the rule of
        Python numbers in promotion). tests/core/test_fuzz_math_findings.py checks the values.
        """
        return (op in ("maximum", "minimum", "atan2", "hypot") and isinstance(exc, TypeError)
                and "must be Tensor, not" in str(exc))
    return accepted


def _call(x, op, *args):
    if op == "div_trunc":
        return x.div(*args, rounding_mode="trunc")
    if op == "div_floor":
        return x.div(*args, rounding_mode="floor")
    return getattr(x, op)(*args)


def _float_tol(op):
    return 2e-5 if op in _LOOSE else 1e-6


@st.composite
def _broadcast_pair(draw):
    shape = tuple(draw(st.lists(st.integers(0, 3), max_size=3)))
    other = list(shape)
    for i in range(len(other)):
        if draw(st.integers(0, 3)) == 0:
            other[i] = 1 if draw(st.booleans()) else draw(st.integers(0, 3))  # broadcast, or a clash
    if other and draw(st.integers(0, 3)) == 0:
        other = other[draw(st.integers(0, len(other))):]  # fewer dims
    return shape, tuple(other)


SCALARS = [0, 1, -1, 3, 127, 128, 255, 256, -129, 2**31, 2**40, 2**63 - 1, -(2**63), 0.5, -2.5, 1e10, float("nan"),
           float("inf"), True, False]

MATH_CASES = st.one_of(
    st.tuples(st.just("binary"), _broadcast_pair(), st.sampled_from(ALL_DTYPES), st.sampled_from(ALL_DTYPES),
              st.sampled_from(BINARY), st.data()),
    st.tuples(st.just("scalar"), typed(), st.sampled_from(BINARY), st.sampled_from(SCALARS), st.booleans()),
    st.tuples(st.just("unary"), typed(), st.sampled_from(UNARY)),
    st.tuples(st.just("convert"), typed(), st.sampled_from(ALL_DTYPES)),
)


def run_math_case(case):
    kind = case[0]
    if kind == "binary":
        (s1, s2), d1, d2, op, data = case[1:]
        (x, _), (y, _) = data.draw(typed([d1], shape=s1)), data.draw(typed([d2], shape=s2))
        a1, a2, t1, t2 = build(ak, x, d1), build(ak, y, d2), build(torch, x, d1), build(torch, y, d2)
        strict(op, lambda: _call(a1, op, a2), lambda: _call(t1, op, t2),
               lambda ra, rt: check_tensors(ra, rt, _float_tol(op)))
    elif kind == "scalar":
        (x, d), op, v, reflected = case[1:]
        a, t = build(ak, x, d), build(torch, x, d)
        if reflected and op in ("add", "sub", "mul", "div", "floor_divide", "remainder", "pow", "bitwise_and",
                                "bitwise_or", "bitwise_xor", "bitwise_left_shift", "bitwise_right_shift"):
            dunder = {"add": "__radd__", "sub": "__rsub__", "mul": "__rmul__", "div": "__rtruediv__",
                      "floor_divide": "__rfloordiv__", "remainder": "__rmod__", "pow": "__rpow__",
                      "bitwise_and": "__rand__", "bitwise_or": "__ror__", "bitwise_xor": "__rxor__",
                      "bitwise_left_shift": "__rlshift__", "bitwise_right_shift": "__rrshift__"}[op]
            strict(dunder, lambda: getattr(a, dunder)(v), lambda: getattr(t, dunder)(v),
                   lambda ra, rt: check_tensors(ra, rt, _float_tol(op)))
        else:
            strict(op, lambda: _call(a, op, v), lambda: _call(t, op, v),
                   lambda ra, rt: check_tensors(ra, rt, _float_tol(op)), torch_refusal_ok=_scalar_operand_we_accept(op))
    elif kind == "unary":
        (x, d), op = case[1:]
        a, t = build(ak, x, d), build(torch, x, d)
        strict(op, lambda: getattr(a, op)(), lambda: getattr(t, op)(),
               lambda ra, rt: check_tensors(ra, rt, _float_tol(op), 1e-6 if op in _LOOSE else 0.0))
    elif kind == "convert":
        (x, d), to = case[1:]
        a, t = build(ak, x, d), build(torch, x, d)
        strict("to", lambda: a.to(getattr(ak, to)), lambda: t.to(getattr(torch, to)), check_tensors)


# ---------------------------------------------------------------- sort, scans, conv2d, max_pool2d

def _sorted_check(ra, rt, x_ak, dim, exact_indices):
    """Values as torch's; indices as torch's where the order is defined (a stable sort, no ties in
    topk), else indices that pick the values out of the input."""
    (va, ia), (vt, it) = ra, rt
    check_tensors(va, vt)
    if exact_indices:
        check_tensors(ia, it)
        return
    if tuple(ia.shape) != tuple(it.shape) or _dtype_name(ia) != _dtype_name(it):
        raise Discrepancy(f"indices: aakaar {_dtype_name(ia)}{tuple(ia.shape)}, torch {_dtype_name(it)}{tuple(it.shape)}")
    if x_ak.ndim and ia.numel():
        check_tensors(x_ak.gather(dim, ia), vt)


SCANS = ["cumsum", "cumprod", "cummax", "cummin", "logcumsumexp"]


def _scan(x, op, dim, dtype, lib):
    if dtype is not None and op in ("cumsum", "cumprod"):
        return getattr(x, op)(dim, dtype=getattr(lib, dtype))
    return getattr(x, op)(dim)


@st.composite
def conv_case(draw):
    n, c = draw(st.integers(0, 2)), draw(st.integers(0, 3))
    h, w = draw(st.integers(0, 6)), draw(st.integers(0, 6))
    groups = draw(st.sampled_from([1, 1, 1, 2, 3, 0, -1]))
    out_c = draw(st.integers(0, 4))
    w_in = draw(st.sampled_from([c, c, max(c // max(groups, 1), 0), c + 1]))
    kh, kw = draw(st.integers(0, 4)), draw(st.integers(1, 4))
    in_shape = (n, c, h, w) if draw(st.integers(0, 4)) else (c, h, w)
    w_shape = (out_c, w_in, kh, kw) if draw(st.integers(0, 6)) else (out_c, w_in, kh)
    bias = draw(st.sampled_from([None, out_c, out_c + 1]))
    stride = draw(st.sampled_from([1, 1, 2, 3, (1, 2), 0, -1, (2,)]))
    padding = draw(st.sampled_from([0, 0, 1, 2, (0, 1), -1, 5, "same", "valid", "bad"]))
    dilation = draw(st.sampled_from([1, 1, 2, (1, 3), 0, -2]))
    dtype = draw(st.sampled_from(["float32", "float32", "float64"]))
    return in_shape, w_shape, bias, stride, padding, dilation, groups, dtype


@st.composite
def pool_case(draw):
    shape = draw(st.sampled_from([(1, 2, 5, 5), (2, 1, 4, 6), (3, 4, 4), (1, 1, 1, 1), (1, 0, 3, 3), (0, 2, 3, 3),
                                  (2, 3, 0, 4), (4, 4), (1, 1, 7, 3)]))
    kernel = draw(st.sampled_from([1, 2, 3, (2, 1), (3, 2), 0, -1, (2, 2, 2)]))
    stride = draw(st.sampled_from([None, 1, 2, (1, 3), 0, -1, []]))
    padding = draw(st.sampled_from([0, 0, 1, (1, 0), 2, -1]))
    dilation = draw(st.sampled_from([1, 1, 2, (2, 1), 0]))
    ceil_mode = draw(st.booleans())
    dtype = draw(st.sampled_from(["float32", "float64", "int64", "float16", "bfloat16"]))
    return shape, kernel, stride, padding, dilation, ceil_mode, dtype


SORTCONV_CASES = st.one_of(
    st.tuples(st.just("sort"), typed(), st.integers(-3, 3), st.booleans(), st.booleans()),
    st.tuples(st.just("topk"), typed(), st.integers(-2, 5), st.integers(-3, 3), st.booleans()),
    st.tuples(st.just("scan"), typed(), st.sampled_from(SCANS), st.integers(-3, 3),
              st.sampled_from([None, None, "int64", "float64", "int32", "float16"])),
    st.tuples(st.just("conv2d"), conv_case(), st.data()),
    st.tuples(st.just("max_pool2d"), pool_case(), st.data()),
)


def _empty_scan_dim_refusal(exc, torch_result) -> bool:
    """Where aakaar refuses a scan torch computes, on purpose: cummax / cummin of an empty tensor
    along a dim it does not have. PyTorch skips the dim check for an empty input in these two
    (and only these: cumsum, cumprod, sort, topk of the same tensor raise IndexError); aakaar
    checks the dim always, as the rest of its API does."""
    return isinstance(exc, IndexError) and "dimension out of range" in str(exc).lower()


def _conv_refusal(in_shape):
    def refusal(exc, torch_result) -> bool:
        """Where aakaar refuses a conv2d torch computes, on purpose: an input with nothing to
        convolve (zero batch or zero channels). PyTorch returns at once and skips its checks of
        the other arguments (dilation 0, a kernel larger than the padded input); aakaar checks the
        arguments for every input, so that a call that works on an empty batch works on a full one.
        """
        return isinstance(exc, ValueError) and (len(in_shape) == 4 and in_shape[0] == 0 or in_shape[-3] == 0)
    return refusal


def _conv_check(in_shape, w_shape):
    def check(ra, rt):
        """As check_tensors, but for an input with zero channels: PyTorch's result then has zero
        channels too (``(1, 0, 5, 3)`` with a weight ``(4, 0, 2, 1)`` gives ``(1, 0, 7, 7)``); aakaar's
        has weight.shape[0] channels, each the bias (or zero): the sum over no input channels."""
        if in_shape[-3] == 0 and rt.numel() == 0:
            want = list(rt.shape)
            want[-3] = w_shape[0]
            if list(ra.shape) != want:
                raise Discrepancy(f"conv2d of zero channels: aakaar {tuple(ra.shape)}, expected {tuple(want)}")
            return
        check_tensors(ra, rt, 1e-4, 1e-4)
    return check


def _pool_refusal(exc, torch_result) -> bool:
    """Where aakaar refuses a max_pool2d torch computes, on purpose: integer tensors (aakaar's pooling
    kernels are for floating types, as its convolutions; the TypeError names the dtype)."""
    return isinstance(exc, TypeError) and "max_pool2d" in str(exc)


def _bool_topk_we_accept(exc) -> bool:
    """Where PyTorch refuses and aakaar computes, on purpose: topk of a bool tensor. PyTorch's CPU
    kernel has no bool case ("topk does not support bool dtypes on CPU") while its CUDA one has, and
    its sort takes bool on both; aakaar's topk is its sort's first k on every device."""
    return "does not support bool" in str(exc)


def run_sortconv_case(case):
    kind = case[0]
    if kind == "sort":
        (x, d), dim, descending, stable = case[1:]
        a, t = build(ak, x, d), build(torch, x, d)
        # A stable sort orders equal values by position: the indices are defined and must agree.
        strict("sort", lambda: tuple(a.sort(dim=dim, descending=descending, stable=True)),
               lambda: tuple(t.sort(dim=dim, descending=descending, stable=True)),
               lambda ra, rt: _sorted_check(ra, rt, a, dim, exact_indices=True))
        if stable:
            strict("argsort", lambda: a.argsort(dim=dim, descending=descending, stable=True),
                   lambda: t.argsort(dim=dim, descending=descending, stable=True), check_tensors)
    elif kind == "topk":
        (x, d), k, dim, largest = case[1:]
        a, t = build(ak, x, d), build(torch, x, d)
        # (The order of equal values in topk is not defined: their indices are checked by gathering.)
        strict("topk", lambda: tuple(a.topk(k, dim, largest=largest)), lambda: tuple(t.topk(k, dim, largest=largest)),
               lambda ra, rt: _sorted_check(ra, rt, a, dim, exact_indices=False), torch_refusal_ok=_bool_topk_we_accept)
    elif kind == "scan":
        (x, d), op, dim, dtype = case[1:]
        a, t = build(ak, x, d), build(torch, x, d)
        rtol = 1e-5 if op in ("logcumsumexp", "cumprod", "cumsum") else 1e-6

        def check(ra, rt):
            if op in ("cummax", "cummin"):
                ra, rt = tuple(ra), tuple(rt)
            check_tensors(ra, rt, rtol, 1e-5)

        strict(op, lambda: _scan(a, op, dim, dtype, ak), lambda: _scan(t, op, dim, dtype, torch), check,
               refusal_ok=_empty_scan_dim_refusal if op in ("cummax", "cummin") and x.size == 0 else None)
    elif kind == "conv2d":
        (in_shape, w_shape, bias, stride, padding, dilation, groups, dtype), data = case[1:]
        x = data.draw(typed([dtype], shape=in_shape, tame=True))[0]
        wt = data.draw(typed([dtype], shape=w_shape, tame=True))[0]
        b = None if bias is None else data.draw(typed([dtype], shape=(bias,), tame=True))[0]

        def run(lib, fn):
            return fn(lib.tensor(x), lib.tensor(wt), None if b is None else lib.tensor(b), stride, padding, dilation,
                      groups)

        strict("conv2d", lambda: run(ak, ak.nn.functional.conv2d), lambda: run(torch, torch.nn.functional.conv2d),
               _conv_check(in_shape, w_shape), refusal_ok=_conv_refusal(in_shape))
    elif kind == "max_pool2d":
        (shape, kernel, stride, padding, dilation, ceil_mode, dtype), data = case[1:]
        x = data.draw(typed([dtype], shape=shape))[0]
        a, t = build(ak, x, dtype), build(torch, x, dtype)

        def run(lib, v):
            return tuple(lib.nn.functional.max_pool2d(v, kernel, stride, padding, dilation, ceil_mode,
                                                      return_indices=True))

        # Indices agree too: the first of equal maxima, a NaN wins (PyTorch's rule, which aakaar follows).
        strict("max_pool2d", lambda: run(ak, a), lambda: run(torch, t), check_tensors, refusal_ok=_pool_refusal)
