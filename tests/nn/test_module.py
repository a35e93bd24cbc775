"""Module behaviour: registration, walk order, modes, gradients, conversion,
state_dict round trips and strict loading errors (nothing applied on error)."""

from __future__ import annotations

from collections import OrderedDict

import numpy as np
import pytest

import aakaar as ak
import aakaar.nn as nn
from nn_helpers import copy_weights, to_np, torch


class Block(nn.Module):
    def __init__(self, lib):
        super().__init__()
        self.fc = lib.Linear(4, 3)
        self.norm = lib.BatchNorm1d(3)
        self.drop = lib.Dropout(0.5)

    def forward(self, x):
        return self.drop(self.norm(self.fc(x)).relu())


class TBlock(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = torch.nn.Linear(4, 3)
        self.norm = torch.nn.BatchNorm1d(3)
        self.drop = torch.nn.Dropout(0.5)


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.scale = nn.Parameter(ak.ones(1))
        self.blocks = nn.ModuleList([Block(nn), Block(nn)])
        self.head = nn.Sequential(nn.Linear(3, 2), nn.Tanh())
        self.register_buffer("step", ak.zeros((), dtype=ak.int64))
        self.register_buffer("scratch", ak.zeros(2), persistent=False)


class TNet(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.scale = torch.nn.Parameter(torch.ones(1))
        self.blocks = torch.nn.ModuleList([TBlock(), TBlock()])
        self.head = torch.nn.Sequential(torch.nn.Linear(3, 2), torch.nn.Tanh())
        self.register_buffer("step", torch.zeros((), dtype=torch.int64))
        self.register_buffer("scratch", torch.zeros(2), persistent=False)


def test_registration_and_walk_order_match_torch():
    a, t = Net(), TNet()
    assert [n for n, _ in a.named_parameters()] == [n for n, _ in t.named_parameters()]
    assert [n for n, _ in a.named_buffers()] == [n for n, _ in t.named_buffers()]
    assert [n for n, _ in a.named_modules()] == [n for n, _ in t.named_modules()]
    assert [n for n, _ in a.named_children()] == [n for n, _ in t.named_children()]
    assert list(a.state_dict()) == list(t.state_dict())
    assert "scratch" not in a.state_dict()
    assert isinstance(a.blocks[1].fc.weight, nn.Parameter) and a.blocks[1].fc.weight.requires_grad
    assert len(list(a.parameters())) == 1 + 2 * 4 + 2
    assert len(list(a.parameters(recurse=False))) == 1


def test_shared_parameters_appear_once():
    lin = nn.Linear(3, 3)
    model = nn.Sequential(lin, nn.ReLU(), lin)
    assert [n for n, _ in model.named_parameters()] == ["0.weight", "0.bias"]
    assert list(model.state_dict()) == ["0.weight", "0.bias", "2.weight", "2.bias"]  # as torch


def test_setattr_rules():
    m = nn.Module()
    m.w = nn.Parameter(ak.randn(2))
    with pytest.raises(TypeError, match="parameter 'w'"):
        m.w = ak.randn(2)  # a plain tensor cannot silently replace a parameter
    m.w = None
    assert "w" in m._parameters and m.w is None
    m.sub = nn.Linear(2, 2)
    with pytest.raises(TypeError, match="child module 'sub'"):
        m.sub = 3
    m.register_buffer("b", ak.zeros(2))
    with pytest.raises(TypeError, match="buffer 'b'"):
        m.b = [1, 2]
    m.b = ak.ones(2)
    assert np.all(m.b.numpy() == 1)
    m.sub = nn.Parameter(ak.randn(1))  # kind changes: the old registration goes
    assert "sub" not in m._modules and "sub" in m._parameters
    del m.sub
    with pytest.raises(AttributeError, match="no attribute 'sub'"):
        m.sub
    with pytest.raises(KeyError, match="can't be empty or contain"):
        m.register_buffer("a.b", ak.zeros(1))
    with pytest.raises(TypeError, match="Parameter or None"):
        m.register_parameter("p", ak.zeros(1))

    class Early(nn.Module):
        def __init__(self):
            self.w = nn.Parameter(ak.zeros(1))

    with pytest.raises(AttributeError, match="before Module.__init__"):
        Early()
    with pytest.raises(TypeError, match="floating-point"):
        nn.Parameter(ak.zeros(2, dtype=ak.int64))


def test_train_eval_reach_every_module_and_change_behaviour():
    ak.manual_seed(0)
    model = Net()
    x = ak.randn(6, 4)
    assert all(m.training for m in model.modules())
    model.eval()
    assert not any(m.training for m in model.modules())
    blk = model.blocks[0]
    y1, y2 = blk(x), blk(x)
    np.testing.assert_array_equal(y1.numpy(), y2.numpy())  # eval: no dropout, running statistics
    before = blk.norm.running_mean.numpy().copy()
    blk(x)
    np.testing.assert_array_equal(blk.norm.running_mean.numpy(), before)
    model.train()
    z1 = blk(x)
    assert not np.array_equal(blk.norm.running_mean.numpy(), before)  # training updates them
    assert (z1.detach().numpy() == 0).mean() > 0.3  # dropout zeroes about half
    with pytest.raises(ValueError, match="bool"):
        model.train("yes")


def test_zero_grad():
    lin = nn.Linear(3, 2)
    lin(ak.randn(4, 3)).sum().backward()
    assert lin.weight.grad is not None
    lin.zero_grad(set_to_none=False)
    assert np.all(lin.weight.grad.numpy() == 0)
    lin.zero_grad()
    assert lin.weight.grad is None and lin.bias.grad is None


def test_to_dtype_and_device():
    lin = nn.Linear(3, 2)
    w = lin.weight.numpy().copy()
    assert lin.double() is lin
    assert lin.weight.dtype == ak.float64 and isinstance(lin.weight, nn.Parameter) and lin.weight.requires_grad
    np.testing.assert_array_equal(lin.weight.numpy(), w.astype(np.float64))
    bn = nn.BatchNorm1d(2).to(ak.float64)
    assert bn.running_var.dtype == ak.float64 and bn.num_batches_tracked.dtype == ak.int64
    assert lin.to("cpu") is lin and lin.cpu() is lin and lin.weight.device == ak.device("cpu")
    with pytest.raises(ValueError, match="unknown device 'gpu'"):
        lin.to("gpu")
    if not ak.cuda.is_available():  # nothing moves when the device is missing
        before = lin.weight
        with pytest.raises(RuntimeError, match="'cuda:0' is not available"):
            lin.cuda()
        assert lin.weight is before
    with pytest.raises(TypeError, match="floating-point"):
        lin.to(ak.int64)
    out = lin(ak.randn(2, 3, dtype=ak.float64))
    out.sum().backward()
    assert lin.weight.grad.dtype == ak.float64


def test_apply_and_requires_grad():
    model = nn.Sequential(nn.Linear(2, 2), nn.Sequential(nn.Linear(2, 2)))
    seen = []
    model.apply(lambda m: seen.append(type(m).__name__))
    assert seen == ["Linear", "Linear", "Sequential", "Sequential"]  # children first, as torch
    model.apply(lambda m: nn.init.zeros_(m.weight) if isinstance(m, nn.Linear) else None)
    assert all(np.all(m.weight.numpy() == 0) for m in model.modules() if isinstance(m, nn.Linear))
    model.requires_grad_(False)
    assert not any(p.requires_grad for p in model.parameters())


def test_state_dict_round_trip_and_aliasing():
    ak.manual_seed(1)
    a, b = Net(), Net()
    x = ak.randn(5, 4)
    a.train()
    a.blocks[0].norm(a.blocks[0].fc(x))  # move running statistics away from the defaults
    a.eval(), b.eval()
    result = b.load_state_dict(a.state_dict())
    assert result.missing_keys == [] and result.unexpected_keys == []
    for (ka, va), (kb, vb) in zip(a.state_dict().items(), b.state_dict().items()):
        assert ka == kb
        np.testing.assert_array_equal(va.numpy(), vb.numpy())
    np.testing.assert_array_equal(a.blocks[0](x).numpy(), b.blocks[0](x).numpy())
    sd = a.state_dict()
    assert not sd["scale"].requires_grad and isinstance(a.state_dict(keep_vars=True)["scale"], nn.Parameter)
    # Loading copies: changing the source afterwards leaves b alone.
    with ak.no_grad():
        a.scale.fill_(7)
    assert b.scale.item() == 1


def test_state_dict_from_torch_loads():
    a, t = Net(), TNet()
    copy_weights(a, t)  # strict: every key name agrees with torch's
    np.testing.assert_array_equal(to_np(a.blocks[1].fc.weight), t.blocks[1].fc.weight.detach().numpy())


def _snapshot(m):
    return {k: v.numpy().copy() for k, v in m.state_dict().items()}


def _assert_unchanged(m, snap):
    for k, v in m.state_dict().items():
        np.testing.assert_array_equal(v.numpy(), snap[k], err_msg=f"{k} was modified by a failed load")


def test_load_state_dict_strict_errors_name_keys_and_apply_nothing():
    model = nn.Sequential(nn.Linear(3, 4), nn.ReLU(), nn.Linear(4, 2))
    good = OrderedDict((k, v.clone() + 1) for k, v in model.state_dict().items())
    snap = _snapshot(model)

    bad_shape = OrderedDict(good)
    bad_shape["2.bias"] = ak.zeros(3)  # the *last* key is wrong: a naive loader would already have copied the rest
    with pytest.raises(RuntimeError, match=r"size mismatch for 2\.bias.*\(3,\).*\(2,\)"):
        model.load_state_dict(bad_shape)
    _assert_unchanged(model, snap)

    missing = OrderedDict(good)
    del missing["2.weight"]
    with pytest.raises(RuntimeError, match=r'Missing key\(s\) in state_dict: "2\.weight"'):
        model.load_state_dict(missing)
    _assert_unchanged(model, snap)

    extra = OrderedDict(good)
    extra["3.weight"] = ak.zeros(1)
    with pytest.raises(RuntimeError, match=r'Unexpected key\(s\) in state_dict: "3\.weight"'):
        model.load_state_dict(extra)
    _assert_unchanged(model, snap)

    not_tensor = OrderedDict(good)
    not_tensor["0.bias"] = [1.0, 2.0, 3.0, 4.0]
    with pytest.raises(RuntimeError, match=r'"0\.bias", expected an aakaar\.Tensor, got list'):
        model.load_state_dict(not_tensor)
    _assert_unchanged(model, snap)

    with pytest.raises(TypeError, match="expects a dict"):
        model.load_state_dict([("0.bias", ak.zeros(4))])

    # strict=False: the present keys load, the rest are reported.
    res = model.load_state_dict(OrderedDict(list(extra.items())[1:]), strict=False)
    assert res.missing_keys == ["0.weight"] and res.unexpected_keys == ["3.weight"]
    np.testing.assert_array_equal(model.state_dict()["2.bias"].numpy(), good["2.bias"].numpy())
    np.testing.assert_array_equal(model.state_dict()["0.weight"].numpy(), snap["0.weight"])
    # A shape mismatch is an error even when not strict.
    with pytest.raises(RuntimeError, match="size mismatch for 2.bias"):
        model.load_state_dict(bad_shape, strict=False)


def test_load_state_dict_converts_dtype():
    lin = nn.Linear(2, 2)
    sd = {k: v.double() * 0 + 0.5 for k, v in lin.state_dict().items()}
    lin.load_state_dict(sd)
    assert lin.weight.dtype == ak.float32 and np.all(lin.weight.numpy() == 0.5)


def test_containers():
    seq = nn.Sequential(nn.Linear(2, 3), nn.ReLU(), nn.Linear(3, 1))
    assert len(seq) == 3 and isinstance(seq[-1], nn.Linear) and isinstance(seq[1:], nn.Sequential)
    assert [type(m).__name__ for m in seq] == ["Linear", "ReLU", "Linear"]
    with pytest.raises(IndexError, match="out of range"):
        seq[3]
    named = nn.Sequential(OrderedDict([("inp", nn.Linear(2, 2)), ("act", nn.ReLU())]))
    assert list(named.state_dict()) == ["inp.weight", "inp.bias"]

    ml = nn.ModuleList([nn.Linear(1, 1)])
    ml.append(nn.Linear(1, 2))
    ml.insert(0, nn.ReLU())
    ml += [nn.Tanh()]
    assert [type(m).__name__ for m in ml] == ["ReLU", "Linear", "Linear", "Tanh"]
    assert list(ml.state_dict()) == ["1.weight", "1.bias", "2.weight", "2.bias"]
    del ml[0]
    assert list(ml.state_dict()) == ["0.weight", "0.bias", "1.weight", "1.bias"]
    with pytest.raises(TypeError, match="not a Module"):
        ml.append(3)

    md = nn.ModuleDict({"enc": nn.Linear(2, 2), "dec": nn.Linear(2, 2)})
    md["act"] = nn.ReLU()
    assert list(md.keys()) == ["enc", "dec", "act"] and "enc" in md and len(md) == 3
    assert list(md.state_dict()) == ["enc.weight", "enc.bias", "dec.weight", "dec.bias"]
    assert isinstance(md.pop("act"), nn.ReLU) and len(md) == 2
    with pytest.raises(KeyError, match="'nope'"):
        md["nope"]


def test_module_without_forward_and_repr_of_custom_module():
    with pytest.raises(NotImplementedError, match="forward"):
        nn.Module()(1)
    assert repr(Net()).startswith("Net(\n  (blocks): ModuleList(\n    (0): Block(\n      (fc): Linear(in_features=4")
