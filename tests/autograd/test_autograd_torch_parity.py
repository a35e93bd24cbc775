"""The same op table as the gradcheck tests, run on aakaar and on PyTorch with
the same inputs: values and gradients must agree (float64)."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import aakaar
from autograd_cases import AK, CASES, TORCH

torch = pytest.importorskip("torch")

# Cases PyTorch cannot differentiate (the gradcheck tests still cover them).
TORCH_CANNOT = {"rremainder_scalar": "torch has no derivative of remainder(number, tensor)"}

SETTINGS = settings(max_examples=8, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def as_tuple(out):
    return tuple(out) if isinstance(out, (tuple, list)) else (out,)


def run(lib, make, arrays, fn, weights_seed):
    """Forward, then backward of sum(out_i * w_i); returns outputs and input grads as numpy."""
    xs = [make(a) for a in arrays]
    outs = as_tuple(fn(lib, *xs))
    rng = np.random.default_rng(weights_seed)
    loss = None
    for o in outs:
        w = make(rng.standard_normal(tuple(o.shape)))
        term = (o * w).sum()
        loss = term if loss is None else loss + term
    loss.backward()
    grads = [np.zeros(a.shape) if x.grad is None else x.grad.detach().numpy().copy() for x, a in zip(xs, arrays)]
    return [o.detach().numpy().copy() for o in outs], grads


@pytest.mark.parametrize("name", sorted(CASES))
@SETTINGS
@given(data=st.data())
def test_matches_torch(name, data):
    if name in TORCH_CANNOT:
        pytest.skip(TORCH_CANNOT[name])
    arrays, fn = CASES[name](data.draw)
    seed = data.draw(st.integers(0, 2**32 - 1))
    ours = run(AK, lambda a: aakaar.from_numpy(np.array(a, dtype=np.float64)).requires_grad_(), arrays, fn, seed)
    ref = run(TORCH, lambda a: torch.tensor(np.array(a, dtype=np.float64), requires_grad=True), arrays, fn, seed)
    for i, (o, r) in enumerate(zip(ours[0], ref[0])):
        assert o.shape == r.shape, f"output {i}: shape {o.shape} vs torch {r.shape}"
        np.testing.assert_allclose(o, r, rtol=1e-9, atol=1e-12, err_msg=f"{name}: output {i}")
    for i, (g, r) in enumerate(zip(ours[1], ref[1])):
        np.testing.assert_allclose(g, r, rtol=1e-9, atol=1e-12, err_msg=f"{name}: gradient of input {i}")


# ---- ties and kinks: no derivative exists, so the rule is PyTorch's ------------------


def both(values, fn):
    """Gradients of sum(fn(x) * w) for the same x in both libraries, for a fixed w."""
    a = aakaar.tensor(values, dtype=aakaar.float64).requires_grad_()
    t = torch.tensor(values, dtype=torch.float64, requires_grad=True)
    oa, ot = fn(a), fn(t)
    w = np.arange(1, oa.numel() + 1, dtype=np.float64).reshape(tuple(oa.shape))
    (oa * aakaar.from_numpy(w)).sum().backward()
    (ot * torch.from_numpy(w)).sum().backward()
    np.testing.assert_allclose(oa.detach().numpy(), ot.detach().numpy())
    return a.grad.numpy(), t.grad.numpy()


TIED = [[1.0, 3.0, 3.0, 0.0], [2.0, 2.0, 2.0, -1.0], [0.0, 0.0, 0.0, 0.0]]


@pytest.mark.parametrize(
    "fn",
    [
        lambda x: x.amax(),
        lambda x: x.amin(),
        lambda x: x.amax(1),
        lambda x: x.amin(0, keepdim=True),
        lambda x: x.amax((0, 1)),
        lambda x: x.maximum(x[:, [3, 2, 1, 0]]),
        lambda x: x.minimum(x * 0 + 2.0),
        lambda x: x.clamp(0.0, 2.0),
        lambda x: x.relu(),
        lambda x: x.abs(),
    ],
    ids=["amax", "amin", "amax_dim", "amin_keepdim", "amax_dims", "maximum_ties", "minimum_ties", "clamp_at_bounds",
         "relu_at_0", "abs_at_0"],
)
def test_ties_and_kinks_follow_torch(fn):
    # amax/amin: tied elements share the gradient evenly; maximum/minimum:
    # a tie splits it in half; clamp passes it at the bounds; relu/abs give 0 at 0.
    g, r = both(TIED, fn)
    np.testing.assert_allclose(g, r)


def test_max_dim_ties_route_to_the_returned_index():
    # max(dim)/min(dim) give the whole gradient to the index they return.
    x = aakaar.tensor(TIED, dtype=aakaar.float64).requires_grad_()
    values, indices = x.max(1)
    values.sum().backward()
    expected = np.zeros((3, 4))
    expected[np.arange(3), indices.numpy()] = 1.0
    np.testing.assert_array_equal(x.grad.numpy(), expected)
    t = torch.tensor(TIED, dtype=torch.float64)
    np.testing.assert_array_equal(indices.numpy(), t.max(1).indices.numpy())
    y = aakaar.tensor(TIED, dtype=aakaar.float64).requires_grad_()
    v, i = y.min(0)
    v.sum().backward()
    expected = np.zeros((3, 4))
    expected[i.numpy(), np.arange(4)] = 1.0
    np.testing.assert_array_equal(y.grad.numpy(), expected)


def test_std_of_a_constant_slice_has_zero_gradient():
    g, r = both([[1.0, 1.0, 1.0], [0.0, 1.0, 3.0]], lambda x: x.std(1))
    np.testing.assert_allclose(g, r)
