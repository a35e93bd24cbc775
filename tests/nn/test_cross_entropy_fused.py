"""The fused softmax cross-entropy (_C.cross_entropy, behind F.cross_entropy): values and
gradients against torch for both float dtypes and every reduction, finite differences,
double backward, stability on huge logits, agreement with the composite it replaced
(nll_loss of log_softmax), and clear errors for bad targets."""

from __future__ import annotations

import numpy as np
import pytest

import aakaar as ak
import aakaar.nn.functional as F
from aakaar import _C
from aakaar.autograd import grad as ak_grad
from aakaar.autograd import gradcheck
from nn_helpers import assert_close, to_ak, torch

pytestmark = pytest.mark.torch

REDUCTIONS = ["mean", "sum", "none"]
DTYPES = {"float64": (np.float64, torch.float64), "float32": (np.float32, torch.float32)}
# float32: the loss is a log of a sum of C exponentials and a subtraction, a few ulp each;
# float64 agrees with torch to rounding.
TOL = {"float64": (1e-12, 1e-14), "float32": (2e-6, 1e-7)}
# (N, C): single rows, single classes, the benchmark's batch, wider than a vector register, odd sizes.
SHAPES = [(1, 1), (1, 7), (5, 1), (6, 5), (64, 47), (3, 300), (33, 17)]


def _problem(shape, np_dt, seed=0, scale=1.0, shift=0.0):
    rng = np.random.default_rng(seed)
    x = (rng.standard_normal(shape) * scale + shift).astype(np_dt)
    t = rng.integers(0, shape[1], shape[0]).astype(np.int64)
    return x, t


def _both(x, t, reduction, upstream=None):
    """Loss and input gradient from aakaar (fused) and torch on the same data."""
    xa = ak.from_numpy(x.copy()).requires_grad_()
    xt = torch.from_numpy(x.copy()).requires_grad_()
    la = F.cross_entropy(xa, ak.from_numpy(t.copy()), reduction=reduction)
    lt = torch.nn.functional.cross_entropy(xt, torch.from_numpy(t.copy()), reduction=reduction)
    if reduction == "none":
        g = upstream if upstream is not None else np.random.default_rng(1).standard_normal(x.shape[0]).astype(x.dtype)
        la.backward(ak.from_numpy(g.copy()))
        lt.backward(torch.from_numpy(g.copy()))
    else:
        la.backward()
        lt.backward()
    return la, lt, xa.grad, xt.grad


@pytest.mark.parametrize("dtype", list(DTYPES))
@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("shape", SHAPES)
def test_values_and_gradients_match_torch(shape, reduction, dtype):
    np_dt, _ = DTYPES[dtype]
    x, t = _problem(shape, np_dt, seed=shape[0] * 1000 + shape[1])
    la, lt, ga, gt = _both(x, t, reduction)
    rtol, atol = TOL[dtype]
    assert la.dtype == (ak.float64 if dtype == "float64" else ak.float32)
    assert_close(la, lt, rtol=rtol, atol=atol, what="loss")
    assert_close(ga, gt, rtol=rtol, atol=atol, what="grad")


def test_one_fused_node():
    x = ak.randn(4, 3).requires_grad_()
    loss = F.cross_entropy(x, ak.tensor([0, 2, 1, 2]))
    assert loss.grad_fn.name() == "CrossEntropyBackward0"
    (nxt, _), = loss.grad_fn.next_functions
    assert type(nxt).__name__ == "AccumulateGrad"  # straight to the leaf: no log_softmax/gather/neg/mean nodes
    with ak.no_grad():
        assert F.cross_entropy(x, ak.tensor([0, 2, 1, 2])).grad_fn is None
    assert F.cross_entropy(x.detach(), ak.tensor([0, 2, 1, 2])).grad_fn is None


@pytest.mark.parametrize("dtype", list(DTYPES))
@pytest.mark.parametrize("reduction", REDUCTIONS)
def test_huge_logits_are_stable(reduction, dtype):
    # exp(1e4) overflows either dtype: only the max-shifted form is finite.
    np_dt, _ = DTYPES[dtype]
    x, t = _problem((16, 10), np_dt, seed=3, scale=1e4)
    x[0] = x[0] + np_dt(1e4)  # a row far from the others, all of it large
    la, lt, ga, gt = _both(x, t, reduction)
    assert np.all(np.isfinite(la.detach().numpy())) and np.all(np.isfinite(ga.numpy()))
    # Losses are differences of numbers near 1e4: their error is relative to 1e4, not to the loss.
    rtol, _ = TOL[dtype]
    assert_close(la, lt, rtol=rtol, atol=rtol * 1e4 * (16 if reduction == "sum" else 1), what="loss")
    assert_close(ga, gt, rtol=rtol, atol=1e-6 if dtype == "float32" else 1e-12, what="grad")


@pytest.mark.parametrize("dtype", list(DTYPES))
def test_masked_classes_match_torch(dtype):
    # -inf logits (classes masked out): zero probability and zero gradient, nothing NaN
    np_dt, _ = DTYPES[dtype]
    x, t = _problem((5, 6), np_dt, seed=4)
    x[:, 4:] = -np.inf
    x[2, :3] = -np.inf  # row 2: only its target's class is left
    t[2] = 3
    t = np.minimum(t, 3)
    la, lt, ga, gt = _both(x, t, "sum")
    rtol, atol = TOL[dtype]
    assert_close(la, lt, rtol=rtol, atol=atol, what="loss")
    assert_close(ga, gt, rtol=rtol, atol=atol, what="grad")
    assert np.all(ga.numpy()[:, 4:] == 0) and np.all(np.isfinite(ga.numpy()))


@pytest.mark.parametrize("reduction", REDUCTIONS)
def test_gradient_of_another_dtype(reduction):
    # backward(float64 gradient) on a float32 loss: the gradient is cast, never read as the wrong type
    x, t = _problem((6, 5), np.float32, seed=8)
    g = np.random.default_rng(9).standard_normal(6 if reduction == "none" else ())
    grads = []
    for g_dt in (np.float32, np.float64):
        xa = ak.from_numpy(x.copy()).requires_grad_()
        F.cross_entropy(xa, ak.from_numpy(t), reduction=reduction).backward(ak.from_numpy(np.asarray(g, dtype=g_dt)))
        assert xa.grad.dtype == ak.float32
        grads.append(xa.grad.numpy())
    np.testing.assert_allclose(grads[1], grads[0], rtol=1e-6, atol=1e-8)


def test_parallel_rows_agree_with_one_thread():
    # enough rows for parallel_for to split them; the float32 mean is summed in a fixed order
    x, t = _problem((2000, 40), np.float32, seed=12)
    old = _C.get_num_threads()
    out = {}
    try:
        for n in (1, 4):
            _C.set_num_threads(n)
            xa = ak.from_numpy(x.copy()).requires_grad_()
            loss = F.cross_entropy(xa, ak.from_numpy(t))
            loss.backward()
            out[n] = (loss.item(), xa.grad.numpy())
    finally:
        _C.set_num_threads(old)
    assert out[1][0] == out[4][0]
    np.testing.assert_array_equal(out[1][1], out[4][1])
    xt = torch.from_numpy(x.copy())
    assert abs(out[4][0] - torch.nn.functional.cross_entropy(xt, torch.from_numpy(t)).item()) < 1e-5


@pytest.mark.parametrize("reduction", REDUCTIONS)
def test_empty_batch_matches_torch(reduction):
    x, t = np.zeros((0, 4)), np.zeros(0, dtype=np.int64)
    la = F.cross_entropy(ak.from_numpy(x), ak.from_numpy(t), reduction=reduction)
    lt = torch.nn.functional.cross_entropy(torch.from_numpy(x), torch.from_numpy(t), reduction=reduction)
    np.testing.assert_array_equal(la.numpy(), lt.numpy())  # mean: NaN (0/0) in both; sum: 0; none: empty


def test_strided_inputs():
    # logits read through a transpose (column stride != 1), targets through a step-2 slice
    rng = np.random.default_rng(5)
    xT = rng.standard_normal((9, 6))
    t2 = rng.integers(0, 9, 12).astype(np.int64)
    xa = ak.from_numpy(xT.copy()).requires_grad_()
    xt = torch.from_numpy(xT.copy()).requires_grad_()
    for red in REDUCTIONS:
        la = F.cross_entropy(xa.transpose(0, 1), ak.from_numpy(t2.copy())[::2], reduction=red)
        lt = torch.nn.functional.cross_entropy(xt.t(), torch.from_numpy(t2.copy())[::2], reduction=red)
        assert_close(la, lt, rtol=1e-12, atol=1e-14, what=red)
        la.sum().backward()
        lt.sum().backward()
        assert_close(xa.grad, xt.grad, rtol=1e-12, atol=1e-14, what=red + " grad")


@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("shape", [(1, 1), (1, 4), (5, 3), (7, 11)])
def test_gradcheck(shape, reduction):
    x, t = _problem(shape, np.float64, seed=11)
    ta = ak.from_numpy(t)
    assert gradcheck(lambda a: F.cross_entropy(a, ta, reduction=reduction), ak.from_numpy(x).requires_grad_(),
                     eps=1e-6, atol=1e-7, rtol=1e-5)


@pytest.mark.parametrize("dtype", list(DTYPES))
@pytest.mark.parametrize("reduction", REDUCTIONS)
def test_double_backward_matches_torch(reduction, dtype):
    """Gradient of <v, d loss / d x> with respect to x and to the upstream gradient g."""
    np_dt, _ = DTYPES[dtype]
    x, t = _problem((6, 5), np_dt, seed=21)
    rng = np.random.default_rng(22)
    v = rng.standard_normal(x.shape).astype(np_dt)
    g = rng.standard_normal(6 if reduction == "none" else ()).astype(np_dt)
    g = np.asarray(g, dtype=np_dt)

    xa, ga = ak.from_numpy(x.copy()).requires_grad_(), ak.from_numpy(g.copy()).requires_grad_()
    la = F.cross_entropy(xa, ak.from_numpy(t.copy()), reduction=reduction)
    (dxa,) = ak_grad(la, xa, grad_outputs=ga, create_graph=True)
    (dxa * ak.from_numpy(v.copy())).sum().backward()

    xt, gt = torch.from_numpy(x.copy()).requires_grad_(), torch.from_numpy(g.copy()).requires_grad_()
    lt = torch.nn.functional.cross_entropy(xt, torch.from_numpy(t.copy()), reduction=reduction)
    (dxt,) = torch.autograd.grad(lt, xt, grad_outputs=gt, create_graph=True)
    (dxt * torch.from_numpy(v.copy())).sum().backward()

    rtol, atol = TOL[dtype]
    assert_close(dxa, dxt, rtol=rtol, atol=atol, what="first derivative")
    assert_close(xa.grad, xt.grad, rtol=rtol, atol=atol, what="second derivative in x")
    assert_close(ga.grad, gt.grad, rtol=rtol, atol=atol, what="derivative in the upstream gradient")
    assert float(np.abs(xt.grad.numpy()).max()) > 1e-3  # the second derivative is not trivially zero


@pytest.mark.parametrize("reduction", REDUCTIONS)
def test_hessian_vector_product_matches_finite_differences(reduction):
    """H v from double backward (the recorded composite backward) against central differences
    of the gradient (the fast backward): each path checks the other, with no torch involved."""
    x, t = _problem((4, 6), np.float64, seed=31)
    ta = ak.from_numpy(t)
    rng = np.random.default_rng(32)
    v = rng.standard_normal(x.shape)
    g = ak.from_numpy(rng.standard_normal(4)) if reduction == "none" else None

    def gradient(x_np, create_graph=False):
        a = ak.from_numpy(x_np.copy()).requires_grad_()
        (d,) = ak_grad(F.cross_entropy(a, ta, reduction=reduction), a, grad_outputs=g, create_graph=create_graph)
        return a, d

    a, d = gradient(x, create_graph=True)
    (hv,) = ak_grad((d * ak.from_numpy(v)).sum(), a)
    eps = 1e-5
    numeric = (gradient(x + eps * v)[1].numpy() - gradient(x - eps * v)[1].numpy()) / (2 * eps)
    np.testing.assert_allclose(hv.numpy(), numeric, rtol=1e-6, atol=1e-9)
    assert np.abs(numeric).max() > 1e-2


@pytest.mark.parametrize("dtype", list(DTYPES))
@pytest.mark.parametrize("reduction", REDUCTIONS)
def test_agrees_with_the_composite(reduction, dtype):
    """The op it replaces: nll_loss(log_softmax(x), t), value and gradient, to 1e-6."""
    np_dt, _ = DTYPES[dtype]
    x, t = _problem((64, 47), np_dt, seed=41, scale=3.0)
    g = np.random.default_rng(42).standard_normal(64).astype(np_dt)
    out = []
    for fn in (lambda a, b: F.cross_entropy(a, b, reduction=reduction),
               lambda a, b: F.nll_loss(a.log_softmax(1), b, reduction=reduction)):
        xa = ak.from_numpy(x.copy()).requires_grad_()
        loss = fn(xa, ak.from_numpy(t.copy()))
        loss.backward(ak.from_numpy(g.copy()) if reduction == "none" else None)
        out.append((loss.detach().numpy(), xa.grad.numpy()))
    (lf, gf), (lc, gc) = out
    np.testing.assert_allclose(lf, lc, rtol=1e-6, atol=0)
    np.testing.assert_allclose(gf, gc, rtol=1e-6, atol=1e-9 if dtype == "float32" else 1e-15)


@pytest.mark.parametrize("bad", [-1, 47, 48, -101, 2**62])  # (-100 is the default ignore_index)
def test_out_of_range_target_is_a_clear_error(bad):
    x = ak.randn(8, 47).requires_grad_()
    t = np.arange(8, dtype=np.int64)
    t[5] = bad
    with pytest.raises(IndexError, match=rf"cross_entropy\(\): target {bad} out of range for 47 classes "
                                         r"\(at batch index 5; class indices must be in \[0, 47\)\)"):
        F.cross_entropy(x, ak.from_numpy(t))
    with pytest.raises(IndexError, match=rf"target {bad} out of range for 47 classes"):
        _C.cross_entropy(x, ak.from_numpy(t), reduction="none")
    assert x.grad is None


def test_no_class_is_a_valid_target_for_zero_classes():
    with pytest.raises(IndexError, match="target 0 out of range for 0 classes"):
        F.cross_entropy(ak.zeros(2, 0), ak.tensor([0, 0]))


def test_bad_arguments_are_clear_errors():
    x = ak.randn(4, 5)
    with pytest.raises(TypeError, match=r"cross_entropy\(\): target must be int64 class indices, got float32"):
        F.cross_entropy(x, ak.tensor([0.0, 1.0, 2.0, 3.0]))
    with pytest.raises(TypeError, match="int64 class indices, got bool"):
        F.cross_entropy(x, ak.tensor([True, False, True, False]))
    with pytest.raises(ValueError, match=r"target shape \(2,\) does not match input shape \(4, 5\) \(expected target shape \(4,\)"):
        F.cross_entropy(x, ak.tensor([0, 1]))
    with pytest.raises(ValueError, match=r"target shape \(4, 1\) does not match input shape \(4, 5\)"):
        F.cross_entropy(x, ak.tensor([[0], [1], [2], [3]]))
    with pytest.raises(ValueError, match=r"target shape \(\) does not match input shape \(4, 5\)"):
        F.cross_entropy(x, ak.tensor(1))
    with pytest.raises(ValueError, match=r"target shape \(1,\) does not match input shape \(5,\) \(expected target shape \(\)"):
        F.cross_entropy(ak.randn(5), ak.tensor([0]))
    with pytest.raises(ValueError, match=r"input must be \(N, C\) logits, got shape \[2, 3, 4\]"):
        _C.cross_entropy(ak.randn(2, 3, 4), ak.tensor([0, 1]))
    with pytest.raises(TypeError, match="input must be a floating-point tensor, got int64"):
        F.cross_entropy(ak.tensor([[1, 2], [3, 4]]), ak.tensor([0, 1]))
    with pytest.raises(ValueError, match=r"reduction must be 'mean', 'sum' or 'none', got 'avg'"):
        F.cross_entropy(x, ak.tensor([0, 1, 2, 3]), reduction="avg")
    with pytest.raises(ValueError, match="reduction must be"):
        F.cross_entropy(x, ak.tensor([0, 1, 2, 3]), reduction=None)
    with pytest.raises(TypeError, match=r"cross_entropy\(\): target must be an aakaar.Tensor, got list"):
        F.cross_entropy(x, [0, 1, 2, 3])
    with pytest.raises(TypeError, match=r"cross_entropy\(\): input must be an aakaar.Tensor, got ndarray"):
        F.cross_entropy(np.zeros((4, 5)), ak.tensor([0, 1, 2, 3]))


def test_target_modified_in_place_after_forward_is_caught():
    # the backward reads the saved target; changing it in between would give a wrong gradient silently
    x = ak.randn(3, 4).requires_grad_()
    t = ak.tensor([0, 1, 2])
    loss = F.cross_entropy(x, t)
    t.add_(1)
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        loss.backward()


def test_training_loss_falls_like_torch():
    """A few SGD steps of a linear classifier: the fused loss drives training exactly as torch's does."""
    rng = np.random.default_rng(7)
    xs, w0 = rng.standard_normal((32, 20)), rng.standard_normal((20, 6)) * 0.1
    ys = np.argmax(xs @ rng.standard_normal((20, 6)), 1).astype(np.int64)
    wa, wt = ak.from_numpy(w0.copy()).requires_grad_(), torch.from_numpy(w0.copy()).requires_grad_()
    xa, ya, xt, yt = ak.from_numpy(xs), ak.from_numpy(ys), torch.from_numpy(xs), torch.from_numpy(ys)
    losses = []
    for _ in range(20):
        la, lt = F.cross_entropy(xa @ wa, ya), torch.nn.functional.cross_entropy(xt @ wt, yt)
        la.backward(), lt.backward()
        with ak.no_grad():
            wa -= 0.5 * wa.grad
            wa.grad = None
        with torch.no_grad():
            wt -= 0.5 * wt.grad
            wt.grad = None
        losses.append((la.item(), lt.item()))
    np.testing.assert_allclose([a for a, _ in losses], [b for _, b in losses], rtol=1e-10)
    assert losses[-1][0] < 0.5 * losses[0][0]
    assert_close(wa, to_ak(wt).numpy(), rtol=1e-10, atol=1e-12, what="weights")
