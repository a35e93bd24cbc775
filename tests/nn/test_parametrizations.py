"""nn.utils.parametrizations (weight_norm, spectral_norm) and the legacy hook-based nn.utils.weight_norm /
spectral_norm against torch: state_dict keys, the values read at registration, outputs and gradients
over several training steps (spectral norm's power iteration started from torch's u and v, so its
buffers must follow torch's step by step), eval mode, removal, and the exceptions."""

from __future__ import annotations

import numpy as np
import pytest

import aakaar as ak
import aakaar.nn as nn
from aakaar.nn.utils import parametrizations as PZ

from tests.nn.nn_helpers import assert_close, copy_weights, to_ak

torch = pytest.importorskip("torch")
TPZ = torch.nn.utils.parametrizations

LAYERS = {
    "linear": (lambda lib: lib.nn.Linear(5, 4), (3, 5)),
    "conv2d": (lambda lib: lib.nn.Conv2d(3, 4, 3), (2, 3, 6, 6)),
    "convT2d": (lambda lib: lib.nn.ConvTranspose2d(3, 4, 2), (2, 3, 4, 4)),
    "conv1d": (lambda lib: lib.nn.Conv1d(2, 3, 2), (2, 2, 5)),
}


def _make(kind, dtype, seed=0):
    make, shape = LAYERS[kind]
    torch.manual_seed(seed)
    t = make(torch).to(getattr(torch, dtype))
    a = make(ak).to(getattr(ak, dtype))
    copy_weights(a, t)
    return a, t, shape


def _step(a, t, shape, rtol, seed):
    """One forward and backward on the same input; outputs, parameter gradients and buffers agree."""
    rng = np.random.default_rng(seed)
    tx = torch.tensor(rng.standard_normal(shape), dtype=next(t.parameters()).dtype, requires_grad=True)
    ax = to_ak(tx).requires_grad_()
    ref, out = t(tx), a(ax)
    assert_close(out, ref, rtol, rtol, "output")
    g = torch.tensor(rng.standard_normal(tuple(ref.shape)), dtype=ref.dtype)
    ref.backward(g)
    out.backward(to_ak(g))
    assert_close(ax.grad, tx.grad, rtol, rtol, "input grad")
    tp, ap = dict(t.named_parameters()), dict(a.named_parameters())
    assert list(ap) == list(tp)
    for k in tp:
        assert_close(ap[k].grad, tp[k].grad, rtol, rtol, f"grad of {k}")
        ap[k].grad, tp[k].grad = None, None
    tb, ab = dict(t.named_buffers()), dict(a.named_buffers())
    assert list(ab) == list(tb)
    for k in tb:
        assert_close(ab[k], tb[k], rtol, rtol, f"buffer {k}")


TOL = [("float64", 1e-10), ("float32", 1e-5)]


@pytest.mark.parametrize("dtype,rtol", TOL)
@pytest.mark.parametrize("kind,dim", [("linear", 0), ("linear", 1), ("conv2d", 0), ("conv2d", None),
                                      ("conv2d", 2), ("convT2d", -2), ("conv1d", 1)])
def test_weight_norm_matches_torch(kind, dim, dtype, rtol):
    a, t, shape = _make(kind, dtype)
    TPZ.weight_norm(t, dim=dim)
    PZ.weight_norm(a, dim=dim)
    assert list(a.state_dict()) == list(t.state_dict())
    # the magnitudes computed at registration (right_inverse) agree before anything is copied
    assert_close(a.parametrizations.weight.original0, t.parametrizations.weight.original0, rtol, rtol)
    assert_close(a.weight, t.weight, rtol, rtol)
    for seed in range(2):
        _step(a, t, shape, rtol, seed)


def test_weight_norm_gradcheck():
    v = ak.tensor(np.random.default_rng(0).standard_normal((3, 4, 2))).requires_grad_()
    g = ak.tensor(np.random.default_rng(1).standard_normal((1, 4, 1))).requires_grad_()
    assert ak.autograd.gradcheck(lambda g_, v_: PZ._weight_norm(v_, g_, 1), (g, v), eps=1e-6, atol=1e-8)
    gs = ak.tensor(2.5, dtype=ak.float64).requires_grad_()
    assert ak.autograd.gradcheck(lambda g_, v_: PZ._weight_norm(v_, g_, -1), (gs, v), eps=1e-6, atol=1e-8)


@pytest.mark.parametrize("dtype,rtol", TOL)
@pytest.mark.parametrize("kind,dim,n_iter", [("linear", None, 1), ("conv2d", None, 2), ("convT2d", None, 1),
                                             ("conv2d", 1, 1), ("conv1d", -1, 3)])
def test_spectral_norm_matches_torch(kind, dim, n_iter, dtype, rtol):
    a, t, shape = _make(kind, dtype, seed=3)
    TPZ.spectral_norm(t, n_power_iterations=n_iter, dim=dim)
    PZ.spectral_norm(a, n_power_iterations=n_iter, dim=dim)
    assert list(a.state_dict()) == list(t.state_dict())
    copy_weights(a, t)  # torch's u and v (random, after its 15 warm-up steps)
    for seed in range(3):  # training: each forward runs the power steps on the buffers
        _step(a, t, shape, rtol, seed)
    t.eval()
    a.eval()
    for seed in range(3, 5):  # eval: the buffers stay
        _step(a, t, shape, rtol, seed)


def test_spectral_norm_warm_up_estimates_sigma():
    a, t, _ = _make("linear", "float64", seed=4)
    PZ.spectral_norm(a)
    sigma = np.linalg.svd(a.parametrizations.weight.original.detach().numpy(), compute_uv=False)[0]
    a.eval()
    w = a.weight.detach().numpy()
    assert abs(np.linalg.svd(w, compute_uv=False)[0] - 1.0) < 1e-3, sigma


def test_spectral_norm_of_a_vector_normalizes():
    a, t, _ = _make("linear", "float64", seed=5)
    TPZ.spectral_norm(t, name="bias")
    PZ.spectral_norm(a, name="bias")
    assert list(a.state_dict()) == list(t.state_dict())
    assert_close(a.bias, t.bias, 1e-14)


@pytest.mark.parametrize("dtype,rtol", TOL)
def test_legacy_weight_norm_matches_torch(dtype, rtol):
    a, t, shape = _make("conv2d", dtype, seed=6)
    with pytest.warns(FutureWarning):
        torch.nn.utils.weight_norm(t, dim=1)
    with pytest.warns(FutureWarning):
        nn.utils.weight_norm(a, dim=1)
    assert list(a.state_dict()) == list(t.state_dict()) == ["bias", "weight_g", "weight_v"]
    assert_close(a.weight_g, t.weight_g, rtol, rtol)
    for seed in range(2):
        _step(a, t, shape, rtol, seed)
    torch.nn.utils.remove_weight_norm(t)
    nn.utils.remove_weight_norm(a)
    assert list(a.state_dict()) == list(t.state_dict())
    assert isinstance(a.weight, nn.Parameter)
    _step(a, t, shape, rtol, 9)


@pytest.mark.parametrize("dtype,rtol", TOL)
@pytest.mark.parametrize("kind", ["linear", "convT2d"])
def test_legacy_spectral_norm_matches_torch(kind, dtype, rtol):
    a, t, shape = _make(kind, dtype, seed=7)
    torch.nn.utils.spectral_norm(t, n_power_iterations=2)
    nn.utils.spectral_norm(a, n_power_iterations=2)
    assert list(a.state_dict()) == list(t.state_dict()) == ["bias", "weight_orig", "weight_u", "weight_v"]
    copy_weights(a, t)
    for seed in range(3):
        _step(a, t, shape, rtol, seed)
    t.eval()
    a.eval()
    _step(a, t, shape, rtol, 5)
    torch.nn.utils.remove_spectral_norm(t)
    nn.utils.remove_spectral_norm(a)
    assert list(a.state_dict()) == list(t.state_dict()) == ["bias", "weight"]
    assert_close(a.weight, t.weight, rtol, rtol)


def test_legacy_weight_norm_checkpoint_loads_into_parametrization():
    _, t, shape = _make("linear", "float64", seed=8)
    with pytest.warns(FutureWarning):
        torch.nn.utils.weight_norm(t)
    a = nn.Linear(5, 4).double()
    PZ.weight_norm(a)
    a.load_state_dict({k: to_ak(v) for k, v in t.state_dict().items()})
    assert_close(a.weight, t.weight, 1e-14)


@pytest.mark.filterwarnings("ignore::FutureWarning")
def test_bad_arguments_raise_like_torch():
    for lib, sn, wn, rsn, rwn in ((torch, TPZ.spectral_norm, torch.nn.utils.weight_norm, torch.nn.utils.remove_spectral_norm,
                                   torch.nn.utils.remove_weight_norm),
                                  (ak, PZ.spectral_norm, nn.utils.weight_norm, nn.utils.remove_spectral_norm,
                                   nn.utils.remove_weight_norm)):
        with pytest.raises(ValueError, match="n_power_iterations"):
            sn(lib.nn.Linear(2, 3), n_power_iterations=0)
        with pytest.raises(IndexError, match="Dimension out of range"):
            sn(lib.nn.Linear(2, 3), dim=2)
        with pytest.raises(ValueError, match="has no parameter or buffer"):
            sn(lib.nn.Linear(2, 3), name="nothing")
        with pytest.raises(ValueError, match="not found"):
            rsn(lib.nn.Linear(2, 3))
        with pytest.raises(ValueError, match="not found"):
            rwn(lib.nn.Linear(2, 3))
        m = lib.nn.Linear(2, 3)
        with pytest.warns(FutureWarning):
            wn(m)
        with pytest.raises(RuntimeError, match="Cannot register two weight_norm hooks"):
            wn(m)
    m = nn.Linear(2, 3)
    nn.utils.spectral_norm(m)
    with pytest.raises(RuntimeError, match="Cannot register two spectral_norm hooks"):
        nn.utils.spectral_norm(m)
    with pytest.raises(ValueError, match="n_power_iterations"):
        nn.utils.spectral_norm(nn.Linear(2, 3), n_power_iterations=0)


ORTH = [((4, 4), None, True), ((4, 4), "cayley", True), ((5, 3), None, True), ((3, 5), None, True),
        ((4, 4), "householder", True), ((5, 3), "matrix_exp", True), ((5, 3), "householder", False),
        ((3, 5), "householder", False), ((4, 4), "cayley", False)]


@pytest.mark.parametrize("dtype,rtol", TOL)
@pytest.mark.parametrize("shape,orthogonal_map,triv", ORTH)
def test_orthogonal_matches_torch(shape, orthogonal_map, triv, dtype, rtol):
    torch.manual_seed(0)
    t = torch.nn.Linear(shape[1], shape[0]).to(getattr(torch, dtype))
    a = nn.Linear(shape[1], shape[0]).to(getattr(ak, dtype))
    copy_weights(a, t)
    TPZ.orthogonal(t, orthogonal_map=orthogonal_map, use_trivialization=triv)
    PZ.orthogonal(a, orthogonal_map=orthogonal_map, use_trivialization=triv)
    assert list(a.state_dict()) == list(t.state_dict())
    assert_close(a.weight, t.weight, rtol, rtol, "weight at registration")
    with torch.no_grad():  # move away from the registration point, the same way in both (not on the
        # diagonal, which holds the householder map's column signs and is not trained)
        off_diagonal = 1 - torch.eye(*shape, dtype=t.weight.dtype)
        t.parametrizations.weight.original.add_(0.3 * torch.randn(shape, dtype=t.weight.dtype) * off_diagonal)
    copy_weights(a, t)
    for seed in range(2):
        _step(a, t, (3, shape[1]), rtol, seed)
    w = a.weight.detach().numpy().astype(np.float64)
    gram = w.T @ w if shape[0] >= shape[1] else w @ w.T
    assert np.abs(gram - np.eye(min(shape))).max() < 100 * rtol


def test_orthogonal_assignment_and_gradcheck():
    torch.manual_seed(1)
    t = torch.nn.Linear(3, 3).double()
    a = nn.Linear(3, 3).double()
    copy_weights(a, t)
    TPZ.orthogonal(t)
    PZ.orthogonal(a)
    Q = np.linalg.qr(np.random.default_rng(0).standard_normal((3, 3)))[0]
    t.weight = torch.tensor(Q)
    a.weight = ak.tensor(Q)
    assert_close(a.weight, Q, 1e-12, 1e-12)
    assert_close(a.parametrizations.weight[0].base, t.parametrizations.weight[0].base, 1e-12, 1e-12)
    from aakaar.nn.utils.orthogonal import _Orthogonal

    for orthogonal_map in ("matrix_exp", "cayley", "householder"):
        m = _Orthogonal(ak.zeros(4, 3, dtype=ak.float64), orthogonal_map, use_trivialization=False)
        X = ak.tensor(np.random.default_rng(2).standard_normal((4, 3)) * 0.5).requires_grad_()
        assert ak.autograd.gradcheck(m, (X,), eps=1e-6, atol=1e-8)


def test_orthogonal_bad_arguments_raise_like_torch():
    for lib, orth in ((torch, TPZ.orthogonal), (ak, PZ.orthogonal)):
        with pytest.raises(ValueError, match="orthogonal_map has to be one of"):
            orth(lib.nn.Linear(3, 3), orthogonal_map="qr")
        with pytest.raises(ValueError, match="Expected a matrix or batch of matrices"):
            orth(lib.nn.Linear(3, 3), name="bias")
        with pytest.raises(ValueError, match="has no parameter or buffer"):
            orth(lib.nn.Linear(3, 3), name="nothing")
        m = orth(lib.nn.Linear(3, 3), orthogonal_map="cayley", use_trivialization=False)
        with pytest.raises(NotImplementedError, match="not possible to assign"):
            m.weight = lib.eye(3)


@pytest.mark.filterwarnings("ignore::FutureWarning")
@pytest.mark.parametrize("how", ["legacy_weight_norm", "weight_norm", "legacy_spectral_norm", "spectral_norm"])
def test_normalised_linear_inside_sequential_with_relu(how):
    # Sequential fuses Linear + ReLU into one op; that path must still see the normalised weight
    # (computed by a forward pre-hook for the legacy API, by the property for the parametrization).
    torch.manual_seed(0)
    t = torch.nn.Sequential(torch.nn.Linear(4, 3), torch.nn.ReLU()).double()
    a = nn.Sequential(nn.Linear(4, 3), nn.ReLU()).double()
    copy_weights(a, t)
    lib_t = {"legacy_weight_norm": torch.nn.utils.weight_norm, "weight_norm": TPZ.weight_norm,
             "legacy_spectral_norm": torch.nn.utils.spectral_norm, "spectral_norm": TPZ.spectral_norm}[how]
    lib_a = {"legacy_weight_norm": nn.utils.weight_norm, "weight_norm": PZ.weight_norm,
             "legacy_spectral_norm": nn.utils.spectral_norm, "spectral_norm": PZ.spectral_norm}[how]
    lib_t(t[0])
    lib_a(a[0])
    copy_weights(a, t)
    for seed in range(2):
        _step(a, t, (5, 4), 1e-10, seed)
        with torch.no_grad():  # a step of an optimiser: the next forward must use the new weight
            for p in t.parameters():
                p.mul_(1.5)
        with ak.no_grad():
            for p in a.parameters():
                p.mul_(1.5)
    calls = []
    a[0].register_forward_hook(lambda m, i, o: calls.append(1))
    a(ak.randn(2, 4, dtype=ak.float64))
    assert calls == [1]


def test_orthogonal_recurrent_kernel_of_an_lstm():
    # The classic use: an orthogonal hidden-to-hidden matrix; the LSTM reads it through the property.
    torch.manual_seed(2)
    t = torch.nn.LSTM(3, 4).double()
    a = nn.LSTM(3, 4).double()
    copy_weights(a, t)
    TPZ.orthogonal(t, "weight_hh_l0")
    PZ.orthogonal(a, "weight_hh_l0")
    copy_weights(a, t)  # the trivialization's base
    x = torch.tensor(np.random.default_rng(0).standard_normal((5, 2, 3)), requires_grad=True)
    ax = to_ak(x).requires_grad_()
    ref, out = t(x)[0], a(ax)[0]
    assert_close(out, ref, 1e-10, 1e-12)
    ref.sum().backward()
    out.sum().backward()
    assert_close(ax.grad, x.grad, 1e-10, 1e-12)
    for (k, p), (_, q) in zip(a.named_parameters(), t.named_parameters()):
        assert_close(p.grad, q.grad, 1e-10, 1e-12, k)
