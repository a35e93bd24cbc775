"""torch's ``out=`` on the top-level functions (aakaar/out_arg.py), against torch: the written
tensor is returned, resized to the result, and the dtype rules (castable, exact, bool, long) and
their exception classes are torch's."""

from __future__ import annotations

import math
import warnings

import pytest
import torch

import aakaar as ak

from torch_parity_helpers import pair, raises_like, same

CALLS = {
    "exp": lambda m, x, y, o: m.exp(x, out=o),
    "add": lambda m, x, y, o: m.add(x, y, alpha=2, out=o),
    "mul_scalar": lambda m, x, y, o: m.mul(x, 3, out=o),
    "div": lambda m, x, y, o: m.div(x, y, out=o),
    "abs": lambda m, x, y, o: m.abs(x, out=o),
    "floor": lambda m, x, y, o: m.floor(x, out=o),
    "eq": lambda m, x, y, o: m.eq(x, y, out=o),
    "clamp": lambda m, x, y, o: m.clamp(x, -1, 1, out=o),
    "clamp_tensor": lambda m, x, y, o: m.clamp(x, min=y, out=o),
    "where": lambda m, x, y, o: m.where(x > 0, x, y, out=o),
    "sum_dim": lambda m, x, y, o: m.sum(x, 1, out=o),
    "mean_dim": lambda m, x, y, o: m.mean(x, 0, keepdim=True, out=o),
    "amax": lambda m, x, y, o: m.amax(x, 1, out=o),
    "cumsum": lambda m, x, y, o: m.cumsum(x, 1, out=o),
    "cat": lambda m, x, y, o: m.cat([x, y], out=o),
    "stack": lambda m, x, y, o: m.stack([x, y], 1, out=o),
    "matmul": lambda m, x, y, o: m.matmul(x, y.mT, out=o),
    "tril": lambda m, x, y, o: m.tril(x, out=o),
    "argmax": lambda m, x, y, o: m.argmax(x, 1, out=o),
    "isposinf": lambda m, x, y, o: m.isposinf(x, out=o),
}


@pytest.mark.parametrize("call", sorted(CALLS))
@pytest.mark.parametrize("out_dtype", ["float32", "float64", "int64", "bool"])
@pytest.mark.parametrize("out_shape", [(0,), (3, 4), (7,)])
def test_out_writes_resizes_and_checks_dtype_as_torch(call, out_dtype, out_shape):
    a, t = pair("float32", (3, 4))
    b, u = a * 0.5 + 1, t * 0.5 + 1
    ak_out = ak.zeros(out_shape, dtype=getattr(ak, out_dtype))
    torch_out = torch.zeros(out_shape, dtype=getattr(torch, out_dtype))
    try:
        want, torch_warned = _resize_warned(lambda: CALLS[call](torch, t, u, torch_out))
    except Exception:  # noqa: BLE001
        raises_like(lambda: CALLS[call](ak, a, b, ak_out), lambda: CALLS[call](torch, t, u, torch_out))
        return
    got, ak_warned = _resize_warned(lambda: CALLS[call](ak, a, b, ak_out))
    assert got is ak_out and want is torch_out
    same(ak_out, torch_out)
    assert ak_warned == torch_warned, "resizing a non-empty out warns exactly when torch's does"


def _resize_warned(fn):
    """fn()'s result, and whether it warned that it resized its output (as torch does for a
    non-empty out of another shape)."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        result = fn()
    return result, any("resized" in str(w.message) for w in caught)


@pytest.mark.parametrize("name,args", [("max", (1,)), ("min", (0, True)), ("sort", (1,)), ("topk", (2,)),
                                       ("cummax", (1,)), ("kthvalue", (2, 0))])
def test_out_tuple_of_values_and_indices(name, args):
    a, t = pair("float32", (3, 4))
    outs_ak = (ak.empty(0), ak.empty(0, dtype=ak.int64))
    outs_t = (torch.empty(0), torch.empty(0, dtype=torch.int64))
    r_ak = getattr(ak, name)(a, *args, out=outs_ak)
    r_t = getattr(torch, name)(t, *args, out=outs_t)
    assert r_ak[0] is outs_ak[0] and r_ak[1] is outs_ak[1]
    same(list(outs_ak), list(r_t))


def test_out_aliasing_an_input_and_non_contiguous_out():
    a, t = pair("float32", (3, 4))
    ak.add(a, 1, out=a)
    torch.add(t, 1, out=t)
    same(a, t)
    oa, ot = ak.zeros(4, 3).mT, torch.zeros(4, 3).mT
    ak.mul(a, 2, out=oa)
    torch.mul(t, 2, out=ot)
    same(oa, ot)


def test_out_refuses_arguments_that_require_grad():
    a = ak.ones(3, requires_grad=True)
    t = torch.ones(3, requires_grad=True)
    with pytest.raises(RuntimeError, match="out="):
        torch.exp(t, out=torch.empty(3))
    with pytest.raises(RuntimeError, match="out="):
        ak.exp(a, out=ak.empty(3))
    with ak.no_grad():
        assert ak.exp(a, out=ak.empty(3)).tolist() == pytest.approx([math.e] * 3)


def test_out_must_be_a_tensor():
    with pytest.raises(TypeError):
        torch.exp(torch.ones(2), out=[1.0])
    with pytest.raises(TypeError):
        ak.exp(ak.ones(2), out=[1.0])
