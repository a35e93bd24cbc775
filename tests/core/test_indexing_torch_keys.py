"""Index keys as PyTorch accepts them -- nested lists and tuples, lists mixed with slices, None,
Ellipsis, ints and bool masks -- read (getitem) and written (setitem) as torch does."""

from __future__ import annotations

import numpy as np
import pytest

import aakaar

# torch 2.13 still reads a list key holding sequences as a tuple, as aakaar does, and warns that it will
# stop: the reference's own warning, expected here.
pytestmark = pytest.mark.filterwarnings("ignore:Using a non-tuple sequence for multidimensional indexing")

torch = pytest.importorskip("torch")

KEYS = [
    [0, 2],
    [[0, 1], [1, 2]],
    [[[0, 1]]],
    [[[0, 1], [1, 0]]],
    ([0, 1], [1, 2]),
    ((0, 1), (1, 2)),
    ([0, 1], slice(None), [1, 2]),
    (slice(None), [0, 2]),
    (None, [0, 1], None),
    (Ellipsis, [1, 0]),
    ([[0], [1]], [1, 2]),
    ([0, -1], 1),
    (1, [0, 2], slice(1, None)),
    [0, slice(None)],
    [slice(None), 1],
    [None, 0],
    [Ellipsis, 0],
    ([True, False, True],),
    [True, False, True],
    ([True, False, True], slice(None), [0, 1]),
    (np.array([0, 2]), [1, 2]),
    [np.array([0, 2]), np.array([1, 2])],
    ([], ),
    (slice(None), []),
    (0, (1, 2)),
    ([[0, 1], [2, 0]], slice(None), 2),
]


def _key(lib, key):
    conv = aakaar.from_numpy if lib is aakaar else torch.from_numpy

    def c(k):
        if isinstance(k, np.ndarray):
            return conv(k.copy())
        return k

    if isinstance(key, tuple):
        return tuple(c(k) for k in key)
    if isinstance(key, list):
        return [c(k) for k in key]
    return c(key)


@pytest.mark.parametrize("key", KEYS, ids=repr)
def test_getitem_matches_torch(key):
    a = np.arange(3 * 3 * 4, dtype=np.float64).reshape(3, 3, 4)
    ref = torch.from_numpy(a.copy())[_key(torch, key)]
    got = aakaar.from_numpy(a.copy())[_key(aakaar, key)]
    assert tuple(got.shape) == tuple(ref.shape)
    np.testing.assert_array_equal(got.numpy(), ref.numpy())


@pytest.mark.parametrize("key", KEYS, ids=repr)
def test_setitem_matches_torch(key):
    a = np.arange(3 * 3 * 4, dtype=np.float64).reshape(3, 3, 4)
    t, x = torch.from_numpy(a.copy()), aakaar.from_numpy(a.copy())
    t[_key(torch, key)] = -1.0
    x[_key(aakaar, key)] = -1.0
    np.testing.assert_array_equal(x.numpy(), t.numpy())


@pytest.mark.parametrize("key", [[[0, 5]], ([0, 1], [1, 9]), (slice(None), [[True]]), ([True, False, True], slice(None), [0, 0, 1, 1])], ids=repr)
def test_bad_keys_raise_torch_classes(key):
    a = np.zeros((3, 3, 4))
    with pytest.raises(Exception) as ref:
        torch.from_numpy(a)[key]
    with pytest.raises(type(ref.value)):
        aakaar.from_numpy(a)[key]


def test_gradient_through_nested_list_index():
    a = np.arange(12.0).reshape(3, 4)
    x = aakaar.from_numpy(a.copy()).requires_grad_()
    t = torch.from_numpy(a.copy()).requires_grad_()
    x[[[0, 0, 2], [1, 1, 3]]].sum().backward()
    t[[[0, 0, 2], [1, 1, 3]]].sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), t.grad.numpy())
