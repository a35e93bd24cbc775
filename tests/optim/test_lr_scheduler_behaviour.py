"""aakaar.optim.lr_scheduler beyond the 300-step parity runs: PyTorch's warnings and errors, step(epoch)
(the closed forms), momentum cycling of Adam, custom scale functions and lambdas kept in the state dict."""

from __future__ import annotations

import warnings

import pytest

import aakaar as ak
import aakaar.optim as optim
from aakaar.nn import Parameter
from optim_helpers import torch

lr_scheduler = optim.lr_scheduler


def _pair(opt_name="SGD", groups=2, **kwargs):
    kwargs = dict(lr=0.1, momentum=0.9, **kwargs) if opt_name == "SGD" else dict(lr=0.1, **kwargs)
    lrs = [0.1, 0.05, 0.02][:groups]
    a = getattr(optim, opt_name)([{"params": [Parameter(ak.ones(2))], "lr": lr} for lr in lrs], **kwargs)
    t = getattr(torch.optim, opt_name)([{"params": [torch.ones(2, requires_grad=True)], "lr": lr} for lr in lrs],
                                       **kwargs)
    return a, t


def test_lr_scheduler_is_exported():
    assert "lr_scheduler" in optim.__all__
    import aakaar.optim.lr_scheduler as mod
    assert mod is optim.lr_scheduler
    for name in torch.optim.lr_scheduler.__all__:
        assert hasattr(mod, name), name


def test_initial_lr_and_base_lrs():
    opt, _ = _pair()
    s = lr_scheduler.StepLR(opt, step_size=3)
    assert [g["initial_lr"] for g in opt.param_groups] == [0.1, 0.05]
    assert s.base_lrs == [0.1, 0.05] and s.last_epoch == 0 and s.get_last_lr() == [0.1, 0.05]


def test_warns_when_the_scheduler_steps_before_the_optimizer():
    opt, _ = _pair()
    s = lr_scheduler.ExponentialLR(opt, gamma=0.9)
    with pytest.warns(UserWarning, match=r"lr_scheduler.step\(\)` before `optimizer.step\(\)"):
        s.step()


def test_no_warning_in_the_right_order():
    opt, _ = _pair()
    s = lr_scheduler.ExponentialLR(opt, gamma=0.9)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        for _ in range(3):
            opt.step()
            s.step()


def test_warns_when_optimizer_step_is_overridden():
    opt, _ = _pair()
    s = lr_scheduler.StepLR(opt, step_size=2)
    opt.step = lambda closure=None: None
    opt.step()
    with pytest.warns(UserWarning, match="overridden"):
        s.step()


def test_get_lr_outside_step_warns():
    opt, _ = _pair()
    s = lr_scheduler.StepLR(opt, step_size=2)
    with pytest.warns(UserWarning, match="get_last_lr"):
        s.get_lr()


BAD = {
    "not an optimizer": lambda m, o: m.StepLR(object(), step_size=3),
    "CyclicLR not an optimizer": lambda m, o: m.CyclicLR(object(), 0.1, 1.0),
    "OneCycleLR not an optimizer": lambda m, o: m.OneCycleLR(object(), 0.1, total_steps=10),
    "Plateau not an optimizer": lambda m, o: m.ReduceLROnPlateau(object()),
    "lambdas count": lambda m, o: m.LambdaLR(o, lr_lambda=[lambda e: 1.0]),
    "lambda not callable": lambda m, o: m.MultiplicativeLR(o, lr_lambda=0.9),
    "ConstantLR factor": lambda m, o: m.ConstantLR(o, factor=1.5),
    "LinearLR start_factor": lambda m, o: m.LinearLR(o, start_factor=0.0),
    "LinearLR end_factor": lambda m, o: m.LinearLR(o, end_factor=2.0),
    "resume without initial_lr": lambda m, o: m.StepLR(o, step_size=3, last_epoch=5),
    "CAWR T_0": lambda m, o: m.CosineAnnealingWarmRestarts(o, T_0=0),
    "CAWR T_mult": lambda m, o: m.CosineAnnealingWarmRestarts(o, T_0=5, T_mult=0),
    "CAWR eta_min": lambda m, o: m.CosineAnnealingWarmRestarts(o, T_0=5, eta_min="0"),
    "CyclicLR mode": lambda m, o: m.CyclicLR(o, 0.01, 0.1, mode="square"),
    "CyclicLR max_lr count": lambda m, o: m.CyclicLR(o, 0.01, [0.1, 0.2, 0.3]),
    "OneCycleLR no length": lambda m, o: m.OneCycleLR(o, 0.1),
    "OneCycleLR total_steps": lambda m, o: m.OneCycleLR(o, 0.1, total_steps=0),
    "OneCycleLR epochs": lambda m, o: m.OneCycleLR(o, 0.1, epochs=0, steps_per_epoch=3),
    "OneCycleLR pct_start": lambda m, o: m.OneCycleLR(o, 0.1, total_steps=10, pct_start=1.5),
    "OneCycleLR anneal": lambda m, o: m.OneCycleLR(o, 0.1, total_steps=10, anneal_strategy="exp"),
    "Plateau factor": lambda m, o: m.ReduceLROnPlateau(o, factor=1.0),
    "Plateau mode": lambda m, o: m.ReduceLROnPlateau(o, mode="up"),
    "Plateau threshold_mode": lambda m, o: m.ReduceLROnPlateau(o, threshold_mode="pct"),
    "Plateau min_lr count": lambda m, o: m.ReduceLROnPlateau(o, min_lr=[0.1]),
    "Sequential milestones": lambda m, o: m.SequentialLR(o, [m.ExponentialLR(o, 0.9)], milestones=[3]),
    "Sequential empty": lambda m, o: m.SequentialLR(o, [], milestones=[]),
    "Sequential plateau": lambda m, o: m.SequentialLR(o, [m.ExponentialLR(o, 0.9), m.ReduceLROnPlateau(o)],
                                                      milestones=[3]),
    "Chained empty": lambda m, o: m.ChainedScheduler([]),
}


@pytest.mark.parametrize("name", list(BAD))
def test_bad_arguments_raise_as_in_torch(name):
    a_opt, t_opt = _pair()
    with pytest.raises(Exception) as expected:
        BAD[name](torch.optim.lr_scheduler, t_opt)
    with pytest.raises(expected.type):
        BAD[name](lr_scheduler, a_opt)


def test_lambda_schedulers_check_the_optimizer_first():
    # torch reads object().param_groups first (AttributeError); aakaar says what is wrong
    for cls in (lr_scheduler.LambdaLR, lr_scheduler.MultiplicativeLR):
        with pytest.raises(TypeError, match="is not an Optimizer"):
            cls(object(), lr_lambda=lambda e: 1.0)


def test_cycle_momentum_needs_momentum():
    a_opt, t_opt = _pair("Adagrad")
    for m, o in ((torch.optim.lr_scheduler, t_opt), (lr_scheduler, a_opt)):
        with pytest.raises(ValueError, match="momentum"):
            m.CyclicLR(o, 0.01, 0.1)


def test_one_cycle_past_total_steps_raises():
    opt, _ = _pair()
    s = lr_scheduler.OneCycleLR(opt, 0.1, total_steps=3)
    for _ in range(3):
        opt.step()
        s.step()
    opt.step()
    with pytest.raises(ValueError, match="Tried to step 4 times"):
        s.step()


EPOCHS = [1, 2, 5, 9, 10, 30, 31, 55, 120, 7, 3, 0]

CLOSED = {
    "StepLR": lambda m, o: m.StepLR(o, step_size=4, gamma=0.5),
    "MultiStepLR": lambda m, o: m.MultiStepLR(o, milestones=[3, 9, 9, 40], gamma=0.3),
    "ConstantLR": lambda m, o: m.ConstantLR(o, factor=0.3, total_iters=10),
    "LinearLR": lambda m, o: m.LinearLR(o, start_factor=0.2, end_factor=0.9, total_iters=40),
    "ExponentialLR": lambda m, o: m.ExponentialLR(o, gamma=0.97),
    "PolynomialLR": lambda m, o: m.PolynomialLR(o, total_iters=60, power=1.5),
    "CosineAnnealingLR": lambda m, o: m.CosineAnnealingLR(o, T_max=25, eta_min=0.001),
    "LambdaLR": lambda m, o: m.LambdaLR(o, lr_lambda=lambda e: 1 / (1 + e)),
    "CAWR T_mult=1": lambda m, o: m.CosineAnnealingWarmRestarts(o, T_0=7, eta_min=1e-3),
    "CAWR T_mult=3": lambda m, o: m.CosineAnnealingWarmRestarts(o, T_0=4, T_mult=3),
}


@pytest.mark.parametrize("name", list(CLOSED))
def test_step_with_epoch_uses_the_closed_form_as_torch(name):
    a_opt, t_opt = _pair()
    a, t = CLOSED[name](lr_scheduler, a_opt), CLOSED[name](torch.optim.lr_scheduler, t_opt)
    epochs = EPOCHS + ([2.5, 13.25, 40.75] if name.startswith("CAWR") else [])
    for epoch in epochs:
        a_opt.step()
        t_opt.step()
        if name.startswith("CAWR"):  # fractional epochs are CosineAnnealingWarmRestarts' documented use: no warning
            with warnings.catch_warnings():
                warnings.simplefilter("error")
                a.step(epoch)
        else:
            with pytest.warns(UserWarning, match="epoch parameter"):
                a.step(epoch)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            t.step(epoch)
        assert a.get_last_lr() == t.get_last_lr(), epoch
        assert a.last_epoch == t.last_epoch
        # and the recursive form carries on from there as torch's does
        a_opt.step()
        t_opt.step()
        a.step()
        t.step()
        assert a.get_last_lr() == t.get_last_lr(), epoch


class _Halving:
    """A callable object: its attributes are state, saved by the scheduler's state dict."""

    def __init__(self) -> None:
        self.rate = 0.5

    def __call__(self, epoch: int) -> float:
        return self.rate ** epoch


def test_callable_object_lambdas_are_saved():
    opt, _ = _pair()
    fn = _Halving()
    s = lr_scheduler.LambdaLR(opt, lr_lambda=fn)
    fn.rate = 0.25
    sd = s.state_dict()
    assert sd["lr_lambdas"] == [{"rate": 0.25}, {"rate": 0.25}]
    opt2, _ = _pair()
    fn2 = _Halving()
    s2 = lr_scheduler.LambdaLR(opt2, lr_lambda=fn2)
    s2.load_state_dict(sd)
    assert fn2.rate == 0.25 and "optimizer" not in sd
    assert lr_scheduler.LambdaLR(opt2, lr_lambda=lambda e: 1.0).state_dict()["lr_lambdas"] == [None, None]


CYCLIC = {
    "adam betas": ("Adam", lambda m, o: m.CyclicLR(o, base_lr=0.001, max_lr=0.01, step_size_up=7, step_size_down=3)),
    "per-group": ("SGD", lambda m, o: m.CyclicLR(o, base_lr=[0.01, 0.02], max_lr=[0.1, 0.3], step_size_up=5,
                                                 base_momentum=[0.8, 0.7], max_momentum=[0.95, 0.9])),
    "scale_fn by step": ("SGD", lambda m, o: m.CyclicLR(o, 0.01, 0.1, step_size_up=6, scale_fn=lambda x: 1 / (1 + x),
                                                        scale_mode="iterations")),
    "no momentum": ("Adagrad", lambda m, o: m.CyclicLR(o, 0.01, 0.1, step_size_up=4, cycle_momentum=False)),
    "one-cycle epochs": ("RMSprop", lambda m, o: m.OneCycleLR(o, max_lr=0.05, epochs=4, steps_per_epoch=26,
                                                              pct_start=0.25, cycle_momentum=False)),
    "one-cycle adamw three-phase": ("AdamW", lambda m, o: m.OneCycleLR(o, max_lr=0.05, total_steps=101,
                                                                       three_phase=True, div_factor=10.0)),
}


@pytest.mark.parametrize("name", list(CYCLIC))
def test_cyclic_schedules_and_momenta_equal_torchs(name):
    opt_name, make = CYCLIC[name]
    a_opt, t_opt = _pair(opt_name, momentum=0.5) if opt_name == "RMSprop" else _pair(opt_name)
    a, t = make(lr_scheduler, a_opt), make(torch.optim.lr_scheduler, t_opt)
    for _ in range(100):
        a_opt.step()
        t_opt.step()
        a.step()
        t.step()
        assert a.get_last_lr() == t.get_last_lr()
        for ga, gt in zip(a_opt.param_groups, t_opt.param_groups):
            assert ga.get("momentum") == gt.get("momentum") and ga.get("betas") == gt.get("betas")


def test_plateau_scalar_min_lr_extends_to_a_new_group():
    a_opt, t_opt = _pair()
    kw = dict(factor=0.5, patience=0, min_lr=0.01)
    a, t = lr_scheduler.ReduceLROnPlateau(a_opt, **kw), torch.optim.lr_scheduler.ReduceLROnPlateau(t_opt, **kw)
    a_opt.add_param_group({"params": [Parameter(ak.ones(1))], "lr": 0.3})
    t_opt.add_param_group({"params": [torch.ones(1, requires_grad=True)], "lr": 0.3})
    for _ in range(8):
        a.step(1.0)
        t.step(1.0)
        assert a.get_last_lr() == t.get_last_lr()
    assert a.get_last_lr() == [0.01, 0.01, 0.01]


def test_plateau_per_group_min_lr_and_a_new_group_raise():
    opt, _ = _pair()
    s = lr_scheduler.ReduceLROnPlateau(opt, patience=0, min_lr=[0.0, 0.0])
    opt.add_param_group({"params": [Parameter(ak.ones(1))]})
    s.step(1.0)
    with pytest.raises(RuntimeError, match="min_lrs"):
        s.step(1.0)


def test_chained_and_sequential_state_dicts_hold_their_schedulers():
    opt, _ = _pair()
    s = lr_scheduler.SequentialLR(opt, [lr_scheduler.ConstantLR(opt, 0.5, 3), lr_scheduler.StepLR(opt, 2)], [3])
    sd = s.state_dict()
    assert "optimizer" not in sd and len(sd["_schedulers"]) == 2
    assert all("optimizer" not in x for x in sd["_schedulers"])
