"""Indexing, sorting, scans and order statistics on 0-d inputs (and 0-d index tensors) and on
empty inputs, against torch: torch treats a 0-d self, index or source as its 1-element 1-d view
in gather/scatter/index_*, gives 0-d results for 0-d inputs, and refuses what it refuses with
its own exception class. Each expression runs in both libraries (core_helpers.parity_env)."""

from __future__ import annotations

import pytest

import aakaar
from core_helpers import assert_same_as_torch

# torch warns that scatter(reduce=) with a tensor src is deprecated; the expression is still compared
pytestmark = pytest.mark.filterwarnings("ignore:The reduce argument of torch.scatter")

INDEX_0D = [
    # index_add / index_copy / index_fill on a 0-d self, with 0-d or 1-element indices and sources
    "x0.index_add(0, i0, T.tensor(2.))", "x0.index_add(0, T.tensor([0]), T.tensor(2.))",
    "x0.index_add(-1, i0, T.tensor(2.), alpha=3)", "x0.index_add(0, T.tensor([0]), T.tensor([2.]))",
    "x0.index_add(0, i0, T.tensor([2.]))", "x0.index_add(1, i0, T.tensor(2.))", "x0.index_add(0, i1, T.tensor(2.))",
    "x.index_add(0, i1, T.tensor([2.]))", "x.index_add(0, T.tensor([1], dtype=T.int32), T.tensor([2.]))",
    "x.index_add(0, T.tensor([1]), T.tensor(2.))", "x.index_add(0, T.tensor([1, 2]), T.tensor([1.]))",
    "x.index_add(0, T.tensor([1]), T.tensor([1.], dtype=T.float64))", "m.index_add(1, i1, T.tensor([7., 8.]))",
    "m.index_add(1, T.tensor([1]), T.tensor([[1.], [2.]]))", "x.index_add(0, T.tensor([[1]]), T.tensor([1.]))",
    "x0.index_copy(0, i0, T.tensor(5.))", "x0.index_copy(0, T.tensor([0]), T.tensor([5.]))",
    "x0.index_copy(0, i0, T.tensor([5.]))", "x0.index_copy(0, i1, T.tensor(5.))", "x.index_copy(0, i1, T.tensor(5.))",
    "x.index_copy(0, T.tensor([1, 2]), T.tensor([5.]))", "x0.index_copy(0, T.tensor([0, 0]), T.tensor(5.))",
    "x.index_copy(0, T.tensor([1]), T.tensor([[5.]]))", "x.index_copy(0, T.tensor([0], dtype=T.int32), T.tensor([1.]))",
    "x.index_copy(0, T.tensor([1]), T.tensor([5]))",
    "x0.index_fill(0, i0, 1.)", "x0.index_fill(0, T.tensor([0, 0]), 1.)", "x0.index_fill(0, i0, T.tensor(7.))",
    "x0.index_fill(0, im1, 1.)", "x0.index_fill(0, i1, 1.)", "x.index_fill(0, im1, 9.)", "x.index_fill(0, T.tensor(1), 9.)",
    "x.index_fill(0, T.tensor([0], dtype=T.int32), 1.)", "x.index_fill(0, T.tensor([[1]]), 5.)",
    # scatter / scatter_add / scatter_reduce / gather with 0-d operands
    "x0.scatter_add(0, i0, T.tensor(2.))", "x0.scatter_add(-1, i0, T.tensor(2.))",
    "x0.scatter_add(0, T.tensor([0]), T.tensor([2.]))", "x0.scatter_add(1, i0, T.tensor(2.))",
    "x0.scatter(0, i0, 5.)", "x0.scatter(0, i0, T.tensor(5.))", "x0.scatter(0, i0, T.tensor(5.), reduce='add')",
    "x0.scatter(0, i0, 2., reduce='multiply')", "x0.scatter(0, i1, 5.)", "x0.scatter(0, im1, 5.)",
    "x0.scatter(0, i0, T.tensor(5))", "x.scatter(0, i1, T.tensor(7.))", "x.scatter(0, i1, T.tensor([7., 8.]))",
    "x.scatter_add(0, i1, T.tensor(7.))", "x0.scatter(0, T.tensor([[0]]), T.tensor([[2.]]))",
    "x0.scatter_reduce(0, i0, T.tensor(2.), 'amax')", "x0.scatter_reduce(0, i0, T.tensor(2.), 'sum', include_self=False)",
    "x0.scatter_reduce(0, i0, T.tensor(2.), 'mean')",
    "x0.gather(0, i0)", "x0.gather(-1, i0)", "x0.gather(0, T.tensor([0]))", "x0.gather(0, T.tensor([0, 0]))",
    "x0.gather(1, i0)", "x.gather(0, i1)", "x.gather(0, T.tensor([[0]]))", "x0.gather(0, T.tensor([[0]]))",
    # index_select / take / take_along_dim
    "x0.index_select(0, i0)", "x0.index_select(0, T.tensor([0]))", "x0.index_select(0, T.tensor([0, 0]))",
    "x0.index_select(0, T.tensor(0, dtype=T.int32))", "x0.index_select(1, i0)", "x.index_select(0, i1)",
    "x.index_select(0, T.tensor([[0]]))", "x0.index_select(0, T.tensor([[0]]))",
    "T.take(x0, i0)", "T.take(x0, T.tensor([0, 0]))", "T.take(x0, im1)", "T.take(x, im1)", "T.take(x0, T.tensor([[0]]))",
    "T.take(x, T.tensor([0], dtype=T.int32))", "T.take(m, T.tensor([[0, 5], [-1, -6]]))",
    "T.take_along_dim(x0, i0)", "T.take_along_dim(x0, T.tensor([0]))", "T.take_along_dim(x0, i0, 0)",
    "T.take_along_dim(x0, T.tensor([0]), 0)", "T.take_along_dim(x, i0)", "T.take_along_dim(x, i0, 0)",
]

ORDER_0D = [
    "T.quantile(x0, 0.5)", "T.quantile(x0, 0.5, dim=0)", "T.quantile(x0, 0.5, dim=0, keepdim=True)",
    "T.quantile(x0, T.tensor([0.2, 0.5]), dim=0)", "T.quantile(x0, T.tensor([0.2, 0.5]))", "T.quantile(x0, T.tensor(0.5))",
    "T.quantile(x0, 0.5, dim=1)", "T.quantile(d0, 0.25, dim=-1, keepdim=True)", "T.nanquantile(x0, 0.5, dim=0)",
    "T.nanquantile(T.tensor(float('nan')), 0.5, dim=0)", "x0.quantile(0.5)", "x0.nanquantile(0.5)",
    "x0.median()", "x0.median(0)", "x0.median(-1, keepdim=True)", "x0.median(1)", "x0.nanmedian()", "x0.nanmedian(0)",
    "T.tensor(float('nan')).median(0)", "T.tensor(float('nan')).nanmedian(0)",
    "x0.mode()", "x0.mode(0)", "x0.mode(-1, keepdim=True)", "x0.mode(1)",
    "x0.kthvalue(1)", "x0.kthvalue(1, 0, True)", "x0.kthvalue(2)", "x0.kthvalue(0)", "x0.kthvalue(1, 1)",
    "x0.topk(1)", "x0.topk(0)", "x0.topk(2)", "x0.topk(1, 0)", "x0.topk(1, 1)", "x0.topk(1, largest=False)",
    "x0.sort()", "x0.sort(0)", "x0.sort(-1, descending=True)", "x0.sort(1)", "x0.argsort()", "x0.argsort(1)",
    "T.sort(x0, stable=True)", "T.argsort(x0, stable=True)", "T.msort(x0)",
    "x0.cumsum(0)", "x0.cumsum(-1)", "x0.cumsum(1)", "x0.cumprod(0)", "x0.cumprod(1)", "x0.cummax(0)", "x0.cummax(1)",
    "x0.cummin(-1)", "x0.logcumsumexp(0)", "x0.logcumsumexp(1)", "T.tensor(3).cumsum(0)", "T.tensor(3).cumprod(0)",
    "T.tensor(True).cumsum(0)", "T.tensor(3).cummax(0)", "T.tensor(3, dtype=T.int32).cumsum(0)",
    "x0.cumsum(0, dtype=T.float64)", "x0.max(0)", "x0.min(-1)", "x0.roll(1)", "x0.roll(1, 0)",
    "T.movedim(x0, 0, -1)", "T.tensor_split(x0, 1)", "x0.renorm(2, 0, 1)", "x.renorm(2, 0, 1)",
]

EMPTY = [
    "e0.index_select(0, ie)", "e03.index_select(0, ie)", "e03.index_select(1, T.tensor([0, 2]))", "e0.gather(0, ie)",
    "e03.gather(1, T.zeros(0, 2, dtype=T.int64))", "x.gather(0, ie)", "x.scatter(0, ie, 1.)", "x.scatter_add(0, ie, e0)",
    "x.index_add(0, ie, e0)", "x.index_copy(0, ie, e0)", "x.index_fill(0, ie, 1.)", "e0.index_fill(0, ie, 1.)",
    "e03.index_add(0, ie, e03)", "e0.scatter(0, ie, 1.)", "T.take(x, ie)", "T.take(e0, ie)", "T.take(e0, T.tensor([0]))",
    "T.take_along_dim(e03, T.zeros(0, 3, dtype=T.int64), 0)", "T.take_along_dim(e0, ie)",
    "T.quantile(e0, 0.5)", "T.quantile(e03, 0.5, dim=0)", "T.quantile(e03, 0.5, dim=1)", "T.nanquantile(e0, 0.5)",
    "e0.median()", "e0.nanmedian()", "e0.median(0)", "e03.median(0)", "e03.median(1)", "e20.median(0)",
    "e0.mode()", "e03.mode(1)", "e03.mode(0)", "e0.kthvalue(1)", "e03.kthvalue(1, 1)", "e03.kthvalue(1, 0)",
    "e0.topk(0)", "e0.topk(1)", "e03.topk(0, 0)", "e03.topk(2, 1)", "e20.topk(0)",
    "e0.sort()", "e03.sort(0)", "e03.sort(1)", "e20.argsort()",
    "e0.cumsum(0)", "e0.cumprod(0)", "e0.cummax(0)", "e0.cummin(0)", "e0.logcumsumexp(0)", "e03.cumsum(1)",
    "e03.cummax(0)", "e03.logcumsumexp(1)", "e20.logcumsumexp(0)",
]

GRADIENTS = [
    "G(xg0.index_add(0, i0, T.tensor(2.)), xg0)", "G(T.tensor(1.).index_add(0, i0, xg0), xg0)",
    "G(xg0.scatter_add(0, i0, xg0 * 2), xg0)", "G(xg0.scatter(0, i0, 5.), xg0)", "G(xg0.index_select(0, i0), xg0)",
    "G(xg.index_select(0, i1), xg)", "G(xg0.index_fill(0, i0, 1.), xg0)", "G(xg0.index_copy(0, i0, T.tensor(5.)), xg0)",
    "G(xg0.gather(0, i0), xg0)", "G(xg0.gather(0, T.tensor([0, 0])), xg0)", "G(T.take(xg0, i0), xg0)",
    "G(T.take_along_dim(xg0, i0), xg0)", "G(T.quantile(xg0, 0.5), xg0)", "G(T.quantile(xg0, 0.5, dim=0), xg0)",
    "G(T.quantile(xg, 0.5), xg)", "G(xg0.median(), xg0)", "G(xg0.median(0).values, xg0)",
    "G(xg0.nanmedian(0).values, xg0)", "G(xg0.mode(0).values, xg0)", "G(xg0.kthvalue(1).values, xg0)",
    "G(xg0.topk(1).values, xg0)", "G(xg0.sort().values, xg0)", "G(xg0.cumsum(0), xg0)", "G(xg0.cumprod(0), xg0)",
    "G(xg0.cummax(0).values, xg0)", "G(xg0.cummin(0).values, xg0)", "G(xg0.logcumsumexp(0), xg0)",
    "G(xg0.max(0).values, xg0)", "G(xg.max(0).values, xg)", "G(xg.logcumsumexp(0), xg)",
]


@pytest.mark.parametrize("expr", INDEX_0D)
def test_index_ops_with_0d_operands_as_torch(torch, expr):
    assert_same_as_torch(torch, expr)


@pytest.mark.parametrize("expr", ORDER_0D)
def test_sorting_scans_and_order_statistics_of_0d_as_torch(torch, expr):
    assert_same_as_torch(torch, expr)


@pytest.mark.parametrize("expr", EMPTY)
def test_empty_inputs_as_torch(torch, expr):
    assert_same_as_torch(torch, expr)


@pytest.mark.parametrize("expr", GRADIENTS)
def test_gradients_through_0d_as_torch(torch, expr):
    assert_same_as_torch(torch, expr)


def test_in_place_forms_write_a_0d_self():
    t = aakaar.tensor(3.0)
    assert t.scatter_(0, aakaar.tensor(0), aakaar.tensor(2.0)) is t and t.item() == 2.0
    t.scatter_add_(0, aakaar.tensor([0]), aakaar.tensor([5.0]))
    t.index_add_(0, aakaar.tensor(0), aakaar.tensor(1.0))
    t.index_fill_(0, aakaar.tensor(-1), t.item() * 2)
    assert t.shape == () and t.item() == 16.0


@pytest.mark.parametrize("op", ["gather", "index_select", "take", "index_add", "scatter_add", "quantile"])
def test_0d_gradients_against_finite_differences(op):
    x = aakaar.tensor(0.7, dtype=aakaar.float64, requires_grad=True)
    i0 = aakaar.tensor(0)
    fn = {
        "gather": lambda t: t.gather(0, aakaar.tensor([0, 0])) ** 2,
        "index_select": lambda t: t.index_select(0, i0).sin(),
        "take": lambda t: aakaar.take(t, aakaar.tensor([[0]])).exp(),
        "index_add": lambda t: t.index_add(0, i0, t * t, alpha=2),
        "scatter_add": lambda t: (t * 3).scatter_add(0, i0, t.cos()),
        "quantile": lambda t: aakaar.quantile(t * t, 0.3, dim=0),
    }[op]
    assert aakaar.autograd.gradcheck(fn, (x,))


# More differences the side-by-side probe found in these ops (dtypes of indices and q, NaN order).
FOUND = [
    "T.nn.functional.embedding(T.tensor([0, 2], dtype=T.int32), T.arange(6.).reshape(3, 2))",
    "T.nn.functional.embedding(T.tensor([0.]), T.arange(6.).reshape(3, 2))",
    "T.quantile(x, T.tensor([0.5], dtype=T.float64))", "T.quantile(x, 0.5, interpolation='foo')",
    "T.take_along_dim(m, T.tensor([[1]], dtype=T.int32), 1)", "T.take_along_dim(m, T.tensor([1], dtype=T.int32))",
    "x.scatter(0, T.tensor([0]), T.tensor([1], dtype=T.int64))", "x.scatter_add(0, T.tensor([0]), T.tensor([1], dtype=T.int64))",
    "T.tensor([3., float('nan'), 1.]).sort(descending=True)", "T.tensor([3., float('nan'), 1.]).topk(2)",
    "T.tensor([3., float('nan'), 1.]).cummax(0)", "T.tensor([3., float('nan'), 1.]).median()",
    "T.tensor([3., float('nan'), 1.]).kthvalue(2)", "T.tensor([float('-inf'), float('-inf')]).logcumsumexp(0)",
]


@pytest.mark.parametrize("expr", FOUND)
def test_more_index_and_order_cases_as_torch(torch, expr):
    assert_same_as_torch(torch, expr)
