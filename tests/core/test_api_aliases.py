"""torch's everyday names that aakaar composes (aakaar/everyday_ops.py, aakaar/tensor_api.py)
against torch: the aliases, the elementwise composites, differences and integrals, statistics,
construction and indexing helpers, the in-place view ops, the random fills, ``data`` and the
small Tensor queries; gradients by finite differences in float64 and against torch's; bad
input with torch's exception classes.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

import aakaar
from aakaar.autograd import gradcheck

torch = pytest.importorskip("torch")
# torch's own warnings about its reference implementation, expected here
pytestmark = [pytest.mark.filterwarnings(r"ignore:index_reduce\(\) is in beta:UserWarning")]


def rnd(*shape, seed=0, lo=-2.0, hi=2.0):
    return np.random.default_rng(seed).uniform(lo, hi, shape)


def same(got, want, rtol=1e-10, atol=1e-12):
    """Equal shapes, dtypes (by name) and values (NaN where torch has NaN)."""
    if isinstance(want, (tuple, list)):
        assert len(got) == len(want)
        for g, w in zip(got, want):
            same(g, w, rtol, atol)
        return
    if not isinstance(want, torch.Tensor):
        assert got == want, (got, want)
        return
    assert isinstance(got, aakaar.Tensor), type(got)
    assert tuple(got.shape) == tuple(want.shape), (tuple(got.shape), tuple(want.shape))
    assert got.dtype.name == str(want.dtype).replace("torch.", ""), (got.dtype, want.dtype)
    g = got.numpy().astype(np.float64) if got.dtype != aakaar.bool else got.numpy()
    w = want.detach().numpy().astype(np.float64) if want.dtype != torch.bool else want.numpy()
    if w.dtype == np.bool_:
        np.testing.assert_array_equal(g, w)
    else:
        np.testing.assert_allclose(g, w, rtol=rtol, atol=atol, equal_nan=True)


def both(x, dtype=None):
    return aakaar.tensor(x, dtype=dtype), torch.tensor(x, dtype=None if dtype is None else getattr(torch, dtype.name))


ALIASES = [
    ("absolute", ()), ("negative", ()), ("multiply", (1.5,)), ("subtract", (0.25,)), ("greater", (0.1,)),
    ("greater_equal", (0.1,)), ("less", (0.1,)), ("less_equal", (0.1,)), ("not_equal", (0.5,)),
    ("clamp_min", (0.2,)), ("clamp_max", (0.2,)), ("positive", ()), ("deg2rad", ()), ("rad2deg", ()),
    ("signbit", ()), ("sinc", ()), ("logit", ()), ("float_power", (2.0,)), ("diagflat", ()), ("isreal", ()),
]


@pytest.mark.parametrize("name,args", ALIASES, ids=[a[0] for a in ALIASES])
def test_function_and_method_match_torch(name, args):
    x = rnd(3, 4)
    if name == "logit":
        x = rnd(3, 4, lo=0.05, hi=0.95)
    a, t = both(x)
    same(getattr(aakaar, name)(a, *args), getattr(torch, name)(t, *args))
    same(getattr(a, name)(*args), getattr(t, name)(*args))


@pytest.mark.parametrize("name", ["absolute_", "negative_", "multiply_", "subtract_", "greater_", "less_equal_",
                                  "clamp_min_", "clamp_max_", "deg2rad_", "rad2deg_", "sinc_", "logit_", "true_divide_",
                                  "clip_", "xlogy_", "ldexp_", "heaviside_"])
def test_inplace_forms(name):
    x = rnd(2, 5, lo=0.1, hi=0.9)
    a, t = both(x)
    arg = {"multiply_": (2.0,), "subtract_": (0.5,), "greater_": (0.5,), "less_equal_": (0.5,),
           "clamp_min_": (0.3,), "clamp_max_": (0.3,), "true_divide_": (4.0,), "clip_": (0.2, 0.6),
           "xlogy_": (2.0,), "heaviside_": None}.get(name, ())
    if name == "ldexp_":
        ea, et = both(np.array([1, 2, -1, 0, 3]))
        arg_a, arg_t = (ea,), (et,)
    elif name == "heaviside_":
        arg_a, arg_t = both(np.full((2, 5), 0.5))
        arg_a, arg_t = (arg_a,), (arg_t,)
    else:
        arg_a = arg_t = arg
    out = getattr(a, name)(*arg_a)
    assert out is a
    getattr(t, name)(*arg_t)
    same(a, t)


def test_addcmul_addcdiv_values_grads_and_inplace():
    x, y, z = rnd(3, 4, seed=1), rnd(3, 4, seed=2), rnd(4, seed=3, lo=0.5, hi=2)
    for fn in ("addcmul", "addcdiv"):
        ax, tx = both(x)
        ay, ty = both(y)
        az, tz = both(z)
        same(getattr(aakaar, fn)(ax, ay, az, value=0.5), getattr(torch, fn)(tx, ty, tz, value=0.5))
        same(getattr(ax, fn + "_")(ay, az, value=-2), getattr(tx, fn + "_")(ty, tz, value=-2))
        leaves = [aakaar.tensor(v, requires_grad=True) for v in (x, y, z)]
        assert gradcheck(lambda a, b, c: getattr(aakaar, fn)(a, b, c, value=0.7), leaves)
    with pytest.raises(RuntimeError):
        aakaar.addcdiv(aakaar.tensor([1]), aakaar.tensor([1]), aakaar.tensor([2]))
    with pytest.raises(RuntimeError):
        torch.addcdiv(torch.tensor([1]), torch.tensor([1]), torch.tensor([2]))


def test_concat_concatenate_and_predicates():
    a, t = both(rnd(2, 3))
    same(aakaar.concat([a, a], dim=1), torch.concat([t, t], dim=1))
    same(aakaar.concatenate([a, a], axis=0), torch.concatenate([t, t], axis=0))
    assert aakaar.is_floating_point(a) and not aakaar.is_floating_point(aakaar.tensor([1]))
    assert aakaar.is_complex(a) is False and a.is_complex() is False
    assert aakaar.is_nonzero(aakaar.tensor([1.5])) is True and aakaar.is_nonzero(aakaar.tensor(0)) is False
    for bad in ([1.0, 2.0], []):
        with pytest.raises(RuntimeError):
            aakaar.is_nonzero(aakaar.tensor(bad))
        with pytest.raises(RuntimeError):
            torch.is_nonzero(torch.tensor(bad))
    assert a.is_same_size(a + 1) and not a.is_same_size(a.t())
    with pytest.raises(RuntimeError):
        aakaar.positive(aakaar.tensor([True]))
    with pytest.raises(RuntimeError):
        torch.positive(torch.tensor([True]))


def test_signbit_of_zeros_and_integers():
    a, t = both([0.0, -0.0, 1.0, -1.0, math.inf, -math.inf])
    same(aakaar.signbit(a), torch.signbit(t))
    a, t = both([0, -3, 4])
    same(aakaar.signbit(a), torch.signbit(t))


@pytest.mark.parametrize("name", ["xlogy", "logaddexp2", "heaviside", "ldexp", "float_power", "nextafter"])
def test_binary_composites(name):
    x = np.concatenate([rnd(10, seed=4), [0.0, 0.0, 1.0, -1.0, math.inf]])
    y = np.concatenate([rnd(10, seed=5, lo=0.1, hi=3), [0.0, math.nan, -math.inf, 2.0, math.inf]])
    if name == "ldexp":
        y = np.arange(-7, 8)
    ax, tx = both(x)
    ay, ty = both(y)
    same(getattr(aakaar, name)(ax, ay), getattr(torch, name)(tx, ty))


def test_xlogy_scalars_and_gradient():
    same(aakaar.xlogy(aakaar.tensor([0.0, 2.0]), 3.0), torch.xlogy(torch.tensor([0.0, 2.0]), 3.0))
    same(aakaar.xlogy(2.0, aakaar.tensor([0.5, 3.0])), torch.xlogy(2.0, torch.tensor([0.5, 3.0])))
    x = aakaar.tensor([0.0, 1.5, -2.0], dtype=aakaar.float64, requires_grad=True)
    y = aakaar.tensor([0.7, 2.0, 3.0], dtype=aakaar.float64, requires_grad=True)
    # finite differences away from x = 0, where torch defines the x-gradient as 0
    assert gradcheck(aakaar.xlogy, [aakaar.tensor([0.3, 1.5, -2.0], dtype=aakaar.float64, requires_grad=True), y])
    aakaar.xlogy(x, y).sum().backward()
    tx = torch.tensor([0.0, 1.5, -2.0], dtype=torch.float64, requires_grad=True)
    ty = torch.tensor([0.7, 2.0, 3.0], dtype=torch.float64, requires_grad=True)
    torch.xlogy(tx, ty).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), tx.grad.numpy(), rtol=1e-12)
    np.testing.assert_allclose(y.grad.numpy(), ty.grad.numpy(), rtol=1e-12)


def test_sinc_logit_gradients_including_zero():
    x = aakaar.tensor([0.0, 0.3, -1.7, 2.5], dtype=aakaar.float64, requires_grad=True)
    aakaar.sinc(x).sum().backward()
    tx = torch.tensor([0.0, 0.3, -1.7, 2.5], dtype=torch.float64, requires_grad=True)
    torch.sinc(tx).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), tx.grad.numpy(), rtol=1e-10, atol=1e-14)
    p = aakaar.tensor(rnd(6, lo=0.05, hi=0.95), requires_grad=True)
    assert gradcheck(lambda t: aakaar.logit(t, eps=0.1), [p])
    same(aakaar.logit(aakaar.tensor([0.0, 0.5, 1.0]), eps=1e-3), torch.logit(torch.tensor([0.0, 0.5, 1.0]), eps=1e-3),
         rtol=1e-6)


def test_frexp_gcd_lcm():
    a, t = both(np.array([0.0, 1.0, -3.5, 1e-300, 1e300, 0.75]))
    m, e = aakaar.frexp(a)
    tm, te = torch.frexp(t)
    same(m, tm)
    same(e, te)
    assert aakaar.frexp(a).mantissa is not None and a.frexp().exponent.dtype == aakaar.int32
    x, y = np.array([0, 12, -18, 7, 0, 100]), np.array([0, 8, 24, -3, 5, -75])
    (ax, tx), (ay, ty) = both(x), both(y)
    same(aakaar.gcd(ax, ay), torch.gcd(tx, ty))
    same(aakaar.lcm(ax, ay), torch.lcm(tx, ty))
    same(ax.gcd(ay), tx.gcd(ty))
    with pytest.raises(RuntimeError):
        aakaar.gcd(aakaar.tensor([1.0]), aakaar.tensor([2.0]))
    with pytest.raises(RuntimeError):
        torch.gcd(torch.tensor([1.0]), torch.tensor([2.0]))
    with pytest.raises(RuntimeError):
        aakaar.frexp(aakaar.tensor([1]))


@pytest.mark.parametrize("n,dim", [(1, -1), (2, 0), (3, 1), (0, 1)])
def test_diff(n, dim):
    x = rnd(4, 5, seed=n)
    a, t = both(x)
    pa, pt = both(rnd(4, 5, seed=9)[:, :1] if dim in (1, -1) else rnd(1, 5, seed=9))
    same(aakaar.diff(a, n, dim), torch.diff(t, n, dim))
    same(aakaar.diff(a, n, dim, prepend=pa, append=pa), torch.diff(t, n, dim, prepend=pt, append=pt))
    same(a.diff(n, dim), t.diff(n, dim))
    b, tb = both(np.array([True, False, False, True]))
    same(aakaar.diff(b), torch.diff(tb))
    assert gradcheck(lambda v: aakaar.diff(v, 2, 1), [aakaar.tensor(x, requires_grad=True)])


def test_trapezoid_family():
    y = rnd(3, 6, seed=2)
    xs = np.sort(rnd(6, seed=3))
    (ay, ty), (ax, tx) = both(y), both(xs)
    same(aakaar.trapezoid(ay), torch.trapezoid(ty))
    same(aakaar.trapezoid(ay, dx=0.5, dim=0), torch.trapezoid(ty, dx=0.5, dim=0))
    same(aakaar.trapezoid(ay, ax), torch.trapezoid(ty, tx))
    same(aakaar.trapz(ay, ax), torch.trapz(ty, tx))
    same(aakaar.cumulative_trapezoid(ay), torch.cumulative_trapezoid(ty))
    same(aakaar.cumulative_trapezoid(ay, ax), torch.cumulative_trapezoid(ty, tx))
    same(aakaar.cumulative_trapezoid(ay, dx=2.0, dim=0), torch.cumulative_trapezoid(ty, dx=2.0, dim=0))
    assert gradcheck(lambda v: aakaar.trapezoid(v, ax), [aakaar.tensor(y, requires_grad=True)])


@pytest.mark.parametrize("p", [1, 2, 3.5, math.inf, 0])
def test_dist_and_renorm(p):
    x, y = rnd(3, 4, seed=1), rnd(3, 4, seed=2)
    (ax, tx), (ay, ty) = both(x), both(y)
    same(aakaar.dist(ax, ay, p), torch.dist(tx, ty, p))
    same(ax.dist(ay, p), tx.dist(ty, p))
    if p:
        same(aakaar.renorm(ax, p, 0, 1.0), torch.renorm(tx, p, 0, 1.0), rtol=1e-9)
        same(ax.renorm(p, 1, 0.8), tx.renorm(p, 1, 0.8), rtol=1e-9)


def test_cov_corrcoef():
    x = rnd(3, 7, seed=5)
    a, t = both(x)
    same(aakaar.cov(a), torch.cov(t))
    same(aakaar.cov(a, correction=0), torch.cov(t, correction=0))
    fw, tfw = both(np.array([1, 2, 1, 3, 1, 1, 2]))
    aw, taw = both(rnd(7, seed=6, lo=0.1, hi=1))
    same(aakaar.cov(a, fweights=fw, aweights=aw), torch.cov(t, fweights=tfw, aweights=taw))
    same(aakaar.corrcoef(a), torch.corrcoef(t))
    v, tv = both(rnd(7, seed=7))
    same(aakaar.cov(v), torch.cov(tv))
    assert gradcheck(lambda z: aakaar.corrcoef(z), [aakaar.tensor(x, requires_grad=True)])


@pytest.mark.parametrize("interpolation", ["linear", "lower", "higher", "midpoint", "nearest"])
def test_quantile_nanquantile(interpolation):
    x = rnd(4, 9, seed=8)
    a, t = both(x)
    q = [0.0, 0.1, 0.5, 0.77, 1.0]
    aq, tq = both(q, aakaar.float64)
    same(aakaar.quantile(a, 0.3, interpolation=interpolation), torch.quantile(t, 0.3, interpolation=interpolation))
    same(aakaar.quantile(a, aq, dim=1, keepdim=True, interpolation=interpolation),
         torch.quantile(t, tq, dim=1, keepdim=True, interpolation=interpolation))
    x[1, 3] = x[2, :] = math.nan
    a, t = both(x)
    same(a.quantile(aq, dim=1, interpolation=interpolation), t.quantile(tq, dim=1, interpolation=interpolation))
    same(aakaar.nanquantile(a, aq, dim=1, interpolation=interpolation),
         torch.nanquantile(t, tq, dim=1, interpolation=interpolation))
    same(aakaar.nanquantile(a, 0.5), torch.nanquantile(t, 0.5))


def test_quantile_bad_input():
    for q in (1.5, -0.1):
        with pytest.raises(RuntimeError):
            aakaar.quantile(aakaar.tensor([1.0, 2.0]), q)
        with pytest.raises(RuntimeError):
            torch.quantile(torch.tensor([1.0, 2.0]), q)
    with pytest.raises(RuntimeError):
        aakaar.quantile(aakaar.tensor([1, 2]), 0.5)


def test_logspace_vander_unravel_combinations():
    same(aakaar.logspace(-2, 3, 6), torch.logspace(-2, 3, 6), rtol=1e-6)
    same(aakaar.logspace(0, 4, 5, base=2, dtype=aakaar.float64), torch.logspace(0, 4, 5, base=2, dtype=torch.float64))
    v, tv = both(np.array([1.0, 2.0, -3.0, 0.5]))
    same(aakaar.vander(v), torch.vander(tv))
    same(aakaar.vander(v, 3, increasing=True), torch.vander(tv, 3, increasing=True))
    iv, itv = both(np.array([2, 3, 5]))
    same(aakaar.vander(iv), torch.vander(itv))
    idx, tidx = both(np.array([0, 5, 11, 7]))
    same(aakaar.unravel_index(idx, (3, 4)), torch.unravel_index(tidx, (3, 4)))
    idx, tidx = both(np.array([12, -1, 25]))  # torch wraps out-of-range indices
    same(aakaar.unravel_index(idx, (3, 4)), torch.unravel_index(tidx, (3, 4)))
    with pytest.raises(TypeError):
        aakaar.unravel_index(aakaar.tensor([1.0]), (3, 4))
    c, tc = both(np.array([1.0, 2.0, 3.0, 4.0]))
    for r in (1, 2, 3):
        same(aakaar.combinations(c, r), torch.combinations(tc, r))
        same(aakaar.combinations(c, r, with_replacement=True), torch.combinations(tc, r, with_replacement=True))


@pytest.mark.parametrize("reduce", ["prod", "mean", "amax", "amin"])
@pytest.mark.parametrize("include_self", [True, False])
def test_index_reduce(reduce, include_self):
    x, src = rnd(5, 3, seed=1), rnd(4, 3, seed=2)
    idx = np.array([0, 4, 0, 2])
    (ax, tx), (asrc, tsrc), (ai, ti) = both(x), both(src), both(idx)
    same(aakaar.index_reduce(ax, 0, ai, asrc, reduce, include_self=include_self),
         torch.index_reduce(tx, 0, ti, tsrc, reduce, include_self=include_self))
    same(ax.index_reduce_(0, ai, asrc, reduce, include_self=include_self),
         tx.index_reduce_(0, ti, tsrc, reduce, include_self=include_self))


def test_put_and_put_():
    x = rnd(3, 4)
    a, t = both(x)
    i, ti = both(np.array([0, 5, -1, 5]))
    s, ts = both(np.array([10.0, 20.0, 30.0, 40.0]))
    same(a.put(i, s, accumulate=True), t.put(ti, ts, accumulate=True))
    same(a.t().put_(i[:3], s[:3]), t.t().put_(ti[:3], ts[:3]))
    same(a, t)
    with pytest.raises(IndexError):
        a.put_(aakaar.tensor([12]), aakaar.tensor([1.0], dtype=aakaar.float64))


def test_chain_matmul_and_where_method():
    ms = [rnd(2, 3, seed=1), rnd(3, 4, seed=2), rnd(4, 2, seed=3)]
    same(aakaar.chain_matmul(*[aakaar.tensor(m) for m in ms]), torch.linalg.multi_dot([torch.tensor(m) for m in ms]))
    x, y = rnd(3, 3, seed=4), rnd(3, 3, seed=5)
    (ax, tx), (ay, ty) = both(x), both(y)
    same(ax.where(ax > 0, ay), tx.where(tx > 0, ty))


def test_inplace_view_ops():
    for name, args in [("unsqueeze_", (1,)), ("squeeze_", ()), ("t_", ()), ("transpose_", (0, 2)),
                       ("swapaxes_", (1, 2)), ("swapdims_", (0, 1)), ("as_strided_", ((2, 2), (1, 2)))]:
        x = rnd(2, 1, 3) if name != "t_" else rnd(2, 3)
        a, t = both(x)
        assert getattr(a, name)(*args) is a
        getattr(t, name)(*args)
        same(a, t)
        assert a.stride() == t.stride()
    leaf = aakaar.tensor([1.0, 2.0], requires_grad=True)
    with pytest.raises(RuntimeError):
        leaf.unsqueeze_(0)
    with aakaar.no_grad():
        leaf.unsqueeze_(0)
    assert tuple(leaf.shape) == (1, 2)


def test_queries_and_properties():
    a, t = both(rnd(2, 3, 4))
    assert a.nbytes == t.nbytes and a.nelement() == t.nelement() and a.ndimension() == t.ndimension()
    assert a.is_cpu and a.get_device() == t.get_device() == -1
    assert a.is_signed() == t.is_signed() and aakaar.tensor([1], dtype=aakaar.uint8).is_signed() is False
    same(a.mH, t.mH)
    same(a.adjoint(), t.adjoint())
    m, tm = both(rnd(3, 2))
    same(m.H, tm.H)
    with pytest.raises(RuntimeError):
        aakaar.tensor([1.0, 2.0]).mH


def test_data_get_and_set():
    a = aakaar.tensor([1.0, 2.0], requires_grad=True)
    d = a.data
    assert not d.requires_grad
    d.mul_(2)  # shares memory, as torch
    np.testing.assert_array_equal(a.detach().numpy(), [2.0, 4.0])
    a.data = aakaar.tensor([[5.0, 6.0, 7.0]])
    assert tuple(a.shape) == (1, 3) and a.requires_grad
    a.sum().backward()
    np.testing.assert_array_equal(a.grad.numpy(), [[1.0, 1.0, 1.0]])


def test_new_and_new_empty_strided_and_empty_strided():
    a = aakaar.tensor([1.0, 2.0], dtype=aakaar.float64)
    assert tuple(a.new(2, 3).shape) == (2, 3) and a.new(2, 3).dtype == aakaar.float64
    np.testing.assert_array_equal(a.new([1, 2, 3]).numpy(), [1.0, 2.0, 3.0])
    assert a.new().numel() == 0
    e = a.new_empty_strided((2, 3), (1, 2))
    t = torch.tensor([1.0], dtype=torch.float64).new_empty_strided((2, 3), (1, 2))
    assert tuple(e.shape) == tuple(t.shape) and e.stride() == t.stride() and e.dtype == aakaar.float64
    s = aakaar.empty_strided((3, 2), (1, 3))
    assert s.stride() == torch.empty_strided((3, 2), (1, 3)).stride()


def test_fill_diagonal_():
    for shape, wrap in [((3, 3), False), ((5, 3), False), ((7, 3), True), ((3, 5), False), ((3, 3, 3), False)]:
        a, t = aakaar.zeros(*shape), torch.zeros(*shape)
        same(a.fill_diagonal_(2.5, wrap=wrap), t.fill_diagonal_(2.5, wrap=wrap))


def test_cumsum_and_matrix_inplace():
    a, t = both(rnd(3, 4))
    same(a.cumsum_(1), t.cumsum_(1))
    m, tm = both(rnd(3, 3, seed=2))
    m2, tm2 = both(rnd(3, 3, seed=3))
    same(m.addmm_(m2, m2, beta=0.5), tm.addmm_(tm2, tm2, beta=0.5))
    same(a.kron(m), t.kron(tm))


RANDOM_FILLS = {
    "uniform_": ((-1.0, 3.0), 1.0, (4.0 / 3.0) ** 0.5 * 1.0),
    "normal_": ((2.0, 0.5), 2.0, 0.5),
    "exponential_": ((2.0,), 0.5, 0.5),
    "log_normal_": ((0.0, 0.25), math.exp(0.25 ** 2 / 2), None),
    "geometric_": ((0.25,), 4.0, None),
    "bernoulli_": ((0.3,), 0.3, None),
    "cauchy_": ((1.0, 0.1), None, None),
    "random_": ((0, 10), 4.5, None),
}


@pytest.mark.parametrize("name", list(RANDOM_FILLS))
def test_random_fills_moments_and_seeds(name):
    args, mean, std = RANDOM_FILLS[name]
    aakaar.manual_seed(3)
    x = aakaar.empty(20000, dtype=aakaar.float64)
    assert getattr(x, name)(*args) is x
    v = x.numpy()
    if mean is not None:
        assert abs(v.mean() - mean) < 0.05 * max(1.0, abs(mean)), (v.mean(), mean)
    if std is not None:
        assert abs(v.std() - std) < 0.05 * std
    if name == "cauchy_":
        assert abs(np.median(v) - 1.0) < 0.02
    if name == "random_":
        assert set(np.unique(v)) == set(range(10))
    aakaar.manual_seed(3)
    again = getattr(aakaar.empty(20000, dtype=aakaar.float64), name)(*args)
    np.testing.assert_array_equal(again.numpy(), v)
    g = aakaar.Generator().manual_seed(11)
    y1 = getattr(aakaar.empty(50), name)(*args, generator=g)
    g.manual_seed(11)
    y2 = getattr(aakaar.empty(50), name)(*args, generator=g)
    np.testing.assert_array_equal(y1.numpy(), y2.numpy())


def test_random_fill_bad_input():
    leaf = aakaar.zeros(3, requires_grad=True)
    with pytest.raises(RuntimeError):
        leaf.uniform_()
    with pytest.raises(RuntimeError):
        torch.zeros(3, requires_grad=True).uniform_()
    with aakaar.no_grad():
        leaf.normal_()
    with pytest.raises(RuntimeError):
        aakaar.empty(3).uniform_(2, 1)
    with pytest.raises(RuntimeError):
        torch.empty(3).uniform_(2, 1)
    with pytest.raises(RuntimeError):
        aakaar.empty(3).normal_(0, -1)
    with pytest.raises(RuntimeError):
        aakaar.empty(3).geometric_(1.5)
    with pytest.raises(RuntimeError):
        aakaar.empty(3).exponential_(-1)


def test_normal_multinomial_poisson():
    aakaar.manual_seed(0)
    m = aakaar.normal(aakaar.full([4000], 3.0), 2.0)
    assert abs(m.mean().item() - 3) < 0.15 and abs(m.std().item() - 2) < 0.15
    mean = aakaar.tensor([1.0, 2.0], dtype=aakaar.float64, requires_grad=True)
    std = aakaar.tensor([0.5, 2.0], dtype=aakaar.float64, requires_grad=True)
    out = aakaar.normal(mean, std)
    out.sum().backward()
    np.testing.assert_allclose(mean.grad.numpy(), [1.0, 1.0])
    np.testing.assert_allclose(std.grad.numpy(), ((out - mean) / std).detach().numpy())
    s = aakaar.normal(1.0, 0.5, size=(3, 4))
    assert tuple(s.shape) == (3, 4)
    w = aakaar.tensor([0.0, 1.0, 3.0, 6.0])
    draws = aakaar.multinomial(w, 20000, replacement=True)
    freq = np.bincount(draws.numpy(), minlength=4) / 20000
    np.testing.assert_allclose(freq, [0, 0.1, 0.3, 0.6], atol=0.02)
    rows = aakaar.multinomial(w.expand(5, 4), 3)
    assert tuple(rows.shape) == (5, 3)
    for r in rows.numpy():
        assert len(set(r)) == 3 and 0 not in r
    with pytest.raises(RuntimeError):
        aakaar.multinomial(w, 4)  # only 3 non-zero... and torch refuses more than the categories:
    with pytest.raises(RuntimeError):
        aakaar.multinomial(w, 5)
    with pytest.raises(RuntimeError):
        torch.multinomial(torch.tensor([0.0, 1.0, 3.0, 6.0]), 5)
    with pytest.raises(RuntimeError):
        aakaar.multinomial(aakaar.tensor([-1.0, 2.0]), 1)
    aakaar.manual_seed(5)
    p = aakaar.poisson(aakaar.full([20000], 4.0))
    assert abs(p.mean().item() - 4) < 0.1 and abs(p.var().item() - 4) < 0.3
    aakaar.manual_seed(5)
    np.testing.assert_array_equal(aakaar.poisson(aakaar.full([20000], 4.0)).numpy(), p.numpy())


def test_distances_and_small_top_level_names():
    x, y = rnd(4, 5, seed=1), rnd(4, 5, seed=2)
    (ax, tx), (ay, ty) = both(x), both(y)
    same(aakaar.cosine_similarity(ax, ay), torch.cosine_similarity(tx, ty))
    same(aakaar.cosine_similarity(ax, ay, dim=0), torch.cosine_similarity(tx, ty, dim=0))
    same(aakaar.pairwise_distance(ax, ay), torch.pairwise_distance(tx, ty))
    same(aakaar.pairwise_distance(ax, ay, p=1, keepdim=True), torch.pairwise_distance(tx, ty, p=1, keepdim=True))
    same(aakaar.pdist(ax), torch.pdist(tx))
    same(aakaar.pdist(ax, p=3), torch.pdist(tx, p=3))
    same(aakaar.fill(ax, 2.5), torch.fill(tx, 2.5))
    same(aakaar.rsub(ax, 2.0, alpha=3), torch.rsub(tx, 2.0, alpha=3))
    same(aakaar.scalar_tensor(3), torch.scalar_tensor(3))
    same(ax.hardshrink(0.7), tx.hardshrink(0.7))
    assert aakaar.get_default_dtype() == aakaar.float32  # set_default_dtype: tests/core/test_default_dtype.py
    assert aakaar.can_cast(aakaar.float32, aakaar.int64) == torch.can_cast(torch.float32, torch.int64)
    assert aakaar.can_cast(aakaar.int64, aakaar.float32) == torch.can_cast(torch.int64, torch.float32)
    assert aakaar.can_cast(aakaar.int64, aakaar.bool) == torch.can_cast(torch.int64, torch.bool)
    aakaar.manual_seed(7)
    assert aakaar.initial_seed() == 7
    state = aakaar.get_rng_state()
    r1 = aakaar.rand(3)
    aakaar.set_rng_state(state)
    np.testing.assert_array_equal(aakaar.rand(3).numpy(), r1.numpy())
    assert a_is(aakaar.tensor([1.0]).real) and aakaar.tensor([1.0]).is_conj() is False
    with pytest.raises(RuntimeError):
        aakaar.tensor([1.0]).imag


def a_is(t):
    return isinstance(t, aakaar.Tensor)
