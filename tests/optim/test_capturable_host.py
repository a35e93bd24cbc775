"""capturable=True seen from the host (the device side is tests/cuda_backend/suite/test_cuda_capturable.py,
run on the CUDA emulator): where load_state_dict puts the step counters, and the refusals on the CPU."""

from __future__ import annotations

import numpy as np
import pytest

import aakaar as ak
from aakaar import _C
from optim_helpers import torch

CAPTURABLE = ["Adam", "AdamW", "Adamax", "NAdam", "RAdam", "RMSprop", "Adadelta", "Rprop", "ASGD"]


def _stepped(lib, name, capturable=False, steps=3):
    p = (ak.tensor if lib is ak else torch.tensor)(np.linspace(-1, 1, 5), requires_grad=True)
    opt = getattr(lib.optim, name)([p], lr=0.01)
    for k in range(steps):
        p.grad = (ak.tensor if lib is ak else torch.tensor)(np.cos(np.arange(5.0) + k))
        opt.step()
    return opt, p


@pytest.mark.parametrize("name", CAPTURABLE)
def test_a_loaded_capturable_group_on_the_cpu_is_refused_at_the_step_as_torch(name):
    """The loaded groups' flag decides (as PyTorch): capturable=True loaded for CPU parameters makes
    the next step an AssertionError in both libraries; the counters keep their values."""
    errors = []
    for lib in (torch, ak):
        opt, p = _stepped(lib, name)
        sd = opt.state_dict()
        sd["param_groups"][0]["capturable"] = True
        fresh = getattr(lib.optim, name)([p], lr=0.01)
        fresh.load_state_dict(sd)
        assert float(fresh.state[p]["step"]) == 3.0
        assert fresh.state[p]["step"].dtype == lib.float32  # 'step' as float32, as torch casts it
        p.grad = p.detach() * 0 + 1
        with pytest.raises(AssertionError, match="capturable=True"):
            fresh.step()
        errors.append(AssertionError)
    assert errors[0] is errors[1]


@pytest.mark.parametrize("name", ["NAdam", "ASGD"])
def test_counters_resume_on_the_host_bit_for_bit(name):
    """Without capturable the counters (NAdam's mu_product, ASGD's eta and mu) stay on the CPU in
    their own dtype through a state_dict round trip, so a resumed run equals an uninterrupted one."""
    whole, p = _stepped(ak, name, steps=6)
    half, q = _stepped(ak, name, steps=3)
    resumed = getattr(ak.optim, name)([q], lr=0.01)
    resumed.load_state_dict(half.state_dict())
    for key, value in resumed.state[q].items():
        if value.dim() == 0:
            assert value.device.type == "cpu", key
    for k in range(3, 6):
        q.grad = ak.tensor(np.cos(np.arange(5.0) + k))
        resumed.step()
    np.testing.assert_array_equal(q.detach().numpy(), p.detach().numpy())


def test_the_capturable_op_needs_a_device_that_counts_itself():
    """The native op behind capturable=True refuses a device whose backend table has no
    optimizer_step_capturable (the CPU's: PyTorch refuses capturable=True there), and counters
    elsewhere than the parameters' device."""
    p, g = ak.ones(3), ak.ones(3)
    step = _C.OptimizerStep()
    step.kind = _C.OptimizerKind.RMSprop
    step.lr, step.alpha, step.eps = 0.01, 0.99, 1e-8
    with pytest.raises(RuntimeError, match="no capturable optimizer step"):
        _C._optimizer_step_capturable(step, [p], [g], [[ak.zeros(3)], [], []], [ak.zeros([])], [], [])
    with pytest.raises(ValueError, match="one step counter per parameter"):
        _C._optimizer_step_capturable(step, [p], [g], [[ak.zeros(3)], [], []], [], [], [])
    step.kind = _C.OptimizerKind.LAMB
    with pytest.raises(ValueError, match="elementwise"):
        _C._optimizer_step_capturable(step, [p], [g], [[ak.zeros(3)], [ak.zeros(3)], []], [ak.zeros([])], [], [])
