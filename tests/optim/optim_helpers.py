"""Helpers of the optimizer tests: the same parameters and gradients in aakaar and torch.

(Not named conftest.py, so that it never shadows another folder's conftest module.)
"""

from __future__ import annotations

import numpy as np
import pytest

import aakaar as ak
from aakaar.nn import Parameter

torch = pytest.importorskip("torch")

SHAPES = [(7, 5), (13,), (4, 3, 2), (1,)]
DTYPES = {"float32": (ak.float32, torch.float32, np.float32), "float64": (ak.float64, torch.float64, np.float64)}
# float64 runs agree to 1e-10 relative, float32 to 1e-5 (the acceptance bounds).
TOLERANCE = {"float32": 1e-5, "float64": 1e-10}


def make_params(dtype: str, contiguous: bool = True, seed: int = 0):
    """Equal leaf parameters for both libraries; with contiguous=False every one of rank 2 or more is a
    transposed view (strides reversed), and every 1-D one a stride-2 slice."""
    ak_dt, t_dt, np_dt = DTYPES[dtype]
    rng = np.random.default_rng(seed)
    ak_params, t_params = [], []
    for shape in SHAPES:
        if contiguous:
            data = rng.standard_normal(shape).astype(np_dt)
            ak_params.append(Parameter(ak.from_numpy(data.copy())))
            t_params.append(torch.from_numpy(data.copy()).requires_grad_())
        elif len(shape) >= 2:
            data = rng.standard_normal(shape[::-1]).astype(np_dt)
            perm = list(range(len(shape)))[::-1]
            ak_params.append(Parameter(ak.from_numpy(data.copy()).permute(*perm)))
            t_params.append(torch.from_numpy(data.copy()).permute(*perm).detach().requires_grad_())
        else:
            data = rng.standard_normal((shape[0] * 2,)).astype(np_dt)
            ak_params.append(Parameter(ak.from_numpy(data.copy())[::2]))
            t_params.append(torch.from_numpy(data.copy())[::2].detach().requires_grad_())
    if not contiguous:
        assert not any(p.is_contiguous() for p in ak_params if p.numel() > 1)
    return ak_params, t_params


def set_grads(ak_params, t_params, rng: np.random.Generator, dtype: str, scale: float = 1.0) -> None:
    np_dt = DTYPES[dtype][2]
    for a, t in zip(ak_params, t_params):
        g = (rng.standard_normal(tuple(t.shape)) * scale).astype(np_dt)
        a.grad = ak.from_numpy(g.copy())
        t.grad = torch.from_numpy(g.copy())


def rel_err(a, t) -> float:
    a = np.asarray(a.detach().numpy() if hasattr(a, "detach") else a, dtype=np.float64)
    t = np.asarray(t.detach().numpy() if hasattr(t, "detach") else t, dtype=np.float64)
    assert a.shape == t.shape
    return float(np.max(np.abs(a - t)) / max(np.max(np.abs(t)), 1e-30))


def run_both(ak_cls, t_cls, kwargs: dict, dtype: str, contiguous: bool = True, steps: int = 200,
             grad_scale: float = 1.0):
    """Trains both optimizers `steps` steps on the same gradients; returns (ak_opt, ak_params, t_opt, t_params)."""
    ak_params, t_params = make_params(dtype, contiguous)
    ak_opt, t_opt = ak_cls(ak_params, **kwargs), t_cls(t_params, **kwargs)
    rng = np.random.default_rng(1)
    for _ in range(steps):
        set_grads(ak_params, t_params, rng, dtype, grad_scale)
        ak_opt.step()
        t_opt.step()
    return ak_opt, ak_params, t_opt, t_params


def assert_close(ak_opt, ak_params, t_opt, t_params, dtype: str) -> None:
    tol = TOLERANCE[dtype]
    for i, (a, t) in enumerate(zip(ak_params, t_params)):
        err = rel_err(a, t)
        assert err <= tol, f"parameter {i}: relative error {err:.3g} > {tol}"
        ts, as_ = t_opt.state[t], ak_opt.state[a]
        for key, value in ts.items():
            if not torch.is_tensor(value):
                continue
            assert key in as_, f"state {key!r} missing in aakaar"
            if value.dim() == 0:
                assert float(as_[key].item()) == pytest.approx(float(value.item()), rel=tol), key
            else:
                err = rel_err(as_[key], value)
                assert err <= tol, f"parameter {i} state {key!r}: relative error {err:.3g} > {tol}"
