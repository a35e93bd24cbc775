"""``kl_divergence(p, q)`` and ``register_kl``: closed-form KL(p || q) chosen by the pair of types."""
from __future__ import annotations

import math
from typing import Callable

import aakaar

from .bernoulli import Bernoulli
from .categorical import Categorical, OneHotCategorical
from .distribution import Distribution
from .exponential import Exponential, Laplace
from .independent import Independent
from .multivariate_normal import MultivariateNormal, batch_mahalanobis, half_log_det
from .normal import LogNormal, Normal
from .uniform import Uniform
from .utils import sum_rightmost

Tensor = aakaar.Tensor
KLFunction = Callable[[Distribution, Distribution], Tensor]

_KL_REGISTRY: dict[tuple[type, type], KLFunction] = {}
_KL_MEMOIZE: dict[tuple[type, type], KLFunction] = {}


def register_kl(type_p: type, type_q: type) -> Callable[[KLFunction], KLFunction]:
    """Decorator registering ``fn(p, q)`` as KL(p || q) for p of ``type_p`` and q of ``type_q``."""
    if not isinstance(type_p, type) or not issubclass(type_p, Distribution):
        raise TypeError(f"Expected type_p to be a Distribution subclass but got {type_p}")
    if not isinstance(type_q, type) or not issubclass(type_q, Distribution):
        raise TypeError(f"Expected type_q to be a Distribution subclass but got {type_q}")

    def decorator(fun: KLFunction) -> KLFunction:
        _KL_REGISTRY[type_p, type_q] = fun
        _KL_MEMOIZE.clear()
        return fun

    return decorator


def _dispatch_kl(type_p: type, type_q: type) -> KLFunction | None:
    """The registered function for the most specific pair of base classes (by MRO position)."""
    matches = [(super_p, super_q) for super_p, super_q in _KL_REGISTRY
               if issubclass(type_p, super_p) and issubclass(type_q, super_q)]
    if not matches:
        return None
    best = min(matches, key=lambda pair: (type_p.__mro__.index(pair[0]), type_q.__mro__.index(pair[1])))
    return _KL_REGISTRY[best]


def kl_divergence(p: Distribution, q: Distribution) -> Tensor:
    """KL(p || q) of shape ``batch_shape``; NotImplementedError for an unregistered pair."""
    key = (type(p), type(q))
    fun = _KL_MEMOIZE.get(key)
    if fun is None:
        fun = _dispatch_kl(type(p), type(q))
        if fun is None:
            raise NotImplementedError(f"No KL(p || q) is implemented for p type {p.__class__.__name__} "
                                      f"and q type {q.__class__.__name__}")
        _KL_MEMOIZE[key] = fun
    return fun(p, q)


def _infinite_where(condition: Tensor, value: Tensor, fill: float) -> Tensor:
    """``value`` with ``fill`` where ``condition`` holds (torch writes these in place)."""
    return aakaar.where(condition, aakaar.full_like(value, fill), value)


@register_kl(Normal, Normal)
def _kl_normal_normal(p: Normal, q: Normal) -> Tensor:
    var_ratio = (p.scale / q.scale).pow(2)
    t1 = ((p.loc - q.loc) / q.scale).pow(2)
    return 0.5 * (var_ratio + t1 - 1 - var_ratio.log())


@register_kl(LogNormal, LogNormal)
def _kl_lognormal_lognormal(p: LogNormal, q: LogNormal) -> Tensor:
    return _kl_normal_normal(p.base_dist, q.base_dist)


@register_kl(Bernoulli, Bernoulli)
def _kl_bernoulli_bernoulli(p: Bernoulli, q: Bernoulli) -> Tensor:
    softplus = aakaar.nn.functional.softplus
    t1 = p.probs * (softplus(-q.logits) - softplus(-p.logits))
    t1 = _infinite_where(q.probs == 0, t1, math.inf)
    t1 = _infinite_where(p.probs == 0, t1, 0.0)
    t2 = (1 - p.probs) * (softplus(q.logits) - softplus(p.logits))
    t2 = _infinite_where(q.probs == 1, t2, math.inf)
    t2 = _infinite_where(p.probs == 1, t2, 0.0)
    return t1 + t2


@register_kl(Categorical, Categorical)
def _kl_categorical_categorical(p: Categorical, q: Categorical) -> Tensor:
    t = p.probs * (p.logits - q.logits)
    t = _infinite_where((q.probs == 0).expand_as(t), t, math.inf)
    t = _infinite_where((p.probs == 0).expand_as(t), t, 0.0)
    return t.sum(-1)


@register_kl(OneHotCategorical, OneHotCategorical)
def _kl_onehotcategorical_onehotcategorical(p: OneHotCategorical, q: OneHotCategorical) -> Tensor:
    return _kl_categorical_categorical(p._categorical, q._categorical)


@register_kl(Uniform, Uniform)
def _kl_uniform_uniform(p: Uniform, q: Uniform) -> Tensor:
    result = ((q.high - q.low) / (p.high - p.low)).log()
    return _infinite_where((q.low > p.low) | (q.high < p.high), result, math.inf)


@register_kl(Exponential, Exponential)
def _kl_exponential_exponential(p: Exponential, q: Exponential) -> Tensor:
    rate_ratio = q.rate / p.rate
    return rate_ratio - 1 - rate_ratio.log()


@register_kl(Laplace, Laplace)
def _kl_laplace_laplace(p: Laplace, q: Laplace) -> Tensor:
    scale_ratio = p.scale / q.scale
    loc_abs_diff = (p.loc - q.loc).abs()
    t1 = -scale_ratio.log()
    t2 = loc_abs_diff / q.scale
    t3 = scale_ratio * aakaar.exp(-loc_abs_diff / p.scale)
    return t1 + t2 + t3 - 1


@register_kl(Independent, Independent)
def _kl_independent_independent(p: Independent, q: Independent) -> Tensor:
    if p.reinterpreted_batch_ndims != q.reinterpreted_batch_ndims:
        raise NotImplementedError
    result = kl_divergence(p.base_dist, q.base_dist)
    return sum_rightmost(result, p.reinterpreted_batch_ndims)


@register_kl(MultivariateNormal, MultivariateNormal)
def _kl_multivariatenormal_multivariatenormal(p: MultivariateNormal, q: MultivariateNormal) -> Tensor:
    if tuple(p.event_shape) != tuple(q.event_shape):
        raise ValueError("KL-divergence between two Multivariate Normals with different event shapes cannot be "
                         "computed")
    p_lower, q_lower = p._unbroadcasted_scale_tril, q._unbroadcasted_scale_tril
    half_term1 = half_log_det(q_lower) - half_log_det(p_lower)
    n = p.event_shape[0]
    batch = aakaar.broadcast_shapes(tuple(q_lower.shape[:-2]), tuple(p_lower.shape[:-2]))
    solved = aakaar.linalg.solve_triangular(q_lower.expand(*batch, n, n), p_lower.expand(*batch, n, n),
                                            upper=False)
    term2 = solved.pow(2).sum((-2, -1))
    term3 = batch_mahalanobis(q_lower, q.loc - p.loc)
    return half_term1 + 0.5 * (term2 + term3 - n)
