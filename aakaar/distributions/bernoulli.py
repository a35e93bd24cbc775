"""``Bernoulli``: 1 with probability ``probs``, else 0; given by ``probs`` or ``logits``."""
from __future__ import annotations

import numbers
from typing import Any, Optional, Sequence

import aakaar

from . import constraints
from .distribution import Distribution
from .utils import broadcast_all, lazy_property, logits_to_probs, probs_to_logits

Tensor = aakaar.Tensor


def _one_parameter(probs: Any, logits: Any) -> None:
    """Raises torch's ValueError unless exactly one of ``probs`` and ``logits`` is given."""
    if (probs is None) == (logits is None):
        raise ValueError("Either `probs` or `logits` must be specified, but not both.")


class Bernoulli(Distribution):
    """The Bernoulli distribution (torch.distributions.Bernoulli)."""

    arg_constraints = {"probs": constraints.unit_interval, "logits": constraints.real}
    support = constraints.boolean
    has_enumerate_support = True

    def __init__(self, probs: Any = None, logits: Any = None, validate_args: Optional[bool] = None) -> None:
        _one_parameter(probs, logits)
        given = probs if probs is not None else logits
        (param,) = broadcast_all(given)
        if probs is not None:
            self.probs = param
        else:
            self.logits = param
        self._param = param
        batch_shape = () if isinstance(given, numbers.Number) else param.shape
        super().__init__(batch_shape, validate_args=validate_args)

    def expand(self, batch_shape: Sequence[int], _instance: Any = None) -> "Bernoulli":
        """A Bernoulli with its given parameter expanded to ``batch_shape``."""
        new = self._get_checked_instance(Bernoulli, _instance)
        if "probs" in self.__dict__:
            new.probs = self.probs.expand(*batch_shape)
            new._param = new.probs
        if "logits" in self.__dict__:
            new.logits = self.logits.expand(*batch_shape)
            new._param = new.logits
        Distribution.__init__(new, batch_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    @lazy_property
    def logits(self) -> Tensor:
        """Log-odds ``log(p) - log(1 - p)`` (p clamped away from 0 and 1)."""
        return probs_to_logits(self.probs, is_binary=True)

    @lazy_property
    def probs(self) -> Tensor:
        """``sigmoid(logits)``."""
        return logits_to_probs(self.logits, is_binary=True)

    @property
    def param_shape(self) -> aakaar.Size:
        return self._param.shape

    @property
    def mean(self) -> Tensor:
        return self.probs

    @property
    def mode(self) -> Tensor:
        mode = (self.probs >= 0.5).to(self.probs.dtype)
        return aakaar.where(self.probs == 0.5, aakaar.full_like(mode, float("nan")), mode)

    @property
    def variance(self) -> Tensor:
        return self.probs * (1 - self.probs)

    def sample(self, sample_shape: Sequence[int] = ()) -> Tensor:
        shape = self._extended_shape(sample_shape)
        with aakaar.no_grad():
            return aakaar.bernoulli(self.probs.expand(*shape))

    def log_prob(self, value: Tensor) -> Tensor:
        """``-binary_cross_entropy_with_logits(logits, value)``: stable for large |logits|."""
        if self._validate_args:
            self._validate_sample(value)
        logits, value = broadcast_all(self.logits, value)
        return -aakaar.nn.functional.binary_cross_entropy_with_logits(logits, value, reduction="none")

    def entropy(self) -> Tensor:
        return aakaar.nn.functional.binary_cross_entropy_with_logits(self.logits, self.probs, reduction="none")

    def enumerate_support(self, expand: bool = True) -> Tensor:
        """The values 0 and 1, shaped ``(2,) + (1,) * len(batch_shape)`` (expanded if asked)."""
        values = aakaar.arange(2, dtype=self._param.dtype, device=self._param.device)
        values = values.reshape((-1,) + (1,) * len(self._batch_shape))
        if expand:
            values = values.expand(-1, *self._batch_shape)
        return values
