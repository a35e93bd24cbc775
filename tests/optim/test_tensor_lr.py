"""A learning rate given as a one-element tensor, as PyTorch allows: the steps read its value, a
scheduler fills it in place (whoever holds the tensor sees the new lr), and the iterates equal torch's."""
from __future__ import annotations

import numpy as np
import pytest

import aakaar as ak
import aakaar.optim as optim
from optim_helpers import TOLERANCE, make_params, rel_err, set_grads, torch

OPTIMIZERS = [("SGD", dict(momentum=0.9)), ("Adam", {}), ("AdamW", {}), ("RMSprop", {}), ("Adagrad", {}),
              ("NAdam", {}), ("Adamax", {}), ("RAdam", {}), ("Adadelta", {}), ("ASGD", {}), ("Rprop", {})]


@pytest.mark.parametrize("name,options", OPTIMIZERS, ids=[o[0] for o in OPTIMIZERS])
def test_tensor_lr_with_a_scheduler_follows_torch(name, options):
    dtype = "float64"
    ak_params, t_params = make_params(dtype)
    ak_lr, t_lr = ak.tensor(0.05, dtype=ak.float64), torch.tensor(0.05, dtype=torch.float64)
    ak_opt = getattr(optim, name)(ak_params, lr=ak_lr, **options)
    t_opt = getattr(torch.optim, name)(t_params, lr=t_lr, **options)
    ak_sched = optim.lr_scheduler.StepLR(ak_opt, step_size=3, gamma=0.5)
    t_sched = torch.optim.lr_scheduler.StepLR(t_opt, step_size=3, gamma=0.5)
    rng = np.random.default_rng(1)
    for _ in range(10):
        set_grads(ak_params, t_params, rng, dtype)
        ak_opt.step()
        t_opt.step()
        ak_sched.step()
        t_sched.step()
    assert ak_opt.param_groups[0]["lr"] is ak_lr, "the scheduler replaced the lr tensor instead of filling it"
    assert float(ak_lr) == float(t_lr) == 0.05 * 0.5 ** 3
    for a, t in zip(ak_params, t_params):
        assert rel_err(a, t) <= TOLERANCE[dtype]
    last = ak_sched.get_last_lr()[0]
    assert isinstance(last, ak.Tensor) and last is not ak_lr, "get_last_lr must hand out a copy, as torch's does"
    assert float(ak_opt.param_groups[0]["initial_lr"]) == 0.05


@pytest.mark.parametrize("make", [
    lambda p, lr: optim.SGD(p, lr=lr), lambda p, lr: optim.Adam(p, lr=lr), lambda p, lr: optim.Lion(p, lr=lr),
    lambda p, lr: optim.LBFGS(p, lr=lr), lambda p, lr: optim.Muon(p, lr=lr), lambda p, lr: optim.Adafactor(p, lr=lr),
], ids=["SGD", "Adam", "Lion", "LBFGS", "Muon", "Adafactor"])
def test_a_tensor_lr_of_more_than_one_element_is_a_value_error(make):
    p = [ak.nn.Parameter(ak.randn(3, 4))]
    with pytest.raises(ValueError, match="Tensor lr must be 1-element"):
        make(p, ak.tensor([0.1, 0.2]))
