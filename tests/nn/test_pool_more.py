"""The poolings built on the 2-d kernels and on indexing ops: max_pool1d, avg_pool1d,
adaptive_avg_pool1d, adaptive_max_pool1d/2d, max_unpool1d/2d, against torch (values, indices,
gradients), gradcheck in float64 and PyTorch's exception classes."""

from __future__ import annotations

import numpy as np
import pytest

import aakaar as ak
import aakaar.nn.functional as F
from tests.nn.nn_helpers import assert_close, run_against_torch, to_ak

torch = pytest.importorskip("torch")
TF = torch.nn.functional

DTYPES = [(torch.float64, 1e-10, 1e-12), (torch.float32, 1e-5, 1e-6)]
DTYPE_IDS = ["float64", "float32"]


def _pair_run(fn_ak, fn_torch, shape, dtype, rtol, atol, seed=0):
    run_against_torch(fn_ak, fn_torch, [shape], dtype, rtol, atol, seed)


POOL1D = [
    ((2, 3, 9), dict(kernel_size=3)),
    ((2, 3, 10), dict(kernel_size=3, stride=2, padding=1)),
    ((2, 3, 10), dict(kernel_size=4, stride=3, padding=2, ceil_mode=True)),
    ((3, 11), dict(kernel_size=2, stride=1)),
    ((2, 2, 12), dict(kernel_size=3, stride=2, padding=1, dilation=2)),
]


@pytest.mark.parametrize("dtype, rtol, atol", DTYPES, ids=DTYPE_IDS)
@pytest.mark.parametrize("shape, kw", POOL1D, ids=[f"p{i}" for i in range(len(POOL1D))])
def test_pool1d_matches_torch(shape, kw, dtype, rtol, atol):
    _pair_run(lambda x: F.max_pool1d(x, return_indices=True, **kw),
              lambda x: TF.max_pool1d(x, return_indices=True, **kw), shape, dtype, rtol, atol)
    if "dilation" not in kw:
        for cip in (True, False):
            _pair_run(lambda x: F.avg_pool1d(x, count_include_pad=cip, **kw),
                      lambda x: TF.avg_pool1d(x, count_include_pad=cip, **kw), shape, dtype, rtol, atol)


ADAPTIVE = [((2, 3, 7, 9), (3, 4)), ((2, 3, 8, 8), 4), ((3, 5, 6), (5, None)), ((1, 2, 4, 5), (7, 3)),
            ((2, 1, 5, 3), 1)]


@pytest.mark.parametrize("dtype, rtol, atol", DTYPES, ids=DTYPE_IDS)
@pytest.mark.parametrize("shape, size", ADAPTIVE, ids=[f"a{i}" for i in range(len(ADAPTIVE))])
def test_adaptive_pools_match_torch(shape, size, dtype, rtol, atol):
    _pair_run(lambda x: F.adaptive_max_pool2d(x, size, return_indices=True),
              lambda x: TF.adaptive_max_pool2d(x, size, return_indices=True), shape, dtype, rtol, atol)
    length = size if isinstance(size, int) else (size[0] or shape[-2])
    flat = shape[:-2] + (shape[-2] * shape[-1],)
    _pair_run(lambda x: F.adaptive_max_pool1d(x, length, return_indices=True),
              lambda x: TF.adaptive_max_pool1d(x, length, return_indices=True), flat, dtype, rtol, atol)
    _pair_run(lambda x: F.adaptive_avg_pool1d(x, length), lambda x: TF.adaptive_avg_pool1d(x, length), flat,
              dtype, rtol, atol)


def test_adaptive_max_pool2d_ties_pick_the_first():
    x = torch.zeros(1, 1, 5, 7)
    x[0, 0, 1:3, 2:4] = 1.0
    ref = TF.adaptive_max_pool2d(x, (3, 3), return_indices=True)
    out = F.adaptive_max_pool2d(to_ak(x), (3, 3), return_indices=True)
    assert_close(out[1], ref[1], 0, 0)


@pytest.mark.parametrize("dtype, rtol, atol", DTYPES, ids=DTYPE_IDS)
@pytest.mark.parametrize("shape, kw, size", [
    ((2, 3, 6, 8), dict(kernel_size=2), None),
    ((2, 3, 7, 7), dict(kernel_size=3, stride=2, padding=1), None),
    ((2, 3, 7, 7), dict(kernel_size=2, stride=2), (7, 7)),
    # non-square, with windows that do not overlap: where they overlap, two pooled values can carry one
    # index, and which of them lands there is undefined (torch's documentation says so)
    ((3, 6, 9), dict(kernel_size=(2, 3), stride=(2, 3)), None),
], ids=["u0", "u1", "u2", "u3"])
def test_max_unpool2d_matches_torch(shape, kw, size, dtype, rtol, atol):
    x = torch.randn(*shape, dtype=dtype)
    pooled, idx = TF.max_pool2d(x, return_indices=True, **kw)
    ukw = dict(kernel_size=kw["kernel_size"], stride=kw.get("stride"), padding=kw.get("padding", 0))
    _pair_run(lambda p: F.max_unpool2d(p, to_ak(idx), output_size=size, **ukw),
              lambda p: TF.max_unpool2d(p, idx, output_size=size, **ukw), tuple(pooled.shape), dtype, rtol, atol)


def test_max_unpool1d_matches_torch():
    x = torch.randn(2, 3, 10, dtype=torch.float64)
    pooled, idx = TF.max_pool1d(x, 2, return_indices=True)
    _pair_run(lambda p: F.max_unpool1d(p, to_ak(idx), 2), lambda p: TF.max_unpool1d(p, idx, 2),
              tuple(pooled.shape), torch.float64, 1e-12, 0)


def test_gradchecks():
    x = ak.randn(2, 2, 5, 7, dtype=ak.float64, requires_grad=True)
    assert ak.autograd.gradcheck(lambda t: F.adaptive_max_pool2d(t, (2, 3)), (x,))
    y = ak.randn(2, 3, 9, dtype=ak.float64, requires_grad=True)
    assert ak.autograd.gradcheck(lambda t: F.max_pool1d(t, 3, 2, 1), (y,))
    assert ak.autograd.gradcheck(lambda t: F.avg_pool1d(t, 3, 2, 1, count_include_pad=False), (y,))


@pytest.mark.parametrize("call, cls", [
    (lambda F, t: F.max_pool1d(t(2, 3, 4, 5), 2), RuntimeError),
    (lambda F, t: F.max_pool1d(t(5), 2), RuntimeError),
    (lambda F, t: F.max_pool1d(t(2, 3, 4), 2, padding=2), RuntimeError),
    (lambda F, t: F.avg_pool1d(t(2, 3, 4, 5), 2), RuntimeError),
    (lambda F, t: F.adaptive_avg_pool1d(t(2, 3, 4, 5), 2), RuntimeError),
    (lambda F, t: F.adaptive_max_pool2d(t(3, 4), 2), (ValueError, RuntimeError)),
    (lambda F, t: F.max_unpool2d(t(1, 1, 2, 2), F.max_pool2d(t(1, 1, 4, 4), 2, return_indices=True)[1] * 10, 2),
     RuntimeError),
    (lambda F, t: F.max_unpool2d(t(1, 1, 2, 2), F.max_pool2d(t(1, 1, 4, 4), 2, return_indices=True)[1], 2,
                                 output_size=(7, 7)), ValueError),
    (lambda F, t: F.max_unpool2d(t(1, 1, 2, 2), F.max_pool2d(t(1, 1, 4, 2), 2, return_indices=True)[1], 2),
     RuntimeError),
], ids=[f"bad{i}" for i in range(9)])
def test_pool_errors_as_torch(call, cls):
    with pytest.raises(cls):
        call(TF, torch.randn)
    with pytest.raises(cls):
        call(F, lambda *s: ak.randn(*s))
