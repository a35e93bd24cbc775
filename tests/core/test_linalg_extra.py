"""aakaar.linalg's LU family, triangular solves, solve_ex, matrix_exp, cond, tensorinv/tensorsolve,
vander, householder_product and the eig refusal, against torch.linalg: values (float64 to 1e-10,
float32 to 1e-5), batched and rectangular inputs, gradients against torch's and by finite
differences, and bad input with torch's exception classes.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

import aakaar
from aakaar import linalg as LA
from aakaar.autograd import gradcheck

from test_linalg import TL, close, grads_match, pair, rnd, spd  # the shared parity helpers

torch = pytest.importorskip("torch")
# torch's deprecation warnings for the older names compared against here
pytestmark = pytest.mark.filterwarnings(r"ignore:torch\.(lu|lu_solve|triangular_solve) is deprecated:UserWarning")


# ---- LU ----------------------------------------------------------------------------------------------

@pytest.mark.parametrize("shape", [(4, 4), (3, 5, 5), (6, 4), (4, 6), (2, 5, 3), (2, 3, 5)])
def test_lu_factor_and_lu_values(shape):
    x = rnd(*shape)
    a, t = pair(x)
    close(LA.lu_factor(a).LU, TL.lu_factor(t).LU)
    assert LA.lu_factor(a).pivots.tolist() == TL.lu_factor(t).pivots.tolist()
    assert LA.lu_factor(a).pivots.dtype == aakaar.int32
    ex_a, ex_t = LA.lu_factor_ex(a), TL.lu_factor_ex(t)
    close(ex_a.LU, ex_t.LU)
    assert ex_a.info.tolist() == ex_t.info.tolist()
    close(LA.lu(a), TL.lu(t))
    a32, t32 = pair(x, aakaar.float32)
    close(LA.lu(a32), TL.lu(t32), rtol=1e-5, atol=1e-6)


def test_lu_pivoting_on_ties_and_singular():
    x = np.array([[1.0, 2.0, 3.0], [-1.0, 5.0, 1.0], [1.0, 2.0, 3.0]])   # tie in column 0, singular
    a, t = pair(x)
    ex_a, ex_t = LA.lu_factor_ex(a), TL.lu_factor_ex(t)
    close(ex_a.LU, ex_t.LU)
    assert ex_a.pivots.tolist() == ex_t.pivots.tolist() and ex_a.info.tolist() == ex_t.info.tolist() == 3
    with pytest.raises(LA.LinAlgError, match=r"U\[3,3\] is zero"):
        LA.lu_factor(a)
    with pytest.raises(RuntimeError):
        TL.lu_factor(t)
    with pytest.raises(RuntimeError, match="is zero"):
        LA.lu_factor_ex(a, check_errors=True)
    close(LA.lu(a), TL.lu(t))                                  # lu factorises singular input


@pytest.mark.parametrize("shape", [(4, 4), (2, 3, 3), (5, 3), (3, 5)])
def test_lu_gradients(shape):
    x = rnd(*shape, seed=3)
    grads_match(lambda v: LA.lu(v)[1:], lambda v: TL.lu(v)[1:], x)
    grads_match(lambda v: LA.lu_factor(v).LU, lambda v: TL.lu_factor(v).LU, x)


def test_lu_bad_input():
    with pytest.raises(RuntimeError, match="without pivoting"):
        LA.lu_factor(aakaar.eye(2), pivot=False)
    with pytest.raises(RuntimeError, match="2 or more dimensions"):
        LA.lu_factor(aakaar.ones(3))
    with pytest.raises(RuntimeError, match="floating point"):
        LA.lu(aakaar.ones(2, 2, dtype=aakaar.int64))


@pytest.mark.parametrize("left", [True, False])
@pytest.mark.parametrize("adjoint", [False, True])
def test_lu_solve(left, adjoint):
    x, b = rnd(2, 4, 4, seed=1), rnd(2, 4, 3, seed=2) if left else rnd(2, 3, 4, seed=2)
    a, t = pair(x)
    ba, bt = pair(b)
    LU_a, piv_a = LA.lu_factor(a)
    LU_t, piv_t = TL.lu_factor(t)
    close(LA.lu_solve(LU_a, piv_a, ba, left=left, adjoint=adjoint),
          TL.lu_solve(LU_t, piv_t, bt, left=left, adjoint=adjoint))
    # gradients reach both the LU and B (torch differentiates both)
    LUn, piv_np = LU_t.detach().numpy(), piv_t
    grads_match(lambda v: LA.lu_solve(v, piv_a, ba, left=left, adjoint=adjoint),
                lambda v: TL.lu_solve(v, piv_np, bt, left=left, adjoint=adjoint), LUn)
    grads_match(lambda v: LA.lu_solve(LU_a, piv_a, v, left=left, adjoint=adjoint),
                lambda v: TL.lu_solve(LU_t, piv_t, v, left=left, adjoint=adjoint), b)


def test_lu_solve_bad_input():
    LU, piv = LA.lu_factor(aakaar.tensor(rnd(3, 3)))
    with pytest.raises(RuntimeError, match="int32"):
        LA.lu_solve(LU, piv.to(aakaar.int64), aakaar.ones(3, 1, dtype=aakaar.float64))
    with pytest.raises(RuntimeError, match="between 1 and"):
        LA.lu_solve(LU, piv * 0, aakaar.ones(3, 1, dtype=aakaar.float64))
    with pytest.raises(RuntimeError, match="Incompatible shapes"):
        LA.lu_solve(LU, piv, aakaar.ones(2, 1, dtype=aakaar.float64))


# ---- solve_triangular, solve_ex ----------------------------------------------------------------------

@pytest.mark.parametrize("upper", [True, False])
@pytest.mark.parametrize("left", [True, False])
@pytest.mark.parametrize("unit", [False, True])
def test_solve_triangular(upper, left, unit):
    A = rnd(2, 4, 4, seed=5) + 4 * np.eye(4)   # full matrix: only the triangle may be read
    B = rnd(3, 1, 4, 2, seed=6) if left else rnd(3, 1, 2, 4, seed=6)   # batch broadcasts
    (a, t), (ba, bt) = pair(A), pair(B)
    kw = dict(upper=upper, left=left, unitriangular=unit)
    close(LA.solve_triangular(a, ba, **kw), TL.solve_triangular(t, bt, **kw))
    a32, t32 = pair(A, aakaar.float32)
    b32, bt32 = pair(B, aakaar.float32)
    close(LA.solve_triangular(a32, b32, **kw), TL.solve_triangular(t32, bt32, **kw), rtol=1e-5, atol=1e-6)
    grads_match(lambda v: LA.solve_triangular(v, ba, **kw), lambda v: TL.solve_triangular(v, bt, **kw), A)
    grads_match(lambda v: LA.solve_triangular(a, v, **kw), lambda v: TL.solve_triangular(t, v, **kw), B)


def test_solve_triangular_singular_and_bad_input():
    z, zt = pair(np.zeros((2, 2)))
    one, onet = pair(np.ones((2, 1)))
    got, want = LA.solve_triangular(z, one, upper=True).numpy(), TL.solve_triangular(zt, onet, upper=True).numpy()
    np.testing.assert_array_equal(got, want)                   # inf and nan, no error, as torch
    with pytest.raises(RuntimeError, match="at least 2 dimensions"):
        LA.solve_triangular(z, aakaar.ones(2, dtype=aakaar.float64), upper=True)
    with pytest.raises(RuntimeError, match="same dtype"):
        LA.solve_triangular(z, aakaar.ones(2, 1), upper=True)
    with pytest.raises(TypeError):
        LA.solve_triangular(z, one)                            # upper is required


def test_solve_ex():
    A, B = rnd(3, 4, 4, seed=7), rnd(3, 4, seed=8)
    (a, t), (ba, bt) = pair(A), pair(B)
    ra, rt = LA.solve_ex(a, ba), TL.solve_ex(t, bt)
    close(ra.result, rt.result)
    assert ra.info.tolist() == rt.info.tolist() == [0, 0, 0]
    close(LA.solve_ex(a, ba.unsqueeze(-2), left=False).result, TL.solve_ex(t, bt.unsqueeze(-2), left=False).result)
    S = A.copy()
    S[1] = 0.0
    S[1, 0, 0] = 1.0
    (sa, st) = pair(S)
    ra, rt = LA.solve_ex(sa, ba), TL.solve_ex(st, bt)
    assert ra.info.tolist() == rt.info.tolist()
    np.testing.assert_allclose(ra.result.numpy(), rt.result.numpy(), rtol=1e-10)   # nan/inf where torch has them
    with pytest.raises(LA.LinAlgError, match="singular"):
        LA.solve_ex(sa, ba, check_errors=True)
    grads_match(lambda v: LA.solve_ex(v, ba).result, lambda v: TL.solve_ex(v, bt).result, A)


# ---- matrix_exp --------------------------------------------------------------------------------------

@pytest.mark.parametrize("scale", [1e-3, 0.5, 3.0, 40.0])
def test_matrix_exp(scale):
    x = rnd(2, 5, 5, seed=9) * scale
    a, t = pair(x)
    close(LA.matrix_exp(a), TL.matrix_exp(t), rtol=1e-10 if scale < 10 else 1e-8)
    close(aakaar.matrix_exp(a), torch.matrix_exp(t), rtol=1e-10 if scale < 10 else 1e-8)
    close(a.matrix_exp(), t.matrix_exp(), rtol=1e-10 if scale < 10 else 1e-8)
    a32, t32 = pair(x, aakaar.float32)
    want32 = TL.matrix_exp(t32)
    # float32 at a large norm: entries ~1e34 from cancelling sums; both are accurate to the largest entry
    close(LA.matrix_exp(a32), want32, rtol=1e-5, atol=1e-6 if scale < 10 else 1e-5 * float(want32.abs().max()))
    if scale < 10:
        grads_match(LA.matrix_exp, TL.matrix_exp, x)


def test_matrix_exp_known_values_and_bad_input():
    rot = aakaar.tensor([[0.0, -math.pi / 2], [math.pi / 2, 0.0]], dtype=aakaar.float64)   # a quarter turn
    np.testing.assert_allclose(LA.matrix_exp(rot).numpy(), [[0, -1], [1, 0]], atol=1e-14)
    assert LA.matrix_exp(aakaar.zeros(0, 0)).shape == (0, 0)
    with pytest.raises(RuntimeError, match="square"):
        LA.matrix_exp(aakaar.ones(2, 3))
    with pytest.raises(TypeError):
        LA.matrix_exp([[1.0]])


# ---- cond, tensorinv, tensorsolve, vander, householder_product ---------------------------------------

@pytest.mark.parametrize("p", [None, 2, -2, "fro", "nuc", math.inf, -math.inf, 1, -1])
def test_cond(p):
    x = rnd(3, 4, 4, seed=10)
    a, t = pair(x)
    close(LA.cond(a, p), TL.cond(t, p), rtol=1e-9)
    if p in (None, 2, -2):
        grads_match(lambda v: LA.cond(v, p), lambda v: TL.cond(v, p), x, rtol=1e-6)
    else:   # torch 2.13's own backward fails here (its inv_ex output is modified in place): finite differences
        assert gradcheck(lambda v: LA.cond(v, p), [aakaar.tensor(x, requires_grad=True)], atol=1e-6, rtol=1e-5)
    z, zt = pair(np.stack([np.zeros((2, 2)), np.eye(2)]))
    np.testing.assert_array_equal(LA.cond(z, p).numpy(), TL.cond(zt, p).numpy())   # inf/nan where singular


def test_cond_rectangular():
    a, t = pair(rnd(2, 3, 5))
    close(LA.cond(a), TL.cond(t))
    with pytest.raises(RuntimeError, match="square"):
        LA.cond(a, 1)
    with pytest.raises(RuntimeError, match="invalid norm"):
        LA.cond(a, 3)


def test_tensorinv_and_tensorsolve():
    x = rnd(4, 6, 8, 3, seed=11)
    a, t = pair(x)
    close(LA.tensorinv(a, ind=2), TL.tensorinv(t, ind=2))
    grads_match(lambda v: LA.tensorinv(v, 2), lambda v: TL.tensorinv(v, 2), x)
    with pytest.raises(RuntimeError, match="strictly positive"):
        LA.tensorinv(a, 0)
    with pytest.raises(RuntimeError, match="prod"):
        LA.tensorinv(a, 1)
    A, B = rnd(2, 3, 6, seed=12), rnd(2, 3, seed=13)
    (aa, at), (ba, bt) = pair(A), pair(B)
    close(LA.tensorsolve(aa, ba), TL.tensorsolve(at, bt))
    A2 = rnd(6, 2, 3, seed=14)
    (a2, t2) = pair(A2)
    close(LA.tensorsolve(a2, ba, dims=(0,)), TL.tensorsolve(t2, bt, dims=(0,)))
    grads_match(lambda v: LA.tensorsolve(v, ba), lambda v: TL.tensorsolve(v, bt), A)
    with pytest.raises(RuntimeError, match="prod"):
        LA.tensorsolve(aa, aakaar.ones(4, dtype=aakaar.float64))


def test_vander():
    x = np.array([[0.0, 2.0, -1.5], [1.0, 0.5, 3.0]])
    a, t = pair(x)
    close(LA.vander(a), TL.vander(t))
    close(LA.vander(a, N=5), TL.vander(t, N=5))
    grads_match(lambda v: LA.vander(v, N=4), lambda v: TL.vander(v, N=4), x)   # defined at 0 too
    ai = aakaar.tensor([1, 2, 3])
    assert LA.vander(ai).tolist() == TL.vander(torch.tensor([1, 2, 3])).tolist()
    assert LA.vander(ai).dtype == aakaar.int64
    for n in (0, 1):
        with pytest.raises(RuntimeError, match="greater than 1"):
            LA.vander(a, N=n)


@pytest.mark.parametrize("shape,k", [((5, 3), 3), ((2, 4, 4), 2), ((4, 2), 0)])
def test_householder_product(shape, k):
    A, tau = rnd(*shape, seed=15), rnd(*shape[:-2], k, seed=16)
    (a, t), (ta, tt) = pair(A), pair(tau)
    close(LA.householder_product(a, ta), TL.householder_product(t, tt))
    if k:    # (k = 0: the result is the identity's columns, A is not used)
        grads_match(lambda v: LA.householder_product(v, ta), lambda v: TL.householder_product(v, tt), A)
        grads_match(lambda v: LA.householder_product(a, v), lambda v: TL.householder_product(t, v), tau)


def test_householder_product_is_qr_q():
    x = rnd(6, 4, seed=17)
    q_geqrf, tau = torch.geqrf(torch.tensor(x))
    q = LA.householder_product(aakaar.tensor(q_geqrf.numpy()), aakaar.tensor(tau.numpy()))
    close(q, torch.linalg.qr(torch.tensor(x)).Q)


def test_householder_product_bad_input():
    with pytest.raises(RuntimeError, match="greater than or equal to input.shape"):
        LA.householder_product(aakaar.ones(2, 3), aakaar.ones(1))
    with pytest.raises(RuntimeError, match="greater than or equal to tau"):
        LA.householder_product(aakaar.ones(3, 2), aakaar.ones(3))
    with pytest.raises(RuntimeError, match="batch dimensions"):
        LA.householder_product(aakaar.ones(2, 3, 2), aakaar.ones(3, 1))


# ---- eig / eigvals -----------------------------------------------------------------------------------

@pytest.mark.parametrize("fn", ["eig", "eigvals"])
def test_eig_refuses_and_points_to_eigh(fn):
    with pytest.raises(NotImplementedError, match="complex dtypes.*eigh"):
        getattr(LA, fn)(aakaar.eye(3))
    assert issubclass(NotImplementedError, RuntimeError)     # torch code catching RuntimeError still does


# ---- torch's older top-level names -------------------------------------------------------------------

def test_torch_lu_and_lu_unpack():
    x = rnd(2, 4, 4, seed=18)
    a, t = pair(x)
    LU_a, piv_a = aakaar.lu(a)
    LU_t, piv_t = torch.lu(t)
    close(LU_a, LU_t)
    assert piv_a.tolist() == piv_t.tolist()
    got, want = a.lu(get_infos=True), t.lu(get_infos=True)
    assert len(got) == 3 and got[2].tolist() == want[2].tolist()
    close(aakaar.lu_unpack(LU_a, piv_a), torch.lu_unpack(LU_t, piv_t))
    P, L, U = aakaar.lu_unpack(LU_a, piv_a, unpack_data=False)
    assert L.numel() == 0 and U.numel() == 0
    close(P, torch.lu_unpack(LU_t, piv_t).P)
    z, zt = pair(np.zeros((2, 2)))
    assert aakaar.lu(z, get_infos=True)[2].tolist() == torch.lu(zt, get_infos=True)[2].tolist() == 1
    LUn = LU_t.detach().numpy()
    grads_match(lambda v: aakaar.lu_unpack(v, piv_a)[1:], lambda v: torch.lu_unpack(v, piv_t)[1:], LUn)
    b = rnd(2, 4, 2, seed=19)
    ba, bt = pair(b)
    close(aakaar.lu_solve(ba, LU_a, piv_a), torch.lu_solve(bt, LU_t, piv_t))
    close(ba.lu_solve(LU_a, piv_a), bt.lu_solve(LU_t, piv_t))


@pytest.mark.parametrize("upper", [True, False])
@pytest.mark.parametrize("transpose", [False, True])
@pytest.mark.parametrize("unit", [False, True])
def test_triangular_solve(upper, transpose, unit):
    A, B = rnd(3, 3, seed=20) + 3 * np.eye(3), rnd(3, 2, seed=21)
    (a, t), (ba, bt) = pair(A), pair(B)
    got = aakaar.triangular_solve(ba, a, upper, transpose, unit)
    want = torch.triangular_solve(bt, t, upper, transpose, unit)
    close(got.solution, want.solution)
    close(got.cloned_coefficient, want.cloned_coefficient)
    close(ba.triangular_solve(a, upper=upper).solution, bt.triangular_solve(t, upper=upper).solution)
    grads_match(lambda v: aakaar.triangular_solve(ba, v, upper, transpose, unit)[0],
                lambda v: torch.triangular_solve(bt, v, upper, transpose, unit)[0], A)


@pytest.mark.parametrize("upper", [False, True])
def test_cholesky_solve_and_inverse(upper):
    Lnp = np.linalg.cholesky(spd(4, (2,), seed=22))
    F = np.swapaxes(Lnp, -1, -2) if upper else Lnp
    B = rnd(2, 4, 3, seed=23)
    (fa, ft), (ba, bt) = pair(F), pair(B)
    close(aakaar.cholesky_solve(ba, fa, upper), torch.cholesky_solve(bt, ft, upper))
    close(ba.cholesky_solve(fa, upper=upper), bt.cholesky_solve(ft, upper=upper))
    close(aakaar.cholesky_inverse(fa, upper), torch.cholesky_inverse(ft, upper))
    close(fa.cholesky_inverse(upper=upper), ft.cholesky_inverse(upper=upper))
    # torch's gradient reaches all of the factor, as if the whole matrix were L in L L^T, though only
    # its triangle is read: so does aakaar's (finite differences, which see only the triangle, disagree)
    grads_match(lambda v: aakaar.cholesky_solve(ba, v, upper), lambda v: torch.cholesky_solve(bt, v, upper), F,
                check_fd=False)
    grads_match(lambda v: aakaar.cholesky_solve(v, fa, upper), lambda v: torch.cholesky_solve(v, ft, upper), B)
    grads_match(lambda v: aakaar.cholesky_inverse(v, upper), lambda v: torch.cholesky_inverse(v, upper), F,
                check_fd=False)
    with pytest.raises(RuntimeError, match="at least 2 dimensions"):
        aakaar.cholesky_solve(aakaar.ones(4, dtype=aakaar.float64), fa[0])


# ---- LDL ---------------------------------------------------------------------------------------------

def _sym(n, seed, small_diag=False, batch=()):
    a = rnd(*batch, n, n, seed=seed)
    a = a + np.swapaxes(a, -1, -2)
    if small_diag:                                             # forces 2x2 pivot blocks
        a[..., range(n), range(n)] *= 0.01
    return a


@pytest.mark.parametrize("n,small_diag", [(1, False), (5, False), (6, True), (9, True), (100, False)])
def test_ldl_factor_and_solve(n, small_diag):
    x = _sym(n, n, small_diag, batch=(2,) if n < 50 else ())
    x_upper_noise = x + np.triu(rnd(*x.shape, seed=99), 1)     # only the lower triangle is read
    a, t = pair(x_upper_noise)
    LD_a, piv_a = LA.ldl_factor(a)
    LD_t, piv_t = TL.ldl_factor(t)
    close(LD_a, LD_t, rtol=1e-9, atol=1e-11)
    assert piv_a.tolist() == piv_t.tolist() and piv_a.dtype == aakaar.int32
    if small_diag:
        assert (piv_t < 0).any()                              # 2x2 blocks were exercised
    ex = LA.ldl_factor_ex(a)
    assert ex.info.tolist() == TL.ldl_factor_ex(t).info.tolist()
    B = rnd(*x.shape[:-1], 3, seed=7)
    ba, bt = pair(B)
    close(LA.ldl_solve(LD_a, piv_a, ba), TL.ldl_solve(LD_t, piv_t, bt), rtol=1e-9, atol=1e-11)
    a32, t32 = pair(x, aakaar.float32)
    LD32, p32 = LA.ldl_factor(a32)
    if p32.tolist() == TL.ldl_factor(t32).pivots.tolist():    # float32 rounding may pick other pivots
        close(LD32, TL.ldl_factor(t32).LD, rtol=1e-4, atol=1e-4)


def test_ldl_singular():
    x = np.zeros((2, 3, 3))
    x[1] = np.diag([1.0, 0.0, 2.0])
    a, t = pair(x)
    ex_a, ex_t = LA.ldl_factor_ex(a), TL.ldl_factor_ex(t)
    assert ex_a.info.tolist() == ex_t.info.tolist() == [1, 2]
    close(ex_a.LD, ex_t.LD)
    with pytest.raises(LA.LinAlgError, match="singular"):
        LA.ldl_factor(a)
    with pytest.raises(LA.LinAlgError, match="singular"):
        LA.ldl_factor_ex(a, check_errors=True)


def test_ldl_has_no_derivative_as_torch():
    x = _sym(4, 1)
    a, t = pair(x, requires_grad=True)
    LD_a, piv_a = LA.ldl_factor(a)
    LD_t, piv_t = TL.ldl_factor(t)
    with pytest.raises(RuntimeError, match="derivative for .*ldl_factor"):
        LD_t.sum().backward()
    with pytest.raises(RuntimeError, match="derivative for linalg.ldl_factor is not implemented"):
        LD_a.sum().backward()
    b = aakaar.tensor(rnd(4, 1), requires_grad=True)
    with pytest.raises(RuntimeError, match="derivative for linalg.ldl_solve is not implemented"):
        LA.ldl_solve(LD_a.detach(), piv_a, b).sum().backward()


def test_ldl_bad_input():
    with pytest.raises(RuntimeError, match="square"):
        LA.ldl_factor(aakaar.ones(2, 3))
    LD, piv = LA.ldl_factor(aakaar.tensor(_sym(3, 2)))
    with pytest.raises(RuntimeError, match="same dtype"):
        LA.ldl_solve(LD, piv, aakaar.ones(3, 1))
    with pytest.raises(RuntimeError, match="at least 2 dimensions"):
        LA.ldl_solve(LD, piv, aakaar.ones(3, dtype=aakaar.float64))
    with pytest.raises(RuntimeError, match="integers"):
        LA.ldl_solve(LD, piv.to(aakaar.float64), aakaar.ones(3, 1, dtype=aakaar.float64))
    with pytest.raises(RuntimeError, match="Incompatible shapes"):
        LA.ldl_solve(LD, piv, aakaar.ones(2, 1, dtype=aakaar.float64))
