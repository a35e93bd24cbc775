"""int8/int16/int32 and the 16-bit floats (float16, bfloat16) against PyTorch.

The integer types are full dtypes: creation, conversion, arithmetic that wraps as
two's complement, comparisons, reductions, indexing, numpy, save/load, repr. float16
and bfloat16 are stored in 16 bits and computed in float32, each op's result rounded
once to nearest even, as PyTorch's CPU kernels do, so the results agree to the bit.
The promotion table is checked pair by pair against torch.promote_types and
torch.result_type, for tensor-tensor and tensor-number operations.
"""

from __future__ import annotations

import itertools

import numpy as np
import pytest

import aakaar as ak

torch = pytest.importorskip("torch")

ALL = ["bool", "uint8", "int8", "int16", "int32", "int64", "float16", "bfloat16", "float32", "float64"]
INTS = ["int8", "int16", "int32"]
HALVES = ["float16", "bfloat16"]


def ak_dt(name: str):
    return getattr(ak, name)


def t_dt(name: str):
    return getattr(torch, name)


def same(a: ak.Tensor, t: torch.Tensor) -> None:
    """Same dtype, shape and values (bit-for-bit for floats, NaN equal to NaN)."""
    assert a.dtype.name == str(t.dtype).removeprefix("torch."), (a.dtype, t.dtype)
    assert tuple(a.shape) == tuple(t.shape)
    if t.dtype == torch.bfloat16:  # numpy has no bfloat16: compare the float32 each holds exactly
        a, t = a.float(), t.float()
    np.testing.assert_array_equal(a.numpy(), t.numpy())


def both(expr: str, **values):
    """expr evaluated with ak and with torch as `lib` (and `dt(name)` the lib's dtype)."""
    ra = eval(expr, {"lib": ak, "dt": ak_dt, "np": np, **{k: v[0] for k, v in values.items()}})
    rt = eval(expr, {"lib": torch, "dt": t_dt, "np": np, **{k: v[1] for k, v in values.items()}})
    return ra, rt


def pair(data, name: str):
    return ak.tensor(data, dtype=ak_dt(name)), torch.tensor(data, dtype=t_dt(name))


# ---- the dtype objects ------------------------------------------------------------------------


@pytest.mark.parametrize("name", ALL)
def test_dtype_attributes_match_torch(name):
    d, td = ak_dt(name), t_dt(name)
    assert d.itemsize == td.itemsize
    assert d.is_floating_point == td.is_floating_point
    assert d.is_signed == td.is_signed
    assert repr(d) == f"aakaar.{name}"


@pytest.mark.parametrize("name", ["float16", "bfloat16", "float32", "float64"])
def test_finfo_matches_torch(name):
    f, tf = ak.finfo(ak_dt(name)), torch.finfo(t_dt(name))
    for attr in ("bits", "eps", "max", "min", "tiny", "smallest_normal", "resolution"):
        assert getattr(f, attr) == getattr(tf, attr), attr
    assert ak.finfo().eps == torch.finfo().eps


@pytest.mark.parametrize("name", ["uint8", "int8", "int16", "int32", "int64"])
def test_iinfo_matches_torch(name):
    i, ti = ak.iinfo(ak_dt(name)), torch.iinfo(t_dt(name))
    assert (i.bits, i.min, i.max) == (ti.bits, ti.min, ti.max)


def test_info_refuses_the_other_kind():
    with pytest.raises(TypeError):
        ak.finfo(ak.int32)
    with pytest.raises(TypeError):
        ak.iinfo(ak.float16)
    with pytest.raises(TypeError):
        ak.iinfo(ak.bool)


# ---- the promotion table ----------------------------------------------------------------------


@pytest.mark.parametrize("a,b", list(itertools.product(ALL, ALL)))
def test_promotion_table_matches_torch(a, b):
    want = str(torch.promote_types(t_dt(a), t_dt(b))).removeprefix("torch.")
    assert ak.promote_types(ak_dt(a), ak_dt(b)).name == want
    ta, tb = ak.ones(2, dtype=ak_dt(a)), ak.ones(2, dtype=ak_dt(b))
    assert ak.result_type(ta, tb).name == want
    tt = torch.ones(2, dtype=t_dt(a)) * torch.ones(2, dtype=t_dt(b))
    assert (ta * tb).dtype.name == str(tt.dtype).removeprefix("torch.")


@pytest.mark.parametrize("name", ALL)
@pytest.mark.parametrize("number", [True, 3, -2, 2.5, 1000])
def test_tensor_number_promotion_matches_torch(name, number):
    ta, tt = ak.ones(3, dtype=ak_dt(name)), torch.ones(3, dtype=t_dt(name))
    want = str(torch.result_type(tt, number)).removeprefix("torch.")
    assert ak.result_type(ta, number).name == want
    if name == "bool" and isinstance(number, bool):
        return  # bool + bool: both libraries' `+` is logical or; the dtype is what matters
    same(ta * number, tt * number)
    same(ta + number, tt + number)


# ---- creation ----------------------------------------------------------------------------------


@pytest.mark.parametrize("name", INTS + HALVES)
@pytest.mark.parametrize(
    "expr",
    [
        "lib.zeros(2, 3, dtype=dt(name))",
        "lib.ones(4, dtype=dt(name))",
        "lib.full((2, 2), 7, dtype=dt(name))",
        "lib.arange(0, 10, 3, dtype=dt(name))",
        "lib.tensor([[1, -2, 3], [4, 5, -6]], dtype=dt(name))",
        "lib.tensor([0.1, -2.7, 100.5], dtype=dt(name))",
        "lib.empty(3, dtype=dt(name)).fill_(5)",
        "lib.zeros_like(lib.ones(3), dtype=dt(name))",
        "lib.eye(3, dtype=dt(name))",
    ],
)
def test_creation_matches_torch(name, expr):
    a, t = both(expr, name=(name, name))
    same(a, t)


@pytest.mark.parametrize("name", INTS)
def test_randint_in_range_of_dtype(name):
    lo, hi = torch.iinfo(t_dt(name)).min, torch.iinfo(t_dt(name)).max
    x = ak.randint(lo, hi + 1, (1000,), dtype=ak_dt(name))
    assert x.dtype == ak_dt(name)
    v = x.numpy()
    assert v.min() >= lo and v.max() <= hi
    with pytest.raises(ValueError, match=name):
        ak.randint(lo - 1, 0, (3,), dtype=ak_dt(name))


@pytest.mark.parametrize("name", INTS + HALVES)
def test_full_refuses_a_value_that_overflows(name):
    big = {"int32": 1e10, "bfloat16": 1e39}.get(name, 1e6)
    with pytest.raises(RuntimeError):
        torch.full((2,), big, dtype=t_dt(name))
    with pytest.raises(ValueError, match=name):
        ak.full((2,), big, dtype=ak_dt(name))
    with pytest.raises(ValueError, match=name):
        ak.zeros(2, dtype=ak_dt(name)).fill_(big)


# ---- conversion --------------------------------------------------------------------------------

FLOATS_TO_CAST = [0.0, -0.0, 0.4, 0.5, 0.6, -0.5, -1.5, 2.5, -2.7, 99.99, -127.9, 126.6, 1e-3, 65504.0,
                  1.0009765625, 1.00048828125, 1.000732421875, 3.14159, 1e-7, 6.1e-5, 2.0**-24, 2.0**-25]


@pytest.mark.parametrize("src", ["float32", "float64"])
@pytest.mark.parametrize("dst", INTS + HALVES + ["uint8", "bool"])
def test_float_to_narrow_types_rounds_as_torch(src, dst):
    # Into integers: truncation toward zero (only values in range: out-of-range is undefined in torch).
    vals = [v for v in FLOATS_TO_CAST if dst not in ("int8", "uint8") or -128 < v < 128]
    if dst == "uint8":
        vals = [v for v in vals if v >= 0]
    a, t = pair(vals, src)
    same(a.to(ak_dt(dst)), t.to(t_dt(dst)))


@pytest.mark.parametrize("half", HALVES)
def test_half_round_trip_ties_to_even(half):
    # Every float32 near a few binades, and random ones: float32 -> 16 bits -> float32 as torch.
    rng = np.random.default_rng(0)
    base = np.array([1.0, 2.0**-14, 2.0**-20, 1024.0, 65504.0, 3.0e38], dtype=np.float32)
    steps = np.arange(-300, 300, dtype=np.int32)
    near = (base.view(np.int32)[:, None] + steps[None, :]).reshape(-1).view(np.float32)
    rand = (rng.standard_normal(5000) * 10.0 ** rng.integers(-8, 8, 5000)).astype(np.float32)
    special = np.array([np.inf, -np.inf, np.nan, 0.0, -0.0, 65520.0, 65519.99], dtype=np.float32)
    x = np.concatenate([near, -near, rand, special])
    a, t = ak.tensor(x), torch.tensor(x)
    h, th = a.to(ak_dt(half)), t.to(t_dt(half))
    same(h, th)
    same(h.float(), th.float())
    same(getattr(a, "half" if half == "float16" else "bfloat16")(), th)


def test_float64_to_half_rounds_through_float32_as_torch():
    rng = np.random.default_rng(1)
    x = rng.standard_normal(20000) * 100
    for half in HALVES:
        same(ak.tensor(x).to(ak_dt(half)), torch.tensor(x).to(t_dt(half)))


@pytest.mark.parametrize("src", INTS + ["int64", "uint8", "bool"])
@pytest.mark.parametrize("dst", ALL)
def test_integer_conversions_match_torch(src, dst):
    vals = {"bool": [True, False, True], "uint8": [0, 7, 200, 255]}.get(src, [0, 1, -1, 100, -100, 127, -128])
    if src in ("int16", "int32", "int64"):
        vals = vals + [300, -1000, 30000, -32768]
    if src in ("int32", "int64"):
        vals = vals + [70000, -2**31, 2**31 - 1]
    a, t = pair(vals, src)
    same(a.to(ak_dt(dst)), t.to(t_dt(dst)))


@pytest.mark.parametrize("name", ALL)
def test_type_methods_match_torch(name):
    a, t = pair([1, 0, 3], name)
    assert a.type() == t.type().replace("torch.", "aakaar.")
    for m in ("int", "long", "short", "char", "byte", "bool", "half", "bfloat16", "float", "double"):
        same(getattr(a, m)(), getattr(t, m)())
    same(a.type(ak.int32), t.type(torch.int32))
    same(a.type("aakaar.ShortTensor"), t.type("torch.ShortTensor"))
    assert a.element_size() == t.element_size() and a.is_floating_point() == t.is_floating_point()
    assert a.dtype.itemsize == t.dtype.itemsize


# ---- arithmetic and comparison ---------------------------------------------------------------

INT_VALUES = {
    "int8": ([120, -128, 7, -7, 100, 0, 1, -1], [10, -1, 3, 2, 100, 5, -3, -1]),
    "int16": ([32000, -32768, 7, -7, 300, 0, 1, -1], [1000, -1, 3, 2, 300, 5, -3, -1]),
    "int32": ([2**31 - 1, -2**31, 7, -7, 70000, 0, 1, -1], [2, -1, 3, 2, 70000, 5, -3, -1]),
}


@pytest.mark.parametrize("name", INTS)
@pytest.mark.parametrize("op", ["x + y", "x - y", "x * y", "x // y", "x % y", "x / y", "lib.maximum(x, y)",
                                "lib.minimum(x, y)", "x == y", "x != y", "x < y", "x <= y", "x > y", "x >= y",
                                "-x", "x.abs()", "x * 3", "x + 1000", "x - 2", "x // 3", "x % -3", "x ** 2",
                                "x.clamp(-5, 50)", "x.sign()", "x.square()", "lib.where(x > y, x, y)",
                                "x.exp()", "x.float() + y", "x + y.double()", "x.logical_not()",
                                "x.relu()"])
def test_integer_arithmetic_wraps_as_torch(name, op):
    xs, ys = INT_VALUES[name]
    x, tx = pair(xs, name)
    y, ty = pair(ys, name)
    with np.errstate(all="ignore"):
        a, t = both(op, x=(x, tx), y=(y, ty))
    same(a, t)


@pytest.mark.parametrize("a_name,b_name", [("int8", "uint8"), ("int8", "int16"), ("int32", "int64"),
                                           ("int16", "float16"), ("int32", "bfloat16"), ("uint8", "int32"),
                                           ("bool", "int8"), ("int16", "float32")])
def test_mixed_dtype_arithmetic_matches_torch(a_name, b_name):
    x, tx = pair([1, 2, 3, 100], a_name)
    y, ty = pair([3, 0, 1, 5], b_name)
    for op in ("x + y", "x * y", "y - x" if "bool" not in (a_name, b_name) else "x * 2", "x < y"):
        a, t = both(op, x=(x, tx), y=(y, ty))
        same(a, t)


def test_in_place_ops_on_narrow_integers():
    for name in INTS:
        x, tx = pair([100, -100, 5], name)
        x += ak.tensor([100, -100, 5], dtype=ak.int64)
        tx += torch.tensor([100, -100, 5], dtype=torch.int64)
        same(x, tx)
        x.mul_(3)
        tx.mul_(3)
        same(x, tx)
        with pytest.raises(TypeError):
            x += 1.5  # a float result cannot be written into an integer tensor (torch: RuntimeError)


def test_integer_division_by_zero_is_refused():
    for name in INTS:
        with pytest.raises(RuntimeError, match="ZeroDivisionError"):
            ak.tensor([1], dtype=ak_dt(name)) // ak.tensor([0], dtype=ak_dt(name))


HALF_X = [0.1, -1.5, 3.14159, 65000.0, 1e-5, -0.0, 2.0, 1000.5, 0.333]
HALF_Y = [0.2, 2.5, -2.71828, 10.0, 3.0, 1.0, 1e-3, 0.75, 3.0]


@pytest.mark.parametrize("name", HALVES)
@pytest.mark.parametrize("op", ["x + y", "x - y", "x * y", "x / y", "x * 0.1", "x + 0.3", "x - 0.3", "0.7 - x", "x / 3", "2.5 * x",
                                "x / 0.3", "0.3 / x", "x // 0.3", "x % 0.3", "x ** 0.5", "0.3 * x",
                                "x ** 2", "lib.maximum(x, y)", "x < y", "x == y", "-x", "x.abs()", "x.exp()",
                                "x.log()", "x.sqrt()", "x.sin()", "x.tanh()", "x.sigmoid()", "x.relu()",
                                "x.clamp(-1, 1)", "x.floor()", "x.reciprocal()", "x.float() + y",
                                "x + y.double()", "lib.where(x > y, x, y)", "x.add(y, alpha=3)",
                                "lib.nn.functional.gelu(x)", "x.round()", "x.sum()", "x.mean()",
                                "x.sum(0, keepdim=True)", "x.max()", "x.min()", "x.amax()", "x.argmax()",
                                "x.prod()", "x.softmax(0)", "x.log_softmax(0)", "x.cumsum(0)", "x.var()",
                                "x.std()", "x.logsumexp(0)", "x[x > 0]", "x[1:4]", "x.reshape(3, 3).t()",
                                "lib.cat([x, y])", "lib.stack([x, y])"])
def test_half_ops_compute_in_float32_and_round_once(name, op):
    x, tx = pair(HALF_X, name)
    y, ty = pair(HALF_Y, name)
    with np.errstate(all="ignore"):
        a, t = both(op, x=(x, tx), y=(y, ty))
    if isinstance(a, tuple):
        a, t = a[0], t[0]
    same(a, t)


def test_half_in_place_and_grad():
    for name in HALVES:
        x, tx = pair(HALF_X, name)
        x.mul_(0.1)
        tx.mul_(0.1)
        same(x, tx)
        x.add_(ak.ones(9, dtype=ak_dt(name)))
        tx.add_(torch.ones(9, dtype=t_dt(name)))
        same(x, tx)
        x.exp_()
        tx.exp_()
        same(x, tx)


def test_half_random_and_linspace():
    for name in HALVES:
        r = ak.rand(100, dtype=ak_dt(name))
        assert r.dtype == ak_dt(name) and 0 <= r.float().min().item() and r.float().max().item() <= 1
        assert ak.randn(10, dtype=ak_dt(name)).dtype == ak_dt(name)
        # (linspace is not compared: torch's float16 linspace steps by a float16 step, which drifts)
        assert ak.linspace(0, 1, 7, dtype=ak_dt(name)).dtype == ak_dt(name)


def test_half_matmul_and_unsupported_ops_name_the_dtype():
    x, tx = pair([[0.1, 2.0, -3.5], [4.25, 0.3, 1e-3]], "float16")
    same(x @ x.t(), tx @ tx.t())
    same(ak.nn.functional.linear(x, x), torch.nn.functional.linear(tx, tx))  # float32 sums, rounded once
    # CTC has no 16-bit kernel in PyTorch's CPU build either: the same class, naming the dtype
    lp = ak.randn(5, 2, 4).log_softmax(2).half()
    with pytest.raises(NotImplementedError, match="float16"):
        ak.nn.functional.ctc_loss(lp, ak.tensor([[1, 2], [1, 1]]), [5, 5], [2, 2])


# ---- reductions ---------------------------------------------------------------------------------


@pytest.mark.parametrize("name", INTS)
@pytest.mark.parametrize("op", ["x.sum()", "x.sum(1)", "x.prod()", "x.max()", "x.min()", "x.amax(0)",
                                "x.argmax()", "x.argmin(1)", "x.max(1)[0]", "x.max(1)[1]", "x.cumsum(1)",
                                "x.all()", "x.any()", "x.sum(dtype=dt(name))", "x.sum(dtype=lib.int16)"])
def test_integer_reductions_match_torch(name, op):
    vals = [[100, -100, 27, 127], [-128, 5, 0, 3]] if name == "int8" else [[30000, -2**15, 27, 999], [5, 12, 0, -3]]
    x, tx = pair(vals, name)
    a, t = both(op, x=(x, tx), name=(name, name))
    same(a, t)


def test_sum_of_int32_is_int64_and_does_not_wrap():
    x, tx = pair([2**31 - 1] * 4, "int32")
    same(x.sum(), tx.sum())
    assert x.sum().dtype == ak.int64 and x.sum().item() == 4 * (2**31 - 1)


def test_mean_of_integers_is_refused_as_in_torch():
    with pytest.raises(TypeError):
        ak.tensor([1, 2], dtype=ak.int32).mean()


# ---- indexing with int32 indices ----------------------------------------------------------------


def test_int32_index_tensors_are_accepted_as_in_torch():
    x, tx = ak.arange(20).reshape(4, 5).float(), torch.arange(20).reshape(4, 5).float()
    i, ti = pair([3, 0, -1], "int32")
    j, tj = pair([[0, 1], [2, 0]], "int32")
    same(x[i], tx[ti])
    same(x[:, i], tx[:, ti])
    same(x[i, i], tx[ti, ti])
    k, tk = pair([2, 0], "int32")
    same(x.index_select(1, k), tx.index_select(1, tk))
    same(x.gather(1, j), tx.gather(1, tj))
    same(ak.zeros(4, 5).scatter(1, j, x), torch.zeros(4, 5).scatter(1, tj, tx))
    same(ak.zeros(4, 5).scatter_add(1, j, x), torch.zeros(4, 5).scatter_add(1, tj, tx))
    y, ty = x.clone(), tx.clone()
    y[k] = 7.0
    ty[tk] = 7.0
    same(y, ty)


@pytest.mark.parametrize("name", INTS + HALVES)
def test_indexing_tensors_of_new_dtypes(name):
    x, tx = pair([[1, 2, 3], [4, 5, 6]], name)
    idx, tidx = ak.tensor([1, 0]), torch.tensor([1, 0])
    same(x[idx], tx[tidx])
    same(x[:, 1], tx[:, 1])
    same(x.gather(1, ak.tensor([[0, 0], [2, 1]])), tx.gather(1, torch.tensor([[0, 0], [2, 1]])))
    same(x.index_select(1, idx), tx.index_select(1, tidx))
    same(x.masked_fill(x > 2, 9), tx.masked_fill(tx > 2, 9))
    same(x.t().contiguous(), tx.t().contiguous())
    assert x[1, 2].item() == tx[1, 2].item()


# ---- numpy, save/load, repr ------------------------------------------------------------------


@pytest.mark.parametrize("name", ["int8", "int16", "int32", "float16"])
def test_numpy_round_trip_keeps_the_dtype(name):
    arr = np.array([[1, -2, 3], [4, 5, -6]], dtype=name)
    a = ak.from_numpy(arr)
    assert a.dtype == ak_dt(name) and a.numpy().dtype == arr.dtype
    np.testing.assert_array_equal(a.numpy(), arr)
    assert ak.tensor(arr).dtype == ak_dt(name) and ak.as_tensor(arr).dtype == ak_dt(name)
    assert ak.tensor(arr[0, 0]).dtype == ak_dt(name)  # a numpy scalar keeps its dtype, as in torch
    assert str(torch.from_numpy(arr).dtype) == f"torch.{name}"


def test_bfloat16_has_no_numpy_dtype_as_in_torch():
    x = ak.ones(2, dtype=ak.bfloat16)
    with pytest.raises(TypeError, match="bfloat16"):
        x.numpy()
    assert x.tolist() == [1.0, 1.0] and x[0].item() == 1.0


@pytest.mark.parametrize("name", INTS + HALVES)
def test_save_and_load_round_trip(tmp_path, name):
    x = ak.tensor([[1.5, -2, 3], [4, 65000, -6]], dtype=ak_dt(name)) if name in HALVES else \
        ak.tensor([[1, -2, 3], [4, 127, -128]], dtype=ak_dt(name))
    path = tmp_path / "t.ak"
    ak.save({"x": x, "v": x[:, 1]}, path)
    back = ak.load(path)
    assert back["x"].dtype == x.dtype
    np.testing.assert_array_equal(back["x"].float().numpy(), x.float().numpy())
    np.testing.assert_array_equal(back["v"].float().numpy(), x[:, 1].float().numpy())


@pytest.mark.parametrize("name", INTS + HALVES)
def test_repr_matches_torch(name):
    data = [[1.5, -2.25, 3.0], [4.0, 100.125, -6.0]] if name in HALVES else [[1, -2, 3], [4, 100, -6]]
    a, t = pair(data, name)
    assert repr(a) == repr(t).replace("torch.", "aakaar.")
    a, t = pair(data[0][:1], name)
    assert repr(a) == repr(t).replace("torch.", "aakaar.")


def test_dlpack_round_trip_with_torch():
    for name in INTS + HALVES:
        a, t = pair([1, 2, 3], name)
        same(ak.from_dlpack(t), t)
        same(a, torch.from_dlpack(a))


@pytest.mark.parametrize("name", HALVES)
def test_half_gradients_match_torch(name):
    x, tx = pair([0.5, -1.25, 3.0, 0.1], name)
    x.requires_grad_(True)
    tx.requires_grad_(True)
    (x * x + x.exp() - (x / 3).tanh()).sum().backward()
    (tx * tx + tx.exp() - (tx / 3).tanh()).sum().backward()
    same(x.grad, tx.grad)


@pytest.mark.parametrize("name", ["float16", "bfloat16"])
def test_predicates_and_nan_to_num_of_16_bit_floats_follow_torch(name):
    """Found when the dtypes met the maths API: a predicate of a 16-bit float is bool, and
    nan_to_num's default bounds are the 16-bit dtype's own largest finite values."""
    import torch
    values = [float("nan"), float("inf"), -float("inf"), 1.0, -0.0]
    x, t = ak.tensor(values).to(getattr(ak, name)), torch.tensor(values).to(getattr(torch, name))
    for op in ["isnan", "isinf", "isfinite", "isposinf", "isneginf"]:
        got, want = getattr(ak, op)(x), getattr(torch, op)(t)
        assert got.dtype == ak.bool and got.tolist() == want.tolist(), op
    got, want = ak.nan_to_num(x), torch.nan_to_num(t)
    assert got.dtype == x.dtype and got.tolist() == want.float().tolist()
