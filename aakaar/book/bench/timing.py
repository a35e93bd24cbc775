"""Interleaved timing: every candidate runs once per round, rounds repeat, and
the median per candidate is reported. On a shared, noisy machine this makes
the *ratios* between candidates measured in one run meaningful even when the
absolute times drift."""

from __future__ import annotations

import os
import statistics
import sys
import time
from typing import Any, Callable, Mapping, Sequence

# How long the references' idle worker threads may spin after a call before
# they sleep, as aakaar's own pool does (50 us, csrc/cpu/parallel.cpp). By
# default OpenBLAS's threads spin for 2^28 TSC ticks (about 0.1 s) and
# libgomp's, PyTorch's, for 300000 pause loops (milliseconds): in an
# interleaved run they keep the cores that the next library's threads need,
# and a two-thread figure measures who spins, not who computes. Capped at about
# 0.1 ms, they still catch back-to-back calls within one library, and one
# untimed call before each timed one (the settle) lets them fall asleep.
SPIN_CAPS = {"OPENBLAS_THREAD_TIMEOUT": "18", "GOMP_SPINCOUNT": "10000"}


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


def cap_idle_spinning(module: str, argv: Sequence[str]) -> None:
    """Re-runs ``python -m module argv`` with SPIN_CAPS in the environment, unless they are set.

    For the command-line entry points: the caps must be in the environment before numpy's
    OpenBLAS and PyTorch's libgomp start their threads, and ``import aakaar`` has already
    loaded numpy. A cap the user set is kept as it is."""
    missing = {k: v for k, v in SPIN_CAPS.items() if k not in os.environ}
    if not missing:
        return
    env = {**os.environ, **missing}
    sys.stdout.flush()
    os.execve(sys.executable, [sys.executable, "-m", module, *argv], env)


def spin_caps_in_effect() -> dict[str, str]:
    """The spin caps this process runs with (for the record a benchmark writes)."""
    return {k: os.environ[k] for k in SPIN_CAPS if k in os.environ}


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


def paired_against_torch(sa: Callable[[], object], st: Callable[[], object], rounds: int,
                         warmup: int) -> dict[str, float]:
    """Round-robin timing of aakaar's ``sa`` and torch's ``st`` (as :func:`interleaved`, ``warmup`` calls
    before each sample), keeping the pairs: the medians, their ratio, and the median of each round's own
    ratio (``paired``), which a busy machine disturbs less."""
    inner = {"aakaar": calibrate(sa), "torch": calibrate(st)}
    pairs = []
    for _ in range(rounds):
        sample = {}
        for name, fn in (("aakaar", sa), ("torch", st)):
            for _ in range(warmup):
                fn()
            sample[name] = time_call(fn, inner[name])
        pairs.append((sample["aakaar"], sample["torch"]))
    a, t = statistics.median(p[0] for p in pairs), statistics.median(p[1] for p in pairs)
    return {"aakaar_us": a * 1e6, "torch_us": t * 1e6, "ratio": a / t,
            "paired": statistics.median(p[0] / p[1] for p in pairs)}


def paired_table_main(module: str, description: str, run: Callable[..., dict], title: str, default_rounds: int,
                      argv: Sequence[str] | None = None, extra: Callable[[Any], None] | None = None) -> None:
    """The command line of a paired aakaar-torch benchmark (conv, losses, shape_ops): --threads, --rounds,
    --json (written atomically), then a table of each problem's medians, ratio and paired ratio.
    ``run(threads, rounds, *extra_args)`` measures; ``extra(parser)`` adds options, passed on in order."""
    import argparse

    from .io import write_json_atomic

    argv = sys.argv[1:] if argv is None else list(argv)
    cap_idle_spinning(module, argv)
    p = argparse.ArgumentParser(description=description)
    p.add_argument("--threads", type=int, default=1)
    p.add_argument("--rounds", type=int, default=default_rounds)
    p.add_argument("--json", type=str, default=None)
    base = {a.dest for a in p._actions}
    if extra is not None:
        extra(p)
    a = p.parse_args(argv)
    out = run(a.threads, a.rounds, *[v for k, v in vars(a).items() if k not in base])
    print(f"{title}, {a.threads} thread(s), medians of {a.rounds} rounds")
    print(f"{'problem':30s} {'aakaar us':>10s} {'torch us':>10s} {'ratio':>7s} {'paired':>7s}")
    for label, r in out["results"].items():
        print(f"{label:30s} {r['aakaar_us']:10.1f} {r['torch_us']:10.1f} {r['ratio']:7.2f} {r['paired']:7.2f}")
    if a.json:
        write_json_atomic(a.json, out)
