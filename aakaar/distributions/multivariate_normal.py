"""``MultivariateNormal``: a Gaussian vector given by ``loc`` and one of three matrices."""
from __future__ import annotations

import math
from typing import Any, Optional, Sequence

import aakaar

from . import constraints
from .distribution import Distribution, standard_normal
from .utils import lazy_property

Tensor = aakaar.Tensor


def batch_mahalanobis(scale_tril: Tensor, x: Tensor) -> Tensor:
    """``|L^{-1} x|^2`` per batch element, by a triangular solve (never an explicit inverse)."""
    n = x.shape[-1]
    batch = aakaar.broadcast_shapes(tuple(scale_tril.shape[:-2]), tuple(x.shape[:-1]))
    lower = scale_tril.expand(*batch, n, n)
    solved = aakaar.linalg.solve_triangular(lower, x.expand(*batch, n).unsqueeze(-1), upper=False)
    return solved.squeeze(-1).pow(2).sum(-1)


def half_log_det(scale_tril: Tensor) -> Tensor:
    """``log det(L)`` = half the log-determinant of the covariance ``L L^T``."""
    return scale_tril.diagonal(0, -2, -1).log().sum(-1)


def _symmetrised(matrix: Tensor) -> Tensor:
    """``(A + A^T) / 2``: the same symmetric matrix, but its gradient is symmetric too.

    aakaar.linalg.cholesky reads only the lower triangle, so its gradient is lower
    triangular; torch's is symmetric. Symmetrising first gives torch's gradients, and an
    optimiser step on a covariance keeps it symmetric (and so valid).
    """
    return 0.5 * (matrix + matrix.transpose(-2, -1))


def _precision_to_scale_tril(precision: Tensor) -> Tensor:
    """The lower Cholesky factor of ``precision^{-1}``, by torch's flip trick (no explicit inverse)."""
    flipped = aakaar.linalg.cholesky(aakaar.flip(_symmetrised(precision), (-2, -1)))
    lower_inverse = aakaar.flip(flipped, (-2, -1)).transpose(-2, -1)
    identity = aakaar.eye(precision.shape[-1], dtype=precision.dtype, device=precision.device)
    return aakaar.linalg.solve_triangular(lower_inverse, identity, upper=False)


def _check_matrix(name: str, matrix: Tensor) -> None:
    """Raises torch's ValueError for a matrix parameter of fewer than two dimensions."""
    if matrix.dim() < 2:
        raise ValueError(f"{name} must be at least two-dimensional, with optional leading batch dimensions")


class MultivariateNormal(Distribution):
    """N(loc, Sigma) with Sigma given as ``covariance_matrix``, ``precision_matrix`` or ``scale_tril``.

    Everything is computed from the lower Cholesky factor L of Sigma
    (``aakaar.linalg.cholesky`` when a covariance is given), as
    torch.distributions.MultivariateNormal does.
    """

    arg_constraints = {"loc": constraints.real_vector, "covariance_matrix": constraints.positive_definite,
                       "precision_matrix": constraints.positive_definite, "scale_tril": constraints.lower_cholesky}
    support = constraints.real_vector
    has_rsample = True

    def __init__(self, loc: Tensor, covariance_matrix: Optional[Tensor] = None,
                 precision_matrix: Optional[Tensor] = None, scale_tril: Optional[Tensor] = None,
                 validate_args: Optional[bool] = None) -> None:
        if loc.dim() < 1:
            raise ValueError("loc must be at least one-dimensional.")
        given = [(name, m) for name, m in (("covariance_matrix", covariance_matrix),
                                           ("precision_matrix", precision_matrix),
                                           ("scale_tril", scale_tril)) if m is not None]
        if len(given) != 1:
            raise ValueError("Exactly one of covariance_matrix or precision_matrix or scale_tril may be specified.")
        name, matrix = given[0]
        _check_matrix("scale_tril matrix" if name == "scale_tril" else name, matrix)
        batch_shape = aakaar.broadcast_shapes(tuple(matrix.shape[:-2]), tuple(loc.shape[:-1]))
        setattr(self, name, matrix.expand(*batch_shape, -1, -1))
        self.loc = loc.expand(*batch_shape, -1)
        super().__init__(batch_shape, self.loc.shape[-1:], validate_args=validate_args)
        if name == "scale_tril":
            self._unbroadcasted_scale_tril = matrix
        elif name == "covariance_matrix":
            self._unbroadcasted_scale_tril = aakaar.linalg.cholesky(_symmetrised(matrix))
        else:
            self._unbroadcasted_scale_tril = _precision_to_scale_tril(matrix)

    def expand(self, batch_shape: Sequence[int], _instance: Any = None) -> "MultivariateNormal":
        """A MultivariateNormal with ``loc`` and the given matrix expanded to ``batch_shape``."""
        new = self._get_checked_instance(MultivariateNormal, _instance)
        batch_shape = tuple(batch_shape)
        new.loc = self.loc.expand(*batch_shape, *self.event_shape)
        new._unbroadcasted_scale_tril = self._unbroadcasted_scale_tril
        for name in ("covariance_matrix", "scale_tril", "precision_matrix"):
            if name in self.__dict__:
                setattr(new, name, getattr(self, name).expand(*batch_shape, *self.event_shape, *self.event_shape))
        Distribution.__init__(new, batch_shape, self.event_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    def _matrix_shape(self) -> tuple[int, ...]:
        return tuple(self._batch_shape) + tuple(self._event_shape) + tuple(self._event_shape)

    @lazy_property
    def scale_tril(self) -> Tensor:
        """The lower Cholesky factor L of the covariance."""
        return self._unbroadcasted_scale_tril.expand(*self._matrix_shape())

    @lazy_property
    def covariance_matrix(self) -> Tensor:
        """``L @ L^T``."""
        lower = self._unbroadcasted_scale_tril
        return (lower @ lower.transpose(-2, -1)).expand(*self._matrix_shape())

    @lazy_property
    def precision_matrix(self) -> Tensor:
        """The inverse covariance, from L by ``cholesky_inverse``."""
        return aakaar.cholesky_inverse(self._unbroadcasted_scale_tril).expand(*self._matrix_shape())

    @property
    def mean(self) -> Tensor:
        return self.loc

    @property
    def mode(self) -> Tensor:
        return self.loc

    @property
    def variance(self) -> Tensor:
        shape = tuple(self._batch_shape) + tuple(self._event_shape)
        return self._unbroadcasted_scale_tril.pow(2).sum(-1).expand(*shape)

    def rsample(self, sample_shape: Sequence[int] = ()) -> Tensor:
        """``loc + L @ eps`` with standard-normal ``eps``."""
        eps = standard_normal(self._extended_shape(sample_shape), self.loc)
        return self.loc + (self._unbroadcasted_scale_tril @ eps.unsqueeze(-1)).squeeze(-1)

    def log_prob(self, value: Tensor) -> Tensor:
        """``-(d log(2 pi) + |L^{-1}(x - loc)|^2) / 2 - log det L``."""
        if self._validate_args:
            self._validate_sample(value)
        diff = value - self.loc
        mahalanobis = batch_mahalanobis(self._unbroadcasted_scale_tril, diff)
        log_2pi_term = self._event_shape[0] * math.log(2 * math.pi)
        return -0.5 * (log_2pi_term + mahalanobis) - half_log_det(self._unbroadcasted_scale_tril)

    def entropy(self) -> Tensor:
        """``d (1 + log(2 pi)) / 2 + log det L``, expanded to ``batch_shape``."""
        entropy = 0.5 * self._event_shape[0] * (1.0 + math.log(2 * math.pi)) + \
            half_log_det(self._unbroadcasted_scale_tril)
        return entropy if len(self._batch_shape) == 0 else entropy.expand(*self._batch_shape)
