"""aakaar.Size, the type of Tensor.shape and Tensor.size(), against torch.Size: printing, numel,
slicing, adding and repeating to a Size, pickling, tuple equality, and torch's refusals."""

from __future__ import annotations

import pickle

import numpy as np
import pytest

import aakaar as ak

torch = pytest.importorskip("torch")


def test_shape_and_size_are_sizes_as_torch():
    x, tx = ak.ones(2, 3, 4), torch.ones(2, 3, 4)
    for ours, theirs in [(x.shape, tx.shape), (x.size(), tx.size()), (ak.broadcast_shapes((2, 1), (1, 3)),
                                                                        torch.broadcast_shapes((2, 1), (1, 3)))]:
        assert isinstance(ours, ak.Size) and isinstance(ours, tuple)
        assert repr(ours) == repr(theirs).replace("torch.", "aakaar.")
        assert str(ours) == str(theirs).replace("torch.", "aakaar.")
        assert ours == tuple(theirs) and ours.numel() == theirs.numel()
    assert isinstance(x.size(1), int) and x.size(1) == 3
    assert type(x.stride()) is tuple  # strides stay a plain tuple, as torch's


def test_size_operations_keep_the_type_as_torch():
    s, t = ak.Size([2, 3]), torch.Size([2, 3])
    cases = [lambda v: v[1:], lambda v: v + (4,), lambda v: (1,) + v, lambda v: v * 2, lambda v: 2 * v]
    for f in cases:
        ours, theirs = f(s), f(t)
        assert type(theirs) is torch.Size and type(ours) is ak.Size
        assert tuple(ours) == tuple(theirs)
    assert type(s[0]) is int and s.index(3) == 1 and s.count(2) == 1
    assert hash(s) == hash((2, 3)) and s != [2, 3]
    assert ak.Size().numel() == torch.Size().numel() == 1
    back = pickle.loads(pickle.dumps(s))
    assert type(back) is ak.Size and back == s


def test_size_builds_from_index_likes_and_refuses_the_rest_as_torch():
    assert ak.Size([np.int64(2), ak.tensor(3)]) == tuple(torch.Size([np.int64(2), torch.tensor(3)]))
    assert ak.Size([-1]) == tuple(torch.Size([-1]))
    assert ak.Size([True]) == tuple(torch.Size([True])) == (1,)
    for bad in ([1.5], ["a"]):
        with pytest.raises(TypeError):
            torch.Size(bad)
        with pytest.raises(TypeError, match="item 0"):
            ak.Size(bad)
    with pytest.raises(TypeError):
        ak.Size(5)


def test_sizes_are_accepted_where_shapes_are():
    s = ak.Size([3, 2])
    assert ak.zeros(s).shape == s
    assert ak.ones(2, 3).view(s).shape == s
    assert ak.ones(2, 3).reshape(s).shape == s
    assert ak.ones(1, 2).expand(ak.Size([4, 2])).shape == (4, 2)
