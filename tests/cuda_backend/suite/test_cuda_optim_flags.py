"""The optimizers' differentiable= and capturable= flags on the device (aakaar/optim/differentiable.py,
aakaar/optim/fused.py): a recorded step runs composed of the device's ops and gives the CPU's
meta-gradients; capturable=True is refused on the CPU, as PyTorch refuses it, and keeps the counters
on the device on "cuda" (test_cuda_capturable.py)."""
from __future__ import annotations

import numpy as np
import pytest

import aakaar
from aakaar import optim

CASES = [("SGD", dict(momentum=0.9, nesterov=True)), ("Adam", dict(amsgrad=False, weight_decay=0.1)),
         ("AdamW", dict()), ("RMSprop", dict(centered=True)), ("NAdam", dict()), ("RAdam", dict()),
         ("Adagrad", dict(lr_decay=0.1)), ("Adamax", dict()), ("Adadelta", dict()), ("Rprop", dict()),
         ("ASGD", dict(t0=1))]
NUMBER_LR = {"Adagrad", "RMSprop", "Adamax", "Adadelta", "Rprop"}


def _meta(name, options, device, x0_np, c_np, steps=2):
    """d(loss after a few recorded steps) / d(x0), and / d(lr) where lr may be a tensor."""
    x0 = aakaar.tensor(x0_np).to(device).requires_grad_()
    c = aakaar.tensor(c_np).to(device)
    lr = 0.01 if name in NUMBER_LR else aakaar.tensor(0.01, dtype=aakaar.float64).to(device).requires_grad_()
    p = x0.clone()
    opt = getattr(optim, name)([p], lr=lr, differentiable=True, **options)
    for _ in range(steps):
        q = p.clone()
        (g,) = aakaar.autograd.grad((q * q * q).sum() + (q * c).sum(), [q], create_graph=True)
        p.grad = g
        opt.step()
    (p * p).sum().backward()
    out = [p.detach().cpu().numpy(), x0.grad.cpu().numpy()]
    if not isinstance(lr, float) and lr.grad is not None:
        out.append(lr.grad.cpu().numpy())
    return out


@pytest.mark.parametrize("name,options", CASES, ids=[c[0] for c in CASES])
def test_differentiable_step_on_the_device_matches_the_cpu(rng, name, options):
    x0, c = rng.standard_normal(5), rng.standard_normal(5)
    steps = 1 if name in ("SGD", "Rprop", "Adamax", "NAdam", "RMSprop") else 2  # torch records one step there
    want = _meta(name, options, "cpu", x0, c, steps)
    got = _meta(name, options, "cuda", x0, c, steps)
    assert len(got) == len(want)
    for a, b in zip(got, want):
        np.testing.assert_allclose(a, b, rtol=1e-12, atol=1e-14)


@pytest.mark.parametrize("name", ["Adam", "RMSprop", "Rprop", "ASGD"])
def test_capturable_is_refused_on_the_cpu_only(name):
    for device in ("cpu", "cuda"):
        p = aakaar.ones(3).to(device).requires_grad_()
        opt = getattr(optim, name)([p], capturable=True)
        p.grad = aakaar.ones(3).to(device)
        if device == "cpu":
            with pytest.raises(AssertionError, match="capturable"):
                opt.step()
        else:  # the counters on the device (test_cuda_capturable.py checks the numbers)
            opt.step()
            assert opt.state[p]["step"].device.type == "cuda"
