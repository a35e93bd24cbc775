"""torch.special's Bessel and Airy functions, i0e/i1e, erfcx, zeta and the orthogonal polynomials
against torch: values over random inputs and edge points (+-0, +-inf, NaN, the branch points of
the approximations) in float32 and float64, integer inputs, the tensor-or-number degree n,
gradients where torch defines them (against torch and gradcheck in float64), results that do not
require grad where torch has none, and torch's exception classes.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

import aakaar
from aakaar.autograd import gradcheck

torch = pytest.importorskip("torch")

DT = {aakaar.float32: torch.float32, aakaar.float64: torch.float64}
NP = {aakaar.float32: np.float32, aakaar.float64: np.float64}
# float64: the same approximations as torch, so agreement to rounding; float32: aakaar evaluates
# them in double and rounds once, torch in float, so the two differ by float32 rounding.
TOL = {aakaar.float64: (1e-10, 1e-13), aakaar.float32: (3e-5, 3e-6)}
EDGES = [0.0, -0.0, math.inf, -math.inf, math.nan, 1e-6, -1e-6, 1e-5, 0.5, -0.5, 1.0, -1.0, 2.0, -2.0, 2.09,
         -2.09, 5.0, -5.0, 8.0, -8.0, 8.32, 26.0, -26.0, 26.7, -26.7, 30.0, 50.0, 103.9]


def compare(got, want, dtype, what):
    """Same shape, NaN where torch has NaN, the same infinities, finite values within TOL."""
    got, want = np.asarray(got.numpy(), dtype=np.float64), want.double().numpy()
    assert got.shape == want.shape, what
    rtol, atol = TOL[dtype]
    np.testing.assert_allclose(got, want, rtol=rtol, atol=atol, equal_nan=True, err_msg=what)


# name -> range of the random inputs
UNARY = {
    "airy_ai": (-30, 30), "bessel_j0": (-40, 40), "bessel_j1": (-40, 40), "bessel_y0": (-5, 40),
    "bessel_y1": (-5, 40), "modified_bessel_i0": (-60, 60), "modified_bessel_i1": (-60, 60),
    "modified_bessel_k0": (-1, 60), "modified_bessel_k1": (-1, 60), "scaled_modified_bessel_k0": (-1, 60),
    "scaled_modified_bessel_k1": (-1, 60), "spherical_bessel_j0": (-40, 40), "i0e": (-60, 60), "i1e": (-60, 60),
    "erfcx": (-27, 60),
}
DIFFERENTIABLE = {"i0e", "i1e", "erfcx"}


def inputs(name, dtype, seed=0):
    lo, hi = UNARY[name]
    rng = np.random.default_rng(seed)
    vals = np.concatenate([np.array(EDGES), rng.uniform(lo, hi, 200), rng.uniform(-3, 3, 60),
                           np.geomspace(1e-3, 1e3, 40), -np.geomspace(1e-3, 1e3, 40)])
    if dtype == aakaar.float32:  # torch's float32 kernels lose digits in x - pi/4 for large x
        vals = vals[np.abs(np.nan_to_num(vals, posinf=0, neginf=0)) <= 60]
    return vals.astype(NP[dtype])


@pytest.mark.parametrize("dtype", [aakaar.float32, aakaar.float64], ids=str)
@pytest.mark.parametrize("name", list(UNARY))
def test_unary_values_match_torch(name, dtype):
    x = inputs(name, dtype)
    got = getattr(aakaar.special, name)(aakaar.tensor(x))
    want = getattr(torch.special, name)(torch.tensor(x))
    assert got.dtype == dtype
    compare(got, want, dtype, name)


@pytest.mark.parametrize("name", list(UNARY))
def test_unary_integers_give_float32_and_strided_inputs_work(name):
    got = getattr(aakaar.special, name)(aakaar.tensor([0, 1, 2, 3, -1, 7]))
    want = getattr(torch.special, name)(torch.tensor([0, 1, 2, 3, -1, 7]))
    assert got.dtype == aakaar.float32
    compare(got, want, aakaar.float32, name)
    x = inputs(name, aakaar.float64)[:120].reshape(12, 10)
    compare(getattr(aakaar.special, name)(aakaar.tensor(x).T), getattr(torch.special, name)(torch.tensor(x).T),
            aakaar.float64, name + " (transposed)")


@pytest.mark.parametrize("name", list(UNARY))
def test_unary_gradients_as_torch(name):
    x = np.array([-3.5, -1.2, -0.3, 0.0, 0.4, 1.7, 6.0, 9.5], dtype=np.float64)
    if name in ("bessel_y0", "bessel_y1") or "k0" in name or "k1" in name:
        x = np.abs(x) + 0.25
    a = aakaar.tensor(x, requires_grad=True)
    t = torch.tensor(x, requires_grad=True)
    ya, yt = getattr(aakaar.special, name)(a), getattr(torch.special, name)(t)
    assert ya.requires_grad == yt.requires_grad
    if name not in DIFFERENTIABLE:
        assert not ya.requires_grad  # torch: not differentiable
        return
    g = np.linspace(0.5, 1.5, x.size)
    ya.backward(aakaar.tensor(g))
    yt.backward(torch.tensor(g))
    np.testing.assert_allclose(a.grad.numpy(), t.grad.numpy(), rtol=1e-10, atol=1e-13)
    pts = aakaar.tensor(x[x != 0] if name == "i0e" else x, requires_grad=True)  # i0e has a kink at 0
    assert gradcheck(getattr(aakaar.special, name), (pts,))


def test_i1e_gradient_at_zero_is_one_half_as_torch():
    a = aakaar.tensor([0.0, 1e-20], dtype=aakaar.float64, requires_grad=True)
    aakaar.special.i1e(a).sum().backward()
    np.testing.assert_allclose(a.grad.numpy(), [0.5, 0.5])


@pytest.mark.parametrize("name", list(UNARY))
def test_reduced_float_dtypes_as_torch(name):
    for a_dt, t_dt in ((aakaar.float16, torch.float16), (aakaar.bfloat16, torch.bfloat16)):
        x = [0.25, 1.5, 3.0]
        try:
            want = getattr(torch.special, name)(torch.tensor(x, dtype=t_dt))
        except NotImplementedError:
            with pytest.raises(NotImplementedError):
                getattr(aakaar.special, name)(aakaar.tensor(x, dtype=a_dt))
            continue
        got = getattr(aakaar.special, name)(aakaar.tensor(x, dtype=a_dt))
        assert got.dtype == a_dt
        np.testing.assert_allclose(got.float().numpy(), want.float().numpy(), rtol=2e-2)  # an ulp of bfloat16


def test_unary_refuses_a_number():
    with pytest.raises(TypeError):
        aakaar.special.bessel_j0(1.0)
    with pytest.raises(TypeError):
        torch.special.bessel_j0(1.0)


POLYNOMIALS = ["chebyshev_polynomial_t", "chebyshev_polynomial_u", "chebyshev_polynomial_v", "chebyshev_polynomial_w",
               "shifted_chebyshev_polynomial_t", "shifted_chebyshev_polynomial_u", "shifted_chebyshev_polynomial_v",
               "shifted_chebyshev_polynomial_w", "hermite_polynomial_h", "hermite_polynomial_he",
               "laguerre_polynomial_l", "legendre_polynomial_p"]
X_POINTS = [0.0, -0.0, 1.0, -1.0, 0.5, -0.5, 0.25, 0.75, 0.999, -0.3, 1.5, -1.7, 2.5, 3.0, math.nan, math.inf,
            -math.inf, 1e-3]
N_POINTS = [-3.0, -1.0, 0.0, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0, 10.0, 12.0, 20.0, 2.7, math.nan]


@pytest.mark.parametrize("dtype", [aakaar.float32, aakaar.float64], ids=str)
@pytest.mark.parametrize("name", POLYNOMIALS)
def test_polynomials_match_torch(name, dtype):
    x = np.array(X_POINTS + list(np.random.default_rng(1).uniform(-1.2, 1.2, 30)), dtype=NP[dtype])[:, None]
    n = np.array(N_POINTS, dtype=NP[dtype])[None, :]
    got = getattr(aakaar.special, name)(aakaar.tensor(x), aakaar.tensor(n))
    want = getattr(torch.special, name)(torch.tensor(x), torch.tensor(n))
    assert got.dtype == dtype and tuple(got.shape) == tuple(want.shape)
    compare(got, want, dtype, name)


@pytest.mark.parametrize("name", POLYNOMIALS)
def test_polynomials_take_a_number_for_either_argument(name):
    x = np.linspace(-1.1, 1.1, 23)
    fa, ft = getattr(aakaar.special, name), getattr(torch.special, name)
    for args_a, args_t in (
        ((aakaar.tensor(x), 5), (torch.tensor(x), 5)),
        ((aakaar.tensor(x, dtype=aakaar.float32), 3), (torch.tensor(x, dtype=torch.float32), 3)),
        ((0.3, aakaar.tensor([0, 1, 2, 6, 11])), (0.3, torch.tensor([0, 1, 2, 6, 11]))),
        ((aakaar.tensor([1, 2, 3]), aakaar.tensor([2, 3, 4])), (torch.tensor([1, 2, 3]), torch.tensor([2, 3, 4]))),
        ((aakaar.tensor(x, dtype=aakaar.float32), aakaar.tensor([4])), (torch.tensor(x, dtype=torch.float32),
                                                                       torch.tensor([4]))),
    ):
        got, want = fa(*args_a), ft(*args_t)
        assert str(got.dtype).split(".")[-1] == str(want.dtype).split(".")[-1]
        compare(got, want, aakaar.float32 if got.dtype == aakaar.float32 else aakaar.float64, name)


def test_polynomials_refuse_two_numbers_and_reduced_floats_and_have_no_gradient():
    for f in (aakaar.special.chebyshev_polynomial_t, aakaar.special.zeta):
        with pytest.raises(TypeError):
            f(0.5, 3)
    with pytest.raises(NotImplementedError):
        aakaar.special.legendre_polynomial_p(aakaar.tensor([0.5], dtype=aakaar.float16), 2)
    with pytest.raises(NotImplementedError):
        aakaar.special.zeta(aakaar.tensor([2.0], dtype=aakaar.bfloat16), 1.0)
    x = aakaar.tensor([0.3, 0.6], dtype=aakaar.float64, requires_grad=True)
    assert not aakaar.special.hermite_polynomial_h(x, 3).requires_grad


def test_hermite_limit_gives_nan_as_torch():
    for a_dt, t_dt in ((aakaar.float32, torch.float32), (aakaar.float64, torch.float64)):
        n = [127, 128, 129, 511, 512, 513]
        got = aakaar.special.hermite_polynomial_he(aakaar.tensor([0.1] * 6, dtype=a_dt), aakaar.tensor(n, dtype=a_dt))
        want = torch.special.hermite_polynomial_he(torch.tensor([0.1] * 6, dtype=t_dt), torch.tensor(n, dtype=t_dt))
        np.testing.assert_array_equal(np.isnan(got.numpy()), np.isnan(want.numpy()))


@pytest.mark.parametrize("dtype", [aakaar.float32, aakaar.float64], ids=str)
def test_zeta_matches_torch(dtype):
    xs = np.array([1.0, 0.5, 1.5, 2.0, 3.0, 4.5, 10.0, 30.0, math.inf, math.nan], dtype=NP[dtype])[:, None]
    qs = np.array([1.0, 2.0, 0.5, 10.0, 100.0, 0.0, -1.0, -1.5, 1e-3, math.inf, math.nan], dtype=NP[dtype])[None, :]
    got = aakaar.special.zeta(aakaar.tensor(xs), aakaar.tensor(qs))
    want = torch.special.zeta(torch.tensor(xs), torch.tensor(qs))
    compare(got, want, dtype, "zeta")
    compare(aakaar.special.zeta(2.0, aakaar.tensor(qs)), torch.special.zeta(2.0, torch.tensor(qs)), dtype, "zeta(2, q)")
    compare(aakaar.special.zeta(aakaar.tensor(xs), 3), torch.special.zeta(torch.tensor(xs), 3), dtype, "zeta(x, 3)")
    assert aakaar.special.zeta(aakaar.tensor([2, 3]), aakaar.tensor([1, 2])).dtype == aakaar.float32


def test_zeta_gradient_in_q_only_as_torch():
    x = np.array([2.0, 3.0, 4.5])
    q = np.array([1.0, 2.5, 0.7])
    qa, qt = aakaar.tensor(q, requires_grad=True), torch.tensor(q, requires_grad=True)
    aakaar.special.zeta(aakaar.tensor(x), qa).sum().backward()
    torch.special.zeta(torch.tensor(x), qt).sum().backward()
    np.testing.assert_allclose(qa.grad.numpy(), qt.grad.numpy(), rtol=1e-10)
    assert gradcheck(lambda q_: aakaar.special.zeta(aakaar.tensor(x), q_), (aakaar.tensor(q, requires_grad=True),))
    xa = aakaar.tensor(x, requires_grad=True)
    y = aakaar.special.zeta(xa, aakaar.tensor(q))
    with pytest.raises(NotImplementedError, match="zeta"):
        y.sum().backward()
    with pytest.raises(NotImplementedError):
        torch.special.zeta(torch.tensor(x, requires_grad=True), torch.tensor(q)).sum().backward()


def test_top_level_and_methods_as_torch():
    # torch has none of these at the top level or as Tensor methods (torch.i0 is the old i0)
    for name in [*UNARY, *POLYNOMIALS, "zeta"]:
        assert hasattr(aakaar.special, name) and hasattr(torch.special, name)
        assert hasattr(torch, name) == hasattr(aakaar, name), name
        assert hasattr(torch.Tensor, name) == hasattr(aakaar.Tensor, name), name
