"""Every loss of aakaar.nn.functional (but CTC: test_ctc_loss.py) against torch 2.13 on the same data: the value and the
gradient of every differentiable input, for every reduction and option, over shapes of rank 1 to 4,
in float64 (rel 1e-10) and float32 (rel 1e-5); then the modules, the edge cases (ignore_index on
every element, label smoothing with weights, beta = 0, empty batches, extreme logits, NaN) and
gradchecks in float64."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

import aakaar as ak
import aakaar.nn as nn
import aakaar.nn.functional as F
from aakaar.autograd import gradcheck
from nn_helpers import torch

pytestmark = pytest.mark.torch
TF = torch.nn.functional

DTYPES = ["float64", "float32"]
TOL = {"float64": (1e-10, 1e-12), "float32": (1e-5, 1e-6)}
REDUCTIONS = ["mean", "sum", "none"]


def _np_dtype(dtype):
    return np.float64 if dtype == "float64" else np.float32


def _run(ak_fn, t_fn, arrays, grad_idx, dtype, reduction, seed=0, **kw):
    """Loss and the gradients of arrays[grad_idx] from both libraries; float arrays get `dtype`."""
    dt = _np_dtype(dtype)
    arrays = [a.astype(dt) if isinstance(a, np.ndarray) and a.dtype.kind == "f" else a for a in arrays]
    ak_args, t_args = [], []
    for i, a in enumerate(arrays):
        if isinstance(a, np.ndarray):
            xa, xt = ak.from_numpy(a.copy()), torch.from_numpy(a.copy())
            if i in grad_idx:
                xa.requires_grad_()
                xt.requires_grad_()
        else:
            xa = xt = a
        ak_args.append(xa)
        t_args.append(xt)
    kw_ak = {k: (ak.from_numpy(v.astype(dt)) if isinstance(v, np.ndarray) else v) for k, v in kw.items()}
    kw_t = {k: (torch.from_numpy(v.astype(dt)) if isinstance(v, np.ndarray) else v) for k, v in kw.items()}
    la = ak_fn(*ak_args, reduction=reduction, **kw_ak)
    lt = t_fn(*t_args, reduction=reduction, **kw_t)
    if grad_idx:
        up = np.random.default_rng(seed + 99).standard_normal(tuple(lt.shape)).astype(dt)
        la.backward(ak.from_numpy(up.copy()))
        lt.backward(torch.from_numpy(up.copy()))
    return la, lt, [ak_args[i].grad for i in grad_idx], [t_args[i].grad for i in grad_idx]


def _compare(la, lt, ga, gt, dtype, what):
    rtol, atol = TOL[dtype]
    a, t = la.detach().numpy(), lt.detach().numpy()
    assert a.shape == t.shape, f"{what}: loss shape {a.shape} != torch {t.shape}"
    scale = max(1.0, float(np.nanmax(np.abs(t))) if t.size and np.isfinite(t).any() else 1.0)
    np.testing.assert_allclose(a, t, rtol=rtol, atol=atol * scale, err_msg=what + " loss")
    for i, (x, y) in enumerate(zip(ga, gt)):
        assert x is not None and y is not None, f"{what}: gradient {i} missing"
        yn = y.numpy()
        gscale = max(1.0, float(np.abs(yn).max()) if yn.size else 1.0)
        np.testing.assert_allclose(x.numpy(), yn, rtol=rtol, atol=atol * gscale, err_msg=f"{what} grad {i}")


SHAPES = [(7,), (5, 6), (4, 3, 5), (2, 3, 2, 4)]


def _pair(shape, seed, scale=2.0):
    rng = np.random.default_rng(seed)
    return rng.standard_normal(shape) * scale, rng.standard_normal(shape) * scale


# ---------------------------------------------------------------- regression and pointwise losses

POINTWISE = [
    ("l1_loss", {}), ("mse_loss", {}),
    ("huber_loss", {}), ("huber_loss", {"delta": 0.3}), ("huber_loss", {"delta": 5.0}),
    ("smooth_l1_loss", {}), ("smooth_l1_loss", {"beta": 0.5}), ("smooth_l1_loss", {"beta": 0.0}),
    ("soft_margin_loss", {}),
]


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("name,kw", POINTWISE, ids=[f"{n}-{k}" for n, k in POINTWISE])
def test_pointwise_losses(name, kw, shape, reduction, dtype):
    x, t = _pair(shape, len(shape) * 7 + 1)
    if name == "soft_margin_loss":
        t = np.sign(t)
    # the fused path (input only) and the composite (target too; torch has no target gradient for soft margin)
    for grad_idx in ([0],) if name == "soft_margin_loss" else ([0], [0, 1]):
        r = _run(getattr(F, name), getattr(TF, name), [x, t], grad_idx, dtype, reduction, **kw)
        _compare(*r, dtype, f"{name}{kw} grad_idx={grad_idx}")


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("name", ["l1_loss", "mse_loss", "huber_loss"])
def test_elementwise_weight(name, reduction, dtype):
    x, t = _pair((4, 3, 5), 3)
    w = np.random.default_rng(4).random((4, 3, 5))
    _compare(*_run(getattr(F, name), getattr(TF, name), [x, t], [0], dtype, reduction, weight=w), dtype, name)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("shape", SHAPES)
def test_binary_cross_entropy(shape, reduction, dtype):
    rng = np.random.default_rng(11)
    p, t = rng.uniform(0.02, 0.98, shape), rng.random(shape)
    w = rng.random(shape[-1:])  # broadcast along the last dim
    for kw in ({}, {"weight": w}):
        for grad_idx in ([0], [0, 1]):
            r = _run(F.binary_cross_entropy, TF.binary_cross_entropy, [p, t], grad_idx, dtype, reduction, **kw)
            _compare(*r, dtype, f"bce {list(kw)} {grad_idx}")


def test_binary_cross_entropy_log_clamp():
    # x = 0 and 1 exactly: each log is clamped at -100, the gradient's denominator at 1e-12
    p = np.array([0.0, 1.0, 0.0, 1.0, 0.5])
    t = np.array([1.0, 0.0, 0.0, 1.0, 0.3])
    for red in REDUCTIONS:
        _compare(*_run(F.binary_cross_entropy, TF.binary_cross_entropy, [p, t], [0], "float64", red),
                 "float64", red)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("shape", SHAPES)
def test_binary_cross_entropy_with_logits(shape, reduction, dtype):
    rng = np.random.default_rng(12)
    x, t = rng.standard_normal(shape) * 3, rng.random(shape)
    w, pw = rng.random(shape), rng.random(shape[-1:]) * 3
    for kw in ({}, {"weight": w}, {"pos_weight": pw}, {"weight": w, "pos_weight": pw}):
        for grad_idx in ([0], [0, 1]):
            r = _run(F.binary_cross_entropy_with_logits, TF.binary_cross_entropy_with_logits, [x, t], grad_idx,
                     dtype, reduction, **kw)
            _compare(*r, dtype, f"bce_logits {list(kw)} {grad_idx}")


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("reduction", REDUCTIONS)
def test_extreme_logits_are_finite(reduction, dtype):
    x = np.array([[1e4, -1e4, 30.0, -30.0], [0.0, 1e4, -1e4, 5.0]])
    t = np.array([[0.0, 1.0, 0.5, 1.0], [1.0, 0.0, 1.0, 0.0]])
    la, lt, ga, gt = _run(F.binary_cross_entropy_with_logits, TF.binary_cross_entropy_with_logits, [x, t], [0],
                          dtype, reduction, pos_weight=np.array([2.0, 0.5, 1.0, 3.0]))
    assert np.all(np.isfinite(la.detach().numpy())) and np.all(np.isfinite(ga[0].numpy()))
    _compare(la, lt, ga, gt, dtype, "bce logits 1e4")
    c = np.array([[1e4, -1e4, 0.0], [-1e4, 1e4, 2.0]])
    la, lt, ga, gt = _run(F.cross_entropy, TF.cross_entropy, [c, np.array([1, 0])], [0], dtype, reduction,
                          label_smoothing=0.1)
    assert np.all(np.isfinite(ga[0].numpy()))
    _compare(la, lt, ga, gt, dtype, "cross_entropy 1e4")


@pytest.mark.parametrize("name", ["l1_loss", "mse_loss", "huber_loss", "smooth_l1_loss",
                                  "binary_cross_entropy_with_logits"])
def test_nan_propagates_like_torch(name):
    x = np.array([0.3, np.nan, -2.0])
    t = np.array([0.5, 0.5, np.nan])
    for red in REDUCTIONS:
        la, lt, ga, gt = _run(getattr(F, name), getattr(TF, name), [x, t], [0], "float64", red)
        np.testing.assert_array_equal(np.isnan(la.detach().numpy()), np.isnan(lt.detach().numpy()))
        np.testing.assert_array_equal(np.isnan(ga[0].numpy()), np.isnan(gt[0].numpy()), err_msg=name + red)


# ---------------------------------------------------------------- classification

def _class_problem(shape, seed):
    """Logits of `shape` (C,), (N, C) or (N, C, d...) and matching class indices."""
    rng = np.random.default_rng(seed)
    x = rng.standard_normal(shape) * 2
    C = shape[0] if len(shape) == 1 else shape[1]
    tshape = () if len(shape) == 1 else (shape[0],) + tuple(shape[2:])
    return x, rng.integers(0, C, tshape).astype(np.int64), C


CLASS_SHAPES = [(5,), (6, 4), (3, 4, 5), (2, 3, 2, 3), (64, 47)]


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("shape", CLASS_SHAPES)
@pytest.mark.parametrize("fn", ["cross_entropy", "nll_loss"])
def test_class_index_losses(fn, shape, reduction, dtype):
    x, t, C = _class_problem(shape, sum(shape))
    if fn == "nll_loss":
        x = x - np.log(np.exp(x).sum(axis=0 if len(shape) == 1 else 1, keepdims=True))
    w = np.random.default_rng(3).random(C) + 0.1
    t_ig = t.copy()
    if t_ig.ndim:
        t_ig.reshape(-1)[::3] = 2 if fn == "nll_loss" else -1  # some rows ignored
    opts = [({}, t), ({"weight": w}, t), ({"ignore_index": 2 if fn == "nll_loss" else -1}, t_ig),
            ({"weight": w, "ignore_index": 2 if fn == "nll_loss" else -1}, t_ig)]
    if fn == "cross_entropy":
        opts += [({"label_smoothing": 0.2}, t), ({"label_smoothing": 0.3, "weight": w, "ignore_index": -1}, t_ig),
                 ({"label_smoothing": 1.0}, t)]
    for kw, tt in opts:
        r = _run(getattr(F, fn), getattr(TF, fn), [x, tt], [0], dtype, reduction, **kw)
        _compare(*r, dtype, f"{fn} {shape} {kw}")


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("shape", CLASS_SHAPES)
def test_cross_entropy_probability_targets(shape, reduction, dtype):
    rng = np.random.default_rng(21)
    x = rng.standard_normal(shape)
    cdim = 0 if len(shape) == 1 else 1
    p = rng.random(shape)
    p = p / p.sum(axis=cdim, keepdims=True)
    C = shape[cdim]
    for kw in ({}, {"weight": rng.random(C)}, {"label_smoothing": 0.25}, {"weight": rng.random(C), "label_smoothing": 0.1}):
        # the fused op (gradient to the input only) and the composite (to the target too)
        for grad_idx in ([0], [0, 1]):
            r = _run(F.cross_entropy, TF.cross_entropy, [x, p], grad_idx, dtype, reduction, **kw)
            _compare(*r, dtype, f"probs {kw} grad_idx={grad_idx}")


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("reduction", REDUCTIONS)
def test_cross_entropy_probability_targets_fused_extremes(reduction, dtype):
    # Soft labels through the fused node: logits of +-1e4 (finite loss and gradient, as torch),
    # one-hot rows, a row of zeros, and an empty batch.
    rng = np.random.default_rng(22)
    x = rng.standard_normal((6, 5)) * 3
    x[0] = [1e4, -1e4, 0, 5e3, -5e3]
    p = rng.random((6, 5))
    p /= p.sum(1, keepdims=True)
    p[1] = [0, 0, 1, 0, 0]
    p[2] = 0
    for kw in ({}, {"weight": rng.random(5) + 0.1, "label_smoothing": 0.3}):
        r = _run(F.cross_entropy, TF.cross_entropy, [x, p], [0], dtype, reduction, **kw)
        assert r[0].grad_fn.name() == "CrossEntropyBackward0"
        _compare(*r, dtype, f"fused probs {kw}")
    e = np.zeros((0, 5))
    r = _run(F.cross_entropy, TF.cross_entropy, [e, e.copy()], [0], dtype, reduction)
    _compare(*r, dtype, "empty batch")


@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("fn", ["cross_entropy", "nll_loss"])
def test_ignore_index_on_every_element(fn, reduction):
    x = np.random.default_rng(0).standard_normal((4, 3, 2))
    t = np.full((4, 2), 1, dtype=np.int64)
    for kw in ({}, {"weight": np.array([0.2, 0.5, 1.5])}) + (({"label_smoothing": 0.2},) if fn == "cross_entropy" else ()):
        la, lt, ga, gt = _run(getattr(F, fn), getattr(TF, fn), [x, t], [0], "float64", reduction, ignore_index=1, **kw)
        np.testing.assert_array_equal(la.detach().numpy(), lt.detach().numpy())  # mean: NaN (0/0) in both
        np.testing.assert_array_equal(ga[0].numpy(), gt[0].numpy())  # all zero


@pytest.mark.parametrize("reduction", REDUCTIONS)
def test_empty_batches(reduction):
    for fn, args in [("cross_entropy", [np.zeros((0, 4)), np.zeros(0, np.int64)]),
                     ("cross_entropy", [np.zeros((0, 4, 3)), np.zeros((0, 3), np.int64)]),
                     ("cross_entropy", [np.zeros((0, 4)), np.zeros((0, 4))]),
                     ("nll_loss", [np.zeros((0, 4)), np.zeros(0, np.int64)]),
                     ("mse_loss", [np.zeros((0, 4)), np.zeros((0, 4))]),
                     ("l1_loss", [np.zeros((0,)), np.zeros((0,))]),
                     ("smooth_l1_loss", [np.zeros((0, 2)), np.zeros((0, 2))]),
                     ("binary_cross_entropy_with_logits", [np.zeros((0, 4)), np.zeros((0, 4))]),
                     ("binary_cross_entropy", [np.zeros((0, 4)), np.zeros((0, 4))])]:
        la, lt, ga, gt = _run(getattr(F, fn), getattr(TF, fn), args, [0], "float64", reduction)
        np.testing.assert_array_equal(la.detach().numpy(), lt.detach().numpy(), err_msg=fn)
        assert ga[0].shape == tuple(gt[0].shape)


# ---------------------------------------------------------------- likelihoods and divergences

@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("shape", SHAPES)
def test_poisson_nll_loss(shape, reduction, dtype):
    rng = np.random.default_rng(5)
    x, t = rng.standard_normal(shape), rng.poisson(2.0, shape).astype(float)
    for log_input, full in itertools.product([True, False], [False, True]):
        xi = x if log_input else np.abs(x) + 0.1
        # the target too: torch differentiates Stirling's term in it
        r = _run(F.poisson_nll_loss, TF.poisson_nll_loss, [xi, t], [0, 1], dtype, reduction, log_input=log_input,
                 full=full)
        _compare(*r, dtype, f"poisson log_input={log_input} full={full}")


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("reduction", REDUCTIONS)
def test_gaussian_nll_loss(reduction, dtype):
    rng = np.random.default_rng(6)
    x, t = rng.standard_normal((4, 3, 5)), rng.standard_normal((4, 3, 5))
    for var in (rng.random((4, 3, 5)) + 0.1, rng.random((4, 3)) + 0.1, rng.random((4, 3, 1)) + 0.1,
                rng.random((4, 1, 5)) + 0.1, np.concatenate([np.zeros((4, 3, 1)), rng.random((4, 3, 4))], 2)):
        for full in (False, True):
            r = _run(F.gaussian_nll_loss, TF.gaussian_nll_loss, [x, t, var], [0, 2], dtype, reduction, full=full)
            _compare(*r, dtype, f"gaussian var {var.shape} full={full}")


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("reduction", REDUCTIONS + ["batchmean"])
@pytest.mark.parametrize("shape", SHAPES)
def test_kl_div(shape, reduction, dtype):
    rng = np.random.default_rng(7)
    x = np.log(rng.random(shape) + 0.01)
    p = rng.random(shape)
    p.reshape(-1)[::4] = 0.0  # xlogy(0, 0) = 0
    for log_target in (False, True):
        tgt = np.log(p + 0.05) if log_target else p
        import warnings
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            # (the target's gradient only for log targets: at t = 0, torch's xlogy gradient is NaN)
            r = _run(F.kl_div, TF.kl_div, [x, tgt], [0, 1] if log_target else [0], dtype, reduction,
                     log_target=log_target)
        _compare(*r, dtype, f"kl_div log_target={log_target}")


# ---------------------------------------------------------------- margins and embeddings

@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("shape", SHAPES)
def test_margin_and_hinge_losses(shape, reduction, dtype):
    rng = np.random.default_rng(8)
    a, b = rng.standard_normal(shape), rng.standard_normal(shape)
    y = np.where(rng.random(shape) < 0.5, -1.0, 1.0)
    for margin in (0.0, 0.7):
        _compare(*_run(F.margin_ranking_loss, TF.margin_ranking_loss, [a, b, y], [0, 1], dtype, reduction,
                       margin=margin), dtype, "margin_ranking")
    for margin in (1.0, 0.4):
        _compare(*_run(F.hinge_embedding_loss, TF.hinge_embedding_loss, [a, y], [0], dtype, reduction,
                       margin=margin), dtype, "hinge")
    y01 = (rng.random(shape) < 0.5).astype(float)
    for kw in ({}, {"weight": rng.random(shape[-1:])}):
        _compare(*_run(F.multilabel_soft_margin_loss, TF.multilabel_soft_margin_loss, [a, y01], [0], dtype,
                       reduction, **kw), dtype, f"multilabel_soft_margin {list(kw)}")


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("shape", [(6,), (5, 6), (1, 3)])
def test_multi_margin_loss(shape, reduction, dtype):
    rng = np.random.default_rng(9)
    x = rng.standard_normal(shape)
    C = shape[-1]
    t = rng.integers(0, C, shape[:-1] if len(shape) == 2 else ()).astype(np.int64)
    for p, margin, w in itertools.product([1, 2], [1.0, 0.3], [None, rng.random(C)]):
        kw = {"p": p, "margin": margin} | ({"weight": w} if w is not None else {})
        _compare(*_run(F.multi_margin_loss, TF.multi_margin_loss, [x, t], [0], dtype, reduction, **kw), dtype,
                 f"multi_margin {kw}")


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("reduction", REDUCTIONS)
def test_multilabel_margin_loss(reduction, dtype):
    rng = np.random.default_rng(10)
    x = rng.standard_normal((5, 6))
    t = np.array([[3, 0, -1, 1, 2, 2], [0, 1, 2, 3, 4, 5], [-1, 1, 1, 1, 1, 1], [5, 5, -1, 0, 0, 0],
                  [2, 4, 1, -1, 3, 3]], dtype=np.int64)
    _compare(*_run(F.multilabel_margin_loss, TF.multilabel_margin_loss, [x, t], [0], dtype, reduction), dtype, "2-d")
    _compare(*_run(F.multilabel_margin_loss, TF.multilabel_margin_loss, [x[0], t[0]], [0], dtype, reduction),
             dtype, "1-d")


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("reduction", REDUCTIONS)
def test_cosine_embedding_loss(reduction, dtype):
    rng = np.random.default_rng(13)
    a, b = rng.standard_normal((6, 5)), rng.standard_normal((6, 5))
    y = np.array([1, -1, 1, -1, -1, 1], dtype=np.int64)
    for margin in (0.0, -0.2, 0.3):
        _compare(*_run(F.cosine_embedding_loss, TF.cosine_embedding_loss, [a, b, y], [0, 1], dtype, reduction,
                       margin=margin), dtype, "2-d")
    _compare(*_run(F.cosine_embedding_loss, TF.cosine_embedding_loss, [a[0], b[0], np.array(-1)], [0, 1], dtype,
                   reduction, margin=-0.5), dtype, "1-d")


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("shape", [(5,), (6, 4), (3, 2, 4)])
def test_triplet_losses(shape, reduction, dtype):
    rng = np.random.default_rng(14)
    a, p, n = (rng.standard_normal(shape) for _ in range(3))
    for kw in ({}, {"p": 1}, {"p": 3.0}, {"margin": 0.3, "swap": True}, {"p": 1, "eps": 1e-3, "swap": True}):
        _compare(*_run(F.triplet_margin_loss, TF.triplet_margin_loss, [a, p, n], [0, 1, 2], dtype, reduction, **kw),
                 dtype, f"triplet {kw}")
    for kw in ({}, {"margin": 2.0, "swap": True}):
        _compare(*_run(F.triplet_margin_with_distance_loss, TF.triplet_margin_with_distance_loss, [a, p, n],
                       [0, 1, 2], dtype, reduction, **kw), dtype, f"triplet distance {kw}")
    cos = (lambda x, y: 1 - (x * y).sum(-1) / ((x * x).sum(-1) * (y * y).sum(-1)).sqrt())
    la, lt, ga, gt = _run(lambda *a_, **k: F.triplet_margin_with_distance_loss(*a_, distance_function=cos, **k),
                          lambda *a_, **k: TF.triplet_margin_with_distance_loss(*a_, distance_function=cos, **k),
                          [a, p, n], [0, 1, 2], dtype, reduction)
    _compare(la, lt, ga, gt, dtype, "custom distance")


def test_pairwise_distance_matches_torch():
    rng = np.random.default_rng(15)
    a, b = rng.standard_normal((4, 5)), rng.standard_normal((4, 5))
    for p in (1, 2, 3.5, float("inf")):
        got = F.pairwise_distance(ak.from_numpy(a), ak.from_numpy(b), p=p).numpy()
        ref = TF.pairwise_distance(torch.from_numpy(a), torch.from_numpy(b), p=p).numpy()
        np.testing.assert_allclose(got, ref, rtol=1e-12)


# ---------------------------------------------------------------- modules

MODULES = [
    ("L1Loss", {}, "float2"), ("MSELoss", {"reduction": "sum"}, "float2"), ("HuberLoss", {"delta": 0.5}, "float2"),
    ("SmoothL1Loss", {"beta": 0.0}, "float2"), ("SoftMarginLoss", {}, "sign2"),
    ("CrossEntropyLoss", {"label_smoothing": 0.1, "ignore_index": 0}, "class"), ("NLLLoss", {}, "class"),
    ("BCEWithLogitsLoss", {}, "prob2"), ("BCELoss", {"reduction": "none"}, "probprob"),
    ("KLDivLoss", {"reduction": "batchmean"}, "float2"), ("PoissonNLLLoss", {"full": True}, "float2"),
    ("MultiLabelSoftMarginLoss", {}, "prob2"), ("MultiMarginLoss", {"p": 2}, "class"),
    ("HingeEmbeddingLoss", {"margin": 0.5}, "sign2"), ("MultiLabelMarginLoss", {}, "multilabel"),
]


@pytest.mark.parametrize("name,kw,kind", MODULES, ids=[m[0] for m in MODULES])
def test_modules_match_torch(name, kw, kind):
    rng = np.random.default_rng(16)
    x = rng.standard_normal((5, 4))
    second = {"float2": rng.standard_normal((5, 4)), "sign2": np.sign(rng.standard_normal((5, 4))),
              "class": rng.integers(0, 4, 5).astype(np.int64), "prob2": rng.random((5, 4)),
              "probprob": rng.random((5, 4)),
              "multilabel": np.array([[1, -1, 0, 0]] * 5, dtype=np.int64)}[kind]
    if kind == "probprob":
        x = rng.random((5, 4))
    ma, mt = getattr(nn, name)(**kw), getattr(torch.nn, name)(**kw)
    assert ma.reduction == mt.reduction
    xa, xt = ak.from_numpy(x.copy()).requires_grad_(), torch.from_numpy(x.copy()).requires_grad_()
    la, lt = ma(xa, ak.from_numpy(second.copy())), mt(xt, torch.from_numpy(second.copy()))
    la.sum().backward()
    lt.sum().backward()
    np.testing.assert_allclose(la.detach().numpy(), lt.detach().numpy(), rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(xa.grad.numpy(), xt.grad.numpy(), rtol=1e-10, atol=1e-12)


def test_module_state_and_legacy_arguments():
    w = ak.tensor([1.0, 2.0, 3.0])
    m = nn.CrossEntropyLoss(weight=w, label_smoothing=0.1)
    assert "weight" in dict(m.named_buffers()) and m.ignore_index == -100 and m.label_smoothing == 0.1
    assert nn.BCEWithLogitsLoss(pos_weight=w).pos_weight is w
    assert nn.MSELoss(size_average=False).reduction == "sum"
    assert nn.L1Loss(reduce=False).reduction == "none"
    assert repr(nn.CrossEntropyLoss()) == repr(torch.nn.CrossEntropyLoss())
    assert F.mse_loss(ak.ones(3), ak.zeros(3), size_average=False).item() == 3.0
    with pytest.raises(ValueError, match="margin"):
        nn.TripletMarginWithDistanceLoss(margin=0)
    x = ak.randn(3, 4, dtype=ak.float64)
    loss = nn.TripletMarginWithDistanceLoss(distance_function=nn.PairwiseDistance() if hasattr(nn, "PairwiseDistance")
                                            else None)(x, x + 1, x - 1)
    assert loss.item() >= 0


# ---------------------------------------------------------------- gradient checks (float64, finite differences)

def _gc(fn, *inputs):
    assert gradcheck(fn, tuple(inputs), eps=1e-6, atol=1e-6, rtol=1e-4)


@pytest.mark.parametrize("reduction", REDUCTIONS)
def test_gradchecks(reduction):
    rng = np.random.default_rng(17)

    def leaf(a):
        return ak.from_numpy(np.asarray(a, dtype=np.float64)).requires_grad_()

    x, y = rng.standard_normal((3, 4)) * 2, rng.standard_normal((3, 4)) * 2
    t_cls = ak.from_numpy(rng.integers(0, 4, 3).astype(np.int64))
    t3 = ak.from_numpy(rng.integers(0, 4, (3, 2)).astype(np.int64))
    w4 = ak.from_numpy(rng.random(4) + 0.2)
    yt = ak.from_numpy(y)
    sign = ak.from_numpy(np.sign(y))
    prob = ak.from_numpy(rng.random((3, 4)))
    r = reduction
    _gc(lambda a: F.l1_loss(a, yt, reduction=r), leaf(x))
    _gc(lambda a, b: F.mse_loss(a, b, reduction=r), leaf(x), leaf(y))
    _gc(lambda a: F.huber_loss(a, yt, reduction=r, delta=0.7), leaf(x))
    _gc(lambda a: F.smooth_l1_loss(a, yt, reduction=r, beta=0.6), leaf(x))
    _gc(lambda a: F.cross_entropy(a, t_cls, weight=w4, label_smoothing=0.2, reduction=r), leaf(x))
    _gc(lambda a: F.cross_entropy(a, t3, ignore_index=1, reduction=r), leaf(rng.standard_normal((3, 4, 2))))
    _gc(lambda a, b: F.cross_entropy(a, b, reduction=r), leaf(x), leaf(rng.random((3, 4))))
    _gc(lambda a: F.nll_loss(a, t_cls, weight=w4, reduction=r), leaf(x))
    _gc(lambda a: F.binary_cross_entropy(a, prob, weight=w4, reduction=r), leaf(rng.uniform(0.1, 0.9, (3, 4))))
    _gc(lambda a: F.binary_cross_entropy_with_logits(a, prob, weight=w4, pos_weight=w4, reduction=r), leaf(x))
    _gc(lambda a: F.poisson_nll_loss(a, prob, full=True, reduction=r), leaf(x))
    _gc(lambda a, v: F.gaussian_nll_loss(a, yt, v, reduction=r), leaf(x), leaf(rng.random((3, 4)) + 0.5))
    _gc(lambda a: F.kl_div(a, prob, reduction=r), leaf(x))
    _gc(lambda a, b: F.margin_ranking_loss(a, b, sign, margin=0.1, reduction=r), leaf(x), leaf(y))
    _gc(lambda a: F.hinge_embedding_loss(a, sign, reduction=r), leaf(x))
    _gc(lambda a: F.soft_margin_loss(a, sign, reduction=r), leaf(x))
    _gc(lambda a: F.multilabel_soft_margin_loss(a, prob, reduction=r), leaf(x))
    _gc(lambda a: F.multi_margin_loss(a, t_cls, p=2, weight=w4, reduction=r), leaf(x))
    _gc(lambda a: F.multilabel_margin_loss(a, ak.tensor([[1, 2, -1, 0]] * 3), reduction=r), leaf(x))
    _gc(lambda a, b: F.cosine_embedding_loss(a, b, ak.tensor([1, -1, -1]), reduction=r), leaf(x), leaf(y))
    _gc(lambda a, b, c: F.triplet_margin_loss(a, b, c, swap=True, reduction=r), leaf(x), leaf(y),
        leaf(rng.standard_normal((3, 4))))
    _gc(lambda a, b, c: F.triplet_margin_with_distance_loss(a, b, c, margin=3.0, reduction=r), leaf(x), leaf(y),
        leaf(rng.standard_normal((3, 4))))


# ---------------------------------------------------------------- bad input

def test_bad_input_is_a_clear_error_of_torchs_class():
    x = ak.randn(4, 5)
    with pytest.raises(RuntimeError, match=r"mse_loss\(\): input shape \(4, 5\) and target shape \(5,\) differ"):
        F.mse_loss(x, ak.randn(5))
    with pytest.raises(ValueError, match=r"reduction must be 'mean', 'sum' or 'none', got 'avg'"):
        F.l1_loss(x, x, reduction="avg")
    with pytest.raises(ValueError, match="'batchmean'"):
        F.kl_div(x, x, reduction="batch")
    with pytest.raises(IndexError, match=r"cross_entropy\(\): target 5 out of range for 5 classes"):
        F.cross_entropy(x, ak.tensor([0, 1, 5, 2]))
    with pytest.raises(IndexError, match=r"nll_loss\(\): target -3 out of range"):
        F.nll_loss(ak.randn(2, 5, 3), ak.tensor([[0, 1, 2], [1, -3, 0]]))
    with pytest.raises(IndexError, match=r"target -3 out of range for 5 classes \(at target index \(1, 1\)"):
        F.cross_entropy(ak.randn(2, 5, 3), ak.tensor([[0, 1, 2], [1, -3, 0]]))
    with pytest.raises(RuntimeError, match=r"target shape \(4, 2\) does not match input shape \(4, 5\)"):
        F.cross_entropy(x, ak.zeros(4, 2, dtype=ak.int64))
    with pytest.raises(RuntimeError, match=r"probabilities of the input's shape \(4, 5\), got target shape \(4, 4\)"):
        F.cross_entropy(x, ak.rand(4, 4))
    with pytest.raises(TypeError, match="int64 class indices, got float32"):
        F.nll_loss(x, ak.tensor([0.0, 1.0, 2.0, 3.0]))
    with pytest.raises(RuntimeError, match=r"weight must have shape \(5,\)"):
        F.cross_entropy(x, ak.tensor([0, 1, 2, 3]), weight=ak.ones(4))
    with pytest.raises(ValueError, match="label_smoothing must be between 0.0 and 1.0"):
        F.cross_entropy(x, ak.tensor([0, 1, 2, 3]), label_smoothing=1.5)
    with pytest.raises(RuntimeError, match="var has negative entries"):
        F.gaussian_nll_loss(x, x, -ak.rand(4, 5))
    with pytest.raises(ValueError, match=r"var shape \(4, 3\)"):
        F.gaussian_nll_loss(x, x, ak.rand(4, 3))
    with pytest.raises(RuntimeError, match="all elements of input should be between 0 and 1"):
        F.binary_cross_entropy(ak.tensor([0.5, 1.5]), ak.tensor([0.0, 1.0]))
    with pytest.raises(RuntimeError, match="all elements of target should be between 0 and 1"):
        F.binary_cross_entropy(ak.tensor([0.5, 0.5]), ak.tensor([0.0, -1.0]))
    with pytest.raises(RuntimeError, match="all elements of input"):
        F.binary_cross_entropy(ak.tensor([0.5, float("nan")]), ak.tensor([0.0, 1.0]))
    with pytest.raises(RuntimeError, match=r"pos_weight shape \(3,\) does not broadcast to the input shape \(4, 5\)"):
        F.binary_cross_entropy_with_logits(x, x, pos_weight=ak.ones(3))
    with pytest.raises(RuntimeError, match="beta must be non-negative"):
        F.smooth_l1_loss(x, x, beta=-1.0)
    with pytest.raises(RuntimeError, match="delta must be positive"):
        F.huber_loss(x, x, delta=0.0)
    with pytest.raises(RuntimeError, match="only p == 1 and p == 2"):
        F.multi_margin_loss(x, ak.tensor([0, 1, 2, 3]), p=3)
    with pytest.raises(IndexError, match="target out of range"):
        F.multi_margin_loss(x, ak.tensor([0, 1, 7, 3]))
    with pytest.raises(RuntimeError, match="same number of dims"):
        F.triplet_margin_loss(x, x, ak.randn(5))
    with pytest.raises(TypeError, match="aakaar.Tensor"):
        F.huber_loss(np.ones(3), ak.ones(3))


@pytest.mark.parametrize("reduction", REDUCTIONS)
def test_cross_entropy_probability_targets_on_cuda(reduction):
    # The CUDA table has no fused cross_entropy: the op composes there (ops/cross_entropy.cpp),
    # and must give the CPU's fused answer.
    if not ak.cuda.is_available():
        pytest.skip("no CUDA device")
    rng = np.random.default_rng(23)
    x = rng.standard_normal((6, 5))
    p = rng.random((6, 5))
    p /= p.sum(1, keepdims=True)
    w = rng.random(5) + 0.1
    out = {}
    for dev in ("cpu", "cuda"):
        xs = ak.from_numpy(x).to(dev).requires_grad_()
        loss = F.cross_entropy(xs, ak.from_numpy(p).to(dev), weight=ak.from_numpy(w).to(dev), reduction=reduction,
                               label_smoothing=0.2)
        loss.backward(ak.ones(tuple(loss.shape), dtype=loss.dtype, device=dev))
        out[dev] = (loss.detach().cpu().numpy(), xs.grad.cpu().numpy())
    for a, b in zip(out["cpu"], out["cuda"]):
        np.testing.assert_allclose(b, a, rtol=1e-10, atol=1e-12)
