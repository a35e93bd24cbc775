"""The broadcast visualiser (chapter 4): Python holds validated state; the JavaScript broadcast rule
agrees with the library."""
from __future__ import annotations

import json

import pytest

import aakaar as ak
from aakaar.book.widgets import BroadcastVisualiser
from widget_helpers import run_js


def test_broadcast_visualiser_state_and_errors():
    w = BroadcastVisualiser((2, 1, 4), (3, 1))
    assert (w.shape_a, w.shape_b) == ([2, 1, 4], [3, 1])
    with pytest.raises(ValueError, match="shape_b must not contain negative"):
        BroadcastVisualiser((2,), (-3,))


def test_js_broadcast_rule_matches_the_library(need_program, tmp_path):
    pairs = [((3, 1), (4,)), ((2, 1, 4), (3, 1)), ((5,), ()), ((3, 4), (4, 3)), ((1,), (0,)), ((8, 1, 6, 1), (7, 1, 5))]
    js = run_js(need_program, tmp_path, "broadcast_visualiser.js", f"""
        const pairs = {json.dumps(pairs)};
        console.log(JSON.stringify(pairs.map(([a, b]) => {{
            const r = m.broadcastShapes(a, b);
            return r.error ? null : [r.shape, m.broadcastStrides(a, r.shape)];
        }})));
    """)
    for (a, b), got in zip(pairs, js):
        try:
            out = tuple(ak.broadcast_shapes(a, b))
        except ValueError:
            assert got is None, (a, b)
            continue
        assert tuple(got[0]) == out
        expanded = ak.empty(*a).expand(*out) if a else None
        if expanded is not None:
            want = [0 if n == 1 else s for s, n in zip(expanded.stride(), out)]
            got_strides = [0 if n == 1 else s for s, n in zip(got[1], out)]
            assert got_strides == want, (a, b)
