"""matmul / @ / mm / bmm: 1-D, 2-D, batched with broadcast batch dims,
transposed and non-contiguous operands, float32 and float64."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import aakaar
from core_helpers import FLOAT_DTYPES, np_dtype, to_np

SHAPE_PAIRS = [
    ((3,), (3,)), ((3,), (3, 4)), ((2, 3), (3,)), ((2, 3), (3, 4)), ((5, 2, 3), (3, 4)), ((2, 3), (5, 3, 4)),
    ((5, 2, 3), (5, 3, 4)), ((1, 2, 3), (5, 3, 4)), ((2, 1, 2, 3), (1, 6, 3, 4)), ((3,), (2, 3, 4)),
    ((2, 2, 3), (3,)), ((0, 3), (3, 4)), ((2, 0), (0, 4)), ((2, 3), (3, 0)), ((0, 2, 3), (3, 4)), ((1, 1), (1, 1)),
    ((7, 33), (33, 65)), ((64, 17), (17, 129)),
]


def tol(dt):
    return dict(rtol=1e-4, atol=1e-4) if dt == aakaar.float32 else dict(rtol=1e-11, atol=1e-11)


@pytest.mark.parametrize("dt", FLOAT_DTYPES)
@pytest.mark.parametrize("sa,sb", SHAPE_PAIRS, ids=[f"{a}@{b}" for a, b in SHAPE_PAIRS])
def test_matmul_shapes_match_numpy(sa, sb, dt):
    rng = np.random.default_rng(0)
    a = rng.standard_normal(sa).astype(np_dtype(dt))
    b = rng.standard_normal(sb).astype(np_dtype(dt))
    ta, tb = aakaar.from_numpy(a), aakaar.from_numpy(b)
    ref = a @ b
    for got in (ta @ tb, aakaar.matmul(ta, tb), ta.matmul(tb)):
        assert got.shape == ref.shape and got.dtype == dt
        np.testing.assert_allclose(to_np(got), ref, **tol(dt))


@pytest.mark.parametrize("dt", FLOAT_DTYPES)
def test_mm_bmm(dt):
    rng = np.random.default_rng(1)
    a = rng.standard_normal((4, 6, 5)).astype(np_dtype(dt))
    b = rng.standard_normal((4, 5, 3)).astype(np_dtype(dt))
    np.testing.assert_allclose(to_np(aakaar.bmm(aakaar.from_numpy(a), aakaar.from_numpy(b))), a @ b, **tol(dt))
    np.testing.assert_allclose(to_np(aakaar.from_numpy(a[0]).mm(aakaar.from_numpy(b[0]))), a[0] @ b[0], **tol(dt))
    np.testing.assert_allclose(to_np(aakaar.mm(aakaar.from_numpy(a[1]), aakaar.from_numpy(b[1]))), a[1] @ b[1], **tol(dt))


@given(dt=st.sampled_from(FLOAT_DTYPES), m=st.integers(1, 9), k=st.integers(1, 9), n=st.integers(1, 9),
       batch=st.integers(1, 3), ta_=st.booleans(), tb_=st.booleans(), step=st.integers(1, 2), data=st.data())
def test_matmul_non_contiguous_operands(dt, m, k, n, batch, ta_, tb_, step, data):
    rng = np.random.default_rng(data.draw(st.integers(0, 10**6)))
    # build a (batch, m, k) operand as a transposed and/or strided view
    a_store = rng.standard_normal((batch, k * step, m * step) if ta_ else (batch, m * step, k * step)).astype(np_dtype(dt))
    b_store = rng.standard_normal((batch, n * step, k * step) if tb_ else (batch, k * step, n * step)).astype(np_dtype(dt))
    A, B = aakaar.from_numpy(a_store), aakaar.from_numpy(b_store)
    A, B = A[:, ::step, ::step], B[:, ::step, ::step]
    a_np, b_np = a_store[:, ::step, ::step], b_store[:, ::step, ::step]
    if ta_:
        A, a_np = A.mT, np.swapaxes(a_np, 1, 2)
    if tb_:
        B, b_np = B.transpose(1, 2), np.swapaxes(b_np, 1, 2)
    got = A @ B
    np.testing.assert_allclose(to_np(got), a_np @ b_np, **tol(dt))
    # broadcast a single matrix over the batch
    np.testing.assert_allclose(to_np(A[0] @ B), a_np[0] @ b_np, **tol(dt))
    # an expanded (stride-0) batch operand
    Ae = A[:1].expand(batch, -1, -1)
    np.testing.assert_allclose(to_np(Ae @ B), np.broadcast_to(a_np[:1], a_np.shape) @ b_np, **tol(dt))


def test_matmul_against_torch_larger(torch):
    rng = np.random.default_rng(2)
    for dt, tdt in [(aakaar.float32, torch.float32), (aakaar.float64, torch.float64)]:
        a = rng.standard_normal((3, 70, 130))
        b = rng.standard_normal((130, 90))
        ta, tb = aakaar.tensor(a, dtype=dt), aakaar.tensor(b, dtype=dt)
        ra, rb = torch.tensor(a, dtype=tdt), torch.tensor(b, dtype=tdt)
        np.testing.assert_allclose(to_np(ta @ tb), (ra @ rb).numpy(), **tol(dt))
        np.testing.assert_allclose(to_np(ta.mT.mT @ tb.T.T), (ra @ rb).numpy(), **tol(dt))


def test_matmul_k_zero_gives_zeros():
    out = aakaar.ones(2, 0) @ aakaar.ones(0, 3)
    assert out.tolist() == [[0, 0, 0], [0, 0, 0]]
    assert (aakaar.ones(0) @ aakaar.ones(0)).item() == 0.0
