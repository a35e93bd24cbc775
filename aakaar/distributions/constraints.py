"""The few constraints the distributions check their parameters and values against.

A constraint answers ``check(value)`` with a boolean tensor (True where valid), as
``torch.distributions.constraints`` does; ``repr`` names it in validation errors
with torch's spelling so messages read the same.
"""
from __future__ import annotations

from typing import Any

import aakaar

Tensor = aakaar.Tensor


class Constraint:
    """A region of values; ``event_dim`` dimensions on the right are checked together."""

    is_discrete = False
    event_dim = 0

    def check(self, value: Tensor) -> Tensor:
        """A boolean tensor: True where ``value`` satisfies the constraint."""
        raise NotImplementedError

    def __repr__(self) -> str:
        return self.__class__.__name__[1:] + "()"


class _Dependent(Constraint):
    """Placeholder for a parameter whose support depends on others (never checked)."""

    def check(self, value: Tensor) -> Tensor:
        raise ValueError("Cannot determine validity of dependent constraint")


def is_dependent(constraint: Any) -> bool:
    """True for constraints that cannot be checked on their own."""
    return isinstance(constraint, _Dependent)


class _Real(Constraint):
    """Any number that is not NaN."""

    def check(self, value: Tensor) -> Tensor:
        return value == value


class _GreaterThan(Constraint):
    """Values strictly above ``lower_bound``."""

    def __init__(self, lower_bound: Any) -> None:
        self.lower_bound = lower_bound

    def check(self, value: Tensor) -> Tensor:
        return self.lower_bound < value

    def __repr__(self) -> str:
        return f"GreaterThan(lower_bound={self.lower_bound})"


class _GreaterThanEq(_GreaterThan):
    """Values at or above ``lower_bound``."""

    def check(self, value: Tensor) -> Tensor:
        return self.lower_bound <= value

    def __repr__(self) -> str:
        return f"GreaterThanEq(lower_bound={self.lower_bound})"


class _LessThan(Constraint):
    """Values strictly below ``upper_bound``."""

    def __init__(self, upper_bound: Any) -> None:
        self.upper_bound = upper_bound

    def check(self, value: Tensor) -> Tensor:
        return value < self.upper_bound

    def __repr__(self) -> str:
        return f"LessThan(upper_bound={self.upper_bound})"


class _Interval(Constraint):
    """Values in the closed interval ``[lower_bound, upper_bound]``."""

    def __init__(self, lower_bound: Any, upper_bound: Any) -> None:
        self.lower_bound = lower_bound
        self.upper_bound = upper_bound

    def check(self, value: Tensor) -> Tensor:
        return (self.lower_bound <= value) & (value <= self.upper_bound)

    def __repr__(self) -> str:
        return f"Interval(lower_bound={self.lower_bound}, upper_bound={self.upper_bound})"


class _HalfOpenInterval(_Interval):
    """Values in ``[lower_bound, upper_bound)``."""

    def check(self, value: Tensor) -> Tensor:
        return (self.lower_bound <= value) & (value < self.upper_bound)

    def __repr__(self) -> str:
        return f"HalfOpenInterval(lower_bound={self.lower_bound}, upper_bound={self.upper_bound})"


class _Boolean(Constraint):
    """Exactly 0 or 1."""

    is_discrete = True

    def check(self, value: Tensor) -> Tensor:
        return (value == 0) | (value == 1)


class _IntegerInterval(Constraint):
    """Integers in ``[lower_bound, upper_bound]``."""

    is_discrete = True

    def __init__(self, lower_bound: Any, upper_bound: Any) -> None:
        self.lower_bound = lower_bound
        self.upper_bound = upper_bound

    def check(self, value: Tensor) -> Tensor:
        return (value % 1 == 0) & (self.lower_bound <= value) & (value <= self.upper_bound)

    def __repr__(self) -> str:
        return f"IntegerInterval(lower_bound={self.lower_bound}, upper_bound={self.upper_bound})"


class _Simplex(Constraint):
    """Non-negative vectors on the last dimension that sum to 1."""

    event_dim = 1

    def check(self, value: Tensor) -> Tensor:
        return aakaar.all(value >= 0, dim=-1) & ((value.sum(-1) - 1).abs() < 1e-6)


class _OneHot(Constraint):
    """Vectors of 0s and 1s with exactly one 1 on the last dimension."""

    is_discrete = True
    event_dim = 1

    def check(self, value: Tensor) -> Tensor:
        is_boolean = aakaar.all((value == 0) | (value == 1), dim=-1)
        return is_boolean & (value.sum(-1) == 1)


class _IndependentConstraint(Constraint):
    """``base`` with ``reinterpreted_batch_ndims`` more dimensions checked together."""

    def __init__(self, base: Constraint, reinterpreted_batch_ndims: int) -> None:
        self.base_constraint = base
        self.reinterpreted_batch_ndims = reinterpreted_batch_ndims
        self.is_discrete = base.is_discrete
        self.event_dim = base.event_dim + reinterpreted_batch_ndims

    def check(self, value: Tensor) -> Tensor:
        result = self.base_constraint.check(value)
        for _ in range(self.reinterpreted_batch_ndims):
            result = aakaar.all(result, dim=-1)
        return result

    def __repr__(self) -> str:
        return f"IndependentConstraint({self.base_constraint!r}, {self.reinterpreted_batch_ndims})"


class _IndependentReal(_IndependentConstraint):
    """Real vectors (``real_vector``): every entry not NaN."""

    def __init__(self) -> None:
        super().__init__(_Real(), 1)

    def __repr__(self) -> str:
        return "IndependentConstraint(Real(), 1)"


class _LowerCholesky(Constraint):
    """Lower-triangular square matrices with a positive diagonal."""

    event_dim = 2

    def check(self, value: Tensor) -> Tensor:
        lower = aakaar.all(aakaar.all(value.tril() == value, dim=-1), dim=-1)
        positive_diagonal = aakaar.all(value.diagonal(0, -2, -1) > 0, dim=-1)
        return lower & positive_diagonal


class _PositiveDefinite(Constraint):
    """Symmetric matrices whose Cholesky factorisation succeeds."""

    event_dim = 2

    def check(self, value: Tensor) -> Tensor:
        symmetric = aakaar.all(aakaar.all((value - value.transpose(-2, -1)).abs() < 1e-6, dim=-1), dim=-1)
        _, info = aakaar.linalg.cholesky_ex(value)
        return symmetric & (info == 0)


dependent = _Dependent()
real = _Real()
real_vector = _IndependentReal()
positive = _GreaterThan(0.0)
nonnegative = _GreaterThanEq(0.0)
unit_interval = _Interval(0.0, 1.0)
boolean = _Boolean()
simplex = _Simplex()
one_hot = _OneHot()
lower_cholesky = _LowerCholesky()
positive_definite = _PositiveDefinite()
greater_than = _GreaterThan
greater_than_eq = _GreaterThanEq
less_than = _LessThan
interval = _Interval
half_open_interval = _HalfOpenInterval
integer_interval = _IntegerInterval
independent = _IndependentConstraint
