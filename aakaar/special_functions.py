"""torch.special's Bessel and Airy functions, erfcx, zeta and the orthogonal polynomials.

Each is one elementwise kernel (csrc/core/special_math.h, shared by the CPU loops and the CUDA
kernels) reached through ``aakaar._C._special_<name>``; ``aakaar.special`` re-exports them. As in
torch, only i0e, i1e, erfcx and zeta (in its second argument) have gradients; the others give
results that do not require grad. The polynomials take the degree ``n`` as a tensor or a number
(and ``x`` may be a number when ``n`` is a tensor); ``n`` is truncated to an integer, and a
negative degree gives 0.
"""

from __future__ import annotations

from typing import Any, Callable

from . import _C
from ._C import Tensor

_UNARY = ("airy_ai", "bessel_j0", "bessel_j1", "bessel_y0", "bessel_y1", "modified_bessel_i0",
          "modified_bessel_i1", "modified_bessel_k0", "modified_bessel_k1", "scaled_modified_bessel_k0",
          "scaled_modified_bessel_k1", "spherical_bessel_j0", "i0e", "i1e", "erfcx")
_POLYNOMIALS = ("chebyshev_polynomial_t", "chebyshev_polynomial_u", "chebyshev_polynomial_v",
                "chebyshev_polynomial_w", "shifted_chebyshev_polynomial_t", "shifted_chebyshev_polynomial_u",
                "shifted_chebyshev_polynomial_v", "shifted_chebyshev_polynomial_w", "hermite_polynomial_h",
                "hermite_polynomial_he", "laguerre_polynomial_l", "legendre_polynomial_p")

__all__ = [*_UNARY, "zeta", *_POLYNOMIALS]

_DOCS = {
    "airy_ai": "The Airy function Ai(x).",
    "bessel_j0": "The Bessel function of the first kind, order 0.",
    "bessel_j1": "The Bessel function of the first kind, order 1.",
    "bessel_y0": "The Bessel function of the second kind, order 0 (-inf at 0, NaN below).",
    "bessel_y1": "The Bessel function of the second kind, order 1 (-inf at 0, NaN below).",
    "modified_bessel_i0": "The modified Bessel function of the first kind, order 0.",
    "modified_bessel_i1": "The modified Bessel function of the first kind, order 1.",
    "modified_bessel_k0": "The modified Bessel function of the second kind, order 0 (inf at 0, NaN below).",
    "modified_bessel_k1": "The modified Bessel function of the second kind, order 1 (inf at 0, NaN below).",
    "scaled_modified_bessel_k0": "exp(x) K0(x), without K0's underflow.",
    "scaled_modified_bessel_k1": "exp(x) K1(x), without K1's underflow.",
    "spherical_bessel_j0": "The spherical Bessel function of the first kind, order 0: sin(x) / x.",
    "i0e": "exp(-|x|) I0(x), the exponentially scaled modified Bessel function of order 0.",
    "i1e": "exp(-|x|) I1(x), the exponentially scaled modified Bessel function of order 1.",
    "erfcx": "exp(x^2) erfc(x), the scaled complementary error function, without overflow.",
    "chebyshev_polynomial_t": "The Chebyshev polynomial of the first kind T_n(x).",
    "chebyshev_polynomial_u": "The Chebyshev polynomial of the second kind U_n(x).",
    "chebyshev_polynomial_v": "The Chebyshev polynomial of the third kind V_n(x).",
    "chebyshev_polynomial_w": "The Chebyshev polynomial of the fourth kind W_n(x).",
    "shifted_chebyshev_polynomial_t": "The shifted Chebyshev polynomial of the first kind T*_n(x) = T_n(2x - 1).",
    "shifted_chebyshev_polynomial_u": "The shifted Chebyshev polynomial of the second kind U*_n(x) = U_n(2x - 1).",
    "shifted_chebyshev_polynomial_v": "The shifted Chebyshev polynomial of the third kind V*_n(x) = V_n(2x - 1).",
    "shifted_chebyshev_polynomial_w": "The shifted Chebyshev polynomial of the fourth kind W*_n(x) = W_n(2x - 1).",
    "hermite_polynomial_h": "The physicists' Hermite polynomial H_n(x).",
    "hermite_polynomial_he": "The probabilists' Hermite polynomial He_n(x).",
    "laguerre_polynomial_l": "The Laguerre polynomial L_n(x).",
    "legendre_polynomial_p": "The Legendre polynomial P_n(x).",
}


def _check_out(out: Any, fn: str) -> None:
    if out is not None:
        raise TypeError(f"{fn}(): out= is not supported by aakaar; assign the result instead")


def _make_unary(name: str) -> Callable[..., Tensor]:
    kernel = getattr(_C, "_special_" + name)

    def fn(input: Tensor, *, out: Any = None) -> Tensor:
        _check_out(out, name)
        if not isinstance(input, Tensor):
            raise TypeError(f"special_{name}(): argument 'input' (position 1) must be Tensor, "
                            f"not {type(input).__name__}")
        return kernel(input)

    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = _DOCS[name]
    return fn


def _make_polynomial(name: str) -> Callable[..., Tensor]:
    kernel = getattr(_C, "_special_" + name)

    def fn(input: Any, n: Any, *, out: Any = None) -> Tensor:
        _check_out(out, name)
        return kernel(input, n)

    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = _DOCS[name] + " ``n`` is a tensor or a number (truncated to an integer; negative gives 0)."
    return fn


def zeta(input: Any, other: Any, *, out: Any = None) -> Tensor:
    """The Hurwitz zeta function zeta(x, q) = sum_k (k + q)^-x (input is x, other is q); its gradient
    exists in ``other`` only (torch raises NotImplementedError for ``input``'s, and so does aakaar)."""
    _check_out(out, "zeta")
    return _C._special_zeta(input, other)


for _name in _UNARY:
    globals()[_name] = _make_unary(_name)
for _name in _POLYNOMIALS:
    globals()[_name] = _make_polynomial(_name)
del _name
