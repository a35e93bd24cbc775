"""Issue 15: detach_() on a view is refused, and a second backward through nodes
that saved nothing (neg, add, sum, views) works without retain_graph, as in PyTorch."""

from __future__ import annotations

import pytest

import aakaar as ak

torch = pytest.importorskip("torch")


def test_detach_inplace_on_a_view_is_refused():
    x = ak.ones(3, requires_grad=True)
    with pytest.raises(RuntimeError, match="Can't detach views in-place"):
        x[:2].detach_()
    with pytest.raises(RuntimeError, match="Can't detach views in-place"):
        ak.ones(3)[:2].detach_()
    with pytest.raises(RuntimeError):
        torch.ones(3)[:2].detach_()
    y = x * 2
    y.detach_()  # not a view: fine
    assert not y.requires_grad
    assert not x[:2].detach().requires_grad


def test_second_backward_through_neg_sum_add_and_views():
    x = ak.ones(2, requires_grad=True)
    y = -x
    y.backward(ak.ones(2))
    y.backward(ak.ones(2))
    assert x.grad.tolist() == [-2.0, -2.0]

    tx = torch.ones(2, requires_grad=True)
    ty = (-tx[:1] + tx[1:]).sum()
    ty.backward()
    ty.backward()
    x = ak.ones(2, requires_grad=True)
    s = (-x[:1] + x[1:]).sum()
    s.backward()
    s.backward()
    assert x.grad.tolist() == tx.grad.tolist() == [-2.0, 2.0]


def test_second_backward_through_saved_tensors_still_needs_retain_graph():
    x = ak.ones(2, requires_grad=True)
    y = (x * x).sum()
    y.backward()
    with pytest.raises(RuntimeError, match="second time"):
        y.backward()
