"""Regression tests for what the extended differential fuzz against PyTorch found
(issue 15; tests/core/test_fuzz_against_torch.py, groups matmul, index, autograd,
and torch's refusals in the element-wise group). Each compares with torch.
"""

from __future__ import annotations

import numpy as np
import pytest

import aakaar as ak

torch = pytest.importorskip("torch")


def _raises_alike(f_ak, f_torch, cls):
    with pytest.raises(cls):
        f_torch()
    with pytest.raises(cls):
        f_ak()


# ---- indexing ----

def test_index_tensors_that_do_not_broadcast_are_an_index_error():
    for lib in (ak, torch):
        x = lib.zeros(2, 3)
        with pytest.raises(IndexError, match="shape mismatch"):
            x[lib.tensor([0, 1]), lib.tensor([0, 1, 2])]


def test_a_0d_int_tensor_index_is_an_integer():
    # A select, as in PyTorch: its bounds are checked even where the result is empty, and the
    # result's dims are placed as an int's would be.
    for lib in (ak, torch):
        with pytest.raises(IndexError):
            lib.zeros(0, 1)[lib.tensor(-4), lib.tensor([], dtype=lib.int64)]
    a = ak.arange(24.0).reshape(2, 3, 4)
    t = torch.arange(24.0).reshape(2, 3, 4)
    got = a[ak.tensor(1), :, [1, 2]]
    want = t[torch.tensor(1), :, [1, 2]]
    assert tuple(got.shape) == tuple(want.shape) == (3, 2)
    np.testing.assert_array_equal(got.numpy(), want.numpy())


def test_setitem_through_tensor_indices_needs_the_same_dtype():
    for lib in (ak, torch):
        x = lib.zeros(3)
        with pytest.raises(RuntimeError, match="dtypes match"):
            x[lib.tensor([0, 1])] = lib.tensor([1, 2])
        with pytest.raises(RuntimeError, match="dtypes match"):
            x.index_put_((lib.tensor([0]),), lib.tensor([1.0], dtype=lib.float64))
        x[1:] = lib.tensor([1, 2])  # a basic index converts
        x[[0]] = 5  # so does a number
        assert x.tolist() == [5.0, 1.0, 2.0]


def test_one_mask_and_one_value_fill_with_conversion():
    # PyTorch's masked_fill_ path: a single bool mask and a one-element value, of any dtype.
    for lib in (ak, torch):
        x = lib.zeros(1, 3, dtype=lib.uint8)
        x[lib.tensor([[True, False, True]])] = lib.tensor([7.9])
        assert x.tolist() == [[7, 0, 7]]
        with pytest.raises(RuntimeError, match="dtypes match"):  # two values: index_put_, which refuses
            x[lib.tensor([[True, False, True]])] = lib.tensor([1.0, 2.0])


def test_a_lone_bool_key_in_setitem():
    for lib in (ak, torch):
        x = lib.zeros(4, dtype=lib.float64)
        x[True] = lib.tensor(2.0, dtype=lib.float32)  # a basic write into x[None]: converted
        x[False] = lib.tensor([-1.0], dtype=lib.float32)  # writes nothing
        x[False] = lib.tensor([[1, 2, 3]])  # nothing, not even a shape check
        assert x.tolist() == [2.0] * 4
        with pytest.raises(RuntimeError):  # in a tuple it is an index like any: shape, then dtype checked
            x[(False,)] = lib.tensor([[1, 2, 3]])
        with pytest.raises(RuntimeError, match="dtypes match"):
            x[(True,)] = lib.tensor(2.0, dtype=lib.float32)
        with pytest.raises(RuntimeError, match="overflow"):
            lib.zeros(2, dtype=lib.uint8)[False] = -2.5  # a number is still checked


def test_value_errors_come_before_index_errors_in_setitem():
    for lib in (ak, torch):
        with pytest.raises(RuntimeError, match="overflow"):  # the number, before "too many indices"
            lib.zeros((), dtype=lib.uint8)[lib.tensor(-2), [3, 4, 1]] = -2.5
        with pytest.raises(RuntimeError, match="shape mismatch"):  # the values' shape, before index 5
            lib.zeros(3, 3, 3)[1:-2:2, [2, 5, 2], [2, 5, 2]] = lib.zeros(2, 3, 0)
        with pytest.raises(IndexError):  # a dim of size 0 has no valid index, before the shape
            lib.zeros(0, dtype=lib.bool)[lib.tensor([[5], [0]])] = lib.zeros(1, 2, 1, dtype=lib.bool)


def test_a_zero_slice_step():
    for lib in (ak, torch):
        with pytest.raises(ValueError, match="step"):  # a lone slice: its step first
            lib.zeros(())[5:5:0] = 1.0
        with pytest.raises(IndexError, match="too many indices"):  # in a tuple: the count first
            lib.zeros(())[False, [3, -1, 4], -1:1:0]


@pytest.mark.parametrize("index", ["..., ...", "..., None, ..."])
def test_two_ellipses_are_refused(index):
    """PyTorch takes x[..., ...] as one Ellipsis; numpy raises IndexError (which ``...`` stands for
    the missing dims is ambiguous), and so do we (documented in fuzz_torch_matmul_index.py)."""
    x = ak.zeros(2, 3)
    with pytest.raises(IndexError, match="single ellipsis"):
        eval(f"x[{index}]")
    with pytest.raises(IndexError):
        eval(f"np.zeros((2, 3))[{index}]")


def test_an_out_of_range_index_is_refused_even_when_the_result_is_empty():
    """PyTorch skips the bounds check when no element is read; numpy and aakaar refuse."""
    assert tuple(torch.zeros(4, 0, 3, dtype=torch.bool)[..., [[2], [4]], None].shape) == (4, 0, 2, 1, 1)
    with pytest.raises(IndexError, match="out of bounds"):
        ak.zeros(4, 0, 3, dtype=ak.bool)[..., [[2], [4]], None]
    with pytest.raises(IndexError):
        np.zeros((4, 0, 3))[..., [[2], [4]], None]


# ---- torch's refusals the element-wise group found ----

def test_narrow_error_classes_are_torchs():
    for lib in (ak, torch):
        x = lib.ones(3)
        with pytest.raises(RuntimeError):
            x.narrow(0, 3, 1)  # runs past the end
        with pytest.raises(RuntimeError):
            x.narrow(0, 2, -1)  # negative length
        with pytest.raises(IndexError):
            x.narrow(0, 4, 0)  # start outside [-3, 3]
        assert tuple(x.narrow(0, 3, 0).shape) == (0,)
        for f in (lambda t: t.narrow(0, 0, 1), lambda t: t.split(1), lambda t: t.chunk(1)):
            with pytest.raises(RuntimeError):
                f(lib.tensor(1.0))


@pytest.mark.parametrize("op", ["relu", "abs"])
def test_relu_and_abs_of_bool_are_refused(op):
    for lib in (ak, torch):
        with pytest.raises(RuntimeError):
            getattr(lib.tensor([True, False]), op)()


# ---- matmul ----

def test_matmul_dtype_mismatch_is_refused_whatever_the_sizes():
    """PyTorch checks the dtypes only when there is something to multiply; aakaar always."""
    with pytest.raises(RuntimeError):
        torch.ones(2, 2) @ torch.ones(2, 2, dtype=torch.float64)
    assert torch.zeros(0, 0, dtype=torch.bool).matmul(torch.zeros(1, 0, 0, dtype=torch.uint8)).shape == (1, 0, 0)
    with pytest.raises(TypeError, match="same dtype"):
        ak.zeros(0, 0) @ ak.zeros(1, 0, 0, dtype=ak.float64)


# ---- autograd ----

@pytest.mark.parametrize("exponent", [0.0, 2.0, -1.0])
def test_pow_gradient_at_zero_is_torchs(exponent):
    vals = [0.0, 2.0, -0.5]
    grads = []
    for lib in (ak, torch):
        x = lib.tensor(vals, dtype=lib.float64, requires_grad=True)
        e = lib.tensor([exponent, 0.0, 3.0], dtype=lib.float64, requires_grad=True)
        x.pow(exponent).sum().backward()
        (x.detach() * 0 + x.detach()).pow(e).sum().backward()  # the exponent's gradient, with 0 ** e
        grads.append((x.grad.tolist(), e.grad.tolist()))
    np.testing.assert_allclose(np.array(grads[0][0]), np.array(grads[1][0]), rtol=1e-12)
    np.testing.assert_allclose(np.array(grads[0][1]), np.array(grads[1][1]), rtol=1e-12)


def test_setitem_drops_the_values_leading_ones():
    for lib in (ak, torch):
        x = lib.zeros((), dtype=lib.int64)
        x[()] = lib.tensor([True])
        y = lib.zeros(2, 3)
        y[:, [0, 2]] = lib.ones(1, 1, 2, 2)
        assert x.item() == 1 and y.tolist() == [[1.0, 0.0, 1.0], [1.0, 0.0, 1.0]]


def test_var_and_std_take_unbiased_as_torch_does():
    import torch

    x = ak.arange(12.0).reshape(3, 4)
    t = torch.arange(12.0).reshape(3, 4)
    for fn in ("var", "std"):
        for args, kwargs in [((1,), {"unbiased": False}), ((1, False), {}), ((1, True, True), {}),
                             ((), {"correction": 0}), ((0,), {"unbiased": True, "keepdim": True})]:
            got = getattr(x, fn)(*args, **kwargs)
            want = getattr(t, fn)(*args, **kwargs)
            assert got.shape == tuple(want.shape)
            np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-6)
        with pytest.raises(TypeError, match="unbiased or correction, not both"):
            getattr(x, fn)(1, unbiased=True, correction=0)


def test_a_uint8_index_is_a_mask_with_torchs_warning():
    import torch

    v, m = ak.tensor([10.0, 20.0, 30.0]), ak.tensor([1, 0, 2], dtype=ak.uint8)
    with pytest.warns(UserWarning, match="uint8 is deprecated"):
        got = v[m]
    with pytest.warns(UserWarning, match="uint8 is now deprecated"):  # torch warns alike
        want = torch.tensor([10.0, 20.0, 30.0])[torch.tensor([1, 0, 2], dtype=torch.uint8)]
    assert got.tolist() == want.tolist()
    with pytest.warns(UserWarning, match="uint8 is deprecated"):
        v[m] = -1.0
    assert v.tolist() == [-1.0, 20.0, -1.0]
