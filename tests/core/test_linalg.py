"""aakaar.linalg against torch.linalg: values (float64 to 1e-10, float32 to 1e-5), batched inputs,
gradients against torch's and by finite differences in float64, the older top-level names
(aakaar.det, inverse, svd, ...), and bad input with torch's exception classes.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

import aakaar
from aakaar import linalg as LA
from aakaar.autograd import gradcheck

torch = pytest.importorskip("torch")
# torch's own warnings about its reference implementation, expected here
pytestmark = [pytest.mark.filterwarnings(r"ignore:torch\.qr is deprecated:UserWarning"), pytest.mark.filterwarnings(r"ignore:torch\.cholesky is deprecated:UserWarning")]
TL = torch.linalg


def rnd(*shape, seed=0):
    return np.random.default_rng(seed).standard_normal(shape)


def spd(n, batch=(), seed=0):
    a = rnd(*batch, n, n, seed=seed)
    return a @ np.swapaxes(a, -1, -2) + n * np.eye(n)


def close(got, want, rtol=1e-10, atol=1e-12):
    if isinstance(want, (tuple, list)):
        for g, w in zip(got, want):
            close(g, w, rtol, atol)
        return
    assert tuple(got.shape) == tuple(want.shape), (tuple(got.shape), tuple(want.shape))
    np.testing.assert_allclose(got.detach().numpy().astype(np.float64), want.detach().numpy().astype(np.float64),
                               rtol=rtol, atol=atol)


def pair(x, dtype=aakaar.float64, requires_grad=False):
    return (aakaar.tensor(x, dtype=dtype, requires_grad=requires_grad),
            torch.tensor(x, dtype=getattr(torch, dtype.name), requires_grad=requires_grad))


def grads_match(fn_a, fn_t, x, rtol=1e-8, atol=1e-10, check_fd=True):
    """aakaar's gradient equals torch's (a random cotangent), and finite differences (float64)."""
    a, t = pair(x, requires_grad=True)
    out_a, out_t = fn_a(a), fn_t(t)
    outs_a = out_a if isinstance(out_a, (tuple, list)) else [out_a]
    outs_t = out_t if isinstance(out_t, (tuple, list)) else [out_t]
    total_a, total_t = 0, 0
    for i, (oa, ot) in enumerate(zip(outs_a, outs_t)):
        w = rnd(*ot.shape, seed=100 + i)
        total_a = total_a + (oa * aakaar.tensor(w)).sum()
        total_t = total_t + (ot * torch.tensor(w)).sum()
    total_a.backward()
    total_t.backward()
    close(a.grad, t.grad, rtol, atol)
    if check_fd:
        def scalar(v):
            o = fn_a(v)
            os_ = o if isinstance(o, (tuple, list)) else [o]
            return sum((oi * aakaar.tensor(rnd(*oi.shape, seed=100 + i))).sum() for i, oi in enumerate(os_))
        assert gradcheck(scalar, [aakaar.tensor(x, requires_grad=True)], atol=1e-6, rtol=1e-5)


# ---- norms -----------------------------------------------------------------------------------------

@pytest.mark.parametrize("ord", [2, 1, 3, 0.5, math.inf, -math.inf, 0, -1])
@pytest.mark.parametrize("dim", [None, 1, (0, 2)])
def test_vector_norm(ord, dim):
    x = rnd(3, 4, 5)
    a, t = pair(x)
    close(LA.vector_norm(a, ord, dim), TL.vector_norm(t, ord, dim))
    close(LA.vector_norm(a, ord, dim, keepdim=True), TL.vector_norm(t, ord, dim, keepdim=True))
    a32, t32 = pair(x, aakaar.float32)
    close(LA.vector_norm(a32, ord, dim), TL.vector_norm(t32, ord, dim), rtol=1e-5, atol=1e-6)
    if ord != 0:
        grads_match(lambda v: LA.vector_norm(v, ord, dim), lambda v: TL.vector_norm(v, ord, dim), x)


def test_vector_norm_gradient_at_zero_is_zero():
    a, t = pair(np.zeros(4), requires_grad=True)
    LA.vector_norm(a).backward()
    TL.vector_norm(t).backward()
    close(a.grad, t.grad)


@pytest.mark.parametrize("ord", ["fro", "nuc", 1, -1, 2, -2, math.inf, -math.inf])
def test_matrix_norm(ord):
    x = rnd(2, 4, 3, seed=1)
    a, t = pair(x)
    close(LA.matrix_norm(a, ord), TL.matrix_norm(t, ord))
    close(LA.matrix_norm(a, ord, dim=(0, 2), keepdim=True), TL.matrix_norm(t, ord, dim=(0, 2), keepdim=True))
    grads_match(lambda v: LA.matrix_norm(v, ord), lambda v: TL.matrix_norm(v, ord), x)


@pytest.mark.parametrize("args", [(), (2,), ("fro",), ("nuc",), (1, 1), (math.inf, (0, 1)), (None, (0, 1))])
def test_linalg_norm_and_torch_norm(args):
    x = rnd(4, 3, seed=2)
    a, t = pair(x)
    close(LA.norm(a, *args), TL.norm(t, *args))
    tn_args = args if args and args[0] is not None else ()
    if not (len(tn_args) == 1 and tn_args[0] == "nuc") and not (len(tn_args) == 2 and tn_args[0] == math.inf):
        close(aakaar.norm(a, *tn_args), torch.norm(t, *tn_args))
        close(a.norm(*tn_args), t.norm(*tn_args))


# ---- products --------------------------------------------------------------------------------------

def test_cross_multi_dot_matrix_power():
    x, y = rnd(4, 3, seed=1), rnd(4, 3, seed=2)
    (ax, tx), (ay, ty) = pair(x), pair(y)
    close(LA.cross(ax, ay), TL.cross(tx, ty))
    close(aakaar.cross(ax, ay, dim=1), torch.cross(tx, ty, dim=1))
    close(ax.cross(ay), tx.cross(ty, dim=1))
    ms = [rnd(2, 5, seed=3), rnd(5, 7, seed=4), rnd(7, 3, seed=5), rnd(3, seed=6)]
    close(LA.multi_dot([aakaar.tensor(m) for m in ms]), TL.multi_dot([torch.tensor(m) for m in ms]))
    m = rnd(3, 3, seed=7)
    for n in (0, 1, 2, 5, -1, -3):
        close(LA.matrix_power(aakaar.tensor(m), n), TL.matrix_power(torch.tensor(m), n), rtol=1e-9)
        close(aakaar.tensor(m).matrix_power(n), torch.tensor(m).matrix_power(n), rtol=1e-9)
    grads_match(lambda v: LA.matrix_power(v, 3), lambda v: TL.matrix_power(v, 3), m)
    with pytest.raises(RuntimeError):
        LA.multi_dot([aakaar.ones(2, 3), aakaar.ones(2, 3)])
    with pytest.raises(RuntimeError):
        LA.cross(aakaar.ones(4), aakaar.ones(4))


# ---- factorisations --------------------------------------------------------------------------------

@pytest.mark.parametrize("dtype", [aakaar.float64, aakaar.float32], ids=["f64", "f32"])
def test_det_slogdet_inv_solve(dtype):
    tol = 1e-10 if dtype == aakaar.float64 else 2e-5
    x = rnd(3, 4, 4, seed=3)
    b = rnd(3, 4, 2, seed=4)
    (a, t), (ab, tb) = pair(x, dtype), pair(b, dtype)
    close(LA.det(a), TL.det(t), tol)
    close(LA.slogdet(a), TL.slogdet(t), tol)
    close(LA.inv(a), TL.inv(t), tol, atol=tol)
    close(LA.solve(a, ab), TL.solve(t, tb), tol, atol=tol)
    close(LA.solve(a, ab[..., 0]), TL.solve(t, tb[..., 0]), tol, atol=tol)
    close(LA.solve(a, ab.transpose(-2, -1), left=False), TL.solve(t, tb.transpose(-2, -1), left=False), tol, atol=tol)
    close(aakaar.det(a), torch.det(t), tol)
    close(aakaar.inverse(a), torch.inverse(t), tol, atol=tol)
    close(a.logdet(), t.logdet(), tol)
    close(aakaar.slogdet(a), torch.slogdet(t), tol)
    a2, t2 = pair(x[0] @ x[0].T + np.eye(4), dtype)
    close(aakaar.logdet(a2), torch.logdet(t2), tol)


def test_factorisation_gradients():
    x = rnd(4, 4, seed=5)
    b = rnd(4, 2, seed=6)
    grads_match(LA.det, TL.det, x)
    grads_match(lambda v: LA.slogdet(v).logabsdet, lambda v: TL.slogdet(v).logabsdet, x)
    grads_match(LA.inv, TL.inv, x)
    # logdet: a finite gradient for a positive determinant (NaN once came back from the NaN branch)
    grads_match(aakaar.logdet, torch.logdet, x @ x.T + np.eye(4))
    grads_match(aakaar.logdet, torch.logdet, -(x[:3, :3] @ x[:3, :3].T + np.eye(3)))
    grads_match(lambda v: LA.solve(v, aakaar.tensor(b)), lambda v: TL.solve(v, torch.tensor(b)), x)
    grads_match(lambda v: LA.solve(aakaar.tensor(x), v), lambda v: TL.solve(torch.tensor(x), v), b)


def test_cholesky():
    x = spd(4, (2,), seed=1)
    a, t = pair(x)
    close(LA.cholesky(a), TL.cholesky(t))
    close(LA.cholesky(a, upper=True), TL.cholesky(t, upper=True))
    close(aakaar.cholesky(a), torch.cholesky(t))
    sym = lambda f: (lambda v: f(v + v.transpose(-2, -1)))  # noqa: E731 (gradients on symmetric inputs)
    grads_match(sym(LA.cholesky), sym(TL.cholesky), x / 2)
    # straight on A, as torch: the gradient is symmetric, not only in the lower triangle the forward
    # reads (so finite differences, which see only that triangle, do not apply; torch's do not either)
    grads_match(LA.cholesky, TL.cholesky, x, check_fd=False)
    grads_match(lambda v: LA.cholesky(v, upper=True), lambda v: TL.cholesky(v, upper=True), x, check_fd=False)
    with pytest.raises(RuntimeError):
        LA.cholesky(aakaar.tensor([[1.0, 2.0], [2.0, 1.0]], dtype=aakaar.float64))
    with pytest.raises(RuntimeError):
        TL.cholesky(torch.tensor([[1.0, 2.0], [2.0, 1.0]], dtype=torch.float64))
    L, info = LA.cholesky_ex(aakaar.tensor([[1.0, 2.0], [2.0, 1.0]], dtype=aakaar.float64))
    assert int(info.item()) != 0


@pytest.mark.parametrize("shape", [(5, 3), (4, 4), (2, 6, 4)])
def test_qr(shape):
    x = rnd(*shape, seed=2)
    a, t = pair(x)
    for mode in ("reduced", "complete", "r"):
        q, r = LA.qr(a, mode)
        tq, tr = TL.qr(t, mode)
        close(r, tr)
        if mode != "r":
            close(q, tq)
    close(aakaar.qr(a), torch.qr(t))
    grads_match(lambda v: LA.qr(v), lambda v: TL.qr(v), x)


def test_eigh():
    x = rnd(2, 5, 5, seed=3)
    x = x + np.swapaxes(x, -1, -2)
    a, t = pair(x)
    w, v = LA.eigh(a)
    tw, tv = TL.eigh(t)
    close(w, tw)
    # eigenvectors are defined up to sign: compare |v| and the reconstruction
    close(v.abs(), tv.abs())
    close(v.matmul(aakaar.linalg.matmul(w.unsqueeze(-1) * v.transpose(-2, -1), aakaar.eye(5, dtype=aakaar.float64))),
          t)
    close(LA.eigvalsh(a, "U"), TL.eigvalsh(t, "U"))
    sym = lambda v: v + v.transpose(-2, -1)  # noqa: E731
    grads_match(lambda v: LA.eigh(sym(v)).eigenvalues, lambda v: TL.eigh(sym(v)).eigenvalues, x[0])
    # an eigenvector-dependent, sign-invariant function: v_i v_i^T
    grads_match(lambda v: (lambda e: e.eigenvectors * e.eigenvectors)(LA.eigh(sym(v))),
                lambda v: (lambda e: e.eigenvectors * e.eigenvectors)(TL.eigh(sym(v))), x[0])


@pytest.mark.parametrize("shape", [(5, 3), (3, 5), (4, 4), (2, 4, 3)])
def test_svd_svdvals_pinv(shape):
    x = rnd(*shape, seed=4)
    a, t = pair(x)
    U, S, Vh = LA.svd(a, full_matrices=False)
    tU, tS, tVh = TL.svd(t, full_matrices=False)
    close(S, tS)
    close(U.abs(), tU.abs())
    close(Vh.abs(), tVh.abs())
    close(LA.svdvals(a), TL.svdvals(t))
    close(LA.pinv(a), TL.pinv(t), 1e-9, 1e-11)
    close(aakaar.pinverse(a), torch.pinverse(t), 1e-9, 1e-11)
    u, s, v = aakaar.svd(a)
    tu, ts, tv = torch.svd(t)
    close(s, ts)
    close(v.abs(), tv.abs())
    assert int(LA.matrix_rank(a).reshape(-1)[0].item()) == int(TL.matrix_rank(t).reshape(-1)[0].item())
    grads_match(LA.svdvals, TL.svdvals, x)
    grads_match(LA.pinv, TL.pinv, x, rtol=1e-7)
    # sign-invariant functions of the singular vectors
    grads_match(lambda v: (lambda r: (r.U * r.U, r.Vh * r.Vh))(LA.svd(v, full_matrices=False)),
                lambda v: (lambda r: (r.U * r.U, r.Vh * r.Vh))(TL.svd(v, full_matrices=False)), x, rtol=1e-7)


def test_matrix_rank_and_lstsq():
    x = rnd(6, 3, seed=5) @ rnd(3, 4, seed=6)  # rank 3
    a, t = pair(x)
    assert int(LA.matrix_rank(a).item()) == int(TL.matrix_rank(t).item()) == 3
    b = rnd(6, 2, seed=7)
    full_a, full_t = pair(rnd(6, 4, seed=8))
    ab, tb = pair(b)
    close(LA.lstsq(full_a, ab).solution, TL.lstsq(full_t, tb).solution, 1e-9)
    assert int(LA.lstsq(full_a, ab).rank.item()) == int(TL.lstsq(full_t, tb).rank.item())


def test_bad_input():
    for fn, tfn in [(LA.det, TL.det), (LA.inv, TL.inv), (LA.cholesky, TL.cholesky), (LA.eigh, TL.eigh)]:
        with pytest.raises(RuntimeError):
            fn(aakaar.ones(2, 3, dtype=aakaar.float64))
        with pytest.raises(RuntimeError):
            tfn(torch.ones(2, 3, dtype=torch.float64))
        with pytest.raises(RuntimeError):
            fn(aakaar.ones(3, 3, dtype=aakaar.int64))
    with pytest.raises(RuntimeError):
        LA.inv(aakaar.zeros(3, 3, dtype=aakaar.float64))
    with pytest.raises(RuntimeError):
        TL.inv(torch.zeros(3, 3, dtype=torch.float64))
    with pytest.raises(RuntimeError):
        LA.solve(aakaar.eye(3, dtype=aakaar.float64), aakaar.ones(4, 2, dtype=aakaar.float64))
    with pytest.raises(RuntimeError):
        LA.vector_norm(aakaar.tensor([1, 2]))
    with pytest.raises(RuntimeError):
        TL.vector_norm(torch.tensor([1, 2]))


@pytest.mark.parametrize("name", ["det", "inv", "slogdet", "logdet"])
def test_second_derivatives_as_torch(name):
    """The gradient of det, inv, slogdet and logdet has a gradient (create_graph=True), as torch's."""
    x = rnd(2, 3, 3, seed=21) + 3 * np.eye(3)
    fns = {"det": (LA.det, TL.det), "inv": (LA.inv, TL.inv),
           "slogdet": (lambda v: LA.slogdet(v).logabsdet, lambda v: TL.slogdet(v).logabsdet),
           "logdet": (aakaar.logdet, torch.logdet)}
    results = []
    for lib, fn in zip((aakaar, torch), fns[name]):
        a = lib.tensor(x).requires_grad_()
        (g,) = lib.autograd.grad(fn(a).sum(), a, create_graph=True)
        (h,) = lib.autograd.grad((g * g).sum(), a)
        results.append((g.detach().numpy(), h.numpy()))
    (ga, ha), (gt, ht) = results
    np.testing.assert_allclose(ga, gt, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(ha, ht, rtol=1e-8, atol=1e-10)
    assert type(aakaar.linalg.det(aakaar.tensor(x).requires_grad_()).grad_fn).__name__ == "LinalgDetBackward"
