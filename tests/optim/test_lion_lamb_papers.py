"""Lion and LAMB (not in torch.optim) against numpy transcriptions of their papers, written here
line for line from the papers' pseudo-code: 200 steps on the same gradients, float32 and float64,
contiguous and strided parameters, every option; parameters and state agree to 1e-5 (float32)
and 1e-10 (float64) relative."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

import aakaar as ak
import aakaar.optim as optim
from aakaar.nn import Parameter
from optim_helpers import DTYPES, TOLERANCE, make_params, rel_err


def lion_reference(w, g, m, lr, beta1, beta2, wd):
    """Chen et al. 2023, "Symbolic Discovery of Optimization Algorithms", Program 1 / Algorithm 2:
    update = sign(beta1 * m + (1 - beta1) * g); update += wd * w; w -= lr * update;
    m = beta2 * m + (1 - beta2) * g."""
    c = beta1 * m + (1 - beta1) * g
    update = np.sign(c)
    update = update + wd * w
    w = w - lr * update
    m = beta2 * m + (1 - beta2) * g
    return w, m


def lamb_reference(w, g, m, v, t, lr, beta1, beta2, eps, wd):
    """You et al. 2020, "Large Batch Optimization for Training Deep Learning: Training BERT in
    76 minutes", Algorithm 2 (with bias correction, phi the identity): m and v as Adam's;
    r = m_hat / (sqrt(v_hat) + eps); the layer's step is lr * ||w|| / ||r + wd w|| * (r + wd w),
    with the trust ratio 1 when either norm is 0."""
    m = beta1 * m + (1 - beta1) * g
    v = beta2 * v + (1 - beta2) * g * g
    m_hat = m / (1 - beta1 ** t)
    v_hat = v / (1 - beta2 ** t)
    r = m_hat / (np.sqrt(v_hat) + eps)
    u = r + wd * w
    w_norm = np.sqrt(np.sum(w.astype(np.float64) ** 2))
    u_norm = np.sqrt(np.sum(u.astype(np.float64) ** 2))
    trust = w_norm / u_norm if w_norm > 0 and u_norm > 0 else 1.0
    w = w - (lr * trust) * u
    return w, m, v


def _run(name, kwargs, dtype, contiguous, steps=200):
    """aakaar's optimizer and the reference on the same gradients; returns the largest relative
    errors of the parameters and of each state tensor."""
    np_dt = DTYPES[dtype][2]
    params, _ = make_params(dtype, contiguous)
    opt = getattr(optim, name)(params, **kwargs)
    ref = [p.detach().numpy().copy() for p in params]
    m = [np.zeros_like(r) for r in ref]
    v = [np.zeros_like(r) for r in ref]
    rng = np.random.default_rng(1)
    sign = -1 if kwargs.get("maximize") else 1
    beta1, beta2 = kwargs.get("betas", (0.9, 0.99) if name == "Lion" else (0.9, 0.999))
    for t in range(1, steps + 1):
        for i, p in enumerate(params):
            g = rng.standard_normal(tuple(p.shape)).astype(np_dt)
            p.grad = ak.from_numpy(g.copy())
            g = sign * g
            if name == "Lion":
                ref[i], m[i] = lion_reference(ref[i], g, m[i], kwargs.get("lr", 1e-4), beta1, beta2,
                                              kwargs.get("weight_decay", 0.0))
            else:
                ref[i], m[i], v[i] = lamb_reference(ref[i], g, m[i], v[i], t, kwargs.get("lr", 1e-3), beta1, beta2,
                                                    kwargs.get("eps", 1e-6), kwargs.get("weight_decay", 0.0))
        opt.step()
    errors = {"param": max(rel_err(p, r) for p, r in zip(params, ref)),
              "exp_avg": max(rel_err(opt.state[p]["exp_avg"], mi) for p, mi in zip(params, m))}
    if name == "LAMB":
        errors["exp_avg_sq"] = max(rel_err(opt.state[p]["exp_avg_sq"], vi) for p, vi in zip(params, v))
        assert all(float(opt.state[p]["step"].item()) == steps for p in params)
    return errors


def _grid(**options):
    return [dict(zip(options, values)) for values in itertools.product(*options.values())]


# Lion's lr is 1e-3 here (10x the default) so that 200 sign steps move the parameters visibly.
LION = _grid(lr=[1e-3], betas=[(0.9, 0.99), (0.95, 0.98)], weight_decay=[0.0, 0.1], maximize=[False, True])
LAMB = _grid(lr=[1e-2], betas=[(0.9, 0.999)], eps=[1e-6], weight_decay=[0.0, 0.01], maximize=[False, True])
CASES = ([pytest.param("Lion", kw, id="Lion-" + "-".join(f"{k}={v}" for k, v in kw.items())) for kw in LION]
         + [pytest.param("LAMB", kw, id="LAMB-" + "-".join(f"{k}={v}" for k, v in kw.items())) for kw in LAMB])


@pytest.mark.parametrize("contiguous", [True, False], ids=["contiguous", "strided"])
@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("name,kwargs", CASES)
def test_matches_the_papers_numpy_transcription_over_200_steps(name, kwargs, dtype, contiguous):
    tol = TOLERANCE[dtype]
    for what, err in _run(name, kwargs, dtype, contiguous).items():
        assert err <= tol, f"{what}: relative error {err:.3g} > {tol}"


@pytest.mark.parametrize("name", ["Lion", "LAMB"])
def test_defaults_are_the_papers(name):
    opt = getattr(optim, name)([Parameter(ak.ones(2))])
    group = opt.param_groups[0]
    if name == "Lion":
        assert (group["lr"], group["betas"], group["weight_decay"]) == (1e-4, (0.9, 0.99), 0)
    else:
        assert (group["lr"], group["betas"], group["eps"], group["weight_decay"]) == (1e-3, (0.9, 0.999), 1e-6, 0)
    errors = _run(name, {}, "float64", True, steps=20)  # the defaults themselves, against the reference
    assert max(errors.values()) <= TOLERANCE["float64"]


def test_lamb_trust_ratio_is_one_for_a_zero_parameter():
    """A zero parameter has ||w|| = 0: the paper's convention keeps the plain Adam-like step
    (trust ratio 1) instead of a step of zero that would leave it at zero for ever."""
    p = Parameter(ak.zeros(4, dtype=ak.float64))
    opt = optim.LAMB([p], lr=0.1)
    p.grad = ak.from_numpy(np.array([1.0, -2.0, 0.5, 0.0]))
    opt.step()
    # step 1: m_hat = g, v_hat = g^2, r = g / (|g| + eps): about sign(g)
    expected = -0.1 * np.array([1.0, -2.0, 0.5, 0.0]) / (np.abs([1.0, -2.0, 0.5, 0.0]) + 1e-6)
    assert np.allclose(p.detach().numpy(), expected, rtol=1e-12, atol=0)


def test_lion_moves_every_element_by_lr():
    """Lion's step is a sign: every element with a nonzero gradient moves by exactly lr."""
    p = Parameter(ak.zeros(3, dtype=ak.float64))
    opt = optim.Lion([p], lr=0.5)
    p.grad = ak.from_numpy(np.array([1e-9, -3.0, 0.0]))
    opt.step()
    assert p.detach().numpy().tolist() == [-0.5, 0.5, 0.0]


def test_threaded_lamb_over_large_parameters_matches_the_paper():
    """Above the kernel's size threshold LAMB's parameters are shared among threads: same answer."""
    rng = np.random.default_rng(0)
    shapes = [(600, 500), (70_001,), (3,)]
    ref = [rng.standard_normal(s) for s in shapes]
    threads = ak.get_num_threads()
    ak.set_num_threads(2)
    try:
        params = [Parameter(ak.from_numpy(r.copy())) for r in ref]
        opt = optim.LAMB(params, lr=1e-2, weight_decay=0.01)
        m = [np.zeros_like(r) for r in ref]
        v = [np.zeros_like(r) for r in ref]
        for t in range(1, 6):
            for i, p in enumerate(params):
                g = rng.standard_normal(shapes[i])
                p.grad = ak.from_numpy(g.copy())
                ref[i], m[i], v[i] = lamb_reference(ref[i], g, m[i], v[i], t, 1e-2, 0.9, 0.999, 1e-6, 0.01)
            opt.step()
    finally:
        ak.set_num_threads(threads)
    assert max(rel_err(p, r) for p, r in zip(params, ref)) <= TOLERANCE["float64"]
