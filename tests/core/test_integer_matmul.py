"""Matrix products of integer tensors against torch: every integer dtype, wrap-around, 1-d
promotion, batch broadcasting, empty shared dimension, and torch's errors."""

from __future__ import annotations

import numpy as np
import pytest

import aakaar as ak

torch = pytest.importorskip("torch")

DTYPES = ["int8", "uint8", "int16", "int32", "int64"]
SHAPES = [((3,), (3,)), ((2, 3), (3,)), ((3,), (3, 4)), ((2, 3), (3, 4)), ((5, 2, 3), (3, 4)),
          ((5, 2, 3), (5, 3, 4)), ((1, 2, 3), (4, 3, 2)), ((2, 0), (0, 3)), ((7, 300), (300, 5))]


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("sa, sb", SHAPES)
def test_integer_matmul_matches_torch_wrapping_included(dtype, sa, sb):
    rng = np.random.default_rng(0)
    hi = 100 if dtype in ("int8", "uint8") else 10**6  # large enough that int8/uint8/int16/int32 wrap
    a = rng.integers(0 if dtype == "uint8" else -hi, hi, sa).astype(dtype)
    b = rng.integers(0 if dtype == "uint8" else -hi, hi, sb).astype(dtype)
    ref = torch.matmul(torch.from_numpy(a), torch.from_numpy(b))
    for out in (ak.matmul(ak.from_numpy(a), ak.from_numpy(b)), ak.from_numpy(a) @ ak.from_numpy(b),
                ak.from_numpy(a).matmul(ak.from_numpy(b))):
        assert str(out.dtype).split(".")[-1] == dtype
        np.testing.assert_array_equal(out.numpy(), ref.numpy())


def test_mm_bmm_mv_dot_on_integers_match_torch():
    rng = np.random.default_rng(1)
    a, b = rng.integers(-9, 9, (4, 3, 5)), rng.integers(-9, 9, (4, 5, 2))
    ta, tb, aa, ab = torch.from_numpy(a), torch.from_numpy(b), ak.from_numpy(a), ak.from_numpy(b)
    np.testing.assert_array_equal(ak.bmm(aa, ab).numpy(), torch.bmm(ta, tb).numpy())
    np.testing.assert_array_equal(ak.mm(aa[0], ab[0]).numpy(), torch.mm(ta[0], tb[0]).numpy())
    np.testing.assert_array_equal(aa[0].mm(ab[0]).numpy(), ta[0].mm(tb[0]).numpy())
    np.testing.assert_array_equal(ak.mv(aa[0], ab[0, :, 0]).numpy(), torch.mv(ta[0], tb[0, :, 0]).numpy())
    np.testing.assert_array_equal(ak.dot(aa[0, 0], aa[1, 0]).numpy(), torch.dot(ta[0, 0], ta[1, 0]).numpy())


@pytest.mark.parametrize("call", [
    lambda L, a, b: L.mm(a, b[:2]), lambda L, a, b: L.matmul(a, b[:2, 0]), lambda L, a, b: L.mm(a.long(), b.int()),
    lambda L, a, b: L.bmm(a, b), lambda L, a, b: L.dot(a, b), lambda L, a, b: L.matmul(a.bool(), b.bool()),
])
def test_integer_product_errors_as_torch(call):
    a, b = np.ones((2, 3), dtype=np.int64), np.ones((3, 2), dtype=np.int64)
    with pytest.raises(RuntimeError):  # torch's class (bool: its NotImplementedError, a RuntimeError)
        call(torch, torch.from_numpy(a), torch.from_numpy(b))
    with pytest.raises(RuntimeError):
        call(ak, ak.from_numpy(a), ak.from_numpy(b))


def test_float_products_still_use_the_gemm():
    x = ak.ones(2, 3)
    assert (x @ ak.ones(3, 2)).dtype == ak.float32
    with pytest.raises(RuntimeError):
        ak.ones(2, 3) @ ak.ones(3, 2, dtype=ak.int64)
