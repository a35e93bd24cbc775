"""Chapter 18's batching policy in Python: the reference for its exercises and its simulated curves.

:func:`simulate` replays the policy of the Go batcher (``go/batcher.go``) on a list of arrival
times: one model call at a time; when the model is free, the oldest waiting request opens a batch,
every request already waiting joins it at once (up to ``max_batch``), and if it is still not full
the batch waits for more until its first request has waited ``max_delay`` or the batch fills.
A call on ``n`` rows takes ``fixed + per_row * n`` seconds (the fixed part is the hops of
chapter 18 and the model's per-call overhead; the per-row part its arithmetic).
:func:`decode_rows` is the raw endpoint's parsing, :func:`quantile` the metrics' percentile, and
:func:`committed` reads the committed measurements (``book/data/go-serving.json``).
"""
from __future__ import annotations

import json
from pathlib import Path
from typing import Sequence

import numpy as np

DATA = Path(__file__).resolve().parents[3] / "book" / "data" / "go-serving.json"


def decode_rows(body: bytes, width: int) -> np.ndarray:
    """Rows of little-endian float32 as a (rows, width) array; ValueError for a partial row or a
    value that is NaN or infinite (the server answers both with 400)."""
    if len(body) % (4 * width):
        raise ValueError(f"{len(body)} bytes is not a whole number of rows of {width} float32 ({4 * width} bytes)")
    rows = np.frombuffer(body, dtype="<f4").reshape(-1, width)
    if not np.isfinite(rows).all():
        raise ValueError("NaN and infinity are refused")
    return rows


def quantile(values: Sequence[float], q: float) -> float:
    """The q-quantile as the server's metrics compute it: the sorted values' element at rank
    round(q * (n - 1)) (no interpolation: a latency that was actually measured)."""
    s = np.sort(np.asarray(values, dtype=np.float64))
    if s.size == 0:
        raise ValueError("no values")
    return float(s[int(q * (s.size - 1) + 0.5)])


# [[book:simulate]]
def simulate(arrivals: Sequence[float], max_batch: int, max_delay: float, fixed: float,
             per_row: float) -> tuple[np.ndarray, list[int]]:
    """Each request's latency (in arrival order) and the batch sizes, under the Go batcher's policy."""
    t = np.asarray(arrivals, dtype=np.float64)
    latency = np.empty_like(t)
    sizes: list[int] = []
    free, i = 0.0, 0  # when the model is next free; the oldest request not yet served
    while i < len(t):
        opened = max(free, t[i])                  # the first request opens the batch
        fill = i + max_batch - 1                  # the request that would fill the batch
        deadline = t[i] + max_delay
        start = max(opened, deadline if fill >= len(t) else min(deadline, t[fill]))
        n = int(np.searchsorted(t, start, side="right")) - i
        n = min(n, max_batch)
        free = start + fixed + per_row * n
        latency[i:i + n] = free - t[i:i + n]
        sizes.append(n)
        i += n
    return latency, sizes
# [[/book:simulate]]


def committed(path: str | Path | None = None) -> dict:
    """The committed Go serving measurements (``go run ./cmd/aakaar-bench -out ...`` writes them)."""
    p = Path(path) if path else DATA
    if not p.is_file():
        raise FileNotFoundError(f"{p}: the committed serving benchmark is missing; run "
                                "source go/env.sh && cd go && go run ./cmd/aakaar-bench -out ../book/data/go-serving.json")
    return json.loads(p.read_text())
