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


