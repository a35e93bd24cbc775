"""Integer arithmetic on user values wraps around as PyTorch's does (issue 15).

Signed overflow is undefined behaviour in C++, so every integer sum, product
and running sum is computed on the unsigned type of the same width (defined
wrapping) and converted back: two's complement, which is what PyTorch's
results show. Each test compares with torch on inputs that overflow, over
every path of the kernels (a contiguous row, one long row split in chunks,
reduced leading dims, a strided walk); scripts/sanitize.sh runs these under
UBSan, which reports any overflow left in the library.
"""

from __future__ import annotations

import numpy as np
import pytest

import aakaar as ak

torch = pytest.importorskip("torch")

B = 2**62
BIG = 2**63 - 1
VALS = [B, B, B, 3, -(2**63), BIG, 7]


def _both(values, dtype="int64"):
    arr = np.array(values, dtype=dtype)
    return ak.tensor(arr), torch.tensor(arr)


def _same(a, t):
    assert a.tolist() == t.tolist()
    assert str(a.dtype).split(".")[-1] == str(t.dtype).split(".")[-1]


@pytest.mark.parametrize("op", ["sum", "prod"])
def test_sum_and_prod_of_int64_wrap_on_every_path(op):
    a, t = _both(VALS)
    _same(getattr(a, op)(), getattr(t, op)())  # one contiguous row
    rows = np.array([VALS, VALS[::-1], VALS], dtype=np.int64)
    a2, t2 = ak.tensor(rows), torch.tensor(rows)
    _same(getattr(a2, op)(1), getattr(t2, op)(1))  # rows, reduced suffix
    _same(getattr(a2, op)(0), getattr(t2, op)(0))  # reduced prefix: whole rows combined
    _same(getattr(a2.t(), op)(1), getattr(t2.t(), op)(1))  # strided walk
    _same(getattr(a2[:, ::2], op)(), getattr(t2[:, ::2], op)())


def test_sum_of_one_long_int64_row_wraps():
    # 2^17 elements: the chunked, parallel path of a single long row.
    arr = np.full(1 << 17, B + 12345, dtype=np.int64)
    _same(ak.tensor(arr).sum(), torch.tensor(arr).sum())
    _same(ak.tensor(arr).prod(), torch.tensor(arr).prod())


def test_uint8_and_bool_sums_accumulate_in_int64():
    a, t = _both([255] * 300, "uint8")
    _same(a.sum(), t.sum())
    _same(a.sum(dtype=ak.uint8), t.sum(dtype=torch.uint8))  # the asked dtype keeps the low 8 bits
    _same(a.prod(), t.prod())


def test_cumsum_of_int64_wraps():
    a, t = _both(VALS)
    _same(a.cumsum(0), t.cumsum(0))
    rows = np.array([VALS, VALS], dtype=np.int64)
    _same(ak.tensor(rows).cumsum(1), torch.tensor(rows).cumsum(1))
    _same(ak.tensor(rows).t().cumsum(0), torch.tensor(rows).t().cumsum(0))
    a8, t8 = _both([200, 200, 200], "uint8")
    _same(a8.cumsum(0), t8.cumsum(0))  # uint8 runs in int64, as in PyTorch


def test_scatter_add_of_int64_wraps():
    src = [B, B, B, BIG]
    a = ak.zeros(2, dtype=ak.int64).scatter_add_(0, ak.tensor([0, 0, 0, 1]), ak.tensor(src))
    t = torch.zeros(2, dtype=torch.int64).scatter_add_(0, torch.tensor([0, 0, 0, 1]), torch.tensor(src))
    _same(a, t)
    a[1:].scatter_add_(0, ak.tensor([0]), ak.tensor([1]))
    assert a[1].item() == -(2**63)


@pytest.mark.parametrize("op", ["add", "sub", "mul"])
def test_elementwise_int64_and_alpha_wrap(op):
    x, tx = _both(VALS)
    y, ty = _both(VALS[::-1])
    _same(getattr(x, op)(y), getattr(tx, op)(ty))
    _same(getattr(x, op)(BIG), getattr(tx, op)(BIG))
    if op != "mul":
        _same(getattr(x, op)(y, alpha=3), getattr(tx, op)(ty, alpha=3))


def test_negation_square_and_abs_of_int64_min_wrap():
    a, t = _both([-(2**63), BIG, B])
    _same(-a, -t)
    _same(a.abs(), t.abs())
    _same(a.square(), t.square())


@pytest.mark.parametrize(
    "args",
    [(B, B + 4), (-(2**63), -(2**63) + 3), (BIG - 2, BIG), (BIG, BIG - 7, -3), (5,), (0, 10, 3), (10, 0, -4)],
)
def test_arange_of_large_ints_is_exact(args):
    # Computed in int64, not through doubles (which cannot tell 2^62 from 2^62 + 1).
    _same(ak.arange(*args), torch.arange(*args))


def test_arange_where_pytorch_overflows_gives_the_true_range():
    # PyTorch computes end - start + step in int64 and overflows: it returns [] for the first call
    # and refuses the second as "invalid size". We give the mathematically right values.
    assert ak.arange(-(2**63), BIG, B).tolist() == [-(2**63), -B, 0, B]
    assert ak.arange(0, BIG, B).tolist() == [0, B]
    assert ak.arange(BIG, -(2**63), -(2**63)).tolist() == [BIG, -1]
    with pytest.raises(ValueError, match="more than 2\\^63"):
        ak.arange(-(2**63), BIG)


def test_arange_uint8_wraps_like_torch():
    _same(ak.arange(250, 260, dtype=ak.uint8), torch.arange(250, 260, dtype=torch.uint8))


def test_cumprod_of_int64_wraps():
    a, t = _both(VALS)
    _same(a.cumprod(0), t.cumprod(0))
    rows = np.array([VALS, VALS[::-1]], dtype=np.int64)
    _same(ak.tensor(rows).cumprod(1), torch.tensor(rows).cumprod(1))
    _same(ak.tensor(rows).t().cumprod(0), torch.tensor(rows).t().cumprod(0))  # a strided walk


NARROW = {"int32": (2**31 - 1, -(2**31)), "int16": (2**15 - 1, -(2**15)), "int8": (127, -128), "uint8": (255, 0)}


@pytest.mark.parametrize("dtype", list(NARROW))
@pytest.mark.parametrize("op", ["sum", "prod", "cumsum", "cumprod"])
def test_narrow_integers_accumulate_in_int64_like_torch(dtype, op):
    # torch promotes every integer sum, product and scan to int64: the narrow type's overflow is not
    # reached, int64's is (the products of 40 extremes overflow int64 too, and wrap).
    hi, lo = NARROW[dtype]
    a, t = _both([hi, lo, hi, hi - 1, lo, 3] * 7, dtype)
    args = (0,) if op.startswith("cum") else ()
    _same(getattr(a, op)(*args), getattr(t, op)(*args))
    a2, t2 = a.reshape(6, 7), t.reshape(6, 7)
    _same(getattr(a2, op)(1), getattr(t2, op)(1))
    _same(getattr(a2.t(), op)(1), getattr(t2.t(), op)(1))


@pytest.mark.parametrize("dtype", ["int32", "int16", "int8", "uint8"])
def test_an_asked_narrow_dtype_wraps_at_its_width(dtype):
    # sum(dtype=) / cumsum(dtype=) / cumprod(dtype=): the input converted first and the result in
    # that dtype, wrapping at its width (the low bits of the int64 accumulation), as in torch.
    hi, lo = NARROW[dtype]
    a, t = _both([hi, hi, lo, 5, hi], "int64")
    akd, td = getattr(ak, dtype), getattr(torch, dtype)
    _same(a.sum(dtype=akd), t.sum(dtype=td))
    _same(a.cumsum(0, dtype=akd), t.cumsum(0, dtype=td))
    _same(a.cumprod(0, dtype=akd), t.cumprod(0, dtype=td))
    _same(ak.cumsum(a, 0, dtype=akd), torch.cumsum(t, 0, dtype=td))


@pytest.mark.parametrize("reduce", ["sum", "prod"])
def test_scatter_reduce_of_int64_wraps(reduce):
    index = [0, 0, 0, 1, 1]
    src = [B, B, B, BIG, 3]
    a = ak.ones(2, dtype=ak.int64).scatter_reduce(0, ak.tensor(index), ak.tensor(src), reduce)
    t = torch.ones(2, dtype=torch.int64).scatter_reduce(0, torch.tensor(index), torch.tensor(src), reduce)
    _same(a, t)


def test_sums_and_scans_of_int32_beyond_int32_are_exact():
    # The brief's example: three 2^62 in int64 wrap; in int32 the promoted int64 sum is exact.
    a, t = _both([2**62, 2**62, 2**62])
    _same(a.sum(), t.sum())
    a32, t32 = _both([2**31 - 1] * 3, "int32")
    _same(a32.sum(), t32.sum())
    assert a32.sum().item() == 3 * (2**31 - 1)
    _same(a32.cumsum(0), t32.cumsum(0))
