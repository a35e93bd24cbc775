"""nn.grad (conv{1,2,3}d_input / _weight) against torch.nn.grad: strides, padding, dilation and groups,
the result's own gradient (double backward) by gradcheck, and shape errors."""

from __future__ import annotations

import numpy as np
import pytest

import aakaar as ak
import aakaar.nn as nn

from tests.nn.nn_helpers import assert_close, to_ak

torch = pytest.importorskip("torch")

CASES = [  # n, input shape, weight shape, stride, padding, dilation, groups
    (1, (2, 4, 11), (6, 2, 3), 2, 1, 1, 2),
    (1, (1, 3, 9), (2, 3, 2), 1, 0, 2, 1),
    (2, (2, 4, 9, 10), (6, 2, 3, 2), (2, 3), (1, 0), 1, 2),
    (2, (1, 2, 7, 7), (3, 2, 3, 3), 1, 2, 2, 1),
    (2, (1, 1, 10, 10), (1, 1, 3, 3), 4, 0, 1, 1),  # input rows past the last window
    (3, (1, 2, 5, 6, 7), (4, 2, 2, 3, 2), (1, 2, 2), (1, 0, 1), 1, 1),
]


def _conv(n):
    return (torch.nn.functional.conv1d, torch.nn.functional.conv2d, torch.nn.functional.conv3d)[n - 1]


@pytest.mark.parametrize("dtype,rtol", [(torch.float64, 1e-10), (torch.float32, 1e-5)])
@pytest.mark.parametrize("n,xs,ws,stride,padding,dilation,groups", CASES)
def test_matches_torch(n, xs, ws, stride, padding, dilation, groups, dtype, rtol):
    rng = np.random.default_rng(n)
    x = torch.tensor(rng.standard_normal(xs), dtype=dtype)
    w = torch.tensor(rng.standard_normal(ws), dtype=dtype)
    go = torch.tensor(rng.standard_normal(tuple(_conv(n)(x, w, None, stride, padding, dilation, groups).shape)),
                      dtype=dtype)
    t_in = getattr(torch.nn.grad, f"conv{n}d_input")(x.shape, w, go, stride, padding, dilation, groups)
    t_w = getattr(torch.nn.grad, f"conv{n}d_weight")(x, w.shape, go, stride, padding, dilation, groups)
    a_in = getattr(nn.grad, f"conv{n}d_input")(tuple(xs), to_ak(w), to_ak(go), stride, padding, dilation, groups)
    a_w = getattr(nn.grad, f"conv{n}d_weight")(to_ak(x), list(ws), to_ak(go), stride, padding, dilation, groups)
    assert_close(a_in, t_in, rtol, rtol * 10, "input grad")
    assert_close(a_w, t_w, rtol, rtol * 10, "weight grad")
    assert not a_in.requires_grad and not a_w.requires_grad


def test_results_are_differentiable():
    rng = np.random.default_rng(0)
    x = ak.tensor(rng.standard_normal((1, 2, 6, 5))).requires_grad_()
    w = ak.tensor(rng.standard_normal((3, 2, 2, 2))).requires_grad_()
    go = ak.tensor(rng.standard_normal((1, 3, 3, 2))).requires_grad_()
    assert ak.autograd.gradcheck(lambda w_, g_: nn.grad.conv2d_input((1, 2, 6, 5), w_, g_, 2), (w, go), atol=1e-8)
    assert ak.autograd.gradcheck(lambda x_, g_: nn.grad.conv2d_weight(x_, (3, 2, 2, 2), g_, 2), (x, go), atol=1e-8)


def test_bad_shapes_raise():
    w, go = ak.randn(3, 2, 3, 3), ak.randn(1, 3, 3, 3)
    with pytest.raises(RuntimeError, match="grad_output has shape"):
        nn.grad.conv2d_input((1, 2, 9, 9), w, go)
    with pytest.raises(RuntimeError, match="must have 4 entries"):
        nn.grad.conv2d_input((2, 5, 5), w, go)
    with pytest.raises(TypeError, match="sequence of ints"):
        nn.grad.conv2d_weight(ak.randn(1, 2, 5, 5), 3, go)
    with pytest.raises(TypeError, match="grad_output"):
        nn.grad.conv2d_input((1, 2, 5, 5), w, np.zeros((1, 3, 3, 3)))
