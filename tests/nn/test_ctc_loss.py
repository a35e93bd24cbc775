"""F.ctc_loss and nn.CTCLoss against torch 2.13: values and gradients for every reduction, both target
layouts, lengths as lists, tuples or tensors, blank anywhere, repeated labels, empty targets, inputs
shorter than T, impossible alignments with and without zero_infinity; gradients against finite
differences in float64; PyTorch's errors for bad input; no double backward (as in PyTorch)."""

from __future__ import annotations

import numpy as np
import pytest

import aakaar as ak
import aakaar.nn as nn
import aakaar.nn.functional as F
from aakaar.autograd import gradcheck
from nn_helpers import torch

pytestmark = pytest.mark.torch
TF = torch.nn.functional

TOL = {"float64": (1e-10, 1e-12), "float32": (1e-5, 1e-6)}


def _problem(seed: int, T: int, N: int, C: int, blank: int, lengths=None, S: int | None = None):
    """Logits (T, N, C), padded targets (N, S) of labels != blank, input and target lengths. Labels
    are drawn from a few classes so that repeats ("a a", which need a blank between them) occur."""
    rng = np.random.default_rng(seed)
    x = rng.standard_normal((T, N, C)) * 2
    labels = [c for c in range(C) if c != blank]
    if lengths is None:
        il = rng.integers(T // 2, T + 1, N)
        tl = np.array([rng.integers(0, max(1, il[n] // 2) + 1) for n in range(N)])
    else:
        il, tl = (np.array(v) for v in lengths)
    S = S if S is not None else max(1, int(tl.max()))
    tg = rng.choice(labels[:3], size=(N, S))
    return x, tg, il.astype(np.int64), tl.astype(np.int64)


def _concat(tg: np.ndarray, tl: np.ndarray) -> np.ndarray:
    return np.concatenate([tg[n, :tl[n]] for n in range(len(tl))]).astype(np.int64)


def _lengths(v: np.ndarray, kind: str, lib):
    if kind == "list":
        return [int(a) for a in v]
    if kind == "tuple":
        return tuple(int(a) for a in v)
    return ak.from_numpy(v.copy()) if lib is ak else torch.from_numpy(v.copy())


def _both(x, tg, il, tl, dtype, reduction, blank, zero_infinity, layout="padded", lengths="list",
          through_log_softmax=True, seed=5):
    """Loss and gradient (to the logits through log_softmax, or to log_probs directly) in both libraries."""
    dt = np.float64 if dtype == "float64" else np.float32
    targets = tg if layout == "padded" else _concat(tg, tl)
    out = []
    for lib, fn in ((ak, F.ctc_loss), (torch, TF.ctc_loss)):
        xs = (ak.from_numpy if lib is ak else torch.from_numpy)(x.astype(dt).copy())
        if not through_log_softmax:
            xs = xs.log_softmax(2).detach()  # log-probabilities given as they are
        xs.requires_grad_()
        lp = xs.log_softmax(2) if through_log_softmax else xs
        t = (ak.from_numpy if lib is ak else torch.from_numpy)(targets.copy())
        loss = fn(lp, t, _lengths(il, lengths, lib), _lengths(tl, lengths, lib), blank=blank, reduction=reduction,
                  zero_infinity=zero_infinity)
        up = np.random.default_rng(seed).standard_normal(tuple(loss.shape)).astype(dt)
        loss.backward((ak.from_numpy if lib is ak else torch.from_numpy)(up))
        out.append((loss.detach().numpy(), xs.grad.numpy()))
    return out


def _compare(pair, dtype, what):
    (la, ga), (lt, gt) = pair
    rtol, atol = TOL[dtype]
    assert la.shape == lt.shape, f"{what}: loss shape {la.shape} != torch {lt.shape}"
    np.testing.assert_allclose(la, lt, rtol=rtol, atol=atol, err_msg=what + " loss")
    scale = max(1.0, float(np.nanmax(np.abs(gt)))) if np.isfinite(gt).any() else 1.0
    np.testing.assert_allclose(ga, gt, rtol=rtol, atol=atol * scale, err_msg=what + " grad")


@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
@pytest.mark.parametrize("layout", ["padded", "concatenated"])
@pytest.mark.parametrize("blank", [0, 4, 2])
def test_parity(blank, layout, reduction, dtype):
    x, tg, il, tl = _problem(blank * 10 + len(layout), T=15, N=5, C=5, blank=blank)
    _compare(_both(x, tg, il, tl, dtype, reduction, blank, False, layout), dtype, f"{layout} blank={blank}")


@pytest.mark.parametrize("lengths", ["list", "tuple", "tensor"])
@pytest.mark.parametrize("through_log_softmax", [True, False])
def test_lengths_kinds_and_direct_log_probs(lengths, through_log_softmax):
    # Direct: the gradient to log_probs is PyTorch's exp(log_probs) - posterior.
    x, tg, il, tl = _problem(3, T=12, N=4, C=6, blank=0)
    pair = _both(x, tg, il, tl, "float64", "mean", 0, False, lengths=lengths,
                 through_log_softmax=through_log_softmax)
    _compare(pair, "float64", f"lengths as {lengths}")


@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
@pytest.mark.parametrize("zero_infinity", [False, True])
def test_impossible_alignments(zero_infinity, reduction, dtype):
    # Sample 0: 3 labels in 2 frames; sample 1: "a a" (needs 3 frames) in 2 frames; sample 2: empty
    # input, non-empty target; sample 3: empty input and empty target (loss 0); sample 4: fine.
    x, tg, il, tl = _problem(7, T=6, N=5, C=4, blank=0, lengths=([2, 2, 0, 0, 6], [3, 2, 1, 0, 2]), S=3)
    tg[1, :2] = 2
    pair = _both(x, tg, il, tl, dtype, reduction, 0, zero_infinity)
    if zero_infinity or reduction == "none":
        _compare(pair, dtype, f"zero_infinity={zero_infinity}")
    else:
        # Without zero_infinity the mean and sum are inf and the gradients NaN, in both libraries.
        (la, ga), (lt, gt) = pair
        assert np.isinf(la) and np.isinf(lt)
        np.testing.assert_array_equal(np.isnan(ga), np.isnan(gt))
    if zero_infinity:
        (la, ga), _ = pair
        assert np.isfinite(la).all() and np.isfinite(ga).all()
        if reduction == "none":
            assert (la[:3] == 0).all() and (ga[:, :3] == 0).all()


def test_infinite_loss_values_and_nan_gradients_as_torch():
    x, tg, il, tl = _problem(8, T=4, N=2, C=4, blank=1, lengths=([1, 4], [3, 1]), S=3)
    (la, ga), (lt, gt) = _both(x, tg, il, tl, "float64", "none", 1, False)
    assert np.isinf(la[0]) and np.isinf(lt[0]) and np.isfinite(la[1])
    np.testing.assert_allclose(la[1], lt[1], rtol=1e-12)
    np.testing.assert_array_equal(np.isnan(ga), np.isnan(gt))
    np.testing.assert_allclose(ga[:, 1], gt[:, 1], rtol=1e-10, atol=1e-12)


def test_repeated_labels_long_sequence_float32():
    # 200 frames: the probabilities underflow any float; log space keeps the loss finite. The
    # float32 gradient is exp(log_alpha + log_beta + nll - lp) with nll ~ 1400, so it carries
    # ~1e-4 of rounding in both libraries (a different 1e-4): each is held to the float64 answer,
    # aakaar no further from it than torch.
    rng = np.random.default_rng(9)
    x = rng.standard_normal((200, 3, 8)) * 3
    tg = np.array([[1, 1, 1, 2, 2, 3, 3, 3, 3, 1] * 4, [5] * 40, [2, 7] * 20])
    args = (x, tg, np.array([200, 180, 150]), np.array([40, 40, 31]))
    (la, ga), (lt, gt) = _both(*args, "float32", "sum", 0, False)
    (l64, g64), _ = _both(*args, "float64", "sum", 0, False)
    np.testing.assert_allclose(la, lt, rtol=1e-5)
    np.testing.assert_allclose(la, l64, rtol=1e-6)
    torch_err = np.abs(gt - g64).max()
    assert np.abs(ga - g64).max() <= 1.5 * torch_err + 1e-6, (np.abs(ga - g64).max(), torch_err)


def test_unbatched():
    rng = np.random.default_rng(10)
    x = rng.standard_normal((9, 5))
    tg = np.array([1, 3, 3, 2])
    for red in ("none", "mean", "sum"):
        res = []
        for lib, fn in ((ak, F.ctc_loss), (torch, TF.ctc_loss)):
            xs = (ak.from_numpy if lib is ak else torch.from_numpy)(x.copy()).requires_grad_()
            t = (ak.from_numpy if lib is ak else torch.from_numpy)(tg.copy())
            conv = ak.from_numpy if lib is ak else torch.from_numpy
            loss = fn(xs.log_softmax(1), t, conv(np.array(9)), conv(np.array(4)), reduction=red)  # 0-d lengths
            loss.backward()
            res.append((loss.detach().numpy(), xs.grad.numpy()))
        _compare(res, "float64", f"unbatched {red}")


def test_module_matches_functional():
    x, tg, il, tl = _problem(11, T=10, N=3, C=5, blank=3)
    lp = ak.from_numpy(x).log_softmax(2)
    m = nn.CTCLoss(blank=3, reduction="sum", zero_infinity=True)
    want = F.ctc_loss(lp, ak.from_numpy(tg), list(il), list(tl), blank=3, reduction="sum", zero_infinity=True)
    assert m(lp, ak.from_numpy(tg), list(il), list(tl)).item() == want.item()
    ref = torch.nn.CTCLoss(blank=3, reduction="sum", zero_infinity=True)(
        torch.from_numpy(x).log_softmax(2), torch.from_numpy(tg), list(il), list(tl))
    np.testing.assert_allclose(want.item(), ref.item(), rtol=1e-12)
    assert repr(nn.CTCLoss()) == repr(torch.nn.CTCLoss())
    assert (m.blank, m.reduction, m.zero_infinity) == (3, "sum", True)


@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
@pytest.mark.parametrize("zero_infinity", [False, True])
def test_gradcheck_through_log_softmax(reduction, zero_infinity):
    # Finite differences of the loss with respect to the logits, blank not 0, a repeated label,
    # an empty target and (zero_infinity) an impossible sample whose gradient must be 0.
    x, tg, il, tl = _problem(12, T=7, N=4, C=4, blank=2, lengths=([7, 5, 3, 6], [3, 2, 0, 1]), S=3)
    tg[0] = [1, 1, 3]
    if zero_infinity:
        il[1], tl[1] = 1, 2
    t = ak.from_numpy(tg)
    xs = ak.from_numpy(x).requires_grad_()

    def fn(z):
        return F.ctc_loss(z.log_softmax(2), t, list(il), list(tl), blank=2, reduction=reduction,
                          zero_infinity=zero_infinity)

    assert gradcheck(fn, (xs,), eps=1e-6, atol=1e-7, rtol=1e-5)


def test_direct_gradient_is_finite_difference_plus_exp_log_probs():
    # d loss / d log_probs by finite differences is -posterior; the gradient given (PyTorch's) adds
    # exp(log_probs). This checks the posterior itself, independently of torch.
    x, tg, il, tl = _problem(13, T=6, N=2, C=4, blank=0, lengths=([6, 5], [2, 2]), S=2)
    lp0 = torch.from_numpy(x).log_softmax(2).numpy()
    t = ak.from_numpy(tg)

    def loss_of(lp: np.ndarray) -> float:
        return F.ctc_loss(ak.from_numpy(lp), t, list(il), list(tl), reduction="sum").item()

    lp = ak.from_numpy(lp0.copy()).requires_grad_()
    F.ctc_loss(lp, t, list(il), list(tl), reduction="sum").backward()
    fd = np.zeros_like(lp0)
    h = 1e-6
    for idx in np.ndindex(*lp0.shape):
        a, b = lp0.copy(), lp0.copy()
        a[idx] += h
        b[idx] -= h
        fd[idx] = (loss_of(a) - loss_of(b)) / (2 * h)
    frames = (np.arange(6)[:, None] < il[None, :])[:, :, None]  # frames past an input's length: 0
    np.testing.assert_allclose(lp.grad.numpy() - np.exp(lp0) * frames, fd, atol=1e-8)


def test_double_backward_raises_as_in_torch():
    x, tg, il, tl = _problem(14, T=6, N=2, C=4, blank=0)
    xs = ak.from_numpy(x).requires_grad_()
    loss = F.ctc_loss(xs.log_softmax(2), ak.from_numpy(tg), list(il), list(tl))
    (g,) = ak.autograd.grad(loss, xs, create_graph=True)
    with pytest.raises(RuntimeError, match="double backward"):
        g.sum().backward()


# ---------------------------------------------------------------- bad input, as PyTorch raises it

def _call(lib, lp, tg, il, tl, **kw):
    fn = F.ctc_loss if lib is ak else TF.ctc_loss
    conv = ak.from_numpy if lib is ak else torch.from_numpy
    return fn(conv(lp), conv(tg), il, tl, **kw)


LP = np.log(np.full((6, 2, 4), 0.25))
TG = np.array([[1, 2], [3, 3]])

BAD = [
    ("input length > T", dict(il=[7, 6]), "input_lengths to have value at most 6"),
    ("negative input length", dict(il=[-1, 6]), "input_lengths to have value at least 0"),
    ("negative target length", dict(tl=[-1, 2]), "target_lengths to have value at least 0"),
    ("target length > S", dict(tl=[3, 2]), "targets to have size at least 3"),
    ("log_probs rank 4", dict(lp=LP[None]), "3-dimensional"),
    ("log_probs rank 1", dict(lp=LP[:, 0, 0]), "3-dimensional"),
    ("targets rank 3", dict(tg=TG[None]), "1 to 2 dimensions"),
    ("blank = C", dict(blank=4), "blank must be in label range"),
    ("blank < 0", dict(blank=-1), "blank must be in label range"),
    ("input_lengths size", dict(il=[6]), "input_lengths must be of size batch_size"),
    ("target_lengths size", dict(tl=[2, 2, 1]), "target_lengths must be of size batch_size"),
    ("concatenated size", dict(tg=np.array([1, 2, 3])), "size 4"),
    ("padded rows", dict(tg=TG[:1]), "size 2"),
    ("empty log_probs", dict(lp=LP[:, :0], tg=TG[:0], il=[], tl=[]), "must not be empty"),
]


@pytest.mark.parametrize("what,change,msg", BAD, ids=[b[0] for b in BAD])
def test_bad_input_raises_like_torch(what, change, msg):
    args = dict(lp=LP, tg=TG, il=[6, 6], tl=[2, 2])
    kw = {}
    for k, v in change.items():
        (kw if k == "blank" else args)[k] = v
    with pytest.raises(RuntimeError):
        _call(torch, args["lp"], args["tg"], args["il"], args["tl"], **kw)
    with pytest.raises(RuntimeError, match=msg):
        _call(ak, args["lp"], args["tg"], args["il"], args["tl"], **kw)


def test_bad_types():
    lp, tg = ak.from_numpy(LP), ak.from_numpy(TG)
    with pytest.raises(ValueError, match="not a valid value for reduction"):
        F.ctc_loss(lp, tg, [6, 6], [2, 2], reduction="bad")
    with pytest.raises(RuntimeError, match="input_lengths must be integral"):
        F.ctc_loss(lp, tg, ak.from_numpy(np.array([6.0, 6.0])), [2, 2])
    with pytest.raises(TypeError, match="input_lengths"):
        F.ctc_loss(lp, tg, [6.0, 6.0], [2, 2])
    with pytest.raises(TypeError, match="log_probs must be a floating-point tensor"):
        F.ctc_loss(ak.from_numpy(np.zeros((6, 2, 4), np.int64)), tg, [6, 6], [2, 2])
    # A label outside [0, C): PyTorch reads out of bounds; here a clear IndexError.
    with pytest.raises(IndexError, match="target label 7 out of range for 4 classes"):
        F.ctc_loss(lp, ak.from_numpy(np.array([[7, 2], [3, 3]])), [6, 6], [2, 2])


def test_float_targets_converted_like_torch():
    tg = TG.astype(np.float64)
    a = F.ctc_loss(ak.from_numpy(LP), ak.from_numpy(tg), [6, 6], [2, 2]).item()
    t = TF.ctc_loss(torch.from_numpy(LP), torch.from_numpy(tg), [6, 6], [2, 2]).item()
    np.testing.assert_allclose(a, t, rtol=1e-12)


def test_cuda_device_has_the_kernel():
    # The CUDA table fills ctc_loss (csrc/cuda/ctc_ops.cu; compared with the CPU's in
    # tests/cuda_backend/suite/test_cuda_fused.py): no NotImplementedError there any more.
    if not ak.cuda.is_available():
        pytest.skip("no CUDA device")
    lp = ak.from_numpy(LP).to("cuda")
    got = F.ctc_loss(lp, ak.from_numpy(TG).to("cuda"), [6, 6], [2, 2]).item()
    np.testing.assert_allclose(got, F.ctc_loss(ak.from_numpy(LP), ak.from_numpy(TG), [6, 6], [2, 2]).item(),
                               rtol=1e-12)


def test_batch_first_logits_transposed_view():
    # The usual call: a model's (N, T, C) output, log_softmax, then transpose(0, 1): a strided view.
    rng = np.random.default_rng(15)
    x = rng.standard_normal((3, 8, 5))
    tg = rng.integers(1, 5, (3, 4))
    res = []
    for lib, fn in ((ak, F.ctc_loss), (torch, TF.ctc_loss)):
        conv = ak.from_numpy if lib is ak else torch.from_numpy
        xs = conv(x.copy()).requires_grad_()
        loss = fn(xs.log_softmax(2).transpose(0, 1), conv(tg.copy()), [8, 7, 6], [4, 3, 2], reduction="sum")
        loss.backward()
        res.append((loss.detach().numpy(), xs.grad.numpy()))
    _compare(res, "float64", "transposed")
