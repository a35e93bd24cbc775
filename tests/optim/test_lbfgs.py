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


def rosenbrock_numpy(x: np.ndarray) -> tuple[float, np.ndarray]:
    """The 2-D Rosenbrock function and its gradient, in float64."""
    x = x.astype(np.float64)
    f = (1 - x[0]) ** 2 + 100 * (x[1] - x[0] ** 2) ** 2
    g = np.array([-2 * (1 - x[0]) - 400 * x[0] * (x[1] - x[0] ** 2), 200 * (x[1] - x[0] ** 2)])
    return f, g


def _trajectory(lib: str, x0: np.ndarray, kwargs: dict, steps: int, shared_closure: bool = False):
    """The points the closure saw, the losses step() returned, and the optimizer. With shared_closure
    the loss and gradient come from numpy in float64, rounded to x's dtype, so that both libraries'
    optimizers see bit-identical values; otherwise each library computes them with its own autograd."""
    lib_ = ak if lib == "aakaar" else torch
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
        if shared_closure:
            f, g = rosenbrock_numpy(seen[-1])
            x.grad = lib_.from_numpy(g.astype(x0.dtype))
            return lib_.from_numpy(np.array(f, dtype=x0.dtype))
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


# In float64 each library computes the closure with its own autograd, and they agree to 1e-10. In
# float32 the two closures round differently now and then (about one value in 500; which ones
# depends on the CPU's vector width), and a strong-Wolfe line search can take another branch on
# such a difference: so float32 gives both optimizers the same closure values (numpy's, rounded to
# float32), which tests the optimizers' own float32 arithmetic; it agrees to 1e-4.
@pytest.mark.parametrize("dtype,tol", [("float64", 1e-10), ("float32", 1e-4)])
@pytest.mark.parametrize("kwargs", OPTIONS, ids=lambda kw: "-".join(f"{k}={v}" for k, v in kw.items()))
def test_rosenbrock_iterates_match_torch(kwargs, dtype, tol):
    x0 = np.array([-1.5, 2.0], dtype=dtype)
    shared = dtype == "float32"
    a_pts, a_loss, a_opt = _trajectory("aakaar", x0, kwargs, 15, shared_closure=shared)
    t_pts, t_loss, t_opt = _trajectory("torch", x0, kwargs, 15, shared_closure=shared)
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
