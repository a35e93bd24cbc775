"""Elementwise ops with broadcasting: every op, every dtype it supports,
Python scalars, in-place variants and their aliasing rules."""

from __future__ import annotations

import math
import operator

import numpy as np
import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

import aakaar
from core_helpers import DTYPES, FLOAT_DTYPES, arrays, assert_matches, np_dtype, pair, random_array, shapes, to_np, view_chains

# ---- reference implementations ---------------------------------------------

def _np_floordiv(a, b):
    return np.floor_divide(a, b)


BINARY = {
    "add": (operator.add, np.add),
    "sub": (operator.sub, np.subtract),
    "mul": (operator.mul, np.multiply),
    "truediv": (operator.truediv, np.true_divide),
    "floordiv": (operator.floordiv, _np_floordiv),
    "mod": (operator.mod, np.mod),
    "pow": (operator.pow, np.power),
    "maximum": (lambda a, b: a.maximum(b), np.maximum),
    "minimum": (lambda a, b: a.minimum(b), np.minimum),
    "eq": (operator.eq, np.equal),
    "ne": (operator.ne, np.not_equal),
    "lt": (operator.lt, np.less),
    "le": (operator.le, np.less_equal),
    "gt": (operator.gt, np.greater),
    "ge": (operator.ge, np.greater_equal),
    "logical_and": (lambda a, b: a.logical_and(b), np.logical_and),
    "logical_or": (lambda a, b: a.logical_or(b), np.logical_or),
    "logical_xor": (lambda a, b: a.logical_xor(b), np.logical_xor),
}
COMPARISONS = {"eq", "ne", "lt", "le", "gt", "ge", "logical_and", "logical_or", "logical_xor"}
BOOL_REJECTED = {"sub", "floordiv", "mod", "pow"}  # bool (op) bool is a TypeError, as in PyTorch


def result_np_dtype(name, dt):
    if name in COMPARISONS:
        return np.bool_
    if name == "truediv" and not dt.is_floating_point:
        return np.float32
    return np_dtype(dt)


def safe_operands(name, a, b):
    """Adjust operands so numpy's result is well defined (no int division by 0, small powers)."""
    if name in ("floordiv", "mod") and a.dtype.kind in "biu":
        b = np.where(b == 0, 1, b).astype(b.dtype)
    if name == "pow":
        if a.dtype.kind in "iu":
            b = (np.abs(b.astype(np.int64)) % 4).astype(b.dtype)
        elif a.dtype.kind == "f":
            a = np.abs(a) + np.asarray(0.5, a.dtype)
    return np.asarray(a), np.asarray(b)  # numpy arithmetic turns 0-d arrays into scalars


def np_binary(name, a, b, out_dt):
    f = BINARY[name][1]
    with np.errstate(all="ignore"):
        if a.dtype == np.bool_ and name in ("add", "mul", "maximum", "minimum"):
            r = {"add": np.logical_or, "mul": np.logical_and, "maximum": np.logical_or, "minimum": np.logical_and}[name](a, b)
        elif name == "truediv":
            r = np.true_divide(a.astype(out_dt), b.astype(out_dt))
        else:
            r = f(a, b)
    return np.asarray(r).astype(out_dt)


@pytest.mark.parametrize("name", list(BINARY))
@given(data=st.data(), dt=st.sampled_from(DTYPES))
def test_binary_op_with_broadcasting(name, dt, data):
    shape = data.draw(shapes(max_dims=4))
    # a broadcast-compatible second shape: drop leading dims and set some to 1
    k = data.draw(st.integers(0, len(shape)))
    shape_b = tuple(1 if data.draw(st.booleans()) else s for s in shape[k:])
    if data.draw(st.booleans()):
        shape, shape_b = shape_b, shape
    a = data.draw(arrays(dtype=dt, shape=shape))
    b = data.draw(arrays(dtype=dt, shape=shape_b))
    a, b = safe_operands(name, a, b)
    op = BINARY[name][0]
    ta, tb = aakaar.from_numpy(a.copy()), aakaar.from_numpy(b.copy())
    if dt == aakaar.bool and name in BOOL_REJECTED:
        with pytest.raises(TypeError, match="bool"):
            op(ta, tb)
        return
    out_dt = result_np_dtype(name, dt)
    got = op(ta, tb)
    ref = np_binary(name, a, b, out_dt)
    if name == "pow" and dt == aakaar.uint8:
        ref = np.power(a.astype(np.uint64), b.astype(np.uint64)).astype(np.uint8)
    assert_matches(got, ref, rtol=2e-5 if dt == aakaar.float32 else 1e-12)
    # the inputs are untouched
    np.testing.assert_array_equal(to_np(ta), a)


@pytest.mark.parametrize("name", ["add", "sub", "mul", "truediv", "floordiv", "mod", "pow", "eq", "lt", "ge"])
@pytest.mark.parametrize("dt", DTYPES)
@pytest.mark.parametrize("scalar", [2, 2.5, True, -3])
def test_binary_with_python_scalars_matches_torch(name, dt, scalar, torch):
    tmap = {aakaar.bool: torch.bool, aakaar.uint8: torch.uint8, aakaar.int64: torch.int64,
            aakaar.float32: torch.float32, aakaar.float64: torch.float64}
    a = random_array(np.random.default_rng(0), (3, 4), dt)
    if name == "pow" and dt != aakaar.bool:
        a = np.abs(a).astype(a.dtype) + np.asarray(1, a.dtype)
    ta, tt = aakaar.from_numpy(a.copy()), torch.from_numpy(a.copy())
    op = BINARY[name][0]
    for reverse in (False, True):
        if dt == aakaar.bool and name == "pow" and scalar is True and not reverse:
            # documented difference: torch computes bool ** True as bool; aakaar rejects bool pow
            with pytest.raises(TypeError, match="bool"):
                op(ta, scalar)
            continue
        try:
            ref = op(scalar, tt) if reverse else op(tt, scalar)
        except (RuntimeError, TypeError, ZeroDivisionError, NotImplementedError):
            with pytest.raises((RuntimeError, TypeError, ValueError)):
                op(scalar, ta) if reverse else op(ta, scalar)
            continue
        if reverse and name in ("floordiv", "mod") and dt != aakaar.bool and not dt.is_floating_point and (a == 0).any():
            continue  # integer division by zero: covered by the bad-input tests
        got = op(scalar, ta) if reverse else op(ta, scalar)
        assert got.dtype == {v: k for k, v in tmap.items()}[ref.dtype], (name, dt, scalar, reverse, ref.dtype)
        np.testing.assert_allclose(to_np(got).astype(np.float64), ref.numpy().astype(np.float64), rtol=1e-5, atol=1e-6)


def test_int_arithmetic_follows_python_semantics():
    a = aakaar.tensor([7, -7, 7, -7, 0])
    b = aakaar.tensor([2, 2, -2, -2, 3])
    assert (a // b).tolist() == [7 // 2, -7 // 2, 7 // -2, -7 // -2, 0]
    assert (a % b).tolist() == [7 % 2, -7 % 2, 7 % -2, -7 % -2, 0]
    assert (a / b).dtype == aakaar.float32
    assert (a ** aakaar.tensor([0, 1, 2, 3, 4])).tolist() == [1, -7, 49, -343, 0]
    big = aakaar.tensor([-(2**63)])
    assert (big // -1).tolist() == [-(2**63)]  # wraps like PyTorch, no SIGFPE
    assert (big % -1).tolist() == [0]
    f = aakaar.tensor([7.5, -7.5, 7.5, -7.5], dtype=aakaar.float64)
    g = aakaar.tensor([2.0, 2.0, -2.0, -2.0], dtype=aakaar.float64)
    assert (f // g).tolist() == [7.5 // 2, -7.5 // 2, 7.5 // -2, -7.5 // -2]
    assert (f % g).tolist() == [7.5 % 2, -7.5 % 2, 7.5 % -2, -7.5 % -2]
    # float division by zero is IEEE, not an error
    r = to_np(aakaar.tensor([1.0, -1.0, 0.0]) / 0.0)
    assert r[0] == math.inf and r[1] == -math.inf and math.isnan(r[2])
    assert (aakaar.tensor([3, 4], dtype=aakaar.uint8) - aakaar.tensor([4, 4], dtype=aakaar.uint8)).tolist() == [255, 0]


UNARY = {
    "neg": np.negative, "abs": np.abs, "sign": lambda x: np.nan_to_num(np.sign(x)),  # torch: sign(NaN) = 0
    "exp": np.exp, "log": np.log, "log1p": np.log1p,
    "expm1": np.expm1, "sqrt": np.sqrt, "rsqrt": lambda x: 1 / np.sqrt(x), "sin": np.sin, "cos": np.cos,
    "tanh": np.tanh, "sigmoid": lambda x: 1 / (1 + np.exp(-x)), "relu": lambda x: np.maximum(x, 0),
    "silu": lambda x: x / (1 + np.exp(-x)), "floor": np.floor, "ceil": np.ceil, "round": np.round,
    "reciprocal": lambda x: 1 / x, "square": np.square,
}
FLOAT_ONLY = {"exp", "log", "log1p", "expm1", "sqrt", "rsqrt", "sin", "cos", "tanh", "sigmoid", "silu", "reciprocal"}
POSITIVE_DOMAIN = {"log", "sqrt", "rsqrt", "log1p"}


@pytest.mark.parametrize("name", list(UNARY))
@given(chain=view_chains(max_steps=3, max_dims=4), )
def test_unary_op_on_views(name, chain):
    a, t, _ = chain
    dt = t.dtype
    if dt == aakaar.bool and name == "neg":
        with pytest.raises(TypeError, match="bool"):
            t.neg()
        return
    if dt == aakaar.bool and name in ("relu", "abs"):  # PyTorch refuses them too (a RuntimeError there)
        with pytest.raises(RuntimeError, match="bool"):
            getattr(t, name)()
        return
    if dt == aakaar.bool and name in ("floor", "ceil", "round"):  # PyTorch has no kernel (NotImplementedError)
        with pytest.raises(NotImplementedError, match="bool"):
            getattr(t, name)()
        return
    if name in POSITIVE_DOMAIN and dt.is_floating_point:
        a = np.abs(a)
        t = t.abs()
    got = getattr(t, name)()
    with np.errstate(all="ignore"):
        if name in FLOAT_ONLY and not dt.is_floating_point:
            ref = UNARY[name](a.astype(np.float32)).astype(np.float32)
        elif dt == aakaar.bool and name == "square":
            ref = a.astype(np.int64)  # PyTorch: square of bool is int64
        elif dt == aakaar.bool:
            ref = a  # floor/ceil/round/sign of a bool is itself
        else:
            ref = np.asarray(UNARY[name](a)).astype(a.dtype)
    assert_matches(got, ref, rtol=1e-5 if ref.dtype != np.float64 else 1e-12)


def test_activations_match_torch(torch):
    x = np.linspace(-30, 30, 241).astype(np.float64)
    for dt, tdt, tol in [(aakaar.float32, torch.float32, 2e-6), (aakaar.float64, torch.float64, 1e-13)]:
        t, r = aakaar.tensor(x, dtype=dt), torch.tensor(x, dtype=tdt)
        F = torch.nn.functional
        checks = [
            (t.sigmoid(), torch.sigmoid(r)), (t.tanh(), torch.tanh(r)), (t.relu(), torch.relu(r)),
            (t.silu(), F.silu(r)), (t.gelu(), F.gelu(r)), (t.gelu("tanh"), F.gelu(r, approximate="tanh")),
            (t.softplus(), F.softplus(r)), (t.softplus(beta=2.0, threshold=5.0), F.softplus(r, beta=2.0, threshold=5.0)),
            (t.expm1(), torch.expm1(r)), (t.abs().log1p(), torch.log1p(r.abs())),
            (t.sign(), torch.sign(r)), (t.clamp(-1, 2), torch.clamp(r, -1, 2)), (t.clamp(min=0.5), torch.clamp(r, min=0.5)),
            (t.clamp(max=-0.5), torch.clamp(r, max=-0.5)), (t.round(), torch.round(r)),
        ]
        for i, (got, ref) in enumerate(checks):
            assert got.dtype == dt
            np.testing.assert_allclose(to_np(got), ref.numpy(), rtol=tol, atol=tol, err_msg=f"check {i}")
    # aakaar.gelu etc. exist at module level too
    assert aakaar.gelu(aakaar.zeros(2)).tolist() == [0.0, 0.0]
    assert aakaar.softplus(aakaar.zeros(1)).tolist()[0] == pytest.approx(math.log(2))


def test_nan_propagation():
    nan = float("nan")
    t = aakaar.tensor([1.0, nan, -2.0])
    assert math.isnan(t.maximum(aakaar.zeros(3)).tolist()[1])
    assert math.isnan(t.minimum(aakaar.zeros(3)).tolist()[1])
    assert math.isnan(t.relu().tolist()[1])
    assert t.sign().tolist()[1] == 0.0  # torch's sign of NaN (numpy's would be NaN)
    assert math.isnan(t.clamp(0, 1).tolist()[1])
    assert (t == t).tolist() == [True, False, True]
    assert (t != t).tolist() == [False, True, False]


def test_comparisons_and_logical_ops_return_bool():
    a = aakaar.tensor([1, 2, 3])
    for r in (a < 2, a <= 2, a > 2, a >= 2, a == 2, a != 2, 2 < a, 2 == a):
        assert r.dtype == aakaar.bool
    assert (a < 2).tolist() == [True, False, False]
    assert (2 < a).tolist() == [False, False, True]
    m, n = aakaar.tensor([True, True, False]), aakaar.tensor([True, False, False])
    assert (m & n).tolist() == [True, False, False]
    assert (m | n).tolist() == [True, True, False]
    assert (m ^ n).tolist() == [False, True, False]
    assert (~m).tolist() == [False, False, True]
    assert (m & True).tolist() == [True, True, False]
    assert a.logical_and(aakaar.tensor([0, 1, 1])).tolist() == [False, True, True]
    assert a.logical_not().tolist() == [False, False, False]
    assert aakaar.tensor([0.0, 2.0]).logical_not().tolist() == [True, False]
    # on integers & and ~ are bitwise, as in torch (tests/core/test_math_ops.py); floats refuse them
    assert (a & a).tolist() == a.tolist() and (~a).tolist() == [-2, -3, -4]
    with pytest.raises(TypeError, match="float"):
        a.float() & a.float()
    with pytest.raises(TypeError, match="float"):
        ~a.float()


# ---- in-place ops -------------------------------------------------------------

INPLACE = ["add_", "sub_", "mul_", "div_", "floor_divide_", "remainder_", "pow_", "maximum_", "minimum_"]


@pytest.mark.parametrize("name", INPLACE)
@pytest.mark.parametrize("dt", FLOAT_DTYPES + [aakaar.int64])
def test_inplace_ops_write_in_place(name, dt, rng):
    a = random_array(rng, (3, 4), dt)
    b = random_array(rng, (4,), dt)
    if name in ("floor_divide_", "remainder_") or (name == "pow_" and dt == aakaar.int64):
        b = np.abs(b) % 3 + np.asarray(1, b.dtype)
    if name == "pow_" and dt.is_floating_point:
        a = np.abs(a)
    ta = aakaar.from_numpy(a.copy())
    ptr, version = ta.data_ptr(), ta._version
    if name == "div_" and dt == aakaar.int64:
        with pytest.raises(TypeError, match="int64"):  # the result would be float
            ta.div_(aakaar.from_numpy(b))
        return
    out_of_place = getattr(ta, name[:-1])(aakaar.from_numpy(b))
    r = getattr(ta, name)(aakaar.from_numpy(b))
    assert r is ta and ta.data_ptr() == ptr
    assert ta._version > version
    assert_matches(ta, to_np(out_of_place))


def test_inplace_operators_and_unary_inplace():
    t = aakaar.ones(2, 3)
    ptr = t.data_ptr()
    t += 1
    t *= aakaar.tensor([1.0, 2.0, 3.0])
    t -= 0.5
    t /= 2
    t **= 2
    assert t.data_ptr() == ptr
    np.testing.assert_allclose(to_np(t), np.tile(((np.array([2, 4, 6]) - 0.5) / 2) ** 2, (2, 1)))
    for name in ["neg_", "abs_", "exp_", "sqrt_", "sigmoid_", "relu_", "tanh_", "floor_", "square_"]:
        x = aakaar.tensor([0.25, 1.5])
        ref = getattr(x, name[:-1])()
        assert getattr(x, name)() is x
        np.testing.assert_allclose(to_np(x), to_np(ref))
    x = aakaar.tensor([-3.0, 0.5, 4.0])
    x.clamp_(-1, 1)
    assert x.tolist() == [-1.0, 0.5, 1.0]
    x = aakaar.tensor([1, -2])
    x.neg_()
    assert x.tolist() == [-1, 2]
    with pytest.raises(TypeError, match="int64"):
        x.exp_()


def test_inplace_with_python_scalar_and_dtype_rules():
    x = aakaar.tensor([1, 2, 3])
    x.add_(2)
    assert x.tolist() == [3, 4, 5] and x.dtype == aakaar.int64
    with pytest.raises(TypeError, match="float32.*int64|int64"):
        x.add_(0.5)  # result float32 can't be cast to int64
    y = aakaar.zeros(3)
    y.add_(aakaar.tensor([1, 2, 3]))  # int into float: fine
    assert y.tolist() == [1.0, 2.0, 3.0]
    b = aakaar.tensor([True, False])
    with pytest.raises(TypeError):
        b.add_(aakaar.tensor([1, 1]))


def test_inplace_aliasing_rules():
    # x += x: same view, elementwise, safe
    x = aakaar.arange(5.0)
    x += x
    assert x.tolist() == [0, 2, 4, 6, 8]
    # overlapping but different views: reads the old values (as if copied first)
    x = aakaar.arange(6.0)
    x[1:] += x[:-1]
    np.testing.assert_array_equal(to_np(x), [0, 1, 3, 5, 7, 9])
    y = aakaar.arange(6.0)
    y[:-1] += y[1:]
    np.testing.assert_array_equal(to_np(y), [1, 3, 5, 7, 9, 5])
    # x.T += x on a square matrix
    m = aakaar.arange(9.0).reshape(3, 3)
    ref = np.arange(9.0).reshape(3, 3)
    mt = m.T
    mt += m
    np.testing.assert_array_equal(to_np(m), (ref.T + ref).T)
    # writing into an expanded tensor is an error (several elements share memory)
    e = aakaar.zeros(1, 3).expand(4, 3)
    with pytest.raises(RuntimeError, match="memory location"):
        e.add_(1)
    with pytest.raises(RuntimeError, match="memory location"):
        e.exp_()
    # the in-place result must keep self's shape
    with pytest.raises(ValueError, match=r"\[3\].*\[2, 3\]|\[2, 3\]"):
        aakaar.zeros(3).add_(aakaar.zeros(2, 3))
    # a view modified in place changes its base
    base = aakaar.zeros(4, 4)
    base[1:3, 1:3].add_(1)
    assert to_np(base).sum() == 4


@given(view_chains(dtype=aakaar.float64, max_steps=3), st.floats(-4, 4))
def test_inplace_on_random_views_matches_numpy(chain, s):
    a, t, base = chain
    assume(all(not (st_ == 0 and n > 1) for st_, n in zip(t.stride(), t.shape)))
    before = to_np(base)
    t.mul_(s).add_(1.0)
    np.testing.assert_allclose(to_np(t), a * s + 1.0)
    # exactly the viewed elements of base changed (compare counts where possible)
    after = to_np(base)
    changed = (after != before).sum()
    assert changed <= t.numel()


def test_where_and_masked_fill():
    c = aakaar.tensor([[True, False, True]])
    a = aakaar.tensor([[1.0], [2.0]])
    b = aakaar.tensor([10, 20, 30])
    r = aakaar.where(c, a, b)
    assert r.dtype == aakaar.float32 and r.shape == (2, 3)
    np.testing.assert_array_equal(to_np(r), np.where(to_np(c), to_np(a), to_np(b)))
    assert aakaar.where(c, 1.5, b).dtype == aakaar.float32
    assert aakaar.where(c, b, 0).tolist() == [[10, 0, 30]]
    assert aakaar.where(c, 1, 0).dtype == aakaar.int64
    x = aakaar.arange(6.0).reshape(2, 3)
    m = aakaar.tensor([True, False, True])
    y = x.masked_fill(m, -1)
    np.testing.assert_array_equal(to_np(y), np.where([True, False, True], -1, np.arange(6.0).reshape(2, 3)))
    assert to_np(x)[0, 0] == 0  # out of place
    assert x.masked_fill_(m, 7.5) is x and to_np(x)[1, 2] == 7.5
    with pytest.raises(TypeError, match="bool"):
        x.masked_fill(aakaar.tensor([1, 0, 1]), 0)


@given(arrays(dtype=aakaar.float64, max_dims=4), st.data())
def test_broadcasting_shape_rule_matches_numpy(a, data):
    shape_b = data.draw(shapes(max_dims=4, max_side=4))
    try:
        ref = np.broadcast_shapes(a.shape, shape_b)
    except ValueError:
        with pytest.raises(ValueError, match="broadcast"):
            aakaar.broadcast_shapes(a.shape, shape_b)
        with pytest.raises(ValueError, match=str(list(shape_b)).replace("[", r"\[").replace("]", r"\]")):
            aakaar.from_numpy(a) + aakaar.zeros(*shape_b, dtype=aakaar.float64)
        return
    assert aakaar.broadcast_shapes(a.shape, shape_b) == ref
    t = aakaar.from_numpy(a) + aakaar.zeros(*shape_b, dtype=aakaar.float64)
    assert t.shape == ref
    np.testing.assert_array_equal(to_np(t), np.broadcast_to(a, ref))


# ---- add / sub with alpha ---------------------------------------------------

ALPHA_CASES = [  # (dtype, alpha)
    (aakaar.float32, 0.5), (aakaar.float32, -3), (aakaar.float64, 1e-3), (aakaar.float64, 2),
    (aakaar.int64, 3), (aakaar.int64, -1), (aakaar.uint8, 2),
]


@pytest.mark.parametrize("name", ["add", "sub"])
@pytest.mark.parametrize("dt,alpha", ALPHA_CASES)
@pytest.mark.parametrize("shapes", [((3, 4), (3, 4)), ((3, 4), (4,)), ((2, 1, 5), (3, 1))])
def test_add_sub_alpha_matches_torch(name, dt, alpha, shapes, torch):
    # Floating CPU tensors take the fused one-pass loop, the others the composite;
    # both must give torch's values and dtypes, out of place and in place.
    tmap = {aakaar.uint8: torch.uint8, aakaar.int64: torch.int64, aakaar.float32: torch.float32,
            aakaar.float64: torch.float64}
    rng = np.random.default_rng(abs(hash((name, alpha))) % 1000)
    a, b = random_array(rng, shapes[0], dt), random_array(rng, shapes[1], dt)
    ref = getattr(torch.from_numpy(a.copy()), name)(torch.from_numpy(b.copy()), alpha=alpha)
    got = getattr(aakaar.from_numpy(a.copy()), name)(aakaar.from_numpy(b.copy()), alpha=alpha)
    assert got.dtype == dt and tuple(got.shape) == tuple(ref.shape)
    rtol = 1e-6 if dt == aakaar.float32 else 1e-14
    np.testing.assert_allclose(to_np(got).astype(np.float64), ref.numpy().astype(np.float64), rtol=rtol, atol=rtol)
    # module-level spelling
    np.testing.assert_array_equal(to_np(getattr(aakaar, name)(aakaar.from_numpy(a), aakaar.from_numpy(b), alpha=alpha)),
                                  to_np(got))
    if tuple(ref.shape) == shapes[0]:  # in place: self keeps its shape
        x = aakaar.from_numpy(a.copy())
        out = getattr(x, name + "_")(aakaar.from_numpy(b.copy()), alpha=alpha)
        assert out is x
        np.testing.assert_allclose(to_np(x).astype(np.float64), ref.numpy().astype(np.float64), rtol=rtol, atol=rtol)


def test_add_alpha_on_views_and_aliases():
    # strided self and other, a transposed other, and the aliasing rules of add_
    base = np.arange(24.0, dtype=np.float32).reshape(4, 6)
    t = aakaar.from_numpy(base.copy())
    other = np.arange(12.0, dtype=np.float32).reshape(3, 4)
    t[:, ::2].add_(aakaar.from_numpy(other).T, alpha=-2.0)  # strided self, transposed other
    ref = base.copy()
    ref[:, ::2] += -2.0 * other.T
    np.testing.assert_array_equal(to_np(t), ref)
    x = aakaar.arange(5.0)
    x.add_(x, alpha=2.0)  # same view: elementwise, safe
    assert x.tolist() == [0, 3, 6, 9, 12]
    y = aakaar.arange(6.0)
    y[1:].add_(y[:-1], alpha=2.0)  # overlapping views read the old values
    np.testing.assert_array_equal(to_np(y), [0, 1, 4, 7, 10, 13])
    z = aakaar.arange(6.0)
    z.sub_(z[0], alpha=0.5)  # a 0-d view of self
    np.testing.assert_array_equal(to_np(z), np.arange(6.0))
    with pytest.raises(RuntimeError, match="memory location"):
        aakaar.zeros(1, 3).expand(4, 3).add_(aakaar.ones(3), alpha=2.0)
    with pytest.raises(ValueError, match=r"\[2, 3\]"):
        aakaar.zeros(3).add_(aakaar.ones(2, 3), alpha=2.0)


def test_add_alpha_bad_inputs():
    with pytest.raises(TypeError, match="alpha must be an integer"):
        aakaar.tensor([1, 2]).add(aakaar.tensor([1, 2]), alpha=0.5)
    with pytest.raises(TypeError, match="alpha must be an integer"):
        aakaar.tensor([1, 2]).sub_(aakaar.tensor([1, 2]), alpha=0.5)
    # A bool alpha needs a bool result (a bool result takes an integer alpha: a or (b and alpha != 0)).
    with pytest.raises(RuntimeError, match="bool alpha"):
        aakaar.tensor([1]).add(aakaar.tensor([1]), alpha=True)
    with pytest.raises(TypeError, match="bool"):
        aakaar.tensor([True]).sub(aakaar.tensor([True]), alpha=2)
    with pytest.raises(TypeError, match="alpha: expected a number"):
        aakaar.ones(2).add(1.0, alpha="x")
    with pytest.raises(TypeError):
        aakaar.ones(2).add(aakaar.ones(2), 2.0)  # alpha is keyword-only, as in torch


def test_add_alpha_gradients_and_graph():
    # On tensors that require grad the composite is recorded: gradients are 1 and alpha.
    w = aakaar.tensor([1.0, 2.0]).requires_grad_()
    v = aakaar.tensor([3.0, 4.0]).requires_grad_()
    (w.add(v, alpha=2.5).sum() + w.sub(v, alpha=3).sum()).backward()
    assert w.grad.tolist() == [2.0, 2.0] and v.grad.tolist() == [-0.5, -0.5]
    # in place on a non-leaf in the graph keeps its history
    w.grad = None
    h = w * 1.0
    h.add_(v, alpha=-2.0)
    h.sum().backward()
    assert w.grad.tolist() == [1.0, 1.0]
    # in place on a leaf that requires grad is refused, as for add_ without alpha
    with pytest.raises(RuntimeError, match="leaf"):
        w.add_(v, alpha=2.0)
    # under no_grad the fused update changes the leaf
    with aakaar.no_grad():
        w.add_(aakaar.ones(2), alpha=-0.5)
    assert w.tolist() == [0.5, 1.5]
    # and counts as a modification: a backward that saved the tensor refuses to run
    e = w.exp()  # saves its output
    with aakaar.no_grad():
        e.add_(aakaar.ones(2), alpha=2.0)
    with pytest.raises(RuntimeError, match="modified"):
        e.sum().backward()


# ---- lerp --------------------------------------------------------------------

LERP_WEIGHTS = [0.0, 0.25, 0.5, 0.9, 1.0, -0.5, 1.5, 2, True]


@pytest.mark.parametrize("dt", [aakaar.float32, aakaar.float64])
@pytest.mark.parametrize("weight", LERP_WEIGHTS, ids=repr)
@pytest.mark.parametrize("shapes", [((3, 4), (3, 4)), ((3, 4), (4,)), ((2, 1, 5), (3, 1))])
def test_lerp_matches_torch(dt, weight, shapes, torch):
    # A number as weight on the CPU takes the fused loop (torch's formula: from
    # the nearer end, so w = 0 gives self and w = 1 gives end exactly).
    tdt = torch.float32 if dt == aakaar.float32 else torch.float64
    rng = np.random.default_rng(len(shapes[1]) * 10 + int(weight * 4))
    a, b = random_array(rng, shapes[0], dt), random_array(rng, shapes[1], dt)
    ref = torch.from_numpy(a.copy()).lerp(torch.from_numpy(b.copy()), weight)
    got = aakaar.from_numpy(a.copy()).lerp(aakaar.from_numpy(b.copy()), weight)
    assert got.dtype == dt and tuple(got.shape) == tuple(ref.shape) and ref.dtype == tdt
    rtol = 1e-6 if dt == aakaar.float32 else 1e-14
    np.testing.assert_allclose(to_np(got), ref.numpy(), rtol=rtol, atol=rtol)
    if weight in (0.0, 1.0):
        np.testing.assert_array_equal(to_np(got), np.broadcast_to(a if weight == 0.0 else b, ref.shape))
    np.testing.assert_array_equal(to_np(aakaar.lerp(aakaar.from_numpy(a), aakaar.from_numpy(b), weight)), to_np(got))
    if tuple(ref.shape) == shapes[0]:
        x = aakaar.from_numpy(a.copy())
        v0 = x._version
        assert x.lerp_(aakaar.from_numpy(b.copy()), weight) is x
        assert x._version > v0
        np.testing.assert_allclose(to_np(x), ref.numpy(), rtol=rtol, atol=rtol)


@pytest.mark.parametrize("dt", ["float16", "bfloat16"])
@pytest.mark.parametrize("weight", [0.1, 0.5, 0.9, 1.5])
def test_lerp_16bit_is_float32_math_rounded_once_as_torch(dt, weight, torch):
    # The lerp_scalar kernels are float32/float64: a 16-bit lerp with a number weight runs in float32
    # and rounds once, as torch's (its CPU lerp computes 16-bit floats in float): the same bits.
    rng = np.random.default_rng(int(weight * 10))
    a, b = rng.standard_normal((6, 37)).astype(np.float32), rng.standard_normal((37,)).astype(np.float32)
    ta, tb = torch.from_numpy(a).to(getattr(torch, dt)), torch.from_numpy(b).to(getattr(torch, dt))
    xa, xb = aakaar.from_numpy(a).to(getattr(aakaar, dt)), aakaar.from_numpy(b).to(getattr(aakaar, dt))
    ref = ta.lerp(tb, weight).float().numpy()
    got = xa.lerp(xb, weight)
    assert got.dtype == getattr(aakaar, dt)
    np.testing.assert_array_equal(got.float().numpy(), ref)
    x = xa.clone()
    assert x.lerp_(xb, weight) is x
    np.testing.assert_array_equal(x.float().numpy(), ref)


def test_lerp_tensor_weight_matches_torch(torch):
    rng = np.random.default_rng(3)
    a, b = rng.standard_normal((4, 5)), rng.standard_normal((5,))
    w = rng.uniform(-0.5, 1.5, (4, 1))
    ref = torch.from_numpy(a).lerp(torch.from_numpy(b), torch.from_numpy(w))
    got = aakaar.from_numpy(a).lerp(aakaar.from_numpy(b), aakaar.from_numpy(w))
    np.testing.assert_allclose(to_np(got), ref.numpy(), rtol=1e-14, atol=1e-14)
    x = aakaar.from_numpy(a.copy())
    x.lerp_(aakaar.from_numpy(b), aakaar.from_numpy(w))
    np.testing.assert_allclose(to_np(x), ref.numpy(), rtol=1e-14, atol=1e-14)


def test_lerp_gradients_match_torch(torch):
    # Recorded as ops: d/dself = 1 - w, d/dend = w, d/dweight = end - self.
    rng = np.random.default_rng(4)
    a, b, w = rng.standard_normal((3, 4)), rng.standard_normal((4,)), rng.uniform(0, 1, (3, 1))
    g = rng.standard_normal((3, 4))
    grads = {}
    for lib, make in (("ak", aakaar.from_numpy), ("torch", torch.from_numpy)):
        ta, tb, tw = (make(v.copy()).requires_grad_() for v in (a, b, w))
        (ta.lerp(tb, tw) * make(g)).sum().backward()
        ta2, tb2 = (make(v.copy()).requires_grad_() for v in (a, b))
        (ta2.lerp(tb2, 0.3) * make(g)).sum().backward()
        grads[lib] = [np.asarray(t.grad.numpy() if lib == "torch" else to_np(t.grad)) for t in (ta, tb, tw, ta2, tb2)]
    for got, ref in zip(grads["ak"], grads["torch"]):
        np.testing.assert_allclose(got, ref, rtol=1e-12, atol=1e-12)


def test_lerp_aliases_and_graph():
    x = aakaar.arange(5.0)
    x.lerp_(x, 0.3)  # same view: elementwise, safe
    assert x.tolist() == [0, 1, 2, 3, 4]
    y = aakaar.arange(6.0)
    y[1:].lerp_(y[:-1], 0.5)  # overlapping views read the old values
    np.testing.assert_array_equal(to_np(y), [0, 0.5, 1.5, 2.5, 3.5, 4.5])
    # a leaf that requires grad refuses in-place changes; under no_grad the fused loop changes it
    w = aakaar.tensor([1.0, 2.0]).requires_grad_()
    with pytest.raises(RuntimeError, match="leaf"):
        w.lerp_(aakaar.zeros(2), 0.5)
    with aakaar.no_grad():
        w.lerp_(aakaar.zeros(2), 0.5)
    assert w.tolist() == [0.5, 1.0]
    # an in-place lerp on a non-leaf keeps its history
    w.grad = None
    h = w * 1.0
    h.lerp_(aakaar.ones(2), 0.25)
    h.sum().backward()
    assert w.grad.tolist() == [0.75, 0.75]


def test_lerp_bad_inputs():
    with pytest.raises(TypeError, match="floating-point"):
        aakaar.tensor([1, 2]).lerp(aakaar.tensor([3, 4]), 0.5)
    with pytest.raises(TypeError, match="for `end` but got dtype float64"):
        aakaar.zeros(2).lerp(aakaar.zeros(2, dtype=aakaar.float64), 0.5)
    with pytest.raises(TypeError, match="for `weight` but got dtype float64"):
        aakaar.zeros(2).lerp(aakaar.zeros(2), aakaar.zeros(2, dtype=aakaar.float64))
    with pytest.raises(TypeError, match="end must be a Tensor, got float"):
        aakaar.zeros(2).lerp(1.0, 0.5)
    with pytest.raises(TypeError, match="weight: expected a number"):
        aakaar.zeros(2).lerp(aakaar.ones(2), "x")
    with pytest.raises(ValueError, match=r"\[2, 3\]"):
        aakaar.zeros(3).lerp_(aakaar.ones(2, 3), 0.5)
    with pytest.raises(RuntimeError, match="memory location"):
        aakaar.zeros(1, 3).expand(4, 3).lerp_(aakaar.ones(3), 0.5)
