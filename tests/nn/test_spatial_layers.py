"""The new layers against torch.nn: Conv1d/3d, ConvTranspose1d/2d, the 1-d and adaptive poolings,
MaxUnpool, BatchNorm2d/3d (running statistics, momentum None, eval, state_dict names), Dropout1d/2d/3d,
Upsample and the padding layers: printed form, state_dict names, init bounds, forward and backward
with torch's weights."""

from __future__ import annotations

import math

import numpy as np
import pytest

import aakaar as ak
from aakaar import nn
from tests.nn.nn_helpers import assert_close, copy_weights, to_ak

torch = pytest.importorskip("torch")

PAIRS = [
    ("Conv1d", (2, 4, 3), dict(padding=1, groups=2)),
    ("Conv1d", (2, 4, 3), dict(padding="same", padding_mode="circular")),
    ("Conv3d", (2, 4, (3, 2, 1)), dict(stride=2, padding_mode="reflect", padding=1)),
    ("Conv3d", (2, 2, 2), dict(bias=False, dilation=(1, 2, 1))),
    ("ConvTranspose1d", (4, 6, 3), dict(stride=2, output_padding=1, groups=2)),
    ("ConvTranspose2d", (4, 6, (3, 2)), dict(stride=2, padding=1, dilation=2)),
    ("ConvTranspose2d", (2, 3, 3), dict(bias=False)),
    ("ConvTranspose3d", (2, 4, (2, 3, 2)), dict(stride=(2, 1, 2), padding=1, output_padding=(1, 0, 0), groups=2)),
]
SPATIAL = {"Conv1d": (9,), "Conv3d": (5, 6, 4), "ConvTranspose1d": (5,), "ConvTranspose2d": (4, 3),
           "ConvTranspose3d": (3, 2, 4)}


@pytest.mark.parametrize("name, args, kw", PAIRS, ids=[f"{p[0]}{i}" for i, p in enumerate(PAIRS)])
def test_conv_modules_match_torch(name, args, kw):
    torch.manual_seed(0)
    ref = getattr(torch.nn, name)(*args, **kw).double()
    net = getattr(nn, name)(*args, **kw, dtype=ak.float64)
    assert repr(net) == repr(ref)
    assert list(net.state_dict()) == list(ref.state_dict())
    assert tuple(net.weight.shape) == tuple(ref.weight.shape)
    fan_in = ref.weight.shape[1] * math.prod(ref.weight.shape[2:])
    assert np.abs(np.asarray(net.weight.detach())).max() <= 1 / math.sqrt(fan_in)
    copy_weights(net, ref)
    x = torch.randn(2, args[0], *SPATIAL[name], dtype=torch.float64, requires_grad=True)
    out_t = ref(x)
    xa = to_ak(x).requires_grad_()
    out_a = net(xa)
    assert_close(out_a, out_t, 1e-10, 1e-12)
    out_t.square().sum().backward()
    out_a.square().sum().backward()
    assert_close(xa.grad, x.grad, 1e-10, 1e-12)
    grads = dict(ref.named_parameters())
    for pname, p in net.named_parameters():
        assert_close(p.grad, grads[pname].grad, 1e-10, 1e-12, pname)


def test_conv_transpose_output_size():
    torch.manual_seed(0)
    ref = torch.nn.ConvTranspose2d(2, 3, 3, stride=2, padding=1).double()
    net = nn.ConvTranspose2d(2, 3, 3, stride=2, padding=1, dtype=ak.float64)
    copy_weights(net, ref)
    x = torch.randn(1, 2, 4, 4, dtype=torch.float64)
    for size in [(7, 7), (8, 7), [1, 3, 8, 8]]:
        assert_close(net(to_ak(x), output_size=size), ref(x, output_size=size), 1e-10, 1e-12)
    with pytest.raises(ValueError):
        ref(x, output_size=(9, 9))
    with pytest.raises(ValueError):
        net(to_ak(x), output_size=(9, 9))


def test_pool_modules_match_torch():
    x = torch.randn(2, 3, 9, 8, dtype=torch.float64)
    x1 = x.reshape(2, 3, 72)
    for a, t, inp in [
        (nn.MaxPool1d(3, 2, 1), torch.nn.MaxPool1d(3, 2, 1), x1),
        (nn.AvgPool1d(4, 3, 2, ceil_mode=True), torch.nn.AvgPool1d(4, 3, 2, ceil_mode=True), x1),
        (nn.AdaptiveAvgPool1d(5), torch.nn.AdaptiveAvgPool1d(5), x1),
        (nn.AdaptiveMaxPool1d(7), torch.nn.AdaptiveMaxPool1d(7), x1),
        (nn.AdaptiveMaxPool2d((4, 3)), torch.nn.AdaptiveMaxPool2d((4, 3)), x),
    ]:
        assert repr(a) == repr(t)
        assert_close(a(to_ak(inp)), t(inp), 1e-12, 0, repr(a))
    pool_t, unpool_t = torch.nn.MaxPool2d(2, return_indices=True), torch.nn.MaxUnpool2d(2)
    pooled, idx = pool_t(x)
    unpool = nn.MaxUnpool2d(2)
    assert repr(unpool) == repr(unpool_t)
    assert_close(unpool(to_ak(pooled), to_ak(idx), output_size=x.shape), unpool_t(pooled, idx, output_size=x.shape),
                 0, 0)


@pytest.mark.parametrize("cls, shape", [("BatchNorm2d", (4, 3, 5, 6)), ("BatchNorm3d", (3, 3, 2, 4, 3))])
@pytest.mark.parametrize("kw", [dict(), dict(momentum=None), dict(affine=False), dict(track_running_stats=False),
                                dict(momentum=0.3, eps=1e-3)], ids=["default", "cumulative", "noaffine", "nostats",
                                                                    "momentum"])
def test_batchnorm_nd_matches_torch(cls, shape, kw):
    torch.manual_seed(0)
    ref = getattr(torch.nn, cls)(3, **kw).double()
    net = getattr(nn, cls)(3, **kw, dtype=ak.float64)
    assert repr(net) == repr(ref)
    assert list(net.state_dict()) == list(ref.state_dict())
    if ref.affine:
        with torch.no_grad():
            ref.weight.uniform_(0.5, 1.5)
            ref.bias.uniform_(-0.5, 0.5)
    copy_weights(net, ref)
    for step in range(3):  # training steps update the running statistics
        x = torch.randn(*shape, dtype=torch.float64, requires_grad=True) * (step + 1) + step
        x.retain_grad()
        xa = to_ak(x).requires_grad_()
        out_t, out_a = ref(x), net(xa)
        assert_close(out_a, out_t, 1e-10, 1e-12, f"train step {step}")
        out_t.square().sum().backward()
        out_a.square().sum().backward()
        assert_close(xa.grad, x.grad, 1e-9, 1e-11, f"grad step {step}")
    for name, buf in ref.state_dict().items():
        assert_close(net.state_dict()[name], buf, 1e-12, 1e-14, name)
    ref.eval(), net.eval()
    x = torch.randn(*shape, dtype=torch.float64)
    assert_close(net(to_ak(x)), ref(x), 1e-10, 1e-12, "eval")


def test_batchnorm2d_rejects_other_ranks():
    with pytest.raises(ValueError):
        torch.nn.BatchNorm2d(3)(torch.randn(2, 3, 4))
    with pytest.raises(ValueError):
        nn.BatchNorm2d(3)(ak.randn(2, 3, 4))


@pytest.mark.parametrize("cls, shape, mask_dims", [
    ("Dropout1d", (8, 16, 50), 2), ("Dropout1d", (128, 50), 1), ("Dropout2d", (8, 16, 7, 7), 2),
    ("Dropout3d", (4, 16, 3, 4, 5), 2), ("Dropout3d", (128, 3, 4, 5), 1),
])
def test_channel_dropout_zeroes_whole_channels(cls, shape, mask_dims):
    ak.manual_seed(0)
    m = getattr(nn, cls)(p=0.4)
    assert repr(m).startswith(f"{cls}(p=0.4")
    x = ak.ones(*shape, dtype=ak.float64)
    y = np.asarray(m(x))
    lead = shape[:mask_dims]
    per_channel = y.reshape(*lead, -1)
    # each channel is all zeros or all 1 / (1 - p)
    assert np.all((per_channel == 0).all(-1) | np.isclose(per_channel, 1 / 0.6).all(-1))
    dropped = (per_channel == 0).all(-1).mean()
    assert 0.25 < dropped < 0.55
    m.eval()
    assert np.array_equal(np.asarray(m(x)), np.asarray(x))


def test_dropout1d_bad_rank_as_torch():
    with pytest.raises(RuntimeError):
        torch.nn.functional.dropout1d(torch.randn(2, 3, 4, 5))
    with pytest.raises(RuntimeError):
        ak.nn.functional.dropout1d(ak.randn(2, 3, 4, 5))


@pytest.mark.parametrize("a, t, shape", [
    (nn.Upsample(scale_factor=2), torch.nn.Upsample(scale_factor=2), (1, 2, 3, 4)),
    (nn.Upsample(size=(5, 7), mode="bilinear"), torch.nn.Upsample(size=(5, 7), mode="bilinear"), (1, 2, 3, 4)),
    (nn.Upsample(scale_factor=1.5, mode="linear", align_corners=True),
     torch.nn.Upsample(scale_factor=1.5, mode="linear", align_corners=True), (2, 2, 5)),
    (nn.UpsamplingBilinear2d(scale_factor=2), torch.nn.UpsamplingBilinear2d(scale_factor=2), (1, 2, 3, 4)),
    (nn.UpsamplingNearest2d(size=5), torch.nn.UpsamplingNearest2d(size=5), (1, 2, 3, 4)),
    (nn.ZeroPad2d((1, 2, 0, 3)), torch.nn.ZeroPad2d((1, 2, 0, 3)), (1, 2, 3, 4)),
    (nn.ConstantPad1d(2, 3.5), torch.nn.ConstantPad1d(2, 3.5), (2, 3, 4)),
    (nn.ConstantPad3d(1, -1.0), torch.nn.ConstantPad3d(1, -1.0), (1, 2, 3, 4, 2)),
    (nn.ReflectionPad1d((2, 1)), torch.nn.ReflectionPad1d((2, 1)), (2, 3, 4)),
    (nn.ReflectionPad2d(2), torch.nn.ReflectionPad2d(2), (1, 2, 3, 4)),
    (nn.ReplicationPad2d((1, 0, 2, 3)), torch.nn.ReplicationPad2d((1, 0, 2, 3)), (1, 2, 3, 4)),
    (nn.ReplicationPad3d(1), torch.nn.ReplicationPad3d(1), (1, 2, 3, 4, 2)),
    (nn.CircularPad2d(1), torch.nn.CircularPad2d(1), (1, 2, 3, 4)),
], ids=lambda v: type(v).__name__ if not isinstance(v, tuple) else None)
def test_resampling_and_padding_layers_match_torch(a, t, shape):
    assert repr(a) == repr(t)
    x = torch.randn(*shape, dtype=torch.float64)
    assert_close(a(to_ak(x)), t(x), 1e-12, 1e-14)
