"""``aakaar.special``: the special functions of ``torch.special`` that aakaar has (real dtypes).

erf, erfc, erfinv, lgamma (gammaln), digamma (psi), polygamma, i0 and i1 are kernels of the C++
maths API (csrc/core/elementwise_math.h, PyTorch's algorithms); the Bessel and Airy functions,
erfcx, zeta and the orthogonal polynomials are kernels too (aakaar/special_functions.py); the
rest are composites.
"""

from __future__ import annotations

import math
from typing import Any

from . import _C
from ._C import Tensor
from . import special_functions as _special_functions
from .special_functions import *  # noqa: F401,F403

__all__ = ["erf", "erfc", "erfinv", "gammaln", "digamma", "psi", "polygamma", "multigammaln", "i0", "i1",
           "expit", "logit", "xlogy", "xlog1py", "sinc", "exp2", "expm1", "log1p", "logsumexp", "softmax",
           "log_softmax", "round", "entr", "ndtr", "log_ndtr", "ndtri", "gammainc", "gammaincc",
           *_special_functions.__all__]


def erf(input: Tensor) -> Tensor:
    """The error function."""
    return input.erf()


def erfc(input: Tensor) -> Tensor:
    """1 - erf(x), without cancellation."""
    return input.erfc()


def erfinv(input: Tensor) -> Tensor:
    """The inverse error function."""
    return input.erfinv()


def gammaln(input: Tensor) -> Tensor:
    """log |gamma(x)| (torch.lgamma)."""
    return input.lgamma()


def digamma(input: Tensor) -> Tensor:
    """The logarithmic derivative of gamma."""
    return input.digamma()


psi = digamma


def polygamma(n: int, input: Tensor) -> Tensor:
    """The n-th derivative of digamma."""
    return input.polygamma(n)


def multigammaln(input: Tensor, p: int) -> Tensor:
    """The multivariate log-gamma function of dimension p (torch.mvlgamma)."""
    return mvlgamma(input, p)


def mvlgamma(input: Tensor, p: int) -> Tensor:
    """sum_{j<p} lgamma(x - j/2) + p(p-1)/4 log(pi) (defined for x > (p - 1) / 2; like torch, smaller
    x are not refused and give the same formula's value)."""
    if p < 1:
        raise RuntimeError(f"p has to be greater than or equal to 1, got {p}")
    x = input if input.dtype.is_floating_point else input.to(_C._get_default_dtype())
    out = (x - 0.0).lgamma()
    for j in range(1, p):
        out = out + (x - j / 2).lgamma()
    return out + p * (p - 1) / 4 * math.log(math.pi)


def i0(input: Tensor) -> Tensor:
    """The modified Bessel function of the first kind, order 0."""
    return input.i0()


def i1(input: Tensor) -> Tensor:
    """The modified Bessel function of the first kind, order 1."""
    return input._special_i1()


def expit(input: Tensor) -> Tensor:
    """The logistic sigmoid."""
    return input.sigmoid()


def logit(input: Tensor, eps: Any = None) -> Tensor:
    """log(p / (1 - p))."""
    from .everyday_ops import logit as _logit
    return _logit(input, eps)


def xlogy(input: Any, other: Any) -> Tensor:
    """input * log(other), 0 where input is 0."""
    from .everyday_ops import xlogy as _xlogy
    return _xlogy(input, other)


def xlog1py(input: Any, other: Any) -> Tensor:
    """input * log1p(other), 0 where input is 0 (unless other is NaN)."""
    return _xlog1py(input, other)


def _xlog1py(input: Any, other: Any) -> Tensor:
    from .everyday_ops import _as_tensor, _float_of
    x = input if isinstance(input, Tensor) else _as_tensor(input, other)
    y = other if isinstance(other, Tensor) else _as_tensor(other, x)
    x, y = _float_of(x), _float_of(y)
    safe = _C.where((x == 0) & ~y.isnan(), y * 0, y)
    out = x * safe.log1p()
    return _C.where((x == 0) & ~y.isnan(), out * 0, out)


def sinc(input: Tensor) -> Tensor:
    """sin(pi x) / (pi x), 1 at 0."""
    from .everyday_ops import sinc as _sinc
    return _sinc(input)


def exp2(input: Tensor) -> Tensor:
    """2 ** x."""
    return input.exp2()


def expm1(input: Tensor) -> Tensor:
    """exp(x) - 1, accurate near 0."""
    return input.expm1()


def log1p(input: Tensor) -> Tensor:
    """log(1 + x), accurate near 0."""
    return input.log1p()


def logsumexp(input: Tensor, dim: Any, keepdim: bool = False) -> Tensor:
    """log(sum(exp(x))) along dim, computed stably."""
    return input.logsumexp(dim, keepdim)


def softmax(input: Tensor, dim: int, *, dtype: Any = None) -> Tensor:
    """softmax along dim (in dtype when given)."""
    return (input.to(dtype) if dtype is not None else input).softmax(dim)


def log_softmax(input: Tensor, dim: int, *, dtype: Any = None) -> Tensor:
    """log_softmax along dim (in dtype when given)."""
    return (input.to(dtype) if dtype is not None else input).log_softmax(dim)


def round(input: Tensor, *, decimals: int = 0) -> Tensor:  # noqa: A001
    """Rounds half to even (to decimals places)."""
    return input.round(decimals=decimals) if decimals else input.round()


def entr(input: Tensor) -> Tensor:
    """-x log x for x > 0, 0 at 0, -inf below 0."""
    x = input if input.dtype.is_floating_point else input.to(_C._get_default_dtype())
    pos = x > 0
    val = -x * _C.where(pos, x, x * 0 + 1).log()
    minus_inf = _C.full([], -math.inf, dtype=x.dtype, device=x.device)
    return _C.where(pos | x.isnan(), val, _C.where(x == 0, x * 0, minus_inf))


def ndtr(input: Tensor) -> Tensor:
    """The standard normal CDF, (1 + erf(x / sqrt 2)) / 2 -- torch's formula, so its tails round as
    torch's do (to 0 below about -5.8 in float32)."""
    x = input if input.dtype.is_floating_point else input.to(_C._get_default_dtype())
    return ((x * (1 / math.sqrt(2))).erf() + 1) * 0.5


def log_ndtr(input: Tensor) -> Tensor:
    """log of the standard normal CDF."""
    return ndtr(input).log()


def ndtri(input: Tensor) -> Tensor:
    """The inverse of the standard normal CDF, sqrt(2) erfinv(2p - 1)."""
    x = input if input.dtype.is_floating_point else input.to(_C._get_default_dtype())
    return (x * 2 - 1).erfinv() * math.sqrt(2)


def gammainc(input: Tensor, other: Tensor) -> Tensor:
    """The regularised lower incomplete gamma function P(input, other) (torch.igamma; gradient in
    ``other`` only, as torch)."""
    from .tensor_extras import igamma
    return igamma(input, other)


def gammaincc(input: Tensor, other: Tensor) -> Tensor:
    """The regularised upper incomplete gamma function Q(input, other) = 1 - P (torch.igammac)."""
    from .tensor_extras import igammac
    return igammac(input, other)
