"""Sorting, scans, reshuffling, indexing and reduction ops against torch: values, dtypes and
gradients over random shapes and dims, ties and NaNs, and the exception classes torch raises."""

from __future__ import annotations

import numpy as np
import pytest

import aakaar
from shape_ops_harness import compare, raises_like

torch = pytest.importorskip("torch")

RNG = np.random.default_rng(0)


def rand(*shape, dtype=np.float64):
    return RNG.standard_normal(shape).astype(dtype)


def ties(*shape, dtype=np.float64):
    """Few distinct values: many ties."""
    return RNG.integers(-2, 3, size=shape).astype(dtype)


def with_nans(*shape):
    a = ties(*shape)
    a[RNG.random(shape) < 0.25] = np.nan
    return a


SHAPES = [(7,), (3, 5), (2, 3, 4)]


# ---- sorting ---------------------------------------------------------------------------------------

@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("descending", [False, True])
@pytest.mark.parametrize("make", [rand, ties, with_nans])
def test_sort_matches_torch_stable(shape, descending, make):
    a = make(*shape)
    for dim in range(-len(shape), len(shape)):
        compare(lambda lib, x: lib.sort(x, dim=dim, descending=descending, stable=True), [a])
        compare(lambda lib, x: x.argsort(dim=dim, descending=descending, stable=True), [a], grad=False)


@pytest.mark.parametrize("dtype", [np.int64, np.uint8, np.bool_, np.float32])
def test_sort_other_dtypes(dtype):
    a = RNG.integers(0, 4, size=(4, 6)).astype(dtype)
    compare(lambda lib, x: lib.sort(x, dim=1, stable=True), [a], grad=False)
    compare(lambda lib, x: lib.msort(x), [a], grad=False)


def test_sort_default_unstable_gives_sorted_values_and_consistent_indices():
    a = ties(50)
    v, i = aakaar.sort(aakaar.from_numpy(a))
    np.testing.assert_array_equal(v.numpy(), np.sort(a))
    np.testing.assert_array_equal(a[i.numpy()], v.numpy())


def test_sort_0d_and_empty():
    compare(lambda lib, x: lib.sort(x), [np.array(3.0)])
    compare(lambda lib, x: lib.sort(x, 0), [np.zeros((0, 3))], grad=False)


@pytest.mark.parametrize("largest", [True, False])
@pytest.mark.parametrize("make", [rand, with_nans])
def test_topk(largest, make):
    a = make(4, 9)
    for k in [0, 1, 4, 9]:
        # With NaNs and ties torch's order among equals is its own: compare the values, and
        # check the indices point at them.
        if make is rand:
            compare(lambda lib, x: lib.topk(x, k, dim=1, largest=largest), [a])
        v, i = aakaar.from_numpy(a).topk(k, 1, largest, True)
        tv, _ = torch.from_numpy(a).topk(k, 1, largest, True)
        np.testing.assert_array_equal(v.numpy(), tv.numpy())
        np.testing.assert_array_equal(np.take_along_axis(a, i.numpy(), 1), v.numpy())
    raises_like(lambda lib, x: lib.topk(x, 10, 1), a)


def test_kthvalue_median_mode():
    a = rand(5, 6)
    for k in [1, 3, 6]:
        compare(lambda lib, x: lib.kthvalue(x, k, 1, keepdim=True), [a])
        compare(lambda lib, x: x.kthvalue(k, 0), [a.T.copy()])
    compare(lambda lib, x: lib.median(x), [a])
    compare(lambda lib, x: lib.median(x, 1), [rand(4, 7)])
    compare(lambda lib, x: lib.median(x, 0, keepdim=True), [rand(6, 3)])
    n = with_nans(4, 7)
    compare(lambda lib, x: lib.median(x, 1).values, [n], grad=False)
    compare(lambda lib, x: lib.nanmedian(x, 1).values, [n], grad=False)
    compare(lambda lib, x: lib.nanmedian(x), [n], grad=False)
    m = RNG.integers(0, 3, size=(4, 9)).astype(np.float64)
    compare(lambda lib, x: lib.mode(x, 1).values, [m], grad=False)
    v, i = aakaar.mode(aakaar.from_numpy(m), 1)
    np.testing.assert_array_equal(m[np.arange(4), i.numpy()], v.numpy())
    raises_like(lambda lib, x: lib.kthvalue(x, 7, 1), a)


@pytest.mark.parametrize("make", [ties, lambda *s: RNG.integers(0, 5, size=s)])
def test_unique(make):
    a = make(4, 6)
    compare(lambda lib, x: lib.unique(x), [a], grad=False)
    compare(lambda lib, x: lib.unique(x, return_inverse=True, return_counts=True), [a], grad=False)
    compare(lambda lib, x: x.unique(return_counts=True), [a], grad=False)
    compare(lambda lib, x: lib.unique(x, dim=0, return_inverse=True, return_counts=True),
            [RNG.integers(0, 2, size=(8, 2))], grad=False)
    compare(lambda lib, x: lib.unique(x, dim=1), [RNG.integers(0, 2, size=(2, 8))], grad=False)


# ---- scans -----------------------------------------------------------------------------------------

@pytest.mark.parametrize("shape", SHAPES)
def test_cumulative_ops(shape):
    a = rand(*shape)
    for dim in range(-len(shape), len(shape)):
        compare(lambda lib, x: lib.cumprod(x, dim), [a])
        compare(lambda lib, x: lib.cummax(x, dim), [a])
        compare(lambda lib, x: x.cummin(dim), [a])
        compare(lambda lib, x: lib.logcumsumexp(x, dim), [a])


def test_cumprod_gradient_with_zeros():
    a = rand(4, 8)
    a[0, 2] = 0
    a[1, 1] = a[1, 5] = 0
    a[2, 0] = 0
    a[3, 7] = 0
    compare(lambda lib, x: lib.cumprod(x, 1), [a])
    compare(lambda lib, x: lib.cumprod(x, 0), [a])
    x = aakaar.from_numpy(a).requires_grad_()
    assert aakaar.autograd.gradcheck(lambda t: t.cumprod(1), [x])


def test_cummax_ties_and_nans():
    for a in [ties(5, 8), with_nans(5, 8)]:
        compare(lambda lib, x: lib.cummax(x, 1), [a], grad=False)
        compare(lambda lib, x: lib.cummin(x, 1), [a], grad=False)


def test_scans_of_integers_and_large_values():
    i = RNG.integers(-3, 4, size=(3, 6))
    compare(lambda lib, x: lib.cumprod(x, 1), [i], grad=False)
    compare(lambda lib, x: lib.cummax(x, 1), [i], grad=False)
    compare(lambda lib, x: lib.cumprod(x, 0, dtype=lib.float64), [i], grad=False)
    big = rand(3, 6) * 400
    big[0, :3] = -np.inf
    compare(lambda lib, x: lib.logcumsumexp(x, 1), [big], grad=False)


# ---- reordering and repeating ---------------------------------------------------------------------

def test_flip_roll_repeat_tile():
    a = rand(2, 3, 4)
    compare(lambda lib, x: lib.flip(x, (0, 2)), [a])
    compare(lambda lib, x: x.flip(1), [a])
    compare(lambda lib, x: x.flip(-1, 0), [a])
    compare(lambda lib, x: lib.fliplr(x), [a])
    compare(lambda lib, x: lib.flipud(x), [a])
    compare(lambda lib, x: lib.roll(x, 2), [a])
    compare(lambda lib, x: lib.roll(x, -1, 1), [a])
    compare(lambda lib, x: lib.roll(x, (1, -5), (0, 2)), [a])
    compare(lambda lib, x: x.roll(shifts=(7,), dims=(-1,)), [a])
    compare(lambda lib, x: x.repeat(2, 1, 3), [a])
    compare(lambda lib, x: x.repeat((2, 1, 1, 2)), [a])
    compare(lambda lib, x: x.repeat(2, 3), [rand(3)])
    compare(lambda lib, x: lib.tile(x, (2,)), [a])
    compare(lambda lib, x: x.tile(2, 1, 1, 2), [a])
    raises_like(lambda lib, x: x.repeat(2), a)
    raises_like(lambda lib, x: lib.roll(x, (1, 2), 0), a)
    raises_like(lambda lib, x: lib.fliplr(x), rand(3))


def test_repeat_interleave():
    a = rand(3, 4)
    compare(lambda lib, x: lib.repeat_interleave(x, 2), [a])
    compare(lambda lib, x: x.repeat_interleave(3, dim=1), [a])
    compare(lambda lib, x: x.repeat_interleave(lib.tensor([1, 0, 2]), dim=0), [a])
    compare(lambda lib, x: lib.repeat_interleave(x), [np.array([2, 0, 3])], grad=False)
    raises_like(lambda lib, x: x.repeat_interleave(lib.tensor([1, 2]), dim=0), a)


@pytest.mark.parametrize("diagonal", [-2, -1, 0, 1, 3])
def test_tril_triu(diagonal):
    for a in [rand(4, 5), rand(2, 5, 3)]:
        compare(lambda lib, x: lib.tril(x, diagonal), [a])
        compare(lambda lib, x: x.triu(diagonal), [a])
    raises_like(lambda lib, x: lib.tril(x), rand(4))


@pytest.mark.parametrize("offset", [-2, 0, 1])
def test_diag_family(offset):
    compare(lambda lib, x: lib.diag(x, offset), [rand(4)])
    compare(lambda lib, x: lib.diag(x, offset), [rand(4, 5)])
    compare(lambda lib, x: lib.diag_embed(x, offset), [rand(2, 3)])
    compare(lambda lib, x: lib.diag_embed(x, offset, 0, 2), [rand(2, 3)])
    compare(lambda lib, x: lib.diagonal(x, offset, 1, 2), [rand(2, 4, 4)])
    compare(lambda lib, x: lib.trace(x), [rand(4, 5)])
    compare(lambda lib, x: lib.trace(x), [RNG.integers(0, 9, size=(3, 3))], grad=False)
    raises_like(lambda lib, x: lib.trace(x), rand(4))
    raises_like(lambda lib, x: lib.diag(x), rand(2, 2, 2))


def test_unfold():
    a = rand(3, 10)
    for size, step in [(3, 1), (2, 3), (10, 1), (1, 4)]:
        compare(lambda lib, x: x.unfold(1, size, step), [a])
    compare(lambda lib, x: x.unfold(0, 2, 1), [a])
    compare(lambda lib, x: x.t().unfold(0, 4, 2), [a])
    x = aakaar.from_numpy(a)
    u = x.unfold(1, 3, 2)
    assert u.data_ptr() == x.data_ptr(), "unfold is a view"
    raises_like(lambda lib, x: x.unfold(1, 11, 1), a)
    raises_like(lambda lib, x: x.unfold(1, 2, 0), a)


# ---- masks, take, scatter --------------------------------------------------------------------------

def test_masked_select_and_scatter():
    a, m = rand(3, 4), RNG.random((3, 4)) < 0.5
    compare(lambda lib, x, k: lib.masked_select(x, k), [a, m])
    compare(lambda lib, x, k: x.masked_select(k), [a, m[0].copy()])
    compare(lambda lib, x, k, s: x.masked_scatter(k, s), [a, m, rand(12)])
    compare(lambda lib, x, k, s: lib.masked_scatter(x, k, s), [a, m[1].copy(), rand(3, 5)])
    raises_like(lambda lib, x: lib.masked_select(x, x), a)


@pytest.mark.parametrize("reduce", ["sum", "prod", "mean", "amax", "amin"])
@pytest.mark.parametrize("include_self", [True, False])
def test_scatter_reduce(reduce, include_self):
    a = rand(4, 5)
    src = rand(6, 5)
    idx = RNG.integers(0, 4, size=(6, 5))
    compare(lambda lib, x, i, s: x.scatter_reduce(0, i, s, reduce, include_self=include_self), [a, idx, src])
    compare(lambda lib, x, i, s: lib.scatter_reduce(x, 1, i, s, reduce, include_self=include_self),
            [a.T.copy(), idx.T.copy(), src.T.copy()])
    # Ties for amax / amin (the gradient is shared) and zeros for prod.
    t = ties(4, 5)
    st = ties(6, 5)
    compare(lambda lib, x, i, s: x.scatter_reduce(0, i, s, reduce, include_self=include_self), [t, idx, st])
    ints = RNG.integers(-3, 4, size=(4, 5))
    compare(lambda lib, x, i, s: x.scatter_reduce(0, i, s, reduce, include_self=include_self),
            [ints, idx, RNG.integers(-3, 4, size=(6, 5))], grad=False)


def test_scatter_reduce_gradcheck_and_errors():
    idx = aakaar.from_numpy(RNG.integers(0, 3, size=(5, 2)))
    for reduce in ["sum", "prod", "mean", "amax"]:
        x = aakaar.from_numpy(rand(3, 2)).requires_grad_()
        s = aakaar.from_numpy(rand(5, 2)).requires_grad_()
        assert aakaar.autograd.gradcheck(lambda x, s: x.scatter_reduce(0, idx, s, reduce), [x, s])
    a, i = rand(3, 2), RNG.integers(0, 3, size=(5, 2))
    raises_like(lambda lib, x, i: x.scatter_reduce(0, i, x, "max"), a, i)


@pytest.mark.parametrize("reduce", ["add", "multiply"])
@pytest.mark.filterwarnings("ignore:The reduce argument of torch.scatter")  # torch deprecates its own API
def test_scatter_with_reduce(reduce):
    a, idx, src = rand(4, 5), RNG.integers(0, 4, size=(3, 5)), rand(3, 5)
    compare(lambda lib, x, i, s: x.scatter(0, i, s, reduce=reduce), [a, idx, src], grad=False)
    compare(lambda lib, x, i: x.scatter(0, i, 2.5, reduce=reduce), [a, idx], grad=False)
    compare(lambda lib, x, i, s: x.clone().scatter_(1, i, s, reduce=reduce),
            [a, RNG.integers(0, 5, size=(4, 2)), rand(4, 2)], grad=False)


def test_take_and_index_ops():
    a = rand(3, 4)
    compare(lambda lib, x: lib.take(x, lib.tensor([[0, 5], [-1, 11]])), [a])
    compare(lambda lib, x, i: lib.take_along_dim(x, i, 1), [a, RNG.integers(0, 4, size=(3, 2))])
    compare(lambda lib, x, i: lib.take_along_dim(x, i, 0), [a, RNG.integers(0, 3, size=(1, 4))])
    compare(lambda lib, x, i: lib.take_along_dim(x, i), [a, RNG.integers(0, 12, size=(5,))])
    index = np.array([2, 0, 2])
    compare(lambda lib, x, i, s: x.index_add(0, i, s), [a, index, rand(3, 4)])
    compare(lambda lib, x, i, s: lib.index_add(x, 1, i, s, alpha=2.0), [a, index, rand(3, 3)])
    compare(lambda lib, x, i, s: x.index_copy(0, i, s), [a, np.array([2, 0]), rand(2, 4)])
    compare(lambda lib, x, i: x.index_fill(1, i, -1.5), [a, index])
    compare(lambda lib, x, i, s: x.clone().index_add_(0, i, s), [a, index, rand(3, 4)])
    compare(lambda lib, x, i: x.clone().index_fill_(0, i, 7.0), [a, np.array([1])], grad=False)


# ---- reductions ------------------------------------------------------------------------------------

def test_reduction_pairs_and_counts():
    a = rand(3, 4, 5)
    compare(lambda lib, x: lib.std_mean(x, 1), [a])
    compare(lambda lib, x: lib.var_mean(x, (0, 2), keepdim=True, correction=0), [a])
    compare(lambda lib, x: lib.var_mean(x, dim=1, unbiased=False), [a])
    compare(lambda lib, x: lib.std_mean(x), [a])
    compare(lambda lib, x: lib.aminmax(x), [a], grad=False)
    compare(lambda lib, x: lib.aminmax(x, dim=1, keepdim=True), [a], grad=False)
    z = ties(3, 4)
    compare(lambda lib, x: lib.count_nonzero(x), [z], grad=False)
    compare(lambda lib, x: lib.count_nonzero(x, dim=1), [z], grad=False)
    compare(lambda lib, x: lib.count_nonzero(x, (0, 1)), [z], grad=False)
    compare(lambda lib, x: lib.nonzero(x, as_tuple=True), [z], grad=False)
    compare(lambda lib, x: x.nonzero(as_tuple=False), [z], grad=False)
    compare(lambda lib, x: lib.argwhere(x), [z], grad=False)


# ---- gradcheck of the composites in float64 ---------------------------------------------------------

GRADCHECK = {
    "sort": lambda x: aakaar.sort(x, 1, descending=True)[0],
    "topk": lambda x: aakaar.topk(x, 2, 0)[0],
    "kthvalue": lambda x: x.kthvalue(2, 1)[0],
    "median": lambda x: x.median(1)[0],
    "cumprod": lambda x: x.cumprod(0),
    "cummax": lambda x: aakaar.cummax(x, 1)[0],
    "logcumsumexp": lambda x: x.logcumsumexp(1),
    "roll": lambda x: x.roll((1, 2), (0, 1)),
    "repeat": lambda x: x.repeat(2, 1, 2),
    "repeat_interleave": lambda x: x.repeat_interleave(2, 1),
    "tril": lambda x: x.tril(-1),
    "diag_embed": lambda x: aakaar.diag_embed(x, 1),
    "unfold": lambda x: x.unfold(1, 2, 1),
    "masked_select": lambda x: x.masked_select(x > 0),
    "take_along_dim": lambda x: aakaar.take_along_dim(x, aakaar.tensor([[2], [0], [1]]), 1),
    "std_mean": lambda x: aakaar.std_mean(x, 1)[0],
}


@pytest.mark.parametrize("name", sorted(GRADCHECK))
def test_gradcheck(name):
    x = aakaar.from_numpy(rand(3, 4)).requires_grad_()
    assert aakaar.autograd.gradcheck(GRADCHECK[name], [x])


def test_index_of_ties_as_torch_for_median_kthvalue_mode():
    # torch's median picks by a stable sort and mode the last occurrence; kthvalue's index among
    # equal values is its quickselect's own, so only its values are compared.
    a = ties(6, 9)
    for k in [1, 4, 9]:
        compare(lambda lib, x: lib.kthvalue(x, k, 1).values, [a], grad=False)
    compare(lambda lib, x: lib.median(x, 1), [a], grad=False)
    compare(lambda lib, x: lib.mode(x, 1), [a], grad=False)
    compare(lambda lib, x: lib.mode(x, 0, keepdim=True), [a], grad=False)
