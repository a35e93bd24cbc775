"""Indexing: basic, advanced (int tensors and bool masks), index assignment,
index_select, gather, scatter/scatter_add, cat, stack, split (see test_views)."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import aakaar
from core_helpers import arrays, assert_matches, random_array, to_np


@pytest.fixture
def grid():
    a = np.arange(3 * 4 * 5, dtype=np.float64).reshape(3, 4, 5)
    return a, aakaar.from_numpy(a.copy())


KEYS = [
    1, -1, (0, 1), (0, 1, 2), (slice(None), 2), (Ellipsis, 3), (None, 1), (1, None, Ellipsis, None),
    slice(1, None), (slice(None, None, 2), slice(-3, None)), (slice(None), slice(None), slice(1, 4, 2)),
    ([0, 2],), ([2, 0, 2],), (slice(None), [1, 3]), ([0, 1], [1, 2]), ([0, 1], slice(None), [1, 2]),
    ([[0], [2]], [[1, 3]]), (Ellipsis, [4, 0]), (1, [0, 3], slice(None, 2)), (slice(None), 1, [0, 4]),
    (np.array([True, False, True]),), (slice(None), np.array([True, False, True, True])),
    (np.array([[True, False, True, False]] * 3),), (1, np.array([False] * 4)),
    (np.array([-1, -3]),), ([0], [[1], [2]], [3]), (None, [1, 2]), ([1, 2], None),
]


@pytest.mark.parametrize("key", KEYS, ids=[repr(k)[:40] for k in KEYS])
def test_getitem_matches_numpy(grid, key):
    a, t = grid
    tkey = tuple(aakaar.from_numpy(k) if isinstance(k, np.ndarray) else k for k in key) if isinstance(key, tuple) else key
    assert_matches(t[tkey], a[key])
    # the same key given with lists/arrays instead of tensors
    assert_matches(t[key], a[key])


@pytest.mark.parametrize("key", KEYS, ids=[repr(k)[:40] for k in KEYS])
def test_setitem_matches_numpy(grid, key):
    a, t = grid
    a = a.copy()
    ref_shape = a[key].shape
    vals = np.asarray(np.arange(int(np.prod(ref_shape)), dtype=np.float64).reshape(ref_shape) + 1000)
    a[key] = vals
    t[key] = aakaar.from_numpy(vals.copy())
    assert_matches(t, a)
    # a broadcast scalar
    a[key] = -5
    t[key] = -5
    assert_matches(t, a)


def test_basic_index_is_a_view_and_advanced_is_a_copy(grid):
    a, t = grid
    v = t[1, :, ::2]
    assert v.untyped_storage_ptr() == t.untyped_storage_ptr()
    c = t[[0, 1]]
    assert c.untyped_storage_ptr() != t.untyped_storage_ptr()
    c.fill_(0)
    assert to_np(t)[0, 0, 1] == 1.0


def test_integer_index_into_0d_and_bool_scalar_index():
    t = aakaar.tensor(5.0)
    assert t[...].shape == ()
    assert t[None].shape == (1,)
    assert t[True].shape == (1,)  # like torch and numpy
    assert t[aakaar.tensor(False)].shape == (0,)
    x = aakaar.zeros(2, 3)
    assert x[True, ..., True].shape == np.zeros((2, 3))[True, ..., True].shape == (1, 2, 3)


@given(arrays(dtype=aakaar.int64, min_dims=1, max_dims=4, min_side=1), st.data())
def test_random_advanced_indexing_matches_torch(a, data):
    # Random mixes of ints, slices, int arrays and masks. torch is the reference:
    # it applies ints before advanced indexing, so x[0, :, [1]] places the
    # indexed dim where numpy (which treats the 0 as advanced too) would not.
    torch = pytest.importorskip("torch")
    nd = a.ndim
    key = []
    for d in range(nd):
        kind = data.draw(st.sampled_from(["slice", "int_array", "int", "mask"]))
        n = a.shape[d]
        if kind == "int_array":
            k = data.draw(st.lists(st.integers(-n, n - 1), min_size=0, max_size=3))
            key.append(np.array(k, dtype=np.int64))
        elif kind == "int":
            key.append(data.draw(st.integers(-n, n - 1)))
        elif kind == "mask":
            key.append(np.array(data.draw(st.lists(st.booleans(), min_size=n, max_size=n)), dtype=bool))
        else:
            key.append(slice(data.draw(st.none() | st.integers(-n, n)), None, data.draw(st.integers(1, 2))))
    key = tuple(key)
    try:
        ref = torch.from_numpy(a)[tuple(torch.from_numpy(k) if isinstance(k, np.ndarray) else k for k in key)].numpy()
    except IndexError:  # index arrays that do not broadcast together
        with pytest.raises((IndexError, ValueError)):
            aakaar.from_numpy(a)[tuple(aakaar.from_numpy(k) if isinstance(k, np.ndarray) else k for k in key)]
        return
    t = aakaar.from_numpy(a.copy())
    tkey = tuple(aakaar.from_numpy(k) if isinstance(k, np.ndarray) else k for k in key)
    assert_matches(t[tkey], ref)


def test_index_put_accumulate_and_duplicates():
    t = aakaar.zeros(5)
    idx = aakaar.tensor([0, 1, 1, 4, 1])
    t.index_put_([idx], aakaar.tensor(1.0), accumulate=True)
    assert t.tolist() == [1, 3, 0, 0, 1]
    t.index_put_([idx], aakaar.tensor([5.0, 6, 7, 8, 9]))
    assert t.tolist()[4] == 8 and t.tolist()[0] == 5
    # masked assignment
    x = aakaar.arange(6.0)
    x[x > 2] = 0
    assert x.tolist() == [0, 1, 2, 0, 0, 0]
    # values from an overlapping view of the same tensor
    y = aakaar.arange(5.0)
    y[aakaar.tensor([1, 2, 3])] = y[:3]
    assert y.tolist() == [0, 0, 1, 2, 4]


def test_index_select(torch):
    a = random_array(np.random.default_rng(0), (4, 5, 6), aakaar.float32)
    t, r = aakaar.from_numpy(a.copy()), torch.from_numpy(a.copy())
    for dim in range(-3, 3):
        for idx in ([0], [3, 0, 3], [], [-1]):
            if -1 in idx:
                with pytest.raises(IndexError, match="-1"):
                    t.index_select(dim, aakaar.tensor(idx))
                continue
            i_t = aakaar.tensor(idx, dtype=aakaar.int64)
            ref = r.index_select(dim, torch.tensor(idx, dtype=torch.int64))
            np.testing.assert_array_equal(to_np(t.index_select(dim, i_t)), ref.numpy())
    # a 0-d tensor gives a 0-d result from exactly one index (torch's rule)
    assert aakaar.tensor(3.0).index_select(0, aakaar.tensor([0])).shape == torch.tensor(3.0).index_select(
        0, torch.tensor([0])).shape == ()
    with pytest.raises(RuntimeError, match="only 1 value"):
        torch.tensor(3.0).index_select(0, torch.tensor([0, 0]))
    with pytest.raises(RuntimeError, match="only 1 value, got 2"):
        aakaar.tensor(3.0).index_select(0, aakaar.tensor([0, 0]))


@given(arrays(dtype=aakaar.float64, min_dims=1, max_dims=4, min_side=1), st.data())
def test_gather_matches_numpy_take_along_axis(a, data):
    dim = data.draw(st.integers(0, a.ndim - 1))
    shape = tuple(data.draw(st.integers(0, a.shape[d])) if d != dim else data.draw(st.integers(0, 4))
                  for d in range(a.ndim))
    seed = data.draw(st.integers(0, 1000))
    idx = np.random.default_rng(seed).integers(0, a.shape[dim], size=shape).astype(np.int64)
    t = aakaar.from_numpy(a.copy())
    got = t.gather(dim, aakaar.from_numpy(idx))
    # take_along_axis needs equal sizes in the other dims: crop the input first
    crop = tuple(slice(0, shape[d]) if d != dim else slice(None) for d in range(a.ndim))
    assert_matches(got, np.take_along_axis(a[crop], idx, axis=dim))
    assert_matches(aakaar.gather(t, dim, aakaar.from_numpy(idx)), np.take_along_axis(a[crop], idx, axis=dim))


def test_scatter_and_scatter_add_match_torch(torch):
    rng = np.random.default_rng(3)
    for dim in (0, 1, -1):
        base = rng.standard_normal((4, 5))
        idx = rng.integers(0, base.shape[dim], size=(3, 4)).astype(np.int64)
        src = rng.standard_normal((3, 5))
        t, r = aakaar.tensor(base, dtype=aakaar.float64), torch.tensor(base)
        ti, ri = aakaar.from_numpy(idx), torch.from_numpy(idx)
        ts, rs = aakaar.tensor(src, dtype=aakaar.float64), torch.tensor(src)
        np.testing.assert_allclose(to_np(t.scatter_add(dim, ti, ts)), r.scatter_add(dim, ri, rs).numpy())
        # scatter with duplicate indices is order-dependent; compare with unique indices per column
        uidx = np.stack([rng.permutation(base.shape[dim])[:3] for _ in range(4)], axis=1 if dim == 0 else 0)
        if dim != 0:
            uidx = np.stack([rng.permutation(base.shape[dim])[:4] for _ in range(3)], axis=0)
        ui, rui = aakaar.from_numpy(uidx.astype(np.int64)), torch.from_numpy(uidx.astype(np.int64))
        np.testing.assert_allclose(to_np(t.scatter(dim, ui, ts)), r.scatter(dim, rui, rs).numpy())
        # in-place versions write into self
        t2 = t.clone()
        assert t2.scatter_add_(dim, ti, ts) is t2
        np.testing.assert_allclose(to_np(t2), r.scatter_add(dim, ri, rs).numpy())
        t3 = t.clone()
        t3.scatter_(dim, ui, ts)
        np.testing.assert_allclose(to_np(t3), r.scatter(dim, rui, rs).numpy())
    # a scalar src
    z = aakaar.zeros(2, 3).scatter(1, aakaar.tensor([[0], [2]]), 7.0)
    assert z.tolist() == [[7, 0, 0], [0, 0, 7]]


def test_masked_fill_where_nonzero():
    t = aakaar.arange(6).reshape(2, 3)
    np.testing.assert_array_equal(to_np(t.nonzero()), np.argwhere(np.arange(6).reshape(2, 3)))
    assert aakaar.zeros(0).nonzero().shape == (0, 1)
    assert t.masked_fill(t % 2 == 0, -1).tolist() == [[-1, 1, -1], [3, -1, 5]]


@given(st.lists(arrays(dtype=aakaar.float32, shape=None, min_dims=1, max_dims=3), min_size=1, max_size=3), st.data())
def test_cat_matches_numpy(parts, data):
    base = parts[0]
    dim = data.draw(st.integers(-base.ndim, base.ndim - 1))
    # make every part match base except along dim
    fixed = []
    for p in parts:
        shape = list(base.shape)
        shape[dim] = data.draw(st.integers(0, 3))
        fixed.append(np.resize(p, shape).astype(np.float32) if p.size else np.zeros(shape, np.float32))
    got = aakaar.cat([aakaar.from_numpy(f) for f in fixed], dim)
    assert_matches(got, np.concatenate(fixed, axis=dim))


def test_cat_promotes_and_stack():
    r = aakaar.cat([aakaar.tensor([1, 2]), aakaar.tensor([0.5])])
    assert r.dtype == aakaar.float32 and r.tolist() == [1.0, 2.0, 0.5]
    assert aakaar.cat([aakaar.zeros(0), aakaar.ones(2, 2)]).shape == (2, 2)  # legacy empty-1-d rule
    a, b = np.arange(6.0).reshape(2, 3), -np.arange(6.0).reshape(2, 3)
    for dim in range(-3, 3):
        assert_matches(aakaar.stack([aakaar.tensor(a, dtype=aakaar.float64), aakaar.tensor(b, dtype=aakaar.float64)], dim),
                       np.stack([a, b], axis=dim))
    # non-contiguous inputs
    t = aakaar.tensor(a, dtype=aakaar.float64)
    assert_matches(aakaar.cat([t.T, t.T], 1), np.concatenate([a.T, a.T], 1))
