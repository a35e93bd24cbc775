"""Zero-copy exchange with numpy (from_numpy, .numpy(), __array__, the buffer
protocol) and with torch through DLPack, both directions. Zero-copy is proven
twice: the data pointers are equal, and a write through one side is visible
through the other."""

from __future__ import annotations

import gc

import numpy as np
import pytest
from hypothesis import given

import aakaar
from core_helpers import DTYPES, np_dtype, to_np, view_chains

TORCH_OF = {}


def torch_dtype(torch, dt):
    return {aakaar.bool: torch.bool, aakaar.uint8: torch.uint8, aakaar.int64: torch.int64,
            aakaar.float32: torch.float32, aakaar.float64: torch.float64}[dt]


@pytest.mark.parametrize("dt", DTYPES)
def test_from_numpy_shares_memory(dt):
    a = np.zeros((3, 4), dtype=np_dtype(dt))
    t = aakaar.from_numpy(a)
    assert t.dtype == dt and t.shape == (3, 4)
    assert t.data_ptr() == a.ctypes.data
    a[1, 2] = 1
    assert to_np(t)[1, 2] == 1
    t[0, 0] = 1
    assert a[0, 0] == 1


def test_from_numpy_strided_views_and_lifetime():
    a = np.arange(24, dtype=np.float64).reshape(4, 6)
    v = a[1::2, ::3]
    t = aakaar.from_numpy(v)
    assert t.stride() == (12, 3) and t.data_ptr() == v.ctypes.data
    np.testing.assert_array_equal(to_np(t), v)
    t.fill_(-1)
    assert (a[1::2, ::3] == -1).all() and a[0, 0] == 0
    # the tensor keeps the array's memory alive after the array is gone
    b = np.arange(5.0)
    tb = aakaar.from_numpy(b)
    del b
    gc.collect()
    assert tb.tolist() == [0, 1, 2, 3, 4]
    # 0-d arrays and empty arrays
    assert aakaar.from_numpy(np.array(3.5)).item() == 3.5
    assert aakaar.from_numpy(np.zeros((0, 3))).shape == (0, 3)
    # stride-0 arrays are views too
    e = aakaar.from_numpy(np.lib.stride_tricks.as_strided(np.arange(3.0), (4, 3), (0, 8)))
    assert e.stride() == (0, 1)
    # read-only arrays are refused (a write through the tensor could crash); tensor() copies them
    with pytest.raises(ValueError, match="read-only"):
        aakaar.from_numpy(np.broadcast_to(np.arange(3.0), (4, 3)))
    assert aakaar.as_tensor(np.broadcast_to(np.arange(3.0), (2, 3))).tolist() == [[0, 1, 2], [0, 1, 2]]


@pytest.mark.parametrize("dt", DTYPES)
def test_numpy_shares_memory(dt):
    t = aakaar.zeros(2, 5, dtype=dt)
    a = t.numpy()
    assert a.dtype == np_dtype(dt) and a.ctypes.data == t.data_ptr()
    a[1, 1] = 1
    assert t.tolist()[1][1] == 1
    t.fill_(1)
    assert a.all()


@given(view_chains())
def test_numpy_of_any_view_shares_memory(chain):
    a_ref, t, base = chain
    a = t.numpy()
    assert a.shape == tuple(t.shape)
    assert tuple(s // a.itemsize for s in a.strides) == t.stride()
    np.testing.assert_array_equal(a, a_ref)
    if t.numel():
        assert a.ctypes.data == t.data_ptr()
    # the array keeps the storage alive on its own (refcounting frees the rest at once)
    del t, base
    np.testing.assert_array_equal(a, a_ref)


def test_array_protocol_and_buffer_protocol():
    t = aakaar.arange(6.0).reshape(2, 3)
    a = np.asarray(t)
    assert a.ctypes.data == t.data_ptr()  # __array__ is zero-copy
    assert np.array(t, dtype=np.float64).dtype == np.float64
    c = np.array(t, copy=True)
    c[0, 0] = 99
    assert t.tolist()[0][0] == 0
    m = memoryview(t)
    assert m.shape == (2, 3) and m.format == "f" and m.itemsize == 4 and not m.readonly
    mt = memoryview(t.T)
    assert mt.strides == (4, 12)
    assert np.frombuffer(t, dtype=np.float32).tolist() == [0, 1, 2, 3, 4, 5]
    assert memoryview(aakaar.tensor([True])).format == "?"
    assert memoryview(aakaar.tensor([1])).itemsize == 8
    # numpy ufuncs accept tensors (through __array__)
    assert np.add(t, 1).sum() == 21


@pytest.mark.parametrize("dt", DTYPES)
def test_dlpack_to_torch_without_copy(dt, torch):
    t = aakaar.zeros(3, 4, dtype=dt)
    v = t[1:, ::2]
    r = torch.from_dlpack(v)
    assert r.dtype == torch_dtype(torch, dt) and tuple(r.shape) == tuple(v.shape)
    assert r.data_ptr() == v.data_ptr()
    assert tuple(r.stride()) == v.stride()
    r.fill_(1)
    assert to_np(t)[1:, ::2].all() and not to_np(t)[0].any()
    t.fill_(0)
    assert not r.any()
    assert v.__dlpack_device__() == (1, 0)


@pytest.mark.parametrize("dt", DTYPES)
def test_dlpack_from_torch_without_copy(dt, torch):
    r = torch.zeros(4, 6, dtype=torch_dtype(torch, dt))
    rv = r[::2, 1:].t()
    t = aakaar.from_dlpack(rv)
    assert t.dtype == dt and tuple(t.shape) == tuple(rv.shape) and t.stride() == tuple(rv.stride())
    assert t.data_ptr() == rv.data_ptr()
    t.fill_(1)
    assert bool(r[::2, 1:].all()) and not bool(r[1].any())
    # the capsule route, and the torch tensor dies first
    cap = torch.arange(5, dtype=torch.float64).__dlpack__()
    t2 = aakaar.from_dlpack(cap)
    gc.collect()
    assert t2.tolist() == [0, 1, 2, 3, 4]
    with pytest.raises(TypeError, match="capsule"):
        aakaar.from_dlpack(cap)  # a capsule can be consumed only once


def test_dlpack_round_trips(torch):
    t = aakaar.arange(12.0).reshape(3, 4)
    back = aakaar.from_dlpack(torch.from_dlpack(t))
    assert back.data_ptr() == t.data_ptr()
    back[0, 0] = 42
    assert t.tolist()[0][0] == 42
    r = torch.arange(6.0)
    r2 = torch.from_dlpack(aakaar.from_dlpack(r))
    assert r2.data_ptr() == r.data_ptr()
    # numpy speaks DLPack too
    a = np.from_dlpack(t)
    assert a.ctypes.data == t.data_ptr()
    n = np.arange(4, dtype=np.int64)
    tn = aakaar.from_dlpack(n)
    assert tn.data_ptr() == n.ctypes.data


def test_torch_from_numpy_of_aakaar_and_back(torch):
    t = aakaar.ones(3)
    r = torch.from_numpy(t.numpy())
    assert r.data_ptr() == t.data_ptr()
    r.mul_(3)
    assert t.tolist() == [3, 3, 3]
