"""Helpers for the check cells of the exercise notebooks.

A check cell computes the expected answers with the compiled library (or numpy) and hands them to
:func:`check`, which calls the learner's function on every case and compares *before* anything
else touches the result, so a wrong type or shape gets a hint naming what was expected instead of
a traceback from deep inside the library. On success it prints one deterministic line, which nbval
compares with the line recorded in the notebook.
"""
from __future__ import annotations

import numbers
from typing import Any, Callable, Mapping, Sequence

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
          rtol: float = 1e-5, atol: float = 1e-6, hints: Mapping[str, str] | None = None) -> None:
    """Call ``fn(*args)`` for each ``(args, expected)`` and compare; ``against`` names the reference.

    Raises NotImplementedError untouched (the exercise is not started), AssertionError with a hint
    when an answer is wrong. Prints ``Exercise N.M passed: ...`` when all cases match.

    ``hints`` maps a case's label -- its first argument, a string such as "transposed" -- to the
    likely mistake behind a failure there (given that the smaller cases pass); the hint of the
    failure shown is added to its message, on the same line.
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
            failures.append((_size(args), f"{call} raised {type(e).__name__}: {e}", args[0] if args else None))
            continue
        if isinstance(want, Raises):
            failures.append((_size(args), f"{call} should raise {want.exc_type.__name__} "
                                          f"(as {against} does), but it returned {_short(got)}", args[0] if args else None))
            continue
        hint = _compare(got, want, rtol, atol)
        if hint:
            failures.append((_size(args), f"{call}: {hint}", args[0] if args else None))
    if failures:
        _, message, label = min(failures, key=lambda f: f[0])
        more = f" ({len(failures)} of {len(cases)} cases fail; this is the smallest)" if len(failures) > 1 else ""
        hint = f" Hint ({label}): {hints[label]}" if hints and isinstance(label, str) and label in hints else ""
        raise AssertionError(f"Exercise {exercise}: {' '.join(message.split(chr(10)))}{more}{hint}")
    print(f"Exercise {exercise} passed: {len(cases)} cases agree with {against}.")


def _duration(seconds: float) -> str:
    return f"{seconds * 1e3:.3g} ms" if seconds >= 1e-3 else f"{seconds * 1e6:.3g} us"


def speed_check(exercise: str, yours: Callable, args: tuple, library: Callable[[], object], against: str,
                target: float | None = None, slow_hint: str = "", threads: int | None = None,
                rounds: int = 7, target_s: float = 0.02) -> float | None:
    """Time the learner's ``yours(*args)`` against the library's own ``library()``, interleaved (one
    call of each per round, :func:`aakaar.book.bench.timing.interleaved`), and print the ratio of the
    medians: how fast yours runs as a fraction of the library's speed. Reported, never asserted:
    timings depend on the machine and on what else it runs. ``threads`` sets the library's thread
    count for both (and restores it). Returns the ratio, or None when the exercise is not started.

    ``yours`` may be a function bound by ``%%cpp`` (which runs its first calls in a forked copy of the
    process to catch a crash): one call goes through that guard, at the measured size, and the timed
    calls go straight to the compiled function, so no fork is timed.
    """
    import aakaar as ak
    from aakaar.book.bench.timing import interleaved

    try:
        yours(*args)
    except NotImplementedError as e:
        print(f"Exercise {exercise}: speed not measured yet ({e})")
        return None
    raw = getattr(yours, "__wrapped__", yours)
    before = ak.get_num_threads()
    if threads is not None:
        ak.set_num_threads(threads)
    try:
        med = interleaved({"yours": lambda: raw(*args), "library": library}, rounds=rounds, target_s=target_s)
    finally:
        ak.set_num_threads(before)
    ratio = med["library"] / med["yours"]
    where = f"median of {rounds} interleaved rounds" + (f", {threads} thread{'s' if threads != 1 else ''}"
                                                         if threads is not None else "")
    line = (f"Exercise {exercise} speed: yours {_duration(med['yours'])}, {against} {_duration(med['library'])} "
            f"per call: yours runs at {ratio:.2f}x its speed ({where})")
    if target is not None:
        line += f"; target {target:g}x: " + ("met" if ratio >= target else f"not met. {slow_hint}".rstrip())
    print(line)
    return ratio
