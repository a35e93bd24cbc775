"""Module hooks (forward pre/post, full backward pre/post, state_dict), extra state and lookup by
qualified name, against PyTorch: the same model and hooks, written once for both libraries."""

from __future__ import annotations

import numpy as np
import pytest

import aakaar as ak

torch = pytest.importorskip("torch")


def build(m):
    g = np.random.default_rng(0)
    net = m.nn.Sequential(m.nn.Linear(4, 3), m.nn.Tanh(), m.nn.Linear(3, 2))
    with m.no_grad():
        for p in net.parameters():
            p.copy_(m.tensor(g.standard_normal(tuple(p.shape)), dtype=p.dtype))
    return net


def as_np(t):
    return None if t is None else np.asarray(t.detach().tolist())


def test_forward_hooks_replace_arguments_and_outputs_in_order_and_are_removable():
    x = np.random.default_rng(1).standard_normal((5, 4))
    outs, calls = [], []
    for m in (ak, torch):
        net, log = build(m), []
        h1 = net[0].register_forward_pre_hook(lambda mod, args: (args[0] * 2,))
        h2 = net[0].register_forward_hook(lambda mod, args, out: out + 1)
        net[2].register_forward_hook(lambda mod, args, out: log.append("second"))
        net[2].register_forward_hook(lambda mod, args, out: log.append("first"), prepend=True)
        net[0].register_forward_pre_hook(lambda mod, args, kwargs: (args, kwargs), with_kwargs=True)
        outs.append(as_np(net(m.tensor(x, dtype=m.float32))))
        h1.remove()
        with h2:  # a handle is a context manager too
            pass
        outs.append(as_np(net(m.tensor(x, dtype=m.float32))))
        calls.append(log)
    np.testing.assert_allclose(outs[0], outs[2], rtol=1e-6)
    np.testing.assert_allclose(outs[1], outs[3], rtol=1e-6)
    assert not np.allclose(outs[0], outs[1])  # the hooks did change something
    assert calls[0] == calls[1] == ["first", "second"] * 2


def test_always_call_hook_runs_when_forward_raises():
    class Boom(ak.nn.Module):
        def forward(self, x):
            raise ValueError("boom")

    seen = []
    mod = Boom()
    mod.register_forward_hook(lambda m, a, out: seen.append(out), always_call=True)
    with pytest.raises(ValueError, match="boom"):
        mod(ak.ones(1))
    assert seen == [None]


def test_full_backward_hooks_see_and_replace_gradients_as_in_torch():
    x = np.random.default_rng(2).standard_normal((5, 4))
    results = []
    for m in (ak, torch):
        net, seen = build(m), {}

        def pre(mod, grad_output):
            seen["pre"] = as_np(grad_output[0])
            return (grad_output[0] * 3,)

        def post(mod, grad_input, grad_output):
            seen["in"], seen["out"] = as_np(grad_input[0]), as_np(grad_output[0])
            return (grad_input[0] * 0.5,)

        net[2].register_full_backward_pre_hook(pre)
        net[2].register_full_backward_hook(post)
        xt = m.tensor(x, dtype=m.float32, requires_grad=True)
        (net(xt) ** 2).sum().backward()
        results.append((seen, as_np(xt.grad), as_np(net[0].weight.grad), as_np(net[2].weight.grad)))
    (sa, *ga), (st, *gt) = results
    for key in ("pre", "in", "out"):
        np.testing.assert_allclose(sa[key], st[key], rtol=1e-5, atol=1e-6)
    for a, t in zip(ga, gt):
        np.testing.assert_allclose(a, t, rtol=1e-5, atol=1e-6)


@pytest.mark.filterwarnings("ignore:Full backward hook is firing")  # torch's note that grad_input is all None
def test_backward_hook_on_a_module_whose_input_needs_no_grad():
    got = []
    for m in (ak, torch):
        net, seen = build(m), []
        net[0].register_full_backward_hook(lambda mod, gi, go: seen.append((gi, as_np(go[0]).shape)))
        net(m.ones(2, 4)).sum().backward()
        got.append(seen)
    assert got[0][0][0] == got[1][0][0] == (None,)
    assert got[0][0][1] == got[1][0][1] == (2, 3)
    net = build(ak)
    net[0].register_full_backward_hook(lambda mod, gi, go: (ak.ones(2, 4),))
    with pytest.raises(RuntimeError, match="no input requires gradient"):
        net(ak.ones(2, 4)).sum().backward()


def test_extra_state_state_dict_hooks_and_lookup_by_name():
    class WithStep(ak.nn.Module):
        def __init__(self):
            super().__init__()
            self.fc = ak.nn.Linear(2, 2)
            self.step = 0

        def get_extra_state(self):
            return {"step": self.step}

        def set_extra_state(self, state):
            self.step = state["step"]

    a = WithStep()
    a.step = 7
    sd = a.state_dict()
    assert sd["_extra_state"] == {"step": 7}
    b = WithStep()
    b.load_state_dict(sd)
    assert b.step == 7

    # A pre-hook renaming an old checkpoint's keys; the caller's dict is not changed.
    old = {"fc.w": sd["fc.weight"], "fc.bias": sd["fc.bias"], "_extra_state": {"step": 3}}

    def rename(mod, state_dict, prefix, *rest):
        if prefix + "fc.w" in state_dict:
            state_dict[prefix + "fc.weight"] = state_dict.pop(prefix + "fc.w")

    b.register_load_state_dict_pre_hook(rename)
    loaded = []
    b.register_load_state_dict_post_hook(lambda mod, keys: loaded.append(keys))
    b.load_state_dict(old)
    assert "fc.w" in old and b.step == 3 and loaded[0].missing_keys == []
    b.register_state_dict_post_hook(lambda mod, state, prefix, meta: state.pop("_extra_state"))
    assert "_extra_state" not in b.state_dict()

    net = ak.nn.Sequential(ak.nn.Linear(2, 3), ak.nn.BatchNorm1d(3))
    assert net.get_submodule("1") is net[1]
    assert net.get_parameter("0.weight") is net[0].weight
    assert net.get_buffer("1.running_mean") is net[1].running_mean
    with pytest.raises(AttributeError, match="has no attribute"):
        net.get_submodule("2")
    with pytest.raises(AttributeError, match="not an nn.Parameter"):
        net.get_parameter("1.running_mean")
    net.set_submodule("1", ak.nn.ReLU())
    assert isinstance(net[1], ak.nn.ReLU)
    assert net.type(ak.float64)[0].weight.dtype == ak.float64
    with pytest.raises(TypeError, match="must be callable"):
        net.register_forward_hook(3)


def test_tensor_register_hook_returns_a_removable_handle_as_in_torch():
    grads = []
    for m in (ak, torch):
        x = m.ones(3, requires_grad=True)
        h1 = x.register_hook(lambda g: g * 10)
        h2 = x.register_hook(lambda g: g + 1)
        (x * 2).sum().backward()
        h1.remove()
        h1.remove()  # twice is harmless
        (x * 2).sum().backward()
        with h2:
            pass
        (x * 2).sum().backward()
        grads.append(x.grad.tolist())
    assert grads[0] == grads[1] == [21.0 + 3.0 + 2.0] * 3


def test_to_empty_replaces_parameters_with_new_memory_recursively_or_not():
    net = ak.nn.Sequential(ak.nn.Linear(2, 3))
    net.register_parameter("scale", ak.nn.Parameter(ak.ones(3)))
    before_child, before_own = net[0].weight, net.scale
    net.to_empty(device="cpu", recurse=False)
    assert net[0].weight is before_child and net.scale is not before_own
    assert isinstance(net.scale, ak.nn.Parameter) and net.scale.shape == (3,)
    net.to_empty(device="cpu")
    assert net[0].weight is not before_child and net[0].weight.shape == (3, 2)
    assert net[0].weight.requires_grad
