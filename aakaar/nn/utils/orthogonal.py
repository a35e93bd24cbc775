"""``nn.utils.parametrizations.orthogonal``: a weight kept orthogonal (orthonormal rows or columns).

PyTorch's three maps from an unconstrained matrix X to an orthogonal Q, each built from ``aakaar.linalg``
functions that autograd differentiates:

* ``matrix_exp``: ``linalg.matrix_exp`` of the skew-symmetric ``A = tril(X) - tril(X)^T``;
* ``cayley``: ``(I - A/2)^{-1} (I + A/2)`` (``linalg.solve``);
* ``householder``: ``linalg.householder_product`` of the reflectors stored below the diagonal of X,
  with ``tau = 2 / (1 + ||v||^2)``, columns signed by X's diagonal.

With ``use_trivialization`` (the default) the result is multiplied by a buffer ``base``, the orthogonal
matrix set at registration (or by assignment), and the original starts at ``-I``: the map is then
taken around the current point, which is what keeps the optimisation well conditioned.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from ... import _C, linalg
from ..._C import Tensor
from ...autograd import no_grad
from ...creation import tensor
from ..module import Module

__all__ = ["orthogonal"]

_MAPS = ("matrix_exp", "cayley", "householder")


def _mT(x: Tensor) -> Tensor:
    return x.transpose(-2, -1)


def _eye(n: int, like: Tensor) -> Tensor:
    return _C.eye(n, dtype=like.dtype, device=like.device)


def _geqrf(A: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """LAPACK's geqrf (Householder QR: R on and above the diagonal, reflectors below, their taus) for a
    tall matrix or a batch of them, unblocked, with LAPACK's sign conventions."""
    A = np.array(A, dtype=np.float64, copy=True)
    batch = A.reshape(-1, *A.shape[-2:])
    n, k = batch.shape[-2:]
    taus = np.zeros((batch.shape[0], min(n, k)))
    for b in range(batch.shape[0]):
        M = batch[b]
        for i in range(min(n, k)):
            alpha, x = M[i, i], M[i + 1:, i]
            xnorm = np.linalg.norm(x)
            if xnorm == 0.0:
                continue  # tau = 0: H = I
            beta = -math.copysign(math.hypot(alpha, xnorm), alpha)
            taus[b, i] = (beta - alpha) / beta
            v = x / (alpha - beta)
            M[i + 1:, i] = v
            M[i, i] = beta
            w = M[i, i + 1:] + v @ M[i + 1:, i + 1:]
            M[i, i + 1:] -= taus[b, i] * w
            M[i + 1:, i + 1:] -= taus[b, i] * np.outer(v, w)
    return batch.reshape(A.shape), taus.reshape(*A.shape[:-2], min(n, k))


def _make_orthogonal(A: Tensor) -> Tensor:
    """The Q of A's QR factorisation with its columns signed so that R's diagonal is positive."""
    Q, R = linalg.qr(A)
    return Q * R.diagonal(dim1=-2, dim2=-1).sign().unsqueeze(-2)


def _is_orthogonal(Q: Tensor) -> bool:
    q = Q.detach().cpu().numpy()
    n, k = q.shape[-2:]
    eps = 10.0 * n * np.finfo(q.dtype).eps
    return bool(np.allclose(np.swapaxes(q, -1, -2) @ q, np.eye(k), atol=eps, rtol=1e-5))


class _Orthogonal(Module):
    def __init__(self, weight: Tensor, orthogonal_map: str, *, use_trivialization: bool = True) -> None:
        super().__init__()
        self.shape = tuple(weight.shape)
        self.orthogonal_map = orthogonal_map
        if use_trivialization:
            self.register_buffer("base", None)

    def forward(self, X: Tensor) -> Tensor:
        n, k = X.shape[-2], X.shape[-1]
        transposed = n < k
        if transposed:
            X = _mT(X)
            n, k = k, n
        if self.orthogonal_map in ("matrix_exp", "cayley"):
            X = X.tril()
            if n != k:  # embed the tall matrix in a square one
                X = _C.cat([X, _C.zeros(list(X.shape[:-2]) + [n, n - k], dtype=X.dtype, device=X.device)], -1)
            A = X - _mT(X)
            if self.orthogonal_map == "matrix_exp":
                Q = linalg.matrix_exp(A)
            else:
                Id = _eye(n, A)
                Q = linalg.solve(Id - A * 0.5, Id + A * 0.5)
            if n != k:
                Q = Q[..., :k]
        else:
            A = X.tril(-1)
            tau = 2.0 / (1.0 + (A * A).sum(-2))
            Q = linalg.householder_product(A, tau)
            # X's diagonal holds +-1 (truncated, as PyTorch's .int()): it signs the columns, untrained.
            Q = Q * X.diagonal(dim1=-2, dim2=-1).detach().trunc().unsqueeze(-2)
        if "base" in self._buffers:
            Q = self.base.matmul(Q)
        return _mT(Q) if transposed else Q

    def right_inverse(self, Q: Tensor) -> Tensor:
        with no_grad():
            return self._right_inverse(Q)

    def _right_inverse(self, Q: Tensor) -> Tensor:
        if tuple(Q.shape) != self.shape:
            raise ValueError(f"Expected a matrix or batch of matrices of shape {self.shape}. "
                             f"Got a tensor of shape {tuple(Q.shape)}.")
        Q_init = Q
        n, k = Q.shape[-2], Q.shape[-1]
        transpose = n < k
        if transpose:
            Q = _mT(Q)
            n, k = k, n
        if "base" not in self._buffers:
            if self.orthogonal_map in ("cayley", "matrix_exp"):
                raise NotImplementedError("It is not possible to assign to the matrix exponential or the Cayley "
                                          "parametrizations when use_trivialization=False.")
            # The reflectors of Q's QR factorisation, with the signs of R's diagonal on the diagonal.
            A, tau = _geqrf(Q.cpu().numpy())
            diag = np.sign(np.diagonal(A, axis1=-2, axis2=-1)) * np.where(tau == 0.0, -1.0, 1.0)
            idx = np.arange(k)
            A[..., idx, idx] = diag
            A = tensor(A, dtype=Q.dtype, device=Q.device)
            return _mT(A) if transpose else A
        if n == k:
            Q = Q.clone() if _is_orthogonal(Q) else _make_orthogonal(Q)
        else:  # complete Q to a full n x n orthogonal matrix
            N = _C.randn(*(list(Q.shape[:-2]) + [n, n - k]), dtype=Q.dtype, device=Q.device)
            Q = _make_orthogonal(_C.cat([Q, N], -1))
        self.base = Q
        neg_Id = _C.zeros(list(Q_init.shape), dtype=Q_init.dtype, device=Q_init.device)
        neg_Id.diagonal(dim1=-2, dim2=-1).fill_(-1.0)
        return neg_Id


def orthogonal(module: Module, name: str = "weight", orthogonal_map: str | None = None, *,
               use_trivialization: bool = True) -> Module:
    """Makes ``module.<name>`` (a matrix, or a batch of them) orthogonal: orthonormal columns for a tall
    matrix, rows for a wide one. ``orthogonal_map``: "matrix_exp" (default for square), "cayley" or
    "householder" (default otherwise)."""
    weight: Any = getattr(module, name, None)
    if not isinstance(weight, Tensor):
        raise ValueError(f"Module '{module}' has no parameter or buffer with name '{name}'")
    if weight.ndim < 2:
        raise ValueError(f"Expected a matrix or batch of matrices. Got a tensor of {weight.ndim} dimensions.")
    if orthogonal_map is None:
        orthogonal_map = "matrix_exp" if weight.shape[-2] == weight.shape[-1] else "householder"
    if orthogonal_map not in _MAPS:
        raise ValueError(f'orthogonal_map has to be one of "matrix_exp", "cayley", "householder". '
                         f"Got: {orthogonal_map}")
    from .parametrize import register_parametrization

    register_parametrization(module, name, _Orthogonal(weight, orthogonal_map, use_trivialization=use_trivialization),
                             unsafe=True)
    return module
