"""RNN, LSTM, GRU and their cells against torch: the same parameter names (a torch state_dict
loads strictly), outputs, final states, and gradients of the input, the initial states and every
parameter, over num_layers, bidirectional, batch_first, bias, proj_size and unbatched inputs."""

from __future__ import annotations

import numpy as np
import pytest

import aakaar as ak
import aakaar.nn as nn

from tests.nn.nn_helpers import assert_close, copy_weights, to_ak

torch = pytest.importorskip("torch")
# torch's own warnings about its reference implementation, expected here
pytestmark = [pytest.mark.filterwarnings("ignore:LSTM with projections is not supported with oneDNN:UserWarning")]

CONFIGS = [
    ("RNN", {}),
    ("RNN", {"nonlinearity": "relu", "num_layers": 2}),
    ("RNN", {"bidirectional": True, "batch_first": True}),
    ("LSTM", {}),
    ("LSTM", {"num_layers": 2, "bidirectional": True}),
    ("LSTM", {"proj_size": 2, "num_layers": 2, "batch_first": True}),
    ("LSTM", {"bias": False}),
    ("GRU", {}),
    ("GRU", {"num_layers": 3, "bidirectional": True, "batch_first": True}),
]


def _flatten(out):
    """(output, h) or (output, (h, c)) -> a list of tensors."""
    y, h = out
    return [y] + (list(h) if isinstance(h, tuple) else [h])


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64], ids=["f32", "f64"])
@pytest.mark.parametrize("with_hx", [False, True])
@pytest.mark.parametrize("unbatched", [False, True])
@pytest.mark.parametrize("case", CONFIGS, ids=[f"{c[0]}-{i}" for i, c in enumerate(CONFIGS)])
def test_recurrent_layers_match_torch(case, unbatched, with_hx, dtype):
    name, kwargs = case
    rtol, atol = (2e-5, 2e-6) if dtype == torch.float32 else (1e-10, 1e-12)
    input_size, hidden = 3, 4
    torch.manual_seed(0)
    tm = getattr(torch.nn, name)(input_size, hidden, **kwargs).to(dtype)
    am = getattr(nn, name)(input_size, hidden, **kwargs)
    am.to(ak.float64 if dtype == torch.float64 else ak.float32)
    assert list(am.state_dict()) == list(tm.state_dict())
    copy_weights(am, tm)
    rng = np.random.default_rng(1)
    L, N = 5, 2
    shape = (L, input_size) if unbatched else ((N, L, input_size) if kwargs.get("batch_first") else (L, N, input_size))
    x = torch.tensor(rng.standard_normal(shape), dtype=dtype, requires_grad=True)
    D = (2 if kwargs.get("bidirectional") else 1) * kwargs.get("num_layers", 1)
    h_out = kwargs.get("proj_size", 0) or hidden
    hs = []
    if with_hx:
        lead = (D,) if unbatched else (D, N)
        hs = [torch.tensor(rng.standard_normal(lead + (h_out,)), dtype=dtype, requires_grad=True)]
        if name == "LSTM":
            hs.append(torch.tensor(rng.standard_normal(lead + (hidden,)), dtype=dtype, requires_grad=True))
    a_x = to_ak(x).requires_grad_()
    a_hs = [to_ak(h).requires_grad_() for h in hs]
    t_hx = None if not hs else (tuple(hs) if name == "LSTM" else hs[0])
    a_hx = None if not hs else (tuple(a_hs) if name == "LSTM" else a_hs[0])
    refs, outs = _flatten(tm(x, t_hx)), _flatten(am(a_x, a_hx))
    loss_t = 0
    loss_a = 0
    for k, (o, r) in enumerate(zip(outs, refs)):
        assert_close(o, r, rtol, atol, f"output {k}")
        g = rng.standard_normal(tuple(r.shape))
        loss_t = loss_t + (r * torch.tensor(g, dtype=dtype)).sum()
        loss_a = loss_a + (o * ak.tensor(g).to(o.dtype)).sum()
    loss_t.backward()
    loss_a.backward()
    assert_close(a_x.grad, x.grad, rtol, atol, "grad input")
    for k, (a, t) in enumerate(zip(a_hs, hs)):
        assert_close(a.grad, t.grad, rtol, atol, f"grad hx {k}")
    tp = dict(tm.named_parameters())
    for pname, p in am.named_parameters():
        assert_close(p.grad, tp[pname].grad, rtol, atol, f"grad {pname}")


@pytest.mark.parametrize("name", ["RNNCell", "LSTMCell", "GRUCell"])
@pytest.mark.parametrize("unbatched", [False, True])
def test_cells_match_torch(name, unbatched):
    torch.manual_seed(0)
    tm = getattr(torch.nn, name)(3, 5).double()
    am = getattr(nn, name)(3, 5, dtype=ak.float64)
    assert list(am.state_dict()) == list(tm.state_dict())
    copy_weights(am, tm)
    rng = np.random.default_rng(2)
    lead = () if unbatched else (4,)
    x = torch.tensor(rng.standard_normal(lead + (3,)), requires_grad=True)
    h = torch.tensor(rng.standard_normal(lead + (5,)), requires_grad=True)
    ax, ah = to_ak(x).requires_grad_(), to_ak(h).requires_grad_()
    if name == "LSTMCell":
        c = torch.tensor(rng.standard_normal(lead + (5,)))
        ref = tm(x, (h, c))
        out = am(ax, (ah, to_ak(c)))
        ref_l, out_l = (ref[0] * 2 + ref[1]).sum(), (out[0] * 2 + out[1]).sum()
        for o, r in zip(out, ref):
            assert_close(o, r, 1e-10, 1e-12)
        assert_close(am(ax)[0], tm(x)[0], 1e-10, 1e-12)
    else:
        ref, out = tm(x, h), am(ax, ah)
        assert_close(out, ref, 1e-10, 1e-12)
        assert_close(am(ax), tm(x), 1e-10, 1e-12)
        ref_l, out_l = (ref ** 2).sum(), (out ** 2).sum()
    ref_l.backward()
    out_l.backward()
    assert_close(ax.grad, x.grad, 1e-10, 1e-12)
    assert_close(ah.grad, h.grad, 1e-10, 1e-12)
    tp = dict(tm.named_parameters())
    for pname, p in am.named_parameters():
        assert_close(p.grad, tp[pname].grad, 1e-10, 1e-12, pname)


def test_init_is_uniform_in_torch_bounds_and_repr_matches():
    m = nn.LSTM(10, 16, num_layers=2, bidirectional=True, proj_size=8)
    t = torch.nn.LSTM(10, 16, num_layers=2, bidirectional=True, proj_size=8)
    assert repr(m) == repr(t)
    assert [(n, tuple(p.shape)) for n, p in m.named_parameters()] == \
        [(n, tuple(p.shape)) for n, p in t.named_parameters()]
    w = np.concatenate([p.numpy().ravel() for p in m.parameters()])
    assert np.abs(w).max() <= 0.25 and np.abs(w).max() > 0.24 and abs(w.mean()) < 0.02
    assert repr(nn.GRU(3, 4, batch_first=True, dropout=0.5, num_layers=2)) == \
        repr(torch.nn.GRU(3, 4, batch_first=True, dropout=0.5, num_layers=2))
    assert repr(nn.RNNCell(3, 4, nonlinearity="relu")) == repr(torch.nn.RNNCell(3, 4, nonlinearity="relu"))


def test_dropout_between_layers_only_in_training():
    m = nn.GRU(3, 4, num_layers=2, dropout=0.5, dtype=ak.float64)
    x = ak.randn(6, 2, 3, dtype=ak.float64)
    m.eval()
    a, _ = m(x)
    b, _ = m(x)
    assert np.array_equal(a.numpy(), b.numpy())
    m.train()
    c, _ = m(x)
    assert not np.allclose(a.numpy(), c.numpy())


def test_argument_errors_like_torch():
    with pytest.raises(ValueError):
        nn.LSTM(3, 4, proj_size=4)
    with pytest.raises(ValueError):
        nn.GRU(3, 4, proj_size=2)
    with pytest.raises(ValueError):
        nn.RNN(3, 4, dropout=1.5)
    with pytest.raises(ValueError):
        nn.RNN(3, 0)
    with pytest.raises(ValueError):
        nn.RNN(3, 4, nonlinearity="sigmoid")
    with pytest.warns(UserWarning):
        nn.LSTM(3, 4, dropout=0.2)
    m = nn.LSTM(3, 4)
    with pytest.raises(RuntimeError, match="input_size"):
        m(ak.randn(5, 2, 7))
    with pytest.raises(ValueError):
        m(ak.randn(5, 2, 3, 1))
    with pytest.raises(RuntimeError, match="hidden size"):
        m(ak.randn(5, 2, 3), (ak.zeros(1, 3, 4), ak.zeros(1, 2, 4)))
    with pytest.raises(ValueError):
        nn.GRUCell(3, 4)(ak.randn(2, 2, 3))
