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


@pytest.mark.parametrize("build", [
    lambda m, x: (x * 3.0).sum(),
    lambda m, x: (2 * x).sum(),
    lambda m, x: (x / 4.0).sum(),
    lambda m, x: m.lerp(x, m.zeros(3, dtype=x.dtype), 0.25).sum(),
    lambda m, x: ((x - 1.0) * 0.5 + 2.0).sum(),
], ids=["mul", "rmul", "div", "lerp", "chain"])
@pytest.mark.parametrize("dtype", ["float32", "float64", "float16", "bfloat16"])
def test_second_backward_through_a_python_number_needs_no_retain_graph(build, dtype):
    # x * 2 saves only the number 2, which PyTorch keeps in its node (MulBackward1): a second
    # backward works and accumulates. Found by the fuzz campaign (AAKAAR_FUZZ_SEED=16).
    grads = []
    for m in (ak, torch):
        x = m.tensor([1.0, -2.0, 3.0], dtype=getattr(m, dtype), requires_grad=True)
        y = build(m, x)
        y.backward()
        y.backward()
        grads.append([float(v) for v in x.grad.tolist()])
    assert grads[0] == grads[1]


def test_second_backward_dividing_by_a_number_still_refuses_when_a_tensor_was_saved():
    # 2 / x saves x (the reciprocal's rule needs it): after backward it is freed, as in PyTorch.
    for m in (ak, torch):
        x = m.ones(2, requires_grad=True)
        y = (2 / x).sum()
        y.backward()
        with pytest.raises(RuntimeError, match="second time"):
            y.backward()
    # A user's 0-d tensor is a tensor, not a number: saved, then freed.
    x, w = ak.ones(2, requires_grad=True), ak.tensor(3.0)
    y = (x * w).sum()
    y.backward()
    with pytest.raises(RuntimeError, match="second time"):
        y.backward()
