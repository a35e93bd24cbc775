"""The widgets: Python holds validated state; the JavaScript arithmetic agrees with the library."""
from __future__ import annotations

import json
import math
import pathlib
import shutil
import subprocess

import pytest

import aakaar as ak
from aakaar.widgets import VIEW_OPS, BroadcastVisualiser, StrideExplorer

WIDGETS = pathlib.Path(__file__).resolve().parents[2] / "aakaar" / "widgets"


def test_stride_explorer_from_a_real_tensor():
    t = ak.arange(24).reshape(2, 3, 4).transpose(0, 2)[1:]
    w = StrideExplorer.from_tensor(t, view_op="flatten")
    assert (w.shape, w.strides, w.offset) == (list(t.shape), list(t.stride()), t.storage_offset())
    assert w.storage_size == 24  # just enough storage for the furthest element
    assert set(VIEW_OPS) == {"none", "transpose", "step", "select", "expand", "flatten"}


@pytest.mark.parametrize("kwargs, error, message", [
    (dict(shape=(3, -1)), ValueError, "shape must not contain negative numbers"),
    (dict(shape=(3, 4), strides=(1,)), ValueError, "need one entry per dimension"),
    (dict(shape="3,4"), TypeError, "shape must be a sequence of ints"),
    (dict(shape=(3, 4.5)), TypeError, "shape must contain ints"),
    (dict(view_op="rotate"), ValueError, "view_op must be one of"),
    (dict(offset=-1), ValueError, "offset must be >= 0"),
])
def test_stride_explorer_rejects_bad_input(kwargs, error, message):
    with pytest.raises(error, match=message):
        StrideExplorer(**kwargs)


def test_from_tensor_needs_a_tensor():
    with pytest.raises(TypeError, match="from_tensor needs a tensor"):
        StrideExplorer.from_tensor([1, 2, 3])


def test_broadcast_visualiser_state_and_errors():
    w = BroadcastVisualiser((2, 1, 4), (3, 1))
    assert (w.shape_a, w.shape_b) == ([2, 1, 4], [3, 1])
    with pytest.raises(ValueError, match="shape_b must not contain negative"):
        BroadcastVisualiser((2,), (-3,))


def as_module(tmp_path, name: str) -> str:
    """The widget's JS copied to a .mjs file, so any Node version loads it as an ES module."""
    target = tmp_path / (name.removesuffix(".js") + ".mjs")
    shutil.copy(WIDGETS / name, target)
    return target.as_uri()


def run_js(need_program, script: str):
    node = need_program("node")
    r = subprocess.run([node, "--input-type=module", "-e", script], capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr
    return json.loads(r.stdout)


def test_js_view_and_contiguity_rules_match_the_library(need_program, tmp_path):
    base = ak.arange(24).reshape(2, 3, 4)
    sources = [base, base.permute(1, 0, 2), base.transpose(1, 2), base[:, :, ::2], base[:, 1:], base[:, :1]]
    targets = [(24,), (6, 4), (2, 12), (3, 2, 2, 2), (4, 6), (2, 6), (12,), (3, 4), (2, 2, 3), (6, 2)]
    cases = [(list(t.shape), list(t.stride()), list(s)) for t in sources for s in targets
             if math.prod(t.shape) == math.prod(s)]
    url = as_module(tmp_path, "stride_explorer.js")
    js = run_js(need_program, f"""
        const m = await import({json.dumps(url)});
        const cases = {json.dumps(cases)};
        console.log(JSON.stringify(cases.map(([sh, st, ns]) => [m.viewStrides(sh, st, ns), m.isContiguous(sh, st)])));
    """)
    for (shape, strides, new), (view, contiguous) in zip(cases, js):
        src = next(s for s in sources if list(s.shape) == shape and list(s.stride()) == strides)
        assert contiguous == src.is_contiguous(), (shape, strides)
        try:
            want = list(src.view(*new).stride())
        except RuntimeError:
            want = None
        # strides of size-1 dims are arbitrary; compare the others
        if want is not None and view is not None:
            view = [v if n != 1 else w for v, w, n in zip(view, want, new)]
        assert view == want, (shape, strides, new)


def test_js_broadcast_rule_matches_the_library(need_program, tmp_path):
    pairs = [((3, 1), (4,)), ((2, 1, 4), (3, 1)), ((5,), ()), ((3, 4), (4, 3)), ((1,), (0,)), ((8, 1, 6, 1), (7, 1, 5))]
    url = as_module(tmp_path, "broadcast_visualiser.js")
    js = run_js(need_program, f"""
        const m = await import({json.dumps(url)});
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
