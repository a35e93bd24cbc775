"""``aakaar.linalg``: the everyday part of ``torch.linalg`` for real dtypes (float32, float64;
complex dtypes do not exist in aakaar).

Norms, ``cross``, ``multi_dot`` and ``matrix_power`` are composites of aakaar's own
differentiable ops. The factorisations (``det``, ``slogdet``, ``inv``, ``solve``, ``cholesky``,
``qr``, ``eigh``, ``svd``, ...) are computed by numpy's LAPACK on the host in float64 (a tensor
on another device is copied to the host and the result back; float32 results are rounded once),
and their gradients are attached as the standard first-order formulas (Giles, "An extended
collection of matrix derivative results", 2008; the same formulas as PyTorch's
FunctionsManual.cpp): the output is ``value + (L(A) - L(A).detach())`` where ``L`` is the
formula's linear map of the input, so backward gives exactly the formula's gradient. Second
derivatives (``create_graph=True`` through a factorisation) are NOT supported: they treat the
factors as constants. Gradients at repeated eigen/singular values or singular matrices are
undefined, as in PyTorch.
"""

from __future__ import annotations

import math
from typing import Any, NamedTuple, Sequence

import numpy as np

from . import _C
from ._C import Tensor

_F32 = _C.dtype.float32
_F64 = _C.dtype.float64


class LinAlgError(RuntimeError):
    """A matrix that the factorisation cannot take (singular, not positive-definite); a
    RuntimeError, as torch.linalg.LinAlgError is."""


__all__ = [
    "LinAlgError", "vector_norm", "matrix_norm", "norm", "cross", "multi_dot", "matrix_power", "det", "slogdet",
    "inv", "inv_ex", "solve", "cholesky", "cholesky_ex", "qr", "eigh", "eigvalsh", "svd", "svdvals", "pinv",
    "lstsq", "matrix_rank", "vecdot", "diagonal", "matmul",
]


# ---- helpers ---------------------------------------------------------------------------------------

def _check_float(A: Tensor, fn: str) -> None:
    if not isinstance(A, Tensor):
        raise TypeError(f"linalg.{fn}(): argument 'A' must be Tensor, not {type(A).__name__}")
    if not A.dtype.is_floating_point or A.dtype not in (_F32, _F64):
        raise RuntimeError(f"linalg.{fn}: Expected a floating point tensor (float32 or float64) as input. "
                           f"Got {A.dtype.name}")


def _check_square(A: Tensor, fn: str) -> None:
    _check_float(A, fn)
    if A.ndim < 2:
        raise RuntimeError(f"linalg.{fn}: The input tensor A must have at least 2 dimensions.")
    if A.shape[-1] != A.shape[-2]:
        raise RuntimeError(f"linalg.{fn}: A must be batches of square matrices, but they are "
                           f"{A.shape[-2]} by {A.shape[-1]} matrices")


def _np(t: Tensor) -> np.ndarray:
    return t.detach().cpu().to(_F64).numpy()


def _back(a: np.ndarray, like: Tensor) -> Tensor:
    # np.array, not np.ascontiguousarray: that one makes a 0-d result 1-d
    return _C.from_numpy(np.array(a, dtype=np.float64, order="C"))._to_device(like.device).to(like.dtype)


def _tracking(*ts: Any) -> bool:
    from .autograd import is_grad_enabled
    return is_grad_enabled() and any(isinstance(t, Tensor) and t.requires_grad for t in ts)


def _attach(value: Tensor, linear: Tensor) -> Tensor:
    """value, with the gradient of the linear map ``linear`` (of the inputs; its constants detached)."""
    return value + (linear - linear.detach())


def _with_gradient(value: Tensor, A: Tensor, name: str, grad: Any) -> Tensor:
    """value (computed in numpy) as a function of A whose gradient is grad(A, g), computed with the
    library's own differentiable ops (among them this module's functions): so the gradient has a
    gradient too (create_graph=True, hessians), as in torch. The node is `name` + "Backward", as a
    custom Function's is (torch's own: LinalgDetBackward0)."""
    from .autograd.function import Function

    def forward(ctx: Any, a: Tensor) -> Tensor:
        ctx.save_for_backward(a)
        return value

    def backward(ctx: Any, g: Tensor) -> Tensor:
        (a,) = ctx.saved_tensors
        return grad(a, g)

    node = type(name, (Function,), {"forward": staticmethod(forward), "backward": staticmethod(backward)})
    return node.apply(A)


def _inverse_or_pinv(A: Tensor) -> Tensor:
    """A^-1, or its pseudo-inverse where A is singular (the gradients' convention below)."""
    try:
        return inv(A)
    except RuntimeError:
        return pinv(A)


def _mT(t: Tensor) -> Tensor:
    return t.transpose(-2, -1)


def _diag_embed(v: Tensor) -> Tensor:
    n = v.shape[-1]
    eye = _C.eye(n, dtype=v.dtype)._to_device(v.device)
    return v.unsqueeze(-1) * eye


# ---- norms -----------------------------------------------------------------------------------------

def _safe_root(s: Tensor, p: float) -> Tensor:
    """s ** (1 / p) with gradient 0 (not NaN) where s == 0, as torch's norm backward masks it."""
    zero = s == 0
    safe = _C.where(zero, s * 0 + 1, s)
    root = safe.sqrt() if p == 2 else safe.pow(1.0 / p)
    return _C.where(zero, s * 0, root)


def vector_norm(x: Tensor, ord: Any = 2, dim: Any = None, keepdim: bool = False, *, dtype: Any = None) -> Tensor:
    """The ord-norm of ``x`` as a vector (over all elements, or the dims ``dim``): ``ord`` in
    inf, -inf, 0 (the count of non-zeros) or any other real number."""
    if not isinstance(x, Tensor):
        raise TypeError(f"linalg.vector_norm(): argument 'x' must be Tensor, not {type(x).__name__}")
    if not x.dtype.is_floating_point:
        raise RuntimeError(f"linalg.vector_norm: Expected a floating point or complex tensor as input. "
                           f"Got {x.dtype.name.capitalize() if x.dtype.name != 'int64' else 'Long'}")
    if dtype is not None:
        x = x.to(dtype)
    dims = list(range(x.ndim)) if dim is None else ([dim] if isinstance(dim, int) else list(dim))
    if x.ndim == 0:
        dims = []
    a = x.abs()
    if not dims:
        red = a
        if ord == 0:
            return (x != 0).to(x.dtype)
        return red
    if ord == math.inf or ord == -math.inf:
        if x.numel() == 0 and ord == -math.inf:
            raise RuntimeError("linalg.vector_norm cannot compute the -inf norm on an empty tensor because the "
                               "operation does not have an identity")
        return a.amax(dims, keepdim) if ord == math.inf else a.amin(dims, keepdim)
    if ord == 0:
        return (x != 0).to(x.dtype).sum(dims, keepdim=keepdim)
    if ord == 1:
        return a.sum(dims, keepdim=keepdim)
    if ord == 2:
        return _safe_root((x * x).sum(dims, keepdim=keepdim), 2)
    if ord < 0:
        return a.pow(ord).sum(dims, keepdim=keepdim).pow(1.0 / ord)
    return _safe_root(a.pow(ord).sum(dims, keepdim=keepdim), ord)


def matrix_norm(A: Tensor, ord: Any = "fro", dim: Sequence[int] = (-2, -1), keepdim: bool = False, *,
                dtype: Any = None) -> Tensor:
    """The matrix norm over the two dims ``dim``: 'fro', 'nuc', inf, -inf, 1, -1, 2, -2."""
    _check_float(A, "matrix_norm")
    if A.ndim < 2:
        raise RuntimeError(f"linalg.matrix_norm: The input tensor A must have at least 2 dimensions.")
    if dtype is not None:
        A = A.to(dtype)
    d0, d1 = (d % A.ndim for d in dim)
    if d0 == d1:
        raise RuntimeError(f"linalg.matrix_norm: dims must be different. Got ({dim[0]}, {dim[1]})")
    if ord == "fro":
        return vector_norm(A, 2, (d0, d1), keepdim)
    if ord in ("nuc", 2, -2):
        moved = A.movedim((d0, d1), (-2, -1))
        s = svdvals(moved)
        out = s.sum(-1) if ord == "nuc" else (s.amax(-1) if ord == 2 else s.amin(-1))
        if keepdim:
            out = out.unsqueeze(min(d0, d1)).unsqueeze(max(d0, d1))
        return out
    if ord in (1, -1, math.inf, -math.inf):
        sum_dim, other = (d0, d1) if ord in (1, -1) else (d1, d0)
        sums = A.abs().sum(sum_dim, keepdim=True)
        out = sums.amax(other, keepdim=True) if ord > 0 else sums.amin(other, keepdim=True)
        return out if keepdim else out.squeeze(max(d0, d1)).squeeze(min(d0, d1))
    raise RuntimeError(f"linalg.matrix_norm: Order {ord} not supported.")


def norm(A: Tensor, ord: Any = None, dim: Any = None, keepdim: bool = False, *, dtype: Any = None) -> Tensor:
    """``vector_norm`` or ``matrix_norm`` as torch.linalg.norm chooses: a 2-tuple dim (or a 2-D input
    with ord given and no dim) is a matrix norm; otherwise a vector norm (2 by default)."""
    if isinstance(dim, int):
        dim = (dim,)
    if ord is None:
        if dim is not None and len(dim) == 2:
            return matrix_norm(A, "fro", dim, keepdim, dtype=dtype)
        return vector_norm(A, 2, dim, keepdim, dtype=dtype)
    if dim is None:
        if A.ndim == 2:
            return matrix_norm(A, ord, (-2, -1), keepdim, dtype=dtype)
        if A.ndim != 1:
            raise RuntimeError(f"linalg.norm: If dim is not specified but ord is, the input must be 1D or 2D. "
                               f"Got {A.ndim}D.")
        return vector_norm(A, ord, None, keepdim, dtype=dtype)
    if len(dim) == 2:
        return matrix_norm(A, ord, dim, keepdim, dtype=dtype)
    if isinstance(ord, str):
        raise RuntimeError(f"linalg.vector_norm: ord must be a number, got '{ord}'")
    return vector_norm(A, ord, dim, keepdim, dtype=dtype)


def cross(input: Tensor, other: Tensor, *, dim: int = -1) -> Tensor:
    """The cross product of 3-vectors along ``dim`` (inputs broadcast)."""
    if input.shape[dim] != 3 or other.shape[dim] != 3:
        raise RuntimeError(f"linalg.cross: inputs dimension {dim} must have length 3. Got {input.shape[dim]} "
                           f"and {other.shape[dim]}")
    a = [input.select(dim, i) for i in range(3)]
    b = [other.select(dim, i) for i in range(3)]
    parts = [a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]]
    nd = max(input.ndim, other.ndim)
    return _C.stack(parts, dim % nd)


def vecdot(x: Tensor, y: Tensor, *, dim: int = -1) -> Tensor:
    """The dot product of ``x`` and ``y`` along ``dim`` (broadcasting)."""
    return (x * y).sum(dim)


def matmul(input: Tensor, other: Tensor) -> Tensor:
    """Alias of :func:`aakaar.matmul`."""
    return _C.matmul(input, other)


def diagonal(A: Tensor, *, offset: int = 0, dim1: int = -2, dim2: int = -1) -> Tensor:
    """The diagonals of the last two dims (``A.diagonal`` with these defaults)."""
    return A.diagonal(offset, dim1, dim2)


def multi_dot(tensors: Sequence[Tensor]) -> Tensor:
    """The product of 2-D matrices (the first and last may be 1-D), in the cheapest order."""
    ts = list(tensors)
    if len(ts) < 2:
        raise RuntimeError(f"multi_dot(): expected at least 2 tensors but got {len(ts)}")
    first_vec, last_vec = ts[0].ndim == 1, ts[-1].ndim == 1
    if first_vec:
        ts[0] = ts[0].unsqueeze(0)
    if last_vec:
        ts[-1] = ts[-1].unsqueeze(1)
    for i, t in enumerate(ts):
        if t.ndim != 2:
            raise RuntimeError(f"multi_dot(): tensor {i} must be 2D but got {t.ndim}D")
    for i in range(len(ts) - 1):
        if ts[i].shape[1] != ts[i + 1].shape[0]:
            raise RuntimeError(f"multi_dot(): tensors {i} and {i + 1} with shapes {list(ts[i].shape)} and "
                               f"{list(ts[i + 1].shape)} cannot be multiplied")
    # the matrix-chain order (dynamic programming over the dims)
    dims = [ts[0].shape[0]] + [t.shape[1] for t in ts]
    n = len(ts)
    cost = [[0] * n for _ in range(n)]
    split = [[0] * n for _ in range(n)]
    for length in range(1, n):
        for i in range(n - length):
            j = i + length
            cost[i][j] = math.inf
            for k in range(i, j):
                c = cost[i][k] + cost[k + 1][j] + dims[i] * dims[k + 1] * dims[j + 1]
                if c < cost[i][j]:
                    cost[i][j], split[i][j] = c, k

    def product(i: int, j: int) -> Tensor:
        if i == j:
            return ts[i]
        k = split[i][j]
        return product(i, k).mm(product(k + 1, j))

    out = product(0, n - 1)
    if first_vec:
        out = out.squeeze(0)
    if last_vec:
        out = out.squeeze(-1)
    return out


def matrix_power(A: Tensor, n: int) -> Tensor:
    """A to the integer power n (by repeated squaring; negative n through inv)."""
    if A.ndim < 2 or A.shape[-1] != A.shape[-2]:
        raise RuntimeError(f"linalg.matrix_power: A must be batches of square matrices, but they are "
                           f"{A.shape[-2] if A.ndim >= 2 else 1} by {A.shape[-1] if A.ndim else 1} matrices")
    if not isinstance(n, int):
        raise TypeError(f"matrix_power(): argument 'n' must be int, not {type(n).__name__}")
    if n == 0:
        eye = _C.eye(A.shape[-1], dtype=A.dtype)._to_device(A.device)
        return eye.expand(list(A.shape)).clone()
    if n < 0:
        A, n = inv(A), -n
    result = None
    base = A
    while n:
        if n & 1:
            result = base if result is None else result.matmul(base)
        n >>= 1
        if n:
            base = base.matmul(base)
    return result


# ---- factorisations (numpy's LAPACK, first-order gradients attached) -------------------------------

def _lapack(fn, *arrays: np.ndarray, what: str) -> Any:
    try:
        return fn(*arrays)
    except np.linalg.LinAlgError as e:
        raise LinAlgError(f"linalg.{what}: {e}") from None


def det(A: Tensor) -> Tensor:
    """The determinant of square matrices (batched). Gradient det(A) A^-T (undefined where singular)."""
    _check_square(A, "det")
    a = _np(A)
    value = _back(np.linalg.det(a), A)
    if not _tracking(A):
        return value
    return _with_gradient(value, A, "LinalgDet",
                          lambda a, g: (g * det(a)).unsqueeze(-1).unsqueeze(-1) * _mT(_inverse_or_pinv(a)))


class SlogdetResult(NamedTuple):
    sign: Tensor
    logabsdet: Tensor


def slogdet(A: Tensor) -> SlogdetResult:
    """(sign, log|det|) of square matrices. Gradient of logabsdet: A^-T."""
    _check_square(A, "slogdet")
    a = _np(A)
    sign, logabs = np.linalg.slogdet(a)
    s, la = _back(sign, A), _back(logabs, A)
    if _tracking(A):
        la = _with_gradient(la, A, "LinalgSlogdet",
                            lambda a, g: g.unsqueeze(-1).unsqueeze(-1) * _mT(_inverse_or_pinv(a)))
    return SlogdetResult(s, la)


def logdet(A: Tensor) -> Tensor:
    """log(det(A)): NaN where the determinant is negative, -inf where it is 0."""
    sign, logabs = slogdet(A)
    # The NaN and -inf are constants, not logabs * nan: where's backward sends a zero gradient
    # to the branch it did not take, and 0 * nan would still be NaN in logabs' gradient.
    nan = logabs.detach().clone().fill_(float("nan"))
    neg_inf = logabs.detach().clone().fill_(float("-inf"))
    return _C.where(sign < 0, nan, _C.where(sign == 0, neg_inf, logabs))


def inv(A: Tensor) -> Tensor:
    """The inverse of square matrices; LinAlgError (a RuntimeError) for a singular one. Gradient -X^T g X^T."""
    _check_square(A, "inv")
    x = _lapack(np.linalg.inv, _np(A), what="inv")
    value = _back(x, A)
    if not _tracking(A):
        return value

    def grad(a: Tensor, g: Tensor) -> Tensor:
        x_t = _mT(inv(a))
        return -(x_t.matmul(g).matmul(x_t))

    return _with_gradient(value, A, "LinalgInvEx", grad)


class InvExResult(NamedTuple):
    inverse: Tensor
    info: Tensor


def inv_ex(A: Tensor, *, check_errors: bool = False) -> InvExResult:
    """(inverse, info): info is 0, or (without check_errors) non-zero where A is singular."""
    try:
        return InvExResult(inv(A), _C.zeros(*A.shape[:-2], dtype=_C.dtype.int32))
    except LinAlgError:
        if check_errors:
            raise
        return InvExResult(A * float("nan"), _C.ones(*A.shape[:-2], dtype=_C.dtype.int32))


def solve(A: Tensor, B: Tensor, *, left: bool = True) -> Tensor:
    """X with A X = B (X A = B when left=False); B a vector or (batches of) matrices."""
    _check_square(A, "solve")
    if not left:
        return _mT(solve(_mT(A), _mT(B)))
    vec = B.ndim == 1 or (B.ndim == A.ndim - 1 and tuple(B.shape) == tuple(A.shape[:-1]))
    Bm = B.unsqueeze(-1) if vec else B
    if Bm.shape[-2] != A.shape[-1]:
        raise RuntimeError(f"linalg.solve: Incompatible shapes of A and B for the equation AX = B "
                           f"({A.shape[-2]}x{A.shape[-1]} and {Bm.shape[-2]}x{Bm.shape[-1]})")
    a, b = _np(A), _np(Bm)
    shape = np.broadcast_shapes(a.shape[:-2], b.shape[:-2])
    a = np.broadcast_to(a, shape + a.shape[-2:])
    b = np.broadcast_to(b, shape + b.shape[-2:])
    x = _lapack(np.linalg.solve, a, b, what="solve")
    like = A if A.dtype == _C.promote_types(A.dtype, B.dtype) else B
    value = _back(x, like)
    if _tracking(A, B):
        X = value.detach()
        Ainv = _back(np.linalg.inv(a), like)
        value = _attach(value, Ainv.matmul(Bm - A.matmul(X)))
    return value.squeeze(-1) if vec else value


def cholesky(A: Tensor, *, upper: bool = False) -> Tensor:
    """The lower (or upper) Cholesky factor of symmetric positive-definite matrices (the lower
    triangle of A is read); LinAlgError when one is not positive-definite."""
    _check_square(A, "cholesky")
    a = _np(A)
    lower_sym = np.tril(a) + np.swapaxes(np.tril(a, -1), -1, -2)
    L = _lapack(np.linalg.cholesky, lower_sym, what="cholesky")
    value = _back(L, A)
    if _tracking(A):
        # dL = L Phi(L^-1 dA L^-T), Phi: lower triangle with the diagonal halved. A is taken as the
        # symmetric (A + A^T) / 2, equal to the matrix factorised when A is symmetric: its gradient
        # is then symmetric, as PyTorch's (which symmetrises it), and a step along it keeps A so.
        Linv = _back(np.linalg.inv(L), A)
        Ld = value.detach()
        S = (A + A.transpose(-2, -1)) * 0.5
        M = Linv.matmul(S).matmul(Linv.transpose(-2, -1))
        phi = M.tril(-1) + _diag_embed(M.diagonal(0, -2, -1) * 0.5)
        value = _attach(value, Ld.matmul(phi))
    return value.transpose(-2, -1) if upper else value


class CholeskyExResult(NamedTuple):
    L: Tensor
    info: Tensor


def cholesky_ex(A: Tensor, *, upper: bool = False, check_errors: bool = False) -> CholeskyExResult:
    """(L, info), info non-zero (without check_errors) where A is not positive-definite."""
    try:
        return CholeskyExResult(cholesky(A, upper=upper), _C.zeros(*A.shape[:-2], dtype=_C.dtype.int32))
    except LinAlgError:
        if check_errors:
            raise
        return CholeskyExResult(A * float("nan"), _C.ones(*A.shape[:-2], dtype=_C.dtype.int32))


class QRResult(NamedTuple):
    Q: Tensor
    R: Tensor


def qr(A: Tensor, mode: str = "reduced") -> QRResult:
    """Q R = A with orthonormal Q and upper-triangular R (LAPACK's Householder QR, as torch), mode
    'reduced', 'complete' or 'r'. Gradient for 'reduced' with m >= n."""
    _check_float(A, "qr")
    if A.ndim < 2:
        raise RuntimeError("linalg.qr: The input tensor A must have at least 2 dimensions.")
    if mode not in ("reduced", "complete", "r"):
        raise RuntimeError(f"qr received unrecognized mode '{mode}' but expected one of 'reduced' (default), "
                           "'r', or 'complete'")
    q, r = np.linalg.qr(_np(A), mode="complete" if mode == "complete" else "reduced")
    Q, R = _back(q, A), _back(r, A)
    if mode == "r":
        return QRResult(A.new_empty((0,)), R)
    m, n = A.shape[-2], A.shape[-1]
    if _tracking(A):
        if mode == "complete" and m > n or m < n:
            raise RuntimeError("The derivative of linalg.qr depends on Q, which is not computed when mode='r'"
                               " or not unique when m < n / mode='complete' with m > n: not supported")
        Qd, Rd = Q.detach(), R.detach()
        Rinv = _back(np.linalg.inv(r), A)
        M = _mT(Qd).matmul(A).matmul(Rinv)
        low = M.tril(-1)
        X = low - _mT(low)
        eye = _C.eye(m, dtype=A.dtype)._to_device(A.device)
        dQ = Qd.matmul(X) + (eye - Qd.matmul(_mT(Qd))).matmul(A).matmul(Rinv)
        dR = (M - X).matmul(Rd)
        Q, R = _attach(Q, dQ), _attach(R, dR)
    return QRResult(Q, R)


class EighResult(NamedTuple):
    eigenvalues: Tensor
    eigenvectors: Tensor


def _eigh_vectors_linear(A: Tensor, w: Tensor, V: Tensor) -> Tensor:
    lam = w.unsqueeze(-2) - w.unsqueeze(-1)  # lam[i, j] = w_j - w_i
    off = lam != 0
    F = _C.where(off, 1.0 / _C.where(off, lam, lam * 0 + 1), lam * 0)
    return V.matmul(F * _mT(V).matmul(A).matmul(V))


def eigh(A: Tensor, UPLO: str = "L") -> EighResult:
    """Eigenvalues (ascending) and orthonormal eigenvectors of symmetric matrices (the UPLO
    triangle is read). Eigenvector signs follow LAPACK, as torch's; compare them up to sign."""
    _check_square(A, "eigh")
    if UPLO not in ("L", "U"):
        raise RuntimeError(f"Expected UPLO argument to be 'L' or 'U', but got {UPLO}")
    w, v = np.linalg.eigh(_np(A), UPLO=UPLO)
    W, V = _back(w, A), _back(v, A)
    if _tracking(A):
        Vd, Wd = V.detach(), W.detach()
        W = _attach(W, (_mT(Vd).matmul(A).matmul(Vd)).diagonal(0, -2, -1))
        V = _attach(V, _eigh_vectors_linear(A, Wd, Vd))
    return EighResult(W, V)


def eigvalsh(A: Tensor, UPLO: str = "L") -> Tensor:
    """The eigenvalues (ascending) of symmetric matrices."""
    return eigh(A, UPLO).eigenvalues


class SVDResult(NamedTuple):
    U: Tensor
    S: Tensor
    Vh: Tensor


def svd(A: Tensor, full_matrices: bool = True, *, driver: Any = None) -> SVDResult:
    """A = U diag(S) Vh with descending S. Gradients for full_matrices=False (as torch, which
    refuses them for full_matrices=True)."""
    _check_float(A, "svd")
    if A.ndim < 2:
        raise RuntimeError("linalg.svd: The input tensor A must have at least 2 dimensions.")
    u, s, vh = np.linalg.svd(_np(A), full_matrices=full_matrices)
    U, S, Vh = _back(u, A), _back(s, A), _back(vh, A)
    if _tracking(A):
        m, n = A.shape[-2], A.shape[-1]
        if full_matrices and m != n:
            raise RuntimeError("linalg.svd: computing gradients with full_matrices=True is not supported; "
                               "use full_matrices=False")
        Ud, Sd, Vd = U.detach(), S.detach(), _mT(Vh.detach())
        dP = _mT(Ud).matmul(A).matmul(Vd)
        S_new = _attach(S, dP.diagonal(0, -2, -1))
        s2 = Sd * Sd
        lam = s2.unsqueeze(-2) - s2.unsqueeze(-1)  # lam[i, j] = s_j^2 - s_i^2
        off = lam != 0
        E = _C.where(off, 1.0 / _C.where(off, lam, lam * 0 + 1), lam * 0)
        Sm = _diag_embed(Sd)
        Sinv = _diag_embed(_C.where(Sd != 0, 1.0 / _C.where(Sd != 0, Sd, Sd * 0 + 1), Sd * 0))
        dU = Ud.matmul(E * (dP.matmul(Sm) + Sm.matmul(_mT(dP))))
        dV = Vd.matmul(E * (Sm.matmul(dP) + _mT(dP).matmul(Sm)))
        eye_m = _C.eye(m, dtype=A.dtype)._to_device(A.device)
        eye_n = _C.eye(n, dtype=A.dtype)._to_device(A.device)
        if m > n:
            dU = dU + (eye_m - Ud.matmul(_mT(Ud))).matmul(A).matmul(Vd).matmul(Sinv)
        if n > m:
            dV = dV + (eye_n - Vd.matmul(_mT(Vd))).matmul(_mT(A)).matmul(Ud).matmul(Sinv)
        return SVDResult(_attach(U, dU), S_new, _attach(Vh, _mT(dV)))
    return SVDResult(U, S, Vh)


def svdvals(A: Tensor, *, driver: Any = None) -> Tensor:
    """The singular values, descending. Gradient U diag(g) Vh."""
    _check_float(A, "svdvals")
    if A.ndim < 2:
        raise RuntimeError("linalg.svdvals: The input tensor A must have at least 2 dimensions.")
    u, s, vh = np.linalg.svd(_np(A), full_matrices=False)
    S = _back(s, A)
    if _tracking(A):
        Ud, Vd = _back(u, A), _back(np.swapaxes(vh, -1, -2), A)
        S = _attach(S, (_mT(Ud).matmul(A).matmul(Vd)).diagonal(0, -2, -1))
    return S


def _tolerance(S: Tensor, A: Tensor, atol: Any, rtol: Any, hermitian_eps_default: bool = True) -> Tensor:
    smax = S.amax(-1, keepdim=True) if S.shape[-1] else S.sum(-1, keepdim=True)
    eps = 1.1920928955078125e-07 if A.dtype == _F32 else 2.220446049250313e-16
    if rtol is None:
        rtol = max(A.shape[-2], A.shape[-1]) * eps if atol is None or (not isinstance(atol, Tensor) and atol == 0) \
            else 0.0
    a = atol if atol is not None else 0.0
    a_t = a if isinstance(a, Tensor) else smax * 0 + a
    return (smax * rtol).maximum(a_t.unsqueeze(-1) if isinstance(a, Tensor) and a.ndim else a_t)


def matrix_rank(A: Tensor, *, atol: Any = None, rtol: Any = None, hermitian: bool = False, tol: Any = None) -> Tensor:
    """The number of singular values above max(atol, rtol * largest) (int64)."""
    if tol is not None:
        atol, rtol = tol, 0.0
    _check_float(A, "matrix_rank")
    S = svdvals(A.detach()) if not hermitian else eigvalsh(A.detach()).abs()
    tol_ = _tolerance(S, A, atol, rtol)
    return (S > tol_).sum(-1)


def pinv(A: Tensor, *, atol: Any = None, rtol: Any = None, hermitian: bool = False) -> Tensor:
    """The Moore-Penrose pseudo-inverse, V diag(1/s) U^T over the singular values above the
    tolerance (as matrix_rank's)."""
    _check_float(A, "pinv")
    U, S, Vh = svd(A, full_matrices=False)
    tol_ = _tolerance(S.detach(), A, atol, rtol)
    keep = S > tol_
    sinv = _C.where(keep, 1.0 / _C.where(keep, S, S * 0 + 1), S * 0)
    return _mT(Vh).matmul(sinv.unsqueeze(-1) * _mT(U))


class LstsqResult(NamedTuple):
    solution: Tensor
    residuals: Tensor
    rank: Tensor
    singular_values: Tensor


def lstsq(A: Tensor, B: Tensor, rcond: Any = None, *, driver: Any = None) -> LstsqResult:
    """The least-squares solution of A X = B (through pinv, so rank-deficient systems get the
    minimum-norm solution). As torch's default CPU driver 'gelsy': residuals and
    singular_values are empty, rank is given."""
    _check_float(A, "lstsq")
    if driver not in (None, "gels", "gelsy", "gelsd", "gelss"):
        raise RuntimeError(f"torch.linalg.lstsq: parameter `driver` should be one of (gels, gelsy, gelsd, gelss)")
    if A.ndim < 2:
        raise RuntimeError("torch.linalg.lstsq: input must have at least 2 dimensions.")
    vec = B.ndim == A.ndim - 1
    Bm = B.unsqueeze(-1) if vec else B
    if Bm.shape[-2] != A.shape[-2]:
        raise RuntimeError(f"torch.linalg.lstsq: input.size(-2) should match other.size(-2)")
    X = pinv(A, rtol=rcond).matmul(Bm)
    rank = matrix_rank(A, rtol=rcond)
    empty = A.new_empty((0,))
    return LstsqResult(X.squeeze(-1) if vec else X, empty, rank, empty)


# ---- torch's older top-level names (aakaar.det, aakaar.svd, ...; also Tensor methods) -------------

def _torch_norm(input: Tensor, p: Any = "fro", dim: Any = None, keepdim: bool = False, dtype: Any = None) -> Tensor:
    """torch.norm: a vector norm for a number p (over all elements or ``dim``), 'fro' over all
    elements or one or two dims, 'nuc' a matrix norm."""
    if isinstance(dim, int):
        dim = [dim]
    if p == "fro":
        return vector_norm(input, 2, dim, keepdim, dtype=dtype)
    if p == "nuc":
        return matrix_norm(input, "nuc", dim if dim is not None else (-2, -1), keepdim, dtype=dtype)
    if isinstance(p, str):
        raise RuntimeError(f"norm(): unsupported p '{p}'")
    return vector_norm(input, 2 if p is None else p, dim, keepdim, dtype=dtype)


class _SvdOld(NamedTuple):
    U: Tensor
    S: Tensor
    V: Tensor


def _torch_svd(input: Tensor, some: bool = True, compute_uv: bool = True) -> _SvdOld:
    """torch.svd: (U, S, V) with A = U diag(S) V^T (V, not Vh); reduced unless some=False."""
    U, S, Vh = svd(input, full_matrices=not some)
    if not compute_uv:
        return _SvdOld(U.detach() * 0, S, Vh.detach() * 0)
    return _SvdOld(U, S, _mT(Vh))


def _torch_cholesky(input: Tensor, upper: bool = False) -> Tensor:
    """torch.cholesky (linalg.cholesky)."""
    return cholesky(input, upper=upper)


def _pinverse(input: Tensor, rcond: float = 1e-15) -> Tensor:
    """torch.pinverse: pinv with relative tolerance rcond."""
    return pinv(input, rtol=rcond)


def _torch_qr(input: Tensor, some: bool = True) -> QRResult:
    """torch.qr: reduced (some=True) or complete QR."""
    return qr(input, "reduced" if some else "complete")


def _torch_cross(input: Tensor, other: Tensor, dim: Any = None) -> Tensor:
    """torch.cross: along ``dim``, or (dim=None) the first dim of size 3."""
    if dim is None:
        shape = _C.broadcast_shapes(list(input.shape), list(other.shape))
        sizes = [i for i, s in enumerate(shape) if s == 3]
        if not sizes:
            raise RuntimeError(f"no dimension of size 3 in input")
        dim = sizes[0]
    return cross(input, other, dim=dim)


TOP_LEVEL = {
    "det": det, "logdet": logdet, "slogdet": slogdet, "inverse": inv, "cholesky": _torch_cholesky,
    "svd": _torch_svd, "pinverse": _pinverse, "qr": _torch_qr, "matrix_power": matrix_power,
    "norm": _torch_norm, "cross": _torch_cross, "chain_matmul": None,
}
TOP_LEVEL = {k: v for k, v in TOP_LEVEL.items() if v is not None}


def install() -> None:
    """Tensor methods: det, logdet, slogdet, inverse, cholesky, svd, pinverse, qr, matrix_power, norm, cross,
    lu, lu_solve, triangular_solve, cholesky_solve, cholesky_inverse, matrix_exp."""
    for name, fn in TOP_LEVEL.items():
        setattr(Tensor, name, fn)


# LU, triangular solves, matrix_exp, cond, ... live in linalg_extra (imported last: it uses the helpers above)
from .linalg_extra import (TOP_LEVEL_METHODS, cond, eig, eigvals, householder_product, lu, lu_factor,  # noqa: E402
                           lu_factor_ex, lu_solve, lu_unpack, matrix_exp, solve_ex, solve_triangular, tensorinv,
                           tensorsolve, vander, ldl_factor, ldl_factor_ex, ldl_solve)

TOP_LEVEL.update(TOP_LEVEL_METHODS)

__all__ += ["lu_factor", "lu_factor_ex", "lu", "lu_solve", "solve_triangular", "solve_ex", "matrix_exp", "cond",
            "tensorinv", "tensorsolve", "vander", "householder_product", "eig", "eigvals", "ldl_factor",
            "ldl_factor_ex", "ldl_solve"]
