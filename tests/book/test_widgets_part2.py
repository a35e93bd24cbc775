"""The widgets of chapters 6 and 11-13: Python validates state and extracts real graphs; the JavaScript
footprints and engine schedule agree with the library."""
from __future__ import annotations

import json
import pathlib
import re
import shutil
import subprocess

import pytest

import aakaar as ak
from aakaar.widgets import BlockingExplorer, GraphStepper, extract_graph
from aakaar.widgets.blocking_explorer import DEFAULT_BLOCKING_F32, TILE_F32, machine_cache_sizes

REPO = pathlib.Path(__file__).resolve().parents[2]
WIDGETS = REPO / "aakaar" / "widgets"


def run_js(need_program, tmp_path, name: str, body: str):
    node = need_program("node")
    target = tmp_path / (name.removesuffix(".js") + ".mjs")
    shutil.copy(WIDGETS / name, target)
    script = f"const m = await import({json.dumps(target.as_uri())});\n{body}"
    r = subprocess.run([node, "--input-type=module", "-e", script], capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr
    return json.loads(r.stdout)


def test_blocking_defaults_match_the_library_source():
    packed = (REPO / "csrc/cpu/gemm/packed.h").read_text()
    m = re.search(r"default_blocking<float>\(\) \{ return \{(\d+), (\d+), (\d+)\}; \}", packed)
    assert m, "default_blocking<float> not found in packed.h"
    assert tuple(int(x) for x in m.groups()) == DEFAULT_BLOCKING_F32
    tile = re.search(r"struct Tile<float> \{ static constexpr int MR = (\d+), NR = (\d+); \}",
                     (REPO / "csrc/cpu/gemm/microkernels.h").read_text())
    assert tile and tuple(int(x) for x in tile.groups()) == TILE_F32


def test_machine_cache_sizes_reads_sysfs_and_falls_back(tmp_path):
    for i, (level, kind, size) in enumerate([(1, "Data", "48K"), (1, "Instruction", "32K"), (2, "Unified", "2048K"),
                                             (3, "Unified", "64M")]):
        d = tmp_path / f"index{i}"
        d.mkdir()
        (d / "level").write_text(f"{level}\n"); (d / "type").write_text(f"{kind}\n"); (d / "size").write_text(f"{size}\n")
    assert machine_cache_sizes(str(tmp_path)) == (48 * 1024, 2048 * 1024, 64 * 1024 ** 2)
    assert machine_cache_sizes(str(tmp_path / "missing")) == (32 * 1024, 1024 ** 2, 32 * 1024 ** 2)


@pytest.mark.parametrize("kwargs, error, message", [
    (dict(mc=0), ValueError, "mc must be > 0"),
    (dict(kc=-4), ValueError, "kc must be > 0"),
    (dict(nc=2.5), TypeError, "nc must be an int"),
    (dict(elem_bytes=2), ValueError, "elem_bytes must be 4"),
    (dict(caches=(1, 2)), ValueError, r"caches must be \(L1, L2, L3\)"),
    (dict(caches=(32768, 0, 1)), ValueError, "cache size L2 must be > 0"),
])
def test_blocking_explorer_rejects_bad_input(kwargs, error, message):
    with pytest.raises(error, match=message):
        BlockingExplorer(**kwargs)


def test_js_footprints(need_program, tmp_path):
    got = run_js(need_program, tmp_path, "blocking_explorer.js", """
        const base = {mr: 6, nr: 16, elem_bytes: 4, l1: 32768, l2: 1048576, l3: 33554432};
        console.log(JSON.stringify([m.footprints({...base, mc: 144, kc: 256, nc: 4080}),
                                    m.footprints({...base, mc: 100, kc: 1024, nc: 100})]));
    """)
    default, big = got
    assert [b["bytes"] for b in default["blocks"][1:]] == [256 * 16 * 4, 144 * 256 * 4, 256 * 4080 * 4]
    assert [b["verdict"] for b in default["blocks"]] == ["fits"] * 4
    assert default["blocks"][0]["note"].startswith("12 accumulators + 2 B vectors + 1 broadcast = 15 of 16")
    # MC and NC are rounded up to whole tiles, as resolve_blocking() does; KC = 1024 overflows L1 (64 KiB strip)
    assert (big["blocking"]["mc"], big["blocking"]["nc"]) == (102, 112)
    assert big["blocks"][1]["verdict"] == "spills"
    assert abs(default["flopsPerByte"] - 2 * 6 * 16 / (4 * 22)) < 1e-12


def example_graph():
    x = ak.tensor([2.0]).requires_grad_()
    w = ak.tensor([3.0]).requires_grad_()
    y = x * w
    z = y + x
    return (z * z).sum(), dict(x=x, w=w, y=y, z=z)


def test_extract_graph_of_a_real_expression():
    loss, named = example_graph()
    nodes, edges = extract_graph(loss, named)
    by_label = {n["label"]: n for n in nodes if n["label"]}
    assert {n["name"] for n in nodes} >= {"SumBackward", "MulBackward", "AddBackward", "AccumulateGrad"}
    assert by_label["x"]["name"] == by_label["w"]["name"] == "AccumulateGrad"
    # the gradients are the library's: dL/dz = 2z = 16, dL/dx = 16 * (w + 1) = 64, dL/dw = 16 * x = 32
    assert (by_label["z"]["grad"], by_label["x"]["grad"], by_label["w"]["grad"]) == ("[16]", "[64]", "[32]")
    assert named["x"].grad is None, "extracting must not touch .grad"
    # x is reached twice: from AddBackward directly and through MulBackward
    assert sum(1 for e in edges if e[1] == by_label["x"]["id"]) == 2
    seq = {n["id"]: n["seq"] for n in nodes}
    assert all(seq[a] > seq[b] for a, b, _ in edges), "seq must be a forward order"


def test_graph_stepper_rejects_bad_input():
    with pytest.raises(ValueError, match="grad_fn is None"):
        extract_graph(ak.ones(2))
    with pytest.raises(ValueError, match="does not require grad"):
        loss, _ = example_graph()
        extract_graph(loss, {"c": ak.ones(1)})
    with pytest.raises(ValueError, match="edge"):
        GraphStepper([{"id": 0, "name": "A", "seq": 0}], [[0, 5, 0]])
    with pytest.raises(ValueError, match="needs 'id', 'name' and 'seq'"):
        GraphStepper([{"id": 0}], [])


def test_js_schedule_is_the_engines_order(need_program, tmp_path):
    """The stepper's order is a valid backward order, and its gradients arrive in the order the real
    engine runs: tensor hooks on the intermediates fire in the same order as the JS visits them."""
    a = ak.randn(3, 4).requires_grad_()
    b = ak.randn(4, 2).requires_grad_()
    h1 = a @ b
    h2 = h1.relu()
    h3 = h2 * h1
    loss = h3.mean()
    named = {"h1": h1, "h2": h2, "h3": h3}
    nodes, edges = extract_graph(loss, named)
    fired = []
    for name, t in named.items():
        t.register_hook(lambda g, name=name: fired.append(name))
    loss.backward()
    steps = run_js(need_program, tmp_path, "graph_stepper.js",
                   f"console.log(JSON.stringify(m.schedule({json.dumps(nodes)}, {json.dumps(edges)})));")
    order = [s["run"] for s in steps]
    assert sorted(order) == [n["id"] for n in nodes]
    pos = {n: k for k, n in enumerate(order)}
    assert all(pos[f] < pos[t] for f, t, _ in edges)
    label = {n["id"]: n["label"] for n in nodes}
    assert [label[i] for i in order if label[i]] == fired
