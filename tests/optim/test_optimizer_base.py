"""The Optimizer base: param groups, state, zero_grad, closures, hooks, state_dict round trips
(save, load, resume gives bit-identical training) and PyTorch's errors for bad input."""

from __future__ import annotations

import numpy as np
import pytest

import aakaar as ak
import aakaar.optim as optim
from aakaar.nn import Parameter
from optim_helpers import make_params, set_grads, torch


def _train(opt, params, rng, steps):
    for _ in range(steps):
        for p in params:
            p.grad = ak.from_numpy(rng.standard_normal(tuple(p.shape)))
        opt.step()


@pytest.mark.parametrize("name,kwargs", [
    ("SGD", dict(lr=0.01, momentum=0.9, nesterov=True)), ("Adam", dict(lr=0.01, amsgrad=True)),
    ("AdamW", dict(lr=0.01)), ("Adagrad", dict(lr=0.05)), ("RMSprop", dict(lr=0.01, centered=True, momentum=0.5)),
    ("Adamax", dict()), ("NAdam", dict()), ("RAdam", dict()), ("Adadelta", dict()),
    ("Rprop", dict()), ("ASGD", dict(t0=5)), ("Adafactor", dict(weight_decay=0.1)), ("Lion", dict(weight_decay=0.1)),
    ("LAMB", dict(weight_decay=0.01)),
])
def test_save_load_resume_is_bit_identical(name, kwargs, tmp_path):
    cls = getattr(optim, name)
    params, _ = make_params("float64")
    opt = cls(params, **kwargs)
    _train(opt, params, np.random.default_rng(0), 20)
    ak.save({"params": [p.detach().clone() for p in params], "opt": opt.state_dict()}, tmp_path / "ckpt")
    # the original keeps going ...
    _train(opt, params, np.random.default_rng(1), 30)
    # ... and a fresh one resumes from the file
    ckpt = ak.load(tmp_path / "ckpt")
    params2 = [Parameter(p) for p in ckpt["params"]]
    opt2 = cls(params2, **kwargs)
    opt2.load_state_dict(ckpt["opt"])
    _train(opt2, params2, np.random.default_rng(1), 30)
    for a, b in zip(params, params2):
        assert np.array_equal(a.detach().numpy(), b.detach().numpy())


def test_state_dict_has_torchs_layout():
    a, t = make_params("float64")
    ak_opt = optim.Adam([{"params": a[:2]}, {"params": a[2:], "lr": 0.1}])
    t_opt = torch.optim.Adam([{"params": t[:2]}, {"params": t[2:], "lr": 0.1}])
    set_grads(a, t, np.random.default_rng(0), "float64")
    ak_opt.step()
    t_opt.step()
    sa, st = ak_opt.state_dict(), t_opt.state_dict()
    assert sorted(sa["state"]) == sorted(st["state"])
    assert sorted(sa["state"][0]) == sorted(st["state"][0])
    for ga, gt in zip(sa["param_groups"], st["param_groups"]):
        assert ga["params"] == gt["params"] and ga["lr"] == gt["lr"] and ga["betas"] == gt["betas"]


def test_zero_grad_and_closure():
    p = Parameter(ak.ones(3))
    opt = optim.SGD([p], lr=0.5)
    p.grad = ak.ones(3)
    opt.zero_grad(set_to_none=False)
    assert p.grad is not None and float(p.grad.sum().item()) == 0.0
    opt.zero_grad()
    assert p.grad is None

    def closure():
        opt.zero_grad()
        loss = (p * p).sum()
        loss.backward()
        return loss

    loss = opt.step(closure)
    assert float(loss.item()) == 3.0
    assert np.allclose(p.detach().numpy(), 0.0)  # p - 0.5 * 2p


def test_add_param_group_fills_defaults():
    p, q = Parameter(ak.ones(2)), Parameter(ak.ones(3))
    opt = optim.SGD([p], lr=0.1, momentum=0.9)
    opt.add_param_group({"params": q, "lr": 0.01})
    assert opt.param_groups[1]["momentum"] == 0.9 and opt.param_groups[1]["lr"] == 0.01
    with pytest.raises(ValueError, match="more than one parameter group"):
        opt.add_param_group({"params": [p]})


def test_step_hooks_run_and_can_be_removed():
    p = Parameter(ak.ones(2))
    p.grad = ak.ones(2)
    opt = optim.SGD([p], lr=0.1)
    calls = []
    h1 = opt.register_step_pre_hook(lambda o, a, k: calls.append("pre"))
    h2 = opt.register_step_post_hook(lambda o, a, k: calls.append("post"))
    g = optim.register_optimizer_step_pre_hook(lambda o, a, k: calls.append("global"))
    opt.step()
    assert calls == ["global", "pre", "post"]
    for h in (h1, h2, g):
        h.remove()
    opt.step()
    assert calls == ["global", "pre", "post"]


def test_state_dict_hooks():
    p = Parameter(ak.ones(2))
    opt = optim.SGD([p], lr=0.1)
    opt.register_state_dict_post_hook(lambda o, sd: {**sd, "extra": 1})
    assert opt.state_dict()["extra"] == 1
    seen = []
    opt.register_load_state_dict_post_hook(lambda o: seen.append(True))
    opt.load_state_dict(opt.state_dict())
    assert seen == [True]


# ---- bad input: PyTorch's exception classes -------------------------------------------------

BAD_HYPERPARAMETERS = [
    (optim.SGD, dict(lr=-1.0), "Invalid learning rate"),
    (optim.SGD, dict(lr=0.1, momentum=-0.5), "Invalid momentum"),
    (optim.SGD, dict(lr=0.1, weight_decay=-1), "Invalid weight_decay"),
    (optim.SGD, dict(lr=0.1, nesterov=True), "Nesterov momentum requires"),
    (optim.Adam, dict(eps=-1e-8), "Invalid epsilon"),
    (optim.Adam, dict(betas=(1.0, 0.999)), "Invalid beta parameter at index 0"),
    (optim.AdamW, dict(betas=(0.9, -0.1)), "Invalid beta parameter at index 1"),
    (optim.RMSprop, dict(alpha=-0.1), "Invalid alpha"),
    (optim.Adadelta, dict(rho=1.5), "Invalid rho"),
    (optim.Rprop, dict(lr=-0.1), "Invalid learning rate"),
    (optim.Rprop, dict(etas=(1.5, 1.2)), "Invalid eta values: 1.5, 1.2"),
    (optim.Rprop, dict(etas=(0.5, 0.9)), "Invalid eta values"),
    (optim.Rprop, dict(etas=(0.0, 1.2)), "Invalid eta values"),
    (optim.ASGD, dict(lr=-0.1), "Invalid learning rate"),
    (optim.ASGD, dict(weight_decay=-1e-4), "Invalid weight_decay value"),
    (optim.Adafactor, dict(lr=-0.1), "Learning rate should be >= 0"),
    (optim.Adafactor, dict(beta2_decay=0.5), "beta2_decay should be <= 0"),
    (optim.Adafactor, dict(eps=(-1e-30, 1e-3)), "epsilon1 should be >= 0"),
    (optim.Adafactor, dict(eps=(None, -1e-3)), "epsilon2 should be >= 0"),
    (optim.Adafactor, dict(d=0.5), "Clipping threshold d should be >= 1"),
    (optim.Adafactor, dict(weight_decay=-0.1), "weight_decay should be >= 0"),
    (optim.Lion, dict(lr=-1e-4), "Invalid learning rate"),
    (optim.Lion, dict(betas=(0.9, 1.0)), "Invalid beta parameter at index 1"),
    (optim.Lion, dict(weight_decay=-0.1), "Invalid weight_decay"),
    (optim.LAMB, dict(lr=-1e-3), "Invalid learning rate"),
    (optim.LAMB, dict(eps=-1e-6), "Invalid epsilon"),
    (optim.LAMB, dict(betas=(-0.1, 0.999)), "Invalid beta parameter at index 0"),
    (optim.LAMB, dict(weight_decay=-0.1), "Invalid weight_decay"),
]


@pytest.mark.parametrize("cls,kwargs,match", BAD_HYPERPARAMETERS)
def test_bad_hyperparameters_raise_value_error(cls, kwargs, match):
    with pytest.raises(ValueError, match=match):
        cls([Parameter(ak.ones(2))], **kwargs)


@pytest.mark.parametrize("cls,kwargs,match",
                         [case for case in BAD_HYPERPARAMETERS if hasattr(torch.optim, case[0].__name__)])
def test_torch_rejects_the_same_hyperparameters(cls, kwargs, match):
    """The cases above are errors in torch.optim too, of the same class (Lion and LAMB are not in torch)."""
    with pytest.raises(ValueError):
        getattr(torch.optim, cls.__name__)([torch.ones(2, requires_grad=True)], **kwargs)


def test_bad_params_raise_torchs_errors():
    with pytest.raises(ValueError, match="empty parameter list"):
        optim.SGD([], lr=0.1)
    with pytest.raises(TypeError, match="iterable of Tensors"):
        optim.SGD(Parameter(ak.ones(2)), lr=0.1)
    with pytest.raises(TypeError, match="can only optimize Tensors"):
        optim.SGD([1.0], lr=0.1)
    leaf = Parameter(ak.ones(2))
    with pytest.raises(ValueError, match="non-leaf"):
        optim.SGD([leaf * 2], lr=0.1)
    p = Parameter(ak.ones(2))
    with pytest.raises(ValueError, match="more than one parameter group"):
        optim.SGD([{"params": [p]}, {"params": [p]}], lr=0.1)


def test_load_state_dict_mismatches_raise_value_error():
    p, q = Parameter(ak.ones(2)), Parameter(ak.ones(3))
    sd = optim.SGD([p, q], lr=0.1).state_dict()
    with pytest.raises(ValueError, match="different number of parameter groups"):
        optim.SGD([{"params": [p]}, {"params": [q]}], lr=0.1).load_state_dict(sd)
    with pytest.raises(ValueError, match="doesn't match the size"):
        optim.SGD([p], lr=0.1).load_state_dict(sd)


def test_gradient_of_wrong_shape_is_a_clear_error():
    p = Parameter(ak.ones(3))
    p.grad = ak.ones(3)
    opt = optim.Adam([p])
    p.grad = ak.ones(3, dtype=ak.float64)
    with pytest.raises(TypeError, match="float64"):
        opt.step()


def test_native_step_checks_the_new_kinds_state():
    """The op behind every step names what is wrong in the state it is handed (here by hand)."""
    from aakaar import _C

    p = Parameter(ak.ones(3, 4))
    p.grad = ak.ones(3, 4)
    counter = [ak.zeros(())]
    step = _C.OptimizerStep()
    step.kind, step.lr = _C.OptimizerKind.ASGD, 0.1
    with pytest.raises(ValueError, match="one eta and one mu per parameter"):
        _C._optimizer_step(step, [p], [p.grad], [[ak.zeros(3, 4)]], counter, [])
    step.kind = _C.OptimizerKind.Rprop
    with pytest.raises(ValueError, match="one scalar state per parameter"):
        _C._optimizer_step(step, [p], [p.grad], [[ak.zeros(3, 4)], [ak.zeros(3, 4)]], counter, [], [[]])
    step.kind = _C.OptimizerKind.Adafactor
    with pytest.raises(ValueError, match=r"row_var of parameter 0 has shape \[3, 4\].*needs \[3, 1\]"):
        _C._optimizer_step(step, [p], [p.grad], [[ak.zeros(3, 4)], [ak.zeros(1, 4)]], counter, [])
    with pytest.raises(TypeError, match="col_var of parameter 0 is float64"):
        _C._optimizer_step(step, [p], [p.grad], [[ak.zeros(3, 1)], [ak.zeros(1, 4, dtype=ak.float64)]], counter, [])
