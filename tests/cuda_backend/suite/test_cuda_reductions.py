"""Reductions, arg-max/min, softmax and cumsum on "cuda" against the CPU.

The shapes cover all three kernel paths: one thread per row (short rows, or rows
interleaved in memory), one block per row, and rows split over several blocks with a
second pass (few long rows, e.g. a full reduction).
"""
from __future__ import annotations

import numpy as np
import pytest
from cuda_suite_helpers import DTYPES, FLOATS, check, pair, sample

import aakaar

SHAPES_DIMS = [
    ((37, 5), (1,)),          # short rows: a thread each
    ((6, 1000), (1,)),        # long contiguous rows: a block each
    ((1000, 6), (0,)),        # reduce a leading dim: interleaved rows
    ((70_001,), None),        # everything: rows split over blocks + second pass
    ((3, 40, 129), (0, 2)),   # two non-adjacent dims
    ((4, 0, 3), (1,)),        # empty reduction -> identity
    ((0, 7), (1,)),           # no rows
]


@pytest.mark.parametrize("shape,dims", SHAPES_DIMS, ids=str)
@pytest.mark.parametrize("op", ["sum", "prod", "amax", "amin", "all", "any"])
@pytest.mark.parametrize("dtype", DTYPES, ids=str)
def test_reduce(rng, op, dtype, shape, dims):
    arr = sample(rng, shape, dtype)
    if op == "prod" and dtype.is_floating_point:
        arr = (1 + arr / 1000).astype(arr.dtype)  # keep products of thousands of terms finite
    if op in {"amax", "amin"} and np.prod([shape[d] for d in (dims or range(len(shape)))]) == 0:
        pytest.skip("max/min of an empty reduction raises (on every device)")
    cpu, dev = pair(arr)
    f = lambda t: getattr(t, op)(dim=dims) if dims is not None else getattr(t, op)()  # noqa: E731
    rtol = {aakaar.float32: 2e-5, aakaar.float64: 1e-12}.get(dtype, 0)
    scale = float(np.abs(arr.astype(np.float64)).sum()) if arr.size else 0.0
    atol = rtol * max(scale, 1.0) if op == "sum" else rtol  # the summation order differs from the CPU's
    if op == "prod" and dtype.is_floating_point:
        # Each of the n - 1 multiplications rounds, in a different order on each device:
        # the rounding errors add up like a random walk, about sqrt(n) * eps.
        n_terms = int(np.prod([shape[d] for d in (dims or range(len(shape)))]))
        rtol = atol = max(rtol, 10 * np.sqrt(n_terms) * np.finfo(arr.dtype).eps)
    check(f(dev), f(cpu), rtol=rtol, atol=atol)


@pytest.mark.parametrize("keepdim", [False, True])
def test_reduce_strided_and_keepdim(rng, keepdim):
    cpu, dev = pair(sample(rng, (50, 80, 3), aakaar.float64))
    v_cpu, v_dev = cpu.permute(2, 0, 1)[:, ::2], dev.permute(2, 0, 1)[:, ::2]
    for dims in [(1,), (2,), (0, 2), (1, 2)]:
        check(v_dev.sum(dim=dims, keepdim=keepdim), v_cpu.sum(dim=dims, keepdim=keepdim), rtol=1e-12, atol=1e-12)
        check(v_dev.amax(dim=dims, keepdim=keepdim), v_cpu.amax(dim=dims, keepdim=keepdim), rtol=0, atol=0)


def test_nan_propagates_through_max_min():
    arr = np.arange(5000, dtype=np.float32).reshape(2, 2500)
    arr[0, 1777] = np.nan
    cpu, dev = pair(arr)
    for op in ("amax", "amin"):
        check(getattr(dev, op)(dim=1), getattr(cpu, op)(dim=1), rtol=0, atol=0)
        check(getattr(dev, op)(), getattr(cpu, op)(), rtol=0, atol=0)


def test_composites_mean_var(rng):
    cpu, dev = pair(sample(rng, (9, 301), aakaar.float32))
    check(dev.mean(dim=1), cpu.mean(dim=1), rtol=1e-5, atol=1e-6)
    check(dev.var(dim=0), cpu.var(dim=0), rtol=1e-5, atol=1e-6)
    check(dev.std(), cpu.std(), rtol=1e-5, atol=1e-6)


def test_logsumexp(rng):
    cpu, dev = pair(sample(rng, (9, 301), aakaar.float32))
    check(dev.logsumexp(dim=1), cpu.logsumexp(dim=1), rtol=1e-5, atol=1e-6)
    # Rows of infinities take the shift-by-0 path (the scalars must live on the device too).
    x = np.array([[-np.inf, -np.inf], [np.inf, 1.0], [0.5, -np.inf]], np.float32)
    check(aakaar.tensor(x, device="cuda").logsumexp(dim=1), aakaar.tensor(x).logsumexp(dim=1), rtol=0, atol=0)


@pytest.mark.parametrize("shape,dim", [((40, 9), 1), ((5, 3000), 1), ((3000, 5), 0), ((2, 1000, 3), 1), ((1,), 0)],
                         ids=str)
@pytest.mark.parametrize("dtype", DTYPES, ids=str)
def test_argmax_argmin_and_max_dim(rng, dtype, shape, dim):
    arr = sample(rng, shape, dtype)  # small integers: many ties, which must keep the first index
    cpu, dev = pair(arr)
    for is_max in (True, False):
        name = "max" if is_max else "min"
        v_cpu, i_cpu = getattr(cpu, name)(dim=dim)
        v_dev, i_dev = getattr(dev, name)(dim=dim)
        check(v_dev, v_cpu, rtol=0, atol=0)
        check(i_dev, i_cpu)
        if dtype == aakaar.bool:  # argmax/argmin refuse bool, as torch's (max/min with a dim take it)
            with pytest.raises(RuntimeError, match="bool"):
                getattr(dev, "arg" + name)(dim=dim)
            continue
        check(getattr(dev, "arg" + name)(dim=dim), getattr(cpu, "arg" + name)(dim=dim))
    if dtype != aakaar.bool:
        check(dev.argmax(), cpu.argmax())


def test_argmax_first_nan_wins():
    arr = np.zeros((3, 500), np.float64)
    arr[0, 10], arr[0, 400] = np.nan, np.nan
    arr[1, 77] = 5.0
    arr[2, 499] = np.nan
    cpu, dev = pair(arr)
    check(dev.argmax(dim=1), cpu.argmax(dim=1))
    check(dev.argmin(dim=1), cpu.argmin(dim=1))
    check(dev.T.argmax(dim=0), cpu.T.argmax(dim=0))


@pytest.mark.parametrize("shape,dim", [((33, 10), 1), ((7, 1500), 1), ((1500, 7), 0), ((4, 129, 3), 1)], ids=str)
@pytest.mark.parametrize("dtype", FLOATS, ids=str)
@pytest.mark.parametrize("log", [False, True])
def test_softmax(rng, dtype, shape, dim, log):
    cpu, dev = pair(sample(rng, shape, dtype) * 4)
    f = (lambda t: t.log_softmax(dim)) if log else (lambda t: t.softmax(dim))  # noqa: E731
    tol = 1e-5 if dtype == aakaar.float32 else 1e-13  # float32 sums of exps, added in another order
    check(f(dev), f(cpu), rtol=tol, atol=tol)
    check(f(dev.transpose(0, -1)), f(cpu.transpose(0, -1)), rtol=tol, atol=tol)


def test_softmax_rows_of_minus_infinity():
    arr = np.full((3, 100), -np.inf, np.float32)
    arr[1, 5] = 0.0
    cpu, dev = pair(arr)
    check(dev.softmax(1), cpu.softmax(1), rtol=0, atol=0)
    check(dev.log_softmax(1), cpu.log_softmax(1), rtol=0, atol=0)


@pytest.mark.parametrize("dtype", [aakaar.uint8, aakaar.int64, aakaar.float32, aakaar.float64, aakaar.bool], ids=str)
@pytest.mark.parametrize("shape,dim", [((9, 300), 1), ((300, 9), 0), ((4, 5, 6), 1), ((0, 3), 1)], ids=str)
def test_cumsum_exact(rng, dtype, shape, dim):
    cpu, dev = pair(sample(rng, shape, dtype))
    # one thread per row adds in index order: the CPU's order, so floats match bit for bit
    check(dev.cumsum(dim), cpu.cumsum(dim), rtol=0, atol=0)
    check(dev.transpose(0, 1).cumsum(0), cpu.transpose(0, 1).cumsum(0), rtol=0, atol=0)


@pytest.mark.parametrize("shape,dims", [((6, 1000), (1,)), ((70_001,), None), ((1000, 6), (0,)), ((37, 5), (1,))],
                         ids=str)
def test_int64_sums_wrap_like_the_cpu(shape, dims):
    # Every term near 2^62: the sums overflow int64 on every kernel path, the long contiguous rows'
    # plain-addition sweep included; they wrap (two's complement, defined arithmetic) as the CPU's
    # and PyTorch's do (tests/core/test_integer_overflow_wraps.py checks the CPU against torch).
    arr = (np.arange(int(np.prod(shape)), dtype=np.int64) % 97 + 2**62).reshape(shape)
    cpu, dev = pair(arr)
    for op in ("sum", "prod"):
        f = lambda t: getattr(t, op)(dim=dims) if dims is not None else getattr(t, op)()  # noqa: E731
        check(f(dev), f(cpu), rtol=0, atol=0)
    check(dev.cumsum(0), cpu.cumsum(0), rtol=0, atol=0)
