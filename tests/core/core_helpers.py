"""Shared helpers and hypothesis strategies for the core's tests.

The strategies build *pairs*: a numpy array and an aakaar tensor that went
through the same construction (same data, same chain of views), so a test can
apply one op to both and compare. numpy is the reference for shapes, strides,
broadcasting and promotion; torch (when installed) for torch-only behaviour.
"""

from __future__ import annotations

import os

import numpy as np
import pytest
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st

import aakaar

# A modest profile: the whole tests/core suite must stay fast on 2 shared cores.
settings.register_profile(
    "core", max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)
# A long hunt for bugs: AAKAAR_HYPOTHESIS_PROFILE=fuzz pytest tests/core
settings.register_profile(
    "fuzz", max_examples=1500, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)
settings.load_profile(os.environ.get("AAKAAR_HYPOTHESIS_PROFILE", "core"))

DTYPES = [aakaar.bool, aakaar.uint8, aakaar.int64, aakaar.float32, aakaar.float64]
FLOAT_DTYPES = [aakaar.float32, aakaar.float64]
NP_OF = {
    aakaar.bool: np.bool_,
    aakaar.uint8: np.uint8,
    aakaar.int64: np.int64,
    aakaar.float32: np.float32,
    aakaar.float64: np.float64,
}
AK_OF = {np.dtype(v): k for k, v in NP_OF.items()}


def np_dtype(dt) -> np.dtype:
    return np.dtype(NP_OF[dt])


def to_np(t) -> np.ndarray:
    """A numpy copy of a tensor (through the zero-copy path, then copied)."""
    assert isinstance(t, aakaar.Tensor), f"expected an aakaar.Tensor, got {type(t).__name__}"
    return np.array(t.numpy(), copy=True)


def assert_matches(t, ref, *, rtol=None, atol=None, check_dtype=True):
    """Same shape, same dtype (unless told otherwise) and close values."""
    ref = np.asarray(ref)
    got = to_np(t)
    assert got.shape == ref.shape, f"shape {got.shape} != reference {ref.shape}"
    if check_dtype:
        assert got.dtype == ref.dtype, f"dtype {got.dtype} != reference {ref.dtype}"
    if got.dtype.kind == "f" or ref.dtype.kind == "f":
        if rtol is None:
            rtol = 1e-5 if np.float32 in (got.dtype.type, ref.dtype.type) else 1e-12
        np.testing.assert_allclose(got, ref, rtol=rtol, atol=atol if atol is not None else rtol, equal_nan=True)
    else:
        np.testing.assert_array_equal(got, ref)


def random_array(rng: np.random.Generator, shape, dtype) -> np.ndarray:
    """Values that are interesting but safe for every op (no overflow in int64 sums)."""
    npdt = np_dtype(dtype) if not isinstance(dtype, np.dtype) else dtype
    if npdt == np.bool_:
        vals = rng.random(shape) < 0.5
    elif npdt == np.uint8:
        vals = rng.integers(0, 256, size=shape)
    elif npdt == np.int64:
        vals = rng.integers(-50, 50, size=shape)
    else:
        vals = rng.standard_normal(shape)
    return np.asarray(vals).astype(npdt)  # asarray: a 0-d draw is a numpy scalar


def pair(arr: np.ndarray):
    """(numpy array, aakaar tensor) holding the same values, the tensor with its own memory."""
    arr = np.ascontiguousarray(arr)
    return arr, aakaar.from_numpy(arr.copy())


# ---- hypothesis strategies ----------------------------------------------------

def shapes(min_dims=0, max_dims=5, min_side=0, max_side=4):
    """Shapes 0-d to 5-d, including size-0 and size-1 dims."""
    return st.lists(st.integers(min_side, max_side), min_size=min_dims, max_size=max_dims).map(tuple)


dtypes = st.sampled_from(DTYPES)
float_dtypes = st.sampled_from(FLOAT_DTYPES)


@st.composite
def arrays(draw, dtype=None, shape=None, **shape_kw):
    """A numpy array with random shape/dtype and seeded random values."""
    dt = draw(dtypes) if dtype is None else dtype
    shp = draw(shapes(**shape_kw)) if shape is None else shape
    seed = draw(st.integers(0, 2**32 - 1))
    return random_array(np.random.default_rng(seed), shp, dt)


@st.composite
def view_ops(draw, shape, max_steps=4):
    """A random chain of view ops valid for `shape`, as plain tuples, so the
    same chain can be replayed on numpy, aakaar and torch (apply_views)."""
    ops = []
    shape = list(shape)
    for _ in range(draw(st.integers(0, max_steps))):
        kind = draw(st.sampled_from(["transpose", "permute", "slice", "expand", "select", "unsqueeze", "squeeze", "T"]))
        nd = len(shape)
        if kind == "transpose" and nd >= 1:
            d0, d1 = draw(st.integers(0, nd - 1)), draw(st.integers(0, nd - 1))
            shape[d0], shape[d1] = shape[d1], shape[d0]
            ops.append(("transpose", d0, d1))
        elif kind == "permute" and nd >= 1:
            perm = tuple(draw(st.permutations(range(nd))))
            shape = [shape[p] for p in perm]
            ops.append(("permute", perm))
        elif kind == "T":
            shape = shape[::-1]
            ops.append(("T",))
        elif kind == "slice" and nd >= 1:
            d = draw(st.integers(0, nd - 1))
            n = shape[d]
            start = draw(st.one_of(st.none(), st.integers(-n - 1, n + 1)))
            stop = draw(st.one_of(st.none(), st.integers(-n - 1, n + 1)))
            step = draw(st.integers(1, 3))
            shape[d] = len(range(*slice(start, stop, step).indices(n)))
            ops.append(("slice", d, start, stop, step))
        elif kind == "expand" and nd < 6:
            ones = [d for d in range(nd) if shape[d] == 1]
            if ones:
                shape[draw(st.sampled_from(ones))] = draw(st.integers(0, 3))
            else:
                shape = [draw(st.integers(1, 3))] + shape
            ops.append(("expand", tuple(shape)))
        elif kind == "select" and nd >= 1:
            d = draw(st.integers(0, nd - 1))
            if shape[d] > 0:
                i = draw(st.integers(-shape[d], shape[d] - 1))
                del shape[d]
                ops.append(("select", d, i))
        elif kind == "unsqueeze" and nd < 6:
            d = draw(st.integers(0, nd))
            shape.insert(d, 1)
            ops.append(("unsqueeze", d))
        elif kind == "squeeze":
            shape = [s for s in shape if s != 1]
            ops.append(("squeeze",))
    return ops


def apply_views(x, ops):
    """Replays a chain from view_ops on a numpy array, aakaar tensor or torch tensor."""
    is_np = isinstance(x, np.ndarray)
    for op in ops:
        kind = op[0]
        if kind == "transpose":
            x = np.swapaxes(x, op[1], op[2]) if is_np else x.transpose(op[1], op[2])
        elif kind == "permute":
            x = np.transpose(x, op[1]) if is_np else x.permute(*op[1])
        elif kind == "T":
            x = x.T if is_np else x.permute(tuple(range(x.ndim - 1, -1, -1)))
        elif kind == "slice":
            x = x[(slice(None),) * op[1] + (slice(op[2], op[3], op[4]),)]
        elif kind == "expand":
            x = np.broadcast_to(x, op[1]) if is_np else x.expand(*op[1])
        elif kind == "select":
            x = np.take(x, op[2], axis=op[1]) if is_np else x.select(op[1], op[2])
        elif kind == "unsqueeze":
            x = np.expand_dims(x, op[1]) if is_np else x.unsqueeze(op[1])
        elif kind == "squeeze":
            x = np.squeeze(x) if is_np else x.squeeze()
    return x


@st.composite
def view_chains(draw, dtype=None, max_steps=4, **shape_kw):
    """(numpy view, aakaar view, base tensor): the same random chain of views
    applied to one base array; the aakaar view shares the base's storage."""
    base = draw(arrays(dtype=dtype, **shape_kw))
    ops = draw(view_ops(base.shape, max_steps))
    t = aakaar.from_numpy(base.copy())
    return apply_views(base.copy(), ops), apply_views(t, ops), t


def same_values_as_view(t, a):
    """The aakaar view reads exactly the values numpy's view reads."""
    assert tuple(t.shape) == a.shape
    np.testing.assert_array_equal(to_np(t), a)


@pytest.fixture
def rng():
    return np.random.default_rng(1234)


@pytest.fixture
def torch():
    return pytest.importorskip("torch")


# ---- the same expression in torch and in aakaar -------------------------------------------------

def parity_env(T) -> dict:
    """The names the parity expressions use, built the same way in torch and in aakaar (T):
    0-d tensors (x0; xg0 requires grad; i0/i1/im1 0-d indices), small vectors and matrices, empties."""
    return {
        "T": T,
        "x0": T.tensor(3.0), "xg0": T.tensor(3.0, requires_grad=True), "d0": T.tensor(3.0, dtype=T.float64),
        "i0": T.tensor(0), "i1": T.tensor(1), "im1": T.tensor(-1),
        "x": T.tensor([3.0, 1.0, 2.0]), "xg": T.tensor([3.0, 1.0, 2.0], requires_grad=True),
        "m": T.tensor([[3.0, 1.0, 2.0], [0.0, 5.0, 4.0]]),
        "e0": T.zeros(0), "e03": T.zeros(0, 3), "e20": T.zeros(2, 0), "ie": T.zeros(0, dtype=T.int64),
        # the gradient of out.sum() with respect to inp (a tuple of one tensor)
        "G": lambda out, inp: T.autograd.grad(out.sum(), inp),
    }


def _run(T, expr: str):
    try:
        return "ok", eval(expr, parity_env(T))  # noqa: S307 (test expressions written in this repository)
    except Exception as e:  # noqa: BLE001 (the class is what is compared)
        return "err", e


def _same_result(theirs, ours, expr: str) -> None:
    if isinstance(theirs, (tuple, list)):
        assert isinstance(ours, (tuple, list)) and len(ours) == len(theirs), f"{expr}: {ours!r} vs torch {theirs!r}"
        for t, o in zip(theirs, ours):
            _same_result(t, o, expr)
        return
    if not hasattr(theirs, "shape"):
        assert ours == theirs or (ours != ours and theirs != theirs), f"{expr}: {ours!r} vs torch {theirs!r}"
        return
    assert isinstance(ours, aakaar.Tensor), f"{expr}: got {type(ours).__name__}, torch a tensor"
    assert tuple(ours.shape) == tuple(theirs.shape), f"{expr}: shape {tuple(ours.shape)} vs torch {tuple(theirs.shape)}"
    assert ours.dtype.name == str(theirs.dtype).split(".")[-1], f"{expr}: dtype {ours.dtype} vs torch {theirs.dtype}"
    if ours.dtype == aakaar.bfloat16:  # numpy has no bfloat16: compared as the float32 values they hold
        ours, theirs = ours.float(), theirs.float()
    np.testing.assert_allclose(ours.detach().numpy(), theirs.detach().numpy(), rtol=1e-6, atol=1e-6,
                               equal_nan=True, err_msg=expr)


def assert_same_as_torch(torch, expr: str):
    """``expr`` (over the names of :func:`parity_env`) gives torch's result in aakaar (values, shape,
    dtype; tuples element-wise), or raises an exception of torch's class. Returns aakaar's outcome."""
    (kt, theirs), (ko, ours) = _run(torch, expr), _run(aakaar, expr)
    if kt == "err":
        assert ko == "err", f"{expr}: torch raises {type(theirs).__name__} ({theirs}), aakaar returns {ours!r}"
        assert isinstance(ours, type(theirs)), (f"{expr}: torch raises {type(theirs).__name__} ({theirs}), "
                                                f"aakaar {type(ours).__name__} ({ours})")
        return ours
    assert ko == "ok", f"{expr}: aakaar raises {type(ours).__name__} ({ours}), torch returns {theirs!r}"
    _same_result(theirs, ours, expr)
    return ours
