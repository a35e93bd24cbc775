"""An index out of range raises torch's exception class in every indexing op (RuntimeError in
gather and the scatters, IndexError in x[idx], index_select, index_add/copy/fill, take and
embedding), with a message that names the offending index and the size it was checked against."""

from __future__ import annotations

import re

import pytest

import aakaar
from core_helpers import assert_same_as_torch

# (expression, the index and the size the message must name)
CASES = [
    ("x.gather(0, T.tensor([5]))", "5", "3"), ("x.gather(0, T.tensor([-1]))", "-1", "3"),
    ("m.gather(1, T.tensor([[0], [3]]))", "3", "3"), ("x0.gather(0, T.tensor(1))", "1", "1"),
    ("e0.gather(0, T.tensor([0]))", "0", "0"),
    ("x.scatter(0, T.tensor([5]), 1.)", "5", "3"), ("x.scatter(0, T.tensor([-1]), 1.)", "-1", "3"),
    ("x.scatter(0, T.tensor([5]), T.tensor([1.]))", "5", "3"), ("x.scatter_add(0, T.tensor([5]), T.tensor([1.]))", "5", "3"),
    ("x.scatter(0, T.tensor([5]), 1., reduce='add')", "5", "3"),
    ("x.scatter_reduce(0, T.tensor([5]), T.tensor([1.]), 'sum')", "5", "3"),
    ("x.clone().scatter_(0, T.tensor([5]), 1.)", "5", "3"), ("x.clone().scatter_add_(0, T.tensor([3]), T.tensor([1.]))", "3", "3"),
    ("x0.scatter(0, i1, 5.)", "1", "1"),
    ("x.index_select(0, T.tensor([5]))", "5", "3"), ("x.index_select(0, T.tensor([-1]))", "-1", "3"),
    ("x.index_select(0, T.tensor([3]))", "3", "3"), ("e0.index_select(0, T.tensor([0]))", "0", "0"),
    ("x.index_add(0, T.tensor([5]), T.tensor([1.]))", "5", "3"), ("x.index_add(0, T.tensor([-1]), T.tensor([1.]))", "-1", "3"),
    ("x.clone().index_add_(0, T.tensor([5]), T.tensor([1.]))", "5", "3"),
    ("x.index_copy(0, T.tensor([5]), T.tensor([1.]))", "5", "3"), ("x.index_copy(0, T.tensor([-1]), T.tensor([1.]))", "-1", "3"),
    ("x.index_fill(0, T.tensor([5]), 1.)", "5", "3"), ("x.index_fill(0, T.tensor([-4]), 1.)", "-4", "3"),
    ("T.take(x, T.tensor([5]))", "5", "3"), ("T.take(x, T.tensor([-4]))", "-4", "3"), ("T.take(m, T.tensor([6]))", "6", "6"),
    ("T.take_along_dim(x, T.tensor([5]))", "5", "3"), ("T.take_along_dim(x0, i1)", "1", "1"),
    ("T.nn.functional.embedding(T.tensor([5]), m)", "5", "2"), ("T.nn.functional.embedding(T.tensor([-1]), m)", "-1", "2"),
    ("T.nn.Embedding(3, 2)(T.tensor([3]))", "3", "3"),
    ("x[T.tensor([5])]", "5", "3"), ("x[T.tensor([-4])]", "-4", "3"), ("m[:, T.tensor([3])]", "3", "3"),
    ("m[T.tensor([0]), T.tensor([3])]", "3", "3"), ("m[[5]]", "5", "2"), ("x[[1, 5]]", "5", "3"), ("x[5]", "5", "3"),
    ("x[-4]", "-4", "3"), ("m[0, 3]", "3", "3"), ("e0[T.tensor([0])]", "0", "0"),
    ("x.clone().index_put_((T.tensor([5]),), T.tensor(1.))", "5", "3"),
    ("x.clone().index_put_((T.tensor([5]),), T.tensor(1.), accumulate=True)", "5", "3"),
]


@pytest.mark.parametrize("expr, index, size", CASES)
def test_out_of_range_index_raises_torchs_class_naming_index_and_size(torch, expr, index, size):
    err = assert_same_as_torch(torch, expr)
    assert isinstance(err, Exception), f"{expr}: no error"
    if index is not None:
        msg = str(err)
        assert re.search(rf"(?<![\d-]){re.escape(index)}(?!\d)", msg), f"{expr}: the message does not name {index}: {msg}"
        assert re.search(rf"(?<!\d){re.escape(size)}(?!\d)", msg), f"{expr}: the message does not name size {size}: {msg}"


def test_index_add_says_torchs_words_and_names_the_index():
    # torch says only "index out of range in self"; aakaar says it too, then which index and size
    with pytest.raises(IndexError, match="index out of range in self: index 7 is out of bounds for dimension 0 with size 3"):
        aakaar.zeros(3).index_add(0, aakaar.tensor([0, 7]), aakaar.ones(2))


def test_take_along_dim_past_the_end_of_a_dim_is_refused():
    # torch 2.13 reads a wrapped element here (x[5 % 3]) instead of refusing; aakaar refuses with
    # gather's class and names the index, as for the flattened form
    with pytest.raises(RuntimeError, match="index 5 is out of bounds for dimension 0 with size 3"):
        aakaar.take_along_dim(aakaar.tensor([3.0, 1.0, 2.0]), aakaar.tensor([5]), 0)
    with pytest.raises(RuntimeError, match="index -4"):
        aakaar.take_along_dim(aakaar.tensor([3.0, 1.0, 2.0]), aakaar.tensor([-4]), dim=-1)
