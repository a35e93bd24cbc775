"""The composites of aakaar/shape_extras.py against torch: moving, stacking and splitting dims,
grids, scatter-into-a-view, searchsorted and counting, and the small matmul products."""

from __future__ import annotations

import numpy as np
import pytest

import aakaar
from shape_ops_harness import compare, raises_like

torch = pytest.importorskip("torch")

RNG = np.random.default_rng(2)


def rand(*shape):
    return RNG.standard_normal(shape)


def test_moving_and_viewing_dims():
    a = rand(2, 3, 4)
    compare(lambda lib, x: lib.movedim(x, 0, -1), [a])
    compare(lambda lib, x: x.movedim((0, 1), (2, 0)), [a])
    compare(lambda lib, x: lib.moveaxis(x, -1, 0), [a])
    compare(lambda lib, x: lib.swapdims(x, 0, 2), [a])
    compare(lambda lib, x: x.ravel(), [a])
    compare(lambda lib, x: x.narrow_copy(1, 1, 2), [a])
    compare(lambda lib, x, y: x.view_as(y), [a, rand(6, 4)])
    compare(lambda lib, x, y: x.reshape_as(y), [a, rand(4, 6)])
    raises_like(lambda lib, x: lib.movedim(x, (0, 1), (0,)), a)


def test_stacking():
    for fn in ["hstack", "vstack", "dstack", "column_stack", "row_stack"]:
        compare(lambda lib, x, y: getattr(lib, fn)([x, y]), [rand(3), rand(3)])
        compare(lambda lib, x, y: getattr(lib, fn)((x, y)), [rand(2, 3), rand(2, 3)])
    for fn in ["atleast_1d", "atleast_2d", "atleast_3d"]:
        for shape in [(), (3,), (2, 3), (2, 3, 4)]:
            compare(lambda lib, x: getattr(lib, fn)(x), [rand(*shape)])
        compare(lambda lib, x, y: getattr(lib, fn)(x, y), [rand(), rand(3)])


def test_splitting():
    a = rand(7, 6, 4)
    for ios in [3, 7, 1, [1, 4], [2, -1], [0, 9], (5,)]:
        compare(lambda lib, x: lib.tensor_split(x, ios), [a])
        compare(lambda lib, x: x.tensor_split(ios, dim=1), [a])
    compare(lambda lib, x: lib.hsplit(x, 3), [a])
    compare(lambda lib, x: lib.vsplit(x, [2, 3]), [a])
    compare(lambda lib, x: lib.dsplit(x, 2), [a])
    compare(lambda lib, x: x.split_with_sizes([3, 4]), [a])
    raises_like(lambda lib, x: lib.hsplit(x, 4), a)


@pytest.mark.parametrize("k", [-1, 0, 1, 2, 3, 6])
def test_rot90(k):
    compare(lambda lib, x: lib.rot90(x, k), [rand(3, 4)])
    compare(lambda lib, x: x.rot90(k, (2, 0)), [rand(2, 3, 4)])


def test_grids_and_indices():
    a, b, c = rand(3), rand(4), rand(2)
    for indexing in ["ij", "xy"]:
        compare(lambda lib, x, y, z: lib.meshgrid(x, y, z, indexing=indexing), [a, b, c])
        compare(lambda lib, x, y: lib.meshgrid([x, y], indexing=indexing), [a, b])
    compare(lambda lib, x, y: lib.cartesian_prod(x, y), [a, b])
    compare(lambda lib, x, y: lib.broadcast_tensors(x, y), [rand(3, 1), rand(4)])
    for args in [(3, 3), (4, 5, 1), (5, 4, -2)]:
        compare(lambda lib: lib.tril_indices(*args), [], grad=False)
        compare(lambda lib: lib.triu_indices(*args), [], grad=False)
    compare(lambda lib, x, y, z: lib.block_diag(x, y, z), [rand(2, 2), rand(3), rand()])


def test_scatter_into_views():
    a = rand(3, 4, 5)
    compare(lambda lib, x, s: lib.select_scatter(x, s, 1, 2), [a, rand(3, 5)])
    compare(lambda lib, x, s: x.slice_scatter(s, 2, 1, 5, 2), [a, rand(3, 4, 2)])
    compare(lambda lib, x, s: lib.slice_scatter(x, s), [a, rand(3, 4, 5)])
    compare(lambda lib, x, s: lib.diagonal_scatter(x, s, 1, 1, 2), [a, rand(3, 4)])
    compare(lambda lib, x, v: x.index_put((lib.tensor([0, 2]), lib.tensor([1, 1])), v), [a, rand(5)])
    compare(lambda lib, x, v: lib.index_put(x, (lib.tensor([0, 0]),), v, accumulate=True), [a, rand(4, 5)])
    raises_like(lambda lib, x, s: lib.select_scatter(x, s, 1, 2), a, rand(3, 4))


def test_searchsorted_bucketize_counts():
    seq = np.sort(RNG.integers(0, 10, size=12)).astype(np.float64)
    vals = RNG.integers(-1, 12, size=(3, 4)).astype(np.float64)
    for right in [False, True]:
        compare(lambda lib, s, v: lib.searchsorted(s, v, right=right), [seq, vals], grad=False)
        compare(lambda lib, v, s: lib.bucketize(v, s, right=right), [vals, seq], grad=False)
    compare(lambda lib, s, v: lib.searchsorted(s, v, side="right"), [seq, vals], grad=False)
    rows = np.sort(rand(3, 6), axis=1)
    compare(lambda lib, s, v: lib.searchsorted(s, v), [rows, rand(3, 4)], grad=False)
    ints = RNG.integers(0, 6, size=20)
    compare(lambda lib, x: lib.bincount(x), [ints], grad=False)
    compare(lambda lib, x: x.bincount(minlength=9), [ints], grad=False)
    compare(lambda lib, x, w: lib.bincount(x, w), [ints, rand(20)], grad=False)
    compare(lambda lib, x: lib.histc(x, bins=7), [rand(50)], grad=False)
    compare(lambda lib, x: lib.histc(x, bins=4, min=-1, max=1), [rand(50)], grad=False)
    compare(lambda lib, x, t: lib.isin(x, t), [ints, np.array([1, 3])], grad=False)
    compare(lambda lib, x, t: lib.isin(x, t, invert=True), [ints, np.array([1, 3])], grad=False)
    runs = np.array([1, 1, 2, 2, 2, 3, 1, 1])
    compare(lambda lib, x: lib.unique_consecutive(x, return_inverse=True, return_counts=True), [runs], grad=False)
    raises_like(lambda lib, x: lib.bincount(x), rand(3))


def test_nan_reductions_and_sum_to_size():
    a = rand(3, 4)
    a[0, 1] = a[2, 3] = np.nan
    compare(lambda lib, x: lib.nansum(x), [a])
    compare(lambda lib, x: x.nansum(1, keepdim=True), [a])
    compare(lambda lib, x: lib.nanmean(x, 0), [a])
    compare(lambda lib, x: x.sum_to_size(1, 4), [rand(3, 4)])
    compare(lambda lib, x: x.sum_to_size((3, 1)), [rand(2, 3, 4)])


def test_small_products():
    compare(lambda lib, a, b: lib.dot(a, b), [rand(5), rand(5)])
    compare(lambda lib, a, b: a.vdot(b), [rand(5), rand(5)])
    compare(lambda lib, a, b: lib.inner(a, b), [rand(2, 5), rand(3, 5)])
    compare(lambda lib, a, b: lib.mv(a, b), [rand(3, 5), rand(5)])
    compare(lambda lib, c, a, b: lib.addmm(c, a, b, beta=0.5, alpha=2.0), [rand(3, 4), rand(3, 5), rand(5, 4)])
    compare(lambda lib, c, a, b: c.addmv(a, b), [rand(3), rand(3, 5), rand(5)])
    compare(lambda lib, c, a, b: lib.addr(c, a, b), [rand(3, 4), rand(3), rand(4)])
    compare(lambda lib, c, a, b: lib.baddbmm(c, a, b), [rand(2, 3, 4), rand(2, 3, 5), rand(2, 5, 4)])
    compare(lambda lib, c, a, b: lib.addbmm(c, a, b, beta=0), [rand(3, 4), rand(2, 3, 5), rand(2, 5, 4)])
    raises_like(lambda lib, a, b: lib.dot(a, b), rand(3), rand(4))


def test_new_factories():
    for lib in (aakaar, torch):
        x = lib.zeros(2, dtype=lib.float64)
        assert x.new_zeros(3, 2).shape == (3, 2) and x.new_zeros(3, 2).dtype == lib.float64
        assert x.new_ones((2,)).sum().item() == 2
        assert x.new_full((2, 2), 7.0).sum().item() == 28
        assert x.new_empty(4).shape == (4,)
        assert x.new_tensor([1, 2]).dtype == lib.float64
