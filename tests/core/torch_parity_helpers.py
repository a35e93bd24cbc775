"""Helpers of the edge-case parity tests against torch: matching inputs in both libraries, and
comparisons of results (dtype, shape, NaN-aware values) and of refusals (torch's exception class)."""

from __future__ import annotations

import math

import pytest
import torch

import aakaar as ak

DTYPES = ["bool", "uint8", "int8", "int16", "int32", "int64", "float16", "bfloat16", "float32", "float64"]


def values(dtype, n):
    if dtype == "bool":
        return [i % 3 != 1 for i in range(n)]
    if dtype == "uint8":
        return [(i * 3) % 7 for i in range(n)]
    if dtype.startswith(("float", "bfloat")):
        base = [-2.5, 1.0, 0.5, 0.0, 3.75, -1.0, 2.0, -0.25, 1.5, float("nan"), -3.0, float("inf")]
        return [base[i % len(base)] for i in range(n)]
    return [((i * 5) % 9) - 4 for i in range(n)]


def pair(dtype, shape):
    n = math.prod(shape)
    v = values(dtype, n)
    a = ak.tensor(v, dtype=getattr(ak, dtype)).reshape(shape)
    t = torch.tensor(v, dtype=getattr(torch, dtype)).reshape(shape)
    return a, t


def same(a, t, tol=None):
    if isinstance(t, (tuple, list)):
        assert len(a) == len(t)
        for x, y in zip(a, t):
            same(x, y, tol)
        return
    assert str(a.dtype).split(".")[-1] == str(t.dtype).split(".")[-1], (a.dtype, t.dtype)
    assert tuple(a.shape) == tuple(t.shape)
    if t.dtype.is_floating_point:
        tol = tol or {torch.float16: 2e-3, torch.bfloat16: 1.6e-2}.get(t.dtype, 1e-5)
        x = torch.tensor(a.double().reshape(-1).tolist(), dtype=torch.float64)
        assert torch.allclose(x, t.double().reshape(-1), rtol=tol, atol=tol, equal_nan=True), (x, t)
    else:
        assert a.reshape(-1).tolist() == t.reshape(-1).tolist()


def raises_like(fa, ft):
    with pytest.raises(Exception) as te:
        ft()
    cls = next(c for c in (IndexError, TypeError, ValueError, RuntimeError) if isinstance(te.value, c))
    with pytest.raises(cls):
        fa()


def same_or_raises_like(fa, ft):
    """fa() gives ft()'s result, or, where torch raises, raises the same class."""
    try:
        want = ft()
    except Exception:  # noqa: BLE001
        raises_like(fa, ft)
        return
    same(fa(), want)
