"""sort / topk, the scans beyond cumsum and scatter_reduce on the device (csrc/cuda/sort_scan_ops.cu)
against the CPU's kernels: the same values and indices (a stable order, NaN last), over dims, strides,
dtypes, ties, and rows longer than the shared-memory sort; gradients through the Python API."""
from __future__ import annotations

import numpy as np
import pytest

import aakaar

from cuda_suite_helpers import FLOATS, check

SORT_DTYPES = [aakaar.float32, aakaar.float64, aakaar.int64, aakaar.int32, aakaar.uint8, aakaar.bool]


def _values(rng, shape, dtype, ties=True):
    if dtype == aakaar.bool:
        return rng.random(shape) < 0.5
    if dtype == aakaar.uint8:
        return rng.integers(0, 6, shape).astype(np.uint8)
    if not dtype.is_floating_point:
        return rng.integers(-5, 5, shape).astype(dtype.name)
    a = rng.standard_normal(shape)
    if ties:  # repeated values, and a NaN and infinities where there is room
        a = np.round(a * 2) / 2
        flat = a.reshape(-1)
        if flat.size > 6:
            flat[1], flat[4], flat[5] = np.nan, np.inf, -np.inf
    return a.astype(np.float32 if dtype == aakaar.float32 else np.float64)


def _pair(a):
    cpu = aakaar.tensor(a)
    return cpu, cpu.to("cuda")


def test_the_device_table_has_sort_scan_and_scatter_reduce():
    has = aakaar._C._backend_fused_kernels("cuda")
    assert has["sort"] and has["scan"] and has["scatter_reduce"]


@pytest.mark.parametrize("dtype", SORT_DTYPES, ids=str)
@pytest.mark.parametrize("shape,dim", [((5, 9), -1), ((5, 9), 0), ((3, 40, 2), 1), ((700,), 0)])
def test_sort_argsort_and_topk(shape, dim, dtype, rng):
    cpu, dev = _pair(_values(rng, shape, dtype))
    for descending in (False, True):
        got, want = aakaar.sort(dev, dim=dim, descending=descending), aakaar.sort(cpu, dim=dim, descending=descending)
        check(got[0], want[0], rtol=0, atol=0)
        check(got[1], want[1])
        check(aakaar.argsort(dev, dim=dim, descending=descending), aakaar.argsort(cpu, dim=dim, descending=descending))
    if dtype != aakaar.bool:
        k = min(3, shape[dim])
        for largest in (False, True):
            got, want = aakaar.topk(dev, k, dim=dim, largest=largest), aakaar.topk(cpu, k, dim=dim, largest=largest)
            check(got[0], want[0], rtol=0, atol=0)
            check(got[1], want[1])


def test_sort_of_rows_longer_than_shared_memory(rng):
    """Rows of more than 2048 elements take the rank sort."""
    cpu, dev = _pair(_values(rng, (2, 2100), aakaar.float32))
    got, want = aakaar.sort(dev.t(), dim=0, descending=True), aakaar.sort(cpu.t(), dim=0, descending=True)
    check(got[0], want[0], rtol=0, atol=0)
    check(got[1], want[1])
    got, want = aakaar.topk(dev, 5), aakaar.topk(cpu, 5)
    check(got[0], want[0], rtol=0, atol=0)
    check(got[1], want[1])


def test_sort_of_a_strided_view_and_kthvalue(rng):
    cpu, dev = _pair(_values(rng, (6, 8), aakaar.float64))
    got, want = aakaar.sort(dev[:, ::2].t(), dim=1), aakaar.sort(cpu[:, ::2].t(), dim=1)
    check(got[0], want[0], rtol=0, atol=0)
    check(got[1], want[1])
    check(aakaar.kthvalue(dev, 3, dim=1)[0], aakaar.kthvalue(cpu, 3, dim=1)[0], rtol=0, atol=0)


@pytest.mark.parametrize("dtype", [aakaar.float32, aakaar.float64, aakaar.int64, aakaar.int32], ids=str)
@pytest.mark.parametrize("dim", [0, 1, -1])
def test_scans(dim, dtype, rng):
    cpu, dev = _pair(_values(rng, (4, 7, 3), dtype))
    check(aakaar.cumprod(dev, dim), aakaar.cumprod(cpu, dim), rtol=0, atol=0)
    for fn in (aakaar.cummax, aakaar.cummin):
        got, want = fn(dev, dim), fn(cpu, dim)
        check(got[0], want[0], rtol=0, atol=0)
        check(got[1], want[1])
    if dtype.is_floating_point:
        tol = 1e-12 if dtype == aakaar.float64 else 1e-6
        check(aakaar.logcumsumexp(dev, dim), aakaar.logcumsumexp(cpu, dim), rtol=tol, atol=tol)
        check(aakaar.logcumsumexp(dev.transpose(0, 2), dim), aakaar.logcumsumexp(cpu.transpose(0, 2), dim), rtol=tol,
              atol=tol)


@pytest.mark.parametrize("dtype", FLOATS, ids=str)
def test_gradients_of_sort_and_scans(dtype, rng):
    a = _values(rng, (3, 6), dtype, ties=False)
    up = rng.standard_normal((3, 6))
    res = {}
    for dev in ("cpu", "cuda"):
        x = aakaar.tensor(a).to(dev).requires_grad_()
        u = aakaar.tensor(up).to(dev).to(x.dtype)
        y = (aakaar.sort(x, 1)[0] * u).sum() + (aakaar.cumprod(x, 0) * u).sum() + (aakaar.cummax(x, 1)[0] * u).sum()
        y = y + (aakaar.logcumsumexp(x, 1) * u).sum() + aakaar.topk(x, 2)[0].sum()
        y.backward()
        res[dev] = x.grad.cpu().numpy()
    tol = 1e-12 if dtype == aakaar.float64 else 1e-5
    np.testing.assert_allclose(res["cuda"], res["cpu"], rtol=tol, atol=tol)


@pytest.mark.parametrize("reduce", ["sum", "prod", "mean", "amax", "amin"])
@pytest.mark.parametrize("dtype", [aakaar.float32, aakaar.float64, aakaar.int64], ids=str)
@pytest.mark.parametrize("include_self", [True, False])
def test_scatter_reduce(reduce, dtype, include_self, rng):
    self_cpu = aakaar.tensor(_values(rng, (4, 5), dtype, ties=False))
    src_cpu = aakaar.tensor(_values(rng, (6, 5), dtype, ties=False))
    tol = 1e-12 if dtype == aakaar.float64 else 1e-5
    # along dim 0 with colliding indices; along dim 1 with an index (and src) smaller than self
    for dim, index, src in [(0, rng.integers(0, 4, (6, 5)), src_cpu), (1, rng.integers(0, 5, (4, 3)), src_cpu[:4, :3])]:
        index = aakaar.tensor(index)
        got = aakaar.scatter_reduce(self_cpu.to("cuda"), dim, index.to("cuda"), src.to("cuda"), reduce,
                                    include_self=include_self)
        want = aakaar.scatter_reduce(self_cpu, dim, index, src, reduce, include_self=include_self)
        check(got, want, rtol=tol, atol=tol)


def test_scatter_reduce_gradients(rng):
    res = {}
    a, b = rng.standard_normal((4, 3)), rng.standard_normal((6, 3))
    idx = rng.integers(0, 4, (6, 3))
    for dev in ("cpu", "cuda"):
        x = aakaar.tensor(a).to(dev).requires_grad_()
        s = aakaar.tensor(b).to(dev).requires_grad_()
        y = aakaar.scatter_reduce(x, 0, aakaar.tensor(idx).to(dev), s, "amax") * 3 + aakaar.scatter_reduce(
            x, 0, aakaar.tensor(idx).to(dev), s, "mean", include_self=False)
        y.sum().backward()
        res[dev] = (x.grad.cpu().numpy(), s.grad.cpu().numpy())
    for g, w in zip(res["cuda"], res["cpu"]):
        np.testing.assert_allclose(g, w, rtol=1e-12, atol=1e-12)


def test_bad_input_raises_as_on_the_cpu():
    for dev in ("cpu", "cuda"):
        x = aakaar.zeros(3, 4, device=dev)
        with pytest.raises(RuntimeError):
            aakaar.topk(x, 5)
        with pytest.raises(NotImplementedError):
            aakaar.logcumsumexp(aakaar.zeros(3, dtype=aakaar.int64, device=dev), 0)
        with pytest.raises(RuntimeError):
            aakaar.scatter_reduce(x, 0, aakaar.zeros(2, 4, dtype=aakaar.int64, device=dev), x[:2], "median")
