"""Gradients at the points where a function has a kink, a tie or a singularity, as torch
defines them: each row computes the same expression with aakaar and with torch (float64)
and compares every input's gradient, NaN and infinities included.

The conventions checked: abs, relu and sign at 0; sqrt and log at 0 (inf); x ** 0 at 0
(0, not NaN); 0 ** x (0 for x >= 0); pow with zero bases and zero exponents; ties of amax /
amin and of the full max() (shared evenly), of max(dim) (the reported index takes all),
of maximum / minimum (half each) and of fmax / fmin (the first operand takes all); clamp
(passes at its bounds) against hardtanh and relu6 (do not); leaky_relu, elu, threshold,
hardshrink/softshrink, hardsigmoid/hardswish at their kinks; prod with one or two zeros.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

import aakaar

torch = pytest.importorskip("torch")

Z = [0.0, -0.0, 1.0, -1.0, 2.0]
TIES = [[1.0, 3.0, 3.0], [2.0, 2.0, 2.0], [-1.0, 0.0, -1.0]]

# (id, expression in `lib` of the inputs x (and y), x values, y values or None)
CASES = [
    ("abs_at_0", "x.abs()", Z, None),
    ("relu_at_0", "x.relu()", Z, None),
    ("sign", "x.sign()", Z, None),
    ("sgn", "x.sgn()", Z, None),
    ("sqrt_at_0", "x.sqrt()", [0.0, 1.0, 4.0], None),
    ("log_at_0", "x.log()", [0.0, 1.0, 2.0], None),
    ("reciprocal_at_0", "x.reciprocal()", [0.0, -0.0, 2.0], None),
    ("rsqrt_at_0", "x.rsqrt()", [0.0, 1.0], None),
    ("pow_0_at_0", "x ** 0", Z, None),
    ("pow_0.0_at_0", "x ** 0.0", Z, None),
    ("pow_1_at_0", "x ** 1", Z, None),
    ("pow_2_at_0", "x ** 2", Z, None),
    ("pow_half_at_0", "x ** 0.5", [0.0, 1.0, 4.0], None),
    ("pow_minus1_at_0", "x ** -1", [0.0, -0.0, 2.0], None),
    ("pow_minus_half_at_0", "x ** -0.5", [0.0, 2.0], None),
    ("zero_pow_x", "lib.zeros(5, dtype=lib.float64) ** x", [0.0, 1.0, 2.0, -1.0, 0.5], None),
    ("zero_base_tensor_pow", "x ** y", [0.0, 0.0, 0.0, 0.0, 2.0], [0.0, 1.0, 2.0, -1.0, 0.0]),
    ("pow_tensor_zero_exponent", "x ** y", [0.0, -1.0, 3.0], [0.0, 0.0, 0.0]),
    ("number_pow_x", "2.0 ** x", Z, None),
    ("amax_ties", "x.amax(dim=1)", TIES, None),
    ("amin_ties", "x.amin(dim=1)", TIES, None),
    ("amax_all_ties", "x.amax()", TIES, None),
    ("max_all_ties", "x.max()", TIES, None),
    ("min_all_ties", "x.min()", TIES, None),
    ("max_dim_ties", "x.max(dim=1).values", TIES, None),
    ("min_dim_ties", "x.min(dim=1).values", TIES, None),
    ("max_dim0_ties", "x.max(0)[0]", TIES, None),
    ("maximum_ties", "lib.maximum(x, y)", [1.0, 2.0, 3.0], [1.0, 5.0, 3.0]),
    ("minimum_ties", "lib.minimum(x, y)", [1.0, 2.0, 3.0], [1.0, 5.0, 3.0]),
    ("fmax_ties", "lib.fmax(x, y)", [1.0, 2.0, 3.0, math.nan], [1.0, 5.0, math.nan, 1.0]),
    ("fmin_ties", "lib.fmin(x, y)", [1.0, 2.0, 3.0, math.nan], [1.0, 5.0, math.nan, 1.0]),
    ("clamp_bounds", "x.clamp(0.0, 1.0)", [-1.0, 0.0, 0.5, 1.0, 2.0], None),
    ("clamp_min_bound", "x.clamp(min=0.0)", [-1.0, 0.0, 0.5], None),
    ("clamp_max_bound", "x.clamp(max=1.0)", [0.5, 1.0, 2.0], None),
    ("clamp_tensor_bounds", "x.clamp(y, y + 1)", [0.0, 1.0, 2.0, 0.5], [0.0, 0.0, 1.0, 1.0]),
    ("clamp_tensor_crossed_and_nan", "x.clamp(y, y * 0 + 2.0)", [1.0, 3.0, math.nan, 5.0], [2.5, 4.0, 0.0, math.nan]),
    ("clamp_tensor_min_only", "x.clamp(min=y)", [1.0, 3.0, math.nan], [1.0, 4.0, 0.0]),
    ("clamp_tensor_max_only", "x.clamp(max=y)", [1.0, 3.0, 0.0], [1.0, 2.0, math.nan]),
    ("hardtanh_bounds", "lib.nn.functional.hardtanh(x)", [-2.0, -1.0, 0.0, 1.0, 2.0], None),
    ("relu6_bounds", "lib.nn.functional.relu6(x)", [-1.0, 0.0, 3.0, 6.0, 7.0], None),
    ("leaky_relu_at_0", "lib.nn.functional.leaky_relu(x, 0.2)", Z, None),
    ("elu_at_0", "lib.nn.functional.elu(x, 0.5)", Z, None),
    ("celu_at_0", "lib.nn.functional.celu(x, 0.5)", Z, None),
    ("selu_at_0", "lib.nn.functional.selu(x)", Z, None),
    ("threshold_at_threshold", "lib.nn.functional.threshold(x, 1.0, 0.0)", [0.0, 1.0, 2.0], None),
    ("hardshrink_at_lambd", "lib.nn.functional.hardshrink(x, 0.5)", [-0.5, 0.0, 0.5, 0.6], None),
    ("softshrink_at_lambd", "lib.nn.functional.softshrink(x, 0.5)", [-0.5, 0.0, 0.5, 0.6], None),
    ("hardsigmoid_kinks", "lib.nn.functional.hardsigmoid(x)", [-3.0, 0.0, 3.0, -4.0, 4.0], None),
    ("hardswish_kinks", "lib.nn.functional.hardswish(x)", [-3.0, 0.0, 3.0, -4.0, 4.0], None),
    ("prelu_at_0", "lib.nn.functional.prelu(x, y)", Z, [0.25]),
    ("softplus_threshold", "lib.nn.functional.softplus(x, 1.0, 20.0)", [20.0, 19.0, 21.0], None),
    ("floor_round_trunc", "x.floor() + x.round() + x.trunc() + x.ceil()", [0.5, 1.5, -0.5, 2.0], None),
    ("frac", "x.frac()", [0.5, -1.5, 2.0], None),
    ("nan_to_num", "x.nan_to_num()", [math.nan, math.inf, -math.inf, 1.0], None),
    ("atan2_origin", "lib.atan2(x, y)", [0.0, 1.0, 0.0, 1e-200], [0.0, 0.0, -1.0, 1e-200]),
    ("hypot_origin", "lib.hypot(x, y)", [0.0, 3.0], [0.0, 4.0]),
    ("copysign_zero", "lib.copysign(x, y)", [0.0, -0.0, 2.0, -3.0], [-1.0, 1.0, -0.0, 1.0]),
    ("fmod_grad", "lib.fmod(x, y)", [5.0, -5.0, 0.0], [3.0, 3.0, 2.0]),
    ("remainder_grad", "lib.remainder(x, y)", [5.0, -5.0, 0.0], [3.0, 3.0, 2.0]),
    ("prod_one_zero", "x.prod()", [2.0, 0.0, 3.0], None),
    ("prod_two_zeros", "x.prod()", [2.0, 0.0, 0.0], None),
    ("std_constant", "x.std()", [1.0, 1.0, 1.0], None),
    ("where_both_branches", "lib.where(x > 0, x.sqrt(), x * 0)", [0.0, 1.0, 4.0], None),
]


def _grads(lib, expr, xs, ys):
    x = lib.tensor(xs, dtype=lib.float64, requires_grad=True)
    y = None if ys is None else lib.tensor(ys, dtype=lib.float64, requires_grad=True)
    out = eval(expr, {"lib": lib, "x": x, "y": y})
    out.sum().backward()
    return [x.grad] + ([] if y is None else [y.grad])


@pytest.mark.parametrize("case", CASES, ids=[c[0] for c in CASES])
def test_gradient_matches_torch(case):
    _, expr, xs, ys = case
    ours = _grads(aakaar, expr, xs, ys)
    theirs = _grads(torch, expr, xs, ys)
    for k, (a, t) in enumerate(zip(ours, theirs)):
        if t is None:
            assert a is None or not np.any(a.numpy()), f"{expr}: input {k} has no gradient in torch"
            continue
        assert a is not None, f"{expr}: input {k} got no gradient"
        np.testing.assert_allclose(a.numpy(), t.numpy(force=True), rtol=1e-12, atol=0, equal_nan=True,
                                   err_msg=f"{expr}: gradient of input {k}")
