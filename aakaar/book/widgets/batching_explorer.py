"""BatchingExplorer: the Go batcher's policy on random arrivals, for a grid of loads and delays (chapter 18).

Every timeline and statistic is the library's: :func:`aakaar.book.bench.batching.simulate` runs
when the widget is made, for each arrival rate and ``MaxDelay`` of a small grid, and the results
are kept in the widget's state; ``batching_explorer.js`` only draws the chosen one, so the widget
responds in the static book too.
"""
from __future__ import annotations

import anywidget
import numpy as np
import traitlets

from ..bench.batching import quantile, simulate
from ._base import CSS, HERE

LOADS = [0.25, 0.5, 0.75, 0.9, 1.0, 1.5, 2.0, 4.0]  # arrival rate as a multiple of what one row at a time serves
DELAYS_MS = [0.0, 0.25, 0.5, 1.0, 2.0, 4.0, 8.0]
SHOWN = 60  # requests drawn on the timeline


def scenarios(fixed: float, per_row: float, max_batch: int, requests: int = 4000, seed: int = 0) -> list[list[dict]]:
    """[load index][delay index] -> {p50_ms, p99_ms, mean_batch, rate, arrivals, starts, ends, sizes} (ms)."""
    rng = np.random.default_rng(seed)
    gaps = rng.exponential(1.0, requests)
    out = []
    for load in LOADS:
        rate = load / (fixed + per_row)
        t = np.cumsum(gaps / rate)
        row = []
        for d in DELAYS_MS:
            lat, sizes = simulate(t, max_batch, d * 1e-3, fixed, per_row)
            ends, starts, i = [], [], 0
            for n in sizes:
                if i >= SHOWN:
                    break
                end = t[i] + lat[i]
                ends.append(end * 1e3)
                starts.append((end - fixed - per_row * n) * 1e3)
                i += n
            row.append({"rate": rate, "p50_ms": quantile(lat, 0.5) * 1e3, "p99_ms": quantile(lat, 0.99) * 1e3,
                        "mean_batch": float(np.mean(sizes)), "arrivals": (t[:SHOWN] * 1e3).tolist(),
                        "starts": starts, "ends": ends, "sizes": sizes[:len(ends)]})
        out.append(row)
    return out


class BatchingExplorer(anywidget.AnyWidget):
    """Choose the arrival rate and MaxDelay; see the batches form on a timeline, and the latency they cost."""

    _esm = HERE / "batching_explorer.js"
    _css = CSS
    load = traitlets.Int(3).tag(sync=True)   # index into loads
    delay = traitlets.Int(0).tag(sync=True)  # index into delays_ms
    loads = traitlets.List().tag(sync=True)
    delays_ms = traitlets.List().tag(sync=True)
    max_batch = traitlets.Int(64).tag(sync=True)
    data = traitlets.List().tag(sync=True)

    def __init__(self, fixed: float, per_row: float, max_batch: int = 64, **kwargs):
        if not (fixed > 0 and per_row >= 0):
            raise ValueError(f"BatchingExplorer: fixed must be > 0 and per_row >= 0 seconds, got {fixed!r}, {per_row!r}")
        if isinstance(max_batch, bool) or not isinstance(max_batch, int) or not 1 <= max_batch <= 1024:
            raise ValueError(f"BatchingExplorer: max_batch must be an int in [1, 1024], got {max_batch!r}")
        super().__init__(loads=LOADS, delays_ms=DELAYS_MS, max_batch=max_batch,
                         data=scenarios(fixed, per_row, max_batch), **kwargs)
