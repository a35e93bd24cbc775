"""Regression tests for what the differential fuzz's groups "math" and "sortconv" found
(issue 15; tests/core/fuzz_torch_math.py): new dtypes in promotion, the maths API, sorting
and scans. Each compares with torch.
"""

from __future__ import annotations

import numpy as np
import pytest

import aakaar as ak

torch = pytest.importorskip("torch")


def _both(values, dtype):
    arr = np.array(values, dtype="float32" if dtype in ("float16", "bfloat16") else dtype)
    a, t = ak.tensor(arr), torch.tensor(arr)
    if dtype in ("float16", "bfloat16"):
        a, t = a.to(getattr(ak, dtype)), t.to(getattr(torch, dtype))
    return a, t


def _same(a, t):
    assert str(a.dtype).split(".")[-1] == str(t.dtype).split(".")[-1]
    assert tuple(a.shape) == tuple(t.shape)
    if a.dtype in (ak.float16, ak.bfloat16):
        a, t = a.float(), t.float()
    np.testing.assert_array_equal(a.numpy(), t.numpy())


# ---- promotion: a 0-d tensor beside a dimensioned one ----

@pytest.mark.parametrize(
    "dims,zero",
    [("uint8", "int64"), ("int8", "int32"), ("bfloat16", "float32"), ("float16", "float64"), ("int16", "float64"),
     ("bool", "int8"), ("bool", "float16"), ("int32", "bool"), ("float32", "int64")],
)
def test_a_0d_tensor_counts_only_when_of_a_higher_kind(dims, zero):
    a, t = _both([1, 2, 3], dims)
    a0, t0 = _both(2, zero)
    for f in (lambda x, y: x + y, lambda x, y: y * x, lambda x, y: x.maximum(y)):
        _same(f(a, a0), f(t, t0))
    assert ak.result_type(a, a0) == getattr(ak, str(torch.result_type(t, t0)).split(".")[-1])
    # Two 0-d tensors, or two dimensioned ones: the promotion table.
    _same(a[0] + a0, t[0] + t0)
    _same(a + a0.reshape(1), t + t0.reshape(1))


def test_the_0d_rule_holds_in_place_and_in_where():
    a, t = _both([250, 3], "uint8")
    a0, t0 = _both(10, "int64")
    a += a0
    t += t0
    _same(a, t)  # wraps in uint8, no "can't cast int64 to uint8"
    cond = [True, False]
    _same(ak.where(ak.tensor(cond), a, a0), torch.where(torch.tensor(cond), t, t0))


# ---- bool add, and division by zero where nothing is divided ----

@pytest.mark.parametrize("alpha", [1, 2, 0, True, False])
def test_bool_add_takes_an_integer_alpha(alpha):
    a, t = _both([True, False, False], "bool")
    b, tb = _both([False, False, True], "bool")
    _same(a.add(b, alpha=alpha), t.add(tb, alpha=alpha))
    _same(a + b, t + tb)


def test_a_bool_alpha_needs_a_bool_result():
    for lib in (ak, torch):
        with pytest.raises(RuntimeError):
            lib.tensor([1, 2]).add(lib.tensor([1, 2]), alpha=True)


@pytest.mark.parametrize("op", ["floor_divide", "remainder", "fmod"])
def test_integer_division_by_zero_of_an_empty_result_is_empty(op):
    a, t = _both(np.zeros((1, 0)), "int32")
    _same(getattr(a, op)(0), getattr(t, op)(0))
    _same(getattr(a, op)(ak.tensor([0])), getattr(t, op)(torch.tensor([0])))
    with pytest.raises(RuntimeError, match="ZeroDivisionError"):
        getattr(ak.tensor([1]), op)(0)  # something to divide: refused, as torch


@pytest.mark.parametrize("op", ["floor", "ceil", "round", "trunc"])
def test_rounding_a_bool_is_refused_like_torch(op):
    for lib in (ak, torch):
        with pytest.raises(NotImplementedError):
            getattr(lib.tensor([True, False]), op)()


@pytest.mark.parametrize("op", ["maximum", "minimum", "atan2", "hypot"])
def test_a_python_number_operand_where_torch_takes_only_tensors(op):
    # A documented acceptance (fuzz_torch_math._scalar_operand_we_accept): the value is torch's with
    # the number as a 0-d tensor of the tensor's kind.
    a, t = _both([0.5, -2.0, float("nan")], "float32")
    _same(getattr(a, op)(3), getattr(t, op)(torch.tensor(3.0)))


def test_float16_times_a_large_float_is_computed_in_float32():
    # The number enters unrounded (1e10 is inf in float16, and 0 * inf would be NaN).
    a, t = _both([0.0, -0.0, 2.75, 1e-40], "float16")
    _same(a.mul(1e10), t.mul(1e10))
    _same(a * 1e10, t * 1e10)


def test_sub_of_a_python_bool_is_refused_as_the_operator_is():
    for lib in (ak, torch):
        x = lib.tensor([1.5]).to(lib.float16)
        with pytest.raises(RuntimeError):
            x.sub(False)
        with pytest.raises(RuntimeError):
            x - True
    a, t = _both([1.5, 2.0], "float16")
    _same(a.add(True), t.add(True))  # add takes it (a bool adds as the number it is)


@pytest.mark.parametrize("src", ["float32", "float64"])
@pytest.mark.parametrize("dst", ["int8", "int16", "int32", "uint8", "int64"])
def test_float_to_integer_conversion_out_of_range_matches_torch(src, dst):
    # int8/int16/int32 through int32 (INT32_MIN when out of its range, then the low bits), uint8 and
    # int64 through int64: what PyTorch's casts do on x86, made defined behaviour here.
    v = [3e9, 40000.0, 1e10, float("nan"), -3e9, 200.0, -129.0, 2.0**31, -(2.0**31) - 1, 1e20, float("inf"), -7.9]
    a = ak.tensor(v, dtype=getattr(ak, src)).to(getattr(ak, dst))
    t = torch.tensor(v, dtype=getattr(torch, src)).to(getattr(torch, dst))
    _same(a, t)


@pytest.mark.parametrize("dtype", ["int8", "int16", "int32", "int64"])
def test_negative_integer_exponent_tensors_as_torch(dtype):
    # torch computes a tensor of negative exponents (1 / base^-e truncated: 2 ** -1 == 0, (-1) ** -3 == -1)
    # and refuses only a negative number.
    base = [2, -1, 1, 0, -1, 3, -2, 1]
    exp = [-1, -3, -5, -1, -2, 0, -127, 2]
    a, b = ak.tensor(base, dtype=getattr(ak, dtype)), ak.tensor(exp, dtype=getattr(ak, dtype))
    t, u = torch.tensor(base, dtype=getattr(torch, dtype)), torch.tensor(exp, dtype=getattr(torch, dtype))
    _same(a ** b, t ** u)
    _same(ak.pow(a, b), torch.pow(t, u))
    _same(a.clone().pow_(b), t.clone().pow_(u))
    _same(ak.tensor([True, False]) ** b[:2], torch.tensor([True, False]) ** u[:2])
    _same(1 ** b, 1 ** u)
    _same(a ** ak.tensor(-1), t ** torch.tensor(-1))
    with pytest.raises(RuntimeError):
        torch.tensor([2]) ** -1
    with pytest.raises(RuntimeError, match="negative integer powers"):
        ak.tensor([2]) ** -1


# ---- sorting and scans ----

@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
@pytest.mark.parametrize("op", ["cumprod", "cummax", "cummin", "logcumsumexp", "sort", "topk"])
def test_scans_and_sorts_of_16_bit_floats(dtype, op):
    a, t = _both([[1.5, float("nan"), 3.0, -2.0], [0.5, 2.0, 2.0, -1.0]], dtype)
    if op == "topk":
        ra, rt = a.topk(2, 1), t.topk(2, 1)
    else:
        ra, rt = getattr(a, op)(1), getattr(t, op)(1)
    if isinstance(rt, torch.Tensor):
        _same(ra, rt)
    else:
        _same(ra[0], rt[0])
        _same(ra[1], rt[1])


def test_conv2d_refuses_what_torch_refuses():
    for lib in (ak, torch):
        F = lib.nn.functional
        with pytest.raises(RuntimeError):  # no output channel
            F.conv2d(lib.zeros(1, 1, 4, 5), lib.zeros(0, 1, 2, 2))
        with pytest.raises(RuntimeError):  # an empty plane of a nonempty batch
            F.conv2d(lib.zeros(1, 1, 0, 5), lib.zeros(1, 1, 2, 2), padding=5)
        with pytest.raises(RuntimeError):  # a kernel of size 0
            F.conv2d(lib.zeros(1, 2, 5, 3), lib.zeros(4, 2, 0, 1))


def test_conv2d_of_zero_channels_gives_out_channels_of_bias():
    # A documented divergence (fuzz_torch_math._conv_check): torch's result has 0 channels.
    out = ak.nn.functional.conv2d(ak.zeros(1, 0, 5, 3), ak.zeros(4, 0, 2, 1), ak.arange(4.0), 1, 5)
    assert tuple(out.shape) == (1, 4, 14, 13)
    assert torch.nn.functional.conv2d(torch.zeros(1, 0, 5, 3), torch.zeros(4, 0, 2, 1), None, 1, 5).shape[1] == 0
    np.testing.assert_array_equal(out.numpy()[0, :, 3, 4], [0.0, 1.0, 2.0, 3.0])


@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
def test_max_pool2d_of_16_bit_floats(dtype):
    a, t = _both(np.arange(50, dtype=np.float32).reshape(1, 2, 5, 5) % 7, dtype)
    ra = ak.nn.functional.max_pool2d(a, 2, 1, 1, 1, True, return_indices=True)
    rt = torch.nn.functional.max_pool2d(t, 2, 1, 1, 1, True, return_indices=True)
    _same(ra[0], rt[0])
    _same(ra[1], rt[1])


def test_topk_of_a_0d_tensor_with_k_0():
    for k in (0, 1):
        va, ia = ak.tensor(3.5).topk(k)
        vt, it = torch.tensor(3.5).topk(k)
        _same(va, vt)
        _same(ia, it)


def test_logcumsumexp_checks_the_dim_before_the_dtype():
    for lib in (ak, torch):
        with pytest.raises(IndexError):
            lib.tensor(5).logcumsumexp(-2)
        with pytest.raises(NotImplementedError):
            lib.tensor([5], dtype=lib.uint8).logcumsumexp(0)


@pytest.mark.parametrize("dtype", ["int32", "float64", "float16", "int64"])
def test_cumsum_and_cumprod_take_a_dtype(dtype):
    a, t = _both([3, 100, 200], "uint8")
    for op in ("cumsum", "cumprod"):
        _same(getattr(a, op)(0, dtype=getattr(ak, dtype)), getattr(t, op)(0, dtype=getattr(torch, dtype)))


def test_topk_of_bool_is_computed_as_torch_computes_it_on_cuda():
    # A documented acceptance (fuzz_torch_math._bool_topk_we_accept): torch's CPU topk refuses bool.
    with pytest.raises(RuntimeError, match="bool"):
        torch.tensor([True, False]).topk(1)
    v, i = ak.tensor([False, True, True]).topk(2)
    assert v.tolist() == [True, True] and sorted(i.tolist()) == [1, 2]


def test_in_place_op_in_the_graph_refuses_a_broadcast_that_widens_self():
    # Found by the autograd group: with history, c.mul_(y) wrote the (2, 2, 2) product into (2, 2, 1).
    for lib in (ak, torch):
        c = lib.zeros(2, 2, 1, dtype=lib.float64, requires_grad=True) * 1
        y = lib.zeros(1, 2, dtype=lib.float64, requires_grad=True)
        with pytest.raises(RuntimeError, match="broadcast shape"):
            c.mul_(y)
