"""Convolution and pooling on the device (csrc/cuda/conv_ops.cu, pool_ops.cu) against the CPU's
kernels: values and gradients through the Python API, over strides, paddings, dilations, groups
(depthwise included), ceil_mode, count_include_pad, divisor_override and both float dtypes; conv1d,
conv3d, the transposed convolutions and the adaptive pools reach the same table entries. Shapes are
small: the suite runs on the emulator in CI, on two cores."""
from __future__ import annotations

import numpy as np
import pytest

import aakaar
import aakaar.nn.functional as F

from cuda_suite_helpers import FLOATS

# float64: the same sums in another order; float32: rounding of sums of a few dozen terms.
TOL = {aakaar.float64: dict(rtol=1e-12, atol=1e-12), aakaar.float32: dict(rtol=1e-5, atol=1e-5)}


def _np(rng, shape, dtype):
    return rng.standard_normal(shape).astype(np.float32 if dtype == aakaar.float32 else np.float64)


def _run(fn, arrays, dtype, device, upstream_seed=7):
    """fn(*tensors) on `device`, then its backward from a fixed random upstream gradient: the
    output(s) and every input's gradient, as numpy arrays."""
    leaves = [aakaar.tensor(a).to(device).requires_grad_() if a is not None else None for a in arrays]
    out = fn(*leaves)
    outs = out if isinstance(out, tuple) else (out,)
    first = outs[0]
    up = aakaar.tensor(_np(np.random.default_rng(upstream_seed), tuple(first.shape), dtype)).to(device)
    (first * up).sum().backward()
    for o in outs:
        assert o.device.type == device
    grads = [leaf.grad.cpu().numpy() if leaf is not None else None for leaf in leaves]
    return [o.detach().cpu().numpy() for o in outs], grads


def _tol(w: np.ndarray, dtype) -> dict:
    """TOL, with float32's absolute part scaled by the largest value: the CPU's float32 3x3 layers
    take Winograd's road (chapter 13b), whose rounding, like any sum that cancels, is relative to
    the largest terms rather than to each result."""
    tol = dict(TOL[dtype])
    if dtype == aakaar.float32 and w.size:
        tol["atol"] = max(tol["atol"], 2e-6 * float(np.abs(w).max()))
    return tol


def _compare(fn, arrays, dtype):
    got_out, got_grads = _run(fn, arrays, dtype, "cuda")
    want_out, want_grads = _run(fn, arrays, dtype, "cpu")
    for g, w in zip(got_out, want_out):
        if w.dtype == np.int64:
            np.testing.assert_array_equal(g, w)
        else:
            np.testing.assert_allclose(g, w, **_tol(w, dtype))
    for g, w in zip(got_grads, want_grads):
        if w is not None:
            np.testing.assert_allclose(g, w, **_tol(w, dtype))


def test_the_device_table_has_convolution_and_pooling():
    has = aakaar._C._backend_fused_kernels("cuda")
    for name in ("conv2d", "max_pool2d", "avg_pool2d"):
        assert has[name], name


# (N, C, H, W), (O, kH, kW), stride, padding, dilation, groups, bias
CONV2D = [
    ((2, 3, 7, 8), (4, 3, 3), 1, 0, 1, 1, True),
    ((1, 4, 9, 9), (6, 3, 3), 2, 1, 1, 2, True),
    ((2, 2, 8, 7), (3, 2, 3), (1, 2), (2, 1), (2, 1), 1, False),
    ((1, 6, 6, 6), (6, 3, 3), 1, 1, 1, 6, True),          # depthwise
    ((1, 4, 5, 5), (8, 3, 3), 1, "same", 2, 4, True),     # depthwise multiplier 2, 'same' + dilation
    ((3, 5, 4, 6), (7, 1, 1), 1, 0, 1, 1, True),          # pointwise
    ((1, 3, 10, 10), (2, 4, 4), 3, 2, 1, 1, True),        # padding larger than the stride's reach
    ((2, 16, 5, 5), (70, 3, 3), 1, 1, 1, 1, True),        # more than one 64-row tile; K > one 16-step
    ((2, 1, 20, 20), (4, 3, 3), 1, 0, 1, 1, True),        # a long weight-gradient sum: split into chunks
]


@pytest.mark.parametrize("dtype", FLOATS, ids=str)
@pytest.mark.parametrize("case", range(len(CONV2D)))
def test_conv2d_values_and_gradients(case, dtype, rng):
    xs, (O, kH, kW), stride, padding, dilation, groups, bias = CONV2D[case]
    w_shape = (O, xs[1] // groups, kH, kW)
    arrays = [_np(rng, xs, dtype), _np(rng, w_shape, dtype), _np(rng, (O,), dtype) if bias else None]
    _compare(lambda x, w, b: F.conv2d(x, w, b, stride, padding, dilation, groups), arrays, dtype)


@pytest.mark.parametrize("dtype", FLOATS, ids=str)
def test_conv1d_and_conv3d(dtype, rng):
    arrays = [_np(rng, (2, 4, 11), dtype), _np(rng, (6, 2, 3), dtype), _np(rng, (6,), dtype)]
    _compare(lambda x, w, b: F.conv1d(x, w, b, stride=2, padding=1, dilation=2, groups=2), arrays, dtype)
    arrays = [_np(rng, (1, 2, 4, 5, 5), dtype), _np(rng, (3, 2, 2, 3, 3), dtype), _np(rng, (3,), dtype)]
    _compare(lambda x, w, b: F.conv3d(x, w, b, stride=(1, 2, 1), padding=1), arrays, dtype)


@pytest.mark.parametrize("dtype", FLOATS, ids=str)
def test_transposed_convolutions(dtype, rng):
    arrays = [_np(rng, (2, 4, 5, 4), dtype), _np(rng, (4, 3, 3, 3), dtype), _np(rng, (6,), dtype)]
    _compare(lambda x, w, b: F.conv_transpose2d(x, w, b, stride=2, padding=1, output_padding=1, groups=2,
                                                dilation=1), arrays, dtype)
    arrays = [_np(rng, (1, 3, 6), dtype), _np(rng, (3, 2, 3), dtype), None]
    _compare(lambda x, w, b: F.conv_transpose1d(x, w, b, stride=3, padding=2, dilation=2), arrays, dtype)


def test_double_backward_of_conv2d(rng):
    """The gradient's gradient: conv2d's input and weight gradients are ops of their own,
    running the device's kernels again."""
    xa, wa = _np(rng, (1, 2, 5, 5), aakaar.float64), _np(rng, (3, 2, 3, 3), aakaar.float64)
    res = {}
    for dev in ("cpu", "cuda"):
        x = aakaar.tensor(xa).to(dev).requires_grad_()
        w = aakaar.tensor(wa).to(dev).requires_grad_()
        (gx,) = aakaar.autograd.grad(F.conv2d(x, w, stride=2, padding=1).pow(2).sum(), (x,), create_graph=True)
        gx.pow(2).sum().backward()
        res[dev] = (x.grad.cpu().numpy(), w.grad.cpu().numpy())
    for g, w in zip(res["cuda"], res["cpu"]):
        np.testing.assert_allclose(g, w, rtol=1e-12, atol=1e-12)


# (N, C, H, W), kernel, stride, padding, dilation, ceil_mode
MAX_POOL = [
    ((2, 3, 7, 7), 2, None, 0, 1, False),
    ((1, 2, 8, 9), 3, 2, 1, 1, True),
    ((1, 2, 9, 8), (3, 2), (2, 1), (1, 1), (2, 1), False),
    ((2, 1, 5, 5), 3, 3, 1, 1, True),
]


@pytest.mark.parametrize("dtype", FLOATS, ids=str)
@pytest.mark.parametrize("case", range(len(MAX_POOL)))
def test_max_pool2d_values_indices_and_gradients(case, dtype, rng):
    xs, k, s, p, d, ceil = MAX_POOL[case]
    _compare(lambda x: F.max_pool2d(x, k, s, p, d, ceil_mode=ceil, return_indices=True), [_np(rng, xs, dtype)],
             dtype)


def test_max_pool2d_ties_nan_and_infinity():
    x = np.zeros((1, 1, 4, 4))
    x[0, 0, 1, 1] = x[0, 0, 2, 3] = np.nan
    x[0, 0, 0, 2:] = -np.inf
    got = F.max_pool2d(aakaar.tensor(x).to("cuda"), 2, return_indices=True)
    want = F.max_pool2d(aakaar.tensor(x), 2, return_indices=True)
    np.testing.assert_array_equal(got[0].cpu().numpy(), want[0].numpy())
    np.testing.assert_array_equal(got[1].cpu().numpy(), want[1].numpy())


# (N, C, H, W), kernel, stride, padding, ceil_mode, count_include_pad, divisor_override
AVG_POOL = [
    ((2, 3, 6, 6), 2, None, 0, False, True, None),
    ((1, 2, 7, 8), 3, 2, 1, True, True, None),
    ((1, 2, 7, 8), 3, 2, 1, True, False, None),
    ((1, 2, 5, 9), (2, 3), (1, 2), (1, 1), False, False, 5),
]


@pytest.mark.parametrize("dtype", FLOATS, ids=str)
@pytest.mark.parametrize("case", range(len(AVG_POOL)))
def test_avg_pool2d_values_and_gradients(case, dtype, rng):
    xs, k, s, p, ceil, cip, div = AVG_POOL[case]
    _compare(lambda x: F.avg_pool2d(x, k, s, p, ceil, cip, div), [_np(rng, xs, dtype)], dtype)


@pytest.mark.parametrize("dtype", FLOATS, ids=str)
def test_1d_adaptive_and_unpooling(dtype, rng):
    x = [_np(rng, (2, 3, 11), dtype)]
    _compare(lambda x: F.max_pool1d(x, 3, 2, 1, ceil_mode=True, return_indices=True), x, dtype)
    _compare(lambda x: F.avg_pool1d(x, 4, 3, 2, count_include_pad=False), x, dtype)
    x = [_np(rng, (1, 2, 7, 9), dtype)]
    _compare(lambda x: F.adaptive_avg_pool2d(x, (3, 4)), x, dtype)
    _compare(lambda x: F.adaptive_max_pool2d(x, (4, 3), return_indices=True), x, dtype)

    def pool_unpool(x):
        out, idx = F.max_pool2d(x, 2, return_indices=True)
        return F.max_unpool2d(out, idx, 2, output_size=x.shape[-2:])

    _compare(pool_unpool, x, dtype)


def test_modules_move_to_the_device(rng):
    """A small CNN (conv, pool, linear) on the device follows the same model on the CPU."""
    import aakaar.nn as nn

    def cnn():
        return nn.Sequential(nn.Conv2d(1, 4, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2), nn.Conv2d(4, 4, 3, groups=2),
                             nn.AvgPool2d(2, ceil_mode=True), nn.Flatten(), nn.Linear(16, 3)).double()

    aakaar.manual_seed(0)
    cpu, gpu = cnn(), cnn()
    gpu.load_state_dict(cpu.state_dict())
    gpu.to("cuda")
    x = aakaar.tensor(_np(rng, (2, 1, 12, 12), aakaar.float64))
    want, got = cpu(x), gpu(x.to("cuda"))
    want.sum().backward()
    got.sum().backward()
    np.testing.assert_allclose(got.detach().cpu().numpy(), want.detach().numpy(), rtol=1e-12, atol=1e-12)
    for p, q in zip(gpu.parameters(), cpu.parameters()):
        assert p.device.type == "cuda"
        np.testing.assert_allclose(p.grad.cpu().numpy(), q.grad.numpy(), rtol=1e-12, atol=1e-12)


# Bad input raises on the device as on the CPU: the op's checks run before the table.
BAD = [
    lambda d: F.conv2d(aakaar.zeros(1, 4, 5, 5, device=d), aakaar.zeros(2, 3, 3, 3, device=d)),  # channels
    lambda d: F.conv2d(aakaar.zeros(1, 4, 5, 5, device=d), aakaar.zeros(3, 2, 3, 3, device=d), groups=2),  # O % G
    lambda d: F.conv2d(aakaar.zeros(1, 1, 2, 2, device=d), aakaar.zeros(1, 1, 3, 3, device=d)),  # kernel too big
    lambda d: F.conv2d(aakaar.zeros(1, 1, 5, 5, device=d), aakaar.zeros(1, 1, 3, 3, device=d), stride=0),
    lambda d: F.conv2d(aakaar.zeros(1, 1, 5, 5, device=d), aakaar.zeros(1, 1, 3, 3, device=d), padding=-1),
    lambda d: F.conv2d(aakaar.zeros(5, 5, device=d), aakaar.zeros(1, 1, 3, 3, device=d)),  # rank
    lambda d: F.conv2d(aakaar.zeros(1, 1, 5, 5, device=d), aakaar.zeros(1, 1, 3, 3, dtype=aakaar.float64, device=d)),
    lambda d: F.max_pool2d(aakaar.zeros(1, 1, 5, 5, device=d), 2, padding=2),  # pad > kernel / 2
    lambda d: F.avg_pool2d(aakaar.zeros(1, 1, 2, 2, device=d), 3),  # output too small
    lambda d: F.max_pool2d(aakaar.zeros(1, 1, 5, 5, dtype=aakaar.int64, device=d), 2),  # dtype
]


@pytest.mark.parametrize("case", range(len(BAD)))
def test_bad_input_raises_as_on_the_cpu(case):
    with pytest.raises(Exception) as on_cpu:
        BAD[case]("cpu")
    with pytest.raises(Exception) as on_cuda:
        BAD[case]("cuda")
    assert on_cuda.type is on_cpu.type
    assert "not implemented" not in str(on_cuda.value)
