"""The rest of ``torch.linalg`` that real dtypes allow: LU (``lu_factor``, ``lu``, ``lu_solve``),
triangular solves, ``solve_ex``, ``matrix_exp``, ``cond``, ``tensorinv``/``tensorsolve``,
``vander``, ``householder_product`` and LDL (``ldl_factor``, ``ldl_solve``); ``eig``/``eigvals`` refuse (their results are complex).

As in :mod:`aakaar.linalg`, the factorisations are computed on the host in float64 (the LU is
LAPACK's getf2 algorithm -- partial pivoting on the largest magnitude, the first one on ties --
written in numpy, since numpy exposes no LU) and their gradients are attached by the first-order
formulas (``_attach``). Everything that can be written with aakaar's own differentiable ops is
(``lu_solve`` through triangular solves, ``matrix_exp`` as scaling and squaring of a Padé
approximant, ``householder_product`` as the product of reflectors), so its gradient comes from
autograd.
"""

from __future__ import annotations

import math
from typing import Any, NamedTuple, Sequence

import numpy as np

from . import _C
from ._C import Tensor
from .linalg import (LinAlgError, _attach, _back, _check_float, _check_square, _mT, _np, _tracking, inv,
                     matrix_norm, solve, svdvals)

__all__ = ["lu_factor", "lu_factor_ex", "lu", "lu_solve", "solve_triangular", "solve_ex", "matrix_exp", "cond",
           "tensorinv", "tensorsolve", "vander", "householder_product", "eig", "eigvals", "ldl_factor",
           "ldl_factor_ex", "ldl_solve"]

_I32 = _C.dtype.int32


def _eye(n: int, like: Tensor, cols: int | None = None) -> Tensor:
    e = _C.eye(n, cols if cols is not None else n, dtype=like.dtype)
    return e._to_device(like.device)


def _ints(a: np.ndarray, like: Tensor) -> Tensor:
    return _C.from_numpy(np.array(a, dtype=np.int32, order="C"))._to_device(like.device)


def _safe_inv(a: np.ndarray) -> np.ndarray:
    """The inverse, or (singular: the gradient is undefined there, as in torch) the pseudo-inverse."""
    try:
        return np.linalg.inv(a)
    except np.linalg.LinAlgError:
        return np.linalg.pinv(a)


# ---- LU ----------------------------------------------------------------------------------------------

def _getrf(a: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """LAPACK's getf2 on a batch (..., m, n): (LU packed, 1-based int32 pivots, info), info the
    1-based index of the first exactly-zero pivot (0 if none)."""
    m, n = a.shape[-2:]
    batch = a.shape[:-2]
    lu_ = np.array(a, dtype=np.float64).reshape((-1, m, n))
    k = min(m, n)
    piv = np.zeros((lu_.shape[0], k), dtype=np.int32)
    info = np.zeros(lu_.shape[0], dtype=np.int32)
    rows = np.arange(lu_.shape[0])
    with np.errstate(all="ignore"):
        for j in range(k):
            p = j + np.argmax(np.abs(lu_[:, j:, j]), axis=1)
            piv[:, j] = p + 1
            row_j = lu_[rows, j, :].copy()
            lu_[rows, j, :] = lu_[rows, p, :]
            lu_[rows, p, :] = row_j
            d = lu_[:, j, j]
            zero = d == 0
            info[(info == 0) & zero] = j + 1
            if j + 1 < m:
                # a zero pivot leaves its (all-zero) column unscaled, as LAPACK does
                lu_[:, j + 1:, j] = np.where(zero[:, None], lu_[:, j + 1:, j],
                                             lu_[:, j + 1:, j] / np.where(zero, 1.0, d)[:, None])
                lu_[:, j + 1:, j + 1:] -= lu_[:, j + 1:, j, None] * lu_[:, j, None, j + 1:]
    return lu_.reshape(batch + (m, n)), piv.reshape(batch + (k,)), info.reshape(batch)


def _perm_matrix(piv: np.ndarray, m: int) -> np.ndarray:
    """P (..., m, m) with A = P L U from LAPACK's row interchanges."""
    flat = piv.reshape((-1, piv.shape[-1])) - 1
    out = np.zeros((flat.shape[0], m, m))
    for b, swaps in enumerate(flat):
        perm = list(range(m))
        for j, p in enumerate(swaps):
            perm[j], perm[p] = perm[p], perm[j]
        out[b, perm, range(m)] = 1.0
    return out.reshape(piv.shape[:-1] + (m, m))


def _check_pivots(piv: np.ndarray, m: int, fn: str) -> None:
    if piv.size and (piv.min() < 1 or piv.max() > m):
        raise RuntimeError(f"{fn}: pivots must be between 1 and LU.size(-2) inclusive (LAPACK's 1-based row "
                           f"interchanges); got values in [{piv.min()}, {piv.max()}]")


def _unpack(LU: Tensor) -> tuple[Tensor, Tensor]:
    """(L, U) from the packed LU (differentiable: L's unit diagonal is a constant)."""
    m, n = LU.shape[-2], LU.shape[-1]
    k = min(m, n)
    L = LU[..., :, :k].tril(-1) + _eye(m, LU, k)
    U = LU[..., :k, :].triu()
    return L, U


def _lu_linear(A: Tensor, P: Tensor, L: Tensor, U: Tensor) -> tuple[Tensor, Tensor]:
    """The first-order change (dL, dU) of A = P L U as linear maps of A (L, U, P constants); the
    rectangular cases split A into the square block and the rest (as torch's linalg_lu_backward)."""
    m, n = A.shape[-2], A.shape[-1]
    k = min(m, n)
    PtA = _mT(P).matmul(A)
    L1, U1 = L[..., :k, :], U[..., :, :k]
    L1inv, U1inv = _back(_safe_inv(_np(L1)), A), _back(_safe_inv(_np(U1)), A)
    X = L1inv.matmul(PtA[..., :k, :k]).matmul(U1inv)
    dL1 = L1.matmul(X.tril(-1))
    dU1 = X.triu().matmul(U1)
    if m > n:
        dL2 = (PtA[..., k:, :] - L[..., k:, :].matmul(dU1)).matmul(U1inv)
        return _C.cat([dL1, dL2], -2), dU1
    if n > m:
        dU2 = L1inv.matmul(PtA[..., :, k:] - dL1.matmul(U[..., :, k:]))
        return dL1, _C.cat([dU1, dU2], -1)
    return dL1, dU1


def _lu_core(A: Tensor, pivot: bool, fn: str) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    _check_float(A, fn)
    if A.ndim < 2:
        raise RuntimeError(f"torch.linalg.{fn}: Expected tensor with 2 or more dimensions. Got size: "
                           f"{list(A.shape)} instead")
    if not pivot:   # torch has it on CUDA only; aakaar's LU always runs on the host
        raise RuntimeError(f"linalg.{fn}: LU without pivoting is not implemented on the CPU" +
                           ("" if A.device.type == "cpu" else " (aakaar computes every LU on the host)"))
    return _getrf(_np(A))


class LUFactorResult(NamedTuple):
    LU: Tensor
    pivots: Tensor


class LUFactorExResult(NamedTuple):
    LU: Tensor
    pivots: Tensor
    info: Tensor


def _zero_pivot_message(fn: str, info: np.ndarray) -> str:
    i = int(info[info > 0].flat[0])
    return (f"torch.linalg.{fn}: U[{i},{i}] is zero and using it on lu_solve would result in a division by zero. "
            "If you still want to perform the factorization, consider calling linalg.lu(A, pivot) or "
            "linalg.lu_factor_ex(A, pivot)")


def lu_factor_ex(A: Tensor, *, pivot: bool = True, check_errors: bool = False) -> LUFactorExResult:
    """(LU, pivots, info): the packed LU factorisation with partial pivoting (L's unit diagonal not
    stored), LAPACK's 1-based int32 row interchanges, and info > 0 where U has a zero pivot
    (an error with ``check_errors``). Rectangular and batched inputs; differentiable."""
    lu_, piv, info = _lu_core(A, pivot, "lu_factor_ex")
    if check_errors and (info > 0).any():
        raise LinAlgError(_zero_pivot_message("lu_factor_ex", info))
    LU = _back(lu_, A)
    if _tracking(A):
        P = _back(_perm_matrix(piv, A.shape[-2]), A)
        L, U = _unpack(LU)
        dL, dU = _lu_linear(A, P, L, U)
        m, n = A.shape[-2], A.shape[-1]
        k = min(m, n)
        # the packed LU holds L's strict lower part and U: pad each to (m, n) and add
        if n > k:
            dL = _C.cat([dL, _C.zeros(*dL.shape[:-1], n - k, dtype=A.dtype)._to_device(A.device)], -1)
        if m > k:
            dU = _C.cat([dU, _C.zeros(*dU.shape[:-2], m - k, n, dtype=A.dtype)._to_device(A.device)], -2)
        LU = _attach(LU, dL + dU)
    return LUFactorExResult(LU, _ints(piv, A), _ints(info, A))


def lu_factor(A: Tensor, *, pivot: bool = True) -> LUFactorResult:
    """(LU, pivots), as lu_factor_ex but a LinAlgError where U has a zero pivot (A singular)."""
    lu_, piv, info = _lu_core(A, pivot, "lu_factor")
    if (info > 0).any():
        raise LinAlgError(_zero_pivot_message("lu_factor", info))
    out = lu_factor_ex(A, pivot=pivot)
    return LUFactorResult(out.LU, out.pivots)


class LUResult(NamedTuple):
    P: Tensor
    L: Tensor
    U: Tensor


def lu(A: Tensor, *, pivot: bool = True) -> LUResult:
    """(P, L, U) with A = P L U: P a permutation matrix, L unit lower-trapezoidal (m, k), U
    upper-trapezoidal (k, n), k = min(m, n). Singular A is factorised too (no error, as torch)."""
    lu_, piv, _ = _lu_core(A, pivot, "lu")
    Pn = _perm_matrix(piv, A.shape[-2])
    P = _back(Pn, A)
    L, U = _unpack(_back(lu_, A))
    if _tracking(A):
        dL, dU = _lu_linear(A, P, L, U)
        L, U = _attach(L, dL), _attach(U, dU)
    return LUResult(P, L, U)


def _pivots_to_P(LU: Tensor, pivots: Tensor, fn: str) -> Tensor:
    if not isinstance(pivots, Tensor) or pivots.dtype != _I32:
        raise RuntimeError(f"{fn}: pivots should be a Tensor of scalar type int32 (Int), got "
                           f"{pivots.dtype.name if isinstance(pivots, Tensor) else type(pivots).__name__}")
    m = LU.shape[-2]
    if tuple(pivots.shape[:-1]) != tuple(LU.shape[:-2]) or pivots.shape[-1] != min(m, LU.shape[-1]):
        raise RuntimeError(f"{fn}: pivots must have shape {list(LU.shape[:-2]) + [min(m, LU.shape[-1])]} for an "
                           f"LU of shape {list(LU.shape)}, got {list(pivots.shape)}")
    piv = pivots.detach().cpu().numpy()
    _check_pivots(piv, m, fn)
    return _back(_perm_matrix(piv, m), LU)


def lu_solve(LU: Tensor, pivots: Tensor, B: Tensor, *, left: bool = True, adjoint: bool = False) -> Tensor:
    """X with A X = B (A^T X = B with ``adjoint``; X A = B with ``left=False``) from A's
    ``lu_factor``. Triangular solves of aakaar's, so gradients reach both LU and B."""
    _check_square(LU, "lu_solve")
    if not isinstance(B, Tensor) or B.ndim < 2:
        raise RuntimeError("linalg.lu_solve: Expected B to have at least 2 dimensions.")
    P = _pivots_to_P(LU, pivots, "linalg.lu_solve")
    if not left:
        return _mT(lu_solve(LU, pivots, _mT(B), adjoint=not adjoint))
    if B.shape[-2] != LU.shape[-1]:
        raise RuntimeError(f"linalg.lu_solve: Incompatible shapes of A and B for the equation AX = B "
                           f"({LU.shape[-2]}x{LU.shape[-1]} and {B.shape[-2]}x{B.shape[-1]})")
    if adjoint:   # U^T L^T P^T X = B
        Y = solve_triangular(_mT(LU), B, upper=False)
        Y = solve_triangular(_mT(LU), Y, upper=True, unitriangular=True)
        return P.matmul(Y)
    Y = solve_triangular(LU, _mT(P).matmul(B), upper=False, unitriangular=True)
    return solve_triangular(LU, Y, upper=True)


# ---- triangular solves, solve_ex --------------------------------------------------------------------

def _trsm(a: np.ndarray, b: np.ndarray, upper: bool, unit: bool) -> np.ndarray:
    """Substitution (as BLAS trsm: a zero diagonal gives inf/nan, no error), broadcasting the batch."""
    n = a.shape[-1]
    shape = np.broadcast_shapes(a.shape[:-2], b.shape[:-2])
    a = np.broadcast_to(a, shape + a.shape[-2:])
    b = np.broadcast_to(b, shape + b.shape[-2:])
    x = np.zeros(b.shape)
    with np.errstate(all="ignore"):
        for i in (range(n - 1, -1, -1) if upper else range(n)):
            done = slice(i + 1, n) if upper else slice(0, i)
            s = b[..., i, :] - np.einsum("...j,...jk->...k", a[..., i, done], x[..., done, :])
            x[..., i, :] = s if unit else s / a[..., i, i][..., None]
    return x


def solve_triangular(A: Tensor, B: Tensor, *, upper: bool, left: bool = True, unitriangular: bool = False) -> Tensor:
    """X with A X = B (X A = B when left=False) for triangular A: only the ``upper`` (or lower)
    triangle of A is read, and with ``unitriangular`` its diagonal is taken as ones. A zero on the
    diagonal gives inf/NaN, no error (as torch). Gradients reach that triangle and B."""
    _check_square(A, "solve_triangular")
    if not isinstance(B, Tensor):
        raise TypeError(f"linalg.solve_triangular(): argument 'B' must be Tensor, not {type(B).__name__}")
    if B.ndim < 2:
        raise RuntimeError("linalg.solve_triangular: The input tensor B must have at least 2 dimensions.")
    if A.dtype != B.dtype:
        raise RuntimeError(f"linalg.solve_triangular: Expected A and B to have the same dtype, but found A of type "
                           f"{A.dtype.name} and B of type {B.dtype.name} instead")
    if not left:
        return _mT(solve_triangular(_mT(A), _mT(B), upper=not upper, unitriangular=unitriangular))
    if B.shape[-2] != A.shape[-1]:
        raise RuntimeError(f"linalg.solve_triangular: Incompatible shapes of A and B for the equation AX = B "
                           f"({A.shape[-2]}x{A.shape[-1]} and {B.shape[-2]}x{B.shape[-1]})")
    a, b = _np(A), _np(B)
    value = _back(_trsm(a, b, upper, unitriangular), A)
    if not _tracking(A, B):
        return value
    tri = A.triu(1 if unitriangular else 0) if upper else A.tril(-1 if unitriangular else 0)
    if unitriangular:
        tri = tri + _eye(A.shape[-1], A)
    n = A.shape[-1]
    a_inv = _back(_trsm(a, np.broadcast_to(np.eye(n), a.shape), upper, unitriangular), A)
    return _attach(value, a_inv.matmul(B - tri.matmul(value.detach())))


class SolveExResult(NamedTuple):
    result: Tensor
    info: Tensor


def solve_ex(A: Tensor, B: Tensor, *, left: bool = True, check_errors: bool = False) -> SolveExResult:
    """(result, info): linalg.solve, with info > 0 (the LU's first zero pivot) where A is singular
    instead of an error (a LinAlgError with ``check_errors``); a singular system's result is what
    the LU substitution gives (inf/NaN), as torch's."""
    _check_square(A, "solve_ex")
    _, _, info = _getrf(_np(A))
    info_t = _ints(info, A)
    if not (info > 0).any():
        return SolveExResult(solve(A, B, left=left), info_t)
    if check_errors:
        raise LinAlgError("torch.linalg.solve_ex: The solver failed because the input matrix is singular.")
    LU, piv, _ = lu_factor_ex(A)
    vec = B.ndim == 1 or (B.ndim == A.ndim - 1 and tuple(B.shape) == tuple(A.shape[:-1]))
    Bm = B.unsqueeze(-1) if vec else B
    if not left:
        Bm = _mT(Bm)
    X = lu_solve(LU, piv, Bm.to(A.dtype), adjoint=not left)
    X = X if left else _mT(X)
    return SolveExResult(X.squeeze(-1) if vec else X, info_t)


# ---- matrix_exp (a differentiable composite) --------------------------------------------------------

# Higham (2005), "The scaling and squaring method for the matrix exponential revisited": the
# degree-13 Padé approximant is accurate to double precision for ||A||_1 <= theta_13.
_PADE13 = (64764752532480000.0, 32382376266240000.0, 7771770303897600.0, 1187353796428800.0, 129060195264000.0,
           10559470521600.0, 670442572800.0, 33522128640.0, 1323241920.0, 40840800.0, 960960.0, 16380.0, 182.0, 1.0)
_THETA13 = 5.371920351148152


def matrix_exp(A: Tensor) -> Tensor:
    """exp(A) of square matrices (batched): scaling and squaring of the degree-13 Padé approximant
    (Higham 2005; torch uses degree-18 Taylor-type polynomials, the same accuracy), written with
    aakaar's matmul and solve, so its gradient is autograd's of that composite."""
    if not isinstance(A, Tensor):
        raise TypeError(f"matrix_exp(): argument 'input' must be Tensor, not {type(A).__name__}")
    _check_square(A, "matrix_exp")
    n = A.shape[-1]
    if A.numel() == 0:
        return A.clone()
    norm1 = float(np.abs(_np(A)).sum(-2).max())
    s = max(0, int(math.ceil(math.log2(norm1 / _THETA13)))) if norm1 > _THETA13 else 0
    X = A / float(2 ** s) if s else A
    b = _PADE13
    eye = _eye(n, A)
    X2 = X.matmul(X)
    X4 = X2.matmul(X2)
    X6 = X4.matmul(X2)
    U = X.matmul(X6.matmul(X6 * b[13] + X4 * b[11] + X2 * b[9]) + X6 * b[7] + X4 * b[5] + X2 * b[3] + eye * b[1])
    V = X6.matmul(X6 * b[12] + X4 * b[10] + X2 * b[8]) + X6 * b[6] + X4 * b[4] + X2 * b[2] + eye * b[0]
    R = solve(V - U, V + U)
    for _ in range(s):
        R = R.matmul(R)
    return R


# ---- cond, tensorinv, tensorsolve, vander, householder_product ---------------------------------------

def cond(A: Tensor, p: Any = None) -> Tensor:
    """The condition number in the p-norm: p None or 2 (-2) is the ratio of the largest to the
    smallest (smallest to largest) singular value, any A; 'fro', 'nuc', inf, -inf, 1, -1 are
    norm(A) * norm(inv(A)) for square A, inf where A is singular ('nuc': sum(S) * sum(1/S) of
    the singular values, NaN for a zero matrix; as torch)."""
    _check_float(A, "cond")
    if A.ndim < 2:
        raise RuntimeError(f"linalg.cond: The input tensor A must have at least 2 dimensions.")
    if p is None or p in (2, -2):
        S = svdvals(A)
        big, small = S[..., 0], S[..., -1]
        return big / small if p != -2 else small / big
    if p not in ("fro", "nuc", math.inf, -math.inf, 1, -1):
        raise RuntimeError(f"linalg.cond got an invalid norm type: {p}")
    if A.shape[-1] != A.shape[-2]:
        raise RuntimeError(f"linalg.cond(ord={p}): A must be batches of square matrices, but they are "
                           f"{A.shape[-2]} by {A.shape[-1]} matrices")
    if p == "nuc":   # as torch: from the singular values, so a singular A gives sum(S) * sum(1/S)
        S = svdvals(A)
        return S.sum(-1) * (1.0 / S).sum(-1)
    _, _, info = _getrf(_np(A))
    singular = _C.from_numpy(np.array(info > 0))._to_device(A.device)
    if singular.any():
        # invert the non-singular ones only (identity stand-ins), then inf where singular
        A_ok = _C.where(singular.unsqueeze(-1).unsqueeze(-1), _eye(A.shape[-1], A), A)
        out = matrix_norm(A_ok, p) * matrix_norm(inv(A_ok), p)
        return _C.where(singular, out * 0 + math.inf, out)
    return matrix_norm(A, p) * matrix_norm(inv(A), p)


def tensorinv(A: Tensor, ind: int = 2) -> Tensor:
    """The inverse of A for tensordot(·, ·, ind): A viewed as a prod(shape[:ind]) x
    prod(shape[ind:]) matrix (which must be square and invertible), result shape[ind:] + shape[:ind]."""
    _check_float(A, "tensorinv")
    if not isinstance(ind, int) or ind <= 0:
        raise RuntimeError(f"Expected a strictly positive integer for 'ind', but got {ind}")
    rows, cols = math.prod(A.shape[:ind]), math.prod(A.shape[ind:])
    if rows != cols:
        raise RuntimeError(f"Expected self to satisfy the requirement prod(self.shape[ind:]) == "
                           f"prod(self.shape[:ind]), but got {cols} != {rows}")
    out = inv(A.reshape(rows, cols))
    return out.reshape(list(A.shape[ind:]) + list(A.shape[:ind]))


def tensorsolve(A: Tensor, B: Tensor, dims: Sequence[int] | None = None) -> Tensor:
    """X with tensordot(A, X, X.ndim) = B: the dims ``dims`` of A are moved to the end first; the
    result has shape A.shape[B.ndim:]."""
    _check_float(A, "tensorsolve")
    if dims is not None:
        dims = [d % A.ndim for d in dims]
        A = A.movedim(dims, list(range(A.ndim - len(dims), A.ndim)))
    result_shape = list(A.shape[B.ndim:])
    rows, cols = math.prod(A.shape[:B.ndim]), math.prod(result_shape)
    if rows != cols or tuple(A.shape[:B.ndim]) != tuple(B.shape):
        raise RuntimeError(f"Expected self to satisfy the requirement prod(self.shape[other.ndim:]) == "
                           f"prod(self.shape[:other.ndim]), but got {cols} != {rows}")
    return solve(A.reshape(rows, cols), B.reshape(-1)).reshape(result_shape)


def vander(x: Tensor, *, N: int | None = None) -> Tensor:
    """The Vandermonde matrix [1, x, x^2, ..., x^(N-1)] along a new last dim (N defaults to
    x.shape[-1]; increasing powers, unlike numpy's default). Repeated products, so the gradient
    is defined at 0 too."""
    if not isinstance(x, Tensor):
        raise TypeError(f"linalg.vander(): argument 'x' must be Tensor, not {type(x).__name__}")
    if x.ndim < 1:
        raise RuntimeError("linalg.vander: x must have at least one dimension (N must be greater than 1.)")
    n = x.shape[-1] if N is None else N
    if n <= 1:
        raise RuntimeError("N must be greater than 1.")
    cols = [x * 0 + 1]
    for _ in range(n - 1):
        cols.append(cols[-1] * x)
    return _C.stack(cols, -1)


def householder_product(A: Tensor, tau: Tensor) -> Tensor:
    """The first n columns of H_1 ... H_k, H_i = I - tau_i v_i v_i^T with v_i the i-th column of A
    below the diagonal and 1 on it (LAPACK's orgqr; the Q of geqrf). Autograd of the composite."""
    _check_float(A, "householder_product")
    if A.ndim < 2:
        raise RuntimeError("torch.linalg.householder_product: input must have at least 2 dimensions.")
    m, n = A.shape[-2], A.shape[-1]
    if m < n:
        raise RuntimeError("torch.linalg.householder_product: input.shape[-2] must be greater than or equal to "
                           "input.shape[-1]")
    if not isinstance(tau, Tensor) or tau.ndim != A.ndim - 1:
        raise RuntimeError("torch.linalg.householder_product: input.dim() - tau.dim() must be equal to 1")
    k = tau.shape[-1]
    if n < k:
        raise RuntimeError("torch.linalg.householder_product: input.shape[-1] must be greater than or equal to "
                           "tau.shape[-1]")
    if tuple(tau.shape[:-1]) != tuple(A.shape[:-2]):
        raise RuntimeError(f"torch.linalg.householder_product: Expected batch dimensions of tau to be equal to "
                           f"input.shape[:-2], but got {list(tau.shape[:-1])}")
    if tau.dtype != A.dtype:
        raise RuntimeError(f"torch.linalg.householder_product: tau dtype {tau.dtype.name} does not match input "
                           f"dtype {A.dtype.name}")
    Q = _eye(m, A, n).expand(list(A.shape)).contiguous()
    rows = np.arange(m)
    for i in reversed(range(k)):
        below = _back((rows > i).astype(np.float64), A)
        unit = _back((rows == i).astype(np.float64), A)
        v = (A[..., :, i] * below + unit).unsqueeze(-1)      # (..., m, 1)
        t = tau[..., i].unsqueeze(-1).unsqueeze(-1)
        Q = Q - (t * v).matmul(_mT(v).matmul(Q))
    return Q


# ---- eig / eigvals: complex results, which aakaar has no dtype for -----------------------------------

def _no_complex(fn: str) -> NotImplementedError:
    return NotImplementedError(
        f"linalg.{fn}: the eigenvalues of a general real matrix are complex, and aakaar has no complex dtypes, "
        f"so {fn} is not available. For a symmetric matrix use aakaar.linalg.eigh / aakaar.linalg.eigvalsh "
        "(real eigenvalues and eigenvectors).")


def eig(A: Tensor, *, out: Any = None) -> Any:
    """Refused (NotImplementedError, a RuntimeError): the result is complex; see eigh for symmetric A."""
    raise _no_complex("eig")


def eigvals(A: Tensor, *, out: Any = None) -> Any:
    """Refused (NotImplementedError, a RuntimeError): the result is complex; see eigvalsh for symmetric A."""
    raise _no_complex("eigvals")


# ---- torch's older top-level names (aakaar.lu, lu_unpack, triangular_solve, cholesky_solve, ...) -----

class _LuUnpack(NamedTuple):
    P: Tensor
    L: Tensor
    U: Tensor


def _torch_lu(A: Tensor, pivot: bool = True, get_infos: bool = False) -> tuple:
    """torch.lu: (LU, pivots) or, with get_infos, (LU, pivots, infos); singular input is not an
    error (infos says so), as torch's."""
    LU, piv, info = lu_factor_ex(A, pivot=pivot)
    return (LU, piv, info) if get_infos else (LU, piv)


def lu_unpack(LU_data: Tensor, LU_pivots: Tensor, unpack_data: bool = True, unpack_pivots: bool = True) -> _LuUnpack:
    """(P, L, U) from a packed LU and its pivots; an empty tensor for the part not asked for."""
    empty = LU_data.new_empty((0,))
    P = _pivots_to_P(LU_data, LU_pivots, "lu_unpack") if unpack_pivots else empty
    L, U = _unpack(LU_data) if unpack_data else (empty, empty)
    return _LuUnpack(P, L, U)


def _torch_lu_solve(b: Tensor, LU_data: Tensor, LU_pivots: Tensor) -> Tensor:
    """torch.lu_solve (b first): X with A X = b from A's LU."""
    return lu_solve(LU_data, LU_pivots, b)


class _TriangularSolve(NamedTuple):
    solution: Tensor
    cloned_coefficient: Tensor


def triangular_solve(b: Tensor, A: Tensor, upper: bool = True, transpose: bool = False,
                     unitriangular: bool = False) -> _TriangularSolve:
    """torch.triangular_solve: (X, A.clone()) with A X = b (A^T X = b with ``transpose``); only the
    ``upper`` (default) or lower triangle of A is read."""
    coef = _mT(A) if transpose else A
    X = solve_triangular(coef, b, upper=upper != transpose, unitriangular=unitriangular)
    return _TriangularSolve(X, A.clone())


def _cholesky_full(L: Tensor, upper: bool) -> Tensor:
    """A = L L^T (U^T U) from the triangle, with the gradient reaching all of L: torch's
    cholesky_solve/cholesky_inverse backward does not restrict it to the triangle."""
    tri = L.triu() if upper else L.tril()
    F = _attach(tri.detach(), L)
    return _mT(F).matmul(F) if upper else F.matmul(_mT(F))


def cholesky_solve(B: Tensor, L: Tensor, upper: bool = False) -> Tensor:
    """X with A X = B, A = L L^T given its Cholesky factor L (U^T U with ``upper``)."""
    _check_square(L, "cholesky_solve")
    if B.ndim < 2:
        raise RuntimeError(f"b should have at least 2 dimensions, but has {B.ndim} dimensions instead")
    return solve(_cholesky_full(L, upper), B)


def cholesky_inverse(L: Tensor, upper: bool = False) -> Tensor:
    """inv(A) for A = L L^T (U^T U with ``upper``) given its Cholesky factor."""
    _check_square(L, "cholesky_inverse")
    return inv(_cholesky_full(L, upper))


# torch's top-level names that are Tensor methods too (installed by aakaar.linalg.install)
TOP_LEVEL_METHODS = {"lu": _torch_lu, "lu_solve": _torch_lu_solve, "triangular_solve": triangular_solve,
                     "cholesky_solve": cholesky_solve, "cholesky_inverse": cholesky_inverse, "matrix_exp": matrix_exp}


# ---- LDL (Bunch-Kaufman, as LAPACK's sytf2 with the lower triangle) ---------------------------------

_BK_ALPHA = (1.0 + math.sqrt(17.0)) / 8.0


def _mirror_lower(m: np.ndarray) -> np.ndarray:
    return np.tril(m) + np.tril(m, -1).T


def _sytf2_lower(a: np.ndarray) -> tuple[np.ndarray, np.ndarray, int]:
    """LAPACK's dsytf2 (UPLO='L') on one symmetric matrix: A = L D L^T with Bunch-Kaufman
    diagonal pivoting (1x1 and 2x2 blocks). Returns (LD with the strict upper part zeroed,
    1-based pivots, negative for a 2x2 block, info: the first zero block's index or 0). sytrf
    calls this unblocked form for n <= 64, its block size; its blocked form for larger n makes the
    same pivot choices (tests/core/test_linalg_extra.py compares with torch up to n = 100)."""
    A = _mirror_lower(a.astype(np.float64))               # only the lower triangle is read
    n = A.shape[0]
    piv = np.zeros(n, dtype=np.int32)
    info = 0
    k = 0
    while k < n:
        kstep = 1
        absakk = abs(A[k, k])
        if k < n - 1:
            imax = k + 1 + int(np.argmax(np.abs(A[k + 1:, k])))
            colmax = abs(A[imax, k])
        else:
            imax, colmax = k, 0.0
        if max(absakk, colmax) == 0 or math.isnan(absakk):
            info = info or k + 1
            kp = k
        else:
            if absakk >= _BK_ALPHA * colmax:
                kp = k
            else:
                rowmax = float(np.max(np.abs(A[imax, k:imax])))
                if imax < n - 1:
                    rowmax = max(rowmax, float(np.max(np.abs(A[imax + 1:, imax]))))
                if absakk >= _BK_ALPHA * colmax * (colmax / rowmax):
                    kp = k
                elif abs(A[imax, imax]) >= _BK_ALPHA * rowmax:
                    kp = imax
                else:
                    kp, kstep = imax, 2
            kk = k + kstep - 1
            if kp != kk:   # swap rows and columns kk and kp of the trailing (symmetric) matrix
                perm = list(range(n))
                perm[kk], perm[kp] = kp, kk
                A[k:, k:] = A[np.ix_(perm, perm)][k:, k:]
            # the updates round as LAPACK's (dsyr: a + x_i (alpha x_j)); the lower triangle is
            # kept and mirrored, so the swaps above read what LAPACK reads
            if kstep == 1:
                if k < n - 1:
                    x = A[k + 1:, k].copy()
                    d11 = 1.0 / A[k, k]
                    A[k + 1:, k + 1:] = _mirror_lower(A[k + 1:, k + 1:] + x[:, None] * (-d11 * x)[None, :])
                    A[k + 1:, k] = x * d11
            elif k < n - 2:
                d21 = A[k + 1, k]
                d11, d22 = A[k + 1, k + 1] / d21, A[k, k] / d21
                t = 1.0 / (d11 * d22 - 1.0)
                d21 = t / d21
                wk = d21 * (d11 * A[k + 2:, k] - A[k + 2:, k + 1])
                wkp1 = d21 * (d22 * A[k + 2:, k + 1] - A[k + 2:, k])
                A[k + 2:, k + 2:] = _mirror_lower(A[k + 2:, k + 2:] - A[k + 2:, k, None] * wk[None, :]
                                                  - A[k + 2:, k + 1, None] * wkp1[None, :])
                A[k + 2:, k], A[k + 2:, k + 1] = wk, wkp1
        if kstep == 1:
            piv[k] = kp + 1
        else:
            piv[k] = piv[k + 1] = -(kp + 1)
        k += kstep
    return np.tril(A), piv, info


def _sytrs_lower(LD: np.ndarray, piv: np.ndarray, b: np.ndarray) -> np.ndarray:
    """LAPACK's dsytrs (UPLO='L'): X with A X = B from sytf2's factors."""
    B = b.astype(np.float64).copy()
    n = LD.shape[0]
    k = 0
    while k < n:                                        # L D Y = B
        if piv[k] > 0:
            kp = piv[k] - 1
            B[[k, kp]] = B[[kp, k]]
            B[k + 1:] -= np.outer(LD[k + 1:, k], B[k])
            B[k] /= LD[k, k]
            k += 1
        else:
            kp = -piv[k] - 1
            B[[k + 1, kp]] = B[[kp, k + 1]]
            B[k + 2:] -= np.outer(LD[k + 2:, k], B[k]) + np.outer(LD[k + 2:, k + 1], B[k + 1])
            akm1k = LD[k + 1, k]
            akm1, ak = LD[k, k] / akm1k, LD[k + 1, k + 1] / akm1k
            denom = akm1 * ak - 1.0
            bkm1, bk = B[k] / akm1k, B[k + 1] / akm1k
            B[k], B[k + 1] = (ak * bkm1 - bk) / denom, (akm1 * bk - bkm1) / denom
            k += 2
    k = n - 1
    while k >= 0:                                       # L^T X = Y
        if piv[k] > 0:
            B[k] -= LD[k + 1:, k] @ B[k + 1:]
            kp = piv[k] - 1
            B[[k, kp]] = B[[kp, k]]
            k -= 1
        else:
            B[k] -= LD[k + 1:, k] @ B[k + 1:]
            B[k - 1] -= LD[k + 1:, k - 1] @ B[k + 1:]
            kp = -piv[k] - 1
            B[[k, kp]] = B[[kp, k]]
            k -= 2
    return B


def _no_derivative(fn: str, value: Tensor, *inputs: Tensor) -> Tensor:
    """value, and (when an input requires grad) a node whose backward refuses, as torch's has none."""
    if not _tracking(*inputs):
        return value
    from .autograd.function import Function

    class _NoDerivative(Function):
        @staticmethod
        def forward(ctx: Any, v: Tensor, *ins: Tensor) -> Tensor:
            return v.clone()

        @staticmethod
        def backward(ctx: Any, grad: Tensor) -> tuple:
            raise RuntimeError(f"derivative for linalg.{fn} is not implemented (torch has none either)")

    return _NoDerivative.apply(value, *inputs)


class LDLFactorResult(NamedTuple):
    LD: Tensor
    pivots: Tensor


class LDLFactorExResult(NamedTuple):
    LD: Tensor
    pivots: Tensor
    info: Tensor


def ldl_factor_ex(A: Tensor, *, hermitian: bool = False, check_errors: bool = False) -> LDLFactorExResult:
    """(LD, pivots, info): A = P L D L^T P^T for symmetric A (its lower triangle read) by
    Bunch-Kaufman pivoting, in LAPACK's compact form (L below the diagonal, the 1x1 and 2x2 blocks
    of D on and next to it; a negative pivot marks a 2x2 block). info > 0 where D has a zero
    block (a LinAlgError with ``check_errors``). No gradient, as torch."""
    _check_square(A, "ldl_factor_ex")
    a = _np(A)
    flat = a.reshape((-1,) + a.shape[-2:])
    parts = [_sytf2_lower(m) for m in flat]
    n = A.shape[-1]
    ld = np.stack([p[0] for p in parts]).reshape(a.shape) if parts else a
    piv = np.stack([p[1] for p in parts]).reshape(a.shape[:-1]) if parts else np.zeros(a.shape[:-1], np.int32)
    info = np.array([p[2] for p in parts], dtype=np.int32).reshape(a.shape[:-2])
    if check_errors and (info > 0).any():
        raise LinAlgError(f"torch.linalg.ldl_factor_ex: the block D[{int(info[info > 0].flat[0])}] of the "
                          "factorization is exactly zero: A is singular")
    LD = _no_derivative("ldl_factor", _back(ld, A), A) if n else _back(ld, A)
    return LDLFactorExResult(LD, _ints(piv, A), _ints(info, A))


def ldl_factor(A: Tensor, *, hermitian: bool = False) -> LDLFactorResult:
    """(LD, pivots) as ldl_factor_ex, a LinAlgError where A is singular (torch fails there with an
    internal assertion)."""
    _check_square(A, "ldl_factor")
    LD, piv, info = ldl_factor_ex(A, hermitian=hermitian)
    if bool((info > 0).any()):
        i = int(info.detach().cpu().numpy()[info.detach().cpu().numpy() > 0].flat[0])
        raise LinAlgError(f"torch.linalg.ldl_factor: the block D[{i}] of the factorization is exactly zero: "
                          "A is singular")
    return LDLFactorResult(LD, piv)


def ldl_solve(LD: Tensor, pivots: Tensor, B: Tensor, *, hermitian: bool = False) -> Tensor:
    """X with A X = B from A's ldl_factor (LAPACK's sytrs). No gradient, as torch."""
    _check_square(LD, "ldl_solve")
    if not isinstance(B, Tensor) or B.ndim < 2:
        raise RuntimeError("torch.linalg.ldl_solve: Expected B to have at least 2 dimensions.")
    if B.dtype != LD.dtype:
        raise RuntimeError(f"Expected b and A to have the same dtype, but found b of type {B.dtype.name} and A of "
                           f"type {LD.dtype.name} instead.")
    if not isinstance(pivots, Tensor) or pivots.dtype != _I32:
        raise RuntimeError("torch.linalg.ldl_solve: Expected pivots to be integers. Got "
                           f"{pivots.dtype.name if isinstance(pivots, Tensor) else type(pivots).__name__}")
    n = LD.shape[-1]
    if B.shape[-2] != n:
        raise RuntimeError(f"torch.linalg.ldl_solve: Incompatible shapes of A and B for the equation AX = B "
                           f"({n}x{n} and {B.shape[-2]}x{B.shape[-1]})")
    if tuple(pivots.shape) != tuple(LD.shape[:-1]):
        raise RuntimeError(f"torch.linalg.ldl_solve: Expected LD.shape[:-1] and pivots.shape to be the same, "
                           f"but got pivots with shape {list(pivots.shape)} instead")
    ld, piv, b = _np(LD), pivots.detach().cpu().numpy(), _np(B)
    if piv.size and (np.abs(piv).min() < 1 or np.abs(piv).max() > n):
        raise RuntimeError("torch.linalg.ldl_solve: pivots must be LAPACK's (1-based, negative for a 2x2 block)")
    shape = np.broadcast_shapes(ld.shape[:-2], b.shape[:-2])
    ld = np.broadcast_to(ld, shape + ld.shape[-2:]).reshape((-1, n, n))
    piv = np.broadcast_to(piv, shape + piv.shape[-1:]).reshape((-1, n))
    bb = np.broadcast_to(b, shape + b.shape[-2:]).reshape((-1,) + b.shape[-2:])
    with np.errstate(all="ignore"):
        x = np.stack([_sytrs_lower(ld[i], piv[i], bb[i]) for i in range(bb.shape[0])]) if bb.shape[0] else bb
    return _no_derivative("ldl_solve", _back(x.reshape(shape + b.shape[-2:]), LD), LD, B)
