"""One table of differentiable ops, shared by the gradcheck tests and the
PyTorch parity tests, so both check exactly the same things.

A case is a function ``build(draw) -> (arrays, fn)``: ``draw`` is hypothesis's
draw, ``arrays`` are float64 numpy inputs (the ones that get gradients) and
``fn(L, *xs)`` computes the op with the library adapter ``L`` (``AK`` for
aakaar, ``TORCH`` for torch), so the very same code runs on both libraries.
Non-differentiable arguments (indices, masks, conditions) are numpy values
captured by ``fn`` and turned into tensors with ``L.tensor``.

Input domains keep finite differences meaningful: ``pos`` for log/sqrt,
``nz`` (away from 0) for kinks and divisions. Ties and kinks themselves are
tested separately, against PyTorch, since no derivative exists there.
"""

from __future__ import annotations

from typing import Callable

import numpy as np
from hypothesis import strategies as st

import aakaar

CASES: dict[str, Callable] = {}


def case(name: str):
    def register(build):
        CASES[name] = build
        return build

    return register


# ---- library adapters ------------------------------------------------------------


class _Aakaar:
    """The few calls whose spelling differs between aakaar and torch."""

    name = "aakaar"

    @staticmethod
    def tensor(a):
        return aakaar.from_numpy(np.ascontiguousarray(a).copy())

    where = staticmethod(aakaar.where)
    cat = staticmethod(aakaar.cat)
    stack = staticmethod(aakaar.stack)

    @staticmethod
    def gelu(x, approximate="none"):
        return x.gelu(approximate=approximate)

    @staticmethod
    def softplus(x, beta=1.0, threshold=20.0):
        return x.softplus(beta, threshold)

    @staticmethod
    def silu(x):
        return x.silu()

    @staticmethod
    def linear(x, w, b=None, relu=False):
        from aakaar.nn import functional as F

        return F.linear_relu(x, w, b) if relu else F.linear(x, w, b)

    # Composites in aakaar.nn.functional (no primitive of their own).
    @staticmethod
    def leaky_relu(x, negative_slope=0.01):
        from aakaar.nn import functional as F

        return F.leaky_relu(x, negative_slope)

    @staticmethod
    def elu(x, alpha=1.0):
        from aakaar.nn import functional as F

        return F.elu(x, alpha)


class _Torch:
    name = "torch"

    @staticmethod
    def tensor(a):
        import torch

        return torch.from_numpy(np.ascontiguousarray(a).copy())

    def __getattr__(self, item):
        import torch
        import torch.nn.functional as F

        if item in ("where", "cat", "stack"):
            return getattr(torch, item)
        if item in ("gelu", "softplus", "silu", "leaky_relu", "elu"):
            return getattr(F, item)
        if item == "linear":
            return lambda x, w, b=None, relu=False: F.relu(F.linear(x, w, b)) if relu else F.linear(x, w, b)
        raise AttributeError(item)


AK = _Aakaar()
TORCH = _Torch()


# ---- drawing inputs ----------------------------------------------------------------


def values(draw, shape, domain="any"):
    """Seeded float64 values for `shape` in the given domain."""
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    x = rng.standard_normal(shape)
    if domain == "pos":
        x = np.abs(x) + 0.5
    elif domain == "nz":
        x = np.where(x >= 0, 1.0, -1.0) * (np.abs(x) + 0.3)
    return np.asarray(x, dtype=np.float64)


def shape(draw, min_dims=0, max_dims=3, min_side=1, max_side=3):
    return tuple(draw(st.lists(st.integers(min_side, max_side), min_size=min_dims, max_size=max_dims)))


def broadcast_pair(draw):
    """Two shapes that broadcast: the second is a suffix of the first with some dims set to 1."""
    a = shape(draw, 0, 3)
    k = draw(st.integers(0, len(a)))
    b = tuple(1 if draw(st.booleans()) else s for s in a[len(a) - k:])
    return (a, b) if draw(st.booleans()) else (b, a)


def view_chain(draw, shp, max_steps=3):
    """A random chain of views valid for shp, as tuples replayable on both libraries."""
    ops, shp = [], list(shp)
    for _ in range(draw(st.integers(0, max_steps))):
        kind = draw(st.sampled_from(["transpose", "permute", "slice", "select", "unsqueeze", "expand", "T"]))
        nd = len(shp)
        if kind == "transpose" and nd >= 2:
            d0, d1 = draw(st.integers(0, nd - 1)), draw(st.integers(0, nd - 1))
            shp[d0], shp[d1] = shp[d1], shp[d0]
            ops.append(("transpose", d0, d1))
        elif kind == "permute" and nd >= 2:
            perm = tuple(draw(st.permutations(range(nd))))
            shp = [shp[p] for p in perm]
            ops.append(("permute", perm))
        elif kind == "T" and nd >= 2:
            shp = shp[::-1]
            ops.append(("permute", tuple(range(nd - 1, -1, -1))))
        elif kind == "slice" and nd >= 1 and shp[0] > 0:
            d = draw(st.integers(0, nd - 1))
            start, step = draw(st.integers(0, max(shp[d] - 1, 0))), draw(st.integers(1, 2))
            shp[d] = len(range(start, shp[d], step))
            ops.append(("slice", d, start, step))
        elif kind == "select" and nd >= 1 and shp[0] > 0:
            d = draw(st.integers(0, nd - 1))
            ops.append(("select", d, draw(st.integers(0, shp[d] - 1))))
            del shp[d]
        elif kind == "unsqueeze" and nd < 4:
            d = draw(st.integers(0, nd))
            shp.insert(d, 1)
            ops.append(("unsqueeze", d))
        elif kind == "expand" and nd < 4:
            ones = [d for d in range(nd) if shp[d] == 1]
            if ones:
                shp[draw(st.sampled_from(ones))] = draw(st.integers(2, 3))
            else:
                shp = [2] + shp
            ops.append(("expand", tuple(shp)))
    return ops


def apply_views(x, ops):
    for op in ops:
        if op[0] == "transpose":
            x = x.transpose(op[1], op[2])
        elif op[0] == "permute":
            x = x.permute(*op[1])
        elif op[0] == "slice":
            x = x[(slice(None),) * op[1] + (slice(op[2], None, op[3]),)]
        elif op[0] == "select":
            x = x.select(op[1], op[2])
        elif op[0] == "unsqueeze":
            x = x.unsqueeze(op[1])
        elif op[0] == "expand":
            x = x.expand(*op[1])
    return x


# ---- elementwise binary ----------------------------------------------------------------

_BINARY = {
    "add": (lambda a, b: a + b, "any", "any"),
    "sub": (lambda a, b: a - b, "any", "any"),
    "mul": (lambda a, b: a * b, "any", "any"),
    "div": (lambda a, b: a / b, "any", "nz"),
    "pow": (lambda a, b: a**b, "pos", "any"),
    "maximum": (lambda a, b: a.maximum(b), "any", "any"),
    "minimum": (lambda a, b: a.minimum(b), "any", "any"),
    "remainder": (lambda a, b: a.remainder(b), "any", "nz"),
}


def _binary_case(name, f, da, db):
    @case(f"binary_{name}")
    def build(draw):
        sa, sb = broadcast_pair(draw)
        return [values(draw, sa, da), values(draw, sb, db)], lambda L, a, b: f(a, b)

    # One operand a constant (no grad), the other through a view chain.
    @case(f"binary_{name}_view_and_const")
    def build_view(draw):
        sa = shape(draw, 1, 3)
        chain = view_chain(draw, sa)
        const = values(draw, sa, db)
        return [values(draw, sa, da)], lambda L, a: f(apply_views(a, chain), apply_views(L.tensor(const), chain))


for _n, (_f, _da, _db) in _BINARY.items():
    _binary_case(_n, _f, _da, _db)

# Python numbers on either side.
_SCALAR = {
    "add_scalar": (lambda x: x + 2.5, "any"),
    "radd_scalar": (lambda x: 2.5 + x, "any"),
    "rsub_scalar": (lambda x: 1.5 - x, "any"),
    "mul_scalar": (lambda x: x * -3.0, "any"),
    "div_scalar": (lambda x: x / 4.0, "any"),
    "rdiv_scalar": (lambda x: 3.0 / x, "nz"),
    "pow_scalar": (lambda x: x**2.5, "pos"),
    "pow_int_scalar": (lambda x: x**3, "any"),
    "rpow_scalar": (lambda x: 2.0**x, "any"),
    "remainder_scalar": (lambda x: x % 1.5, "any"),
    "rremainder_scalar": (lambda x: 7.0 % x, "nz"),
}
for _n, (_f, _d) in _SCALAR.items():
    (lambda f, d: case(_n)(lambda draw: ([values(draw, shape(draw), d)], lambda L, x: f(x)))) (_f, _d)


# ---- elementwise unary ---------------------------------------------------------------

_UNARY = {
    "exp": (lambda L, x: x.exp(), "any"),
    "log": (lambda L, x: x.log(), "pos"),
    "log1p": (lambda L, x: x.log1p(), "pos"),
    "expm1": (lambda L, x: x.expm1(), "any"),
    "sqrt": (lambda L, x: x.sqrt(), "pos"),
    "rsqrt": (lambda L, x: x.rsqrt(), "pos"),
    "sin": (lambda L, x: x.sin(), "any"),
    "cos": (lambda L, x: x.cos(), "any"),
    "tanh": (lambda L, x: x.tanh(), "any"),
    "sigmoid": (lambda L, x: x.sigmoid(), "any"),
    "relu": (lambda L, x: x.relu(), "nz"),
    "gelu": (lambda L, x: L.gelu(x), "any"),
    "gelu_tanh": (lambda L, x: L.gelu(x, approximate="tanh"), "any"),
    "silu": (lambda L, x: L.silu(x), "any"),
    "softplus": (lambda L, x: L.softplus(x), "any"),
    "softplus_beta_threshold": (lambda L, x: L.softplus(x * 3.0, beta=2.0, threshold=1.0), "nz"),
    "leaky_relu": (lambda L, x: L.leaky_relu(x, 0.1), "nz"),
    "elu": (lambda L, x: L.elu(x * 3.0, 1.5), "nz"),
    "abs": (lambda L, x: x.abs(), "nz"),
    "neg": (lambda L, x: -x, "any"),
    "reciprocal": (lambda L, x: x.reciprocal(), "nz"),
    "square": (lambda L, x: x.square(), "any"),
    "clamp": (lambda L, x: x.clamp(-0.5, 0.7), "any"),
    "clamp_min": (lambda L, x: x.clamp(min=0.2), "any"),
    "clamp_max": (lambda L, x: x.clamp(max=-0.1), "any"),
    "sign_floor_zero_grad": (lambda L, x: x.sign() + x.floor() * x, "nz"),
}
for _n, (_f, _d) in _UNARY.items():
    (lambda f, d: case(f"unary_{_n}")(lambda draw: ([values(draw, shape(draw), d)], f)))(_f, _d)


@case("unary_exp_log_through_views")
def _unary_views(draw):
    shp = shape(draw, 1, 3)
    chain = view_chain(draw, shp)
    return [values(draw, shp, "pos")], lambda L, x: apply_views(x, chain).log().tanh() * apply_views(x, chain)


@case("clamp_tensor_bounds")
def _clamp_tensor(draw):
    shp = shape(draw, 1, 2)
    lo, hi = values(draw, shp) - 1.0, values(draw, shp) + 1.0
    return [values(draw, shp)], lambda L, x: x.clamp(L.tensor(lo), L.tensor(hi))


@case("where")
def _where(draw):
    sa, sb = broadcast_pair(draw)
    cond = values(draw, sa) > 0
    return [values(draw, sa), values(draw, sb)], lambda L, a, b: L.where(L.tensor(cond), a, b)


@case("masked_fill")
def _masked_fill(draw):
    shp = shape(draw, 1, 3)
    mask = values(draw, shp[-1:]) > 0  # broadcast along the leading dims
    return [values(draw, shp)], lambda L, x: (x * 2).masked_fill(L.tensor(mask), 0.5)


# ---- reductions ------------------------------------------------------------------------


def _dims(draw, nd):
    """None (all), one dim or a list of dims, and keepdim."""
    kind = draw(st.sampled_from(["all", "one", "list"])) if nd else "all"
    if kind == "all":
        return None, draw(st.booleans())
    if kind == "one":
        return draw(st.integers(-nd, nd - 1)), draw(st.booleans())
    dims = sorted(draw(st.sets(st.integers(0, nd - 1), min_size=1, max_size=nd)))
    return dims, draw(st.booleans())


def _reduction(name, call, domain="any", min_dims=0):
    @case(f"reduce_{name}")
    def build(draw):
        shp = shape(draw, min_dims, 3)
        dim, keep = _dims(draw, len(shp))
        return [values(draw, shp, domain)], lambda L, x: call(x, dim, keep)

    return build


_reduction("sum", lambda x, d, k: x.sum() if d is None and not k else x.sum(d if d is not None else tuple(range(x.ndim)), keepdim=k))
_reduction("mean", lambda x, d, k: x.mean() if d is None and not k else x.mean(d if d is not None else tuple(range(x.ndim)), keepdim=k))
_reduction("amax", lambda x, d, k: x.amax() if d is None and not k else x.amax(d if d is not None else tuple(range(x.ndim)), keepdim=k))
_reduction("amin", lambda x, d, k: x.amin() if d is None and not k else x.amin(d if d is not None else tuple(range(x.ndim)), keepdim=k))


@case("reduce_prod")
def _prod(draw):
    shp = shape(draw, 0, 3)
    x = values(draw, shp)
    # Zeros: none, one, or several (the formula has three regimes).
    zeros = draw(st.integers(0, min(3, x.size)))
    flat = x.reshape(-1)
    flat[draw(st.permutations(range(x.size)))[:zeros]] = 0.0
    dim = draw(st.one_of(st.none(), st.integers(-len(shp), len(shp) - 1))) if shp else None
    keep = draw(st.booleans())
    return [x], lambda L, t: t.prod() if dim is None else t.prod(dim, keepdim=keep)


@case("max_dim_values")
def _max_dim(draw):
    shp = shape(draw, 1, 3)
    dim, keep = draw(st.integers(-len(shp), len(shp) - 1)), draw(st.booleans())
    return [values(draw, shp)], lambda L, x: x.max(dim, keepdim=keep).values


@case("min_dim_values")
def _min_dim(draw):
    shp = shape(draw, 1, 3)
    dim, keep = draw(st.integers(-len(shp), len(shp) - 1)), draw(st.booleans())
    return [values(draw, shp)], lambda L, x: x.min(dim, keepdim=keep).values


@case("var")
def _var(draw):
    shp = shape(draw, 1, 3, min_side=2)
    dim, keep = _dims(draw, len(shp))
    corr = draw(st.sampled_from([0, 1]))
    return [values(draw, shp)], lambda L, x: x.var(dim, correction=corr, keepdim=keep)


@case("std")
def _std(draw):
    shp = shape(draw, 1, 3, min_side=2)
    dim = draw(st.integers(0, len(shp) - 1))
    return [values(draw, shp)], lambda L, x: x.std(dim)


@case("logsumexp")
def _logsumexp(draw):
    shp = shape(draw, 1, 3)
    dim, keep = draw(st.integers(-len(shp), len(shp) - 1)), draw(st.booleans())
    return [values(draw, shp) * 3], lambda L, x: x.logsumexp(dim, keepdim=keep)


@case("softmax")
def _softmax(draw):
    shp = shape(draw, 1, 3)
    dim = draw(st.integers(-len(shp), len(shp) - 1))
    return [values(draw, shp)], lambda L, x: x.softmax(dim)


@case("log_softmax")
def _log_softmax(draw):
    shp = shape(draw, 1, 3)
    dim = draw(st.integers(-len(shp), len(shp) - 1))
    return [values(draw, shp)], lambda L, x: x.log_softmax(dim)


@case("cumsum")
def _cumsum(draw):
    shp = shape(draw, 1, 3)
    dim = draw(st.integers(-len(shp), len(shp) - 1))
    return [values(draw, shp)], lambda L, x: x.cumsum(dim)


# ---- matmul -------------------------------------------------------------------------------


@case("matmul")
def _matmul(draw):
    m, k, n = (draw(st.integers(1, 3)) for _ in range(3))
    form = draw(st.sampled_from(["1d1d", "1d2d", "2d1d", "2d2d", "3d3d", "broadcast", "3d1d", "1d3d", "4d2d"]))
    a_shape, b_shape = {
        "1d1d": ((k,), (k,)),
        "1d2d": ((k,), (k, n)),
        "2d1d": ((m, k), (k,)),
        "2d2d": ((m, k), (k, n)),
        "3d3d": ((2, m, k), (2, k, n)),
        "broadcast": ((2, 1, m, k), (3, k, n)),
        "3d1d": ((2, m, k), (k,)),
        "1d3d": ((k,), (2, k, n)),
        "4d2d": ((2, 2, m, k), (k, n)),
    }[form]
    return [values(draw, a_shape), values(draw, b_shape)], lambda L, a, b: a @ b


@case("matmul_transposed_operands")
def _matmul_t(draw):
    m, k, n = (draw(st.integers(1, 3)) for _ in range(3))
    # a stored as (k, m) and b as (n, k): both operands are transposed views.
    return [values(draw, (k, m)), values(draw, (2, n, k))], lambda L, a, b: a.transpose(0, 1) @ b.transpose(-1, -2)


@case("mm_bmm")
def _mm_bmm(draw):
    m, k, n = (draw(st.integers(1, 3)) for _ in range(3))
    return ([values(draw, (m, k)), values(draw, (k, n)), values(draw, (2, m, k))],
            lambda L, a, b, c: a.mm(b).sum() + c.bmm(b.unsqueeze(0).expand(2, k, n)))


@case("fused_linear")
def _linear(draw):
    # The fused Linear op of the core (one GEMM with bias and optional ReLU, one node).
    n, k, m = (draw(st.integers(1, 4)) for _ in range(3))
    lead = draw(st.sampled_from([(), (2,)]))
    bias, relu = draw(st.booleans()), draw(st.booleans())
    arrays = [values(draw, lead + (n, k)), values(draw, (m, k))] + ([values(draw, (m,))] if bias else [])
    return arrays, lambda L, x, w, *b: L.linear(x, w, b[0] if b else None, relu=relu)


@case("fused_linear_transposed_input")
def _linear_t(draw):
    n, k, m = (draw(st.integers(1, 4)) for _ in range(3))
    return ([values(draw, (k, n)), values(draw, (m, k)), values(draw, (m,))],
            lambda L, x, w, b: L.linear(x.transpose(0, 1), w, b))


# ---- views ----------------------------------------------------------------------------------


@case("view_chain")
def _view_chain(draw):
    shp = shape(draw, 1, 3)
    chain = view_chain(draw, shp, max_steps=4)
    # Multiplying by weights makes every element's gradient distinct.
    return [values(draw, shp)], lambda L, x: apply_views(x, chain) * 1.5


_VIEWS = {
    "transpose": ((2, 3, 2), lambda x: x.transpose(0, 2)),
    "permute": ((2, 3, 2), lambda x: x.permute(1, 2, 0)),
    "slice_steps": ((5, 4), lambda x: x[1::2, ::3]),
    "select": ((3, 4), lambda x: x.select(1, -1)),
    "int_index": ((3, 4), lambda x: x[1] * x[:, 2].sum()),
    "expand": ((3, 1), lambda x: x.expand(2, 3, 4)),
    "as_strided": ((3, 4), lambda x: x.as_strided((2, 2), (4, 1), 1)),
    "as_strided_overlapping": ((6,), lambda x: x.as_strided((3, 3), (1, 1))),
    "as_strided_of_view": ((4, 4), lambda x: x[1:].as_strided((2, 3), (2, 1), 5)),
    "reshape": ((2, 6), lambda x: x.reshape(3, 4)),
    "reshape_noncontiguous": ((3, 4), lambda x: x.transpose(0, 1).reshape(-1)),
    "view": ((2, 6), lambda x: x.view(4, 3)),
    "squeeze_unsqueeze": ((3, 1, 2), lambda x: x.squeeze(1).unsqueeze(0).squeeze()),
    "flatten_unflatten": ((2, 3, 2), lambda x: x.flatten(1).unflatten(1, (2, 3))),
    "narrow": ((4, 3), lambda x: x.narrow(0, 1, 2)),
    "diagonal": ((3, 4), lambda x: x.diagonal()),
    "diagonal_offset": ((2, 3, 4), lambda x: x.diagonal(1, 1, 2)),
    "split": ((5, 2), lambda x: tuple(x.split(2))),
    "split_sizes_unused_part": ((5, 2), lambda x: x.split([1, 3, 1])[1]),
    "chunk": ((2, 5), lambda x: tuple(x.chunk(2, 1))),
    "unbind": ((3, 2), lambda x: x.unbind(0)[0] * x.unbind(0)[2]),
    "mT_contiguous": ((2, 3, 2), lambda x: x.transpose(-1, -2).contiguous() * 2),
}
for _n, (_s, _f) in _VIEWS.items():
    (lambda s, f: case(f"view_{_n}")(lambda draw: ([values(draw, s)], lambda L, x: f(x))))(_s, _f)


# ---- indexing, joining ------------------------------------------------------------------------


@case("gather")
def _gather(draw):
    shp = shape(draw, 1, 3)
    dim = draw(st.integers(0, len(shp) - 1))
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    idx_shape = list(shp)
    idx_shape[dim] = draw(st.integers(1, 4))  # repeated indices when larger than the dim
    idx = rng.integers(0, shp[dim], size=idx_shape)
    return [values(draw, shp)], lambda L, x: x.gather(dim, L.tensor(idx))


@case("index_select")
def _index_select(draw):
    shp = shape(draw, 1, 3)
    dim = draw(st.integers(0, len(shp) - 1))
    idx = np.array(draw(st.lists(st.integers(0, shp[dim] - 1), min_size=1, max_size=4)), dtype=np.int64)
    return [values(draw, shp)], lambda L, x: x.index_select(dim, L.tensor(idx))


@case("advanced_index_repeated")
def _adv_index(draw):
    shp = shape(draw, 1, 3)
    idx = np.array(draw(st.lists(st.integers(-shp[0], shp[0] - 1), min_size=1, max_size=5)), dtype=np.int64)
    return [values(draw, shp)], lambda L, x: x[L.tensor(idx)]


@case("advanced_index_two_tensors")
def _adv_index2(draw):
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    i, j = rng.integers(0, 3, size=(2, 2)), rng.integers(0, 4, size=(2,))
    form = draw(st.sampled_from(["both", "rest_between", "slice_first"]))
    if form == "both":
        return [values(draw, (3, 4, 2))], lambda L, x: x[L.tensor(i), L.tensor(j)]
    if form == "rest_between":
        return [values(draw, (3, 2, 4))], lambda L, x: x[L.tensor(i), :, L.tensor(j)]
    return [values(draw, (2, 3, 4))], lambda L, x: x[:, L.tensor(i)]


@case("boolean_mask")
def _bool_mask(draw):
    shp = shape(draw, 1, 3)
    mask = values(draw, shp) > 0
    return [values(draw, shp)], lambda L, x: x[L.tensor(mask)] * 2


@case("index_assignment")
def _index_assign(draw):
    idx = np.array(draw(st.lists(st.integers(0, 3), min_size=1, max_size=3, unique=True)), dtype=np.int64)

    def fn(L, x, v):
        y = x * 1
        y[L.tensor(idx)] = v  # v broadcasts over the selected rows
        return y

    return [values(draw, (4, 3)), values(draw, (3,))], fn


@case("index_put_accumulate")
def _index_put_acc(draw):
    idx = np.array(draw(st.lists(st.integers(0, 3), min_size=1, max_size=5)), dtype=np.int64)

    def fn(L, x, v):
        y = x * 1
        y.index_put_((L.tensor(idx),), v, accumulate=True)
        return y

    return [values(draw, (4, 2)), values(draw, (len(idx), 2))], fn


@case("scatter_and_scatter_add")
def _scatter(draw):
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    idx = np.stack([rng.permutation(4)[:3] for _ in range(2)], axis=1)  # (3, 2), distinct per column
    idx_add = rng.integers(0, 4, size=(3, 2))
    return ([values(draw, (4, 2)), values(draw, (3, 2))],
            lambda L, x, s: (x.scatter(0, L.tensor(idx), s), x.scatter_add(0, L.tensor(idx_add), s * s)))


@case("cat")
def _cat(draw):
    dim = draw(st.integers(0, 1))
    sizes = [draw(st.integers(1, 3)) for _ in range(3)]
    shapes = [(s, 2) if dim == 0 else (2, s) for s in sizes]
    return [values(draw, s) for s in shapes], lambda L, a, b, c: L.cat([a, b * b, c], dim)


@case("stack")
def _stack(draw):
    shp = shape(draw, 0, 2)
    dim = draw(st.integers(-len(shp) - 1, len(shp)))
    return [values(draw, shp), values(draw, shp)], lambda L, a, b: L.stack([a, b.exp(), a], dim)


# ---- in-place ops on non-leaf tensors ------------------------------------------------------------


@case("inplace_chain")
def _inplace(draw):
    shp = shape(draw, 1, 2)

    def fn(L, x, z):
        y = x * 1
        y.add_(z)
        y.mul_(2)
        y.sub_(x)
        y.div_(z.exp())
        return y

    return [values(draw, shp), values(draw, shp)], fn


@case("inplace_unary_and_clamp")
def _inplace_unary(draw):
    shp = shape(draw, 1, 2)

    def fn(L, x):
        y = x * 1
        y.exp_()  # saves its result, so y is not modified again below (torch would refuse)
        z = y * 1
        z.clamp_(0.5, 2.0)
        z.sqrt_()  # sqrt_ and relu_ save their results: each is the last in-place op on its tensor
        w = x * 1
        w.relu_()
        return z * y + w

    return [values(draw, shp)], fn


@case("inplace_copy_fill_masked_fill")
def _inplace_copy(draw):
    shp = shape(draw, 1, 2)
    mask = values(draw, shp) > 0

    def fn(L, x, z):
        y = x * 1
        y.copy_(z * z)
        w = x * 1
        w.masked_fill_(L.tensor(mask), 3.0)
        v = x * 1
        v.zero_()  # overwritten by a constant: no gradient flows
        return y + w + v

    return [values(draw, shp), values(draw, shp)], fn
