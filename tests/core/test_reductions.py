"""Reductions over one, several or all dims, keepdim, and numerical stability."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import aakaar
from core_helpers import DTYPES, FLOAT_DTYPES, arrays, assert_matches, to_np, view_chains


def draw_dims(data, ndim):
    """None (all dims), one int dim (maybe negative), or a tuple of distinct dims."""
    if ndim == 0:
        return data.draw(st.sampled_from([None, 0, -1, ()]))
    kind = data.draw(st.sampled_from(["all", "one", "several"]))
    if kind == "all":
        return None
    if kind == "one":
        return data.draw(st.integers(-ndim, ndim - 1))
    dims = data.draw(st.lists(st.integers(0, ndim - 1), min_size=1, max_size=ndim, unique=True))
    return tuple(d - ndim if data.draw(st.booleans()) else d for d in dims)


def np_axis(dims, ndim):
    if dims is None or dims == ():
        return None
    return dims if isinstance(dims, int) or ndim > 0 else None


def sum_dtype(a):
    return a.dtype if a.dtype.kind == "f" else np.int64


@given(chain=view_chains(max_dims=4), data=st.data(), keepdim=st.booleans())
def test_sum_prod_all_any_match_numpy(chain, data, keepdim):
    a, t, _ = chain
    dims = draw_dims(data, a.ndim)
    axis = np_axis(dims, a.ndim)
    kw = dict(axis=axis, keepdims=keepdim) if a.ndim else dict(keepdims=False)
    tol = 1e-4 if a.dtype == np.float32 else 1e-10
    assert_matches(t.sum(dims, keepdim), np.sum(a, dtype=sum_dtype(a), **kw), rtol=tol)
    small = a if a.dtype.kind == "f" else (a % 3).astype(a.dtype)  # keep int products small
    ts = t if a.dtype.kind == "f" else aakaar.from_numpy(np.array(small))  # (ascontiguousarray makes 0-d 1-d)
    assert_matches(ts.prod(dims, keepdim), np.prod(small, dtype=sum_dtype(a), **kw), rtol=tol)
    # torch's legacy rule, unlike numpy's: all/any of uint8 are uint8
    as_input = (lambda r: np.asarray(r).astype(np.uint8)) if a.dtype == np.uint8 else np.asarray
    assert_matches(t.all(dims, keepdim), as_input(np.all(a, **kw)))
    assert_matches(t.any(dims, keepdim), as_input(np.any(a, **kw)))


@given(chain=view_chains(max_dims=4), data=st.data(), keepdim=st.booleans())
def test_amax_amin_match_numpy(chain, data, keepdim):
    a, t, _ = chain
    dims = draw_dims(data, a.ndim)
    axis = np_axis(dims, a.ndim)
    kw = dict(axis=axis, keepdims=keepdim) if a.ndim else {}
    try:
        ref_max, ref_min = np.max(a, **kw), np.min(a, **kw)
    except ValueError:  # zero-size reduction: max/min have no identity
        # an IndexError for a named dim, a RuntimeError for the whole tensor, as torch
        with pytest.raises((RuntimeError, IndexError), match="zero-size"):
            t.amax(dims, keepdim)
        return
    assert_matches(t.amax(dims, keepdim), ref_max)
    assert_matches(t.amin(dims, keepdim), ref_min)
    if dims is None:
        assert_matches(t.max(), np.max(a))
        assert_matches(t.min(), np.min(a))


@given(chain=view_chains(dtype=aakaar.float64, max_dims=4), data=st.data(), keepdim=st.booleans(),
       correction=st.sampled_from([0, 1, 2]))
def test_mean_var_std_match_numpy(chain, data, keepdim, correction):
    a, t, _ = chain
    dims = draw_dims(data, a.ndim)
    axis = np_axis(dims, a.ndim)
    kw = dict(axis=axis, keepdims=keepdim) if a.ndim else {}
    with np.errstate(all="ignore"):
        import warnings
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            m = np.mean(a, **kw)
            v = np.var(a, ddof=correction, **kw)
            s = np.std(a, ddof=correction, **kw)
    assert_matches(t.mean(dims, keepdim), m)
    n = a.size if axis is None or a.ndim == 0 else int(np.prod([a.shape[d] for d in np.atleast_1d(axis)]))
    if n - correction > 0:  # otherwise numpy and torch disagree about inf vs nan
        assert_matches(t.var(dims, correction=correction, keepdim=keepdim), v)
        assert_matches(t.std(dims, correction=correction, keepdim=keepdim), s)


@pytest.mark.parametrize("dt", DTYPES)
def test_max_min_with_dim_return_values_and_indices(dt, rng):
    from core_helpers import random_array
    a = random_array(rng, (4, 5, 3), dt)
    t = aakaar.from_numpy(a.copy())
    # torch's argmax/argmin refuse bool (max/min with a dim take it)
    argmax = (lambda *args: t.int().argmax(*args)) if dt == aakaar.bool else t.argmax
    argmin = (lambda *args: t.int().argmin(*args)) if dt == aakaar.bool else t.argmin
    if dt == aakaar.bool:
        with pytest.raises(RuntimeError, match="bool"):
            t.argmax()
    for dim in range(-3, 3):
        for keepdim in (False, True):
            v, i = t.max(dim, keepdim)
            assert_matches(v, np.max(a, axis=dim, keepdims=keepdim))
            assert_matches(i, np.argmax(a, axis=dim, keepdims=keepdim))
            assert_matches(argmax(dim, keepdim), np.argmax(a, axis=dim, keepdims=keepdim))
            v, i = t.min(dim=dim, keepdim=keepdim)
            assert_matches(v, np.min(a, axis=dim, keepdims=keepdim))
            assert_matches(i, np.argmin(a, axis=dim, keepdims=keepdim))
            assert_matches(argmin(dim, keepdim), np.argmin(a, axis=dim, keepdims=keepdim))
    assert_matches(argmax(), np.argmax(a))
    assert_matches(argmin(), np.argmin(a))
    assert argmax(None, True).shape == (1, 1, 1)
    mx = t.max(1)
    assert mx.values.shape == (4, 3) and mx.indices.dtype == aakaar.int64


def test_arg_reductions_ties_and_nan_follow_torch():
    t = aakaar.tensor([1.0, 3.0, 3.0, 0.0])
    assert t.argmax().item() == 1  # first of the ties
    assert t.argmin().item() == 3
    n = aakaar.tensor([1.0, float("nan"), 5.0, float("nan")])
    assert n.argmax().item() == 1 and n.argmin().item() == 1  # NaN wins
    assert math.isnan(n.amax().item()) and math.isnan(n.amin().item())
    assert math.isnan(n.max(0).values.item())


@given(chain=view_chains(dtype=aakaar.float64, max_dims=4), data=st.data())
def test_cumsum_matches_numpy(chain, data):
    a, t, _ = chain
    if a.ndim == 0:
        assert_matches(t.cumsum(0), a)
        return
    dim = data.draw(st.integers(-a.ndim, a.ndim - 1))
    assert_matches(t.cumsum(dim), np.cumsum(a, axis=dim))


def test_cumsum_dtypes():
    assert aakaar.tensor([True, True, False]).cumsum(0).tolist() == [1, 2, 2]
    assert aakaar.tensor([True, True]).cumsum(0).dtype == aakaar.int64
    assert aakaar.tensor([200, 100], dtype=aakaar.uint8).cumsum(0).tolist() == [200, 300]
    assert aakaar.tensor([1.5, 2.0]).cumsum(0).dtype == aakaar.float32


def np_softmax(a, axis):
    m = np.max(a, axis=axis, keepdims=True)
    e = np.exp(a - m)
    return e / e.sum(axis=axis, keepdims=True)


def np_logsumexp(a, axis, keepdims=False):
    m = np.max(a, axis=axis, keepdims=True)
    m = np.where(np.isfinite(m), m, 0)
    r = np.log(np.sum(np.exp(a - m), axis=axis, keepdims=True)) + m
    return r if keepdims else np.squeeze(r, axis=axis)


@given(chain=view_chains(dtype=aakaar.float64, max_dims=4, min_side=1), data=st.data(),
       scale=st.sampled_from([1.0, 1e3, 1e300]))
def test_softmax_logsumexp_are_stable(chain, data, scale):
    a, t, _ = chain
    if a.ndim == 0 or a.size == 0:
        return
    a = a * scale
    t = t * scale
    dim = data.draw(st.integers(-a.ndim, a.ndim - 1))
    with np.errstate(all="ignore"):
        ref_sm = np_softmax(a, dim)
        ref_lse = np_logsumexp(a, dim)
        shifted = a - np.max(a, axis=dim, keepdims=True)  # log_softmax without adding back the max
        ref_lsm = shifted - np.log(np.sum(np.exp(shifted), axis=dim, keepdims=True))
    sm = t.softmax(dim)
    assert np.isfinite(to_np(sm)).all()
    assert_matches(sm, ref_sm, rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(to_np(sm).sum(axis=dim), 1.0, rtol=1e-12)
    assert_matches(t.log_softmax(dim), ref_lsm, rtol=1e-9, atol=1e-12)
    assert_matches(t.logsumexp(dim), ref_lse, rtol=1e-9)
    assert_matches(t.logsumexp(dim, keepdim=True), np.expand_dims(ref_lse, dim), rtol=1e-9)


def test_softmax_logsumexp_large_values_float32(torch):
    x = np.array([[1000.0, 1001.0, 1002.0], [-1000.0, -1000.0, -1e4], [88.0, 89.0, 90.0]], dtype=np.float32)
    t, r = aakaar.from_numpy(x), torch.from_numpy(x)
    np.testing.assert_allclose(to_np(t.softmax(1)), torch.softmax(r, 1).numpy(), rtol=1e-6)
    np.testing.assert_allclose(to_np(t.log_softmax(1)), torch.log_softmax(r, 1).numpy(), rtol=1e-6)
    np.testing.assert_allclose(to_np(t.logsumexp(1)), torch.logsumexp(r, 1).numpy(), rtol=1e-6)
    np.testing.assert_allclose(to_np(t.logsumexp((0, 1))), torch.logsumexp(r, (0, 1)).numpy(), rtol=1e-6)
    inf = float("inf")
    y = aakaar.tensor([[-inf, -inf], [-inf, 0.0], [inf, 1.0]])
    ry = torch.tensor([[-inf, -inf], [-inf, 0.0], [inf, 1.0]])
    np.testing.assert_array_equal(to_np(y.logsumexp(1)), torch.logsumexp(ry, 1).numpy())
    np.testing.assert_allclose(to_np(y.softmax(1))[1], [0.0, 1.0])
    # an empty reduction: log of an empty sum is -inf
    np.testing.assert_array_equal(to_np(aakaar.zeros(2, 0).logsumexp(1)), torch.zeros(2, 0).logsumexp(1).numpy())
    # softmax of ints computes in float32
    assert aakaar.tensor([1, 2]).softmax(0).dtype == aakaar.float32


def test_float32_sum_accuracy():
    # 10^6 copies of 0.1: naive float32 accumulation drifts by ~1%; blocks keep it tight
    n = 1_000_000
    s = aakaar.full((n,), 0.1).sum().item()
    assert abs(s - n * np.float64(np.float32(0.1))) / (n * 0.1) < 2e-6
    x = np.random.default_rng(0).standard_normal(3_000_001).astype(np.float32)
    t = aakaar.from_numpy(x)
    assert abs(t.sum().item() - x.astype(np.float64).sum()) < 1e-2
    assert abs(t.mean().item() - x.astype(np.float64).mean()) < 1e-8 + 1e-6


def test_var_is_stable_with_large_mean():
    x = 1e8 + np.random.default_rng(1).standard_normal(10000)
    t = aakaar.tensor(x, dtype=aakaar.float64)
    np.testing.assert_allclose(t.var().item(), np.var(x, ddof=1), rtol=1e-8)


def test_reduction_dtypes_match_torch(torch):
    tmap = {aakaar.bool: torch.bool, aakaar.uint8: torch.uint8, aakaar.int64: torch.int64,
            aakaar.float32: torch.float32, aakaar.float64: torch.float64}
    for dt in DTYPES:
        t, r = aakaar.ones(2, 3, dtype=dt), torch.ones(2, 3, dtype=tmap[dt])
        for name in ["sum", "prod", "all", "any", "amax", "amin"]:
            if dt == aakaar.uint8 and name in ("all", "any"):
                continue  # documented difference: torch keeps uint8 here (legacy), aakaar returns bool like numpy
            assert tmap[getattr(t, name)().dtype] == getattr(r, name)().dtype, (dt, name)
            assert tmap[getattr(t, name)(1).dtype] == getattr(r, name)(1).dtype, (dt, name)
    assert aakaar.ones(3, dtype=aakaar.uint8).sum(dtype=aakaar.float64).dtype == aakaar.float64


def test_reductions_of_empty_tensors():
    e = aakaar.zeros(0, 3)
    assert e.sum().item() == 0 and e.prod().item() == 1
    assert e.all().item() is True and e.any().item() is False
    assert e.sum(0).tolist() == [0, 0, 0]
    assert e.amax(1).shape == (0,)
    assert math.isnan(e.mean().item())
    with pytest.raises(RuntimeError, match=r"\[0, 3\]"):
        e.amax()
    with pytest.raises(IndexError, match="size 0"):
        e.max(0)
