"""Binary and unary ops, where, masked_fill on "cuda" against the CPU.

Sizes are chosen not to be multiples of the 256-thread blocks, and operands are
broadcast, transposed and sliced so that both the contiguous and the strided kernels run.
"""
from __future__ import annotations

import numpy as np
import pytest
from cuda_suite_helpers import DTYPES, FLOATS, check, pair, sample

import aakaar

ARITH = {
    "add": lambda a, b: a + b,
    "sub": lambda a, b: a - b,
    "mul": lambda a, b: a * b,
    "div": lambda a, b: a / b,
    "floor_divide": lambda a, b: a // b,
    "remainder": lambda a, b: a % b,
    "pow": lambda a, b: a**b,
    "maximum": aakaar.maximum,
    "minimum": aakaar.minimum,
}
COMPARE = {
    "eq": lambda a, b: a == b,
    "ne": lambda a, b: a != b,
    "lt": lambda a, b: a < b,
    "le": lambda a, b: a <= b,
    "gt": lambda a, b: a > b,
    "ge": lambda a, b: a >= b,
    "logical_and": aakaar.logical_and,
    "logical_or": aakaar.logical_or,
    "logical_xor": aakaar.logical_xor,
}
BOOL_OK = {"add", "mul", "maximum", "minimum"}


def operands(rng, name, dtype, shape_a, shape_b):
    a, b = sample(rng, shape_a, dtype), sample(rng, shape_b, dtype)
    if name in {"floor_divide", "remainder"} and not dtype.is_floating_point:
        b = np.where(b == 0, 3, b).astype(b.dtype)  # integer division by zero is refused
    if name == "pow":
        if dtype.is_floating_point:
            a = np.abs(a) + 0.5
        else:
            a, b = a % 5, np.abs(b) % 4  # small non-negative exponents: no overflow
    return pair(a), pair(b)


SHAPES = [((1031,), (1031,)), ((5, 1, 67), (1, 3, 67)), ((300,), ())]


@pytest.mark.parametrize("shapes", SHAPES, ids=["same", "broadcast", "scalar"])
@pytest.mark.parametrize("dtype", DTYPES, ids=str)
@pytest.mark.parametrize("name", list(ARITH) + list(COMPARE))
def test_binary(rng, name, dtype, shapes):
    if dtype == aakaar.bool and name in ARITH and name not in BOOL_OK:
        pytest.skip("refused for bool on every device")
    f = ARITH.get(name) or COMPARE[name]
    (a_cpu, a_dev), (b_cpu, b_dev) = operands(rng, name, dtype, *shapes)
    rtol = 1e-6 if name == "pow" else 0  # pow comes from the device's libm; the rest is exact IEEE arithmetic
    check(f(a_dev, b_dev), f(a_cpu, b_cpu), rtol=rtol, atol=0)


@pytest.mark.parametrize("name", ["add", "mul", "floor_divide", "remainder", "maximum", "lt", "logical_xor"])
def test_binary_on_strided_views(rng, name):
    f = ARITH.get(name) or COMPARE[name]
    (a_cpu, a_dev), (b_cpu, b_dev) = operands(rng, name, aakaar.int64, (40, 66), (66, 40))
    check(f(a_dev[::3, 1:], b_dev.T[::3, 1:]), f(a_cpu[::3, 1:], b_cpu.T[::3, 1:]))
    (a_cpu, a_dev), (b_cpu, b_dev) = operands(rng, name, aakaar.float64, (40, 66), (66, 40))
    check(f(a_dev[::3, 1:], b_dev.T[::3, 1:]), f(a_cpu[::3, 1:], b_cpu.T[::3, 1:]), rtol=0, atol=0)


def test_float_special_values():
    vals = np.array([0.0, -0.0, 1.5, -1.5, np.inf, -np.inf, np.nan, 7.0, -7.0], dtype=np.float64)
    a_cpu, a_dev = pair(vals[:, None].repeat(9, 1))
    b_cpu, b_dev = pair(vals[None, :].repeat(9, 0))
    for name in ["add", "div", "floor_divide", "remainder", "maximum", "minimum", "pow", "eq", "lt"]:
        f = ARITH.get(name) or COMPARE[name]
        check(f(a_dev, b_dev), f(a_cpu, b_cpu), rtol=1e-12, atol=0)


def test_in_place_and_python_scalars(rng):
    cpu, dev = pair(sample(rng, (3, 129), aakaar.float32))
    cpu2, dev2 = cpu.clone(), dev.clone()
    cpu2 += 2.5
    dev2 += 2.5
    cpu2 *= cpu
    dev2 *= dev
    check(dev2, cpu2)
    check(3 - dev, 3 - cpu)
    check(dev / 7, cpu / 7)
    i_cpu, i_dev = pair(sample(rng, (50,), aakaar.int64))
    check(i_dev / 3, i_cpu / 3)  # true division of integers gives float32
    check(i_dev // 3, i_cpu // 3)


UNARY = {
    "neg": lambda t: -t, "abs": lambda t: t.abs(), "sign": lambda t: t.sign(), "exp": lambda t: t.exp(),
    "log": lambda t: t.abs().log(), "log1p": lambda t: t.abs().log1p(), "expm1": lambda t: t.expm1(),
    "sqrt": lambda t: t.abs().sqrt(), "rsqrt": lambda t: (t.abs() + 0.1).rsqrt(), "sin": lambda t: t.sin(),
    "cos": lambda t: t.cos(), "tanh": lambda t: t.tanh(), "sigmoid": lambda t: t.sigmoid(),
    "relu": lambda t: t.relu(), "gelu": lambda t: t.gelu(), "gelu_tanh": lambda t: t.gelu("tanh"),
    "silu": lambda t: t.silu(), "softplus": lambda t: t.softplus(2.0, 3.0), "floor": lambda t: (t * 3).floor(),
    "ceil": lambda t: (t * 3).ceil(), "round": lambda t: (t * 3).round(), "reciprocal": lambda t: t.reciprocal(),
    "square": lambda t: t.square(), "clamp": lambda t: t.clamp(-0.5, 0.7), "clamp_min": lambda t: t.clamp(min=0.1),
    "logical_not": lambda t: t.logical_not(),
}
INT_UNARY = ["neg", "abs", "sign", "relu", "square", "floor", "ceil", "round", "logical_not"]


@pytest.mark.parametrize("dtype", FLOATS, ids=str)
@pytest.mark.parametrize("name", list(UNARY))
def test_unary_float(rng, name, dtype):
    cpu, dev = pair(sample(rng, (3, 343), dtype))
    f = UNARY[name]
    # The CPU's float32 exp/tanh/sigmoid are its own vectorised approximations.
    tol = 2e-6 if dtype == aakaar.float32 else 1e-13
    check(f(dev), f(cpu), rtol=tol, atol=tol)
    check(f(dev.T), f(cpu.T), rtol=tol, atol=tol)


@pytest.mark.parametrize("dtype", [aakaar.int64, aakaar.uint8, aakaar.bool], ids=str)
@pytest.mark.parametrize("name", INT_UNARY + ["clamp_int"])
def test_unary_integer(rng, name, dtype):
    if dtype == aakaar.bool and name in {"neg", "square", "clamp_int"}:
        pytest.skip("refused for bool on every device")
    cpu, dev = pair(sample(rng, (517,), dtype))
    if dtype == aakaar.bool and name in {"abs", "relu", "floor", "ceil", "round"}:  # refused everywhere, as in PyTorch
        for t in (cpu, dev):
            with pytest.raises(RuntimeError, match="bool"):
                UNARY[name](t) if name in {"abs", "relu"} else getattr(t, name)()
        return
    f = (lambda t: t.clamp(2, 9)) if name == "clamp_int" else {
        "floor": lambda t: t.floor(), "ceil": lambda t: t.ceil(), "round": lambda t: t.round()}.get(name, UNARY[name])
    check(f(dev), f(cpu))


@pytest.mark.parametrize("dtype", [aakaar.int64, aakaar.uint8, aakaar.bool], ids=str)
def test_integer_inputs_behave_as_on_cpu(rng, dtype):
    # Whatever the op layer does with integers (promote to float, refuse), both devices agree.
    cpu, dev = pair(sample(rng, (5,), dtype))
    for name, f in UNARY.items():
        try:
            want = f(cpu)
        except (TypeError, ValueError, RuntimeError) as e:
            with pytest.raises(type(e)):
                f(dev)
            continue
        check(f(dev), want, rtol=2e-6, atol=2e-6)


def test_where_and_masked_fill(rng):
    c_cpu, c_dev = pair(sample(rng, (4, 1, 70), aakaar.bool))
    for dtype in (aakaar.float32, aakaar.int64, aakaar.uint8):
        (a_cpu, a_dev), (b_cpu, b_dev) = pair(sample(rng, (1, 3, 70), dtype)), pair(sample(rng, (70,), dtype))
        check(aakaar.where(c_dev, a_dev, b_dev), aakaar.where(c_cpu, a_cpu, b_cpu))
    x_cpu, x_dev = pair(sample(rng, (4, 3, 70), aakaar.float32))
    check(x_dev.masked_fill(c_dev, -1.0), x_cpu.masked_fill(c_cpu, -1.0), rtol=0, atol=0)


def test_large_strides(rng):
    # A view whose elements lie 997 apart in a storage of 300k elements.
    base_cpu, base_dev = pair(sample(rng, (300_000,), aakaar.float32))
    v_cpu = aakaar.as_strided(base_cpu, (30, 10), (9_970, 997), 11)
    v_dev = aakaar.as_strided(base_dev, (30, 10), (9_970, 997), 11)
    check(v_dev * 2 + v_dev.exp(), v_cpu * 2 + v_cpu.exp(), rtol=2e-6, atol=2e-6)
    check(v_dev.sum(0), v_cpu.sum(0), rtol=1e-5, atol=1e-5)


def test_empty_tensors():
    for shape in [(0,), (3, 0), (0, 5, 2)]:
        a_cpu, a_dev = pair(np.zeros(shape, np.float32))
        check(a_dev + a_dev, a_cpu + a_cpu)
        check(a_dev.exp(), a_cpu.exp())
        check(aakaar.where(a_dev > 0, a_dev, a_dev), aakaar.where(a_cpu > 0, a_cpu, a_cpu))


@pytest.mark.parametrize("dtype", [aakaar.int64, aakaar.float32, aakaar.float64], ids=str)
@pytest.mark.parametrize("name", ["add", "sub"])
def test_alpha_matches_the_cpu(rng, name, dtype):
    # On "cuda", add/sub with alpha are the composite a op (b * alpha); on the CPU,
    # floating tensors take the fused loop: both must agree, out of place and in place.
    alpha = 3 if dtype == aakaar.int64 else -0.75
    (a, ga), (b, gb) = pair(sample(rng, (5, 67), dtype)), pair(sample(rng, (67,), dtype))
    check(getattr(ga, name)(gb, alpha=alpha), getattr(a, name)(b, alpha=alpha))
    getattr(a, name + "_")(b, alpha=alpha)
    getattr(ga, name + "_")(gb, alpha=alpha)
    check(ga, a)


@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
def test_cross_entropy_matches_the_cpu(rng, reduction):
    import aakaar.nn.functional as F

    x_np = rng.standard_normal((37, 11)).astype(np.float32)
    t_np = rng.integers(0, 11, 37)
    x, gx = aakaar.tensor(x_np).requires_grad_(), aakaar.tensor(x_np).to("cuda").requires_grad_()
    t, gt = aakaar.tensor(t_np), aakaar.tensor(t_np).to("cuda")
    loss, gloss = F.cross_entropy(x, t, reduction=reduction), F.cross_entropy(gx, gt, reduction=reduction)
    check(gloss.detach(), loss.detach(), rtol=1e-5, atol=1e-6)
    loss.sum().backward()
    gloss.sum().backward()
    check(gx.grad, x.grad, rtol=1e-5, atol=1e-6)
    with pytest.raises(IndexError, match="out of range for 11 classes"):
        F.cross_entropy(gx, aakaar.tensor(np.full(37, 11)).to("cuda"))
