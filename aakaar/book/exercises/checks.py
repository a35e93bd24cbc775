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


def _short(v: Any) -> str:
    if isinstance(v, np.ndarray):
        return f"array(shape={v.shape}, dtype={v.dtype})"
    if callable(v) and hasattr(v, "__name__"):
        return v.__name__
    r = repr(v)
    return r if len(r) <= 60 else r[:57] + "..."


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
                return f"entry {i}: {hint} (whole answer: expected {tuple(want)!r}, got {tuple(got)!r})"
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
        if not np.allclose(arr, want, rtol=rtol, atol=atol):
            worst = np.unravel_index(np.argmax(np.abs(arr - want)), want.shape)
            return f"values differ: at index {tuple(int(i) for i in worst)} expected {want[worst]:.6g}, got {arr[worst]:.6g}"
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
    for args, want in cases:
        call = f"{getattr(fn, '__name__', 'your function')}({', '.join(_short(a) for a in args)})"
        try:
            got = fn(*args)
        except NotImplementedError:
            raise
        except Exception as e:  # the learner's own error: name the call, not a deep traceback
            if isinstance(want, Raises) and isinstance(e, want.exc_type):
                continue
            raise AssertionError(f"Exercise {exercise}: {call} raised {type(e).__name__}: {e}") from None
        if isinstance(want, Raises):
            raise AssertionError(f"Exercise {exercise}: {call} should raise {want.exc_type.__name__} "
                                 f"(as {against} does), but it returned {_short(got)}")
        hint = _compare(got, want, rtol, atol)
        if hint:
            raise AssertionError(f"Exercise {exercise}: {call}: {hint}")
    print(f"Exercise {exercise} passed: {len(cases)} cases agree with {against}.")
