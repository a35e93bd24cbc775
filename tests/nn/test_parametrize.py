"""nn.utils.parametrize against torch: the same parametrized values, gradients and state_dict keys,
right_inverse on registration and on assignment, chained parametrizations, removal (keeping the
parameter object), caching, the class swap, and torch's exceptions for bad registrations."""

from __future__ import annotations

import copy

import numpy as np
import pytest

import aakaar as ak
import aakaar.nn as nn
from aakaar.nn.utils import parametrize as P

from tests.nn.nn_helpers import assert_close, copy_weights, to_ak

torch = pytest.importorskip("torch")
TP = torch.nn.utils.parametrize


def _pair(lib):
    """Parametrization classes written once per library (the same code, each library's Module)."""
    class Symmetric(lib.nn.Module):
        def forward(self, X):
            return X.triu() + X.triu(1).transpose(0, 1)

        def right_inverse(self, A):
            return A.triu()

    class Scale(lib.nn.Module):
        def __init__(self, s):
            super().__init__()
            self.s = s

        def forward(self, X):
            return X * self.s

        def right_inverse(self, A):
            return A / self.s

    class Expm1(lib.nn.Module):  # no right_inverse
        def forward(self, X):
            return X.exp() - 1

    class Shrink(lib.nn.Module):  # changes the shape
        def forward(self, X):
            return X[:-1]

    return Symmetric, Scale, Expm1, Shrink


AK, TO = _pair(ak), _pair(torch)


def _linears(seed=0, n=4, dtype="float64"):
    torch.manual_seed(seed)
    t = torch.nn.Linear(n, n).to(getattr(torch, dtype))
    a = nn.Linear(n, n).to(getattr(ak, dtype))
    copy_weights(a, t)
    return a, t


def _compare_forward(a, t, rtol, seed=1, n=4, dtype="float64"):
    x = np.random.default_rng(seed).standard_normal((3, n))
    tx = torch.tensor(x, dtype=getattr(torch, dtype))
    ref = t(tx)
    out = a(to_ak(tx))
    assert_close(out, ref, rtol, rtol, "output")
    g = torch.tensor(np.random.default_rng(seed + 1).standard_normal(tuple(ref.shape)), dtype=tx.dtype)
    ref.backward(g)
    out.backward(to_ak(g))
    tp, ap = dict(t.named_parameters()), dict(a.named_parameters())
    assert list(ap) == list(tp)
    for k in tp:
        assert_close(ap[k].grad, tp[k].grad, rtol, rtol, f"grad of {k}")


@pytest.mark.parametrize("dtype,rtol", [("float64", 1e-12), ("float32", 1e-5)])
def test_register_matches_torch(dtype, rtol):
    a, t = _linears(dtype=dtype)
    before = a.weight
    TP.register_parametrization(t, "weight", TO[0]())
    P.register_parametrization(a, "weight", AK[0]())
    assert type(a).__name__ == type(t).__name__ == "ParametrizedLinear"
    assert P.type_before_parametrizations(a) is nn.Linear
    assert isinstance(a, nn.Linear)
    assert P.is_parametrized(a) and P.is_parametrized(a, "weight") and not P.is_parametrized(a, "bias")
    assert list(a.state_dict()) == list(t.state_dict()) == ["bias", "parametrizations.weight.original"]
    # right_inverse ran at registration, in place: the original is the same object with triu(W)
    assert a.parametrizations.weight.original is before
    assert_close(a.parametrizations.weight.original, t.parametrizations.weight.original, 0, 0)
    assert_close(a.weight, t.weight, rtol)
    _compare_forward(a, t, rtol, dtype=dtype)


def test_assignment_runs_right_inverse_and_chains():
    a, t = _linears(2)
    for m, (Sym, Scale, _, _) in ((a, AK), (t, TO)):
        P.register_parametrization(m, "weight", Sym()) if m is a else TP.register_parametrization(m, "weight", Sym())
    P.register_parametrization(a, "weight", AK[1](3.0))
    TP.register_parametrization(t, "weight", TO[1](3.0))
    assert len(a.parametrizations.weight) == 2
    X = np.random.default_rng(5).standard_normal((4, 4))
    X = X + X.T
    t.weight = torch.tensor(X)
    a.weight = ak.tensor(X)
    assert_close(a.parametrizations.weight.original, t.parametrizations.weight.original, 1e-15, 1e-15)
    assert_close(a.weight, t.weight, 1e-14, 1e-14)
    _compare_forward(a, t, 1e-12)


def test_state_dict_round_trip_between_libraries():
    a, t = _linears(3)
    TP.register_parametrization(t, "weight", TO[2]())
    P.register_parametrization(a, "weight", AK[2]())
    copy_weights(a, t)  # strict: the keys must agree
    assert_close(a.weight, t.weight, 1e-14)
    a2 = nn.Linear(4, 4).double()
    P.register_parametrization(a2, "weight", AK[2]())
    a2.load_state_dict(a.state_dict())
    assert_close(a2.weight, t.weight, 1e-14)


@pytest.mark.parametrize("leave", [True, False])
def test_remove_keeps_the_parameter_object(leave):
    a, t = _linears(4)
    TP.register_parametrization(t, "weight", TO[0]())
    P.register_parametrization(a, "weight", AK[0]())
    original = a.parametrizations.weight.original
    TP.remove_parametrizations(t, "weight", leave_parametrized=leave)
    P.remove_parametrizations(a, "weight", leave_parametrized=leave)
    assert type(a) is nn.Linear and type(t) is torch.nn.Linear
    assert not P.is_parametrized(a) and "parametrizations" not in a._modules
    assert a.weight is original and isinstance(a.weight, nn.Parameter)
    assert list(a.state_dict()) == list(t.state_dict())
    assert_close(a.weight, t.weight, 0, 0)
    _compare_forward(a, t, 1e-12)


def test_optimizer_updates_the_original():
    a, t = _linears(5)
    TP.register_parametrization(t, "weight", TO[0]())
    P.register_parametrization(a, "weight", AK[0]())
    ot = torch.optim.SGD(t.parameters(), lr=0.1)
    oa = ak.optim.SGD(a.parameters(), lr=0.1)
    for step in range(3):
        x = np.random.default_rng(step).standard_normal((5, 4))
        ot.zero_grad()
        oa.zero_grad()
        t(torch.tensor(x)).pow(2).sum().backward()
        a(ak.tensor(x)).pow(2).sum().backward()
        ot.step()
        oa.step()
    assert_close(a.weight, t.weight, 1e-12)


def test_gradcheck_through_parametrization():
    a, _ = _linears(6)
    P.register_parametrization(a, "weight", AK[0]())
    P.register_parametrization(a, "weight", AK[2]())
    original = a.parametrizations.weight.original
    x = ak.tensor(np.random.default_rng(0).standard_normal((2, 4)))

    def f(w):
        with ak.no_grad():
            original.copy_(w)
        return nn.functional.linear(x, a.parametrizations.weight(), a.bias)

    # The parametrized weight as a function of its original (the module reads it, so feed it as input).
    def g(w):
        out = AK[2]()(AK[0]()(w))
        return nn.functional.linear(x, out, a.bias.detach())

    w = original.detach().clone().requires_grad_()
    assert ak.autograd.gradcheck(g, (w,), eps=1e-6, atol=1e-8, rtol=1e-6)
    assert_close(f(w.detach()), a(x), 1e-14)


def test_cached_computes_once():
    calls = []

    class Counting(nn.Module):
        def forward(self, X):
            calls.append(1)
            return X * 2

    a, _ = _linears(7)
    P.register_parametrization(a, "weight", Counting())
    calls.clear()
    with P.cached():
        w1 = a.weight
        w2 = a.weight
        with P.cached():
            assert a.weight is w1
    assert w1 is w2 and len(calls) == 1
    a.weight
    assert len(calls) == 2


def test_buffer_parametrization_and_deepcopy():
    class M(nn.Module):
        def __init__(self):
            super().__init__()
            self.register_buffer("b", ak.ones(3))

    m = M()
    P.register_parametrization(m, "b", AK[1](2.0))
    assert list(m.state_dict()) == ["parametrizations.b.original"]
    assert "original" in m.parametrizations.b._buffers
    # right_inverse keeps the value: original = 1 / 2, read back as 1
    assert_close(m.b, np.ones(3, dtype=np.float32), 0)
    assert_close(m.parametrizations.b.original, np.full(3, 0.5, dtype=np.float32), 0)
    c = copy.deepcopy(m)
    with ak.no_grad():
        c.parametrizations.b.original.fill_(5.0)
    assert float(m.b.sum()) == 3.0 and float(c.b.sum()) == 30.0


def test_multi_tensor_right_inverse_and_transfer():
    class Split(nn.Module):
        def forward(self, A, B):
            return A + B

        def right_inverse(self, X):
            return X / 2, X / 2

    a, t = _linears(8)
    P.register_parametrization(a, "weight", Split())
    assert list(a.state_dict()) == ["bias", "parametrizations.weight.original0", "parametrizations.weight.original1"]
    assert_close(a.weight, t.weight, 1e-15)
    b = nn.Linear(4, 4).double()
    P.transfer_parametrizations_and_params(a, b)
    assert P.is_parametrized(b, "weight")
    assert b.parametrizations.weight.original0 is a.parametrizations.weight.original0
    assert_close(b.weight, t.weight, 1e-15)
    with pytest.raises(ValueError, match="sequence of tensors"):
        P.remove_parametrizations(a, "weight", leave_parametrized=False)
    P.remove_parametrizations(a, "weight")
    assert isinstance(a.weight, nn.Parameter)
    assert_close(a.weight, t.weight, 1e-15)


def test_bad_registrations_raise_like_torch():
    a, t = _linears(9)
    for lib_reg, m in ((TP.register_parametrization, t), (P.register_parametrization, a)):
        with pytest.raises(ValueError, match="does not have a parameter, a buffer, or a parametrized element"):
            lib_reg(m, "nothing", (TO if m is t else AK)[2]())
        with pytest.raises(ValueError, match="may not change the shape"):
            lib_reg(m, "weight", (TO if m is t else AK)[3]())
    with pytest.raises(ValueError, match="does not have a parametrization on"):
        P.remove_parametrizations(a, "weight")
    P.register_parametrization(a, "weight", AK[2]())
    with pytest.raises(ValueError, match="may not change the shape"):
        P.register_parametrization(a, "weight", AK[3]())
    with pytest.raises(RuntimeError, match="does not implement right_inverse"):
        a.weight = ak.zeros(4, 4, dtype=ak.float64)
    with pytest.raises(KeyError, match="already exists"):
        a.weight = nn.Parameter(ak.zeros(4, 4))
    P.register_parametrization(a, "weight", AK[3](), unsafe=True)
    assert tuple(a.weight.shape) == (3, 4)
    with pytest.raises(RuntimeError, match="state_dict"):
        import pickle
        pickle.dumps(a)
