"""masked_fill with a 0-d tensor value (gradient to the value, torch's refusal of one with dims)
and take_along_dim with negative indices, against torch."""

from __future__ import annotations

import numpy as np
import pytest

import aakaar as ak

torch = pytest.importorskip("torch")


@pytest.mark.parametrize("inplace", [False, True])
def test_masked_fill_with_a_zero_dim_tensor_as_torch(inplace):
    mask = [True, False, True, False]
    x = np.arange(4.0)
    a, t = ak.tensor(x, requires_grad=True), torch.tensor(x, requires_grad=True)
    va, vt = ak.tensor(5.0, requires_grad=True), torch.tensor(5.0, requires_grad=True)
    if inplace:
        ra = (a * 1).masked_fill_(ak.tensor(mask), va)
        rt = (t * 1).masked_fill_(torch.tensor(mask), vt)
    else:
        ra, rt = a.masked_fill(ak.tensor(mask), va), t.masked_fill(torch.tensor(mask), vt)
    w = np.array([1.0, 2.0, 3.0, 4.0])
    (ra * ak.tensor(w)).sum().backward()
    (rt * torch.tensor(w)).sum().backward()
    np.testing.assert_array_equal(ra.detach().numpy(), rt.detach().numpy())
    np.testing.assert_array_equal(a.grad.numpy(), t.grad.numpy())
    assert va.grad.item() == vt.grad.item() == 4.0


def test_masked_fill_tensor_value_dtype_and_refusal_as_torch():
    mask = [True, False, True]
    ours = ak.ones(3, dtype=ak.int64).masked_fill(ak.tensor(mask), ak.tensor(5.5))
    theirs = torch.ones(3, dtype=torch.int64).masked_fill(torch.tensor(mask), torch.tensor(5.5))
    np.testing.assert_array_equal(ours.numpy(), theirs.numpy())
    assert ours.dtype == ak.int64
    with pytest.raises(RuntimeError, match="0-dimensional"):
        torch.ones(3).masked_fill(torch.tensor(mask), torch.tensor([5.0]))
    with pytest.raises(RuntimeError, match="0-dimensional"):
        ak.ones(3).masked_fill(ak.tensor(mask), ak.tensor([5.0]))


@pytest.mark.parametrize("dim", [1, -1])
def test_take_along_dim_negative_indices_as_torch(dim):
    x = np.arange(12.0).reshape(3, 4)
    idx = np.array([[-1, 0], [-4, 2], [3, -2]])
    ours = ak.take_along_dim(ak.tensor(x), ak.tensor(idx), dim=dim)
    theirs = torch.take_along_dim(torch.tensor(x), torch.tensor(idx), dim=dim)
    np.testing.assert_array_equal(ours.numpy(), theirs.numpy())


def test_take_along_dim_flat_refuses_negative_indices_as_torch():
    with pytest.raises(RuntimeError):
        torch.take_along_dim(torch.arange(4.0), torch.tensor([-1]))
    with pytest.raises(RuntimeError, match="index -1 is out of bounds"):  # gather's class, as torch
        ak.take_along_dim(ak.arange(4.0), ak.tensor([-1]))
