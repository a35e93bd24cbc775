"""Misuse of autograd raises a clear Python exception that names the problem."""

from __future__ import annotations

import pytest

import aakaar
from aakaar import autograd


def leaf(values):
    return aakaar.tensor(values, dtype=aakaar.float64).requires_grad_()


def test_backward_on_non_scalar_needs_a_gradient():
    y = leaf([1.0, 2.0]) * 2
    with pytest.raises(RuntimeError, match=r"scalar outputs.*shape \[2\]"):
        y.backward()
    y.backward(aakaar.ones(2, dtype=aakaar.float64))  # with one it works


def test_backward_gradient_of_wrong_shape():
    y = leaf([1.0, 2.0]) * 2
    with pytest.raises(RuntimeError, match=r"gradient of shape \[3\].*\[2\]"):
        y.backward(aakaar.ones(3, dtype=aakaar.float64))


def test_backward_twice():
    y = (leaf([1.0, 2.0]).exp()).sum()
    y.backward()
    with pytest.raises(RuntimeError, match="second time.*retain_graph=True"):
        y.backward()


def test_backward_of_tensor_without_grad():
    c = aakaar.tensor([1.0, 2.0]).sum()
    with pytest.raises(RuntimeError, match="does not require grad"):
        c.backward()


def test_grad_of_input_that_does_not_require_grad():
    x = leaf([1.0])
    c = aakaar.tensor([2.0], dtype=aakaar.float64)
    with pytest.raises(RuntimeError, match="input 0 does not require grad"):
        autograd.grad((x * c).sum(), c)


def test_requires_grad_on_integer_tensor():
    t = aakaar.tensor([1, 2, 3])
    with pytest.raises(RuntimeError, match="floating point.*int64"):
        t.requires_grad_()
    with pytest.raises(RuntimeError, match="floating point.*bool"):
        aakaar.tensor([True]).requires_grad = True


def test_requires_grad_on_non_leaf():
    y = leaf([1.0]) * 2
    with pytest.raises(RuntimeError, match="leaf tensors.*MulBackward"):
        y.requires_grad_(False)


def test_inplace_on_leaf_that_requires_grad():
    x = leaf([1.0, 2.0])
    with pytest.raises(RuntimeError, match=r"leaf Variable that requires grad is being used in an in-place operation \(add\)"):
        x.add_(1)
    with pytest.raises(RuntimeError, match="leaf Variable that requires grad"):
        x.exp_()
    with aakaar.no_grad():
        x.add_(1)  # allowed: nothing is recorded


def test_inplace_on_view_of_tensor_that_requires_grad():
    y = leaf([[1.0, 2.0], [3.0, 4.0]]) * 1
    row = y[0]
    with pytest.raises(RuntimeError, match="memory is shared"):
        row.mul_(2)
    with pytest.raises(RuntimeError, match="memory is shared"):
        y.mul_(2)  # the base, while a view of it is alive
    with pytest.raises(RuntimeError, match="memory is shared"):
        y[1] = 0.0  # assignment through a view is an in-place copy_ on it


def test_inplace_on_memory_of_a_saved_view_is_caught_at_backward():
    y = leaf([1.0, 2.0]) * 1
    z = y[0] * y[1]  # MulBackward saves the views y[0] and y[1], which share y's memory
    y.add_(1)  # allowed, as in PyTorch: only autograd holds the views
    with pytest.raises(RuntimeError, match=r"modified by an inplace operation.*MulBackward"):
        z.backward()


def test_inplace_on_memory_of_an_unsaved_view_is_allowed():
    y = leaf([1.0, 2.0]) * 1
    z = y[0] * 2  # a factor times a constant: nothing of y is saved (as in PyTorch)
    y.add_(1)
    z.backward()


def test_inplace_on_a_saved_tensor_fails_at_backward_naming_the_op():
    y = leaf([1.0, 2.0]) * 1
    z = y * y  # saves y itself: the in-place op is allowed, the version counter catches it
    y.add_(1)
    with pytest.raises(RuntimeError, match=r"modified by an inplace operation.*version 1; expected version 0.*MulBackward"):
        z.sum().backward()


def test_grad_with_unused_input():
    x, u = leaf([1.0]), leaf([2.0])
    with pytest.raises(RuntimeError, match="input 1 was not used.*allow_unused=True"):
        autograd.grad((x * 3).sum(), (x, u))
    gx, gu = autograd.grad((x * 3).sum(), (x, u), allow_unused=True)
    assert gu is None and gx.item() == 3.0


def test_hook_returning_a_non_tensor():
    x = leaf([1.0])
    x.register_hook(lambda g: "nope")
    with pytest.raises(TypeError, match="hook must return a Tensor or None"):
        (x * 2).sum().backward()


def test_hook_on_tensor_without_grad():
    with pytest.raises(RuntimeError, match="doesn't require gradient"):
        aakaar.ones(2).register_hook(lambda g: g)


def test_assigning_grad_of_wrong_shape():
    x = leaf([1.0, 2.0])
    with pytest.raises(RuntimeError, match=r"assigned grad has shape \[3\].*\[2\]"):
        x.grad = aakaar.ones(3, dtype=aakaar.float64)


def test_set_grad_enabled_needs_a_bool():
    with pytest.raises(TypeError, match="mode must be a bool"):
        aakaar.set_grad_enabled("no")
    assert aakaar.is_grad_enabled()
