"""float16 and bfloat16 through the fused ops (linear, convolutions, pools, cross-entropy and the
pointwise losses): computed on float32 copies and rounded once to the 16-bit dtype, as PyTorch's
CPU kernels accumulate 16-bit floats in float32. Values and gradients against torch, within a few
units in the last place of the 16-bit dtype (the sums run in another order than torch's)."""

from __future__ import annotations

import numpy as np
import pytest

import aakaar as ak
import aakaar.nn.functional as F

torch = pytest.importorskip("torch")
TF = torch.nn.functional

HALVES = ["float16", "bfloat16"]
# a few units in the last place of each dtype, relative to the largest magnitude compared
ULPS = {"float16": 4 * 2.0**-10, "bfloat16": 4 * 2.0**-7}

CASES = {
    "linear": ([(5, 8), (3, 8), (3,)], lambda m, x, w, b: m.linear(x, w, b)),
    "linear 3-d, no bias": ([(2, 4, 8), (3, 8)], lambda m, x, w: m.linear(x, w)),
    "conv2d": ([(2, 4, 7, 6), (6, 2, 3, 3), (6,)], lambda m, x, w, b: m.conv2d(x, w, b, stride=2, padding=1, groups=2)),
    "conv1d": ([(2, 3, 9), (4, 3, 3)], lambda m, x, w: m.conv1d(x, w, dilation=2)),
    "conv_transpose2d": ([(2, 3, 4, 5), (3, 2, 3, 3)], lambda m, x, w: m.conv_transpose2d(x, w, stride=2)),
    "max_pool2d": ([(2, 3, 7, 6)], lambda m, x: m.max_pool2d(x, 3, stride=2, padding=1)),
    "avg_pool2d": ([(2, 3, 7, 6)], lambda m, x: m.avg_pool2d(x, 2, ceil_mode=True, count_include_pad=False)),
    "adaptive_avg_pool2d": ([(2, 3, 7, 6)], lambda m, x: m.adaptive_avg_pool2d(x, (3, 4))),
    "mse_loss": ([(4, 5), (4, 5)], lambda m, x, t: m.mse_loss(x, t)),
    "l1_loss": ([(4, 5), (4, 5)], lambda m, x, t: m.l1_loss(x, t, reduction="sum")),
    "huber_loss": ([(4, 5), (4, 5)], lambda m, x, t: m.huber_loss(x, t, delta=0.5)),
    "smooth_l1_loss": ([(4, 5), (4, 5)], lambda m, x, t: m.smooth_l1_loss(x, t, reduction="none")),
    "bce_with_logits": ([(4, 5), (4, 5)], lambda m, x, t: m.binary_cross_entropy_with_logits(x, t.sigmoid())),
}


def _inputs(shapes, dtype_name, seed=0):
    rng = np.random.default_rng(seed)
    arrays = [rng.standard_normal(s).astype(np.float32) for s in shapes]
    tdt = getattr(torch, dtype_name)
    ts = [torch.tensor(a).to(tdt).requires_grad_() for a in arrays]
    # the same 16-bit values on both sides: round in torch, hand the float32 they hold to aakaar
    aks = [ak.tensor(t.detach().float().numpy()).to(getattr(ak, dtype_name)).requires_grad_() for t in ts]
    return aks, ts


def _close(a: ak.Tensor, t: torch.Tensor, dtype_name: str, what: str) -> None:
    assert a.dtype == getattr(ak, dtype_name), f"{what}: dtype {a.dtype}, want {dtype_name}"
    got, ref = a.float().numpy(), t.detach().float().numpy()
    assert got.shape == ref.shape, f"{what}: shape {got.shape} != {ref.shape}"
    scale = max(1.0, float(np.abs(ref).max()))
    np.testing.assert_allclose(got, ref, rtol=0, atol=ULPS[dtype_name] * scale, err_msg=what)


@pytest.mark.parametrize("name", HALVES)
@pytest.mark.parametrize("case", list(CASES))
def test_fused_ops_take_16_bit_floats_like_torch(case, name):
    shapes, fn = CASES[case]
    aks, ts = _inputs(shapes, name)
    out_t, out_a = fn(TF, *ts), fn(F, *aks)
    _close(out_a, out_t, name, f"{case} value")
    g = torch.tensor(np.random.default_rng(1).standard_normal(tuple(out_t.shape)).astype(np.float32)).to(out_t.dtype)
    out_t.backward(g)
    out_a.backward(ak.tensor(g.float().numpy()).to(out_a.dtype))
    for k, (a, t) in enumerate(zip(aks, ts)):
        _close(a.grad, t.grad, name, f"{case} gradient of input {k}")


@pytest.mark.parametrize("name", HALVES)
def test_max_pool2d_of_16_bit_floats_picks_torch_indices(name):
    (x,), (tx,) = _inputs([(2, 3, 7, 6)], name)
    out, idx = F.max_pool2d(x, 2, return_indices=True)
    tout, tidx = TF.max_pool2d(tx, 2, return_indices=True)
    _close(out, tout, name, "values")
    np.testing.assert_array_equal(idx.numpy(), tidx.numpy())


@pytest.mark.parametrize("name", HALVES)
@pytest.mark.parametrize("kw", [{}, dict(label_smoothing=0.1), dict(ignore_index=2, reduction="sum"), dict(weight=True)])
def test_cross_entropy_of_16_bit_logits_matches_torch(name, kw):
    (x,), (tx,) = _inputs([(6, 5)], name)
    target = [0, 2, 4, 1, 2, 3]
    kw = dict(kw)
    kwt = dict(kw)
    if kw.pop("weight", False):
        w = [0.5, 1.0, 2.0, 1.5, 0.25]
        kw["weight"], kwt["weight"] = ak.tensor(w).to(getattr(ak, name)), torch.tensor(w).to(getattr(torch, name))
    loss = F.cross_entropy(x, ak.tensor(target), **kw)
    tloss = TF.cross_entropy(tx, torch.tensor(target), **kwt)
    _close(loss, tloss, name, "loss")
    loss.backward()
    tloss.backward()
    _close(x.grad, tx.grad, name, "gradient")


def test_a_training_step_of_a_float16_model_runs_and_learns():
    # the layers a user would convert with .half(): the loss goes down and stays float16
    ak.manual_seed(0)
    model = ak.nn.Sequential(ak.nn.Conv2d(1, 4, 3), ak.nn.ReLU(), ak.nn.MaxPool2d(2), ak.nn.Flatten(),
                             ak.nn.Linear(4 * 3 * 3, 3)).half()
    x = ak.randn(8, 1, 8, 8).half()
    y = ak.tensor([0, 1, 2, 0, 1, 2, 0, 1])
    losses = []
    for _ in range(20):
        loss = F.cross_entropy(model(x), y)
        assert loss.dtype == ak.float16
        model.zero_grad()
        loss.backward()
        with ak.no_grad():
            for p in model.parameters():
                assert p.grad.dtype == ak.float16
                p -= 0.5 * p.grad
        losses.append(loss.item())
    assert losses[-1] < 0.5 * losses[0], losses


@pytest.mark.parametrize("name", HALVES)
@pytest.mark.parametrize("op", ["sort", "topk", "cummax", "cummin", "cumprod", "logcumsumexp", "cumsum"])
def test_sorts_and_scans_of_16_bit_floats_match_torch(name, op):
    calls = {"sort": lambda x: x.sort(1, descending=True), "topk": lambda x: x.topk(3, 1),
             "cummax": lambda x: x.cummax(1), "cummin": lambda x: x.cummin(0), "cumprod": lambda x: x.cumprod(1),
             "logcumsumexp": lambda x: x.logcumsumexp(1), "cumsum": lambda x: x.cumsum(1)}
    (x,), (tx,) = _inputs([(4, 6)], name, seed=3)
    out, tout = calls[op](x), calls[op](tx)
    if isinstance(tout, tuple):
        np.testing.assert_array_equal(out[1].numpy(), tout[1].numpy())
        out, tout = out[0], tout[0]
    _close(out, tout, name, f"{op} value")
    g = torch.tensor(np.random.default_rng(2).standard_normal(tuple(tout.shape)).astype(np.float32)).to(tout.dtype)
    tout.backward(g)
    out.backward(ak.tensor(g.float().numpy()).to(out.dtype))
    _close(x.grad, tx.grad, name, f"{op} gradient")
