"""Second derivatives of the common losses against torch 2.13: the gradient taken with
create_graph=True, then differentiated again (a Hessian-vector product) with respect to the input,
the target and the incoming gradient, for every reduction. The fused nodes (cross-entropy, the
pointwise losses) write their backward with recorded ops under create_graph, so this is what checks
that those formulas are right and differentiable; gradgradcheck in float64 checks the same against
finite differences. CTC's gradient is not differentiable, as in PyTorch (test_ctc_loss.py)."""

from __future__ import annotations

import numpy as np
import pytest

import aakaar as ak
import aakaar.nn.functional as F
from aakaar.autograd import gradcheck
from nn_helpers import torch

pytestmark = [pytest.mark.torch, pytest.mark.filterwarnings("ignore:reduction. .mean. divides the total loss")]
TF = torch.nn.functional

REDUCTIONS = ["mean", "sum", "none"]


def _data(name: str, rng: np.random.Generator):
    """(input, target, kwargs, which of input/target take a gradient) for one loss; away from the
    kinks (|x - t| = 0, delta, beta) where the second derivative jumps."""
    shape = (4, 5)
    x = rng.standard_normal(shape) * 2
    if name in ("cross_entropy", "nll_loss"):
        t = rng.integers(0, 5, 4)
        t[1] = 2
        x_in = x if name == "cross_entropy" else x - np.log(np.exp(x).sum(1, keepdims=True))
        return x_in, t, {}, (True, False)
    if name == "cross_entropy_probs":
        p = rng.random(shape)
        return x, p / p.sum(1, keepdims=True), {}, (True, True)
    if name == "cross_entropy_options":
        t = rng.integers(0, 5, 4)
        t[0] = -100
        return x, t, {"weight": rng.random(5) + 0.5, "label_smoothing": 0.2}, (True, False)
    if name == "kl_div":
        lp = x - np.log(np.exp(x).sum(1, keepdims=True))
        q = rng.random(shape)
        return lp, q / q.sum(1, keepdims=True), {}, (True, True)
    if name == "kl_div_log_target":
        lp = x - np.log(np.exp(x).sum(1, keepdims=True))
        lq = rng.standard_normal(shape)
        return lp, lq - np.log(np.exp(lq).sum(1, keepdims=True)), {"log_target": True}, (True, True)
    if name in ("binary_cross_entropy_with_logits", "bce_with_logits_pos_weight"):
        kw = {"pos_weight": rng.random(5) + 0.5} if name.endswith("pos_weight") else {}
        return x, rng.random(shape), kw, (True, True)
    if name == "binary_cross_entropy":
        return rng.uniform(0.05, 0.95, shape), rng.random(shape), {}, (True, True)
    t = x + rng.choice([-1, 1], shape) * rng.uniform(0.1, 3.0, shape)  # |x - t| in [0.1, 3]
    kw = {"huber_loss": {"delta": 0.7}, "smooth_l1_loss": {"beta": 1.3}}.get(name, {})
    if name in kw:
        d = np.abs(x - t)
        t = np.where(np.abs(d - next(iter(kw[name].values()))) < 0.05, t + 0.2, t)  # off the kink
    return x, t, kw, (True, True)


LOSSES = ["mse_loss", "l1_loss", "huber_loss", "smooth_l1_loss", "cross_entropy", "cross_entropy_options",
          "cross_entropy_probs", "nll_loss", "binary_cross_entropy_with_logits", "bce_with_logits_pos_weight",
          "binary_cross_entropy", "kl_div", "kl_div_log_target"]


def _fn(name: str, lib):
    base = {"cross_entropy_options": "cross_entropy", "cross_entropy_probs": "cross_entropy",
            "bce_with_logits_pos_weight": "binary_cross_entropy_with_logits",
            "kl_div_log_target": "kl_div"}.get(name, name)
    return getattr(F if lib is ak else TF, base)


def _second(lib, name, x, t, kw, needs, reduction, seed):
    """grad of <grad_x loss, v> with respect to x, t (when it takes a gradient) and grad_output."""
    conv = ak.from_numpy if lib is ak else torch.from_numpy
    grad = ak.autograd.grad if lib is ak else torch.autograd.grad
    xs = conv(x.copy()).requires_grad_()
    ts = conv(t.copy())
    if needs[1]:
        ts.requires_grad_()
    kws = {k: conv(np.asarray(v).copy()) if isinstance(v, np.ndarray) else v for k, v in kw.items()}
    loss = _fn(name, lib)(xs, ts, reduction=reduction, **kws)
    rng = np.random.default_rng(seed)
    up = conv(rng.standard_normal(tuple(loss.shape)))
    up.requires_grad_()
    (gx,) = grad(loss, xs, grad_outputs=up, create_graph=True)
    v = conv(rng.standard_normal(x.shape))
    wrt = [xs, up] + ([ts] if needs[1] else [])
    hv = grad((gx * v).sum(), wrt, allow_unused=True)
    # torch answers "no dependence" with None or a ZeroTensor (L1's second derivative), aakaar with
    # None or zeros: all mean 0.
    as_np = [None if h is None or (lib is torch and h._is_zerotensor()) else h.detach().numpy() for h in hv]
    return gx.detach().numpy(), as_np


@pytest.mark.parametrize("target_grad", [False, True], ids=["fused", "target-grad"])
@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("name", LOSSES)
def test_second_derivatives_match_torch(name, reduction, target_grad):
    # Without a target gradient the pointwise losses and cross-entropy are one fused node each
    # (their create_graph formula is what is differentiated); with one they compose ops.
    rng = np.random.default_rng(sum(map(ord, name)))
    x, t, kw, needs = _data(name, rng)
    if not target_grad:
        needs = (True, False)
    elif not needs[1]:
        pytest.skip("integer targets take no gradient")
    ga, ha = _second(ak, name, x, t, kw, needs, reduction, 3)
    gt, ht = _second(torch, name, x, t, kw, needs, reduction, 3)
    np.testing.assert_allclose(ga, gt, rtol=1e-10, atol=1e-12, err_msg=f"{name} first derivative")
    for what, a, b in zip(["d/dx", "d/dgrad_output", "d/dtarget"], ha, ht):
        if a is None or b is None:  # no dependence on one side: the other must be 0 too
            assert not np.any(a if b is None else b), f"{name} {what}: aakaar {a}, torch {b}"
            continue
        np.testing.assert_allclose(a, b, rtol=1e-10, atol=1e-12, err_msg=f"{name} {what}")


GRADGRAD = ["mse_loss", "huber_loss", "smooth_l1_loss", "cross_entropy", "cross_entropy_options",
            "binary_cross_entropy_with_logits", "bce_with_logits_pos_weight", "binary_cross_entropy", "kl_div"]


@pytest.mark.parametrize("reduction", ["mean", "none"])
@pytest.mark.parametrize("name", GRADGRAD)
def test_gradgradcheck(name, reduction):
    # The first derivative's own gradient against finite differences of it, in float64.
    rng = np.random.default_rng(7)
    x, t, kw, _ = _data(name, rng)
    ts = ak.from_numpy(t)
    kws = {k: ak.from_numpy(v) if isinstance(v, np.ndarray) else v for k, v in kw.items()}
    up = ak.from_numpy(np.random.default_rng(8).standard_normal(() if reduction == "mean" else
                                                                (x.shape[0],) if name.startswith("cross") else x.shape))

    def first(z):
        with ak.autograd.enable_grad():  # gradcheck's finite differences run under no_grad
            loss = _fn(name, ak)(z, ts, reduction=reduction, **kws)
            (g,) = ak.autograd.grad(loss, z, grad_outputs=up, create_graph=True)
        return g

    assert gradcheck(first, (ak.from_numpy(x).requires_grad_(),), eps=1e-6, atol=1e-6, rtol=1e-4)
