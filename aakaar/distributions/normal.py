"""``Normal`` and ``LogNormal``: Gaussians parameterised by ``loc`` and ``scale``."""
from __future__ import annotations

import math
import numbers
from typing import Any, Optional, Sequence

import aakaar

from . import constraints
from .distribution import LOG_SQRT_2PI, Distribution, standard_normal
from .utils import broadcast_all

Tensor = aakaar.Tensor


class Normal(Distribution):
    """The normal distribution N(loc, scale**2) (torch.distributions.Normal)."""

    arg_constraints = {"loc": constraints.real, "scale": constraints.positive}
    support = constraints.real
    has_rsample = True

    def __init__(self, loc: Any, scale: Any, validate_args: Optional[bool] = None) -> None:
        self.loc, self.scale = broadcast_all(loc, scale)
        batch_shape = () if isinstance(loc, numbers.Number) and isinstance(scale, numbers.Number) else self.loc.shape
        super().__init__(batch_shape, validate_args=validate_args)

    def expand(self, batch_shape: Sequence[int], _instance: Any = None) -> "Normal":
        """A Normal with ``loc`` and ``scale`` expanded to ``batch_shape``."""
        return self._expand_tensors(Normal, batch_shape, _instance, ("loc", "scale"))

    @property
    def mean(self) -> Tensor:
        return self.loc

    @property
    def mode(self) -> Tensor:
        return self.loc

    @property
    def stddev(self) -> Tensor:
        return self.scale

    @property
    def variance(self) -> Tensor:
        return self.stddev.pow(2)

    def sample(self, sample_shape: Sequence[int] = ()) -> Tensor:
        shape = self._extended_shape(sample_shape)
        with aakaar.no_grad():
            return aakaar.normal(self.loc.expand(*shape), self.scale.expand(*shape))

    def rsample(self, sample_shape: Sequence[int] = ()) -> Tensor:
        """``loc + eps * scale`` with standard-normal ``eps``: gradients reach loc and scale."""
        eps = standard_normal(self._extended_shape(sample_shape), self.loc)
        return self.loc + eps * self.scale

    def log_prob(self, value: Tensor) -> Tensor:
        if self._validate_args:
            self._validate_sample(value)
        var = self.scale ** 2
        log_scale = math.log(self.scale) if isinstance(self.scale, numbers.Real) else self.scale.log()
        return -((value - self.loc) ** 2) / (2 * var) - log_scale - LOG_SQRT_2PI

    def cdf(self, value: Tensor) -> Tensor:
        if self._validate_args:
            self._validate_sample(value)
        return 0.5 * (1 + aakaar.erf((value - self.loc) * self.scale.reciprocal() / math.sqrt(2)))

    def icdf(self, value: Tensor) -> Tensor:
        return self.loc + self.scale * aakaar.erfinv(2 * value - 1) * math.sqrt(2)

    def entropy(self) -> Tensor:
        return 0.5 + 0.5 * math.log(2 * math.pi) + aakaar.log(self.scale)


class LogNormal(Distribution):
    """``exp(X)`` for X ~ Normal(loc, scale) (torch.distributions.LogNormal)."""

    arg_constraints = {"loc": constraints.real, "scale": constraints.positive}
    support = constraints.positive
    has_rsample = True

    def __init__(self, loc: Any, scale: Any, validate_args: Optional[bool] = None) -> None:
        self.base_dist = Normal(loc, scale, validate_args=validate_args)
        super().__init__(self.base_dist.batch_shape, validate_args=validate_args)

    def expand(self, batch_shape: Sequence[int], _instance: Any = None) -> "LogNormal":
        """A LogNormal with its base Normal expanded to ``batch_shape``."""
        new = self._get_checked_instance(LogNormal, _instance)
        new.base_dist = self.base_dist.expand(batch_shape)
        Distribution.__init__(new, batch_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    @property
    def loc(self) -> Tensor:
        return self.base_dist.loc

    @property
    def scale(self) -> Tensor:
        return self.base_dist.scale

    @property
    def mean(self) -> Tensor:
        return (self.loc + self.scale.pow(2) / 2).exp()

    @property
    def mode(self) -> Tensor:
        return (self.loc - self.scale.square()).exp()

    @property
    def variance(self) -> Tensor:
        scale_sq = self.scale.pow(2)
        return scale_sq.expm1() * (2 * self.loc + scale_sq).exp()

    def rsample(self, sample_shape: Sequence[int] = ()) -> Tensor:
        return self.base_dist.rsample(sample_shape).exp()

    def log_prob(self, value: Tensor) -> Tensor:
        """The Normal log-density at ``log(value)`` minus ``log(value)`` (the Jacobian of exp)."""
        if self._validate_args:
            self._validate_sample(value)
        log_value = value.log()
        return self.base_dist.log_prob(log_value) - log_value

    def entropy(self) -> Tensor:
        return self.base_dist.entropy() + self.loc
