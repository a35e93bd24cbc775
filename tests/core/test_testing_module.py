"""aakaar.testing against torch.testing: the same comparisons pass or fail alike, with the same
exception class and (library names aside) the same message."""

from __future__ import annotations

import math

import numpy as np
import pytest
import torch

import aakaar
from aakaar.testing import assert_allclose, assert_close, make_tensor


def _to_torch(x):
    if isinstance(x, aakaar.Tensor):
        values = torch.from_numpy(x.float().numpy().copy() if x.dtype == aakaar.bfloat16 else x.numpy().copy())
        dtype = getattr(torch, x.dtype.name)
        return torch.empty_strided(tuple(x.shape), x.stride(), dtype=dtype).copy_(values)  # keeps the strides
    if isinstance(x, (list, tuple)):
        return type(x)(_to_torch(v) for v in x)
    if isinstance(x, dict):
        return {k: _to_torch(v) for k, v in x.items()}
    return x


def _outcome(fn, actual, expected, **kw):
    try:
        fn(actual, expected, **kw)
    except Exception as error:  # noqa: BLE001  (the class is compared)
        return type(error), str(error).replace("torch.", "aakaar.").replace("aakaar._C.Tensor", "aakaar.Tensor")
    return None


def _both(actual, expected, **kw):
    ours = _outcome(assert_close, actual, expected, **kw)
    theirs = _outcome(torch.testing.assert_close, _to_torch(actual), _to_torch(expected), **kw)
    return ours, theirs


T = aakaar.tensor
CASES = [
    ("equal", T([1.0, 2.0, 3.0]), T([1.0, 2.0, 3.0]), {}),
    ("not close", T([1.0, 4.0, 5.0]), T([1.0, 2.0, 3.0]), {}),
    ("2d index", T([[1.0, 2.0], [3.0, 4.0]]), T([[1.0, 2.0], [3.0, 4.5]]), {}),
    ("within float32 rtol", T([1000.0]), T([1000.001]), {}),
    ("just outside", T([1.0]), T([1.0 + 2e-5]), {}),
    ("float64 tight", T([1.0], dtype=aakaar.float64), T([1.0 + 1e-6], dtype=aakaar.float64), {}),
    ("float16 loose", T([1.0], dtype=aakaar.float16), T([1.0009765625], dtype=aakaar.float16), {}),
    ("float16 outside", T([1.0], dtype=aakaar.float16), T([1.01], dtype=aakaar.float16), {}),
    ("bfloat16 loose", T([1.0], dtype=aakaar.bfloat16), T([1.0078125], dtype=aakaar.bfloat16), {}),
    ("ints exact", T([1, 2, 3]), T([1, 2, 4]), {}),
    ("int8 wide", T([-128, 127], dtype=aakaar.int8), T([127, -128], dtype=aakaar.int8), {}),
    ("bools", T([True, False]), T([True, True]), {}),
    ("nan", T(float("nan")), T(float("nan")), {}),
    ("nan equal", T([float("nan"), 1.0]), T([float("nan"), 1.0]), {"equal_nan": True}),
    ("inf", T([math.inf]), T([math.inf]), {}),
    ("inf vs -inf", T([math.inf]), T([-math.inf]), {}),
    ("0-d", T(1.0), T(2.0), {}),
    ("shape", T([1.0]), T([1.0, 2.0]), {}),
    ("dtype", T([1.0], dtype=aakaar.float64), T([1.0]), {}),
    ("dtype unchecked", T([1.0], dtype=aakaar.float64), T([1.0]), {"check_dtype": False}),
    ("dtype unchecked not close", T([1.0], dtype=aakaar.float64), T([1.1]), {"check_dtype": False}),
    ("stride", T([[1.0, 2.0], [3.0, 4.0]]).t(), T([[1.0, 3.0], [2.0, 4.0]]), {"check_stride": True}),
    ("stride unchecked", T([[1.0, 2.0], [3.0, 4.0]]).t(), T([[1.0, 3.0], [2.0, 4.0]]), {}),
    ("explicit tol", T([1.0]), T([1.05]), {"rtol": 0.0, "atol": 0.1}),
    ("explicit tol fails", T([1.0]), T([1.2]), {"rtol": 0.0, "atol": 0.1}),
    ("rtol alone", T([1.0]), T([1.0]), {"rtol": 1e-3}),
    ("atol alone", T([1.0]), T([1.0]), {"atol": 1e-3}),
    ("scalars", 1.0, 1.0 + 1e-8, {}),
    ("scalars far", 1.0, 2.0, {}),
    ("scalar zero", 1e-3, 0.0, {}),
    ("scalar types", 1.0, 1, {}),
    ("scalar types unchecked", 1.0, 1, {"check_dtype": False}),
    ("ints", 3, 4, {}),
    ("bool scalars", True, False, {}),
    ("none", None, None, {}),
    ("none mismatch", None, 1, {}),
    ("tensor vs scalar", T(1.0), 1.0, {}),
    ("lists", [T([1.0]), 2.0], [T([1.0]), 2.0], {}),
    ("list item", [T([1.0]), T([2.0])], [T([1.0]), T([3.0])], {}),
    ("list length", [1, 2], [1, 2, 3], {}),
    ("nested dict", {"a": [T([1.0])], "b": 1}, {"a": [T([1.5])], "b": 1}, {}),
    ("dict keys", {"a": 1, "c": 2}, {"b": 1, "c": 2}, {}),
    ("msg", T([1.0]), T([2.0]), {"msg": "custom words"}),
    ("msg callable", T([1.0]), T([2.0]), {"msg": lambda m: f"Header\n\n{m}\n\nFooter"}),
    ("ndarrays", np.array([1.0, 2.0]), np.array([1.0, 2.5]), {}),
    ("tensor vs ndarray", T([1.0]), np.array([1.0]), {}),
    ("string", "a", "a", {}),
    ("strings differ", "a", "b", {}),
]


@pytest.mark.parametrize("name,actual,expected,kw", CASES, ids=[c[0] for c in CASES])
def test_assert_close_matches_torch(name, actual, expected, kw):
    ours, theirs = _both(actual, expected, **kw)
    if theirs is None:
        assert ours is None, ours
        return
    assert ours is not None, f"torch raised {theirs}, aakaar passed"
    assert ours[0] is theirs[0]
    assert ours[1] == theirs[1]


@pytest.mark.parametrize("dtype", ["float16", "bfloat16", "float32", "float64"])
def test_default_tolerances_are_torchs(dtype):
    """A difference just inside each dtype's default tolerance passes and just outside fails, in both."""
    rtol, atol = {"float16": (1e-3, 1e-5), "bfloat16": (1.6e-2, 1e-5), "float32": (1.3e-6, 1e-5),
                  "float64": (1e-7, 1e-7)}[dtype]
    base = 64.0  # exact in every dtype; differences below are multiples of its ulp
    for factor, passes in [(0.5, True), (2.5, False)]:
        step = factor * (atol + rtol * base)
        exp = aakaar.full([3], base, dtype=getattr(aakaar, dtype))
        act = exp + aakaar.tensor([0.0, step, -step], dtype=aakaar.float64).to(exp.dtype)
        ours, theirs = _both(act, exp)
        assert (ours is None) == (theirs is None) == passes, (factor, ours, theirs)


def test_random_float_pairs_agree():
    gen = np.random.default_rng(0)
    for _ in range(40):
        a = gen.standard_normal((3, 4)).astype(np.float32)
        b = (a + gen.standard_normal((3, 4)).astype(np.float32) * gen.choice([1e-7, 1e-6, 1e-5, 1e-3])).astype(np.float32)
        ours, theirs = _both(aakaar.from_numpy(a), aakaar.from_numpy(b))
        assert ours == theirs


def test_assert_allclose_is_deprecated_and_looser():
    with pytest.warns(FutureWarning):
        assert_allclose(T([1.0]), T([1.00005]))  # within its float32 1e-4 rtol, not assert_close's
    with pytest.warns(FutureWarning), pytest.raises(AssertionError):
        assert_allclose(T([1.0]), T([1.001]))
    with pytest.warns(FutureWarning):
        assert_allclose([1.0, float("nan")], [1.0, float("nan")])  # NaNs equal by default


@pytest.mark.parametrize("dtype", ["bool", "uint8", "int8", "int16", "int32", "int64", "float16", "bfloat16",
                                   "float32", "float64"])
def test_make_tensor_ranges(dtype):
    aakaar.manual_seed(0)
    dt = getattr(aakaar, dtype)
    t = make_tensor(40, 50, dtype=dt, device="cpu")
    assert t.shape == (40, 50) and t.dtype == dt and t.is_contiguous()
    values = t.float().numpy() if dtype != "bool" else t.numpy().astype(float)
    low, high = {"bool": (0, 1), "uint8": (0, 9)}.get(dtype, (-9, 9) if dtype not in ("float16", "bfloat16", "float32",
                                                                                        "float64") else (-9, 9))
    assert values.min() >= low and values.max() <= high
    assert len(np.unique(values)) > 1
    e = make_tensor(1000, dtype=dt, device="cpu", exclude_zero=True)
    assert not bool((e == 0).any())
    s = make_tensor(3, dtype=dt, device="cpu", low=-100000, high=100000)  # clamped to the dtype's range
    assert s.shape == (3,)


def test_make_tensor_options():
    t = make_tensor((4, 3), dtype=aakaar.float32, device="cpu", noncontiguous=True, low=2, high=3)
    assert t.shape == (4, 3) and not t.is_contiguous() and t.stride() == (6, 2)
    assert float(t.min()) >= 2 and float(t.max()) < 3
    assert make_tensor(1, dtype=aakaar.float32, device="cpu", noncontiguous=True).is_contiguous()
    assert make_tensor(2, 2, dtype=aakaar.float64, device="cpu", requires_grad=True).requires_grad
    for kw, error in [({"requires_grad": True, "dtype": aakaar.int64}, ValueError),
                      ({"low": 3, "high": 2, "dtype": aakaar.float32}, ValueError),
                      ({"low": float("nan"), "dtype": aakaar.float32}, ValueError),
                      ({"low": 300, "high": 400, "dtype": aakaar.uint8}, ValueError)]:
        with pytest.raises(error):
            make_tensor(2, device="cpu", **kw)
        torch_kw = {k: (getattr(torch, v.name) if k == "dtype" else v) for k, v in kw.items()}
        with pytest.raises(error):
            torch.testing.make_tensor(2, device="cpu", **torch_kw)
    with pytest.warns(FutureWarning):
        make_tensor(2, dtype=aakaar.float32, device="cpu", low=1, high=1)


def test_import_path():
    assert aakaar.testing.assert_close is assert_close
