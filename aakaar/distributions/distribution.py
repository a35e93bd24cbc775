"""``Distribution``: the base class, with torch's shapes, validation and messages."""
from __future__ import annotations

import math
import warnings
from typing import Any, Optional, Sequence

import aakaar

from . import constraints
from .utils import extended_shape, lazy_property

Tensor = aakaar.Tensor


class Distribution:
    """A batch of probability distributions (torch.distributions.Distribution).

    ``batch_shape`` counts independent distributions, ``event_shape`` the shape of one
    draw. ``validate_args`` (default on, as torch under ``__debug__``) checks the
    parameters against ``arg_constraints`` here and values against ``support`` in
    ``log_prob``, raising ValueError with torch's messages.
    """

    has_rsample = False
    has_enumerate_support = False
    _validate_args = __debug__
    arg_constraints: dict[str, constraints.Constraint] = {}
    support: Optional[constraints.Constraint] = None

    @staticmethod
    def set_default_validate_args(value: bool) -> None:
        """Turns validation on or off for distributions made without ``validate_args``."""
        if value not in (True, False):
            raise ValueError
        Distribution._validate_args = value

    def __init__(self, batch_shape: Sequence[int] = (), event_shape: Sequence[int] = (),
                 validate_args: Optional[bool] = None) -> None:
        self._batch_shape = aakaar.Size(tuple(batch_shape))
        self._event_shape = aakaar.Size(tuple(event_shape))
        if validate_args is not None:
            self._validate_args = validate_args
        if self._validate_args:
            self._check_parameters()

    def _check_parameters(self) -> None:
        """Raises ValueError naming the first parameter outside its constraint."""
        for param, constraint in self.arg_constraints.items():
            if constraints.is_dependent(constraint):
                continue
            if param not in self.__dict__ and isinstance(getattr(type(self), param, None), lazy_property):
                continue  # the parameter not given (logits when built from probs) is not checked
            value = getattr(self, param)
            if not bool(aakaar.all(constraint.check(value))):
                raise ValueError(
                    f"Expected parameter {param} "
                    f"({type(value).__name__} of shape {tuple(value.shape)}) "
                    f"of distribution {self!r} "
                    f"to satisfy the constraint {constraint!r}, "
                    f"but found invalid values:\n{value}")

    @property
    def batch_shape(self) -> aakaar.Size:
        """The shape over which parameters are batched."""
        return self._batch_shape

    @property
    def event_shape(self) -> aakaar.Size:
        """The shape of a single sample (without batching)."""
        return self._event_shape

    def expand(self, batch_shape: Sequence[int], _instance: Any = None) -> "Distribution":
        """A new distribution with parameters expanded to ``batch_shape``."""
        raise NotImplementedError

    def _get_checked_instance(self, cls: type, _instance: Any) -> Any:
        """An uninitialised instance of ``cls`` for ``expand`` (subclasses must override expand)."""
        if _instance is None and type(self).__init__ != cls.__init__:
            raise NotImplementedError(
                f"Subclass {self.__class__.__name__} of {cls.__name__} that defines a custom __init__ method "
                "must also define a custom .expand() method.")
        return self.__new__(type(self)) if _instance is None else _instance

    def _expand_tensors(self, cls: type, batch_shape: Sequence[int], _instance: Any,
                        names: Sequence[str]) -> Any:
        """A copy of this distribution whose tensors ``names`` are expanded to ``batch_shape``."""
        new = self._get_checked_instance(cls, _instance)
        for name in names:
            setattr(new, name, getattr(self, name).expand(*batch_shape))
        Distribution.__init__(new, batch_shape, self._event_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    @property
    def mean(self) -> Tensor:
        """The mean of each distribution."""
        raise NotImplementedError

    @property
    def mode(self) -> Tensor:
        """The mode of each distribution."""
        raise NotImplementedError(f"{self.__class__} does not implement mode")

    @property
    def variance(self) -> Tensor:
        """The variance of each distribution."""
        raise NotImplementedError

    @property
    def stddev(self) -> Tensor:
        """The standard deviation: the square root of ``variance``."""
        return self.variance.sqrt()

    def sample(self, sample_shape: Sequence[int] = ()) -> Tensor:
        """Draws of shape ``sample_shape + batch_shape + event_shape``, cut from the graph."""
        with aakaar.no_grad():
            return self.rsample(sample_shape)

    def rsample(self, sample_shape: Sequence[int] = ()) -> Tensor:
        """Reparameterised draws, differentiable with respect to the parameters."""
        raise NotImplementedError

    def log_prob(self, value: Tensor) -> Tensor:
        """The log of the density (or mass) at ``value``."""
        raise NotImplementedError

    def cdf(self, value: Tensor) -> Tensor:
        """The cumulative distribution function at ``value``."""
        raise NotImplementedError

    def icdf(self, value: Tensor) -> Tensor:
        """The inverse cumulative distribution function at ``value``."""
        raise NotImplementedError

    def entropy(self) -> Tensor:
        """The entropy of each distribution, of shape ``batch_shape``."""
        raise NotImplementedError

    def perplexity(self) -> Tensor:
        """``exp(entropy)``."""
        return aakaar.exp(self.entropy())

    def _extended_shape(self, sample_shape: Sequence[int] = ()) -> aakaar.Size:
        """``sample_shape + batch_shape + event_shape``."""
        if not isinstance(sample_shape, (tuple, list, aakaar.Size)):
            raise TypeError(f"sample_shape must be a tuple of ints, got {type(sample_shape).__name__}")
        return extended_shape(self._batch_shape, self._event_shape, sample_shape)

    def _validate_sample(self, value: Any) -> None:
        """Raises ValueError, with torch's messages, for a value of wrong shape or outside the support."""
        if not isinstance(value, Tensor):
            raise ValueError("The value argument to log_prob must be a Tensor")
        event_dim_start = len(value.shape) - len(self._event_shape)
        if tuple(value.shape[event_dim_start:]) != tuple(self._event_shape):
            raise ValueError(f"The right-most size of value must match event_shape: "
                             f"{value.shape} vs {self._event_shape}.")
        actual_shape = value.shape
        expected_shape = aakaar.Size(tuple(self._batch_shape) + tuple(self._event_shape))
        for i, j in zip(reversed(tuple(actual_shape)), reversed(tuple(expected_shape))):
            if i != 1 and j != 1 and i != j:
                raise ValueError(f"Value is not broadcastable with batch_shape+event_shape: "
                                 f"{actual_shape} vs {expected_shape}.")
        support = self.support
        if support is None:
            warnings.warn(f"{self.__class__} does not define `support` to enable sample validation. "
                          "Please initialize the distribution with `validate_args=False` to turn off "
                          "validation.", stacklevel=2)
            return
        if not bool(aakaar.all(support.check(value))):
            raise ValueError(
                "Expected value argument "
                f"({type(value).__name__} of shape {tuple(value.shape)}) "
                f"to be within the support ({support!r}) "
                f"of the distribution {self!r}, "
                f"but found invalid values:\n{value}")

    def __repr__(self) -> str:
        param_names = [k for k in self.arg_constraints if k in self.__dict__]
        args_string = ", ".join(
            f"{p}: {self.__dict__[p] if self.__dict__[p].numel() == 1 else self.__dict__[p].shape}"
            for p in param_names)
        return self.__class__.__name__ + "(" + args_string + ")"


LOG_SQRT_2PI = math.log(math.sqrt(2 * math.pi))


def standard_normal(shape: Sequence[int], like: Tensor) -> Tensor:
    """Standard-normal noise of ``shape`` with the dtype and device of ``like`` (no grad)."""
    return aakaar.randn(tuple(shape), dtype=like.dtype, device=like.device)


def standard_uniform(shape: Sequence[int], like: Tensor, low: float = 0.0, high: float = 1.0) -> Tensor:
    """Uniform noise in ``[low, high)`` of ``shape`` with the dtype and device of ``like`` (no grad)."""
    return aakaar.empty(tuple(shape), dtype=like.dtype, device=like.device).uniform_(low, high)
