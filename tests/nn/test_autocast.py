"""Automatic mixed precision on the CPU against torch: aakaar.autocast / aakaar.amp.autocast's state
functions, the dtypes and values of the ops of torch's lower-precision list (bfloat16 and float16),
of its float32 list (the losses, ...) and of the promoting ops (cat, stack), gradients reaching
float32 parameters, and that nothing changes outside a region."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import aakaar
import aakaar.nn.functional as F

torch = pytest.importorskip("torch")
TF = torch.nn.functional

PAIRS = [(aakaar.bfloat16, torch.bfloat16), (aakaar.float16, torch.float16)]
TDT = {aakaar.float32: torch.float32, aakaar.float64: torch.float64, aakaar.bfloat16: torch.bfloat16,
       aakaar.float16: torch.float16}


def both(shape, seed, dtype=np.float32):
    arr = np.random.default_rng(seed).standard_normal(shape).astype(dtype)
    return aakaar.tensor(arr), torch.tensor(arr)


def same_dtype(a, t):
    return TDT.get(a.dtype) == t.dtype


def close(a, t, dtype):
    # Both round the inputs to bfloat16/float16 and round the result once, but torch's kernels may
    # round partial sums too: they agree to a few ulps of the low-precision dtype at the scale of
    # the largest value (a sum that cancels keeps the error of its terms).
    got, want = a.detach().float().numpy(), t.detach().float().numpy()
    rtol = 2 ** -6 if dtype == aakaar.bfloat16 else 2 ** -9
    np.testing.assert_allclose(got, want, rtol=rtol, atol=rtol * max(1.0, float(np.abs(want).max())))


def test_state_functions_as_torch():
    assert not aakaar.is_autocast_enabled("cpu") and not torch.is_autocast_enabled("cpu")
    assert aakaar.get_autocast_dtype("cpu") == aakaar.bfloat16
    assert aakaar.get_autocast_dtype("cuda") == aakaar.float16
    with aakaar.autocast("cpu"):
        assert aakaar.is_autocast_enabled("cpu") and not aakaar.is_autocast_enabled()
        assert aakaar.is_autocast_cpu_enabled()
        with aakaar.amp.autocast("cpu", dtype=aakaar.float16):
            assert aakaar.get_autocast_dtype("cpu") == aakaar.float16
            with aakaar.autocast("cpu", enabled=False):
                assert not aakaar.is_autocast_enabled("cpu")
            assert aakaar.is_autocast_enabled("cpu")
        assert aakaar.get_autocast_dtype("cpu") == aakaar.bfloat16
    assert not aakaar.is_autocast_enabled("cpu")

    @aakaar.autocast("cpu")
    def inside():
        return aakaar.is_autocast_enabled("cpu")

    assert inside() and not aakaar.is_autocast_enabled("cpu")
    assert aakaar.amp.is_autocast_available("cpu") == torch.amp.is_autocast_available("cpu")
    aakaar.set_autocast_enabled("cpu", True)
    try:
        assert F.linear(aakaar.ones(2, 3), aakaar.ones(4, 3)).dtype == aakaar.bfloat16
    finally:
        aakaar.set_autocast_enabled("cpu", False)
    assert F.linear(aakaar.ones(2, 3), aakaar.ones(4, 3)).dtype == aakaar.float32


def test_bad_arguments_as_torch():
    for lib in (aakaar, torch):
        with pytest.raises(ValueError):
            lib.autocast(3)
        with pytest.raises(RuntimeError):
            lib.autocast("tpu-ish")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        with aakaar.autocast("cpu", dtype=aakaar.float64):
            assert not aakaar.is_autocast_enabled("cpu")  # warned and disabled, as torch
    assert any("Autocast only supports" in str(w.message) for w in caught)
    if not aakaar.cuda.is_available():  # torch's rule without CUDA: warn, and the region is off
        with pytest.warns(UserWarning, match="CUDA is not available"):
            ctx = aakaar.autocast("cuda")
        with ctx:
            assert not aakaar.is_autocast_enabled("cuda")
    with pytest.warns(FutureWarning):
        ctx = aakaar.cpu.amp.autocast()
    with ctx:
        assert aakaar.is_autocast_enabled("cpu")


def test_modules_of_the_library_are_cast_too():
    seq = aakaar.nn.Sequential(aakaar.nn.Linear(6, 16), aakaar.nn.ReLU(), aakaar.nn.Linear(16, 3))
    conv = aakaar.nn.Sequential(aakaar.nn.Conv2d(3, 4, 3), aakaar.nn.ReLU())
    mha = aakaar.nn.MultiheadAttention(8, 2)
    q = aakaar.randn(3, 2, 8)
    with aakaar.autocast("cpu"):
        assert seq(aakaar.randn(4, 6)).dtype == aakaar.bfloat16  # Sequential's fused linear + relu too
        assert conv(aakaar.randn(2, 3, 8, 8)).dtype == aakaar.bfloat16
        assert mha(q, q, q)[0].dtype == aakaar.bfloat16  # as torch's


@pytest.mark.parametrize("name", ["LSTM", "GRU", "RNN"])
def test_recurrent_layers_as_torch(name):
    torch.manual_seed(0)
    mt = getattr(torch.nn, name)(4, 5, num_layers=2)
    ma = getattr(aakaar.nn, name)(4, 5, num_layers=2)
    ma.load_state_dict({k: aakaar.tensor(v.detach().numpy()) for k, v in mt.state_dict().items()})
    xa, xt = both((6, 3, 4), 9)
    with aakaar.autocast("cpu"):
        ya = ma(xa)[0]
    with torch.autocast("cpu"):
        yt = mt(xt)[0]
    assert same_dtype(ya, yt), (ya.dtype, yt.dtype)  # LSTM and RNN: bfloat16; GRU: float32 (torch's)
    close(ya, yt, aakaar.bfloat16)
    assert ma(xa)[0].dtype == aakaar.float32


def lower_cases():
    (xa, xt), (wa, wt), (ba, bt) = both((5, 8), 0), both((6, 8), 1), both((6,), 2)
    (ia, it), (ka, kt) = both((2, 3, 9, 9), 3), both((4, 3, 3, 3), 4)
    (va, vt) = both((2, 4, 6), 5)
    return {
        "mm": (lambda: aakaar.mm(xa, wa.T), lambda: torch.mm(xt, wt.T)),
        "matmul_op": (lambda: xa @ wa.T, lambda: xt @ wt.T),
        "Tensor.matmul": (lambda: xa.matmul(wa.T), lambda: xt.matmul(wt.T)),
        "bmm": (lambda: aakaar.bmm(va, va.transpose(1, 2)), lambda: torch.bmm(vt, vt.transpose(1, 2))),
        "addmm": (lambda: aakaar.addmm(ba, xa, wa.T), lambda: torch.addmm(bt, xt, wt.T)),
        "baddbmm": (lambda: aakaar.baddbmm(va[:, :, :4], va, va.transpose(1, 2)[:, :, :4]),
                    lambda: torch.baddbmm(vt[:, :, :4], vt, vt.transpose(1, 2)[:, :, :4])),
        "linear": (lambda: F.linear(xa, wa, ba), lambda: TF.linear(xt, wt, bt)),
        "conv2d": (lambda: F.conv2d(ia, ka, padding=1), lambda: TF.conv2d(it, kt, padding=1)),
        "conv1d": (lambda: F.conv1d(ia[:, :, 0], ka[:, :, 0]), lambda: TF.conv1d(it[:, :, 0], kt[:, :, 0])),
        "conv_transpose2d": (lambda: F.conv_transpose2d(ka, ia[:, :, :3, :3].transpose(0, 1)),
                             lambda: TF.conv_transpose2d(kt, it[:, :, :3, :3].transpose(0, 1))),
        "prelu": (lambda: F.prelu(xa, ba[:1]), lambda: TF.prelu(xt, bt[:1])),
        "sdpa": (lambda: F.scaled_dot_product_attention(va, va, va), lambda: TF.scaled_dot_product_attention(vt, vt, vt)),
        "einsum": (lambda: aakaar.einsum("ij,kj->ik", xa, wa), lambda: torch.einsum("ij,kj->ik", xt, wt)),
        "tensordot": (lambda: aakaar.tensordot(xa, wa, ([1], [1])), lambda: torch.tensordot(xt, wt, ([1], [1]))),
    }


def test_ops_off_the_lists_keep_their_dtype_as_torch():
    (xa, xt), (va, vt) = both((4, 8), 0), both((8,), 1)
    for fa, ft in ((lambda: aakaar.mv(xa, va), lambda: torch.mv(xt, vt)), (lambda: va.dot(va), lambda: vt.dot(vt)),
                   (lambda: aakaar.einsum("ii->i", xa[:, :4]), lambda: torch.einsum("ii->i", xt[:, :4])),
                   (lambda: aakaar.outer(va, va), lambda: torch.outer(vt, vt))):
        with aakaar.autocast("cpu"):
            a = fa()
        with torch.autocast("cpu"):
            t = ft()
        assert a.dtype == aakaar.float32 and same_dtype(a, t)
        close(a, t, aakaar.float32)


@pytest.mark.parametrize("dtypes", PAIRS, ids=["bfloat16", "float16"])
@pytest.mark.parametrize("name", list(lower_cases()))
def test_lower_precision_ops_as_torch(name, dtypes):
    fa, ft = lower_cases()[name]
    with aakaar.autocast("cpu", dtype=dtypes[0]):
        a = fa()
    with torch.autocast("cpu", dtype=dtypes[1]):
        t = ft()
    assert a.dtype == dtypes[0] and same_dtype(a, t), (a.dtype, t.dtype)
    close(a, t, dtypes[0])
    assert fa().dtype == aakaar.float32  # outside: nothing changes


def test_modules_and_float64_under_autocast():
    torch.manual_seed(0)
    lin_t = torch.nn.Linear(8, 3)
    lin_a = aakaar.nn.Linear(8, 3)
    lin_a.load_state_dict({k: aakaar.tensor(v.numpy()) for k, v in lin_t.state_dict().items()})
    (xa, xt) = both((4, 8), 7)
    with aakaar.autocast("cpu"):
        ya = lin_a(xa)
        y64 = F.linear(xa.double(), lin_a.weight.double())  # float64 is left alone, as torch
    with torch.autocast("cpu"):
        yt = lin_t(xt)
    assert ya.dtype == aakaar.bfloat16 and yt.dtype == torch.bfloat16 and y64.dtype == aakaar.float64
    close(ya, yt, aakaar.bfloat16)
    ya.float().sum().backward()
    yt.float().sum().backward()
    assert lin_a.weight.grad.dtype == aakaar.float32  # the cast is differentiable: float32 grads
    np.testing.assert_allclose(lin_a.weight.grad.numpy(), lin_t.weight.grad.numpy(), rtol=2e-2, atol=2e-2)


def fp32_cases():
    (pa, pt), (qa, qt) = both((4, 5), 10), both((4, 5), 11)
    labels_a, labels_t = aakaar.tensor([0, 1, 4, 2]), torch.tensor([0, 1, 4, 2])
    sa, st = pa.sigmoid(), pt.sigmoid()
    return {
        "mse_loss": (lambda c: F.mse_loss(c(pa), c(qa)), lambda c: TF.mse_loss(c(pt), c(qt))),
        "l1_loss": (lambda c: F.l1_loss(c(pa), c(qa)), lambda c: TF.l1_loss(c(pt), c(qt))),
        "smooth_l1_loss": (lambda c: F.smooth_l1_loss(c(pa), c(qa)), lambda c: TF.smooth_l1_loss(c(pt), c(qt))),
        "huber_loss": (lambda c: F.huber_loss(c(pa), c(qa)), lambda c: TF.huber_loss(c(pt), c(qt))),
        "cross_entropy": (lambda c: F.cross_entropy(c(pa), labels_a), lambda c: TF.cross_entropy(c(pt), labels_t)),
        "nll_loss": (lambda c: F.nll_loss(c(pa), labels_a), lambda c: TF.nll_loss(c(pt), labels_t)),
        "kl_div": (lambda c: F.kl_div(c(pa), c(sa), reduction="batchmean"),
                   lambda c: TF.kl_div(c(pt), c(st), reduction="batchmean")),
        "binary_cross_entropy": (lambda c: F.binary_cross_entropy(c(sa), c(qa.sigmoid())),
                                 lambda c: TF.binary_cross_entropy(c(st), c(qt.sigmoid()))),
        "bce_with_logits": (lambda c: F.binary_cross_entropy_with_logits(c(pa), c(sa)),
                            lambda c: TF.binary_cross_entropy_with_logits(c(pt), c(st))),
        "prod": (lambda c: c(sa).prod(), lambda c: c(st).prod()),
        "cat": (lambda c: aakaar.cat([c(pa), qa]), lambda c: torch.cat([c(pt), qt])),
        "stack": (lambda c: aakaar.stack([c(pa), qa]), lambda c: torch.stack([c(pt), qt])),
        "softmax_stays_low": (lambda c: F.softmax(c(pa), -1), lambda c: TF.softmax(c(pt), -1)),
        "trace": (lambda c: c(pa).trace(), lambda c: c(pt).trace()),
        "cdist": (lambda c: aakaar.cdist(c(pa), c(qa)), lambda c: torch.cdist(c(pt), c(qt))),
        "pad_replicate": (lambda c: F.pad(c(pa)[None], (1, 2), mode="replicate"),
                          lambda c: TF.pad(c(pt)[None], (1, 2), mode="replicate")),
        "pad_constant_stays_low": (lambda c: F.pad(c(pa), (1, 2)), lambda c: TF.pad(c(pt), (1, 2))),
        "avg_pool3d": (lambda c: F.avg_pool3d(c(pa)[None, None, None].expand(1, 1, 2, 4, 5), (2, 2, 2)),
                       lambda c: TF.avg_pool3d(c(pt)[None, None, None].expand(1, 1, 2, 4, 5), (2, 2, 2))),
    }


@pytest.mark.parametrize("name", list(fp32_cases()))
def test_float32_and_promote_ops_as_torch(name):
    fa, ft = fp32_cases()[name]
    with aakaar.autocast("cpu"):
        a = fa(lambda t: t.to(aakaar.bfloat16))
    with torch.autocast("cpu"):
        t = ft(lambda t: t.to(torch.bfloat16))
    assert same_dtype(a, t), (a.dtype, t.dtype)
    close(a, t, aakaar.bfloat16)
    outside = fa(lambda t: t.to(aakaar.bfloat16))
    if name not in ("cat", "stack"):
        assert outside.dtype == aakaar.bfloat16  # outside: computed in the inputs' dtype
