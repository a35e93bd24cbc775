"""Helpers for the check cells of the exercise notebooks.

A check cell computes the expected answers with the compiled library (or numpy) and hands them to
:func:`check`, which calls the learner's function on every case and compares *before* anything
else touches the result, so a wrong type or shape gets a hint naming what was expected instead of
a traceback from deep inside the library. On success it prints one deterministic line, which nbval
compares with the line recorded in the notebook.
"""
from __future__ import annotations

import numbers
from typing import Any, Callable, Sequence

import numpy as np


class Raises:
    """Expected outcome "the call raises ``exc_type``" (e.g. shapes that cannot broadcast)."""

    def __init__(self, exc_type: type[BaseException]):
        self.exc_type = exc_type

    def __repr__(self) -> str:
        return f"raises {self.exc_type.__name__}"


SMALL = 24  # arrays up to this many elements are shown in full in a hint


def _one_line(a: np.ndarray) -> str:
    """A small array on one line (the summary of ``check N`` keeps only a hint's first line)."""
    text = np.array2string(a, separator=", ", max_line_width=10**6, threshold=SMALL + 1, precision=6)
    return " ".join(text.split())


def _short(v: Any) -> str:
    """An argument or answer on one line: small arrays and tuples in full, big arrays by shape."""
    if isinstance(v, np.ndarray):
        if v.size <= SMALL:
            return f"array({_one_line(v)})" if v.dtype.kind == "f" else f"array({_one_line(v)}, dtype={v.dtype})"
        return f"array(shape={v.shape}, dtype={v.dtype})"
    if callable(v) and hasattr(v, "__name__"):
        return v.__name__
    if isinstance(v, tuple) and any(isinstance(x, np.ndarray) for x in v):
        return "(" + ", ".join(_short(x) for x in v) + ("," if len(v) == 1 else "") + ")"
    r = repr(v)
    return r if len(r) <= 120 else r[:117] + "..."


def _size(v: Any) -> int:
    """How big a case is, to show the smallest failing one."""
    if isinstance(v, np.ndarray):
        return int(v.size)
    if isinstance(v, (tuple, list)):
        return sum(_size(x) for x in v) + 1
    return 1


def _describe(v: Any) -> str:
    if isinstance(v, np.ndarray):
        return f"an array of shape {v.shape}"
    if isinstance(v, (tuple, list)):
        return f"{type(v).__name__} {v!r}"
    return f"{type(v).__name__} {v!r}"


def _compare(got: Any, want: Any, rtol: float, atol: float) -> str | None:
    """None when ``got`` matches ``want``; otherwise a hint saying what was expected."""
    if want is None:
        return None if got is None else f"expected None, got {_describe(got)}"
    if isinstance(want, bool):
        if not isinstance(got, (bool, np.bool_)):
            return f"expected a bool ({want}), got {_describe(got)}"
        return None if bool(got) == want else f"expected {want}, got {got}"
    if isinstance(want, numbers.Integral):
        if isinstance(got, bool) or not isinstance(got, numbers.Integral):
            return f"expected an int ({want}), got {_describe(got)}"
        return None if int(got) == int(want) else f"expected {want}, got {int(got)}"
    if isinstance(want, (tuple, list)):
        if not isinstance(got, (tuple, list)):
            return f"expected a tuple like {tuple(want)!r}, got {_describe(got)}"
        if len(got) != len(want):
            return f"expected {len(want)} entries {tuple(want)!r}, got {len(got)}: {tuple(got)!r}"
        for i, (g, w) in enumerate(zip(got, want)):
            hint = _compare(g, w, rtol, atol)
            if hint:
                whole = "" if any(isinstance(x, np.ndarray) for x in want) else \
                    f" (whole answer: expected {tuple(want)!r}, got {tuple(got)!r})"
                return f"entry {i}: {hint}{whole}"
        return None
    if isinstance(want, np.ndarray):
        try:
            arr = np.asarray(got, dtype=np.float64)
        except (TypeError, ValueError):
            return f"expected {_describe(want)}, got {_describe(got)} that numpy cannot read as numbers"
        if arr.shape != want.shape:
            return f"expected an array of shape {want.shape}, got shape {arr.shape}"
        if not np.all(np.isfinite(arr)) and np.all(np.isfinite(want)):
            return "got inf or nan where the answer is finite: is the computation numerically stable?"
        close = np.isclose(arr, want, rtol=rtol, atol=atol) | (np.isnan(arr) & np.isnan(want))
        if not close.all():
            first = tuple(int(i) for i in np.argwhere(~close)[0])
            where = f"at index {first}" if first else "the value"
            hint = (f"values differ in {int((~close).sum())} of {want.size} places; first {where}: "
                    f"expected {want[first]:.6g}, got {arr[first]:.6g}")
            if want.size <= SMALL:
                hint += f" (whole answer: expected {_one_line(want)}, got {_one_line(arr)})"
            return hint
        return None
    if isinstance(want, numbers.Real):
        if not isinstance(got, numbers.Real):
            return f"expected a number ({want:.6g}), got {_describe(got)}"
        return None if np.isclose(float(got), float(want), rtol=rtol, atol=atol) else f"expected {want:.6g}, got {float(got):.6g}"
    return None if got == want else f"expected {want!r}, got {got!r}"


def check(exercise: str, fn: Callable, cases: Sequence[tuple[tuple, Any]], against: str,
          rtol: float = 1e-5, atol: float = 1e-6) -> None:
    """Call ``fn(*args)`` for each ``(args, expected)`` and compare; ``against`` names the reference.

    Raises NotImplementedError untouched (the exercise is not started), AssertionError with a hint
    when an answer is wrong. Prints ``Exercise N.M passed: ...`` when all cases match.
    """
    failures = []  # (size of the case, message): the smallest failing case is the one to show
    for args, want in cases:
        call = f"{getattr(fn, '__name__', 'your function')}({', '.join(_short(a) for a in args)})"
        try:
            got = fn(*args)
        except NotImplementedError:
            raise
        except Exception as e:  # the learner's own error: name the call, not a deep traceback
            if isinstance(want, Raises) and isinstance(e, want.exc_type):
                continue
            failures.append((_size(args), f"{call} raised {type(e).__name__}: {e}"))
            continue
        if isinstance(want, Raises):
            failures.append((_size(args), f"{call} should raise {want.exc_type.__name__} "
                                          f"(as {against} does), but it returned {_short(got)}"))
            continue
        hint = _compare(got, want, rtol, atol)
        if hint:
            failures.append((_size(args), f"{call}: {hint}"))
    if failures:
        _, message = min(failures, key=lambda f: f[0])
        more = f" ({len(failures)} of {len(cases)} cases fail; this is the smallest)" if len(failures) > 1 else ""
        raise AssertionError(f"Exercise {exercise}: {' '.join(message.split(chr(10)))}{more}")
    print(f"Exercise {exercise} passed: {len(cases)} cases agree with {against}.")
