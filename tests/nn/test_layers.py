"""Every layer against torch.nn with identical weights: outputs, input gradients and
parameter gradients, in float64 (tight) and float32 (loose)."""

from __future__ import annotations

import numpy as np
import pytest

import aakaar as ak
import aakaar.nn as nn
import aakaar.nn.functional as F
from nn_helpers import assert_close, copy_weights, torch

TOL = {ak.float64: 1e-10, ak.float32: 1e-5}
TORCH_DT = {ak.float64: torch.float64, ak.float32: torch.float32}


def _randomise(tmod, seed: int = 0) -> None:
    """Random values for every float parameter/buffer, so ones/zeros defaults can't hide a bug."""
    g = torch.Generator().manual_seed(seed)
    with torch.no_grad():
        for p in tmod.parameters():
            p.copy_(torch.randn(p.shape, generator=g, dtype=p.dtype))


def check_layer(ak_mod, t_mod, shape, dtype=ak.float64, seed=0, data=None, randomise=True):
    """Forward and backward of both layers on the same input and upstream gradient."""
    t_mod = t_mod.to(TORCH_DT[dtype])
    ak_mod = ak_mod.to(dtype)
    if randomise:
        _randomise(t_mod, seed)
    copy_weights(ak_mod, t_mod)
    rng = np.random.default_rng(seed)
    x_np = rng.standard_normal(shape) if data is None else data
    x_np = x_np.astype(np.float64 if dtype == ak.float64 else np.float32)
    xt = torch.from_numpy(x_np.copy()).requires_grad_()
    xa = ak.from_numpy(x_np.copy()).requires_grad_()
    yt, ya = t_mod(xt), ak_mod(xa)
    tol = TOL[dtype]
    assert_close(ya, yt, rtol=tol, atol=tol, what=f"{type(ak_mod).__name__} output")
    g = rng.standard_normal(tuple(yt.shape)).astype(x_np.dtype)
    (yt * torch.from_numpy(g)).sum().backward()
    (ya * ak.from_numpy(g)).sum().backward()
    assert_close(xa.grad, xt.grad, rtol=tol, atol=tol, what=f"{type(ak_mod).__name__} input grad")
    t_params = dict(t_mod.named_parameters())
    a_params = dict(ak_mod.named_parameters())
    assert list(a_params) == list(t_params)
    for name, pt in t_params.items():
        assert a_params[name].grad is not None, f"{name} got no gradient"
        assert_close(a_params[name].grad, pt.grad, rtol=tol, atol=tol, what=f"{type(ak_mod).__name__}.{name}.grad")
    return ya, yt


CASES = [
    ("linear", lambda: nn.Linear(5, 3), lambda: torch.nn.Linear(5, 3), (4, 5)),
    ("linear-batched", lambda: nn.Linear(5, 3), lambda: torch.nn.Linear(5, 3), (2, 4, 5)),
    ("linear-nobias", lambda: nn.Linear(5, 3, bias=False), lambda: torch.nn.Linear(5, 3, bias=False), (4, 5)),
    ("identity", nn.Identity, torch.nn.Identity, (3, 4)),
    ("flatten", nn.Flatten, torch.nn.Flatten, (2, 3, 4)),
    ("flatten-0", lambda: nn.Flatten(0, 1), lambda: torch.nn.Flatten(0, 1), (2, 3, 4)),
    ("relu", nn.ReLU, torch.nn.ReLU, (3, 7)),
    ("leaky_relu", lambda: nn.LeakyReLU(0.2), lambda: torch.nn.LeakyReLU(0.2), (3, 7)),
    ("elu", lambda: nn.ELU(1.3), lambda: torch.nn.ELU(1.3), (3, 7)),
    ("gelu", nn.GELU, torch.nn.GELU, (3, 7)),
    ("gelu-tanh", lambda: nn.GELU("tanh"), lambda: torch.nn.GELU("tanh"), (3, 7)),
    ("silu", nn.SiLU, torch.nn.SiLU, (3, 7)),
    ("sigmoid", nn.Sigmoid, torch.nn.Sigmoid, (3, 7)),
    ("tanh", nn.Tanh, torch.nn.Tanh, (3, 7)),
    ("softmax", lambda: nn.Softmax(dim=1), lambda: torch.nn.Softmax(dim=1), (3, 7)),
    ("softmax-0", lambda: nn.Softmax(dim=0), lambda: torch.nn.Softmax(dim=0), (3, 7)),
    ("log_softmax", lambda: nn.LogSoftmax(dim=-1), lambda: torch.nn.LogSoftmax(dim=-1), (2, 3, 7)),
    ("layer_norm", lambda: nn.LayerNorm(6), lambda: torch.nn.LayerNorm(6), (4, 6)),
    ("layer_norm-2d", lambda: nn.LayerNorm((3, 4)), lambda: torch.nn.LayerNorm((3, 4)), (2, 3, 4)),
    ("layer_norm-noaffine", lambda: nn.LayerNorm(6, elementwise_affine=False),
     lambda: torch.nn.LayerNorm(6, elementwise_affine=False), (4, 6)),
    ("layer_norm-nobias", lambda: nn.LayerNorm(6, bias=False), lambda: torch.nn.LayerNorm(6, bias=False), (4, 6)),
    ("batch_norm", lambda: nn.BatchNorm1d(4), lambda: torch.nn.BatchNorm1d(4), (8, 4)),
    ("batch_norm-3d", lambda: nn.BatchNorm1d(4), lambda: torch.nn.BatchNorm1d(4), (8, 4, 5)),
    ("batch_norm-noaffine", lambda: nn.BatchNorm1d(4, affine=False), lambda: torch.nn.BatchNorm1d(4, affine=False), (8, 4)),
    ("batch_norm-nobias", lambda: nn.BatchNorm1d(4, bias=False), lambda: torch.nn.BatchNorm1d(4, bias=False), (8, 4)),
    ("dropout-eval-like-p0", lambda: nn.Dropout(0.0), lambda: torch.nn.Dropout(0.0), (3, 7)),
]


@pytest.mark.parametrize("dtype", [ak.float64, ak.float32], ids=["f64", "f32"])
@pytest.mark.parametrize("name,make_ak,make_torch,shape", CASES, ids=[c[0] for c in CASES])
def test_layer_matches_torch(name, make_ak, make_torch, shape, dtype):
    check_layer(make_ak(), make_torch(), shape, dtype)


def test_elu_large_inputs_have_finite_gradients():
    # The discarded exp branch of where() must not turn into NaN gradients.
    check_layer(nn.ELU(), torch.nn.ELU(), None, data=np.array([[-50.0, -1.0, 0.5, 100.0, 800.0]]))


@pytest.mark.parametrize("momentum", [0.1, 0.3, None])
def test_batch_norm_running_statistics_and_eval(momentum):
    am, tm = nn.BatchNorm1d(3, momentum=momentum).double(), torch.nn.BatchNorm1d(3, momentum=momentum).double()
    _randomise(tm)
    copy_weights(am, tm)
    rng = np.random.default_rng(1)
    for _ in range(4):
        x = rng.standard_normal((6, 3)) * 3 + 1
        assert_close(am(ak.from_numpy(x.copy())), tm(torch.from_numpy(x)), rtol=1e-10, atol=1e-10)
    for name in ("running_mean", "running_var", "num_batches_tracked"):
        assert_close(getattr(am, name), getattr(tm, name), rtol=1e-12, what=name)
    am.eval(), tm.eval()
    ya, yt = check_layer(am, tm, (5, 3), randomise=False)
    # Eval must not move the running statistics.
    assert_close(am.running_mean, tm.running_mean, rtol=1e-12)
    assert int(am.num_batches_tracked.item()) == 4


def test_batch_norm_without_running_stats_uses_batch_statistics_in_eval():
    am, tm = nn.BatchNorm1d(4, track_running_stats=False), torch.nn.BatchNorm1d(4, track_running_stats=False)
    am.eval(), tm.eval()
    assert am.running_mean is None and "running_mean" not in am.state_dict()
    check_layer(am, tm, (6, 4))


@pytest.mark.parametrize("padding_idx", [None, 0, -1])
def test_embedding_matches_torch(padding_idx):
    am, tm = nn.Embedding(10, 3, padding_idx=padding_idx).double(), torch.nn.Embedding(10, 3, padding_idx=padding_idx).double()
    copy_weights(am, tm)
    idx = np.array([[0, 3, 9, 3], [9, 0, 1, 2]], dtype=np.int64)
    ya, yt = am(ak.from_numpy(idx.copy())), tm(torch.from_numpy(idx))
    assert_close(ya, yt, rtol=0)
    g = np.random.default_rng(0).standard_normal(tuple(yt.shape))
    (ya * ak.from_numpy(g)).sum().backward()
    (yt * torch.from_numpy(g)).sum().backward()
    assert_close(am.weight.grad, tm.weight.grad, rtol=1e-12, what="embedding grad (repeated indices accumulate)")
    if padding_idx is not None:
        assert np.all(am.weight.numpy()[padding_idx] == 0)


def test_embedding_rejects_bad_indices():
    emb = nn.Embedding(5, 2)
    with pytest.raises(IndexError, match="5 rows"):
        emb(ak.tensor([1, 5]))
    with pytest.raises(RuntimeError, match="int64 or int32"):  # torch's class
        emb(ak.tensor([1.0, 2.0]))
    assert emb(ak.tensor([1, 4], dtype=ak.int32)).shape == (2, 2)  # int32 indices, as torch


def test_dropout_train_and_eval():
    ak.manual_seed(0)
    d = nn.Dropout(0.25)
    x = ak.ones(200, 100, dtype=ak.float64).requires_grad_()
    y = d(x)
    out = y.detach().numpy()
    kept = out != 0
    assert abs(kept.mean() - 0.75) < 0.02, kept.mean()
    np.testing.assert_allclose(out[kept], 1 / 0.75)
    y.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), out)  # gradient goes through the same mask and scale
    d.eval()
    assert d(x) is x
    d.train()
    assert not np.array_equal(d(x).detach().numpy(), out)  # a fresh mask each call
    with pytest.raises(ValueError, match="between 0 and 1"):
        nn.Dropout(1.5)
    assert np.all(F.dropout(x, 1.0).detach().numpy() == 0)


@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
def test_losses_match_torch(reduction):
    rng = np.random.default_rng(0)
    logits = rng.standard_normal((6, 5))
    target = rng.integers(0, 5, 6).astype(np.int64)
    other = rng.standard_normal((6, 5))
    for ak_fn, t_fn, second in [
        (F.cross_entropy, torch.nn.functional.cross_entropy, target),
        (F.nll_loss, torch.nn.functional.nll_loss, target),
        (F.mse_loss, torch.nn.functional.mse_loss, other),
    ]:
        xa, xt = ak.from_numpy(logits.copy()).requires_grad_(), torch.from_numpy(logits.copy()).requires_grad_()
        la = ak_fn(xa, ak.from_numpy(second.copy()), reduction=reduction)
        lt = t_fn(xt, torch.from_numpy(second.copy()), reduction=reduction)
        assert_close(la, lt, rtol=1e-12, what=ak_fn.__name__)
        la.sum().backward(), lt.sum().backward()
        assert_close(xa.grad, xt.grad, rtol=1e-12, atol=1e-15, what=ak_fn.__name__ + " grad")


def test_functional_bad_input_is_a_clear_error():
    x = ak.randn(4, 5)
    with pytest.raises(ValueError, match=r"\(4, 5\).*in_features=3"):
        nn.Linear(3, 2)(x)
    with pytest.raises(ValueError, match="normalized_shape"):
        nn.LayerNorm(4)(x)
    with pytest.raises(ValueError, match=r"BatchNorm1d\(3\)"):
        nn.BatchNorm1d(3)(x)
    with pytest.raises(ValueError, match="more than 1 value per channel"):
        nn.BatchNorm1d(5)(ak.randn(1, 5))
    with pytest.raises(TypeError, match="int64"):
        F.cross_entropy(x, ak.tensor([0.0, 1.0, 2.0, 3.0]))
    with pytest.raises(ValueError, match="target shape"):
        F.cross_entropy(x, ak.tensor([0, 1]))
    with pytest.raises(ValueError, match="reduction"):
        F.mse_loss(x, x, reduction="avg")
    with pytest.raises(ValueError, match=r"mse_loss.*\(4, 5\).*\(5,\)"):
        F.mse_loss(x, ak.randn(5))
    with pytest.raises(TypeError, match="aakaar.Tensor"):
        F.linear(np.ones((2, 3)), ak.randn(2, 3))
    with pytest.raises(ValueError, match="approximate"):
        nn.GELU("fast")
    with pytest.raises(ValueError, match="in_features"):
        nn.Linear(-1, 3)


def test_reprs_match_torch():
    pairs = [
        (nn.Linear(4, 3), torch.nn.Linear(4, 3)),
        (nn.Linear(4, 3, bias=False), torch.nn.Linear(4, 3, bias=False)),
        (nn.ReLU(), torch.nn.ReLU()),
        (nn.LayerNorm(4), torch.nn.LayerNorm(4)),
        (nn.BatchNorm1d(4), torch.nn.BatchNorm1d(4)),
        (nn.BatchNorm1d(4, affine=False, momentum=None), torch.nn.BatchNorm1d(4, affine=False, momentum=None)),
        (nn.LayerNorm((2, 3), elementwise_affine=False), torch.nn.LayerNorm((2, 3), elementwise_affine=False)),
        (nn.Embedding(10, 3), torch.nn.Embedding(10, 3)),
        (nn.Embedding(10, 3, padding_idx=2), torch.nn.Embedding(10, 3, padding_idx=2)),
        (nn.Flatten(), torch.nn.Flatten()),
        (nn.Softmax(dim=1), torch.nn.Softmax(dim=1)),
        (nn.LeakyReLU(0.2), torch.nn.LeakyReLU(0.2)),
        (nn.GELU(), torch.nn.GELU()),
        (nn.Sequential(nn.Linear(784, 256), nn.ReLU(), nn.Sequential(nn.Linear(256, 10), nn.Tanh())),
         torch.nn.Sequential(torch.nn.Linear(784, 256), torch.nn.ReLU(),
                             torch.nn.Sequential(torch.nn.Linear(256, 10), torch.nn.Tanh()))),
    ]
    for a, t in pairs:
        assert repr(a) == repr(t)
