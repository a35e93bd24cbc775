"""Philox random numbers: seeded reproducibility, Generator objects, and
distribution sanity with loose statistical bounds (fixed seeds, so these
tests are deterministic, yet they fail for a biased or broken generator)."""

from __future__ import annotations

import numpy as np
import pytest

import aakaar
from core_helpers import to_np


def test_manual_seed_reproduces_the_stream():
    aakaar.manual_seed(42)
    a = to_np(aakaar.rand(100))
    b = to_np(aakaar.randn(7, 3))
    aakaar.manual_seed(42)
    np.testing.assert_array_equal(to_np(aakaar.rand(100)), a)
    np.testing.assert_array_equal(to_np(aakaar.randn(7, 3)), b)
    # consecutive draws differ, other seeds differ
    assert not np.array_equal(to_np(aakaar.rand(100)), a)
    aakaar.manual_seed(43)
    assert not np.array_equal(to_np(aakaar.rand(100)), a)


def test_generator_objects_are_independent():
    g1 = aakaar.Generator().manual_seed(7)
    g2 = aakaar.Generator()
    g2.manual_seed(7)
    assert g1.initial_seed() == 7
    x1 = to_np(aakaar.rand(50, generator=g1))
    aakaar.manual_seed(0)
    aakaar.rand(10)  # the default generator does not disturb g2
    x2 = to_np(aakaar.rand(50, generator=g2))
    np.testing.assert_array_equal(x1, x2)
    state = g1.get_state()
    y = to_np(aakaar.randn(20, generator=g1, dtype=aakaar.float64))
    g1.set_state(state)
    np.testing.assert_array_equal(to_np(aakaar.randn(20, generator=g1, dtype=aakaar.float64)), y)
    for fn in (lambda g: aakaar.randint(0, 10, (30,), generator=g), lambda g: aakaar.randperm(30, generator=g),
               lambda g: aakaar.bernoulli(aakaar.full((30,), 0.5), generator=g)):
        ga, gb = aakaar.Generator().manual_seed(3), aakaar.Generator().manual_seed(3)
        np.testing.assert_array_equal(to_np(fn(ga)), to_np(fn(gb)))


def test_stream_does_not_depend_on_threads():
    g = aakaar.Generator().manual_seed(11)
    old = aakaar.get_num_threads()
    try:
        aakaar.set_num_threads(1)
        a = to_np(aakaar.randn(300_001, generator=g))
        g.manual_seed(11)
        aakaar.set_num_threads(2)
        b = to_np(aakaar.randn(300_001, generator=g))
    finally:
        aakaar.set_num_threads(old)
    np.testing.assert_array_equal(a, b)


@pytest.mark.parametrize("dt", [aakaar.float32, aakaar.float64])
def test_uniform_and_normal_statistics(dt):
    g = aakaar.Generator().manual_seed(2024)
    n = 200_000
    u = to_np(aakaar.rand(n, generator=g, dtype=dt)).astype(np.float64)
    assert u.dtype == np.float64 and u.min() >= 0 and u.max() < 1
    # mean 1/2 and variance 1/12: 6 standard errors of slack
    assert abs(u.mean() - 0.5) < 6 * np.sqrt(1 / 12 / n)
    assert abs(u.var() - 1 / 12) < 0.002
    hist, _ = np.histogram(u, bins=20, range=(0, 1))
    chi2 = ((hist - n / 20) ** 2 / (n / 20)).sum()
    assert chi2 < 60  # 19 dof: p < 1e-5 above ~50
    z = to_np(aakaar.randn(n, generator=g, dtype=dt)).astype(np.float64)
    assert abs(z.mean()) < 6 / np.sqrt(n)
    assert abs(z.std() - 1) < 0.01
    assert abs((np.abs(z) < 1).mean() - 0.6827) < 0.01
    assert abs((z ** 3).mean()) < 0.05 and abs((z ** 4).mean() - 3) < 0.1  # symmetric, normal tails
    # neighbouring values are not correlated
    assert abs(np.corrcoef(u[:-1], u[1:])[0, 1]) < 0.01


def test_randint_randperm_bernoulli():
    g = aakaar.Generator().manual_seed(5)
    r = to_np(aakaar.randint(-3, 4, (50_000,), generator=g))
    assert r.dtype == np.int64 and r.min() == -3 and r.max() == 3
    counts = np.bincount(r + 3)
    assert (np.abs(counts - 50_000 / 7) < 6 * np.sqrt(50_000 / 7)).all()
    r2 = aakaar.randint(5, (3, 4), generator=g)
    assert r2.shape == (3, 4) and to_np(r2).max() < 5 and to_np(r2).min() >= 0
    p = to_np(aakaar.randperm(1000, generator=g))
    assert sorted(p.tolist()) == list(range(1000)) and not (p == np.arange(1000)).all()
    assert aakaar.randperm(0).shape == (0,)
    prob = aakaar.tensor([0.0, 1.0, 0.3]).expand(20_000, 3).contiguous()
    b = to_np(aakaar.bernoulli(prob, generator=g))
    assert b.dtype == np.float32
    assert b[:, 0].sum() == 0 and b[:, 1].sum() == 20_000
    assert abs(b[:, 2].mean() - 0.3) < 6 * np.sqrt(0.21 / 20_000)


def test_rand_like_and_shapes():
    x = aakaar.zeros(2, 3, dtype=aakaar.float64)
    assert aakaar.rand_like(x).dtype == aakaar.float64 and aakaar.randn_like(x).shape == (2, 3)
    assert aakaar.rand(0).shape == (0,) and aakaar.randn(()).shape == ()
    assert aakaar.rand(2, 3).shape == aakaar.rand((2, 3)).shape == (2, 3)
    with pytest.raises(TypeError, match="int64"):
        aakaar.rand(3, dtype=aakaar.int64)
