"""``Categorical`` and ``OneHotCategorical``: one of K categories, by ``probs`` or ``logits``."""
from __future__ import annotations

from typing import Any, Optional, Sequence

import aakaar

from . import constraints
from .bernoulli import _one_parameter
from .distribution import Distribution
from .utils import lazy_property, logits_to_probs, probs_to_logits

Tensor = aakaar.Tensor


class _CategoricalSupport(constraints.Constraint):
    """Integers in ``[0, num_events - 1]`` (torch's integer_interval on the dependent support)."""

    is_discrete = True

    def __init__(self, num_events: int) -> None:
        self.upper_bound = num_events - 1

    def check(self, value: Tensor) -> Tensor:
        return (value % 1 == 0) & (0 <= value) & (value <= self.upper_bound)

    def __repr__(self) -> str:
        return f"IntegerInterval(lower_bound=0, upper_bound={self.upper_bound})"


class Categorical(Distribution):
    """A distribution over ``{0, ..., K-1}`` (torch.distributions.Categorical).

    ``probs`` are normalised to sum to 1 over the last dimension and ``logits`` to
    log-probabilities (``logits - logsumexp``), as torch stores them.
    """

    arg_constraints = {"probs": constraints.simplex, "logits": constraints.real_vector}
    has_enumerate_support = True

    def __init__(self, probs: Optional[Tensor] = None, logits: Optional[Tensor] = None,
                 validate_args: Optional[bool] = None) -> None:
        _one_parameter(probs, logits)
        if probs is not None:
            if probs.dim() < 1:
                raise ValueError("`probs` parameter must be at least one-dimensional.")
            self.probs = probs / probs.sum(-1, keepdim=True)
        else:
            if logits.dim() < 1:
                raise ValueError("`logits` parameter must be at least one-dimensional.")
            self.logits = logits - logits.logsumexp(dim=-1, keepdim=True)
        self._param = self.probs if probs is not None else self.logits
        self._num_events = self._param.shape[-1]
        batch_shape = self._param.shape[:-1] if self._param.dim() > 1 else ()
        super().__init__(batch_shape, validate_args=validate_args)

    def expand(self, batch_shape: Sequence[int], _instance: Any = None) -> "Categorical":
        """A Categorical with its given parameter expanded to ``batch_shape``."""
        new = self._get_checked_instance(Categorical, _instance)
        param_shape = tuple(batch_shape) + (self._num_events,)
        if "probs" in self.__dict__:
            new.probs = self.probs.expand(*param_shape)
            new._param = new.probs
        if "logits" in self.__dict__:
            new.logits = self.logits.expand(*param_shape)
            new._param = new.logits
        new._num_events = self._num_events
        Distribution.__init__(new, batch_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    @property
    def support(self) -> constraints.Constraint:  # type: ignore[override]
        return _CategoricalSupport(self._num_events)

    @lazy_property
    def logits(self) -> Tensor:
        """Log-probabilities (probabilities clamped away from 0 first)."""
        return probs_to_logits(self.probs)

    @lazy_property
    def probs(self) -> Tensor:
        """``softmax(logits)`` over the last dimension."""
        return logits_to_probs(self.logits)

    @property
    def param_shape(self) -> aakaar.Size:
        return self._param.shape

    @property
    def mean(self) -> Tensor:
        return aakaar.full(tuple(self._extended_shape()), float("nan"), dtype=self.probs.dtype)

    @property
    def mode(self) -> Tensor:
        return self.probs.argmax(dim=-1)

    @property
    def variance(self) -> Tensor:
        return aakaar.full(tuple(self._extended_shape()), float("nan"), dtype=self.probs.dtype)

    def sample(self, sample_shape: Sequence[int] = ()) -> Tensor:
        """int64 category indices of shape ``sample_shape + batch_shape`` (via ``multinomial``)."""
        if not isinstance(sample_shape, (tuple, list, aakaar.Size)):
            raise TypeError(f"sample_shape must be a tuple of ints, got {type(sample_shape).__name__}")
        sample_shape = aakaar.Size(tuple(sample_shape))
        with aakaar.no_grad():
            probs_2d = self.probs.reshape(-1, self._num_events)
            samples_2d = aakaar.multinomial(probs_2d, sample_shape.numel(), True).T
        return samples_2d.reshape(tuple(self._extended_shape(sample_shape)))

    def log_prob(self, value: Tensor) -> Tensor:
        """``logits`` gathered at the integer ``value`` along the last dimension."""
        if self._validate_args:
            self._validate_sample(value)
        value = value.long().unsqueeze(-1)
        value, log_pmf = aakaar.broadcast_tensors(value, self.logits)
        value = value[..., :1]
        return log_pmf.gather(-1, value).squeeze(-1)

    def entropy(self) -> Tensor:
        """``-sum(p * log p)``; logits of -inf are clamped to the dtype's min so 0 * log 0 = 0."""
        min_real = aakaar.finfo(self.logits.dtype).min
        logits = aakaar.clamp(self.logits, min=min_real)
        p_log_p = logits * self.probs
        return -p_log_p.sum(-1)

    def enumerate_support(self, expand: bool = True) -> Tensor:
        """The indices ``0..K-1`` shaped ``(K,) + (1,) * len(batch_shape)`` (expanded if asked)."""
        values = aakaar.arange(self._num_events, dtype=aakaar.int64, device=self._param.device)
        values = values.reshape((-1,) + (1,) * len(self._batch_shape))
        if expand:
            values = values.expand(-1, *self._batch_shape)
        return values


class OneHotCategorical(Distribution):
    """Categorical draws written as one-hot vectors (torch.distributions.OneHotCategorical)."""

    arg_constraints = {"probs": constraints.simplex, "logits": constraints.real_vector}
    support = constraints.one_hot
    has_enumerate_support = True

    def __init__(self, probs: Optional[Tensor] = None, logits: Optional[Tensor] = None,
                 validate_args: Optional[bool] = None) -> None:
        self._categorical = Categorical(probs, logits)
        batch_shape = self._categorical.batch_shape
        event_shape = self._categorical.param_shape[-1:]
        super().__init__(batch_shape, event_shape, validate_args=validate_args)

    def expand(self, batch_shape: Sequence[int], _instance: Any = None) -> "OneHotCategorical":
        """A OneHotCategorical with its Categorical expanded to ``batch_shape``."""
        new = self._get_checked_instance(OneHotCategorical, _instance)
        new._categorical = self._categorical.expand(batch_shape)
        Distribution.__init__(new, batch_shape, self.event_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    @property
    def _param(self) -> Tensor:
        return self._categorical._param

    @property
    def probs(self) -> Tensor:
        return self._categorical.probs

    @property
    def logits(self) -> Tensor:
        return self._categorical.logits

    @property
    def param_shape(self) -> aakaar.Size:
        return self._categorical.param_shape

    @property
    def mean(self) -> Tensor:
        return self._categorical.probs

    @property
    def mode(self) -> Tensor:
        probs = self._categorical.probs
        mode = probs.argmax(dim=-1)
        return aakaar.nn.functional.one_hot(mode, num_classes=probs.shape[-1]).to(probs.dtype)

    @property
    def variance(self) -> Tensor:
        return self._categorical.probs * (1 - self._categorical.probs)

    def sample(self, sample_shape: Sequence[int] = ()) -> Tensor:
        """One-hot vectors of ``probs``' dtype, shape ``sample_shape + batch_shape + (K,)``."""
        probs = self._categorical.probs
        indices = self._categorical.sample(sample_shape)
        return aakaar.nn.functional.one_hot(indices, num_classes=probs.shape[-1]).to(probs.dtype)

    def log_prob(self, value: Tensor) -> Tensor:
        """The Categorical log-probability of the index of the 1 in each vector."""
        if self._validate_args:
            self._validate_sample(value)
        indices = value.max(-1)[1]
        return self._categorical.log_prob(indices)

    def entropy(self) -> Tensor:
        return self._categorical.entropy()

    def enumerate_support(self, expand: bool = True) -> Tensor:
        """The K one-hot vectors, shaped ``(K,) + (1,) * len(batch_shape) + (K,)``."""
        n = self.event_shape[0]
        values = aakaar.eye(n, dtype=self._param.dtype, device=self._param.device)
        values = values.reshape((n,) + (1,) * len(self.batch_shape) + (n,))
        if expand:
            values = values.expand(n, *self.batch_shape, n)
        return values

