"""The graph stepper (chapters 11-13): Python extracts real autograd graphs and validates them; the
JavaScript schedule is the engine's order."""
from __future__ import annotations

import json

import pytest

import aakaar as ak
from aakaar.book.widgets import GraphStepper, extract_graph
from widget_helpers import run_js


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
    assert {n["name"] for n in nodes} >= {"SumBackward0", "MulBackward0", "AddBackward0", "AccumulateGrad"}
    assert by_label["x"]["name"] == by_label["w"]["name"] == "AccumulateGrad"
    # the gradients are the library's: dL/dz = 2z = 16, dL/dx = 16 * (w + 1) = 64, dL/dw = 16 * x = 32
    assert (by_label["z"]["grad"], by_label["x"]["grad"], by_label["w"]["grad"]) == ("[16]", "[64]", "[32]")
    assert named["x"].grad is None, "extracting must not touch .grad"
    # x is reached twice: from AddBackward0 directly and through MulBackward0
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
