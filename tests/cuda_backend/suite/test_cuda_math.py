"""The maths API's elementwise ops (core/elementwise_math.h) on "cuda" against the CPU:
trigonometric and hyperbolic functions, predicates, nan_to_num, the activations, atan2,
fmod, copysign, hypot, fmax/fmin, logaddexp, div's rounding modes, bitwise ops and shifts,
on contiguous and strided operands, special values included, with gradients."""
from __future__ import annotations

import math

import numpy as np
import pytest
from cuda_suite_helpers import FLOATS, check, pair, sample

import aakaar
import aakaar.nn.functional as F

SPECIAL = np.array([0.0, -0.0, math.inf, -math.inf, math.nan, 1e30, -1e30, 0.5, -0.5, 3.0, -3.0, 7.25])

UNARY = {
    "tan": lambda t: t.tan(), "asin": lambda t: t.asin(), "acos": lambda t: t.acos(), "atan": lambda t: t.atan(),
    "sinh": lambda t: t.sinh(), "cosh": lambda t: t.cosh(), "asinh": lambda t: t.asinh(),
    "acosh": lambda t: t.acosh(), "atanh": lambda t: t.atanh(), "log2": lambda t: t.log2(),
    "log10": lambda t: t.log10(), "exp2": lambda t: t.exp2(), "trunc": lambda t: t.trunc(),
    "frac": lambda t: t.frac(), "isnan": lambda t: t.isnan(), "isinf": lambda t: t.isinf(),
    "isposinf": lambda t: t.isposinf(), "isneginf": lambda t: t.isneginf(), "isfinite": lambda t: t.isfinite(),
    "nan_to_num": lambda t: t.nan_to_num(nan=1.0, posinf=2.0, neginf=-3.0),
    "nan_to_num_default": lambda t: t.nan_to_num(),
    "hardsigmoid": F.hardsigmoid, "hardswish": F.hardswish, "hardtanh": lambda t: F.hardtanh(t, -0.5, 2.0),
    "mish": F.mish, "selu": F.selu, "celu": lambda t: F.celu(t, 0.5), "logsigmoid": F.logsigmoid,
    "softshrink": lambda t: F.softshrink(t, 0.3), "hardshrink": lambda t: F.hardshrink(t, 0.3),
    "threshold": lambda t: F.threshold(t, 0.1, -2.0),
}


@pytest.mark.parametrize("dtype", FLOATS, ids=str)
@pytest.mark.parametrize("name", list(UNARY))
def test_unary(rng, name, dtype):
    f = UNARY[name]
    cpu, dev = pair(np.concatenate([SPECIAL, sample(rng, (331,), aakaar.float64) * 3]).astype(
        np.float32 if dtype == aakaar.float32 else np.float64))
    tol = 4e-6 if dtype == aakaar.float32 else 1e-13  # libm (host or device) to a few ulps
    check(f(dev), f(cpu), rtol=tol, atol=tol)
    m_cpu, m_dev = cpu[12:341].reshape(7, 47), dev[12:341].reshape(7, 47)
    check(f(m_dev.T), f(m_cpu.T), rtol=tol, atol=tol)  # the strided kernel


BINARY = {
    "atan2": lambda a, b: a.atan2(b), "fmod": lambda a, b: a.fmod(b), "copysign": lambda a, b: a.copysign(b),
    "hypot": lambda a, b: a.hypot(b), "fmax": lambda a, b: a.fmax(b), "fmin": lambda a, b: a.fmin(b),
    "logaddexp": lambda a, b: a.logaddexp(b), "div_trunc": lambda a, b: a.div(b, rounding_mode="trunc"),
    "div_floor": lambda a, b: a.div(b, rounding_mode="floor"),
}


@pytest.mark.parametrize("dtype", FLOATS, ids=str)
@pytest.mark.parametrize("name", list(BINARY))
def test_binary_float(rng, name, dtype):
    f = BINARY[name]
    a_cpu, a_dev = pair(SPECIAL[:, None].repeat(12, 1).astype(np.float32 if dtype == aakaar.float32 else np.float64))
    b_cpu, b_dev = pair(SPECIAL.astype(np.float32 if dtype == aakaar.float32 else np.float64))  # broadcast
    tol = 4e-6 if dtype == aakaar.float32 else 1e-13
    check(f(a_dev, b_dev), f(a_cpu, b_cpu), rtol=tol, atol=tol)
    (x_cpu, x_dev), (y_cpu, y_dev) = pair(sample(rng, (5, 67), dtype)), pair(sample(rng, (67, 5), dtype))
    check(f(x_dev, y_dev.T), f(x_cpu, y_cpu.T), rtol=tol, atol=tol)


@pytest.mark.parametrize("dtype", [aakaar.int64, aakaar.uint8, aakaar.bool], ids=str)
def test_bitwise_and_integer_ops(rng, dtype):
    (a_cpu, a_dev), (b_cpu, b_dev) = pair(sample(rng, (3, 129), dtype)), pair(sample(rng, (129,), dtype))
    for f in (lambda a, b: a & b, lambda a, b: a | b, lambda a, b: a ^ b, lambda a, b: ~a,
              lambda a, b: a.fmax(b), lambda a, b: a.fmin(b)):
        check(f(a_dev, b_dev), f(a_cpu, b_cpu))
    if dtype == aakaar.bool:
        return
    counts = np.arange(129) % (70 if dtype == aakaar.int64 else 12)
    n_cpu, n_dev = pair(counts.astype(np.int64 if dtype == aakaar.int64 else np.uint8))
    check(a_dev << n_dev, a_cpu << n_cpu)
    check(a_dev >> n_dev, a_cpu >> n_cpu)
    d_cpu, d_dev = pair(np.where(b_cpu.numpy() == 0, 3, b_cpu.numpy()).astype(b_cpu.numpy().dtype))
    check(a_dev.fmod(d_dev), a_cpu.fmod(d_cpu))
    check(a_dev.div(d_dev, rounding_mode="trunc"), a_cpu.div(d_cpu, rounding_mode="trunc"))
    check(a_dev.trunc(), a_cpu.trunc())
    check(a_dev.isnan(), a_cpu.isnan())


def test_gradients_on_the_device(rng):
    x = sample(rng, (4, 33), aakaar.float64) * 0.9
    cpu, dev = pair(x)
    cpu.requires_grad_()
    dev.requires_grad_()
    fs = [lambda t: t.tan() + t.asinh() + t.atan(), lambda t: F.mish(t) + F.hardswish(t * 4) + F.selu(t),
          lambda t: t.atan2(t * t + 0.5) + t.hypot(t + 1) + t.logaddexp(t * 2), lambda t: t.fmax(t * 0.5) + t.fmin(-t)]
    for f in fs:
        cpu.grad = dev.grad = None
        f(cpu).sum().backward()
        f(dev).sum().backward()
        check(dev.grad, cpu.grad, rtol=1e-12, atol=1e-12)
