"""``Exponential`` (by ``rate``) and ``Laplace`` (by ``loc`` and ``scale``)."""
from __future__ import annotations

import numbers
from typing import Any, Optional, Sequence

import aakaar

from . import constraints
from .distribution import Distribution, standard_uniform
from .utils import broadcast_all

Tensor = aakaar.Tensor


class Exponential(Distribution):
    """The exponential distribution with density ``rate * exp(-rate * x)`` (torch.distributions.Exponential)."""

    arg_constraints = {"rate": constraints.positive}
    support = constraints.nonnegative
    has_rsample = True

    def __init__(self, rate: Any, validate_args: Optional[bool] = None) -> None:
        (self.rate,) = broadcast_all(rate)
        batch_shape = () if isinstance(rate, numbers.Number) else self.rate.shape
        super().__init__(batch_shape, validate_args=validate_args)

    def expand(self, batch_shape: Sequence[int], _instance: Any = None) -> "Exponential":
        """An Exponential with ``rate`` expanded to ``batch_shape``."""
        return self._expand_tensors(Exponential, batch_shape, _instance, ("rate",))

    @property
    def mean(self) -> Tensor:
        return self.rate.reciprocal()

    @property
    def mode(self) -> Tensor:
        return aakaar.zeros_like(self.rate)

    @property
    def stddev(self) -> Tensor:
        return self.rate.reciprocal()

    @property
    def variance(self) -> Tensor:
        return self.rate.pow(-2)

    def rsample(self, sample_shape: Sequence[int] = ()) -> Tensor:
        """Unit-rate exponential noise divided by ``rate``."""
        shape = tuple(self._extended_shape(sample_shape))
        noise = aakaar.empty(shape, dtype=self.rate.dtype, device=self.rate.device).exponential_()
        return noise / self.rate

    def log_prob(self, value: Tensor) -> Tensor:
        if self._validate_args:
            self._validate_sample(value)
        return self.rate.log() - self.rate * value

    def cdf(self, value: Tensor) -> Tensor:
        if self._validate_args:
            self._validate_sample(value)
        return 1 - aakaar.exp(-self.rate * value)

    def icdf(self, value: Tensor) -> Tensor:
        return -aakaar.log1p(-value) / self.rate

    def entropy(self) -> Tensor:
        return 1.0 - aakaar.log(self.rate)


class Laplace(Distribution):
    """The Laplace distribution with density ``exp(-|x - loc| / scale) / (2 scale)`` (torch.distributions.Laplace)."""

    arg_constraints = {"loc": constraints.real, "scale": constraints.positive}
    support = constraints.real
    has_rsample = True

    def __init__(self, loc: Any, scale: Any, validate_args: Optional[bool] = None) -> None:
        self.loc, self.scale = broadcast_all(loc, scale)
        batch_shape = () if isinstance(loc, numbers.Number) and isinstance(scale, numbers.Number) else self.loc.shape
        super().__init__(batch_shape, validate_args=validate_args)

    def expand(self, batch_shape: Sequence[int], _instance: Any = None) -> "Laplace":
        """A Laplace with ``loc`` and ``scale`` expanded to ``batch_shape``."""
        return self._expand_tensors(Laplace, batch_shape, _instance, ("loc", "scale"))

    @property
    def mean(self) -> Tensor:
        return self.loc

    @property
    def mode(self) -> Tensor:
        return self.loc

    @property
    def variance(self) -> Tensor:
        return 2 * self.scale.pow(2)

    @property
    def stddev(self) -> Tensor:
        return (2 ** 0.5) * self.scale

    def rsample(self, sample_shape: Sequence[int] = ()) -> Tensor:
        """``loc - scale * sign(u) * log1p(-|u|)`` with ``u`` uniform in (-1, 1), as torch."""
        eps = aakaar.finfo(self.loc.dtype).eps
        u = standard_uniform(self._extended_shape(sample_shape), self.loc, eps - 1, 1)
        return self.loc - self.scale * u.sign() * aakaar.log1p(-u.abs())

    def log_prob(self, value: Tensor) -> Tensor:
        if self._validate_args:
            self._validate_sample(value)
        return -aakaar.log(2 * self.scale) - aakaar.abs(value - self.loc) / self.scale

    def cdf(self, value: Tensor) -> Tensor:
        if self._validate_args:
            self._validate_sample(value)
        return 0.5 - 0.5 * (value - self.loc).sign() * aakaar.expm1(-(value - self.loc).abs() / self.scale)

    def icdf(self, value: Tensor) -> Tensor:
        term = value - 0.5
        return self.loc - self.scale * term.sign() * aakaar.log1p(-2 * term.abs())

    def entropy(self) -> Tensor:
        return 1 + aakaar.log(2 * self.scale)
