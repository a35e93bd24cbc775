"""The batch explorer (chapter 16): its orders are the library's, its batches BatchSampler's."""
from __future__ import annotations

import json

import pytest

import aakaar as ak
from aakaar.book.widgets import BatchExplorer
from aakaar.data import BatchSampler, DataLoader, TensorDataset
from widget_helpers import run_js


def test_the_orders_are_the_shuffling_loaders():
    w = BatchExplorer(n=12, batch_size=5, seeds=2, epochs=3)
    loader = DataLoader(TensorDataset(ak.arange(12)), batch_size=12, shuffle=True,
                        generator=ak.Generator().manual_seed(1))
    epochs = [[v for (b,) in loader for v in b.tolist()] for _ in range(3)]
    assert w.orders[1] == epochs
    assert all(sorted(o) == list(range(12)) for per_seed in w.orders for o in per_seed)
    assert epochs[0] != epochs[1] and w.orders[0] != w.orders[1]


def test_bad_arguments_are_clear_errors():
    with pytest.raises(ValueError, match="batch_size must be an int in \\[1, n=5\\]"):
        BatchExplorer(n=5, batch_size=6)
    with pytest.raises(ValueError, match="n must be an int in \\[1, 200\\]"):
        BatchExplorer(n=0)


def test_js_batches_are_batch_samplers(need_program, tmp_path):
    cases = [(n, b, d) for n in (0, 1, 7, 12, 20) for b in (1, 3, 5, 20) for d in (False, True)]
    got = run_js(need_program, tmp_path, "batch_explorer.js",
                 f"const cases = {json.dumps(cases)};\n"
                 "console.log(JSON.stringify(cases.map(([n, b, d]) => "
                 "m.batchesOf(Array.from({length: n}, (_, i) => i), b, d))));")
    assert got == [list(BatchSampler(range(n), b, d)) for n, b, d in cases]
