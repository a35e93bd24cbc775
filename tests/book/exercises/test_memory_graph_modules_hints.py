"""Chapters 10, 11 and 13's check cells name the likely mistake: each typical wrong answer (a size rounded
down, a cache keyed by the request, a node counted once for two edges, a gradient overwritten instead of
added, a Linear weight of the wrong shape, Xavier's std returned as its bound, an unbiased variance, ...)
run through the real check cell of its solutions/NN-*.ipynb gets its own hint. No kernel: the cells run
in-process. (10.4, 11.5 and 13.4, the performance exercises, are tested in test_cpp_exercise_hints.py
and test_perf_exercise_hints.py; 11.2's check names the wrong node itself.)"""
from __future__ import annotations

import pytest

from hint_helpers import REPO, cells, hint_for

from aakaar.book.exercises.notebooks import cell_source, read_notebook

NOTEBOOKS = {"10": REPO / "solutions" / "10-gpu-memory.ipynb",
             "11": REPO / "solutions" / "11-the-computational-graph.ipynb",
             "13": REPO / "solutions" / "13-modules-and-layers.ipynb"}


def var_class() -> str:
    """Exercise 11.3's scalar Var, as its solution cell defines it (the check cell builds graphs of it)."""
    for cell in read_notebook(NOTEBOOKS["11"])["cells"]:
        src = cell_source(cell)
        if "class Var" in src:
            return src.split("def scalar_backward")[0]
    raise AssertionError("no Var class in the 11 notebook")


SIZE_CLASS = '''
def size_class(nbytes):
    if nbytes < 0:
        NEGATIVE
    if nbytes <= 1 << 20:
        return SMALL
    p = POWER
    return -(-nbytes // (p // 4)) * (p // 4)
'''


def size_class(negative='raise ValueError("negative")', small="max(512, -(-nbytes // 512) * 512)",
               power="1 << (nbytes.bit_length() - 1)"):
    return SIZE_CLASS.replace("NEGATIVE", negative).replace("SMALL", small).replace("POWER", power)


COUNT = '''
def count_device_mallocs(events):
    cached, live, calls = {}, {}, 0
    for event in events:
        if event[0] == "malloc":
            _, name, nbytes = event
            cls = KEY
            if TAKE:
                REMOVE
            else:
                calls += 1
            live[name] = cls
        else:
            cls = live.pop(event[1])
            cached[cls] = cached.get(cls, 0) + 1
    return calls
'''


def count(key="library_size_class(nbytes)", take="cached.get(cls, 0)", remove="cached[cls] -= 1"):
    return COUNT.replace("KEY", key).replace("TAKE", take).replace("REMOVE", remove)


STEPS = '''
def transfer_steps(src_device, src_contiguous, dst_contiguous, same_dtype):
    if src_device not in ("cpu", "cuda"):
        RAISE
    dst_device = "cuda" if src_device == "cpu" else "cpu"
    steps = [] if src_contiguous else [f"pack:{PACK}"]
    steps.append("memcpy")
    if CONVERT:
        steps.append(f"convert:{dst_device}")
    return tuple(steps)
'''


def steps(raise_='raise ValueError("device")', pack="src_device", convert="not (dst_contiguous and same_dtype)"):
    return STEPS.replace("RAISE", raise_).replace("PACK", pack).replace("CONVERT", convert)


DEPS = '''
def dependency_counts(edges, root):
    out = {}
    for frm, to, _ in EDGES:
        out.setdefault(frm, []).append(to)
    deps, seen, stack = {root: 0}, {root}, [root]
    while stack:
        n = stack.pop()
        for to in out.get(n, []):
            deps[to] = deps.get(to, 0) + 1
            if to not in seen:
                seen.add(to)
                stack.append(to)
    return deps
'''

SCALAR = '''
def scalar_backward(root):
    deps, seen, stack = {root: 0}, {root}, [root]
    while stack:
        v = stack.pop()
        for p, _ in v.parents:
            deps[p] = deps.get(p, 0) + 1
            if p not in seen:
                seen.add(p)
                stack.append(p)
    grads = {v: 0.0 for v in seen}
    grads[root] = 1.0
    ready = [root]
    while ready:
        v = ready.pop()
        for p, local in v.parents:
            grads[p] = ADD
            deps[p] -= 1
            if deps[p] == 0:
                ready.append(p)
    return grads
'''

# Processes each node once, in the order it is first reached, without waiting for all its users.
SCALAR_IN_FIRST_REACHED_ORDER = '''
def scalar_backward(root):
    order, seen, stack = [], {root}, [root]
    while stack:
        v = stack.pop()
        order.append(v)
        for p, _ in v.parents:
            if p not in seen:
                seen.add(p)
                stack.append(p)
    grads = {v: 0.0 for v in seen}
    grads[root] = 1.0
    for v in order:
        for p, local in v.parents:
            grads[p] += grads[v] * local
    return grads
'''

ACCUMULATE = '''
def accumulated_gradient(w, batches):
    w.grad = None
    for x, y in batches:
        (((x @ w - y) ** 2).REDUCE() SCALE).backward()
    return w.grad.numpy()
'''


def accumulate(reduce="mean", scale="/ len(batches)"):
    return ACCUMULATE.replace("REDUCE", reduce).replace("SCALE", scale)


LINEAR = '''
class MyLinear(nn.Module):
    def __init__(self, in_features, out_features):
        super().__init__()
        bound = 1.0 / math.sqrt(BOUND)
        PARAMS
        nn.init.uniform_(self.weight, -bound, bound)
        nn.init.uniform_(self.bias, -bound, bound)

    def forward(self, x):
        return FORWARD
'''
WEIGHT_THEN_BIAS = ("self.weight = nn.Parameter(ak.empty(out_features, in_features)); "
                    "self.bias = nn.Parameter(ak.empty(out_features))")


def linear(bound="in_features", params=WEIGHT_THEN_BIAS, forward="x @ self.weight.T + self.bias"):
    return LINEAR.replace("BOUND", bound).replace("PARAMS", params).replace("FORWARD", forward)


XAVIER = '''
def xavier_bound_and_std(fan_in, fan_out, gain):
    std = SIGMA_EXPR
    return B_EXPR, RET_SIGMA
'''


def xavier(std="gain * math.sqrt(2.0 / (fan_in + fan_out))", bound="std * math.sqrt(3.0)", returned_std="std"):
    return XAVIER.replace("SIGMA_EXPR", std).replace("B_EXPR", bound).replace("RET_SIGMA", returned_std)


LAYER_NORM = '''
def layer_norm(x, gamma, beta, eps):
    mean = x.mean(AXES)
    var = x.var(AXES, ddof=DDOF)
    return SCALE * (x - mean) / DENOMINATOR + SHIFT
'''


def layer_norm(axes="axis=-1, keepdims=True", ddof="0", scale="gamma", shift="beta",
               denominator="np.sqrt(var + eps)"):
    return (LAYER_NORM.replace("AXES", axes).replace("DDOF", ddof).replace("SCALE", scale)
            .replace("SHIFT", shift).replace("DENOMINATOR", denominator))


WRONG = [
    ("10.1", "rounded down", size_class(small="max(512, nbytes // 512 * 512)"), "round UP"),
    ("10.1", "no 512-byte minimum", size_class(small="-(-nbytes // 512) * 512"), "the smallest block is 512 bytes"),
    ("10.1", "the power of two above", size_class(power="1 << nbytes.bit_length()"), "NOT ABOVE nbytes"),
    ("10.1", "a negative size accepted", size_class(negative="return 512"), "raise ValueError"),
    ("10.2", "no cache", count(take="False"), "a freed block goes into the cache of its size class"),
    ("10.2", "keyed by the request", count(key="nbytes"), "key the cache by library_size_class(nbytes)"),
    ("10.2", "a cached block never leaves", count(remove="pass"), "a cached block leaves the cache"),
    ("10.2", "any larger block serves",
     count(take="any(c >= cls and k for c, k in cached.items())",
           remove="c = min(c for c, k in cached.items() if c >= cls and k); cached[c] -= 1; cls = c"),
     "serves only its own size class"),
    ("10.3", "packed on the destination", steps(pack="dst_device"), "packed on its OWN device"),
    ("10.3", "a dtype change ignored", steps(convert="not dst_contiguous"), "a change of dtype"),
    ("10.3", "a strided destination ignored", steps(convert="not same_dtype"), "a strided destination"),
    ("10.3", "always from the host",
     steps(pack="'cpu'").replace('dst_device = "cuda" if src_device == "cpu" else "cpu"', 'dst_device = "cuda"'),
     "the roles swap"),
    ("10.3", "an unknown device accepted", steps(raise_="pass"), "raise ValueError"),
    ("11.1", "an edge pair counted once", DEPS.replace("EDGES", "{(f, t, 0) for f, t, _ in edges}"),
     "both count"),
    ("11.1", "every edge of the list",
     "def dependency_counts(edges, root):\n    d = {root: 0}\n    for f, t, _ in edges:\n"
     "        d.setdefault(f, 0)\n        d[t] = d.get(t, 0) + 1\n    return d",
     "node 3 is not reachable"),
    ("11.1", "the root left out", DEPS.replace("EDGES", "edges").replace("{root: 0}", "{}"),
     "the root is reachable from itself"),
    ("11.3", "a contribution overwrites", var_class() + SCALAR.replace("ADD", "grads[v] * local"),
     "both contributions add into its gradient"),
    ("11.3", "a node run before all its users", var_class() + SCALAR_IN_FIRST_REACHED_ORDER,
     "only once all its users have sent theirs"),
    ("11.4", "the sum of the batch losses", accumulate(scale=""), "the gradient of the SUM of the batch losses"),
    ("11.4", "a batch's squared errors summed", accumulate(reduce="sum"), "the MEAN of its squared errors"),
    ("11.4", "divided by the rows again", accumulate(scale="/ len(batches) / len(x)"), "already a mean over its rows"),
    ("13.1", "weight transposed",
     linear(params="self.weight = nn.Parameter(ak.empty(in_features, out_features)); "
                   "self.bias = nn.Parameter(ak.empty(out_features))", forward="x @ self.weight + self.bias"),
     "weight has shape (out_features, in_features)"),
    ("13.1", "bias registered first",
     linear(params="self.bias = nn.Parameter(ak.empty(out_features)); "
                   "self.weight = nn.Parameter(ak.empty(out_features, in_features))"),
     "self.weight, then self.bias"),
    ("13.1", "bound from out_features", linear(bound="out_features"), "the bound uses in_features"),
    ("13.1", "no bias in forward", linear(forward="x @ self.weight.T"), "plus the bias"),
    ("13.1", "forward outside the graph",
     linear(forward="ak.from_numpy(x.numpy() @ self.weight.detach().numpy().T + self.bias.detach().numpy())"),
     "so that backward reaches them"),
    ("13.2", "the std returned as the bound", xavier(bound="std"), "that bound is the standard deviation"),
    ("13.2", "the bound returned as the std", xavier(returned_std="std * math.sqrt(3.0)"),
     "the bound divided by sqrt(3)"),
    ("13.2", "gain left out", xavier(std="math.sqrt(2.0 / (fan_in + fan_out))"), "both scale with gain"),
    ("13.2", "fan_in only", xavier(std="gain / math.sqrt(fan_in)"), "averages the two fans"),
    ("13.3", "unbiased variance", layer_norm(ddof="1"), "divide by D, not D - 1"),
    ("13.3", "no scale and shift", layer_norm(scale="1", shift="0"), "then scale by gamma and shift by beta"),
    ("13.3", "gamma and beta swapped", layer_norm(scale="beta", shift="gamma"), "they are swapped"),
    ("13.3", "the whole array normalised", layer_norm(axes="axis=None"), "over the LAST axis only"),
    ("13.3", "eps outside the root", layer_norm(denominator="(np.sqrt(var) + eps)"), "under the square root"),
    ("13.3", "keepdims left out", layer_norm(axes="axis=-1"), "keep the reduced axis"),
]


@pytest.mark.parametrize("exercise, label, wrong, hint", WRONG, ids=[f"{e}-{l}" for e, l, _, _ in WRONG])
def test_a_typical_mistake_gets_its_hint(exercise, label, wrong, hint):
    line = hint_for(NOTEBOOKS[exercise.split(".")[0]], exercise, wrong)
    assert hint in line, line


def test_every_exercise_with_a_hinted_check_has_mistakes_tested():
    tested = {e for e, *_ in WRONG}
    expected = {"10": {"10.1", "10.2", "10.3"}, "11": {"11.1", "11.3", "11.4"}, "13": {"13.1", "13.2", "13.3"}}
    for chapter, notebook in NOTEBOOKS.items():
        assert expected[chapter] <= set(cells(notebook)[1])
        assert expected[chapter] <= tested
