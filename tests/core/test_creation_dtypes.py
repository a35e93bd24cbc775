"""Creation functions, dtype inference, and the promotion table."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import aakaar
from core_helpers import DTYPES, NP_OF, assert_matches, np_dtype, shapes, to_np


def test_dtype_objects():
    assert [d.itemsize for d in DTYPES] == [1, 1, 8, 4, 8]
    assert [d.is_floating_point for d in DTYPES] == [False, False, False, True, True]
    assert repr(aakaar.float32) == "aakaar.float32"
    assert aakaar.long == aakaar.int64 and aakaar.double == aakaar.float64 and aakaar.float == aakaar.float32


@pytest.mark.parametrize("a,b", list(itertools.product(DTYPES, DTYPES)))
def test_promotion_table_matches_numpy_and_torch(a, b):
    # numpy and torch agree on these five types (uint8 with bool is uint8, int64 with float32 is float32
    # in torch; numpy says float64 there, so torch is the reference for that corner).
    got = aakaar.promote_types(a, b)
    assert got == aakaar.promote_types(b, a)
    ta, tb = aakaar.zeros(2, dtype=a), aakaar.ones(2, dtype=b)
    assert aakaar.result_type(ta, tb) == got
    assert (ta + tb).dtype == got if got != aakaar.bool else (ta + tb).dtype == aakaar.bool
    torch = pytest.importorskip("torch")
    tmap = {aakaar.bool: torch.bool, aakaar.uint8: torch.uint8, aakaar.int64: torch.int64,
            aakaar.float32: torch.float32, aakaar.float64: torch.float64}
    assert tmap[got] == torch.promote_types(tmap[a], tmap[b])


@pytest.mark.parametrize(
    "data,dtype",
    [
        (True, aakaar.bool), (3, aakaar.int64), (2.5, aakaar.float32),
        ([1, 2, 3], aakaar.int64), ([1, 2.0], aakaar.float32), ([True, False], aakaar.bool),
        ([[1, 2], [3, 4]], aakaar.int64), ([True, 2], aakaar.int64), ([], aakaar.float32),
        ([[[]]], aakaar.float32), (np.float64(1.5), aakaar.float64), (np.int64(7), aakaar.int64),
    ],
)
def test_tensor_infers_dtype_like_torch(data, dtype):
    t = aakaar.tensor(data)
    assert t.dtype == dtype
    assert t.shape == np.array(data).shape
    np.testing.assert_array_equal(to_np(t), np.array(data, dtype=NP_OF[dtype]))


def test_tensor_from_numpy_keeps_dtype_and_copies():
    for dt in DTYPES:
        a = np.zeros((2, 3), dtype=np_dtype(dt))
        t = aakaar.tensor(a)
        assert t.dtype == dt
        a[0, 0] = 1
        assert to_np(t)[0, 0] == 0  # tensor() copies
    # non-contiguous and negative-stride arrays are fine for tensor() (it copies)
    a = np.arange(12.0).reshape(3, 4)[::-1, ::2]
    np.testing.assert_array_equal(to_np(aakaar.tensor(a)), a)
    # dtype= converts, including from unsupported numpy dtypes
    assert aakaar.tensor(np.arange(3, dtype=np.int32), dtype=aakaar.int64).dtype == aakaar.int64
    assert aakaar.tensor([1, 2], dtype=aakaar.float64).dtype == aakaar.float64
    # a list of tensors
    t = aakaar.tensor([aakaar.tensor([1.0, 2.0]), aakaar.tensor([3.0, 4.0])])
    np.testing.assert_array_equal(to_np(t), [[1, 2], [3, 4]])


def test_tensor_of_tensor_copies():
    a = aakaar.ones(3)
    b = aakaar.tensor(a)
    b.fill_(5)
    assert to_np(a).tolist() == [1, 1, 1]
    assert aakaar.as_tensor(a) is a


@given(shapes(max_side=3), st.sampled_from(DTYPES))
def test_zeros_ones_full_empty(shape, dt):
    npdt = np_dtype(dt)
    assert_matches(aakaar.zeros(*shape, dtype=dt), np.zeros(shape, npdt))
    assert_matches(aakaar.zeros(shape, dtype=dt), np.zeros(shape, npdt))
    assert_matches(aakaar.ones(*shape, dtype=dt), np.ones(shape, npdt))
    assert_matches(aakaar.full(shape, 1, dtype=dt), np.full(shape, 1, npdt))
    e = aakaar.empty(*shape, dtype=dt)
    assert e.shape == shape and e.dtype == dt and e.is_contiguous()
    z = aakaar.zeros(*shape, dtype=dt)
    for like, ref in [
        (aakaar.zeros_like(z), np.zeros(shape, npdt)),
        (aakaar.ones_like(z), np.ones(shape, npdt)),
        (aakaar.full_like(z, True), np.full(shape, True, npdt)),
    ]:
        assert_matches(like, ref)
    assert aakaar.empty_like(z).shape == shape
    assert aakaar.zeros_like(z, dtype=aakaar.float64).dtype == aakaar.float64


def test_full_infers_dtype_from_value():
    assert aakaar.full((2,), 1.5).dtype == aakaar.float32
    assert aakaar.full((2,), 7).dtype == aakaar.int64
    assert aakaar.full((2,), True).dtype == aakaar.bool
    assert to_np(aakaar.full((2,), -3, dtype=aakaar.float64)).tolist() == [-3.0, -3.0]


@pytest.mark.parametrize(
    "args,kw",
    [((5,), {}), ((2, 9), {}), ((1, 10, 3), {}), ((10, 1, -3), {}), ((0.0, 1.0, 0.1), {}), ((3.0,), {}),
     ((-2.5, 2.5, 0.5), {}), ((0, 5), {"dtype": aakaar.float64}), ((0,), {}), ((5, 5), {}), ((0, 1, 0.3), {})],
)
def test_arange_matches_torch(args, kw, torch):
    tmap = {aakaar.float64: torch.float64}
    t = aakaar.arange(*args, **kw)
    r = torch.arange(*args, **({"dtype": tmap[kw["dtype"]]} if kw else {}))
    assert t.shape == tuple(r.shape)
    assert str(t.dtype).split(".")[-1] == str(r.dtype).split(".")[-1]
    np.testing.assert_allclose(to_np(t), r.numpy(), rtol=1e-6)


def test_arange_linspace_eye_against_numpy():
    assert_matches(aakaar.arange(10), np.arange(10))
    assert_matches(aakaar.arange(1, 10, 3), np.arange(1, 10, 3))
    assert_matches(aakaar.arange(0.0, 1.0, 0.25), np.arange(0.0, 1.0, 0.25, dtype=np.float32))
    for steps in [0, 1, 2, 5, 100]:
        assert_matches(aakaar.linspace(-1, 3, steps), np.linspace(-1, 3, steps, dtype=np.float32))
        assert_matches(aakaar.linspace(-1, 3, steps, dtype=aakaar.float64), np.linspace(-1, 3, steps))
    assert to_np(aakaar.linspace(0, 1, 7))[-1] == 1.0  # the end is exact
    for n, m in [(0, 0), (1, 1), (3, 3), (2, 5), (5, 2)]:
        assert_matches(aakaar.eye(n, m), np.eye(n, m, dtype=np.float32))
    assert_matches(aakaar.eye(3, dtype=aakaar.int64), np.eye(3, dtype=np.int64))
    assert_matches(aakaar.eye(2, dtype=aakaar.bool), np.eye(2, dtype=bool))


def test_to_dtype_conversions_match_numpy():
    vals = np.array([-2.7, -0.5, 0.0, 0.4, 1.5, 3.9, 255.0, 100.0])
    t = aakaar.tensor(vals, dtype=aakaar.float64)
    assert_matches(t.to(aakaar.int64), vals.astype(np.int64))  # truncation toward zero
    assert_matches(t.to(aakaar.bool), vals.astype(bool))
    assert_matches(t.to(aakaar.float32), vals.astype(np.float32))
    assert_matches(aakaar.tensor([0, 1, 255], dtype=aakaar.uint8).to(aakaar.int64), np.array([0, 1, 255]))
    assert_matches(aakaar.tensor([0, 3, -1]).to(aakaar.bool), np.array([False, True, True]))
    assert_matches(aakaar.tensor([True, False]).to(aakaar.float64), np.array([1.0, 0.0]))
    # .to with the same dtype returns self, copy=True returns a copy
    assert t.to(aakaar.float64) is t
    assert t.to(aakaar.float64, copy=True) is not t
    assert t.to(aakaar.int64).to(t).dtype == aakaar.float64  # .to(other_tensor)
    assert t.float().dtype == aakaar.float32 and t.double().dtype == aakaar.float64
    assert t.long().dtype == aakaar.int64 and t.bool().dtype == aakaar.bool and t.byte().dtype == aakaar.uint8
    assert t.to("cpu") is t


def test_device_objects():
    t = aakaar.zeros(2)
    assert str(t.device) == "cpu" and t.device.type == "cpu" and t.device.index is None
    assert t.device == "cpu" and t.device == aakaar.device("cpu")
    assert repr(aakaar.device("cpu")) == "device(type='cpu')"
    assert aakaar.device("cuda:1").index == 1
    assert not t.is_cuda
    with pytest.raises(ValueError, match="tpu"):
        aakaar.device("tpu")
    if not aakaar._C.has_cuda_build():
        with pytest.raises(RuntimeError, match="cuda"):
            aakaar.zeros(2, device="cuda")
