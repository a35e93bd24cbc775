"""nn.Conv2d, nn.MaxPool2d, nn.AvgPool2d, nn.AdaptiveAvgPool2d against torch.nn: initialisation,
state_dict names, printed form, a small CNN's forward and backward with torch's weights, errors."""

from __future__ import annotations

import math

import numpy as np
import pytest

import aakaar as ak
from aakaar import nn
from tests.nn.nn_helpers import assert_close, copy_weights, to_ak

torch = pytest.importorskip("torch")


def test_conv2d_init_bounds_and_spread():
    m = nn.Conv2d(8, 16, (3, 5), groups=2)
    fan_in = 4 * 3 * 5
    bound = 1 / math.sqrt(fan_in)  # kaiming_uniform with a=sqrt(5): U(±1/sqrt(fan_in)), as the bias
    w, b = np.asarray(m.weight.detach()), np.asarray(m.bias.detach())
    assert w.shape == (16, 4, 3, 5) and b.shape == (16,)
    assert np.abs(w).max() <= bound and np.abs(b).max() <= bound
    # a uniform on ±bound has standard deviation bound / sqrt(3)
    assert abs(w.std() - bound / math.sqrt(3)) < 0.1 * bound
    assert np.abs(w).max() > 0.9 * bound


def test_conv2d_state_dict_names_and_repr_as_torch():
    for args, kw in [((3, 8, 3), dict(padding=1, bias=False)), ((4, 8, (3, 2)), dict(stride=2, padding="valid",
                                                                                       dilation=2, groups=2)),
                     ((2, 4, 5), dict(padding="same", dilation=(1, 2)))]:
        a, t = nn.Conv2d(*args, **kw), torch.nn.Conv2d(*args, **kw)
        assert list(a.state_dict()) == list(t.state_dict())
        assert repr(a) == repr(t)
    for a, t in [(nn.MaxPool2d(2), torch.nn.MaxPool2d(2)),
                 (nn.MaxPool2d(3, 2, 1, ceil_mode=True), torch.nn.MaxPool2d(3, 2, 1, ceil_mode=True)),
                 (nn.AvgPool2d(3, 1, 1), torch.nn.AvgPool2d(3, 1, 1)),
                 (nn.AdaptiveAvgPool2d((2, 3)), torch.nn.AdaptiveAvgPool2d((2, 3))),
                 (nn.Flatten(), torch.nn.Flatten())]:
        assert repr(a) == repr(t)


def _cnn(lib):
    return lib.Sequential(
        lib.Conv2d(1, 4, 3, padding=1), lib.ReLU(), lib.MaxPool2d(2),
        lib.Conv2d(4, 8, 3, padding=1), lib.ReLU(), lib.AvgPool2d(2),
        lib.Flatten(), lib.Linear(8 * 3 * 3, 5),
    )


def test_small_cnn_matches_torch_with_its_weights():
    torch.manual_seed(0)
    ref = _cnn(torch.nn).double()
    net = _cnn(nn).double()
    copy_weights(net, ref)
    x = torch.randn(4, 1, 12, 12, dtype=torch.float64)
    y = torch.tensor([0, 3, 1, 4])
    loss_t = torch.nn.functional.cross_entropy(ref(x), y)
    loss_t.backward()
    loss_a = ak.nn.functional.cross_entropy(net(to_ak(x)), to_ak(y))
    loss_a.backward()
    assert net[0].weight.dtype == ak.float64
    assert_close(loss_a, loss_t, 1e-10)
    grads_t = dict(ref.named_parameters())
    for name, p in net.named_parameters():
        assert_close(p.grad, grads_t[name].grad, 1e-9, 1e-12, name)


def test_maxpool_module_return_indices_and_adaptive():
    x = torch.randn(2, 3, 8, 8)
    out, idx = nn.MaxPool2d(2, return_indices=True)(to_ak(x))
    ref, ref_idx = torch.nn.MaxPool2d(2, return_indices=True)(x)
    assert_close(out, ref, 0)
    np.testing.assert_array_equal(np.asarray(idx), ref_idx.numpy())
    assert_close(nn.AdaptiveAvgPool2d(1)(to_ak(x)), torch.nn.AdaptiveAvgPool2d(1)(x), 1e-6, 1e-7)


@pytest.mark.parametrize("mode", ["reflect", "replicate", "circular"])
@pytest.mark.parametrize("padding", [1, (2, 1), "same"])
def test_conv2d_other_padding_modes_match_torch(mode, padding):
    torch.manual_seed(0)
    ref = torch.nn.Conv2d(2, 3, (3, 4), padding=padding, padding_mode=mode).double()
    net = nn.Conv2d(2, 3, (3, 4), padding=padding, padding_mode=mode, dtype=ak.float64)
    copy_weights(net, ref)
    x = torch.randn(2, 2, 6, 7, dtype=torch.float64)
    assert_close(net(to_ak(x)), ref(x), 1e-10, 1e-12)
    assert repr(net) == repr(ref)


def test_conv2d_module_errors_as_torch():
    for kw in [dict(groups=2, in_channels=3), dict(groups=0), dict(padding="same", stride=2),
               dict(padding="full"), dict(padding_mode="mirror")]:
        args = dict(in_channels=4, out_channels=4, kernel_size=3)
        args.update(kw)
        with pytest.raises(ValueError):
            torch.nn.Conv2d(**args)
        with pytest.raises(ValueError):
            nn.Conv2d(**args)
