"""angle, histogram, igamma/igammac (special.gammainc/gammaincc), nonzero_static, resize_/resize_as_,
the unsafe_ splits, Tensor.prelu, pin_memory and share_memory_ against torch: values, gradients
where torch has them, and bad input with torch's exception classes.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

import aakaar
from aakaar.autograd import gradcheck

torch = pytest.importorskip("torch")


def both(values, dtype="float32", requires_grad=False):
    return (aakaar.tensor(values, dtype=getattr(aakaar, dtype), requires_grad=requires_grad),
            torch.tensor(values, dtype=getattr(torch, dtype), requires_grad=requires_grad))


def same(got, want, rtol=0.0, atol=0.0):
    assert tuple(got.shape) == tuple(want.shape)
    assert got.dtype.name == str(want.dtype).replace("torch.", "")
    np.testing.assert_allclose(got.detach().numpy(), want.detach().numpy(), rtol=rtol, atol=atol)


# ---- angle -------------------------------------------------------------------------------------------

@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_angle(dtype):
    vals = [-1.0, 0.0, -0.0, float("nan"), 2.0, -float("inf"), float("inf"), -1e-30]
    a, t = both(vals, dtype, requires_grad=True)
    same(aakaar.angle(a), torch.angle(t))
    same(a.angle(), t.angle())
    aakaar.angle(a).sum().backward()
    torch.angle(t).sum().backward()
    same(a.grad, t.grad)                                     # zeros


def test_angle_integers():
    a, t = both([-3, 0, 4], "int64")
    same(aakaar.angle(a), torch.angle(t))                    # float32, as torch


# ---- histogram ---------------------------------------------------------------------------------------

@pytest.mark.parametrize("dtype,rtol", [("float32", 1e-6), ("float64", 1e-12)])
@pytest.mark.parametrize("bins", [1, 5, 17])
@pytest.mark.parametrize("range_", [None, (-1.0, 2.0)])
@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("density", [False, True])
def test_histogram(dtype, rtol, bins, range_, weighted, density):
    rng = np.random.default_rng(bins)
    x = np.round(rng.standard_normal((4, 25)), 1)            # ties on the bin edges
    w = rng.random((4, 25))
    (a, t), (wa, wt) = both(x, dtype), both(w, dtype)
    got = aakaar.histogram(a, bins, range=range_, weight=wa if weighted else None, density=density)
    want = torch.histogram(t, bins, range=range_, weight=wt if weighted else None, density=density)
    same(got.bin_edges, want.bin_edges, rtol=rtol)
    same(got.hist, want.hist, rtol=rtol, atol=rtol)
    same(a.histogram(bins).hist, t.histogram(bins).hist)


def test_histogram_edges_tensor_and_degenerate():
    a, t = both([1.0, 2.0, 1.0, 3.0, 0.5, 4.0])
    ea, et = both([0.0, 1.5, 3.0])
    got, want = aakaar.histogram(a, ea), torch.histogram(t, et)
    same(got.hist, want.hist)
    same(got.bin_edges, want.bin_edges)
    for vals in ([1.0, 1.0, 1.0], []):                       # equal min and max; empty input
        a, t = both(vals)
        got, want = aakaar.histogram(a, 3), torch.histogram(t, 3)
        same(got.hist, want.hist)
        same(got.bin_edges, want.bin_edges, rtol=1e-7)


def test_histogram_bad_input():
    a, t = both([1.0, 2.0])
    for call in (lambda m, x: m.histogram(x, 0), lambda m, x: m.histogram(x, 3, range=(2.0, 1.0))):
        with pytest.raises(RuntimeError):
            call(torch, t)
        with pytest.raises(RuntimeError):
            call(aakaar, a)
    with pytest.raises(NotImplementedError):
        aakaar.histogram(aakaar.tensor([1, 2]), 3)
    with pytest.raises(RuntimeError, match="same dtype"):
        aakaar.histogram(a, aakaar.tensor([0.0, 1.0], dtype=aakaar.float64))


# ---- igamma / igammac --------------------------------------------------------------------------------

@pytest.mark.parametrize("large", [False, True])
def test_igamma_values(large):
    rng = np.random.default_rng(0)
    a = rng.uniform(3, 60, 40) if large else rng.uniform(0.05, 3, 40)
    x = rng.uniform(1, 90, 40) if large else rng.uniform(0.01, 5, 40)
    # torch's asymptotic expansion for large a near x = a is good to ~1e-9 (aakaar's series and
    # continued fraction to ~1e-14: checked against mpmath below)
    rtol = 5e-9 if large else 1e-10
    (aa, at), (xa, xt) = both(a, "float64"), both(x, "float64")
    same(aakaar.igamma(aa, xa), torch.igamma(at, xt), rtol=rtol, atol=1e-14)
    same(aakaar.igammac(aa, xa), torch.igammac(at, xt), rtol=rtol, atol=1e-14)
    same(aakaar.special.gammainc(aa, xa), torch.special.gammainc(at, xt), rtol=rtol, atol=1e-14)
    same(aakaar.special.gammaincc(aa, xa), torch.special.gammaincc(at, xt), rtol=rtol, atol=1e-14)
    same(aa.igamma(xa), at.igamma(xt), rtol=rtol, atol=1e-14)
    mpmath = pytest.importorskip("mpmath")
    exact = [float(mpmath.gammainc(ai, 0, xi, regularized=True)) for ai, xi in zip(a, x)]
    np.testing.assert_allclose(aakaar.igamma(aa, xa).numpy(), exact, rtol=1e-12)
    (a32, t32), (x32, xt32) = both(a, "float32"), both(x, "float32")
    same(aakaar.igamma(a32, x32), torch.igamma(t32, xt32), rtol=1e-5, atol=1e-6)
    same(aakaar.igammac(a32, x32), torch.igammac(t32, xt32), rtol=1e-5, atol=1e-5)


def test_igamma_edges_and_broadcast():
    inf, nan = float("inf"), float("nan")
    a = [0.0, -1, 1, 1, inf, 2, 0, nan, 1]
    x = [1.0, 1, 0, -1, 1, inf, 0, 1, nan]
    (aa, at), (xa, xt) = both(a, "float64"), both(x, "float64")
    same(aakaar.igamma(aa, xa), torch.igamma(at, xt))
    same(aakaar.igammac(aa, xa), torch.igammac(at, xt))
    (ab, tb), (xb, xtb) = both([[0.5], [2.0]], "float64"), both([0.3, 1.0, 4.0], "float64")
    same(aakaar.igamma(ab, xb), torch.igamma(tb, xtb), rtol=1e-10)


def test_igamma_gradient():
    a, x = np.array([0.7, 2.0, 5.0]), np.array([0.4, 3.0, 4.5])
    (aa, at), (xa, xt) = both(a, "float64"), both(x, "float64", requires_grad=True)
    for fa, ft in ((aakaar.igamma, torch.igamma), (aakaar.igammac, torch.igammac)):
        xa.grad, xt.grad = None, None
        fa(aa, xa).sum().backward()
        ft(at, xt).sum().backward()
        same(xa.grad, xt.grad, rtol=1e-10)
        assert gradcheck(lambda v: fa(aa, v), [aakaar.tensor(x, requires_grad=True)], atol=1e-6, rtol=1e-5)
    ag, tg = both(a, "float64", requires_grad=True)
    with pytest.raises(NotImplementedError, match="derivative for 'igamma: input'"):
        aakaar.igamma(ag, xa).sum().backward()
    with pytest.raises(NotImplementedError, match="derivative for 'igamma: input'"):
        torch.igamma(tg, xt).sum().backward()


def test_igamma_bad_input():
    with pytest.raises(NotImplementedError):
        aakaar.igamma(aakaar.tensor([1, 2]), aakaar.tensor([1, 2]))
    with pytest.raises(TypeError):
        aakaar.igamma(aakaar.tensor([1.0]), 2.0)


# ---- nonzero_static ----------------------------------------------------------------------------------

@pytest.mark.parametrize("size", [0, 2, 4, 9])
def test_nonzero_static(size):
    x = [[0, 1, 2], [3, 0, 0]]
    a, t = both(x, "int64")
    same(aakaar.nonzero_static(a, size=size), torch.nonzero_static(t, size=size))
    same(a.nonzero_static(size=size, fill_value=7), t.nonzero_static(size=size, fill_value=7))


def test_nonzero_static_bad_size():
    with pytest.raises(RuntimeError):
        torch.nonzero_static(torch.tensor([1]), size=-1)
    with pytest.raises(RuntimeError):
        aakaar.nonzero_static(aakaar.tensor([1]), size=-1)


# ---- resize_, resize_as_ -----------------------------------------------------------------------------

def test_resize_shrinks_and_reuses_storage():
    a, t = both(np.arange(12.0))
    ptr = a.untyped_storage_ptr()
    a.resize_(2, 3)
    t.resize_(2, 3)
    same(a, t)
    assert a.untyped_storage_ptr() == ptr                   # same memory, as torch
    a.resize_((3, 4))
    t.resize_((3, 4))
    same(a, t)                                               # the elements were never lost


def test_resize_of_a_view_starts_at_its_offset():
    a, t = aakaar.arange(10.0)[2:6], torch.arange(10.0)[2:6]
    same(a.resize_(2, 2), t.resize_(2, 2))
    a, t = aakaar.arange(10.0)[2:6], torch.arange(10.0)[2:6]
    a.resize_(3, 4)
    t.resize_(3, 4)
    same(a[:2], t[:2])                                       # the old storage's elements, in place


def test_resize_grows_keeping_old_elements():
    a, t = both([1.0, 2.0, 3.0])
    a.resize_(2, 4)
    t.resize_(2, 4)
    assert tuple(a.shape) == (2, 4) and a.is_contiguous()
    np.testing.assert_array_equal(a.reshape(-1)[:3].numpy(), t.reshape(-1)[:3].numpy())


def test_resize_as_and_refusal():
    a, t = both([1.0, 2.0, 3.0, 4.0])
    same(a.resize_as_(aakaar.ones(2, 2)), t.resize_as_(torch.ones(2, 2)))
    g, tg = both([1.0, 2.0], requires_grad=True)
    with pytest.raises(RuntimeError, match="cannot resize variables that require grad"):
        tg.resize_(3)
    with pytest.raises(RuntimeError, match="cannot resize variables that require grad"):
        g.resize_(3)
    with aakaar.no_grad(), torch.no_grad():
        with pytest.raises(RuntimeError, match="cannot resize variables that require grad"):
            tg.resize_(3)
        with pytest.raises(RuntimeError, match="cannot resize variables that require grad"):
            g.resize_(3)
    with pytest.raises(RuntimeError):
        a.resize_(-1)


# ---- unsafe splits, prelu ----------------------------------------------------------------------------

def test_unsafe_splits():
    x = np.arange(20.0).reshape(4, 5)
    a, t = both(x)
    for fa, ft in ((aakaar.unsafe_chunk(a, 3, 1), torch.unsafe_chunk(t, 3, 1)),
                   (a.unsafe_split(2), t.unsafe_split(2)),
                   (aakaar.unsafe_split_with_sizes(a, [1, 3], 0), torch.unsafe_split_with_sizes(t, [1, 3], 0)),
                   (a.unsafe_split_with_sizes([2, 3], 1), t.unsafe_split_with_sizes([2, 3], 1))):
        assert len(fa) == len(ft)
        for g, w in zip(fa, ft):
            same(g, w)
    with pytest.raises(RuntimeError):
        torch.unsafe_split_with_sizes(t, [1, 2], 0)
    with pytest.raises(RuntimeError, match="sum exactly"):
        aakaar.unsafe_split_with_sizes(a, [1, 2], 0)


def test_prelu():
    x = np.random.default_rng(1).standard_normal((2, 3, 4))
    (a, t), (wa, wt) = both(x, "float64", requires_grad=True), both([0.1, 0.2, 0.3], "float64", requires_grad=True)
    same(a.prelu(wa), t.prelu(wt), rtol=1e-12)
    same(aakaar.prelu(a, wa), torch.prelu(t, wt), rtol=1e-12)
    a.prelu(wa).sum().backward()
    t.prelu(wt).sum().backward()
    same(a.grad, t.grad, rtol=1e-12)
    same(wa.grad, wt.grad, rtol=1e-12)


# ---- pin_memory, share_memory_ -----------------------------------------------------------------------

def test_pin_memory_is_self_and_says_why():
    a = aakaar.ones(3)
    assert a.pin_memory() is a and not a.is_pinned()
    assert "page-locked buffer" in aakaar.Tensor.pin_memory.__doc__


def test_share_memory_refuses_and_the_suggested_way_works():
    with pytest.raises(NotImplementedError, match="no shared-memory storage"):
        aakaar.ones(3).share_memory_()
    from multiprocessing import shared_memory
    shm = shared_memory.SharedMemory(create=True, size=12)
    try:
        view = np.ndarray((3,), dtype=np.float32, buffer=shm.buf)
        t = aakaar.from_numpy(view)
        t.fill_(2.0)
        assert bytes(shm.buf[:4]) == np.float32(2.0).tobytes()   # the tensor writes the shared block
        del t, view
    finally:
        shm.close()
        shm.unlink()


# ---- histogramdd -------------------------------------------------------------------------------------

@pytest.mark.parametrize("dtype,rtol", [("float32", 1e-6), ("float64", 1e-12)])
@pytest.mark.parametrize("bins", [3, [2, 5, 4]])
@pytest.mark.parametrize("range_", [None, [-1.0, 1.0, 0.0, 2.0, -2.0, 0.5]])
@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("density", [False, True])
def test_histogramdd(dtype, rtol, bins, range_, weighted, density):
    rng = np.random.default_rng(3)
    x = np.round(rng.standard_normal((2, 30, 3)), 1)
    w = rng.random((2, 30))
    (a, t), (wa, wt) = both(x, dtype), both(w, dtype)
    got = aakaar.histogramdd(a, bins, range=range_, weight=wa if weighted else None, density=density)
    want = torch.histogramdd(t, bins, range=range_, weight=wt if weighted else None, density=density)
    same(got.hist, want.hist, rtol=rtol, atol=rtol)
    assert len(got.bin_edges) == len(want.bin_edges) == 3
    for g, e in zip(got.bin_edges, want.bin_edges):
        same(g, e, rtol=rtol)


def test_histogramdd_edge_tensors_and_bad_input():
    a, t = both([[1.0, 2.0], [1.0, 3.0], [0.2, 2.5]])
    ea = [aakaar.tensor([0.0, 1.5, 2.0]), aakaar.tensor([2.0, 3.0])]
    et = [torch.tensor([0.0, 1.5, 2.0]), torch.tensor([2.0, 3.0])]
    got, want = aakaar.histogramdd(a, ea), torch.histogramdd(t, et)
    same(got.hist, want.hist)
    e, et_ = both(np.zeros((0, 2)))
    same(aakaar.histogramdd(e, 2).hist, torch.histogramdd(et_, 2).hist)
    for call in (lambda m, x: m.histogramdd(x[0], 2), lambda m, x: m.histogramdd(x, [2, 3, 4]),
                 lambda m, x: m.histogramdd(x, 2, range=[0.0, 1.0])):
        with pytest.raises(RuntimeError):
            call(torch, t)
        with pytest.raises(RuntimeError):
            call(aakaar, a)
