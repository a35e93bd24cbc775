"""aakaar.utils.checkpoint: gradients equal the plain function's (and torch's checkpoint's), the
recomputation replays the forward's random draws, and the interface errs as torch's does."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
import torch

import aakaar
from aakaar.autograd import gradcheck
from aakaar.utils.checkpoint import checkpoint, checkpoint_sequential


def _models(seed: int = 0, dropout: float = 0.0):
    """The same MLP in aakaar and torch (torch's weights copied in)."""
    torch.manual_seed(seed)
    tm = torch.nn.Sequential(torch.nn.Linear(4, 8), torch.nn.Tanh(), torch.nn.Dropout(dropout), torch.nn.Linear(8, 8),
                             torch.nn.ReLU(), torch.nn.Linear(8, 3))
    am = aakaar.nn.Sequential(aakaar.nn.Linear(4, 8), aakaar.nn.Tanh(), aakaar.nn.Dropout(dropout),
                              aakaar.nn.Linear(8, 8), aakaar.nn.ReLU(), aakaar.nn.Linear(8, 3))
    with aakaar.no_grad():
        for pa, pt in zip(am.parameters(), tm.parameters()):
            pa.copy_(aakaar.from_numpy(pt.detach().numpy().copy()))
    return am, tm


def _grads(module):
    return [p.grad.numpy().copy() for p in module.parameters()]


@pytest.mark.parametrize("use_reentrant", [True, False])
def test_gradients_match_torch_checkpoint(use_reentrant):
    am, tm = _models()
    xn = np.random.default_rng(0).standard_normal((5, 4)).astype(np.float32)
    xa = aakaar.from_numpy(xn.copy()).requires_grad_()
    xt = torch.from_numpy(xn.copy()).requires_grad_()
    ya = checkpoint(am, xa, use_reentrant=use_reentrant)
    yt = torch.utils.checkpoint.checkpoint(tm, xt, use_reentrant=use_reentrant)
    np.testing.assert_allclose(ya.detach().numpy(), yt.detach().numpy(), rtol=1e-5, atol=1e-6)
    (ya * ya).sum().backward()
    (yt * yt).sum().backward()
    for ga, gt in zip(_grads(am), _grads(tm)):
        np.testing.assert_allclose(ga, gt.numpy() if hasattr(gt, "numpy") else gt, rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(xa.grad.numpy(), xt.grad.numpy(), rtol=1e-4, atol=1e-5)


def _plain_and_checkpointed(module, x, run):
    """Gradients of the plain call and of ``run`` (a checkpointing call), from the same seed."""
    aakaar.manual_seed(7)
    module(x).pow(2).sum().backward()
    plain = _grads(module) + [x.grad.numpy().copy()]
    module.zero_grad()
    x.grad = None
    aakaar.manual_seed(7)
    run(module, x).pow(2).sum().backward()
    return plain, _grads(module) + [x.grad.numpy().copy()]


@pytest.mark.parametrize("use_reentrant", [True, False])
def test_dropout_recomputes_identically(use_reentrant):
    am, _ = _models(dropout=0.5)
    x = aakaar.randn(16, 4, requires_grad=True)
    plain, ckpt = _plain_and_checkpointed(am, x, lambda m, t: checkpoint(m, t, use_reentrant=use_reentrant))
    for a, b in zip(plain, ckpt):
        np.testing.assert_array_equal(a, b)


def test_without_preserving_the_rng_state_dropout_differs():
    """The control: without the saved state the recomputation draws another mask, so the test above can fail."""
    am, _ = _models(dropout=0.5)
    x = aakaar.randn(16, 4, requires_grad=True)
    plain, ckpt = _plain_and_checkpointed(
        am, x, lambda m, t: checkpoint(m, t, use_reentrant=True, preserve_rng_state=False))
    assert any(not np.array_equal(a, b) for a, b in zip(plain, ckpt))


def test_backward_leaves_the_generator_where_the_program_left_it():
    am, _ = _models(dropout=0.5)
    x = aakaar.randn(8, 4, requires_grad=True)
    y = checkpoint(am, x, use_reentrant=True)
    aakaar.manual_seed(3)
    y.sum().backward()  # the recomputation draws with the forward's state inside fork_rng
    after = aakaar.rand(4).numpy()
    aakaar.manual_seed(3)
    np.testing.assert_array_equal(after, aakaar.rand(4).numpy())


@pytest.mark.parametrize("use_reentrant", [True, False])
@pytest.mark.parametrize("segments", [1, 2, 3, 6])
def test_checkpoint_sequential_matches_plain(use_reentrant, segments):
    am, tm = _models(dropout=0.3)
    x = aakaar.randn(6, 4, requires_grad=True)
    plain, ckpt = _plain_and_checkpointed(
        am, x, lambda m, t: checkpoint_sequential(m, segments, t, use_reentrant=use_reentrant))
    for a, b in zip(plain, ckpt):
        np.testing.assert_array_equal(a, b)
    # and the same split as torch's: its result agrees on a dropout-free model
    am, tm = _models()
    xn = np.random.default_rng(1).standard_normal((6, 4)).astype(np.float32)
    ya = checkpoint_sequential(list(am.children()), segments, aakaar.from_numpy(xn.copy()).requires_grad_(),
                               use_reentrant=use_reentrant)
    yt = torch.utils.checkpoint.checkpoint_sequential(tm, segments, torch.from_numpy(xn.copy()).requires_grad_(),
                                                      use_reentrant=use_reentrant)
    np.testing.assert_allclose(ya.detach().numpy(), yt.detach().numpy(), rtol=1e-5, atol=1e-6)


def test_gradcheck_float64_tuple_outputs_and_non_tensor_args():
    def f(a, scale, b):
        return (a * b).sin() * scale, (a - b).exp()

    a = aakaar.randn(3, 2, dtype=aakaar.float64, requires_grad=True)
    b = aakaar.randn(3, 2, dtype=aakaar.float64, requires_grad=True)
    assert gradcheck(lambda p, q: checkpoint(f, p, 2.5, q, use_reentrant=True), (a, b))
    out1, out2 = checkpoint(f, a, 2.5, b, use_reentrant=True)
    (out1.sum() + 3 * out2.sum()).backward()
    ga, gb = a.grad.numpy().copy(), b.grad.numpy().copy()
    a.grad = b.grad = None
    r1, r2 = f(a, 2.5, b)
    (r1.sum() + 3 * r2.sum()).backward()
    np.testing.assert_allclose(ga, a.grad.numpy(), rtol=1e-12)
    np.testing.assert_allclose(gb, b.grad.numpy(), rtol=1e-12)


def test_only_one_output_used():
    a = aakaar.randn(4, dtype=aakaar.float64, requires_grad=True)
    out1, _ = checkpoint(lambda t: (t * 2, t * 3), a, use_reentrant=True)
    out1.sum().backward()
    np.testing.assert_allclose(a.grad.numpy(), np.full(4, 2.0))


def test_forward_keeps_no_graph_inside():
    inner = []

    def f(t):
        y = t.exp()
        inner.append(y.requires_grad)
        return y * 2

    x = aakaar.randn(3, requires_grad=True)
    y = checkpoint(f, x, use_reentrant=True)
    assert inner == [False] and y.requires_grad  # forward under no_grad, the output recorded
    y.sum().backward()
    assert inner == [False, True]  # the backward recomputed with the graph on
    np.testing.assert_allclose(x.grad.numpy(), 2 * np.exp(x.detach().numpy()), rtol=1e-6)


def test_parameters_get_gradients_when_no_input_requires_grad():
    am, tm = _models()
    x = aakaar.randn(2, 4)
    with pytest.warns(UserWarning, match="None of the inputs have requires_grad=True"):
        y = checkpoint(am, x, use_reentrant=True)
    assert not y.requires_grad  # torch's reentrant variant: no graph, no gradients
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        y = checkpoint(am, x, use_reentrant=False)
    y.sum().backward()  # the non-reentrant interface still reaches the parameters
    assert all(p.grad is not None for p in am.parameters())


def test_keyword_arguments():
    x = aakaar.randn(3, requires_grad=True)
    y = checkpoint(lambda t, *, k: t * k, x, use_reentrant=False, k=4.0)
    y.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), np.full(3, 4.0))
    for fn in (checkpoint, torch.utils.checkpoint.checkpoint):
        with pytest.raises(ValueError, match="Unexpected keyword arguments: k"):
            fn(lambda t, k: t, x if fn is checkpoint else torch.ones(1), use_reentrant=True, k=1)
    with pytest.raises(ValueError, match="context_fn"):
        checkpoint(lambda t: t, x, use_reentrant=True, debug=True)
    with pytest.raises(ValueError, match="Unexpected keyword arguments"):
        checkpoint_sequential([lambda t: t], 1, x, use_reentrant=True, k=1)


def test_default_is_reentrant_without_warning():
    x = aakaar.randn(3, requires_grad=True)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        y = checkpoint(lambda t: t * t, x)
    y.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), 2 * x.detach().numpy(), rtol=1e-6)


def test_import_path():
    import aakaar.utils.checkpoint as mod

    assert aakaar.utils.checkpoint is mod and mod.checkpoint is checkpoint
