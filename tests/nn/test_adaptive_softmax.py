"""nn.AdaptiveLogSoftmaxWithLoss against torch with copied weights: the state_dict layout, forward's
(output, loss) and its gradients, log_prob, predict (rows in and out of the shortlist), a 0-d target,
gradcheck, and torch's exceptions for bad cutoffs and targets."""

from __future__ import annotations

import numpy as np
import pytest

import aakaar as ak
import aakaar.nn as nn

from tests.nn.nn_helpers import assert_close, copy_weights, to_ak

torch = pytest.importorskip("torch")

# torch's own note when its reference model has a zero-sized cluster layer.
pytestmark = pytest.mark.filterwarnings("ignore:Initializing zero-element tensors is a no-op")


def _pair(in_features=16, n_classes=20, cutoffs=(4, 10, 15), div_value=2.0, head_bias=True, dtype="float64", seed=0):
    torch.manual_seed(seed)
    t = torch.nn.AdaptiveLogSoftmaxWithLoss(in_features, n_classes, list(cutoffs), div_value, head_bias)
    t = t.to(getattr(torch, dtype))
    a = nn.AdaptiveLogSoftmaxWithLoss(in_features, n_classes, list(cutoffs), div_value, head_bias,
                                      dtype=getattr(ak, dtype))
    assert list(a.state_dict()) == list(t.state_dict())
    copy_weights(a, t)
    return a, t


@pytest.mark.parametrize("dtype,rtol", [("float64", 1e-10), ("float32", 1e-5)])
@pytest.mark.parametrize("head_bias,div_value", [(True, 2.0), (False, 4.0)])
def test_forward_and_gradients_match_torch(dtype, rtol, head_bias, div_value):
    a, t = _pair(head_bias=head_bias, div_value=div_value, dtype=dtype)
    rng = np.random.default_rng(1)
    x = torch.tensor(rng.standard_normal((12, 16)), dtype=getattr(torch, dtype), requires_grad=True)
    y = torch.tensor([0, 3, 4, 9, 10, 14, 15, 19, 2, 12, 17, 5])
    ref = t(x, y)
    ax = to_ak(x).requires_grad_()
    out = a(ax, to_ak(y))
    assert out._fields == ("output", "loss")
    assert_close(out.output, ref.output, rtol, rtol, "output")
    assert_close(out.loss, ref.loss, rtol, rtol, "loss")
    g = torch.tensor(rng.standard_normal(12), dtype=x.dtype)
    (ref.output * g).sum().add(ref.loss).backward()
    (out.output * to_ak(g)).sum().add(out.loss).backward()
    assert_close(ax.grad, x.grad, rtol, rtol, "input grad")
    for (k, p), (_, q) in zip(a.named_parameters(), t.named_parameters()):
        assert_close(p.grad, q.grad, rtol, rtol, f"grad of {k}")
    assert_close(a.log_prob(ax), t.log_prob(x), rtol, rtol, "log_prob")
    ap, tp = a.predict(ax), t.predict(x)
    assert_close(ap, tp, 0, 0, "predict")


def test_predict_mixed_all_in_and_all_out_of_shortlist():
    a, t = _pair(seed=2)
    rng = np.random.default_rng(3)
    x = torch.tensor(rng.standard_normal((40, 16)) * 3)
    head = t.head(x).argmax(1)
    mixed = (head < 4).any() and (head >= 4).any()
    assert mixed  # the seed gives both kinds of rows
    for rows in (slice(None), head < 4, head >= 4):
        xs = x[rows]
        assert_close(a.predict(to_ak(xs)), t.predict(xs), 0, 0)


def test_unbatched_and_gradcheck():
    a, t = _pair(in_features=6, n_classes=8, cutoffs=(3, 5), seed=4)
    x = torch.randn(6, dtype=torch.float64)
    ref = t(x, torch.tensor(6))
    out = a(to_ak(x), ak.tensor(6))
    assert tuple(out.output.shape) == ()
    assert_close(out.output, ref.output, 1e-12)
    y = ak.tensor([0, 4, 7, 2])

    def f(xx):
        return a(xx, y).loss

    xx = ak.tensor(np.random.default_rng(0).standard_normal((4, 6))).requires_grad_()
    assert ak.autograd.gradcheck(f, (xx,), atol=1e-8)


def test_bad_arguments_raise_like_torch():
    for lib in (torch, ak):
        M = lib.nn.AdaptiveLogSoftmaxWithLoss
        for cutoffs in ([], [5, 3], [0, 3], [3, 10], [3, 3]):
            with pytest.raises(ValueError, match="cutoffs"):
                M(8, 10, cutoffs)
        m = M(8, 10, [3, 6])
        with pytest.raises(RuntimeError, match="Target values should be in"):
            m(lib.zeros(2, 8), lib.tensor([1, 10]))
        with pytest.raises(RuntimeError, match="Target values should be in"):
            m(lib.zeros(2, 8), lib.tensor([-1, 2]))
        with pytest.raises(RuntimeError, match="same size in the batch dimension"):
            m(lib.zeros(3, 8), lib.tensor([1, 2]))
        with pytest.raises(RuntimeError, match="1D target tensor expects 2D input"):
            m(lib.zeros(2, 2, 8), lib.tensor([1, 2]))
        with pytest.raises(RuntimeError, match="0D target tensor expects 1D input"):
            m(lib.zeros(2, 8), lib.tensor(1))
        with pytest.raises(RuntimeError, match="multi-target not supported"):
            m(lib.zeros(2, 8), lib.zeros(2, 2, dtype=lib.int64))
