"""The batching explorer (chapter 18): its timelines and statistics are the library's simulation."""
from __future__ import annotations

import json

import numpy as np
import pytest

from aakaar.book.bench.batching import quantile, simulate
from aakaar.book.widgets import BatchingExplorer
from aakaar.book.widgets.batching_explorer import DELAYS_MS, LOADS
from widget_helpers import run_js


def test_the_state_is_the_simulation():
    w = BatchingExplorer(fixed=100e-6, per_row=5e-6, max_batch=16)
    assert len(w.data) == len(LOADS) and all(len(row) == len(DELAYS_MS) for row in w.data)
    s = w.data[3][4]
    rate = LOADS[3] / 105e-6
    assert s["rate"] == pytest.approx(rate)
    t = np.asarray(s["arrivals"]) * 1e-3
    lat, sizes = simulate(t, 16, DELAYS_MS[4] * 1e-3, 100e-6, 5e-6)
    assert s["sizes"][:3] == sizes[:3]
    # each drawn batch ends when its first request's latency says, and lasts fixed + per_row * n
    assert s["ends"][0] == pytest.approx((t[0] + lat[0]) * 1e3)
    assert s["ends"][0] - s["starts"][0] == pytest.approx((100e-6 + 5e-6 * sizes[0]) * 1e3)
    assert s["p99_ms"] >= s["p50_ms"] > 0


def test_more_delay_makes_bigger_batches_under_load():
    w = BatchingExplorer(fixed=100e-6, per_row=5e-6)
    means = [s["mean_batch"] for s in w.data[LOADS.index(1.0)]]
    assert means[-1] > means[0] >= 1


def test_bad_arguments_are_clear_errors():
    with pytest.raises(ValueError, match="fixed must be > 0"):
        BatchingExplorer(fixed=0.0, per_row=1e-6)
    with pytest.raises(ValueError, match="max_batch must be an int"):
        BatchingExplorer(fixed=1e-4, per_row=1e-6, max_batch=0)


def test_js_assigns_requests_to_batches(need_program, tmp_path):
    cases = [([1, 1, 1], 3), ([3, 2], 5), ([4, 4], 6), ([], 0)]
    got = run_js(need_program, tmp_path, "batching_explorer.js",
                 f"const cases = {json.dumps(cases)};\n"
                 "console.log(JSON.stringify(cases.map(([s, n]) => m.batchOf(s, n))));")
    assert got == [[0, 1, 2], [0, 0, 0, 1, 1], [0, 0, 0, 0, 1, 1], []]
