"""What every group of the differential fuzz against PyTorch shares: value
strategies and the two comparisons (see fuzz_torch_worker.py).

``strict`` is the rule: both libraries raise or both return; when torch
raises, aakaar raises an exception a user catching torch's would catch (an
IndexError where torch's is an IndexError, ...); when both return, the values
agree. Each group names its documented exceptions to the rule (aakaar
refusing an input torch accepts, or the reverse) in a function whose
docstring says why. ``compare``, for the first campaign's group (element-wise
ops, views, reductions), lets aakaar refuse any input torch accepts (those
refusals are listed and tested in test_torch_errors.py).
"""

from __future__ import annotations

import collections

import numpy as np
import torch
from hypothesis import strategies as st

import aakaar as ak

DTYPES = ["bool", "uint8", "int64", "float32", "float64"]
SPECIAL_FLOATS = [0.0, -0.0, 1.0, -1.0, 0.5, 2.5, float("nan"), float("inf"), float("-inf"), 1e38, -1e-40, 3e9, 255.0, 256.0]
SPECIAL_INTS = [0, 1, -1, 2, 7, 255, 256, -256, 2**31, 2**62, 2**63 - 1, -(2**63)]
BIG = 2**63 - 1
# The exception types aakaar documents (its ArgumentError and DTypeError derive from ValueError /
# TypeError and from RuntimeError, so they are caught as PyTorch's are).
ALLOWED = (IndexError, ValueError, TypeError, RuntimeError, ZeroDivisionError, OverflowError)
# The classes a user catches; torch's exception maps to the first it is an instance of.
CATCHABLE = (IndexError, ValueError, TypeError, RuntimeError)


# How the strict comparisons ended, by outcome: the worker prints it, so a run shows what it covered.
OUTCOMES: collections.Counter = collections.Counter()


class Skip(Exception):
    """The inputs of a case could not be built in one of the libraries."""


class Discrepancy(AssertionError):
    """aakaar and PyTorch disagree."""


def values_for(draw, dtype: str, n: int, tame: bool = False) -> list:
    """n values of `dtype`: with special values (NaN, +-inf, int64 extremes) unless `tame`."""
    if dtype == "bool":
        return draw(st.lists(st.booleans(), min_size=n, max_size=n))
    if dtype == "uint8":
        return draw(st.lists(st.integers(0, 255), min_size=n, max_size=n))
    if dtype == "int64":
        ints = st.integers(-100, 100) if tame else st.one_of(st.sampled_from(SPECIAL_INTS), st.integers(-100, 100))
        return draw(st.lists(ints, min_size=n, max_size=n))
    floats = st.floats(-100, 100, width=32)
    if tame:
        floats = st.one_of(floats, st.sampled_from([0.0, -0.0, 1.0, float("nan"), float("inf"), float("-inf")]))
    else:
        floats = st.one_of(st.sampled_from(SPECIAL_FLOATS), floats)
    return draw(st.lists(floats, min_size=n, max_size=n))


@st.composite
def arrays(draw, max_dims=3, dtypes=DTYPES, shape=None, tame=False):
    dtype = draw(st.sampled_from(dtypes))
    if shape is None:
        shape = tuple(draw(st.lists(st.integers(0, 4), min_size=0, max_size=max_dims)))
    n = int(np.prod(shape)) if shape else 1
    return np.array(values_for(draw, dtype, n, tame), dtype=dtype).reshape(shape)


def to_np(r):
    if isinstance(r, (list, tuple)):
        return [to_np(v) for v in r]
    if isinstance(r, (ak.Tensor, torch.Tensor)):
        return r.detach().cpu().numpy() if isinstance(r, torch.Tensor) else r.detach().numpy()
    return r


def same(a, b, rtol, atol=None):
    if isinstance(a, list):
        if not (isinstance(b, list) and len(a) == len(b)):
            raise Discrepancy(f"{a!r} != {b!r}")
        for x, y in zip(a, b):
            same(x, y, rtol, atol)
        return
    if a is None or b is None:
        if not (a is None and b is None):
            raise Discrepancy(f"aakaar {a!r}, torch {b!r}")
        return
    a, b = np.asarray(a), np.asarray(b)
    if a.shape != b.shape or a.dtype != b.dtype:
        raise Discrepancy(f"aakaar {a.dtype}{a.shape}, torch {b.dtype}{b.shape}")
    if a.dtype.kind == "f":
        np.testing.assert_allclose(a, b, rtol=rtol, atol=rtol * 1e-3 if atol is None else atol, equal_nan=True)
    else:
        np.testing.assert_array_equal(a, b)


def torch_refusal_we_accept(name: str, exc: Exception) -> bool:
    """Where PyTorch refuses and aakaar computes, on purpose (PyTorch arguably wrong):

    a clamp bound outside the tensor's dtype (``uint8.clamp(0, 300)``, ``float32.clamp(0, 1e300)``):
    PyTorch converts the bound to the dtype first and refuses the overflow; a bound is only compared
    with, never stored, so aakaar clamps by value (300 clamps nothing in uint8), as numpy's clip
    does. See test_value_conversion_and_validation.py::test_integer_clamp_bounds_beyond_the_dtype.
    """
    return name == "clamp" and "without overflow" in str(exc)


def compare(name, f_ak, f_torch, rtol=1e-6):
    """The first campaign's comparison (see the module docstring): aakaar may refuse what torch
    accepts; where torch refuses, aakaar must refuse too, catchable alike (or the refusal is one of
    torch_refusal_we_accept's)."""
    def torch_side():
        rt = f_torch()
        if name in ("any", "all") and isinstance(rt, torch.Tensor) and rt.dtype == torch.uint8:
            rt = rt.bool()  # PyTorch keeps uint8 for any/all of uint8 (a legacy quirk); aakaar gives bool
        return rt

    strict(name, f_ak, torch_side, lambda ra, rt: same(to_np(ra), to_np(rt), rtol),
           refusal_ok=lambda exc, rt: True, torch_refusal_ok=lambda exc: torch_refusal_we_accept(name, exc))


def _run(f):
    try:
        return f(), None
    except Exception as e:  # noqa: BLE001 -- every exception is judged by strict()
        return None, e


def strict(name, f_ak, f_torch, check, refusal_ok=None, torch_refusal_ok=None):
    """Both raise (with catchable-alike classes) or both return and check(ra, rt) passes.

    refusal_ok(exc, torch_result) names a documented refusal of aakaar's (an input torch accepts
    that aakaar refuses on purpose), torch_refusal_ok(torch_exc) a documented acceptance (an input
    torch refuses and aakaar computes on purpose); each must say why in its docstring.
    """
    ra, ea = _run(f_ak)
    rt, et = _run(f_torch)
    OUTCOMES["both raise" if ea is not None and et is not None else "aakaar raises" if ea is not None
             else "torch raises" if et is not None else "both return"] += 1
    if ea is not None and not isinstance(ea, ALLOWED):
        raise Discrepancy(f"{name}: aakaar raised {type(ea).__name__} (not a documented type): {ea}") from ea
    if et is not None:
        if ea is None and torch_refusal_ok is not None and torch_refusal_ok(et):
            return None
        if ea is None:
            raise Discrepancy(f"{name}: torch raises {type(et).__name__}({et}) but aakaar returned {ra!r}")
        want = next((c for c in CATCHABLE if isinstance(et, c)), None)
        # (A documented refusal of aakaar's may come before torch's own error for the input.)
        if want is not None and not isinstance(ea, want) and not (refusal_ok is not None and refusal_ok(ea, None)):
            raise Discrepancy(f"{name}: torch raises {type(et).__name__}({et}); aakaar raises "
                              f"{type(ea).__name__}({ea}), which `except {want.__name__}` does not catch")
        return None
    if ea is not None:
        if refusal_ok is not None and refusal_ok(ea, rt):
            return None
        raise Discrepancy(f"{name}: aakaar raises {type(ea).__name__}({ea}) but torch returns") from ea
    check(ra, rt)
    return ra, rt
