"""Views share storage and never copy; reshape copies exactly when PyTorch's
rule says it must; strides and offsets match numpy's and torch's."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import aakaar
from core_helpers import apply_views, arrays, shapes, to_np, view_chains, view_ops


def shares_storage(a, b) -> bool:
    return a.untyped_storage_ptr() == b.untyped_storage_ptr()


def np_strides(a: np.ndarray) -> tuple:
    return tuple(s // a.itemsize for s in a.strides)


@given(view_chains())
def test_view_chain_reads_what_numpy_reads(chain):
    a, t, base = chain
    assert tuple(t.shape) == a.shape
    assert shares_storage(t, base)
    np.testing.assert_array_equal(to_np(t), a)
    # contiguous() of any view is a row-major copy with the same values
    c = t.contiguous()
    assert c.is_contiguous()
    # (size-1 dims may keep any stride: a contiguous view is returned as is)
    ref = np_strides(np.ascontiguousarray(a)) if a.ndim else ()
    if c.numel() > 0:  # (an empty tensor's strides are meaningless)
        assert [s for s, n in zip(c.stride(), c.shape) if n > 1] == [s for s, n in zip(ref, a.shape) if n > 1]
    np.testing.assert_array_equal(to_np(c), a)


@given(view_chains(dtype=aakaar.float64))
def test_view_chain_writes_reach_the_base(chain):
    a, t, base = chain
    if t.numel() == 0 or any(s == 0 and n > 1 for s, n in zip(t.stride(), t.shape)):
        return  # nothing to write / expanded views are read-only in spirit
    t.fill_(7.0)
    b = to_np(base)
    assert (b == 7.0).sum() == t.numel()


@given(st.data())
def test_view_chain_strides_match_torch(data):
    torch = pytest.importorskip("torch")
    # The same chain replayed on both libraries: strides and offsets must agree.
    arr = data.draw(arrays(dtype=aakaar.float64))
    ops = data.draw(view_ops(arr.shape))
    ta = apply_views(aakaar.from_numpy(arr.copy()), ops)
    tt = apply_views(torch.from_numpy(arr.copy()), ops)
    assert tuple(ta.shape) == tuple(tt.shape)
    if ta.numel() > 0:
        assert ta.stride() == tt.stride()
        assert ta.storage_offset() == tt.storage_offset()
    assert ta.is_contiguous() == tt.is_contiguous()


@given(st.data())
def test_reshape_is_a_view_exactly_when_torch_says_so(data):
    torch = pytest.importorskip("torch")
    arr = data.draw(arrays(dtype=aakaar.float64, max_side=3))
    ops = data.draw(view_ops(arr.shape))
    ta = apply_views(aakaar.from_numpy(arr.copy()), ops)
    tt = apply_views(torch.from_numpy(arr.copy()), ops)
    n = ta.numel()
    # candidate shapes: factorisations of n in a few ranks, plus -1 forms
    candidates = [(n,), (-1,), (1, n), (n, 1)] + [tuple(ta.shape)[::-1]]
    if ta.ndim >= 2:
        s = list(ta.shape)
        candidates.append(tuple(s[:-2] + [s[-2] * s[-1]]))
        candidates.append(tuple([s[0] * s[1]] + s[2:]))
    for shape in candidates:
        if -1 not in shape and int(np.prod(shape)) != n:
            continue
        if n == 0 and -1 in shape:
            continue
        ra, rt = ta.reshape(shape), tt.reshape(shape)
        assert tuple(ra.shape) == tuple(rt.shape)
        torch_view = rt.untyped_storage().data_ptr() == tt.untyped_storage().data_ptr()
        assert shares_storage(ra, ta) == torch_view, f"reshape{shape} of shape {tuple(ta.shape)} strides {ta.stride()}"
        np.testing.assert_array_equal(to_np(ra), rt.numpy())
        if torch_view and n > 0:
            assert ra.stride() == rt.stride()
            assert to_np(ta.view(shape)).shape == tuple(rt.shape)
        elif not torch_view:
            with pytest.raises(RuntimeError, match=r"reshape|contiguous"):
                ta.view(shape)


def test_every_view_op_shares_storage_and_matches_numpy():
    a = np.arange(2 * 3 * 4, dtype=np.float32).reshape(2, 3, 4)
    t = aakaar.from_numpy(a.copy())
    cases = [
        (t.view(6, 4), a.reshape(6, 4)),
        (t.view(-1), a.reshape(-1)),
        (t.reshape(4, 6), a.reshape(4, 6)),
        (t.transpose(0, 2), a.transpose(2, 1, 0)),
        (t.swapaxes(1, 2), a.swapaxes(1, 2)),
        (t.permute(2, 0, 1), a.transpose(2, 0, 1)),
        (t.T, a.T),
        (t[0].mT, a[0].T),
        (t.mT, np.swapaxes(a, -1, -2)),
        (t[1], a[1]),
        (t[:, 1], a[:, 1]),
        (t[..., -1], a[..., -1]),
        (t[None, :, None], a[None, :, None]),
        (t[:, ::2, 1:4:2], a[:, ::2, 1:4:2]),
        (t[-1:, -2:, :-1], a[-1:, -2:, :-1]),
        (t[:, 5:], a[:, 5:]),
        (t[:, 1:1], a[:, 1:1]),
        (t[:1].expand(5, 3, 4), np.broadcast_to(a[:1], (5, 3, 4))),
        (t.broadcast_to((2, 2, 3, 4)), np.broadcast_to(a, (2, 2, 3, 4))),
        (t[:, :1].expand(-1, 3, -1), np.broadcast_to(a[:, :1], (2, 3, 4))),
        (t.unsqueeze(1), a[:, None]),
        (t.unsqueeze(-1), a[..., None]),
        (t[:, :1].squeeze(), a[:, :1].squeeze()),
        (t[:, :1].squeeze(1), a[:, :1].squeeze(1)),
        (t[:, :1].squeeze(0), a[:, :1]),  # size-2 dim is not squeezed
        (t.flatten(), a.reshape(-1)),
        (t.flatten(1), a.reshape(2, 12)),
        (t.flatten(0, 1), a.reshape(6, 4)),
        (t.unflatten(2, (2, 2)), a.reshape(2, 3, 2, 2)),
        (t.unflatten(1, (-1, 1)), a.reshape(2, 3, 1, 4)),
        (t.narrow(2, 1, 2), a[:, :, 1:3]),
        (t.narrow(0, -1, 1), a[-1:]),
        (t.select(1, -1), a[:, -1]),
        (t.diagonal(0, 1, 2), np.diagonal(a, 0, 1, 2)),
        (t.diagonal(1, 1, 2), np.diagonal(a, 1, 1, 2)),
        (t.diagonal(-1, 1, 2), np.diagonal(a, -1, 1, 2)),
        (t.as_strided((2, 2), (1, 4), 1), np.lib.stride_tricks.as_strided(a.reshape(-1)[1:], (2, 2), (4, 16))),
    ]
    for i, (v, ref) in enumerate(cases):
        assert shares_storage(v, t), f"case {i} copied"
        assert tuple(v.shape) == ref.shape, f"case {i}: {tuple(v.shape)} != {ref.shape}"
        np.testing.assert_array_equal(to_np(v), ref, err_msg=f"case {i}")


def test_split_chunk_unbind_are_views():
    a = np.arange(10 * 3, dtype=np.int64).reshape(10, 3)
    t = aakaar.from_numpy(a.copy())
    parts = t.split(4)
    assert [tuple(p.shape) for p in parts] == [(4, 3), (4, 3), (2, 3)]
    parts = t.split([2, 8])
    assert [tuple(p.shape) for p in parts] == [(2, 3), (8, 3)]
    for p, r in zip(t.split(2, dim=1), np.split(a, [2], axis=1)):
        np.testing.assert_array_equal(to_np(p), r)
    chunks = t.chunk(3)
    assert [p.shape[0] for p in chunks] == [4, 4, 2]  # PyTorch's ceil rule
    assert [p.shape[0] for p in t.chunk(20)] == [1] * 10
    rows = t.unbind(0)
    assert len(rows) == 10 and all(shares_storage(r, t) for r in rows)
    np.testing.assert_array_equal(to_np(t.unbind(1)[2]), a[:, 2])
    for p in parts + list(chunks):
        assert shares_storage(p, t)
    # writes through a split part land in the base
    t.split(4)[1].fill_(-1)
    assert (to_np(t)[4:8] == -1).all() and (to_np(t)[:4] != -1).all()


def test_split_chunk_match_torch(torch):
    for n in range(0, 9):
        for k in range(1, 5):
            t, tt = aakaar.arange(n), torch.arange(n)
            assert [tuple(p.shape) for p in t.chunk(k)] == [tuple(p.shape) for p in tt.chunk(k)], (n, k)
            assert [tuple(p.shape) for p in t.split(k)] == [tuple(p.shape) for p in tt.split(k)], (n, k)


def test_contiguous_clone_copy_and_pointers():
    t = aakaar.arange(12.0).reshape(3, 4)
    assert t.contiguous() is t  # already contiguous: no copy
    tt = t.T
    assert not tt.is_contiguous()
    c = tt.contiguous()
    assert c.is_contiguous() and not shares_storage(c, t)
    np.testing.assert_array_equal(to_np(c), to_np(t).T)
    cl = t.clone()
    assert not shares_storage(cl, t)
    cl.fill_(0)
    assert to_np(t).sum() == 66
    # copy_ broadcasts and converts dtype
    d = aakaar.zeros(3, 4, dtype=aakaar.int64)
    d.copy_(aakaar.tensor([1.7, 2.2, 3.9, -1.5]))
    np.testing.assert_array_equal(to_np(d), np.tile(np.array([1, 2, 3, -1]), (3, 1)))
    # copy_ from an overlapping view of itself reads the old values
    x = aakaar.arange(6.0)
    x[1:].copy_(x[:-1])
    np.testing.assert_array_equal(to_np(x), [0, 0, 1, 2, 3, 4])
    # data_ptr moves by offset * itemsize; storage_offset is in elements
    v = t[1, 2:]
    assert v.storage_offset() == 6
    assert v.data_ptr() - t.data_ptr() == 6 * 4
    assert t.stride() == (4, 1) and t.T.stride() == (1, 4) and t.stride(-1) == 1


def test_0d_and_empty_views():
    s = aakaar.tensor(3.0)
    assert s.reshape(1, 1).shape == (1, 1)
    assert s.view(-1).shape == (1,)
    assert s.unsqueeze(0).shape == (1,)
    assert s.flatten().shape == (1,)
    assert s.squeeze().shape == ()
    assert s.T.shape == ()
    assert s.transpose(0, -1).shape == ()
    e = aakaar.zeros(0, 3)
    assert e.reshape(3, 0).shape == (3, 0)
    assert e.view(-1, 3).shape == (0, 3)
    assert e.T.shape == (3, 0)
    assert e[:, 1].shape == (0,)
    assert e.unsqueeze(0).expand(2, 0, 3).shape == (2, 0, 3)
    assert e.is_contiguous()


def test_as_strided_reads_overlapping_windows():
    t = aakaar.arange(10)
    w = t.as_strided((4, 3), (2, 1))
    np.testing.assert_array_equal(to_np(w), np.lib.stride_tricks.sliding_window_view(np.arange(10), 3)[::2])
    w0 = t[2:].as_strided((2,), (1,))  # default offset: the view's own
    np.testing.assert_array_equal(to_np(w0), [2, 3])
    assert to_np(t.as_strided((0, 5), (100, 100))).shape == (0, 5)


def test_expand_strides_match_torch(torch):
    cases = [((2,), (1, 1, 2)), ((2,), (3, 1, 2)), ((), (1, 1)), ((), (2, 3)), ((1, 2), (1, 1, 2)), ((3, 1), (2, 3, 4)),
             ((1,), (1,)), ((2, 1, 3), (4, 2, 5, 3))]
    for src, dst in cases:
        t, r = aakaar.zeros(*src).expand(*dst), torch.zeros(src).expand(*dst)
        assert t.shape == tuple(r.shape)
        assert t.stride() == r.stride(), (src, dst)
