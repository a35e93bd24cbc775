"""Issue 15: arguments of nn.functional checked before any work, as in PyTorch."""

from __future__ import annotations

import pytest

import aakaar as ak
import aakaar.nn.functional as F

torch = pytest.importorskip("torch")


@pytest.mark.parametrize("padding_idx", [100, 3, -4, 1.5, True])
def test_embedding_padding_idx_must_be_a_row(padding_idx):
    with pytest.raises(ValueError, match="padding_idx"):
        F.embedding(ak.tensor([0]), ak.ones(3, 2), padding_idx=padding_idx)


def test_embedding_negative_padding_idx_counts_from_the_end():
    w = ak.ones(3, 2, requires_grad=True)
    F.embedding(ak.tensor([0, 2]), w, padding_idx=-1).sum().backward()
    tw = torch.ones(3, 2, requires_grad=True)
    torch.nn.functional.embedding(torch.tensor([0, 2]), tw, padding_idx=-1).sum().backward()
    assert w.grad.tolist() == tw.grad.tolist()


@pytest.mark.parametrize("eps", [-1.0, float("nan")])
def test_batch_norm_eps_must_be_non_negative(eps):
    with pytest.raises(ValueError, match="eps"):
        F.batch_norm(ak.randn(4, 3), ak.zeros(3), ak.ones(3), eps=eps)
    if eps < 0:
        with pytest.raises(ValueError):
            torch.nn.functional.batch_norm(torch.randn(4, 3), torch.zeros(3), torch.ones(3), eps=eps)


@pytest.mark.parametrize("fn", [F.mse_loss, F.nll_loss])
def test_reduction_is_checked_before_computing(fn):
    big = ak.full((2, 2), 2**62, dtype=ak.int64)
    target = ak.tensor([0, 1]) if fn is F.nll_loss else big
    inp = ak.zeros(2, 2) if fn is F.nll_loss else big
    with pytest.raises(ValueError, match="reduction"):
        fn(inp, target, reduction="avg")
