"""torch.special's Bessel and Airy functions, i0e/i1e, erfcx, zeta and the orthogonal polynomials
(core/special_math.h) on "cuda" against the CPU, on contiguous and strided operands, edge values
included, with the gradients torch defines."""
from __future__ import annotations

import math

import numpy as np
import pytest
from cuda_suite_helpers import FLOATS, check, pair

import aakaar

EDGES = np.array([0.0, -0.0, math.inf, -math.inf, math.nan, 1e-6, 0.5, -0.5, 2.0, -2.09, 2.09, 5.0, -5.0, 8.0,
                  -8.0, 26.0, -26.0, 30.0, 60.0, -27.0])
UNARY = ["airy_ai", "bessel_j0", "bessel_j1", "bessel_y0", "bessel_y1", "modified_bessel_i0", "modified_bessel_i1",
         "modified_bessel_k0", "modified_bessel_k1", "scaled_modified_bessel_k0", "scaled_modified_bessel_k1",
         "spherical_bessel_j0", "i0e", "i1e", "erfcx"]
BINARY = ["zeta", "chebyshev_polynomial_t", "chebyshev_polynomial_u", "chebyshev_polynomial_v",
          "chebyshev_polynomial_w", "shifted_chebyshev_polynomial_t", "shifted_chebyshev_polynomial_u",
          "shifted_chebyshev_polynomial_v", "shifted_chebyshev_polynomial_w", "hermite_polynomial_h",
          "hermite_polynomial_he", "laguerre_polynomial_l", "legendre_polynomial_p"]


def _np(dtype):
    return np.float32 if dtype == aakaar.float32 else np.float64


@pytest.mark.parametrize("dtype", FLOATS, ids=str)
@pytest.mark.parametrize("name", UNARY)
def test_special_unary(rng, name, dtype):
    f = getattr(aakaar.special, name)
    vals = np.concatenate([EDGES, rng.uniform(-30, 30, 140)]).astype(_np(dtype))
    cpu, dev = pair(vals)
    tol = 1e-6 if dtype == aakaar.float32 else 1e-13  # the same double formulas; libm to a few ulps
    check(f(dev), f(cpu), rtol=tol, atol=tol)
    check(f(dev[:160].reshape(16, 10).T), f(cpu[:160].reshape(16, 10).T), rtol=tol, atol=tol)


@pytest.mark.parametrize("name", ["i0e", "i1e", "erfcx"])
def test_special_unary_gradients(rng, name):
    f = getattr(aakaar.special, name)
    cpu, dev = pair(rng.uniform(-4, 4, 37))
    cpu.requires_grad_(True)
    dev.requires_grad_(True)
    f(cpu).sum().backward()
    f(dev).sum().backward()
    check(dev.grad, cpu.grad, rtol=1e-12, atol=1e-13)


@pytest.mark.parametrize("dtype", FLOATS, ids=str)
@pytest.mark.parametrize("name", BINARY)
def test_special_binary(rng, name, dtype):
    f = getattr(aakaar.special, name)
    x_cpu, x_dev = pair(np.concatenate([[0.0, 1.0, -1.0, 0.5, math.nan], rng.uniform(-1.2, 1.2, 31)])
                        .astype(_np(dtype))[:, None])
    n_cpu, n_dev = pair(np.array([-1.0, 0, 1, 2, 3, 5, 7, 9, 12, 2.5], dtype=_np(dtype)))
    if name == "zeta":
        x_cpu, x_dev = pair(np.abs(x_cpu.numpy()) * 4 + 1)
    tol = 1e-5 if dtype == aakaar.float32 else 1e-12
    check(f(x_dev, n_dev), f(x_cpu, n_cpu), rtol=tol, atol=tol)
    check(f(x_dev, 4), f(x_cpu, 4), rtol=tol, atol=tol)
