"""aakaar.autograd.functional and aakaar.func against torch's: Jacobians, Hessians, vector
products, grad transforms, vmap and functional_call; and autograd.grad(materialize_grads=)."""

from __future__ import annotations

import numpy as np
import pytest

import aakaar as ak
import aakaar.autograd.functional as AFn

torch = pytest.importorskip("torch")
TFn = torch.autograd.functional
# torch.func's transforms call torch.jit.script internally, which warns of its own deprecation.
pytestmark = pytest.mark.filterwarnings("ignore:`torch.jit.script` is deprecated:DeprecationWarning")


def _pair(seed: int, *shape: int):
    x = np.random.default_rng(seed).normal(size=shape)
    return ak.tensor(x, dtype=ak.float64), torch.tensor(x, dtype=torch.float64)


def _f(lib):
    return lambda x: (x.sin() * x.exp()).sum(-1) if x.ndim > 1 else x.sin() * x.exp()


def _g(lib):
    return lambda x, y: (x.tanh() * y ** 2, (x * y).sum())


def _scalar(lib):
    return lambda x: (x ** 3).sum() + (x[0] * x[-1]).sin()


def _close(a, b):
    if isinstance(b, (tuple, list)):
        assert isinstance(a, (tuple, list)) and len(a) == len(b)
        for x, y in zip(a, b):
            _close(x, y)
        return
    np.testing.assert_allclose(np.asarray(a.detach().numpy()), b.detach().numpy(), rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("shape", [(3,), (2, 3)])
def test_jacobian_single_input_matches_torch(shape):
    a, t = _pair(0, *shape)
    _close(AFn.jacobian(_f(ak), a), TFn.jacobian(_f(torch), t))


def test_jacobian_and_products_with_tuples_match_torch():
    (a, t), (b, u) = _pair(1, 3), _pair(2, 3)
    _close(AFn.jacobian(_g(ak), (a, b)), TFn.jacobian(_g(torch), (t, u)))
    va, vt = _pair(3, 3)
    one_a, one_t = ak.tensor(1.5, dtype=ak.float64), torch.tensor(1.5, dtype=torch.float64)
    _close(AFn.vjp(_g(ak), (a, b), (va, one_a)), TFn.vjp(_g(torch), (t, u), (vt, one_t)))
    _close(AFn.jvp(_g(ak), (a, b), (va, va)), TFn.jvp(_g(torch), (t, u), (vt, vt)))


def test_hessian_hvp_vhp_match_torch():
    a, t = _pair(4, 4)
    v, w = _pair(5, 4)
    _close(AFn.hessian(_scalar(ak), a), TFn.hessian(_scalar(torch), t))
    _close(AFn.hvp(_scalar(ak), a, v), TFn.hvp(_scalar(torch), t, w))
    _close(AFn.vhp(_scalar(ak), a, v), TFn.vhp(_scalar(torch), t, w))


def test_unused_inputs_get_zeros_or_refuse_under_strict_as_torch():
    (a, t), (b, u) = _pair(6, 2), _pair(7, 2)
    _close(AFn.jacobian(lambda x, y: x * 2, (a, b)), TFn.jacobian(lambda x, y: x * 2, (t, u)))
    with pytest.raises(RuntimeError):
        TFn.jacobian(lambda x, y: x * 2, (t, u), strict=True)
    with pytest.raises(RuntimeError, match="independent of input 1"):
        AFn.jacobian(lambda x, y: x * 2, (a, b), strict=True)
    with pytest.raises(TypeError):
        AFn.vjp(lambda x: x, [1.0])


def test_create_graph_lets_the_result_be_differentiated_again():
    a = ak.tensor([0.3, -0.7], dtype=ak.float64, requires_grad=True)
    t = torch.tensor([0.3, -0.7], dtype=torch.float64, requires_grad=True)
    AFn.jacobian(lambda x: x.sin() * x, a, create_graph=True).sum().backward()
    TFn.jacobian(lambda x: x.sin() * x, t, create_graph=True).sum().backward()
    _close(a.grad, t.grad)


def test_materialize_grads_as_torch():
    x, y = ak.ones(2, requires_grad=True), ak.ones(1, requires_grad=True)
    gx, gy = ak.autograd.grad((x * 2).sum(), [x, y], materialize_grads=True)
    np.testing.assert_array_equal(gy.numpy(), [0.0])
    np.testing.assert_array_equal(gx.numpy(), [2.0, 2.0])
    with pytest.raises(ValueError):
        torch.autograd.grad((torch.ones(1, requires_grad=True) * 2).sum(), [torch.ones(1, requires_grad=True)],
                            allow_unused=False, materialize_grads=True)
    with pytest.raises(ValueError, match="allow_unused"):
        ak.autograd.grad((x * 2).sum(), [x, y], allow_unused=False, materialize_grads=True)


def test_func_grad_family_matches_torch():
    (a, t), (b, u) = _pair(8, 3), _pair(9, 3)
    loss_ak = lambda x, y: (x * y.sin()).sum()  # noqa: E731
    loss_t = lambda x, y: (x * y.sin()).sum()  # noqa: E731
    _close(ak.func.grad(loss_ak)(a, b), torch.func.grad(loss_t)(t, u))
    _close(ak.func.grad(loss_ak, argnums=(0, 1))(a, b), torch.func.grad(loss_t, argnums=(0, 1))(t, u))
    g, (value, aux) = ak.func.grad_and_value(lambda x: ((x ** 2).sum(), x.mean()), has_aux=True)(a)
    tg, (tvalue, taux) = torch.func.grad_and_value(lambda x: ((x ** 2).sum(), x.mean()), has_aux=True)(t)
    _close([g, value, aux], [tg, tvalue, taux])
    _close(ak.func.jacrev(_g(ak), argnums=1)(a, b), torch.func.jacrev(_g(torch), argnums=1)(t, u))
    _close(ak.func.jacfwd(_f(ak))(a), torch.func.jacfwd(_f(torch))(t))
    _close(ak.func.hessian(_scalar(ak))(a), torch.func.hessian(_scalar(torch))(t))
    out, fn = ak.func.vjp(_f(ak), a)
    tout, tfn = torch.func.vjp(_f(torch), t)
    _close([out, fn(ak.ones(3, dtype=ak.float64))], [tout, tfn(torch.ones(3, dtype=torch.float64))])
    _close(ak.func.jvp(_f(ak), (a,), (b,)), torch.func.jvp(_f(torch), (t,), (u,)))
    with pytest.raises(RuntimeError):
        torch.func.grad(lambda x: x * 2)(t)
    with pytest.raises(RuntimeError, match="scalar"):
        ak.func.grad(lambda x: x * 2)(a)


def test_vmap_matches_torch():
    (a, t), (b, u) = _pair(10, 4, 3), _pair(11, 3)
    _close(ak.vmap(lambda x, y: (x * y).sum())(a, b[None].expand(4, 3)), torch.vmap(lambda x, y: (x * y).sum())(t, u[None].expand(4, 3)))
    _close(ak.func.vmap(lambda x, y: x @ y, in_dims=(0, None))(a, b), torch.func.vmap(lambda x, y: x @ y, in_dims=(0, None))(t, u))
    _close(ak.vmap(lambda x: (x * 2, x.sum()), in_dims=1, out_dims=(1, 0))(a),
           torch.vmap(lambda x: (x * 2, x.sum()), in_dims=1, out_dims=(1, 0))(t))
    with pytest.raises(ValueError):
        torch.vmap(lambda x, y: x + y)(t, torch.ones(5, 3, dtype=torch.float64))
    with pytest.raises(ValueError, match="same size"):
        ak.vmap(lambda x, y: x + y)(a, ak.ones(5, 3, dtype=ak.float64))
    per_sample = ak.vmap(ak.func.grad(lambda w, x: (w * x).sum().sin()), in_dims=(None, 0))(b, a)
    tper_sample = torch.vmap(torch.func.grad(lambda w, x: (w * x).sum().sin()), in_dims=(None, 0))(u, t)
    _close(per_sample, tper_sample)


def test_functional_call_swaps_and_restores_as_torch():
    torch.manual_seed(0)
    tm = torch.nn.Sequential(torch.nn.Linear(3, 2), torch.nn.BatchNorm1d(2))
    am = ak.nn.Sequential(ak.nn.Linear(3, 2), ak.nn.BatchNorm1d(2))
    am.load_state_dict({k: ak.tensor(v.numpy()) for k, v in tm.state_dict().items()})
    tm.eval(), am.eval()
    x = np.random.default_rng(0).normal(size=(4, 3)).astype(np.float32)
    new_w = np.ones((2, 3), dtype=np.float32)
    theirs = torch.func.functional_call(tm, {"0.weight": torch.tensor(new_w)}, (torch.tensor(x),))
    ours = ak.func.functional_call(am, {"0.weight": ak.tensor(new_w)}, (ak.tensor(x),))
    np.testing.assert_allclose(ours.detach().numpy(), theirs.detach().numpy(), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(am[0].weight.detach().numpy(), tm[0].weight.detach().numpy())  # restored
    assert isinstance(am[0].weight, ak.nn.Parameter)
    with pytest.raises(RuntimeError, match="unexpected"):
        ak.func.functional_call(am, {"nope": ak.ones(1)}, (ak.tensor(x),))
