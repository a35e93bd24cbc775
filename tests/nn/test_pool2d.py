"""F.max_pool2d, F.avg_pool2d and F.adaptive_avg_pool2d against torch: values, indices, gradients,
NaN and ties as torch picks them, gradcheck, and PyTorch's errors."""

from __future__ import annotations

import math

import numpy as np
import pytest

import aakaar as ak
import aakaar.nn.functional as F
from tests.nn.nn_helpers import assert_close, to_ak

torch = pytest.importorskip("torch")
TF = torch.nn.functional

MAX_CASES = [
    ((2, 3, 9, 8), dict(kernel_size=2)),
    ((2, 3, 9, 8), dict(kernel_size=3, stride=2, padding=1)),
    ((2, 3, 9, 8), dict(kernel_size=3, stride=2, padding=1, ceil_mode=True)),
    ((1, 2, 10, 7), dict(kernel_size=(2, 3), stride=(2, 1), dilation=(2, 1))),
    ((1, 2, 10, 7), dict(kernel_size=3, stride=2, padding=1, dilation=2, ceil_mode=True)),
    ((3, 7, 7), dict(kernel_size=3, stride=1, padding=1)),  # unbatched
    ((2, 1, 5, 5), dict(kernel_size=5)),
    ((2, 2, 6, 6), dict(kernel_size=4, stride=3, padding=2, ceil_mode=True)),
    ((0, 2, 6, 6), dict(kernel_size=2)),
]


@pytest.mark.parametrize("dtype", [torch.float64, torch.float32], ids=["float64", "float32"])
@pytest.mark.parametrize("shape, kw", MAX_CASES, ids=[f"case{i}" for i in range(len(MAX_CASES))])
def test_max_pool2d_matches_torch(shape, kw, dtype):
    x = torch.randn(*shape, dtype=dtype, requires_grad=True)
    ref, ref_idx = TF.max_pool2d(x, return_indices=True, **kw)
    g = torch.randn(ref.shape, dtype=dtype)
    (ref * g).sum().backward()
    xa = to_ak(x).requires_grad_()
    out, idx = F.max_pool2d(xa, return_indices=True, **kw)
    (out * to_ak(g)).sum().backward()
    assert_close(out, ref, 0, 0, "values")
    np.testing.assert_array_equal(np.asarray(idx), ref_idx.numpy())
    assert idx.dtype == ak.int64
    assert_close(xa.grad, x.grad, 1e-12 if dtype == torch.float64 else 1e-6, 0, "grad")


def test_max_pool2d_ties_and_nan_as_torch():
    # ties (many equal values, overlapping windows) and NaNs, -inf windows
    x = torch.tensor(np.random.default_rng(0).integers(0, 3, (2, 2, 8, 8)), dtype=torch.float64)
    x[0, 0, 1, 1] = float("nan")
    x[0, 0, 1, 3] = float("nan")
    x[1, 1, :4, :4] = -math.inf
    x.requires_grad_()
    for kw in [dict(kernel_size=3, stride=1, padding=1), dict(kernel_size=2), dict(kernel_size=3, dilation=2)]:
        ref, ref_idx = TF.max_pool2d(x, return_indices=True, **kw)
        ref.sum().backward()
        xa = to_ak(x).requires_grad_()
        out, idx = F.max_pool2d(xa, return_indices=True, **kw)
        out.sum().backward()
        np.testing.assert_array_equal(np.asarray(out), ref.detach().numpy())  # NaN where torch has NaN
        np.testing.assert_array_equal(np.asarray(idx), ref_idx.numpy())
        np.testing.assert_array_equal(np.asarray(xa.grad), x.grad.numpy())
        x.grad = None


@pytest.mark.parametrize("dtype", [torch.float64, torch.float32], ids=["float64", "float32"])
@pytest.mark.parametrize(
    "kw",
    [dict(kernel_size=2), dict(kernel_size=2, padding=1), dict(kernel_size=2, ceil_mode=True),
     dict(kernel_size=3, stride=2, padding=1), dict(kernel_size=(2, 3), stride=(1, 2))],
    ids=["2x2", "2x2-pad", "2x2-ceil", "3x3-s2", "2x3"],
)
def test_max_pool2d_wide_rows_nan_ties_as_torch(kw, dtype):
    # Rows of 35+ outputs run the vectorised interior loop's full-width body and its tail;
    # NaNs, ties and -inf are scattered so that every tap position takes over somewhere.
    rng = np.random.default_rng(1)
    x = torch.tensor(rng.integers(0, 4, (2, 3, 9, 71)), dtype=dtype)
    flat = x.view(-1)
    flat[torch.from_numpy(rng.choice(flat.numel(), 60, replace=False))] = float("nan")
    flat[torch.from_numpy(rng.choice(flat.numel(), 200, replace=False))] = -math.inf
    ref, ref_idx = TF.max_pool2d(x, return_indices=True, **kw)
    out, idx = F.max_pool2d(to_ak(x), return_indices=True, **kw)
    np.testing.assert_array_equal(np.asarray(out), ref.numpy())
    np.testing.assert_array_equal(np.asarray(idx), ref_idx.numpy())


AVG_CASES = [
    ((2, 3, 9, 8), dict(kernel_size=2)),
    ((2, 3, 9, 8), dict(kernel_size=3, stride=2, padding=1)),
    ((2, 3, 9, 8), dict(kernel_size=3, stride=2, padding=1, count_include_pad=False)),
    ((2, 3, 9, 8), dict(kernel_size=3, stride=2, padding=1, ceil_mode=True)),
    ((2, 3, 9, 8), dict(kernel_size=3, stride=2, padding=1, ceil_mode=True, count_include_pad=False)),
    ((1, 2, 10, 7), dict(kernel_size=(2, 3), stride=(3, 1), padding=(1, 1), divisor_override=4)),
    ((1, 2, 10, 7), dict(kernel_size=(4, 2), stride=(3, 2), padding=(2, 1), ceil_mode=True, divisor_override=3)),
    ((3, 7, 7), dict(kernel_size=3, stride=1, padding=1)),
    ((0, 2, 6, 6), dict(kernel_size=2)),
]


@pytest.mark.parametrize("dtype", [torch.float64, torch.float32], ids=["float64", "float32"])
@pytest.mark.parametrize("shape, kw", AVG_CASES, ids=[f"case{i}" for i in range(len(AVG_CASES))])
def test_avg_pool2d_matches_torch(shape, kw, dtype):
    x = torch.randn(*shape, dtype=dtype, requires_grad=True)
    ref = TF.avg_pool2d(x, **kw)
    g = torch.randn(ref.shape, dtype=dtype)
    (ref * g).sum().backward()
    xa = to_ak(x).requires_grad_()
    out = F.avg_pool2d(xa, **kw)
    (out * to_ak(g)).sum().backward()
    rtol, atol = (1e-12, 1e-14) if dtype == torch.float64 else (1e-5, 1e-6)
    assert_close(out, ref, rtol, atol, "values")
    assert_close(xa.grad, x.grad, rtol, atol, "grad")


def test_avg_pool2d_nan_propagates():
    x = torch.randn(1, 1, 4, 4, dtype=torch.float64)
    x[0, 0, 0, 0] = float("nan")
    np.testing.assert_array_equal(np.asarray(F.avg_pool2d(to_ak(x), 2)), TF.avg_pool2d(x, 2).numpy())


@pytest.mark.parametrize("kw", [dict(kernel_size=3, stride=2, padding=1, ceil_mode=True),
                                dict(kernel_size=2, count_include_pad=False, padding=1)])
def test_pool_gradcheck(kw):
    x = ak.from_numpy(np.random.default_rng(0).standard_normal((2, 2, 7, 6))).requires_grad_()
    assert ak.autograd.gradcheck(lambda x: F.avg_pool2d(x, **kw), (x,))
    # max pooling: distinct values, so no finite difference crosses a tie
    xm = ak.from_numpy(np.random.default_rng(1).permutation(84).reshape(2, 2, 7, 3) * 0.1).requires_grad_()
    assert ak.autograd.gradcheck(lambda x: F.max_pool2d(x, 3, 2, 1, ceil_mode=True), (xm,))


def test_pool_double_backward_matches_torch():
    x = torch.randn(2, 2, 7, 6, dtype=torch.float64, requires_grad=True)
    xa = to_ak(x).requires_grad_()
    for fa, ft in [(lambda t: F.avg_pool2d(t, 3, 2, 1) ** 2, lambda t: TF.avg_pool2d(t, 3, 2, 1) ** 2),
                   (lambda t: F.max_pool2d(t, 2) ** 2, lambda t: TF.max_pool2d(t, 2) ** 2)]:
        (gt,) = torch.autograd.grad(ft(x).sum(), (x,), create_graph=True)
        (gg_t,) = torch.autograd.grad((gt * gt).sum(), (x,))
        (ga,) = ak.autograd.grad(fa(xa).sum(), (xa,), create_graph=True)
        (gg_a,) = ak.autograd.grad((ga * ga).sum(), (xa,))
        assert_close(gg_a, gg_t, 1e-10, 1e-12)


@pytest.mark.parametrize("shape, size", [((2, 3, 8, 8), 4), ((2, 3, 9, 7), (4, 3)), ((3, 10, 6), (None, 4)),
                                         ((1, 2, 5, 5), 1), ((1, 1, 5, 7), (7, 2))])
def test_adaptive_avg_pool2d_matches_torch(shape, size):
    x = torch.randn(*shape, dtype=torch.float64, requires_grad=True)
    ref = TF.adaptive_avg_pool2d(x, size)
    ref.square().sum().backward()
    xa = to_ak(x).requires_grad_()
    out = F.adaptive_avg_pool2d(xa, size)
    out.square().sum().backward()
    assert_close(out, ref, 1e-12, 1e-14)
    assert_close(xa.grad, x.grad, 1e-12, 1e-14)


BAD = [
    ("max", (2, 3), dict(kernel_size=2), "3D or 4D"),
    ("max", (1, 2, 3, 4, 5), dict(kernel_size=2), "3D or 4D"),
    ("max", (1, 2, 4, 4), dict(kernel_size=0), "greater than zero"),
    ("max", (1, 2, 4, 4), dict(kernel_size=2, stride=0), "greater than zero"),
    ("max", (1, 2, 4, 4), dict(kernel_size=2, padding=2), "half"),
    ("max", (1, 2, 4, 4), dict(kernel_size=2, dilation=0), "greater than zero"),
    ("max", (1, 2, 2, 2), dict(kernel_size=3), "too small"),
    ("max", (1, 0, 4, 4), dict(kernel_size=2), "non-zero"),
    ("avg", (1, 2, 4, 4), dict(kernel_size=2, padding=2), "half"),
    ("avg", (1, 2, 2, 2), dict(kernel_size=3), "too small"),
    ("avg", (1, 2, 4, 4), dict(kernel_size=2, divisor_override=0), "divisor"),
]


@pytest.mark.parametrize("which, shape, kw, words", BAD, ids=[f"bad{i}" for i in range(len(BAD))])
def test_pool_errors_as_torch(which, shape, kw, words):
    x = torch.randn(*shape)
    fa, ft = (F.max_pool2d, TF.max_pool2d) if which == "max" else (F.avg_pool2d, TF.avg_pool2d)
    with pytest.raises(RuntimeError):
        ft(x, **kw)
    with pytest.raises(RuntimeError, match=words):
        fa(to_ak(x), **kw)


def test_pool_integer_input_refused():
    with pytest.raises(TypeError, match="float32 or float64"):
        F.max_pool2d(ak.zeros(1, 1, 4, 4, dtype=ak.int64), 2)
