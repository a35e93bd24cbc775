"""The activations of nn.functional and nn beyond the basics, against torch: values,
gradients (kinks included), inplace=, module arguments and printing, PReLU's weight."""

from __future__ import annotations

import numpy as np
import pytest

import aakaar
import aakaar.nn as nn
import aakaar.nn.functional as F

torch = pytest.importorskip("torch")
TF = torch.nn.functional

# Points on and around every kink of the functions below, plus random values.
KINKS = [-6.0, -3.0, -2.0, -1.0, -0.5, 0.0, 0.5, 1.0, 2.0, 3.0, 6.0]


def inputs(seed=0):
    rng = np.random.default_rng(seed)
    return np.concatenate([np.array(KINKS), rng.standard_normal(40) * 4])


# (id, aakaar call, torch call)
CASES = [
    ("hardsigmoid", F.hardsigmoid, TF.hardsigmoid),
    ("hardswish", F.hardswish, TF.hardswish),
    ("hardtanh", F.hardtanh, TF.hardtanh),
    ("hardtanh_args", lambda x: F.hardtanh(x, min_val=-2.0, max_val=0.5),
     lambda x: TF.hardtanh(x, min_val=-2.0, max_val=0.5)),
    ("relu6", F.relu6, TF.relu6),
    ("softsign", F.softsign, TF.softsign),
    ("mish", F.mish, TF.mish),
    ("celu", F.celu, TF.celu),
    ("celu_alpha", lambda x: F.celu(x, alpha=2.0), lambda x: TF.celu(x, alpha=2.0)),
    ("selu", F.selu, TF.selu),
    ("logsigmoid", F.logsigmoid, TF.logsigmoid),
    ("tanhshrink", F.tanhshrink, TF.tanhshrink),
    ("softshrink", F.softshrink, TF.softshrink),
    ("softshrink_1", lambda x: F.softshrink(x, 1.0), lambda x: TF.softshrink(x, 1.0)),
    ("hardshrink", F.hardshrink, TF.hardshrink),
    ("threshold", lambda x: F.threshold(x, 0.5, -3.0), lambda x: TF.threshold(x, 0.5, -3.0)),
    ("relu", F.relu, TF.relu),
    ("leaky_relu", lambda x: F.leaky_relu(x, 0.2), lambda x: TF.leaky_relu(x, 0.2)),
    ("elu", F.elu, TF.elu),
    ("glu", lambda x: F.glu(x[:50].reshape(2, -1), dim=0), lambda x: TF.glu(x[:50].reshape(2, -1), dim=0)),
    ("glu_last", lambda x: F.glu(x[:48].reshape(8, 6)), lambda x: TF.glu(x[:48].reshape(8, 6))),
    ("softmin", lambda x: F.softmin(x.reshape(3, -1), dim=1), lambda x: TF.softmin(x.reshape(3, -1), dim=1)),
    ("prelu_scalar", lambda x: F.prelu(x, aakaar.tensor([0.3], dtype=x.dtype)),
     lambda x: TF.prelu(x, torch.tensor([0.3], dtype=x.dtype))),
]


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("case", CASES, ids=[c[0] for c in CASES])
def test_values_and_gradients_match_torch(case, dtype):
    _, ours, theirs = case
    x = inputs().astype(dtype)
    a = aakaar.tensor(x, requires_grad=True)
    t = torch.tensor(x, requires_grad=True)
    ya, yt = ours(a), theirs(t)
    tol = 2e-6 if dtype == "float32" else 1e-13
    np.testing.assert_allclose(ya.detach().numpy(), yt.detach().numpy(), rtol=tol, atol=tol)
    g = np.random.default_rng(1).standard_normal(tuple(yt.shape)).astype(dtype)
    ya.backward(aakaar.tensor(g))
    yt.backward(torch.tensor(g))
    # at the kinks, too: torch's convention for each function
    np.testing.assert_allclose(a.grad.numpy(), t.grad.numpy(), rtol=tol, atol=tol)


@pytest.mark.parametrize("case", [c for c in CASES if c[0] in ("mish", "celu", "selu", "logsigmoid", "softsign",
                                                                "tanhshrink", "glu", "softmin", "hardswish")],
                         ids=lambda c: c[0])
def test_gradcheck_away_from_kinks(case):
    x = np.random.default_rng(5).uniform(0.2, 2.0, 12) * np.array([1, -1] * 6)
    assert aakaar.autograd.gradcheck(case[1], [aakaar.tensor(x, requires_grad=True)])


@pytest.mark.parametrize("name,args", [
    ("hardsigmoid", ()), ("hardswish", ()), ("hardtanh", (-0.5, 0.5)), ("relu6", ()), ("mish", ()), ("celu", (0.5,)),
    ("selu", ()), ("threshold", (0.1, 9.0)), ("relu", ()), ("leaky_relu", (0.1,)), ("elu", (0.7,)), ("silu", ()),
])
def test_inplace_flag(name, args):
    x = inputs()
    a, t = aakaar.tensor(x), torch.tensor(x)
    ra = getattr(F, name)(a, *args, inplace=True)
    rt = getattr(TF, name)(t, *args, inplace=True)
    assert ra is a
    np.testing.assert_allclose(a.numpy(), rt.numpy(), rtol=1e-13, atol=1e-13)
    np.testing.assert_allclose(a.numpy(), t.numpy(), rtol=1e-13, atol=1e-13)


def test_inplace_on_a_leaf_that_requires_grad_is_refused_as_in_torch():
    for lib, mod in ((aakaar, F), (torch, TF)):
        x = lib.ones(3, requires_grad=True)
        with pytest.raises(RuntimeError):
            mod.hardtanh(x, inplace=True)
    # on an intermediate it is recorded: gradients still match
    x = inputs()
    a, t = aakaar.tensor(x, requires_grad=True), torch.tensor(x, requires_grad=True)
    F.hardswish(a * 2, inplace=True).sum().backward()
    TF.hardswish(t * 2, inplace=True).sum().backward()
    np.testing.assert_allclose(a.grad.numpy(), t.grad.numpy(), rtol=1e-13)


def test_in_place_function_names():
    x = inputs()
    for name, args in [("relu_", ()), ("hardtanh_", (-1.0, 2.0)), ("elu_", (1.0,)), ("leaky_relu_", (0.3,)),
                       ("celu_", (1.2,)), ("selu_", ()), ("threshold_", (0.0, 5.0))]:
        a, t = aakaar.tensor(x), torch.tensor(x)
        assert getattr(F, name)(a, *args) is a
        getattr(TF, name)(t, *args)
        np.testing.assert_allclose(a.numpy(), t.numpy(), rtol=1e-13, err_msg=name)


MODULES = [
    ("Hardsigmoid", (), {}), ("Hardswish", (), {}), ("Hardtanh", (-2.0, 2.0), {}), ("ReLU6", (), {}),
    ("Softsign", (), {}), ("Mish", (), {}), ("CELU", (0.5,), {}), ("SELU", (), {}), ("GLU", (), {"dim": 0}),
    ("LogSigmoid", (), {}), ("Softmin", (), {"dim": 1}), ("Tanhshrink", (), {}), ("Softshrink", (0.3,), {}),
    ("Hardshrink", (0.3,), {}), ("Threshold", (0.1, 20.0), {}), ("ReLU", (), {"inplace": True}),
    ("LeakyReLU", (0.2,), {}), ("ELU", (), {"alpha": 0.5, "inplace": True}), ("SiLU", (), {}),
    ("Hardtanh", (), {"inplace": True}), ("CELU", (), {"inplace": True}), ("Threshold", (0.0, 1.0, True), {}),
    ("ReLU6", (True,), {}), ("PReLU", (), {}), ("PReLU", (4,), {}), ("PReLU", (), {"init": 0.1}),
]


@pytest.mark.parametrize("name,args,kwargs", MODULES, ids=[f"{m[0]}{i}" for i, m in enumerate(MODULES)])
def test_modules_match_torch(name, args, kwargs):
    ours, theirs = getattr(nn, name)(*args, **kwargs), getattr(torch.nn, name)(*args, **kwargs)
    assert repr(ours) == repr(theirs)
    x = np.random.default_rng(3).standard_normal((2, 4, 3)) * 3
    a, t = aakaar.tensor(x.astype(np.float32)), torch.tensor(x.astype(np.float32))
    np.testing.assert_allclose(ours(a).detach().numpy(), theirs(t).detach().numpy(), rtol=2e-6, atol=2e-6)


def test_prelu_weight_and_its_gradient():
    for n in (1, 4):
        ours, theirs = nn.PReLU(n), torch.nn.PReLU(n)
        names = [k for k, _ in ours.named_parameters()]
        assert names == [k for k, _ in theirs.named_parameters()] == ["weight"]
        assert tuple(ours.weight.shape) == tuple(theirs.weight.shape) == (n,)
        np.testing.assert_array_equal(ours.weight.detach().numpy(), theirs.weight.detach().numpy())
        x = inputs()[:48].reshape(3, 4, 4)
        a, t = aakaar.tensor(x, dtype=aakaar.float32, requires_grad=True), torch.tensor(x, dtype=torch.float32,
                                                                                          requires_grad=True)
        g = np.random.default_rng(2).standard_normal(x.shape).astype(np.float32)
        ours(a).backward(aakaar.tensor(g))
        theirs(t).backward(torch.tensor(g))
        np.testing.assert_allclose(a.grad.numpy(), t.grad.numpy(), rtol=1e-6, atol=1e-6)
        np.testing.assert_allclose(ours.weight.grad.numpy(), theirs.weight.grad.numpy(), rtol=1e-5, atol=1e-5)
    with pytest.raises(RuntimeError):
        nn.PReLU(3)(aakaar.ones(2, 4))
    with pytest.raises(RuntimeError):
        torch.nn.PReLU(3)(torch.ones(2, 4))


def test_softmin_without_dim_warns_and_picks_torchs_dim():
    x = np.random.default_rng(0).standard_normal((3, 4))
    with pytest.warns(UserWarning):
        got = F.softmin(aakaar.tensor(x))
    with pytest.warns(UserWarning):
        want = TF.softmin(torch.tensor(x))
    np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-13)


def test_activations_refuse_integers_like_torch():
    for name in ("hardsigmoid", "hardswish", "mish", "selu", "logsigmoid"):
        with pytest.raises(NotImplementedError):
            getattr(TF, name)(torch.tensor([1, 2]))
        with pytest.raises(NotImplementedError):
            getattr(F, name)(aakaar.tensor([1, 2]))
