"""Helpers shared by the nn tests: torch as the reference, weights copied across through numpy.

(Not named conftest.py: two test folders importing a module called "conftest" by name, and two modules
named conftest would shadow each other in one pytest run.)
"""

from __future__ import annotations

import numpy as np
import pytest

import aakaar as ak

torch = pytest.importorskip("torch")


def to_ak(t) -> "ak.Tensor":
    """An aakaar copy of a torch tensor (through numpy, so the two never share memory)."""
    return ak.from_numpy(t.detach().numpy().copy())


def to_np(t) -> np.ndarray:
    return np.array(t.detach().numpy(), copy=True)


def copy_weights(ak_module, torch_module) -> None:
    """Loads torch_module's state_dict into ak_module (strict: the key names must agree too)."""
    ak_module.load_state_dict({k: to_ak(v) for k, v in torch_module.state_dict().items()})


def assert_close(got, ref, rtol: float, atol: float = 0.0, what: str = "") -> None:
    got = to_np(got) if not isinstance(got, np.ndarray) else got
    ref = to_np(ref) if not isinstance(ref, np.ndarray) else ref
    assert got.shape == ref.shape, f"{what}: shape {got.shape} != reference {ref.shape}"
    np.testing.assert_allclose(got, ref, rtol=rtol, atol=atol, err_msg=what)




def run_against_torch(fn_ak, fn_torch, shapes, dtype, rtol: float, atol: float, seed: int = 0,
                      relative_atol: bool = False) -> None:
    """fn_ak and fn_torch on the same random inputs (one per shape; None passes None): the values,
    the int64 indices when the functions return (values, indices), and every input's gradient for
    a random output gradient agree. relative_atol scales atol by the largest magnitude compared
    (float32 sums of many products)."""
    import torch

    rng = np.random.default_rng(seed)
    ts = [None if s is None else torch.tensor(rng.standard_normal(s), dtype=dtype, requires_grad=True)
          for s in shapes]
    ref = fn_torch(*ts)
    As = [None if t is None else to_ak(t).requires_grad_() for t in ts]
    out = fn_ak(*As)
    if isinstance(ref, tuple):
        assert_close(out[1], ref[1], 0, 0, "indices")
        ref, out = ref[0], out[0]

    def tol(t) -> float:
        return atol * max(1.0, float(t.detach().abs().max())) if relative_atol and t.numel() else atol

    assert_close(out, ref, rtol, tol(ref), "value")
    g = torch.tensor(rng.standard_normal(tuple(ref.shape)), dtype=dtype)
    ref.backward(g)
    out.backward(to_ak(g))
    for k, (a, t) in enumerate(zip(As, ts)):
        if t is not None:
            assert_close(a.grad, t.grad, rtol, tol(t.grad), f"grad of input {k}")
