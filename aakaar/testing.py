"""``torch.testing``: ``assert_close`` (are two tensors, scalars or nested containers of them close?),
``make_tensor`` (a random tensor of a given shape and dtype for tests) and the deprecated
``assert_allclose``.

The comparison follows torch's ``torch/testing/_comparison.py``: the inputs are walked together
(sequences by position, mappings by key) into pairs of leaves; each pair is compared by the first
kind that takes it (None, bool, Python number, tensor-like), and the first failing pair raises with
torch's exception class and message, naming the item where it failed. aakaar tensors are all strided
(no sparse or quantized layouts), so ``check_layout`` has nothing to tell apart and is accepted for
compatibility.
"""

from __future__ import annotations

import cmath
import collections.abc
import contextlib
import math
import warnings
from typing import Any, Callable, NoReturn

import numpy as np

from . import _C
from ._C import Tensor

__all__ = ["assert_close", "make_tensor", "assert_allclose"]


def _dt(name: str) -> Any:
    return getattr(_C.dtype, name)


# torch's default (rtol, atol) per dtype; every other dtype (integers, bool) compares exactly.
_DTYPE_PRECISIONS = {
    _dt("float16"): (0.001, 1e-5),
    _dt("bfloat16"): (0.016, 1e-5),
    _dt("float32"): (1.3e-6, 1e-5),
    _dt("float64"): (1e-7, 1e-7),
}


class _ErrorMeta(Exception):
    """A failed comparison: the exception class to raise, its message and the item's path (torch's ErrorMeta)."""

    def __init__(self, type: type[Exception], msg: str, *, id: tuple[Any, ...] = ()) -> None:
        super().__init__(msg)
        self.type, self.msg, self.id = type, msg, id

    def to_error(self, msg: str | Callable[[str], str] | None = None) -> Exception:
        if not isinstance(msg, str):
            generated = self.msg
            if self.id:
                generated += f"\n\nThe failure occurred for item {''.join(str([item]) for item in self.id)}"
            msg = msg(generated) if callable(msg) else generated
        return self.type(msg)


class _Unsupported(Exception):
    """This kind of pair does not take these inputs: try the next one."""


def _default_tolerances(*dtypes: Any, precisions: dict | None = None) -> tuple[float, float]:
    precisions = precisions or _DTYPE_PRECISIONS
    rtols, atols = zip(*[precisions.get(d, (0.0, 0.0)) for d in dtypes])
    return max(rtols), max(atols)


def _get_tolerances(*dtypes: Any, rtol: float | None, atol: float | None, id: tuple) -> tuple[float, float]:
    if (rtol is None) ^ (atol is None):
        # Both or neither: atol=0 alone would still pass on the default rtol, surprisingly.
        raise _ErrorMeta(ValueError, "Both 'rtol' and 'atol' must be either specified or omitted, "
                         f"but got no {'rtol' if rtol is None else 'atol'}.", id=id)
    if rtol is not None:
        return rtol, atol  # type: ignore[return-value]
    return _default_tolerances(*dtypes)


def _mismatch_msg(*, identifier: str, extra: str | None, abs_diff: float, abs_idx: Any, atol: float,
                  rel_diff: float, rel_idx: Any, rtol: float) -> str:
    equality = rtol == 0 and atol == 0

    def line(kind: str, diff: float, idx: Any, tol: float) -> str:
        text = f"{kind.title()} difference: {diff}" if idx is None else f"Greatest {kind} difference: {diff} at index {idx}"
        return text + ("" if equality else f" (up to {tol} allowed)") + "\n"

    msg = f"{identifier} are not {'equal' if equality else 'close'}!\n\n"
    if extra:
        msg += f"{extra.strip()}\n"
    msg += line("absolute", abs_diff, abs_idx, atol) + line("relative", rel_diff, rel_idx, rtol)
    return msg.strip()


def _scalar_mismatch_msg(actual: Any, expected: Any, *, rtol: float, atol: float) -> str:
    abs_diff = abs(actual - expected)
    rel_diff = float("inf") if expected == 0 else abs_diff / abs(expected)
    return _mismatch_msg(identifier="Scalars", extra=f"Expected {expected} but got {actual}.", abs_diff=abs_diff,
                         abs_idx=None, atol=atol, rel_diff=rel_diff, rel_idx=None, rtol=rtol)


def _tensor_mismatch_msg(actual: Tensor, expected: Tensor, matches: Tensor, *, rtol: float, atol: float) -> str:
    shape = tuple(matches.shape)

    def unravel(flat: int) -> tuple[int, ...]:
        return tuple(int(i) for i in np.unravel_index(flat, shape)) if shape else ()

    n = matches.numel()
    mismatches = n - int(matches.sum())
    extra = f"Mismatched elements: {mismatches} / {n} ({mismatches / n:.1%})"
    a, e, m = actual.flatten(), expected.flatten(), matches.flatten()
    if not a.is_floating_point():
        # torch widens integers (and bools) to int64 so that the difference cannot wrap.
        a, e = a.to(_dt("int64")), e.to(_dt("int64"))
    abs_diff = (a - e).abs()
    abs_diff[m] = 0  # only the mismatches compete for the greatest difference
    max_abs, abs_at = abs_diff.max(0)
    rel_diff = abs_diff / e.abs()
    rel_diff[m] = 0
    max_rel, rel_at = rel_diff.max(0)
    return _mismatch_msg(identifier="Tensor-likes", extra=extra, abs_diff=max_abs.item(), abs_idx=unravel(int(abs_at)),
                         atol=atol, rel_diff=max_rel.item(), rel_idx=unravel(int(rel_at)), rtol=rtol)


def _compare_none(actual: Any, expected: Any, id: tuple, **_: Any) -> None:
    if not (actual is None or expected is None):
        raise _Unsupported
    if not (actual is None and expected is None):
        raise _ErrorMeta(AssertionError, f"None mismatch: {actual} is not {expected}", id=id)


def _compare_bool(actual: Any, expected: Any, id: tuple, **_: Any) -> None:
    if not all(isinstance(x, (bool, np.bool_)) for x in (actual, expected)):
        raise _Unsupported
    actual, expected = bool(actual), bool(expected)
    if actual is not expected:
        raise _ErrorMeta(AssertionError, f"Booleans mismatch: {actual} is not {expected}", id=id)


# The dtype whose tolerances a Python number gets (torch's NumberPair table).
_NUMBER_DTYPES = {int: "int64", float: "float64", complex: "complex128"}


def _compare_number(actual: Any, expected: Any, id: tuple, *, rtol: float | None, atol: float | None,
                    equal_nan: bool, check_dtype: bool, **_: Any) -> None:
    if not all(isinstance(x, (int, float, complex, np.number)) for x in (actual, expected)):
        raise _Unsupported
    actual, expected = (x.item() if isinstance(x, np.number) else x for x in (actual, expected))
    # complex128 has no aakaar dtype: a stand-in key that falls back to torch's float64 tolerances.
    dtypes = [_dt(_NUMBER_DTYPES[type(x)]) if type(x) is not complex else _dt("float64") for x in (actual, expected)]
    rtol, atol = _get_tolerances(*dtypes, rtol=rtol, atol=atol, id=id)
    # Checked after the tolerances, as torch (whose pair is built, tolerances and all, before comparing).
    if check_dtype and type(actual) is not type(expected):
        raise _ErrorMeta(AssertionError, f"The (d)types do not match: {type(actual)} != {type(expected)}.", id=id)
    if actual == expected:
        return
    if equal_nan and cmath.isnan(actual) and cmath.isnan(expected):
        return
    abs_diff = abs(actual - expected)
    if cmath.isfinite(abs_diff) and abs_diff <= atol + rtol * abs(expected):
        return
    raise _ErrorMeta(AssertionError, _scalar_mismatch_msg(actual, expected, rtol=rtol, atol=atol), id=id)


def _to_tensor(x: Any) -> Tensor:
    if isinstance(x, Tensor):
        return x
    from .creation import as_tensor
    try:
        return as_tensor(x)
    except Exception:
        raise _Unsupported from None


def _compare_tensors(actual: Any, expected: Any, id: tuple, *, allow_subclasses: bool, rtol: float | None,
                     atol: float | None, equal_nan: bool, check_device: bool, check_dtype: bool,
                     check_layout: bool, check_stride: bool, **_: Any) -> None:
    if not (isinstance(actual, type(expected)) or isinstance(expected, type(actual))):
        raise _Unsupported  # torch compares only directly related types (a tensor with an ndarray is a TypeError)
    if not allow_subclasses and type(actual) is not type(expected):
        raise _Unsupported
    actual, expected = _to_tensor(actual), _to_tensor(expected)
    rtol, atol = _get_tolerances(actual.dtype, expected.dtype, rtol=rtol, atol=atol, id=id)

    def mismatch(attribute: str, a: Any, e: Any) -> NoReturn:
        raise _ErrorMeta(AssertionError, f"The values for attribute '{attribute}' do not match: {a} != {e}.", id=id)

    if actual.shape != expected.shape:
        mismatch("shape", actual.shape, expected.shape)
    if check_stride and actual.stride() != expected.stride():
        mismatch("stride()", actual.stride(), expected.stride())
    if check_device and actual.device != expected.device:
        mismatch("device", actual.device, expected.device)
    if check_dtype and actual.dtype != expected.dtype:
        mismatch("dtype", actual.dtype, expected.dtype)
    if actual.device != expected.device:
        actual, expected = actual.cpu(), expected.cpu()
    if actual.dtype != expected.dtype:
        common = _C.promote_types(actual.dtype, expected.dtype)
        actual, expected = actual.to(common), expected.to(common)
    from .functional_ops import isclose
    matches = isclose(actual, expected, rtol=rtol, atol=atol, equal_nan=equal_nan)
    if bool(matches.all()):
        return
    if actual.dim() == 0:
        msg = _scalar_mismatch_msg(actual.item(), expected.item(), rtol=rtol, atol=atol)
    else:
        msg = _tensor_mismatch_msg(actual, expected, matches, rtol=rtol, atol=atol)
    raise _ErrorMeta(AssertionError, msg, id=id)


_COMPARERS = (_compare_none, _compare_bool, _compare_number, _compare_tensors)


def _first_failure(actual: Any, expected: Any, id: tuple, options: dict) -> _ErrorMeta | None:
    """Walks both inputs together; returns the first failing leaf's error (None when all are close).

    As torch, the whole structure is checked (lengths, keys, comparable leaf types) before any values."""
    pairs: list[tuple[Any, Any, tuple]] = []
    _collect(actual, expected, id, pairs, options)
    for a, e, leaf_id in pairs:
        for compare in _COMPARERS:
            try:
                compare(a, e, leaf_id, **options)
            except _Unsupported:
                continue
            except _ErrorMeta as error:
                return error
            break
    return None


def _collect(actual: Any, expected: Any, id: tuple, pairs: list, options: dict) -> None:
    seq = collections.abc.Sequence
    if isinstance(actual, seq) and isinstance(expected, seq) and not isinstance(actual, str) \
            and not isinstance(expected, str):
        if len(actual) != len(expected):
            raise _ErrorMeta(AssertionError, f"The length of the sequences mismatch: {len(actual)} != {len(expected)}",
                             id=id)
        for i in range(len(actual)):
            _collect(actual[i], expected[i], (*id, i), pairs, options)
        return
    mapping = collections.abc.Mapping
    if isinstance(actual, mapping) and isinstance(expected, mapping):
        a_keys, e_keys = set(actual.keys()), set(expected.keys())
        if a_keys != e_keys:
            raise _ErrorMeta(AssertionError, "The keys of the mappings do not match:\n"
                             f"Missing keys in the actual mapping: {sorted(e_keys - a_keys)}\n"
                             f"Additional keys in the actual mapping: {sorted(a_keys - e_keys)}", id=id)
        keys: Any = a_keys
        with contextlib.suppress(Exception):
            keys = sorted(keys)  # deterministic: the first failure is the same on every run
        for k in keys:
            _collect(actual[k], expected[k], (*id, k), pairs, options)
        return
    # A leaf: find out now whether some kind of pair takes it (torch fails on untakeable leaves
    # before comparing any values), by asking each for its tolerances without comparing.
    if not _takeable(actual, expected):
        raise _ErrorMeta(TypeError, f"No comparison pair was able to handle inputs of type {type(actual)} and "
                         f"{type(expected)}.", id=id)
    if (options["rtol"] is None) ^ (options["atol"] is None) and not (actual is None or expected is None) \
            and not all(isinstance(x, (bool, np.bool_)) for x in (actual, expected)):
        _get_tolerances(rtol=options["rtol"], atol=options["atol"], id=id)
    pairs.append((actual, expected, id))


def _takeable(actual: Any, expected: Any) -> bool:
    if actual is None or expected is None:
        return True
    kinds = ((bool, np.bool_), (int, float, complex, np.number))
    if any(all(isinstance(x, k) for x in (actual, expected)) for k in kinds):
        return True
    if not (isinstance(actual, type(expected)) or isinstance(expected, type(actual))):
        return False
    try:
        _to_tensor(actual), _to_tensor(expected)
    except _Unsupported:
        return False
    return True


def assert_close(actual: Any, expected: Any, *, allow_subclasses: bool = True, rtol: float | None = None,
                 atol: float | None = None, equal_nan: bool = False, check_device: bool = True,
                 check_dtype: bool = True, check_layout: bool = True, check_stride: bool = False,
                 msg: str | Callable[[str], str] | None = None) -> None:
    """Raises AssertionError unless ``|actual - expected| <= atol + rtol * |expected|`` elementwise.

    Without ``rtol``/``atol`` the tolerances are torch's defaults for the dtypes (the looser of the
    two): float16 1e-3/1e-5, bfloat16 1.6e-2/1e-5, float32 1.3e-6/1e-5, float64 1e-7/1e-7, the rest
    exact. Shapes must match, and devices and dtypes unless ``check_device``/``check_dtype`` is
    False (then both are moved to the CPU / promoted). Inputs may be tensors, numpy arrays, Python
    scalars (checked regardless of tensor-ness), None, and sequences or mappings of these, compared
    item by item. ``msg`` replaces the message, or (a callable) rewrites it.
    """
    __tracebackhide__ = True
    options = dict(allow_subclasses=allow_subclasses, rtol=rtol, atol=atol, equal_nan=equal_nan,
                   check_device=check_device, check_dtype=check_dtype, check_layout=check_layout,
                   check_stride=check_stride)
    try:
        failure = _first_failure(actual, expected, (), options)
    except _ErrorMeta as error:
        raise error.to_error() from None
    if failure is not None:
        raise failure.to_error(msg) from None


# assert_allclose's own (looser) defaults.
_ALLCLOSE_PRECISIONS = {_dt("float16"): (1e-3, 1e-3), _dt("float32"): (1e-4, 1e-5), _dt("float64"): (1e-5, 1e-8)}


def assert_allclose(actual: Any, expected: Any, rtol: float | None = None, atol: float | None = None,
                    equal_nan: bool = True, msg: str = "") -> None:
    """Deprecated (FutureWarning, as torch): ``assert_close`` with ``check_dtype=False``, NaNs equal, and looser
    default tolerances (float16 1e-3/1e-3, float32 1e-4/1e-5, float64 1e-5/1e-8)."""
    warnings.warn("`torch.testing.assert_allclose()` is deprecated since 1.12 and will be removed in a future "
                  "release. Please use `torch.testing.assert_close()` instead.", FutureWarning, stacklevel=2)
    from .creation import tensor
    if not isinstance(actual, Tensor):
        actual = tensor(actual)
    if not isinstance(expected, Tensor):
        expected = tensor(expected, dtype=actual.dtype)
    if rtol is None and atol is None:
        rtol, atol = _default_tolerances(actual.dtype, expected.dtype, precisions=_ALLCLOSE_PRECISIONS)
    assert_close(actual, expected, rtol=rtol, atol=atol, equal_nan=equal_nan, check_device=True, check_dtype=False,
                 check_stride=False, msg=msg or None)


_INTEGRAL = ("uint8", "int8", "int16", "int32", "int64")
_FLOATING = ("float16", "bfloat16", "float32", "float64")


def make_tensor(*shape: Any, dtype: Any, device: Any, low: float | None = None, high: float | None = None,
                requires_grad: bool = False, noncontiguous: bool = False, exclude_zero: bool = False,
                memory_format: Any = None) -> Tensor:
    """A tensor of ``shape`` with values drawn uniformly from ``[low, high)``.

    Defaults as torch: bool [0, 2), unsigned [0, 10), signed integers [-9, 10), floating [-9, 9); a
    bound outside the dtype's finite range is clamped to it (integer bounds are rounded up).
    ``noncontiguous`` gives every other element of a twice-as-wide last dim (for more than one
    element); ``exclude_zero`` replaces zeros with 1 (bool, integers) or finfo.tiny (floating).
    """
    from ._dtype_info import finfo, iinfo
    name = getattr(dtype, "name", None)
    is_bool, is_int, is_float = name == "bool", name in _INTEGRAL, name in _FLOATING
    if not (is_bool or is_int or is_float):
        raise TypeError(f"The requested dtype '{dtype}' is not supported by torch.testing.make_tensor().")

    def bounds(lowest: float, highest_exclusive: float, default_low: float, default_high: float) -> tuple:
        lo = low if low is not None else default_low
        hi = high if high is not None else default_high
        if any(isinstance(v, float) and math.isnan(v) for v in (lo, hi)):
            raise ValueError(f"`low` and `high` cannot be NaN, but got low={lo} and high={hi}")
        if lo == hi and is_float:
            warnings.warn("Passing `low==high` to `torch.testing.make_tensor` for floating or complex types is "
                          "deprecated since 2.1 and will be removed in 2.3. Use `torch.full(...)` instead.",
                          FutureWarning, stacklevel=3)
        elif lo >= hi:
            raise ValueError(f"`low` must be less than `high`, but got {lo} >= {hi}")
        elif hi < lowest or lo >= highest_exclusive:
            raise ValueError(f"The value interval specified by `low` and `high` is [{lo}, {hi}), "
                             f"but {dtype} only supports [{lowest}, {highest_exclusive})")
        lo, hi = min(max(lo, lowest), highest_exclusive), min(max(hi, lowest), highest_exclusive)
        return (math.ceil(lo), math.ceil(hi)) if not is_float else (lo, hi)

    if len(shape) == 1 and isinstance(shape[0], collections.abc.Sequence):
        shape = tuple(shape[0])
    shape = tuple(shape)
    if noncontiguous and memory_format is not None:
        raise ValueError("The parameters `noncontiguous` and `memory_format` are mutually exclusive, but got "
                         f"noncontiguous={noncontiguous} and memory_format={memory_format}")
    if requires_grad and not is_float:
        raise ValueError(f"`requires_grad=True` is not supported for boolean and integral dtypes, but got dtype={dtype}")
    noncontiguous = noncontiguous and math.prod(shape) > 1
    if noncontiguous:
        shape = (*shape[:-1], 2 * shape[-1])
    if is_bool:
        lo, hi = bounds(0, 2, 0, 2)
        result = _C.randint(lo, hi, list(shape), dtype=dtype, device=device)
    elif is_int:
        info = iinfo(dtype)
        lo, hi = bounds(info.min, info.max + (1 if name != "int64" else 0), -9, 10)
        result = _C.randint(lo, hi, list(shape), dtype=dtype, device=device)
    else:
        info = finfo(dtype)
        lo, hi = bounds(info.min, info.max, -9, 9)
        result = _C.empty(list(shape), dtype=dtype, device=device)
        if hi - lo >= info.max:  # the width itself would overflow: draw half of it and double
            result.uniform_(lo / 2, hi / 2).mul_(2)
        else:
            result.uniform_(lo, hi)
    if noncontiguous:
        result = result[..., 1::2]
    elif memory_format is not None:
        result = result.clone(memory_format=memory_format)
    if exclude_zero:
        result[result == 0] = 1 if not is_float else finfo(dtype).tiny
    if is_float:
        result.requires_grad_(requires_grad)
    return result
