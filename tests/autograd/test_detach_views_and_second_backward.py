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
    lambda m, x: m.lerp(x, m.zeros(3, dtype=x.dtype), 0.25).sum(),
    lambda m, x: (m.lerp(x, m.ones(2, 3, dtype=x.dtype), 0.75) * 3).sum(),
    lambda m, x: (x - 1.0).sum(),
    lambda m, x: (x * 3.0).sum(),
    lambda m, x: (x / 4.0).sum(),
    lambda m, x: ((x - 1.0) * 0.5 + 2.0).sum(),
], ids=["lerp", "lerp-broadcast-then-mul", "sub", "mul", "div", "chain"])
@pytest.mark.parametrize("dtype", ["float32", "float64", "float16", "bfloat16"])
def test_second_backward_through_numbers_behaves_as_in_torch(build, dtype):
    # lerp with a number weight keeps the number in its node (LerpBackward0), so a second backward
    # works; x * 3.0 saves the number as a tensor that backward frees, so it is refused (both as in
    # PyTorch). Found by the fuzz campaign (AAKAAR_FUZZ_SEED=16): lerp used to refuse.
    outcome = []
    for m in (ak, torch):
        x = m.tensor([1.0, -2.0, 3.0], dtype=getattr(m, dtype), requires_grad=True)
        y = build(m, x)
        y.backward()
        try:
            y.backward()
        except RuntimeError as e:
            assert "second time" in str(e)
            outcome.append("refused")
        else:
            outcome.append([float(v) for v in x.grad.tolist()])
    assert outcome[0] == outcome[1]


def test_lerp_with_a_number_weight_matches_torch_values_and_gradients_on_every_path():
    rng = __import__("numpy").random.default_rng(0)
    a, b = rng.standard_normal((4, 1)), rng.standard_normal((4, 5))
    for w in (0.3, 0.8, -1.5):
        out = []
        for m in (ak, torch):
            ta, tb = m.tensor(a, requires_grad=True), m.tensor(b, requires_grad=True)
            y = m.lerp(ta, tb, w)
            (y * y).sum().backward()
            out.append((y.detach().tolist(), ta.grad.tolist(), tb.grad.tolist()))
        for got, want in zip(out[0], out[1]):
            __import__("numpy").testing.assert_allclose(got, want, rtol=1e-12, atol=1e-14)
