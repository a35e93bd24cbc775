"""``requires_grad=`` on every factory, as in PyTorch: the result is a leaf that
requires grad, and a non-floating dtype is refused with a RuntimeError."""

from __future__ import annotations

import numpy as np
import pytest

import aakaar

# name -> a call that makes a float tensor with the given keyword arguments
FLOAT_FACTORIES = {
    "tensor": lambda **kw: aakaar.tensor([1.0, 2.0, 3.0], **kw),
    "tensor_from_numpy": lambda **kw: aakaar.tensor(np.arange(3.0), **kw),
    "zeros": lambda **kw: aakaar.zeros(2, 3, **kw),
    "ones": lambda **kw: aakaar.ones((2, 3), **kw),
    "full": lambda **kw: aakaar.full((2, 3), 1.5, **kw),
    "empty": lambda **kw: aakaar.empty(2, 3, **kw),
    "rand": lambda **kw: aakaar.rand(2, 3, **kw),
    "randn": lambda **kw: aakaar.randn(2, 3, **kw),
    "arange": lambda **kw: aakaar.arange(0.0, 3.0, **kw),
    "linspace": lambda **kw: aakaar.linspace(0, 1, 5, **kw),
    "eye": lambda **kw: aakaar.eye(3, **kw),
    "zeros_like": lambda **kw: aakaar.zeros_like(aakaar.ones(2, 3), **kw),
    "ones_like": lambda **kw: aakaar.ones_like(aakaar.ones(2, 3), **kw),
    "full_like": lambda **kw: aakaar.full_like(aakaar.ones(2, 3), 2.0, **kw),
    "empty_like": lambda **kw: aakaar.empty_like(aakaar.ones(2, 3), **kw),
    "rand_like": lambda **kw: aakaar.rand_like(aakaar.ones(2, 3), **kw),
    "randn_like": lambda **kw: aakaar.randn_like(aakaar.ones(2, 3), **kw),
}

# Factories whose default dtype is an integer one (or that are given one).
INT_FACTORIES = {
    "tensor": lambda **kw: aakaar.tensor([1, 2, 3], **kw),
    "zeros": lambda **kw: aakaar.zeros(3, dtype=aakaar.int64, **kw),
    "ones": lambda **kw: aakaar.ones(3, dtype=aakaar.long, **kw),
    "full": lambda **kw: aakaar.full((3,), 7, **kw),
    "empty": lambda **kw: aakaar.empty(3, dtype=aakaar.uint8, **kw),
    "arange": lambda **kw: aakaar.arange(5, **kw),
    "eye": lambda **kw: aakaar.eye(3, dtype=aakaar.bool, **kw),
    "randint": lambda **kw: aakaar.randint(0, 10, (3,), **kw),
    "randperm": lambda **kw: aakaar.randperm(4, **kw),
    "zeros_like": lambda **kw: aakaar.zeros_like(aakaar.tensor([1, 2]), **kw),
    "randint_like": lambda **kw: aakaar.randint_like(aakaar.tensor([1, 2]), 5, **kw),
}


@pytest.mark.parametrize("name", FLOAT_FACTORIES)
def test_requires_grad_true_makes_a_leaf_that_requires_grad(name):
    t = FLOAT_FACTORIES[name](requires_grad=True)
    assert t.requires_grad
    assert t.is_leaf and t.grad_fn is None
    (t * 2).sum().backward()
    np.testing.assert_array_equal(t.grad.numpy(), np.full(tuple(t.shape), 2.0, dtype=t.grad.numpy().dtype))


@pytest.mark.parametrize("name", FLOAT_FACTORIES)
def test_requires_grad_defaults_to_false(name):
    assert not FLOAT_FACTORIES[name]().requires_grad
    assert not FLOAT_FACTORIES[name](requires_grad=False).requires_grad


@pytest.mark.parametrize("name", INT_FACTORIES)
def test_requires_grad_on_a_non_floating_dtype_is_a_runtime_error(name):
    assert not INT_FACTORIES[name]().dtype.is_floating_point
    with pytest.raises(RuntimeError, match="Only Tensors of floating point dtype can require gradients"):
        INT_FACTORIES[name](requires_grad=True)


def test_float64_and_explicit_dtype_with_requires_grad():
    t = aakaar.zeros(2, dtype=aakaar.float64, requires_grad=True)
    assert t.dtype == aakaar.float64 and t.requires_grad
    t = aakaar.tensor([1, 2], dtype=aakaar.float32, requires_grad=True)  # ints made float: allowed
    assert t.dtype == aakaar.float32 and t.requires_grad


def test_tensor_of_a_tensor_is_a_new_leaf_without_history():
    x = aakaar.ones(3, requires_grad=True)
    y = x * 2
    t = aakaar.tensor(y)
    assert t.is_leaf and not t.requires_grad and t.grad_fn is None
    t2 = aakaar.tensor(y, requires_grad=True)
    assert t2.is_leaf and t2.requires_grad
    with aakaar.no_grad():
        y.add_(1)  # a copy: t2 does not see it
    np.testing.assert_array_equal(t2.detach().numpy(), [2.0, 2.0, 2.0])


def test_like_factories_take_device_and_dtype():
    base = aakaar.ones(2, 2)
    t = aakaar.zeros_like(base, dtype=aakaar.float64, device="cpu", requires_grad=True)
    assert t.dtype == aakaar.float64 and t.device.type == "cpu" and t.requires_grad


def test_matches_torch(torch):
    for lib in (aakaar, torch):
        t = lib.tensor([1.0, 2.0], requires_grad=True)
        assert t.requires_grad and t.is_leaf
        with pytest.raises(RuntimeError, match="(?i)only tensors of floating point"):
            lib.tensor([1, 2], requires_grad=True)
        with pytest.raises(RuntimeError, match="(?i)only tensors of floating point"):
            lib.arange(3, requires_grad=True)
