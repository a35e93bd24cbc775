"""int8/int16/int32 and the 16-bit floats on "cuda" against the CPU.

The narrow integers run every elementwise kernel and reduction (AK_DISPATCH_ALL gives
them to the CUDA kernels as to the CPU's); float16/bfloat16 only move through copy,
fill, where, gather and scatter on the device (ops compute them in float32), so the
conversions between every pair of dtypes are checked bit for bit.
"""
from __future__ import annotations

import itertools

import numpy as np
import pytest
from cuda_suite_helpers import check, pair, sample

import aakaar

NARROW = [aakaar.int8, aakaar.int16, aakaar.int32]
ALL = [aakaar.bool, aakaar.uint8, aakaar.int8, aakaar.int16, aakaar.int32, aakaar.int64, aakaar.float16,
       aakaar.bfloat16, aakaar.float32, aakaar.float64]
OPS = ["a + b", "a - b", "a * b", "a // b", "a % b", "a / b", "aakaar.maximum(a, b)", "a < b", "a == b",
       "a * 100", "-a", "a.abs()", "a.clamp(-3, 5)", "a.square()", "aakaar.where(a > b, a, b)"]


@pytest.mark.parametrize("dtype", NARROW, ids=str)
@pytest.mark.parametrize("expr", OPS)
def test_narrow_integer_ops(rng, dtype, expr):
    x, y = sample(rng, (5, 67), dtype), sample(rng, (67,), dtype)
    y = np.where(y == 0, 3, y).astype(y.dtype)  # integer division by zero is refused
    (a, ca), (b, cb) = pair(x), pair(y)
    want = eval(expr, {"aakaar": aakaar, "a": a, "b": b})
    got = eval(expr, {"aakaar": aakaar, "a": ca, "b": cb})
    check(got, want)


@pytest.mark.parametrize("dtype", NARROW, ids=str)
@pytest.mark.parametrize("expr", ["a.sum()", "a.sum(1)", "a.max()", "a.min(0)[0]", "a.argmax(1)", "a.cumsum(1)",
                                  "a.prod(1)", "a.any()"])
def test_narrow_integer_reductions(rng, dtype, expr):
    a, ca = pair(sample(rng, (7, 301), dtype))
    check(eval(expr, {"a": ca}), eval(expr, {"a": a}))


@pytest.mark.parametrize("src,dst", list(itertools.product(ALL, ALL)), ids=str)
def test_conversions_between_every_pair(rng, src, dst):
    vals = np.array([0, 1, -1, 2.5, -3.75, 100.125, 0.1, 65000.0, 1e-6, 127.0, -128.0])
    if src == aakaar.uint8 or dst == aakaar.uint8:
        vals = np.abs(vals)
    if aakaar.int8 in (src, dst) or aakaar.uint8 in (src, dst):
        vals = vals[np.abs(vals) < 128]
    if aakaar.int16 in (src, dst):
        vals = vals[np.abs(vals) < 32768]
    a = aakaar.tensor(vals, dtype=aakaar.float64).to(src)
    want = a.to(dst)
    got = a.to("cuda").to(dst)
    assert got.dtype == dst
    np.testing.assert_array_equal(got.cpu().float().numpy(), want.float().numpy())


@pytest.mark.parametrize("dtype", NARROW + [aakaar.float16, aakaar.bfloat16], ids=str)
def test_fill_where_gather_scatter(rng, dtype):
    a = aakaar.tensor([[1, -2, 3, 4], [5, 6, -7, 8]], dtype=dtype)
    ca = a.to("cuda")
    check(aakaar.full((3, 5), 7, dtype=dtype, device="cuda"), aakaar.full((3, 5), 7, dtype=dtype))
    check(aakaar.where(ca > 2, ca, ca * 2), aakaar.where(a > 2, a, a * 2))
    idx = aakaar.tensor([[0, 0, 3], [2, 1, 1]])
    check(ca.gather(1, idx.to("cuda")), a.gather(1, idx))
    check(ca[:, idx[0].to("cuda")], a[:, idx[0]])
    check(ca.sum(), a.sum())
    if dtype in NARROW:  # scatter_add adds atomically in the dtype (8/16-bit ones through a word CAS)
        src = aakaar.tensor([[1, 2, 3], [4, 5, 6]], dtype=dtype)
        check(ca.scatter_add(1, idx.to("cuda"), src.to("cuda")), a.scatter_add(1, idx, src))
