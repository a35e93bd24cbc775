"""The fused Linear op (_C.linear, F.linear): values and gradients against PyTorch
in float32 and float64, strided operands, leading batch dims, finite-difference
checks in float64, double backward, Sequential's Linear->ReLU fusion, and bad input."""

from __future__ import annotations

import numpy as np
import pytest

import aakaar as ak
import aakaar.nn as nn
import aakaar.nn.functional as F
from aakaar import _C
from aakaar.autograd import gradcheck

torch = pytest.importorskip("torch")

DTYPES = {"float32": (np.float32, ak.float32, torch.float32, 1e-5), "float64": (np.float64, ak.float64, torch.float64, 1e-12)}
# (M, K, N): single rows/columns, primes, sizes that are not multiples of the
# GEMM's register tile, batch 64 of the EMNIST MLP, and an empty batch.
SHAPES = [(1, 1, 1), (1, 7, 5), (5, 1, 3), (7, 13, 11), (64, 784, 256), (64, 128, 47), (97, 31, 53), (0, 4, 3)]


def _pair(a: np.ndarray, requires_grad: bool = True):
    """The same values as an aakaar and a torch leaf."""
    x = ak.from_numpy(a.copy())
    x.requires_grad_(requires_grad)
    t = torch.from_numpy(a.copy()).requires_grad_(requires_grad)
    return x, t


def _close(a, t, tol):
    np.testing.assert_allclose(a.detach().numpy(), t.detach().numpy(), rtol=tol * 10, atol=tol * 10)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", SHAPES, ids=lambda s: "x".join(map(str, s)))
@pytest.mark.parametrize("activation", ["none", "relu"])
@pytest.mark.parametrize("with_bias", [True, False], ids=["bias", "nobias"])
def test_values_and_grads_match_torch(dtype, shape, activation, with_bias):
    np_dt, _, _, tol = DTYPES[dtype]
    M, K, N = shape
    rng = np.random.default_rng(M * 1000 + K * 10 + N)
    x, xt = _pair(rng.standard_normal((M, K)).astype(np_dt))
    w, wt = _pair(rng.standard_normal((N, K)).astype(np_dt))
    b, bt = _pair(rng.standard_normal(N).astype(np_dt)) if with_bias else (None, None)
    out = F.linear(x, w, b, activation=activation)
    ref = torch.nn.functional.linear(xt, wt, bt)
    if activation == "relu":
        ref = torch.relu(ref)
    assert out.shape == tuple(ref.shape) and out.dtype == x.dtype
    _close(out, ref, tol)
    # A weighted sum gives a dense, contiguous upstream gradient.
    r = rng.standard_normal((M, N)).astype(np_dt)
    (out * ak.from_numpy(r)).sum().backward()
    (ref * torch.from_numpy(r)).sum().backward()
    for a, t in [(x, xt), (w, wt)] + ([(b, bt)] if with_bias else []):
        assert a.grad.shape == tuple(t.grad.shape)
        _close(a.grad, t.grad, tol)


@pytest.mark.parametrize("dtype", DTYPES)
def test_strided_operands_are_read_in_place(dtype):
    """Transposed x, a weight that is a transposed view, a sliced bias, and an
    expanded (stride-0) upstream gradient from .sum()."""
    np_dt, _, _, tol = DTYPES[dtype]
    rng = np.random.default_rng(3)
    x, xt = _pair(rng.standard_normal((19, 10)).astype(np_dt))       # used as x.T: (10, 19)
    w, wt = _pair(rng.standard_normal((19, 23)).astype(np_dt))       # used as w.T: (23, 19)
    b, bt = _pair(rng.standard_normal(46).astype(np_dt))             # used as b[::2]: (23,)
    out = F.linear(x.T, w.T, b[::2], activation="relu")
    ref = torch.relu(torch.nn.functional.linear(xt.T, wt.T, bt[::2]))
    _close(out, ref, tol)
    out.sum().backward()
    ref.sum().backward()
    for a, t in [(x, xt), (w, wt), (b, bt)]:
        _close(a.grad, t.grad, tol)


@pytest.mark.parametrize("lead", [(), (3,), (2, 3)], ids=["1d", "3d", "4d"])
def test_leading_dims_like_torch(lead):
    rng = np.random.default_rng(5)
    x, xt = _pair(rng.standard_normal(lead + (6,)))
    w, wt = _pair(rng.standard_normal((4, 6)))
    b, bt = _pair(rng.standard_normal(4))
    out = F.linear(x, w, b, activation="relu")
    ref = torch.relu(torch.nn.functional.linear(xt, wt, bt))
    assert out.shape == tuple(ref.shape)
    _close(out, ref, 1e-12)
    out.sum().backward()
    ref.sum().backward()
    for a, t in [(x, xt), (w, wt), (b, bt)]:
        _close(a.grad, t.grad, 1e-12)


def test_zero_bias_dim_and_empty_inner_dim():
    """A 0-d bias broadcasts (torch accepts it); K = 0 gives act(bias)."""
    x = ak.ones(3, 4, dtype=ak.float64)
    w = ak.ones(2, 4, dtype=ak.float64)
    out = F.linear(x, w, ak.tensor(-5.0, dtype=ak.float64), activation="relu")
    np.testing.assert_array_equal(out.numpy(), np.zeros((3, 2)))
    out = F.linear(ak.empty(3, 0), ak.empty(2, 0), ak.tensor([1.0, -1.0]), activation="relu")
    np.testing.assert_array_equal(out.numpy(), [[1.0, 0.0]] * 3)


@pytest.mark.parametrize("activation", ["none", "relu"])
@pytest.mark.parametrize("with_bias", [True, False], ids=["bias", "nobias"])
def test_gradcheck_float64(activation, with_bias):
    rng = np.random.default_rng(7)
    x = ak.from_numpy(rng.standard_normal((5, 4))).requires_grad_()
    w = ak.from_numpy(rng.standard_normal((3, 4))).requires_grad_()
    inputs = [x, w]
    if with_bias:
        inputs.append(ak.from_numpy(rng.standard_normal(3)).requires_grad_())
    assert gradcheck(lambda *t: F.linear(*t, activation=activation), inputs)


def test_double_backward_matches_torch():
    """Under create_graph the backward is recorded, so a gradient of a gradient works."""
    rng = np.random.default_rng(11)
    x, xt = _pair(rng.standard_normal((4, 5)))
    w, wt = _pair(rng.standard_normal((3, 5)))
    b, bt = _pair(rng.standard_normal(3))
    (gx,) = ak.autograd.grad([F.linear(x, w, b, activation="relu").pow(2).sum()], [x], create_graph=True)
    (gxt,) = torch.autograd.grad([torch.relu(torch.nn.functional.linear(xt, wt, bt)).pow(2).sum()], [xt],
                                 create_graph=True)
    _close(gx, gxt, 1e-12)
    (gx * gx).sum().backward()
    (gxt * gxt).sum().backward()
    for a, t in [(x, xt), (w, wt), (b, bt)]:
        _close(a.grad, t.grad, 1e-12)


def test_one_node_and_relu_keeps_nan():
    x = ak.tensor([[float("nan"), 1.0], [-1.0, 2.0]]).requires_grad_()
    w = ak.eye(2).requires_grad_()
    out = F.linear(x, w, None, activation="relu")
    assert out.grad_fn.name() == "LinearReluBackward0"
    assert F.linear(x, w).grad_fn.name() == "LinearBackward0"
    got = out.detach().numpy()
    assert np.isnan(got[0, 0]) and got[1, 0] == 0.0 and got[1, 1] == 2.0


def test_no_grad_records_nothing():
    w = ak.ones(2, 3).requires_grad_()
    with ak.no_grad():
        out = F.linear(ak.ones(4, 3), w)
    assert out.grad_fn is None and not out.requires_grad


def test_sequential_fuses_linear_relu_and_matches_torch():
    """Sequential runs Linear -> ReLU as one fused op; the numbers stay torch's."""
    model = nn.Sequential(nn.Linear(6, 5), nn.ReLU(), nn.Linear(5, 3), nn.ReLU(), nn.Linear(3, 2))
    ref = torch.nn.Sequential(torch.nn.Linear(6, 5), torch.nn.ReLU(), torch.nn.Linear(5, 3), torch.nn.ReLU(),
                              torch.nn.Linear(3, 2)).double()
    model = model.to(ak.float64)
    model.load_state_dict({k: ak.from_numpy(v.detach().numpy().copy()) for k, v in ref.state_dict().items()})
    x = np.random.default_rng(2).standard_normal((8, 6))
    out = model(ak.from_numpy(x))
    out_ref = ref(torch.from_numpy(x))
    _close(out, out_ref, 1e-12)
    # The graph holds fused nodes: the second Linear's input came from LinearReluBackward0.
    names = []
    node = out.grad_fn
    while node is not None:
        names.append(node.name())
        nxt = [f for f, _ in node.next_functions if f is not None and type(f).__name__ != "AccumulateGrad"]
        node = nxt[0] if nxt else None
    assert names == ["LinearBackward0", "LinearReluBackward0", "LinearReluBackward0"]
    out.sum().backward()
    out_ref.sum().backward()
    for (name, p), pt in zip(model.named_parameters(), ref.parameters()):
        _close(p.grad, pt.grad, 1e-12)


def test_sequential_does_not_fuse_subclasses():
    """A Linear subclass may override forward: Sequential must call it."""

    class Doubled(nn.Linear):
        def forward(self, input):
            return super().forward(input) * 2.0

    model = nn.Sequential(Doubled(3, 2), nn.ReLU())
    with ak.no_grad():
        model[0].weight.copy_(ak.ones(2, 3))
        model[0].bias.copy_(ak.zeros(2))
    np.testing.assert_allclose(model(ak.ones(1, 3)).numpy(), [[6.0, 6.0]])


@pytest.mark.parametrize(
    "args,kwargs,exc,match",
    [
        ((ak.ones(2, 3), ak.ones(4, 5)), {}, ValueError, "does not end in in_features=5"),  # F: (2, 3); _C: [2, 3]
        ((ak.ones(2, 3), ak.ones(3)), {}, ValueError, "weight must be 2-d"),
        ((ak.ones(2, 3), ak.ones(4, 3), ak.ones(5)), {}, ValueError, r"bias must have shape \[4\]"),
        ((ak.ones(2, 3), ak.ones(4, 3, dtype=ak.float64)), {}, TypeError, "same dtype"),
        ((ak.ones(2, 3), ak.ones(4, 3), ak.ones(4, dtype=ak.float64)), {}, TypeError, "bias has dtype"),
        ((ak.ones(2, 3, dtype=ak.int64), ak.ones(4, 3, dtype=ak.int64)), {}, TypeError, "float32 and float64"),
        ((ak.ones(2, 3), ak.ones(4, 3)), {"activation": "tanh"}, ValueError, "'none' or 'relu'"),
        ((ak.ones(2, 3), ak.ones(4, 3)), {"activation": 1}, TypeError, "activation must be a string"),
        ((np.ones((2, 3)), ak.ones(4, 3)), {}, TypeError, "must be an aakaar.Tensor"),
        ((ak.ones(2, 3), ak.ones(4, 3), [1.0] * 4), {}, TypeError, "bias must be an aakaar.Tensor"),
    ],
)
def test_bad_input_raises_clear_errors(args, kwargs, exc, match):
    with pytest.raises(exc, match=match):
        F.linear(*args, **kwargs)
    if not isinstance(args[0], np.ndarray):
        with pytest.raises(exc, match=match):
            _C.linear(*args, **kwargs)


def test_zero_dim_input_is_rejected():
    with pytest.raises(ValueError, match="at least 1 dimension"):
        _C.linear(ak.tensor(1.0), ak.ones(1, 1))
