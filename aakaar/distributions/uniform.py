"""``Uniform``: constant density on the half-open interval ``[low, high)``."""
from __future__ import annotations

import numbers
from typing import Any, Optional, Sequence

import aakaar

from . import constraints
from .distribution import Distribution, standard_uniform
from .utils import broadcast_all

Tensor = aakaar.Tensor


class Uniform(Distribution):
    """The uniform distribution on ``[low, high)`` (torch.distributions.Uniform)."""

    has_rsample = True

    def __init__(self, low: Any, high: Any, validate_args: Optional[bool] = None) -> None:
        self.low, self.high = broadcast_all(low, high)
        batch_shape = () if isinstance(low, numbers.Number) and isinstance(high, numbers.Number) else self.low.shape
        super().__init__(batch_shape, validate_args=validate_args)

    @property
    def arg_constraints(self) -> dict[str, constraints.Constraint]:  # type: ignore[override]
        """``low < high``, checked from both sides as torch does (so either may be named)."""
        return {"low": constraints.less_than(self.high), "high": constraints.greater_than(self.low)}

    @property
    def support(self) -> constraints.Constraint:  # type: ignore[override]
        """``[low, high]``: torch checks the closed interval (log_prob is -inf at ``high``)."""
        return constraints.interval(self.low, self.high)

    def expand(self, batch_shape: Sequence[int], _instance: Any = None) -> "Uniform":
        """A Uniform with ``low`` and ``high`` expanded to ``batch_shape``."""
        return self._expand_tensors(Uniform, batch_shape, _instance, ("low", "high"))

    @property
    def mean(self) -> Tensor:
        return (self.high + self.low) / 2

    @property
    def mode(self) -> Tensor:
        return float("nan") * self.high

    @property
    def stddev(self) -> Tensor:
        return (self.high - self.low) / 12 ** 0.5

    @property
    def variance(self) -> Tensor:
        return (self.high - self.low).pow(2) / 12

    def rsample(self, sample_shape: Sequence[int] = ()) -> Tensor:
        """``low + u * (high - low)`` with ``u`` uniform in [0, 1)."""
        rand = standard_uniform(self._extended_shape(sample_shape), self.low)
        return self.low + rand * (self.high - self.low)

    def log_prob(self, value: Tensor) -> Tensor:
        """``-log(high - low)`` inside the interval, ``-inf`` outside."""
        if self._validate_args:
            self._validate_sample(value)
        lb = (self.low <= value).to(self.low.dtype)
        ub = (self.high > value).to(self.low.dtype)
        return aakaar.log(lb * ub) - aakaar.log(self.high - self.low)

    def cdf(self, value: Tensor) -> Tensor:
        if self._validate_args:
            self._validate_sample(value)
        result = (value - self.low) / (self.high - self.low)
        return result.clamp(min=0, max=1)

    def icdf(self, value: Tensor) -> Tensor:
        return value * (self.high - self.low) + self.low

    def entropy(self) -> Tensor:
        return aakaar.log(self.high - self.low)
