"""LBFGS against torch.optim.LBFGS on the Rosenbrock function: every point at which the closure
is evaluated (iterates and line-search trials), with and without the strong-Wolfe line search,
float64 and float32; then PyTorch's errors and a state_dict round trip."""

from __future__ import annotations

import numpy as np
import pytest

import aakaar as ak
import aakaar.optim as optim
from aakaar.nn import Parameter
from optim_helpers import torch


def rosenbrock(x):
    """The chained Rosenbrock function sum (1 - x_i)^2 + 100 (x_{i+1} - x_i^2)^2 (minimum 0 at all ones)."""
    return ((1 - x[:-1]) ** 2).sum() + (100 * (x[1:] - x[:-1] ** 2) ** 2).sum()


def _trajectory(lib: str, x0: np.ndarray, kwargs: dict, steps: int):
    """The points the closure saw, the losses step() returned, and the optimizer."""
    if lib == "aakaar":
        x = Parameter(ak.from_numpy(x0.copy()))
        opt = optim.LBFGS([x], **kwargs)
    else:
        x = torch.from_numpy(x0.copy()).requires_grad_()
        opt = torch.optim.LBFGS([x], **kwargs)
    seen = []

    def closure():
        opt.zero_grad()
        seen.append(x.detach().numpy().copy())
        loss = rosenbrock(x)
        loss.backward()
        return loss

    losses = [float(opt.step(closure).item()) for _ in range(steps)]
    return np.array(seen), np.array(losses), opt


OPTIONS = [
    dict(line_search_fn="strong_wolfe"),
    dict(line_search_fn="strong_wolfe", history_size=3, max_iter=7),
    dict(line_search_fn="strong_wolfe", lr=0.5, max_eval=12, tolerance_grad=1e-5),
    dict(lr=0.1, max_iter=5),
    dict(lr=0.05, history_size=2, tolerance_change=1e-6),
]


# float32 gets 1e-4: the closure itself (the Rosenbrock function and its gradient, computed by
# each library) rounds differently now and then in float32 (about one value in 500), and the
# line search carries such a difference on; float64 agrees to 1e-10.
@pytest.mark.parametrize("dtype,tol", [("float64", 1e-10), ("float32", 1e-4)])
@pytest.mark.parametrize("kwargs", OPTIONS, ids=lambda kw: "-".join(f"{k}={v}" for k, v in kw.items()))
def test_rosenbrock_iterates_match_torch(kwargs, dtype, tol):
    x0 = np.array([-1.5, 2.0], dtype=dtype)
    a_pts, a_loss, a_opt = _trajectory("aakaar", x0, kwargs, 15)
    t_pts, t_loss, t_opt = _trajectory("torch", x0, kwargs, 15)
    assert a_pts.shape == t_pts.shape, f"{len(a_pts)} closure calls against torch's {len(t_pts)}"
    scale = np.maximum(np.abs(t_pts).max(axis=1), 1.0)
    err = float((np.abs(a_pts - t_pts).max(axis=1) / scale).max())
    assert err <= tol, f"iterates differ by {err:.3g} (relative) > {tol}"
    assert np.allclose(a_loss, t_loss, rtol=tol, atol=tol)
    a_state, t_state = a_opt.state[a_opt.param_groups[0]["params"][0]], t_opt.state[t_opt._params[0]]
    assert (a_state["func_evals"], a_state["n_iter"]) == (t_state["func_evals"], t_state["n_iter"])


def test_rosenbrock_in_ten_dimensions_over_two_parameters():
    """Ten dimensions split over two parameters (one of them strided): the first steps agree with torch
    (later ones differ by the rounding of dot products over ten numbers, amplified near the
    minimum), and both reach the minimum (the function below 1e-8)."""
    x0 = np.linspace(-1.0, 1.5, 10)
    kwargs = dict(line_search_fn="strong_wolfe", history_size=4)
    base = ak.from_numpy(np.stack([x0[4:], np.zeros(6)], axis=1).copy())
    a, b = Parameter(ak.from_numpy(x0[:4].copy())), Parameter(base[:, 0])  # b: stride 2
    assert not b.is_contiguous()
    ak_opt = optim.LBFGS([a, b], **kwargs)
    xt = torch.from_numpy(x0.copy()).requires_grad_()
    t_opt = torch.optim.LBFGS([xt], **kwargs)

    def ak_closure():
        ak_opt.zero_grad()
        loss = rosenbrock(ak.cat([a, b], 0))
        loss.backward()
        return loss

    def t_closure():
        t_opt.zero_grad()
        loss = rosenbrock(xt)
        loss.backward()
        return loss

    for step in range(12):
        ak_opt.step(ak_closure)
        t_opt.step(t_closure)
        x_ak = np.concatenate([a.detach().numpy(), b.detach().numpy()])
        if step < 2:
            assert np.abs(x_ak - xt.detach().numpy()).max() < 1e-7
    assert rosenbrock(x_ak) < 1e-8 and rosenbrock(xt.detach().numpy()) < 1e-8  # both at the minimum


def test_errors_are_torchs():
    p = Parameter(ak.ones(2))
    with pytest.raises(ValueError, match="Invalid learning rate"):
        optim.LBFGS([p], lr=-1.0)
    with pytest.raises(ValueError, match="doesn't support per-parameter options"):
        optim.LBFGS([{"params": [p]}, {"params": [Parameter(ak.ones(2))]}])
    opt = optim.LBFGS([p])
    with pytest.raises(ValueError, match="doesn't support per-parameter options"):
        opt.add_param_group({"params": [Parameter(ak.ones(2))]})
    with pytest.raises(TypeError, match="closure"):
        opt.step()

    def closure():
        opt.zero_grad()
        loss = (p * p).sum()
        loss.backward()
        return loss

    bad = optim.LBFGS([p], line_search_fn="backtracking")
    with pytest.raises(RuntimeError, match="only 'strong_wolfe' is supported"):
        bad.step(closure)
    assert optim.LBFGS([p], max_iter=8).param_groups[0]["max_eval"] == 10  # max_iter * 5 // 4, as torch


def test_state_dict_round_trip_resumes_identically():
    x0 = np.array([-1.5, 2.0])
    kwargs = dict(line_search_fn="strong_wolfe", max_iter=3)

    def make(values):
        x = Parameter(ak.from_numpy(values.copy()))
        opt = optim.LBFGS([x], **kwargs)

        def closure():
            opt.zero_grad()
            loss = rosenbrock(x)
            loss.backward()
            return loss
        return x, opt, closure

    x, opt, closure = make(x0)
    for _ in range(3):
        opt.step(closure)
    saved_x, saved = x.detach().numpy().copy(), opt.state_dict()
    x2, opt2, closure2 = make(saved_x)
    opt2.load_state_dict(saved)
    for _ in range(3):
        opt.step(closure)
        opt2.step(closure2)
    assert np.array_equal(x.detach().numpy(), x2.detach().numpy())
