"""More of torch.Tensor's surface on aakaar against torch: layout, register_post_accumulate_grad_hook
(its timing inside backward, as optimizer-in-backward code uses it), output_nr, as_subclass, the
deprecated resize/resize_as, name, is_set_to, set_, dim_order, to_dense, const_data_ptr,
dense_dim/sparse_dim, storage, and the methods of geqrf/orgqr/ormqr/as_strided_scatter.
"""

from __future__ import annotations

import pickle

import numpy as np
import pytest

import aakaar as ak

torch = pytest.importorskip("torch")


def pair(shape, seed=0, grad=False):
    a = np.random.default_rng(seed).standard_normal(shape)
    return ak.from_numpy(a.copy()).requires_grad_(grad), torch.from_numpy(a.copy()).requires_grad_(grad)


def same_error(fn_torch, fn_ak):
    with pytest.raises(Exception) as want:
        fn_torch()
    with pytest.raises(want.type):
        fn_ak()


def test_layout():
    assert ak.ones([2]).layout is ak.strided
    assert repr(ak.strided) == repr(torch.strided).replace("torch", "aakaar")
    assert isinstance(ak.strided, ak.layout)
    assert pickle.loads(pickle.dumps(ak.strided)) is ak.strided


# ---- register_post_accumulate_grad_hook -------------------------------------------------------------------

def _post_hook_trace(lib, make, seed):
    """The .grad each hook saw, and the events in order, for the same graph in torch and aakaar."""
    a = make(np.random.default_rng(seed).standard_normal(3)).requires_grad_()
    b = make(np.random.default_rng(seed + 1).standard_normal(3)).requires_grad_()
    events = []

    def hook(name):
        def fn(p):
            events.append((name, p.grad.numpy().copy()))
            assert p is (a if name == "a" else b)
        return fn

    ha = a.register_post_accumulate_grad_hook(hook("a"))
    b.register_post_accumulate_grad_hook(hook("b"))
    ((a * b).sum() + (a * a).sum()).backward()
    (a * 3).sum().backward()                                    # second backward: accumulated .grad
    ha.remove()
    (a * 5).sum().backward()
    return events


def test_post_accumulate_grad_hook_sees_accumulated_grad():
    ev_t = _post_hook_trace(torch, lambda x: torch.from_numpy(x), 3)
    ev_a = _post_hook_trace(ak, lambda x: ak.from_numpy(x), 3)
    assert sorted(n for n, _ in ev_a[:2]) == sorted(n for n, _ in ev_t[:2])
    assert [n for n, _ in ev_a[2:]] == [n for n, _ in ev_t[2:]]
    want = dict(ev_t[:2])
    for name, g in ev_a[:2]:
        np.testing.assert_allclose(g, want[name], rtol=1e-12)
    for (_, g_a), (_, g_t) in zip(ev_a[2:], ev_t[2:]):
        np.testing.assert_allclose(g_a, g_t, rtol=1e-12)


def test_optimizer_in_backward():
    """The pattern the hook exists for: each parameter steps as soon as its gradient is ready and
    frees .grad; the result equals an ordinary step."""
    lin = ak.nn.Linear(4, 3)
    ref = ak.nn.Linear(4, 3)
    ref.load_state_dict(lin.state_dict())
    opts = {id(p): ak.optim.SGD([p], lr=0.1) for p in lin.parameters()}

    def step(p):
        opts[id(p)].step()
        opts[id(p)].zero_grad(set_to_none=True)

    for p in lin.parameters():
        p.register_post_accumulate_grad_hook(step)
    x = ak.randn(5, 4)
    lin(x).square().sum().backward()
    assert all(p.grad is None for p in lin.parameters())      # freed inside backward
    opt = ak.optim.SGD(ref.parameters(), lr=0.1)
    ref(x).square().sum().backward()
    opt.step()
    for p, q in zip(lin.parameters(), ref.parameters()):
        np.testing.assert_allclose(p.detach().numpy(), q.detach().numpy(), rtol=1e-6)


def test_post_accumulate_grad_hook_not_for_autograd_grad():
    x = ak.randn(3, requires_grad=True)
    calls = []
    x.register_post_accumulate_grad_hook(lambda p: calls.append(1))
    ak.autograd.grad((x * 2).sum(), [x])
    assert calls == [] and x.grad is None                       # nothing accumulated, as torch


def test_post_accumulate_grad_hook_bad_input():
    same_error(lambda: (torch.ones(2, requires_grad=True) * 2).register_post_accumulate_grad_hook(print),
               lambda: (ak.ones([2], requires_grad=True) * 2).register_post_accumulate_grad_hook(print))
    same_error(lambda: torch.ones(2).register_post_accumulate_grad_hook(print),
               lambda: ak.ones([2]).register_post_accumulate_grad_hook(print))


# ---- output_nr, as_subclass, resize, name -----------------------------------------------------------------

def test_output_nr():
    x = ak.randn(3, requires_grad=True)
    assert x.output_nr == 0 and (x * 2).output_nr == 0 and ak.ones([2]).output_nr == 0

    class Two(ak.autograd.Function):
        @staticmethod
        def forward(ctx, t):
            return t * 2, t * 3

        @staticmethod
        def backward(ctx, g1, g2):
            return g1 * 2 + g2 * 3

    u, v = Two.apply(x)
    assert (u.output_nr, v.output_nr) == (0, 1)


def test_as_subclass():
    class Mine(ak.Tensor):
        pass

    a = ak.arange(4.0)
    m = a.as_subclass(Mine)
    assert type(m) is Mine
    with ak.no_grad():
        a.add_(1.0)
    assert m.tolist() == [1.0, 2.0, 3.0, 4.0]                   # same memory
    with pytest.raises(TypeError):
        a.as_subclass(int)
    with pytest.raises(NotImplementedError, match="autograd"):
        ak.ones([2], requires_grad=True).as_subclass(Mine)


def test_resize_and_resize_as():
    a, t = pair((2, 6), grad=True)
    with pytest.warns(UserWarning, match="non-inplace resize is deprecated"):
        r = a.resize(3, 4)
    with pytest.warns(UserWarning):
        rt = t.resize(3, 4)
    np.testing.assert_array_equal(r.detach().numpy(), rt.detach().numpy())
    with pytest.warns(UserWarning, match="resize_as"):
        r2 = a.resize_as(ak.ones([4, 3]))
    assert tuple(r2.shape) == (4, 3)
    (r * 2).sum().backward()
    assert a.grad.tolist() == [[2.0] * 6] * 2
    with pytest.warns(UserWarning):
        same_error(lambda: t.resize(5), lambda: a.resize(5))


def test_name_to_dense_const_data_ptr_dims():
    a, t = pair((2, 3))
    assert a.name is None and t.name is None
    assert a.to_dense() is a
    assert a.to_dense(ak.float32).dtype == ak.float32
    assert a.const_data_ptr() == a.data_ptr()
    assert (a.dense_dim(), a.sparse_dim()) == (t.dense_dim(), t.sparse_dim())
    for dev in ("xpu", "mps", "xla", "ipu", "mtia", "maia", "vulkan"):
        assert getattr(a, f"is_{dev}") is getattr(t, f"is_{dev}") is False


def test_storage_says_why():
    with pytest.raises(NotImplementedError, match="Storage"):
        ak.ones([2]).untyped_storage()
    with pytest.raises(NotImplementedError, match="Storage"):
        ak.ones([2]).storage()


# ---- is_set_to, set_, dim_order ------------------------------------------------------------------------

def test_is_set_to_and_set_():
    a = ak.arange(6.0)
    b = ak.zeros([2])
    assert not b.is_set_to(a)
    assert b.set_(a) is b
    assert b.is_set_to(a) and a.is_set_to(b)
    assert tuple(b.shape) == (6,)
    with ak.no_grad():
        a[0] = 7.0
    assert b[0].item() == 7.0
    c = ak.zeros([1]).set_(a, 1, [2, 2], [2, 1])
    t = torch.zeros(1).set_(torch.arange(6.0).untyped_storage(), 1, [2, 2], [2, 1])
    t[0, 0] = 7.0
    t_vals = t.clone()
    t_vals[0, 0] = float(torch.arange(6.0)[1])
    np.testing.assert_array_equal(c.numpy(), t_vals.numpy())
    assert not a.view([2, 3]).is_set_to(a)
    assert ak.zeros([3]).set_().numel() == 0
    same_error(lambda: torch.ones(2, requires_grad=True).set_(torch.ones(3)),
               lambda: ak.ones([2], requires_grad=True).set_(ak.ones([3])))


@pytest.mark.parametrize("make", [
    lambda lib, x: x,
    lambda lib, x: x.permute(0, 2, 3, 1),
    lambda lib, x: x.permute(2, 0, 3, 1),
    lambda lib, x: x.transpose(1, 3),
    lambda lib, x: x[:, :1],
    lambda lib, x: x[:, :, :, :1].permute(3, 1, 0, 2),
    lambda lib, x: x.permute(0, 2, 3, 1).contiguous().permute(0, 3, 1, 2),     # channels_last
    lambda lib, x: x[0, 0].t(),
    lambda lib, x: x[0, 0, 0, :1].expand(4, 3) if lib is torch else x[0, 0, 0, :1].expand([4, 3]),
])
def test_dim_order(make):
    a, t = pair((2, 3, 4, 5))
    assert make(ak, a).dim_order() == make(torch, t).dim_order()


def test_dim_order_ambiguity_check():
    for shape in ((2, 1, 3), (2, 3)):
        x_t, x_a = torch.ones(*shape).transpose(0, -1), ak.ones(list(shape)).transpose(0, -1)
        try:
            want = x_t.dim_order(ambiguity_check=True)
        except RuntimeError:
            with pytest.raises(RuntimeError):
                x_a.dim_order(ambiguity_check=True)
        else:
            assert x_a.dim_order(ambiguity_check=True) == want
    same_error(lambda: torch.ones(2).dim_order(ambiguity_check="x"),
               lambda: ak.ones([2]).dim_order(ambiguity_check="x"))


# ---- methods of the new top-level functions --------------------------------------------------------------

def test_linear_algebra_methods():
    a, t = pair((4, 3), 2)
    qa, ta = a.geqrf()
    qt, tt = t.geqrf()
    np.testing.assert_allclose(qa.numpy(), qt.numpy(), rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(qa.orgqr(ta).numpy(), qt.orgqr(tt).numpy(), rtol=1e-10, atol=1e-12)
    o_a, o_t = pair((4, 2), 3)
    np.testing.assert_allclose(qa.ormqr(ta, o_a).numpy(), qt.ormqr(tt, o_t).numpy(), rtol=1e-10, atol=1e-12)
    s_a, s_t = pair((2,), 4)
    np.testing.assert_array_equal(a.as_strided_scatter(s_a, [2], [3], 1).numpy(),
                                  t.as_strided_scatter(s_t, [2], [3], 1).numpy())


def test_module_load():
    a = ak.zeros([3])
    other = ak.ones([3], requires_grad=True)
    out = a.module_load(other)
    assert out is not a and out is not other and not out.requires_grad
    assert a.tolist() == [1.0, 1.0, 1.0]                        # copied into self
    b = ak.zeros([3])
    out = b.module_load(other, assign=True)
    assert b.tolist() == [0.0, 0.0, 0.0] and out.tolist() == [1.0, 1.0, 1.0]
