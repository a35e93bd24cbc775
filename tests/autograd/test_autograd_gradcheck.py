"""Every differentiable op passes a float64 finite-difference gradient check
over random shapes, broadcasts and views (the op table is autograd_cases.py)."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import aakaar
from aakaar.autograd.gradcheck import GradcheckError
from autograd_cases import AK, CASES

SETTINGS = settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def leaves(arrays):
    return [aakaar.from_numpy(a.copy()).requires_grad_() for a in arrays]


@pytest.mark.parametrize("name", sorted(CASES))
@SETTINGS
@given(data=st.data())
def test_gradcheck(name, data):
    arrays, fn = CASES[name](data.draw)
    xs = leaves(arrays)
    assert aakaar.autograd.gradcheck(lambda *t: fn(AK, *t), xs)


def test_gradcheck_catches_a_wrong_gradient():
    # The checker itself must be able to fail: a hook that doubles the
    # gradient of an intermediate makes the analytic gradient wrong.
    def doubled(x):
        y = x * 1
        if y.requires_grad:  # not while gradcheck evaluates under no_grad
            y.register_hook(lambda g: g * 2)
        return y.exp()

    x = aakaar.from_numpy(np.array([0.3, -1.2, 2.0])).requires_grad_()
    with pytest.raises(GradcheckError, match="differs from finite differences"):
        aakaar.autograd.gradcheck(doubled, [x])
    assert aakaar.autograd.gradcheck(doubled, [x], raise_exception=False) is False


def test_gradcheck_refuses_float32():
    x = aakaar.ones(3).requires_grad_()
    with pytest.raises(TypeError, match="float64"):
        aakaar.autograd.gradcheck(lambda t: t * 2, [x])
