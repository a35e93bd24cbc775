"""Helpers of the 16-bit optimizer tests (tests/optim/test_optimizer_16bit.py): the same float16 or
bfloat16 parameters and gradients in aakaar and torch, torch's own 16-bit step, and a torch reference
that follows aakaar's rule for 16-bit floats (float32 arithmetic, one rounding per step).

(Not named conftest.py, so that it never shadows another folder's conftest module.)
"""

from __future__ import annotations

import numpy as np
import pytest

import aakaar as ak
from aakaar.nn import Parameter

torch = pytest.importorskip("torch")

SHAPES = [(7, 5), (13,), (4, 3, 2), (1,), (40,)]  # (40,): longer than any SIMD block of 16-bit lanes
DTYPES = {"bfloat16": (ak.bfloat16, torch.bfloat16), "float16": (ak.float16, torch.float16)}
# The distance between 1 and the next number (torch.finfo(dtype).eps), and the smallest positive one:
# an ulp of a 16-bit value r is at most eps * |r| (or `tiny`, among the subnormals).
EPS = {"bfloat16": 2.0 ** -7, "float16": 2.0 ** -10}
TINY = {"bfloat16": 2.0 ** -133, "float16": 2.0 ** -24}
# torch.optim's CPU fused kernels (torch.optim.optimizer._get_fused_kernels_supported_devices has "cpu").
TORCH_FUSED = {"SGD", "Adam", "AdamW", "Adagrad"}


def as_f64(x) -> np.ndarray:
    """A tensor of either library (any float dtype) as a float64 numpy array."""
    return np.asarray(x.detach().float().numpy(), dtype=np.float64)


def make_params(dtype: str, seed: int = 0, shapes=SHAPES):
    """Equal leaf parameters of `dtype` in both libraries: float32 draws rounded to the 16-bit dtype
    (both round to nearest even, so the two start from the same bits)."""
    ak_dt, t_dt = DTYPES[dtype]
    rng = np.random.default_rng(seed)
    data = [rng.standard_normal(s).astype(np.float32) for s in shapes]
    return ([Parameter(ak.from_numpy(d.copy()).to(ak_dt)) for d in data],
            [torch.from_numpy(d.copy()).to(t_dt).requires_grad_() for d in data])


def grads_of(shapes, steps: int, seed: int = 1) -> list[list[np.ndarray]]:
    rng = np.random.default_rng(seed)
    return [[rng.standard_normal(s).astype(np.float32) for s in shapes] for _ in range(steps)]


class Float32Reference:
    """torch.optim run by aakaar's rule for 16-bit floats: the optimizer steps float32 images of the
    16-bit parameters, gradients and state, and after each step its parameters and state tensors are
    rounded to the 16-bit dtype (the counters -- step, mu_product, eta, mu -- stay float32, as torch
    keeps them). So every step loads 16-bit values, computes in float32 and rounds once."""

    def __init__(self, cls, kwargs: dict, ak_params, dtype: str) -> None:
        self.t_dtype = DTYPES[dtype][1]
        self.params = [torch.from_numpy(as_f64(p).astype(np.float32)).requires_grad_() for p in ak_params]
        self.opt = cls(self.params, **kwargs)

    def step(self, grads: list) -> None:
        for p, g in zip(self.params, grads):
            p.grad = None if g is None else torch.from_numpy(g).to(self.t_dtype).float()
        self.opt.step()
        with torch.no_grad():
            for p in self.params:
                p.copy_(p.to(self.t_dtype).float())
                for value in self.opt.state[p].values():
                    if torch.is_tensor(value) and value.dim() > 0:
                        value.copy_(value.to(self.t_dtype).float())


def run_all(name: str, kwargs: dict, dtype: str, impl: str, steps: int = 50, torch_kwargs: dict | None = None):
    """`steps` steps of aakaar's optimizer, torch's in the 16-bit dtype (impl: "default", "foreach" or
    "fused", passed to both) and the Float32Reference, on the same gradients.
    Returns (ak_opt, ak_params, t_opt, t_params, ref)."""
    import aakaar.optim as optim
    ak_dt, t_dt = DTYPES[dtype]
    flag = {} if impl == "default" else {impl: True}
    ak_params, t_params = make_params(dtype)
    ak_opt = getattr(optim, name)(ak_params, **kwargs, **flag)
    t_opt = getattr(torch.optim, name)(t_params, **kwargs, **(flag if torch_kwargs is None else torch_kwargs))
    ref = Float32Reference(getattr(torch.optim, name), kwargs, ak_params, dtype)
    for grads in grads_of([tuple(p.shape) for p in t_params], steps):
        for a, t, g in zip(ak_params, t_params, grads):
            a.grad = ak.from_numpy(g.copy()).to(ak_dt)
            t.grad = torch.from_numpy(g.copy()).to(t_dt)
        ak_opt.step()
        t_opt.step()
        ref.step(grads)
    return ak_opt, ak_params, t_opt, t_params, ref


def rel_err(a, t) -> float:
    """max |a - t| / max |t| over a tensor, in float64."""
    a, t = (x if isinstance(x, np.ndarray) else as_f64(x) for x in (a, t))
    assert a.shape == t.shape
    return float(np.max(np.abs(a - t)) / max(np.max(np.abs(t)), 1e-30))


def ulp_report(a, r, dtype: str) -> tuple[float, float]:
    """(max |a - r| in units of eps * max |r| -- an ulp at the tensor's largest magnitude --, the share
    of elements that are not bit-identical)."""
    a, r = as_f64(a), as_f64(r)
    assert a.shape == r.shape
    unit = max(EPS[dtype] * float(np.max(np.abs(r))), TINY[dtype])
    return float(np.max(np.abs(a - r)) / unit), float(np.mean(a != r))
