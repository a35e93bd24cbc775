"""round(decimals=) as torch computes it: half to even at the given place, negative places,
float32 and float64, the functional and special spellings, and torch's refusal on integers."""

from __future__ import annotations

import numpy as np
import pytest

import aakaar as ak

torch = pytest.importorskip("torch")


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("decimals", [-3, -1, 0, 1, 2, 4])
def test_round_decimals_matches_torch(dtype, decimals):
    rng = np.random.default_rng(decimals + 10)
    x = np.concatenate([rng.normal(0, 1000, 200), [0.5, 1.5, 2.5, -0.5, 1.25, 2.35, 0.0, -0.0]]).astype(dtype)
    ref = torch.from_numpy(x).round(decimals=decimals).numpy()
    for out in (ak.tensor(x).round(decimals=decimals), ak.round(ak.tensor(x), decimals=decimals),
                ak.special.round(ak.tensor(x), decimals=decimals)):
        np.testing.assert_array_equal(out.numpy(), ref)
        assert out.dtype == ak.tensor(x).dtype


def test_round_decimals_gradient_is_zero_as_torch():
    x = ak.tensor([1.26, -3.71], requires_grad=True)
    x.round(decimals=1).sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), [0.0, 0.0])


def test_round_decimals_refuses_integers_and_bad_decimals_as_torch():
    with pytest.raises(NotImplementedError) as theirs:
        torch.tensor([1, 2]).round(decimals=1)
    with pytest.raises(NotImplementedError) as ours:
        ak.tensor([1, 2]).round(decimals=1)
    assert "Long" in str(ours.value) and "Long" in str(theirs.value)
    with pytest.raises(TypeError):
        torch.tensor([1.0]).round(decimals=1.5)
    with pytest.raises(TypeError, match="decimals"):
        ak.tensor([1.0]).round(decimals=1.5)
