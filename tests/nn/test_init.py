"""nn.init: the distributions have the documented bounds and spreads (loose
statistical checks on large tensors), gains agree with torch, seeding reproduces."""

from __future__ import annotations

import math

import numpy as np
import pytest

import aakaar as ak
import aakaar.nn as nn
from nn_helpers import torch


@pytest.mark.parametrize("nonlinearity,param", [
    ("linear", None), ("sigmoid", None), ("tanh", None), ("relu", None), ("leaky_relu", None),
    ("leaky_relu", 0.2), ("leaky_relu", math.sqrt(5)), ("selu", None), ("conv2d", None),
])
def test_calculate_gain_matches_torch(nonlinearity, param):
    assert nn.init.calculate_gain(nonlinearity, param) == pytest.approx(torch.nn.init.calculate_gain(nonlinearity, param))


def _stats(t):
    a = t.numpy().astype(np.float64)
    return a.min(), a.max(), a.mean(), a.std()


def test_uniform_and_normal():
    ak.manual_seed(0)
    t = ak.empty(400, 500)
    nn.init.uniform_(t, -2.0, 3.0)
    lo, hi, mean, std = _stats(t)
    assert -2.0 <= lo and hi < 3.0 and abs(mean - 0.5) < 0.02 and abs(std - 5 / math.sqrt(12)) < 0.02
    nn.init.normal_(t, 1.5, 0.5)
    _, _, mean, std = _stats(t)
    assert abs(mean - 1.5) < 0.01 and abs(std - 0.5) < 0.01
    nn.init.constant_(t, 0.25)
    assert np.all(t.numpy() == 0.25)
    nn.init.ones_(t)
    assert np.all(t.numpy() == 1)
    nn.init.zeros_(t)
    assert np.all(t.numpy() == 0)


@pytest.mark.parametrize("shape", [(300, 200), (64, 16, 3, 3)])
def test_xavier_and_kaiming_spreads(shape):
    ak.manual_seed(1)
    t = ak.empty(*shape, dtype=ak.float64)
    receptive = int(np.prod(shape[2:])) if len(shape) > 2 else 1
    fan_in, fan_out = shape[1] * receptive, shape[0] * receptive
    expected = {
        "xavier_uniform_": (lambda: nn.init.xavier_uniform_(t, gain=2.0), 2.0 * math.sqrt(2 / (fan_in + fan_out)), True),
        "xavier_normal_": (lambda: nn.init.xavier_normal_(t), math.sqrt(2 / (fan_in + fan_out)), False),
        "kaiming_uniform_": (lambda: nn.init.kaiming_uniform_(t, nonlinearity="relu"), math.sqrt(2 / fan_in), True),
        "kaiming_normal_": (lambda: nn.init.kaiming_normal_(t, mode="fan_out", nonlinearity="relu"),
                            math.sqrt(2 / fan_out), False),
        "kaiming_uniform_a": (lambda: nn.init.kaiming_uniform_(t, a=math.sqrt(5)), math.sqrt(1 / 3 / fan_in), True),
    }
    for name, (fill, std, uniform) in expected.items():
        fill()
        lo, hi, mean, got = _stats(t)
        assert abs(got / std - 1) < 0.05, f"{name}: std {got:.4g}, expected {std:.4g}"
        assert abs(mean) < 0.05 * std, name
        if uniform:
            assert max(-lo, hi) <= math.sqrt(3) * std * (1 + 1e-9), f"{name}: outside the uniform's bound"


def test_linear_default_init_follows_pytorch_formula():
    ak.manual_seed(2)
    lin = nn.Linear(400, 300)
    bound = 1 / math.sqrt(400)
    w, b = lin.weight.numpy(), lin.bias.numpy()
    assert np.abs(w).max() <= bound and np.abs(b).max() <= bound
    assert abs(w.std() - bound / math.sqrt(3)) < 0.03 * bound  # U(-bound, bound): std = bound / sqrt(3)
    assert abs(b.std() - bound / math.sqrt(3)) < 0.15 * bound
    assert lin.weight.is_leaf and lin.weight.grad_fn is None  # init recorded no graph


def test_seeded_reproducibility_and_generator():
    ak.manual_seed(42)
    a = nn.Sequential(nn.Linear(5, 4), nn.Embedding(3, 2))
    ak.manual_seed(42)
    b = nn.Sequential(nn.Linear(5, 4), nn.Embedding(3, 2))
    for (k, va), vb in zip(a.state_dict().items(), b.state_dict().values()):
        np.testing.assert_array_equal(va.numpy(), vb.numpy(), err_msg=k)
    c = nn.Linear(5, 4)  # the stream moved on: different weights
    assert not np.array_equal(c.weight.numpy(), a[0].weight.numpy())

    g1, g2 = ak.Generator().manual_seed(7), ak.Generator().manual_seed(7)
    t1, t2 = ak.empty(10, 10), ak.empty(10, 10)
    ak.manual_seed(0)
    nn.init.kaiming_normal_(t1, generator=g1)
    ak.manual_seed(99)  # the default stream does not matter when a generator is given
    nn.init.kaiming_normal_(t2, generator=g2)
    np.testing.assert_array_equal(t1.numpy(), t2.numpy())


def test_init_on_parameters_works_and_bad_input_raises():
    p = nn.Parameter(ak.empty(3, 4))
    nn.init.xavier_uniform_(p)  # in place on a leaf that requires grad: allowed because it runs under no_grad
    assert p.requires_grad and p.grad_fn is None
    with pytest.raises(ValueError, match="at least 2 dims"):
        nn.init.kaiming_uniform_(ak.empty(5))
    with pytest.raises(TypeError, match="floating-point"):
        nn.init.normal_(ak.zeros(3, dtype=ak.int64))
    with pytest.raises(ValueError, match="mode"):
        nn.init.kaiming_normal_(ak.empty(2, 2), mode="fan_avg")
    with pytest.raises(ValueError, match="unsupported nonlinearity"):
        nn.init.calculate_gain("swish")
    with pytest.raises(ValueError, match="a <= b"):
        nn.init.uniform_(ak.empty(2), 1.0, 0.0)
