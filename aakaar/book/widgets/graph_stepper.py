"""GraphStepper: step through a backward pass node by node, as the engine in csrc/autograd/engine.cpp
runs it: dependency counts, the ready queue, and the gradient each node receives.

Python extracts the graph once (from ``grad_fn`` and ``next_functions``) and the gradients that
reach each named tensor (with ``autograd.grad``, so no ``.grad`` is touched); the stepping itself
runs in ``graph_stepper.js``, so it works in the static book too.
"""
from __future__ import annotations

from typing import Mapping

import anywidget
import numpy as np
import traitlets

from ._base import CSS, HERE


def _format_grad(g) -> str:
    if g is None:
        return "none"
    a = np.asarray(g.numpy(), dtype=np.float64)
    if a.size <= 4:
        vals = ", ".join(f"{v:.4g}" for v in a.ravel())
        return f"[{vals}]" if a.ndim else vals
    return f"shape {tuple(a.shape)}, sum {a.sum():.4g}"


def _accumulator(t):
    """The AccumulateGrad node of leaf ``t``: the graph's next_functions are the only handle on it,
    so reach it through a throw-away op (a leaf keeps one accumulator while a graph holds it)."""
    import aakaar as ak

    with ak.enable_grad():
        return (t * 1).grad_fn.next_functions[0][0]


def extract_graph(output, named: Mapping[str, object] | None = None) -> tuple[list[dict], list[list[int]]]:
    """The backward graph of ``output`` as plain data: nodes ``{id, name, label, seq, grad}`` and
    edges ``[from id, to id, input_nr]`` (gradient flows from -> to).

    ``named`` maps labels to tensors of the expression (leaves or intermediates); their nodes get
    the label and the gradient that reaches them. ``seq`` is a forward order (inputs before the
    ops that use them), which is how the engine breaks ties: the latest-created ready node first.
    """
    import aakaar as ak

    if getattr(output, "grad_fn", None) is None:
        raise ValueError("extract_graph needs a tensor produced by ops on tensors that require grad "
                         "(its grad_fn is None)")
    named = dict(named or {})
    for label, t in named.items():
        if not getattr(t, "requires_grad", False):
            raise ValueError(f"named tensor {label!r} does not require grad, so it has no node in the graph")
    keep, index = [], {}   # keep the Python node objects alive, so identity comparisons hold

    def node_id(n) -> int:
        for i, m in enumerate(keep):
            if m is n:
                return i
        keep.append(n)
        return len(keep) - 1

    root = output.grad_fn
    node_id(root)
    edges, post, seen, stack = [], [], set(), [(root, False)]
    while stack:  # iterative DFS; the post-order puts every input before its users
        n, done = stack.pop()
        i = node_id(n)
        if done:
            post.append(i)
            continue
        if i in seen:
            continue
        seen.add(i)
        stack.append((n, True))
        for child, nr in reversed(n.next_functions):
            if child is None:
                continue
            edges.append([i, node_id(child), int(nr)])
            stack.append((child, False))
    seq = {i: k for k, i in enumerate(post)}
    labels, grads = {}, {}
    tensors = list(named.values())
    gout = None if output.numel() == 1 else ak.ones_like(output)
    results = ak.autograd.grad(output, tensors, gout, retain_graph=True, allow_unused=True) if tensors else []
    for (label, t), g in zip(named.items(), results):
        n = t.grad_fn if t.grad_fn is not None else _accumulator(t)
        found = next((i for i, m in enumerate(keep) if m is n), None)
        if found is None:
            raise ValueError(f"named tensor {label!r} is not part of the graph of the output")
        labels[found] = label
        grads[found] = _format_grad(g)
    # The class name, as torch shows nodes (MulBackward0, AccumulateGrad; AccumulateGrad's name() is longer).
    nodes = [{"id": i, "name": type(n).__name__, "label": labels.get(i, ""), "seq": seq[i], "grad": grads.get(i, "")}
             for i, n in enumerate(keep)]
    # An op that uses one input twice (x * x) has two edges to the same node, as in the engine.
    return nodes, edges


class GraphStepper(anywidget.AnyWidget):
    """Step through backward on a graph given as ``nodes`` and ``edges`` (see :func:`extract_graph`)."""

    _esm = HERE / "graph_stepper.js"
    _css = CSS
    nodes = traitlets.List(traitlets.Dict()).tag(sync=True)
    edges = traitlets.List(traitlets.List(traitlets.Int())).tag(sync=True)
    step = traitlets.Int(0).tag(sync=True)

    def __init__(self, nodes: list[dict], edges: list[list[int]], step: int = 0, **kwargs):
        ids = set()
        for n in nodes:
            if not isinstance(n, dict) or not {"id", "name", "seq"} <= set(n):
                raise ValueError(f"each node needs 'id', 'name' and 'seq', got {n!r}")
            ids.add(n["id"])
        if len(ids) != len(nodes):
            raise ValueError("node ids must be unique")
        for e in edges:
            if len(e) != 3 or e[0] not in ids or e[1] not in ids:
                raise ValueError(f"edge {e!r} must be [from id, to id, input_nr] between known nodes")
        if step < 0:
            raise ValueError(f"step must be >= 0, got {step}")
        super().__init__(nodes=[dict(n) for n in nodes], edges=[list(e) for e in edges], step=step, **kwargs)

    @classmethod
    def from_tensor(cls, output, named: Mapping[str, object] | None = None, step: int = 0) -> "GraphStepper":
        """The graph of ``output``; ``named`` labels tensors of the expression and shows their gradients."""
        nodes, edges = extract_graph(output, named)
        return cls(nodes, edges, step=step)
