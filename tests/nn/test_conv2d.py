"""F.conv2d against torch.nn.functional.conv2d: values and all three gradients over a grid of
shapes, strides, paddings (ints, pairs, 'same', 'valid'), dilations and groups; gradcheck in
float64; PyTorch's errors (exception classes) for bad input."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

import aakaar as ak
import aakaar.nn.functional as F
from tests.nn.nn_helpers import assert_close, to_ak, to_np

torch = pytest.importorskip("torch")
TF = torch.nn.functional

# (N, C, H, W, O, kH, kW, stride, padding, dilation, groups)
CASES = [
    (2, 3, 7, 6, 4, 3, 3, 1, 0, 1, 1),
    (2, 3, 7, 6, 4, 3, 3, 1, 1, 1, 1),
    (1, 4, 9, 8, 6, 3, 2, (2, 1), (1, 0), (1, 2), 2),
    (3, 2, 5, 5, 3, 1, 1, 1, 0, 1, 1),        # 1x1: the image is its own im2col
    (2, 4, 6, 7, 4, 1, 1, 2, 0, 1, 4),        # 1x1 strided, depthwise
    (2, 6, 8, 8, 6, 3, 3, 1, 1, 1, 6),        # depthwise 3x3
    (2, 4, 10, 9, 8, 5, 3, 3, 2, 2, 2),
    (1, 1, 28, 28, 8, 3, 3, 1, 1, 1, 1),      # an EMNIST-shaped first layer
    (2, 3, 6, 6, 2, 6, 6, 1, 0, 1, 1),        # the kernel is the whole image
    (2, 3, 5, 4, 4, 3, 3, 4, 2, 1, 1),        # stride larger than the kernel
    (1, 2, 7, 7, 2, 2, 2, 1, "same", 1, 1),   # even kernel: one more zero after
    (1, 2, 7, 8, 4, 3, 2, 1, "same", (2, 3), 2),
    (2, 2, 5, 6, 3, 3, 3, 1, "valid", 1, 1),
    (0, 2, 5, 5, 3, 3, 3, 1, 1, 1, 1),        # an empty batch
    (2, 3, 3, 3, 4, 3, 3, 1, (0, 2), (1, 1), 1),
    # stride 1 and Wo == W: im2col's one-flat-copy-per-tap path, with Ho != H too
    (2, 3, 6, 5, 4, 3, 3, 1, (0, 1), 1, 1),
    (1, 2, 5, 6, 3, 3, 3, 1, (2, 1), (2, 1), 1),
    (1, 2, 4, 3, 2, 5, 3, 1, (3, 1), 1, 1),    # taps entirely in the padding rows
]


def _inputs(case, dtype, seed=0):
    N, C, H, W, O, kH, kW, stride, padding, dilation, groups = case
    rng = np.random.default_rng(seed)
    x = torch.tensor(rng.standard_normal((N, C, H, W)), dtype=dtype, requires_grad=True)
    w = torch.tensor(rng.standard_normal((O, C // groups, kH, kW)), dtype=dtype, requires_grad=True)
    b = torch.tensor(rng.standard_normal(O), dtype=dtype, requires_grad=True)
    return x, w, b, dict(stride=stride, padding=padding, dilation=dilation, groups=groups)


# torch (the reference) warns that its even-kernel 'same' padding copies the input; nothing to act on here
@pytest.mark.filterwarnings("ignore:Using padding='same' with even kernel lengths")
@pytest.mark.parametrize("dtype", [torch.float64, torch.float32], ids=["float64", "float32"])
@pytest.mark.parametrize("case", CASES, ids=[f"case{i}" for i in range(len(CASES))])
@pytest.mark.parametrize("with_bias", [True, False], ids=["bias", "nobias"])
def test_conv2d_matches_torch(case, dtype, with_bias):
    x, w, b, kw = _inputs(case, dtype)
    ref = TF.conv2d(x, w, b if with_bias else None, **kw)
    g = torch.tensor(np.random.default_rng(1).standard_normal(tuple(ref.shape)), dtype=dtype)
    (ref * g).sum().backward()
    xa, wa, ba = (to_ak(t).requires_grad_() for t in (x, w, b))
    out = F.conv2d(xa, wa, ba if with_bias else None, **kw)
    (out * to_ak(g)).sum().backward()
    pairs = [(out, ref, "output"), (xa.grad, x.grad, "grad input"), (wa.grad, w.grad, "grad weight")]
    for got, want, what in pairs + ([(ba.grad, b.grad, "grad bias")] if with_bias else []):
        if dtype == torch.float64:
            assert_close(got, want, 1e-10, 1e-12, what)
        else:  # float32 sums of many terms that cancel: the error scales with the largest value
            assert_close(got, want, 1e-5, 1e-6 * (1 + float(want.detach().abs().max()) if want.numel() else 1), what)
    if not with_bias:
        assert ba.grad is None


def test_conv2d_random_grid():
    """Random combinations of every option (seeded), float64, against torch."""
    rng = np.random.default_rng(7)
    for _ in range(40):
        groups = int(rng.choice([1, 2, 3]))
        C, O = groups * int(rng.integers(1, 3)), groups * int(rng.integers(1, 3))
        kH, kW = int(rng.integers(1, 4)), int(rng.integers(1, 4))
        stride = (int(rng.integers(1, 4)), int(rng.integers(1, 4)))
        dilation = (int(rng.integers(1, 3)), int(rng.integers(1, 3)))
        padding = (int(rng.integers(0, 3)), int(rng.integers(0, 3)))
        H = max(int(rng.integers(1, 9)), dilation[0] * (kH - 1) + 1 - 2 * padding[0])
        W = max(int(rng.integers(1, 9)), dilation[1] * (kW - 1) + 1 - 2 * padding[1])
        case = (int(rng.integers(1, 4)), C, H, W, O, kH, kW, stride, padding, dilation, groups)
        x, w, b, kw = _inputs(case, torch.float64, seed=int(rng.integers(1 << 30)))
        ref = TF.conv2d(x, w, b, **kw)
        ref.sum().backward()
        xa, wa, ba = (to_ak(t).requires_grad_() for t in (x, w, b))
        out = F.conv2d(xa, wa, ba, **kw)
        out.sum().backward()
        for got, want, what in [(out, ref, "out"), (xa.grad, x.grad, "gx"), (wa.grad, w.grad, "gw"),
                                (ba.grad, b.grad, "gb")]:
            assert_close(got, want, 1e-10, 1e-12, f"{what} {case}")


def test_conv2d_unbatched_and_strided_views():
    x = torch.randn(3, 8, 7, dtype=torch.float64)
    w = torch.randn(5, 3, 3, 3, dtype=torch.float64)
    assert_close(F.conv2d(to_ak(x), to_ak(w), padding=1), TF.conv2d(x, w, padding=1), 1e-10, 1e-12)
    # a transposed (non-contiguous) input: read through its strides
    base = torch.randn(2, 3, 8, 7, dtype=torch.float64)
    xa = to_ak(base).transpose(2, 3)
    assert not xa.is_contiguous()
    assert_close(F.conv2d(xa, to_ak(w)), TF.conv2d(base.transpose(2, 3), w), 1e-10, 1e-12)


def test_conv2d_gradient_through_noncontiguous_grad():
    """g arriving with stride 0 (from a sum's expand) is read correctly."""
    x = torch.randn(2, 2, 5, 5, dtype=torch.float64, requires_grad=True)
    w = torch.randn(3, 2, 3, 3, dtype=torch.float64, requires_grad=True)
    TF.conv2d(x, w, stride=2).sum().backward()
    xa, wa = to_ak(x).requires_grad_(), to_ak(w).requires_grad_()
    F.conv2d(xa, wa, stride=2).sum().backward()
    assert_close(xa.grad, x.grad, 1e-10, 1e-12)
    assert_close(wa.grad, w.grad, 1e-10, 1e-12)


@pytest.mark.parametrize("kw", [dict(), dict(stride=2, padding=1), dict(dilation=2, padding="same"),
                                dict(groups=2, stride=(1, 2), padding=(2, 0))])
def test_conv2d_gradcheck(kw):
    rng = np.random.default_rng(3)
    x = ak.from_numpy(rng.standard_normal((2, 4, 6, 5))).requires_grad_()
    w = ak.from_numpy(rng.standard_normal((4, 4 // kw.get("groups", 1), 3, 2))).requires_grad_()
    b = ak.from_numpy(rng.standard_normal(4)).requires_grad_()
    assert ak.autograd.gradcheck(lambda x, w, b: F.conv2d(x, w, b, **kw), (x, w, b))


def _both_raise(fn_ak, fn_torch, cls):
    with pytest.raises(cls) as torch_err:
        fn_torch()
    with pytest.raises(cls) as ak_err:
        fn_ak()
    return str(torch_err.value), str(ak_err.value)


BAD = [
    # (input shape, weight shape, bias shape, kwargs, exception class, words of aakaar's message)
    ((2, 4, 5, 5), (3, 3, 3, 3), None, {}, RuntimeError, "channels"),
    ((2, 4, 5, 5), (3, 2, 3, 3), None, dict(groups=2), RuntimeError, "divisible"),
    ((2, 4, 5, 5), (3, 1, 3, 3), None, dict(groups=3), RuntimeError, "channels"),
    ((2, 3, 4, 4), (2, 3, 5, 5), None, {}, RuntimeError, "Kernel size can't be greater"),
    ((2, 3, 4, 4), (2, 3, 3, 3), None, dict(dilation=2), RuntimeError, "Kernel size can't be greater"),
    ((2, 3, 4), (2, 3, 3, 3), None, {}, RuntimeError, "input"),    # 3-d input is (C, H, W): channel mismatch
    ((3, 4), (2, 3, 3, 3), None, {}, RuntimeError, "3D (unbatched) or 4D"),
    ((1, 2, 3, 4, 5), (2, 2, 3, 3), None, {}, RuntimeError, "3D (unbatched) or 4D"),
    ((2, 3, 5, 5), (2, 3, 3), None, {}, RuntimeError, "weight"),
    ((2, 3, 5, 5), (2, 3, 3, 3), (3,), {}, RuntimeError, "bias"),
    ((2, 3, 5, 5), (2, 3, 3, 3), None, dict(stride=0), RuntimeError, "stride"),
    ((2, 3, 5, 5), (2, 3, 3, 3), None, dict(padding=-1), RuntimeError, "padding"),
    ((2, 3, 5, 5), (2, 3, 3, 3), None, dict(dilation=0), RuntimeError, "dilation"),
    ((2, 3, 5, 5), (2, 3, 3, 3), None, dict(groups=0), RuntimeError, "groups"),
    ((2, 3, 5, 5), (2, 3, 3, 3), None, dict(padding="same", stride=2), RuntimeError, "strided"),
    ((2, 3, 5, 5), (2, 3, 3, 3), None, dict(padding="full"), RuntimeError, "Invalid padding string"),
    ((2, 3, 5, 5), (2, 3, 3, 3), None, dict(stride=(1, 1, 1)), RuntimeError, "stride"),
]


@pytest.mark.parametrize("xs, ws, bs, kw, cls, words", BAD, ids=[f"bad{i}" for i in range(len(BAD))])
def test_conv2d_errors_as_torch(xs, ws, bs, kw, cls, words):
    x, w = torch.randn(*xs), torch.randn(*ws)
    b = torch.randn(*bs) if bs else None
    _, msg = _both_raise(lambda: F.conv2d(to_ak(x), to_ak(w), to_ak(b) if b is not None else None, **kw),
                         lambda: TF.conv2d(x, w, b, **kw), cls)
    assert words in msg


def test_conv2d_dtype_errors():
    x, w = torch.randn(1, 2, 4, 4), torch.randn(2, 2, 3, 3, dtype=torch.float64)
    _both_raise(lambda: F.conv2d(to_ak(x), to_ak(w)), lambda: TF.conv2d(x, w), RuntimeError)
    xi = torch.zeros(1, 2, 4, 4, dtype=torch.int64)
    wi = torch.zeros(2, 2, 3, 3, dtype=torch.int64)
    # torch convolves int64 on the CPU; aakaar's kernels are float32/float64 only and say so
    # (a DTypeError: both the TypeError and the RuntimeError a PyTorch user would catch)
    with pytest.raises(TypeError, match="float32 or float64, got int64"):
        F.conv2d(to_ak(xi), to_ak(wi))
    with pytest.raises(RuntimeError):
        F.conv2d(to_ak(xi), to_ak(wi))
    with pytest.raises(TypeError):
        F.conv2d(to_np(x), to_ak(w))


def test_conv2d_float32_threads_agree():
    """The threaded path (chunks of images, partial weight gradients) gives torch's answer."""
    old = ak.get_num_threads()
    try:
        ak.set_num_threads(2)
        x = torch.randn(16, 8, 14, 14, requires_grad=True)
        w = torch.randn(16, 8, 3, 3, requires_grad=True)
        ref = TF.conv2d(x, w, padding=1)
        ref.square().sum().backward()
        xa, wa = to_ak(x).requires_grad_(), to_ak(w).requires_grad_()
        out = F.conv2d(xa, wa, padding=1)
        out.square().sum().backward()
        assert_close(out, ref, 1e-5, 1e-4)
        assert_close(xa.grad, x.grad, 1e-5, 1e-3)
        assert_close(wa.grad, w.grad, 1e-5, 1e-2)
    finally:
        ak.set_num_threads(old)


@pytest.mark.parametrize("needs", ["x", "w", "b", "xw", "wb"])
def test_conv2d_gradient_subsets(needs):
    """Only the gradients asked for are computed, and each is still right."""
    x, w, b, kw = _inputs((2, 4, 7, 6, 4, 3, 3, 2, 1, 1, 2), torch.float64)
    leaves_t = {"x": x, "w": w, "b": b}
    for name, t in leaves_t.items():
        t.requires_grad_(name in needs)
    TF.conv2d(x, w, b, **kw).square().sum().backward()
    xa, wa, ba = (to_ak(t).requires_grad_(name in needs) for name, t in leaves_t.items())
    F.conv2d(xa, wa, ba, **kw).square().sum().backward()
    for name, (a, t) in zip("xwb", [(xa, x), (wa, w), (ba, b)]):
        if name in needs:
            assert_close(a.grad, t.grad, 1e-10, 1e-12, name)
        else:
            assert a.grad is None


def test_conv2d_no_grad_records_nothing():
    x = ak.randn(1, 2, 5, 5, requires_grad=True)
    w = ak.randn(3, 2, 3, 3, requires_grad=True)
    with ak.no_grad():
        out = F.conv2d(x, w)
    assert not out.requires_grad and out.grad_fn is None
    assert F.conv2d(x, w).grad_fn.name() == "ConvolutionBackward0"
