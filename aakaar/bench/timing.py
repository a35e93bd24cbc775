"""Interleaved timing: every candidate runs once per round, rounds repeat, and
the median per candidate is reported. On a shared, noisy machine this makes
the *ratios* between candidates measured in one run meaningful even when the
absolute times drift."""

from __future__ import annotations

import statistics
import time
from typing import Callable, Mapping


def time_call(fn: Callable[[], object], inner: int) -> float:
    """Seconds per call of ``fn``, averaged over ``inner`` back-to-back calls."""
    start = time.perf_counter()
    for _ in range(inner):
        fn()
    return (time.perf_counter() - start) / inner


def calibrate(fn: Callable[[], object], target_s: float = 0.01) -> int:
    """How many back-to-back calls of ``fn`` take about ``target_s`` seconds."""
    fn()
    n = 1
    while True:
        t = time_call(fn, n) * n
        if t >= target_s or n >= 1 << 20:
            return max(1, int(n * target_s / max(t, 1e-9)))
        n *= 4


def interleaved(candidates: Mapping[str, Callable[[], object]], rounds: int = 15, target_s: float = 0.01,
                warmup: int = 0) -> dict[str, float]:
    """Median seconds per call for each candidate, measured round-robin.

    ``warmup`` untimed calls precede every sample. Without them a sample that holds
    only a call or two measures the candidate just after the others evicted its data
    from the caches: the cost of switching to it, not of running it, as a loop that
    calls it back to back (a training loop) does.
    """
    inner = {name: calibrate(fn, target_s) for name, fn in candidates.items()}
    samples: dict[str, list[float]] = {name: [] for name in candidates}
    for _ in range(rounds):
        for name, fn in candidates.items():
            for _ in range(warmup):
                fn()
            samples[name].append(time_call(fn, inner[name]))
    return {name: statistics.median(s) for name, s in samples.items()}
