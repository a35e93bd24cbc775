"""nn.utils: fuse_conv_bn_eval / fuse_conv_bn_weights, fuse_linear_bn_eval / fuse_linear_bn_weights,
skip_init, stateless.functional_call and convert_conv2d/3d_weight_memory_format, against torch."""

from __future__ import annotations

import numpy as np
import pytest

import aakaar

torch = pytest.importorskip("torch")


def copy_into(ma, mt):
    ma.load_state_dict({k: aakaar.tensor(v.detach().numpy()) for k, v in mt.state_dict().items()})


def eval_bn(bt, seed):
    g = torch.Generator().manual_seed(seed)
    n = bt.num_features
    bt.running_mean.copy_(torch.randn(n, generator=g))
    bt.running_var.copy_(torch.rand(n, generator=g) + 0.5)
    if bt.affine:
        bt.weight.data.copy_(torch.randn(n, generator=g))
        bt.bias.data.copy_(torch.randn(n, generator=g))
    return bt.eval()


@pytest.mark.parametrize("transpose", [False, True])
@pytest.mark.parametrize("bias", [True, False])
def test_fuse_conv_bn_eval_matches_torch_and_the_unfused_pair(transpose, bias):
    torch.manual_seed(0)
    if transpose:
        ct, ca = torch.nn.ConvTranspose2d(3, 4, 3, bias=bias), aakaar.nn.ConvTranspose2d(3, 4, 3, bias=bias)
    else:
        ct, ca = torch.nn.Conv2d(3, 4, 3, bias=bias), aakaar.nn.Conv2d(3, 4, 3, bias=bias)
    bt, ba = eval_bn(torch.nn.BatchNorm2d(4), 1), aakaar.nn.BatchNorm2d(4)
    copy_into(ca, ct.eval())
    copy_into(ba, bt)
    ba.eval()
    ca.eval()
    ft = torch.nn.utils.fuse_conv_bn_eval(ct, bt, transpose=transpose)
    fa = aakaar.nn.utils.fuse_conv_bn_eval(ca, ba, transpose=transpose)
    assert isinstance(fa.weight, aakaar.nn.Parameter) and fa is not ca
    np.testing.assert_allclose(fa.weight.detach().numpy(), ft.weight.detach().numpy(), rtol=1e-6, atol=1e-7)
    np.testing.assert_allclose(fa.bias.detach().numpy(), ft.bias.detach().numpy(), rtol=1e-6, atol=1e-7)
    x = np.random.default_rng(2).standard_normal((2, 3, 7, 7)).astype(np.float32)
    np.testing.assert_allclose(fa(aakaar.tensor(x)).detach().numpy(), ba(ca(aakaar.tensor(x))).detach().numpy(),
                               rtol=1e-4, atol=1e-5)
    with pytest.raises(AssertionError):
        aakaar.nn.utils.fuse_conv_bn_eval(ca.train(), ba)


def test_fuse_weights_functions_match_torch_and_keep_dtype_and_requires_grad():
    rng = np.random.default_rng(3)
    w, b = rng.standard_normal((4, 2, 3)), rng.standard_normal(4)
    rm, rv, bw, bb = rng.standard_normal(4), rng.random(4) + 0.5, rng.standard_normal(4), rng.standard_normal(4)
    A, T = (lambda v: aakaar.tensor(v)), (lambda v: torch.tensor(v))
    for conv_b in (b, None):
        pa = aakaar.nn.utils.fuse_conv_bn_weights(A(w), None if conv_b is None else A(conv_b), A(rm), A(rv), 1e-5,
                                                  None, A(bb))
        pt = torch.nn.utils.fuse_conv_bn_weights(T(w), None if conv_b is None else T(conv_b), T(rm), T(rv), 1e-5,
                                                 None, T(bb))
        for x, y in zip(pa, pt):
            assert x.dtype == aakaar.float64 and x.requires_grad == y.requires_grad
            np.testing.assert_allclose(x.detach().numpy(), y.detach().numpy(), rtol=1e-12)
    lw = rng.standard_normal((4, 5))
    pa = aakaar.nn.utils.fuse_linear_bn_weights(A(lw), None, A(rm), A(rv), 1e-3, A(bw), A(bb))
    pt = torch.nn.utils.fuse_linear_bn_weights(T(lw), None, T(rm), T(rv), 1e-3, T(bw), T(bb))
    for x, y in zip(pa, pt):
        np.testing.assert_allclose(x.detach().numpy(), y.detach().numpy(), rtol=1e-12)


def test_fuse_linear_bn_eval_matches_torch():
    torch.manual_seed(4)
    lt, la = torch.nn.Linear(5, 4).eval(), aakaar.nn.Linear(5, 4)
    bt, ba = eval_bn(torch.nn.BatchNorm1d(4), 5), aakaar.nn.BatchNorm1d(4)
    copy_into(la, lt)
    copy_into(ba, bt)
    la.eval()
    ba.eval()
    ft, fa = torch.nn.utils.fuse_linear_bn_eval(lt, bt), aakaar.nn.utils.fuse_linear_bn_eval(la, ba)
    np.testing.assert_allclose(fa.weight.detach().numpy(), ft.weight.detach().numpy(), rtol=1e-6)
    np.testing.assert_allclose(fa.bias.detach().numpy(), ft.bias.detach().numpy(), rtol=1e-6, atol=1e-7)
    with pytest.raises(AssertionError):
        aakaar.nn.utils.fuse_linear_bn_eval(la, aakaar.nn.BatchNorm1d(3).eval())


def test_skip_init_as_torch():
    m = aakaar.nn.utils.skip_init(aakaar.nn.Linear, 5, 3)
    t = torch.nn.utils.skip_init(torch.nn.Linear, 5, 3)
    assert tuple(m.weight.shape) == tuple(t.weight.shape) and m.weight.dtype == aakaar.float32
    assert m.bias is not None and m.weight.requires_grad
    for lib, cls in ((aakaar, int), (torch, int)):
        with pytest.raises(RuntimeError, match="Expected a Module"):
            lib.nn.utils.skip_init(cls)

    class NoDevice(aakaar.nn.Module):
        def __init__(self):
            super().__init__()

    with pytest.raises(RuntimeError, match="device"):
        aakaar.nn.utils.skip_init(NoDevice)


def test_stateless_functional_call_warns_and_calls():
    lin = aakaar.nn.Linear(3, 2)
    w, b = aakaar.ones(2, 3), aakaar.zeros(2)
    with pytest.warns(FutureWarning):
        out = aakaar.nn.utils.stateless.functional_call(lin, {"weight": w, "bias": b}, (aakaar.ones(1, 3),))
    np.testing.assert_allclose(out.detach().numpy(), [[3.0, 3.0]])
    assert not np.allclose(lin.weight.detach().numpy(), 1.0)  # the module is left as it was


def test_convert_conv_weight_memory_format():
    for lib in (aakaar, torch):
        model = lib.nn.Sequential(lib.nn.Conv2d(3, 4, 3), lib.nn.ReLU(), lib.nn.Sequential(lib.nn.ConvTranspose2d(4, 2, 3)),
                                  lib.nn.Conv3d(2, 2, 2), lib.nn.Linear(3, 3))
        before = model[0].weight.detach().numpy().copy()
        out = lib.nn.utils.convert_conv2d_weight_memory_format(model, lib.channels_last)
        assert out is model
        assert model[0].weight.is_contiguous(memory_format=lib.channels_last)
        assert model[2][0].weight.is_contiguous(memory_format=lib.channels_last)
        assert not model[0].weight.is_contiguous()
        assert model[3].weight.is_contiguous()  # a Conv3d is not touched by the 2-d conversion
        np.testing.assert_array_equal(model[0].weight.detach().numpy(), before)
        lib.nn.utils.convert_conv3d_weight_memory_format(model, lib.channels_last_3d)
        assert model[3].weight.is_contiguous(memory_format=lib.channels_last_3d)
