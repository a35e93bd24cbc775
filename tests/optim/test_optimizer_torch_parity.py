"""Every fused optimizer against torch.optim: 200 steps on the same gradients, every option
combination, float32 and float64, contiguous and non-contiguous parameters. Parameters and
state must agree to 1e-5 (float32) and 1e-10 (float64) relative."""

from __future__ import annotations

import itertools

import pytest

import aakaar.optim as optim
from optim_helpers import assert_close, run_both, torch

LAYOUTS = [True, False]


def _grid(**options):
    keys = list(options)
    return [dict(zip(keys, values)) for values in itertools.product(*options.values())]


def _cases(name, grid):
    return [pytest.param(name, kw, id=f"{name}-" + "-".join(f"{k}={v}" for k, v in kw.items())) for kw in grid]


SGD = [kw for kw in _grid(lr=[0.01], momentum=[0.0, 0.9], dampening=[0.0, 0.1], nesterov=[False, True],
                          weight_decay=[0.0, 0.01], maximize=[False, True])
       if not (kw["nesterov"] and (kw["momentum"] == 0 or kw["dampening"] != 0))
       and not (kw["momentum"] == 0 and kw["dampening"] != 0)]
ADAM = _grid(lr=[0.01], betas=[(0.9, 0.999)], weight_decay=[0.0, 0.01], amsgrad=[False, True], maximize=[False, True])
ADAMW = _grid(lr=[0.01], weight_decay=[0.0, 0.05], amsgrad=[False, True], maximize=[False, True])
ADAGRAD = _grid(lr=[0.05], lr_decay=[0.0, 0.01], weight_decay=[0.0, 0.01], initial_accumulator_value=[0.0, 0.1],
                maximize=[False, True])
RMSPROP = _grid(lr=[0.001], alpha=[0.99], weight_decay=[0.0, 0.01], momentum=[0.0, 0.9], centered=[False, True],
                maximize=[False, True])
ADAMAX = _grid(lr=[0.01], weight_decay=[0.0, 0.01], maximize=[False, True])
NADAM = _grid(lr=[0.01], weight_decay=[0.0, 0.01], decoupled_weight_decay=[False, True], maximize=[False, True])
RADAM = _grid(lr=[0.01], weight_decay=[0.0, 0.01], decoupled_weight_decay=[False, True], maximize=[False, True])
ADADELTA = _grid(lr=[1.0], rho=[0.9], weight_decay=[0.0, 0.01], maximize=[False, True])
# Rprop's second step_sizes pair makes both bounds bite within 200 steps.
RPROP = _grid(lr=[0.01, 0.1], etas=[(0.5, 1.2), (0.3, 1.6)], step_sizes=[(1e-6, 50), (1e-3, 0.05)],
              maximize=[False, True])
# t0=50: the average ax starts moving (mu < 1) after 50 of the 200 steps.
ASGD = _grid(lr=[0.01], lambd=[1e-4, 1e-2], alpha=[0.75, 0.5], t0=[1e6, 50], weight_decay=[0.0, 0.01],
             maximize=[False, True])
ADAFACTOR = _grid(lr=[0.01, 0.5], beta2_decay=[-0.8, -0.3], eps=[(None, 1e-3), (1e-12, 0.5)], d=[1.0, 2.0],
                  weight_decay=[0.0, 0.1], maximize=[False, True])

CASES = (_cases("SGD", SGD) + _cases("Adam", ADAM) + _cases("AdamW", ADAMW) + _cases("Adagrad", ADAGRAD)
         + _cases("RMSprop", RMSPROP) + _cases("Adamax", ADAMAX) + _cases("NAdam", NADAM) + _cases("RAdam", RADAM)
         + _cases("Adadelta", ADADELTA) + _cases("Rprop", RPROP) + _cases("ASGD", ASGD)
         + _cases("Adafactor", ADAFACTOR))


@pytest.mark.parametrize("contiguous", LAYOUTS, ids=["contiguous", "strided"])
@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("name,kwargs", CASES)
def test_optimizer_matches_torch_over_200_steps(name, kwargs, dtype, contiguous):
    ak_opt, ak_p, t_opt, t_p = run_both(getattr(optim, name), getattr(torch.optim, name), kwargs, dtype, contiguous)
    assert_close(ak_opt, ak_p, t_opt, t_p, dtype)


def test_parameters_without_grad_are_skipped_like_torch():
    kwargs = dict(lr=0.01, momentum=0.9)
    ak_opt, ak_p, t_opt, t_p = run_both(optim.SGD, torch.optim.SGD, kwargs, "float64", steps=3)
    ak_p[1].grad = None
    t_p[1].grad = None
    before = ak_p[1].detach().numpy().copy()
    ak_opt.step()
    t_opt.step()
    assert (ak_p[1].detach().numpy() == before).all()
    assert_close(ak_opt, ak_p, t_opt, t_p, "float64")


@pytest.mark.parametrize("name,kwargs", [("SGD", dict(lr=0.01, momentum=0.9)), ("Adam", dict(lr=0.01, amsgrad=True)),
                                         ("Rprop", dict()), ("ASGD", dict(t0=2)), ("Adafactor", dict())])
def test_threaded_step_over_large_parameters_matches_torch(name, kwargs):
    """Above the kernel's size threshold the parameters are split among threads: same answer."""
    import numpy as np

    import aakaar as ak
    from aakaar.nn import Parameter

    rng = np.random.default_rng(0)
    shapes = [(600, 500), (70_001,), (3,)]
    data = [rng.standard_normal(s) for s in shapes]
    threads = ak.get_num_threads()
    ak.set_num_threads(2)
    try:
        a = [Parameter(ak.from_numpy(d.copy())) for d in data]
        t = [torch.from_numpy(d.copy()).requires_grad_() for d in data]
        ak_opt, t_opt = getattr(optim, name)(a, **kwargs), getattr(torch.optim, name)(t, **kwargs)
        for _ in range(5):
            for pa, pt in zip(a, t):
                g = rng.standard_normal(tuple(pt.shape))
                pa.grad, pt.grad = ak.from_numpy(g.copy()), torch.from_numpy(g.copy())
            ak_opt.step()
            t_opt.step()
    finally:
        ak.set_num_threads(threads)
    assert_close(ak_opt, a, t_opt, t, "float64")


@pytest.mark.parametrize("name,kwargs", [("Rprop", dict()), ("ASGD", dict(t0=0)), ("Adafactor", dict()),
                                         ("SGD", dict(lr=0.1, momentum=0.9)), ("Adam", dict())])
def test_non_finite_gradients_are_applied_as_torch_applies_them(name, kwargs):
    """A NaN and an inf in every gradient of the second of three steps: NaN and inf land in the
    same places as in torch (Adafactor's norms spread a NaN over the whole parameter; Rprop's
    sign of NaN is 0, so its parameter stays finite), and the finite values agree."""
    import numpy as np

    import aakaar as ak
    from optim_helpers import make_params

    a, t = make_params("float64")
    ak_opt, t_opt = getattr(optim, name)(a, **kwargs), getattr(torch.optim, name)(t, **kwargs)
    rng = np.random.default_rng(0)
    for step in range(3):
        for pa, pt in zip(a, t):
            g = rng.standard_normal(tuple(pt.shape))
            if step == 1:
                g.reshape(-1)[0], g.reshape(-1)[-1] = np.nan, np.inf
            pa.grad, pt.grad = ak.from_numpy(g.copy()), torch.from_numpy(g.copy())
        ak_opt.step()
        t_opt.step()
    for pa, pt in zip(a, t):
        np.testing.assert_allclose(pa.detach().numpy(), pt.detach().numpy(), rtol=1e-10, atol=0, equal_nan=True)
        for key, value in t_opt.state[pt].items():
            if torch.is_tensor(value) and value.dim() > 0:
                np.testing.assert_allclose(ak_opt.state[pa][key].numpy(), value.numpy(), rtol=1e-10, atol=0,
                                           equal_nan=True, err_msg=key)
