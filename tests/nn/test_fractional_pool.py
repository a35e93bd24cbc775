"""F.fractional_max_pool2d/3d and nn.FractionalMaxPool2d/3d against torch: with torch's random samples
the windows, values and indices are exactly torch's (float32 window arithmetic included), gradients
agree and pass gradcheck, and bad arguments raise torch's exception classes."""

from __future__ import annotations

import numpy as np
import pytest

import aakaar as ak
import aakaar.nn as nn
import aakaar.nn.functional as F

from tests.nn.nn_helpers import assert_close, to_ak

torch = pytest.importorskip("torch")
TF = torch.nn.functional

CASES = [  # n, input shape, kernel, output_size, output_ratio
    (2, (2, 3, 11, 13), (3, 2), (5, 6), None),
    (2, (3, 10, 10), 2, None, (0.5, 0.5)),
    (2, (1, 2, 30, 17), (2, 3), (29, 15), None),  # as many outputs as fit: windows overlap
    (2, (2, 1, 9, 9), 3, 1, None),
    (3, (2, 3, 7, 9, 8), (2, 3, 2), None, (0.5, 0.5, 0.6)),
    (3, (2, 6, 5, 7), 2, (3, 3, 2), None),
    (3, (1, 2, 6, 5, 7), (3, 2, 1), (3, 3, 6), None),
]


@pytest.mark.parametrize("dtype,rtol", [(torch.float64, 1e-12), (torch.float32, 1e-6)])
@pytest.mark.parametrize("n,shape,k,size,ratio", CASES)
def test_matches_torch_with_its_samples(n, shape, k, size, ratio, dtype, rtol):
    t_fn = TF.fractional_max_pool2d if n == 2 else TF.fractional_max_pool3d
    a_fn = F.fractional_max_pool2d if n == 2 else F.fractional_max_pool3d
    for seed in range(4):
        g = torch.Generator().manual_seed(seed)
        x = torch.randn(shape, dtype=dtype, generator=g, requires_grad=True)
        batch = shape[0] if len(shape) == n + 2 else 1
        s = torch.rand(batch, shape[-n - 1], n, dtype=dtype, generator=g)
        v, i = t_fn(x, k, size, ratio, return_indices=True, _random_samples=s)
        ax = to_ak(x).requires_grad_()
        av, ai = a_fn(ax, k, size, ratio, return_indices=True, _random_samples=to_ak(s))
        assert_close(av, v, 0, 0, "values")
        assert_close(ai, i, 0, 0, "indices")
        go = torch.randn(v.shape, dtype=dtype, generator=g)
        v.backward(go)
        av.backward(to_ak(go))
        assert_close(ax.grad, x.grad, rtol, rtol, "grad")
        assert_close(a_fn(ax, k, size, ratio, _random_samples=to_ak(s)), v, 0, 0, "values alone")


def test_many_samples_give_torch_windows_in_float32():
    # float32 window starts int((i + u) * alpha) - int(u * alpha) round like torch's kernel
    g = torch.Generator().manual_seed(11)
    x = torch.arange(97 * 89, dtype=torch.float32).reshape(1, 1, 97, 89).expand(1, 64, 97, 89).contiguous()
    s = torch.rand(1, 64, 2, generator=g)
    _, i = TF.fractional_max_pool2d(x, 2, (37, 61), return_indices=True, _random_samples=s)
    _, ai = F.fractional_max_pool2d(to_ak(x), 2, (37, 61), return_indices=True, _random_samples=to_ak(s))
    assert_close(ai, i, 0, 0)


@pytest.mark.parametrize("n", [2, 3])
def test_ties_and_nans_pick_torch_index(n):
    # Ties: the first maximum in the window; NaN: the last NaN (torch's `val > max || isnan(val)`).
    t_fn = TF.fractional_max_pool2d if n == 2 else TF.fractional_max_pool3d
    a_fn = F.fractional_max_pool2d if n == 2 else F.fractional_max_pool3d
    for trial in range(6):
        g = torch.Generator().manual_seed(trial)
        x = torch.randint(0, 3, (2, 2) + (6,) * n, generator=g).double()
        x[torch.rand(x.shape, generator=g) < 0.1 * (trial % 3)] = float("nan")
        s = torch.rand(2, 2, n, generator=g, dtype=torch.float64)
        v, i = t_fn(x, 2, 3, return_indices=True, _random_samples=s)
        av, ai = a_fn(to_ak(x), 2, 3, return_indices=True, _random_samples=to_ak(s))
        assert_close(ai, i, 0, 0, "indices")
        np.testing.assert_array_equal(av.numpy(), v.numpy())


def test_empty_batch():
    x = torch.zeros(0, 2, 6, 6)
    assert tuple(F.fractional_max_pool2d(to_ak(x), 2, 3).shape) == tuple(TF.fractional_max_pool2d(x, 2, 3).shape)


def test_gradcheck():
    rng = np.random.default_rng(0)
    x = ak.tensor(rng.permutation(2 * 2 * 7 * 7).reshape(2, 2, 7, 7) / 10.0).requires_grad_()  # distinct values
    s = ak.tensor(rng.random((2, 2, 2)))
    assert ak.autograd.gradcheck(lambda t: F.fractional_max_pool2d(t, 2, 3, _random_samples=s), (x,), atol=1e-8)
    x3 = ak.tensor(rng.permutation(5 * 6 * 5).reshape(1, 5, 6, 5) / 10.0).requires_grad_()
    s3 = ak.tensor(rng.random((1, 1, 3)))
    assert ak.autograd.gradcheck(lambda t: F.fractional_max_pool3d(t, 2, (3, 4, 2), _random_samples=s3), (x3,),
                                 atol=1e-8)


def test_modules_match_torch_and_draw_samples():
    g = torch.Generator().manual_seed(3)
    x = torch.randn(2, 3, 9, 8, generator=g)
    s = torch.rand(2, 3, 2, generator=g)
    t = torch.nn.FractionalMaxPool2d(3, output_ratio=(0.5, 0.6), return_indices=True, _random_samples=s)
    a = nn.FractionalMaxPool2d(3, output_ratio=(0.5, 0.6), return_indices=True, _random_samples=to_ak(s))
    (v, i), (av, ai) = t(x), a(to_ak(x))
    assert_close(av, v, 0, 0)
    assert_close(ai, i, 0, 0)
    x3 = torch.randn(2, 3, 6, 7, 8, generator=g)
    s3 = torch.rand(2, 3, 3, generator=g)
    t3 = torch.nn.FractionalMaxPool3d(2, output_size=(3, 4, 5), _random_samples=s3)
    a3 = nn.FractionalMaxPool3d(2, output_size=(3, 4, 5), _random_samples=to_ak(s3))
    assert_close(a3(to_ak(x3)), t3(x3), 0, 0)
    # Without samples each call draws its own: the values are still maxima of 2x2 windows of the input
    out = nn.FractionalMaxPool2d(2, output_size=4)(ak.ones(1, 2, 9, 9))
    assert tuple(out.shape) == (1, 2, 4, 4) and float(out.sum()) == 32.0


def test_bad_arguments_raise_like_torch():
    x = torch.randn(1, 2, 8, 8)
    for lib, fn, mod in ((torch, TF.fractional_max_pool2d, torch.nn.FractionalMaxPool2d),
                         (ak, F.fractional_max_pool2d, nn.FractionalMaxPool2d)):
        xx = x if lib is torch else to_ak(x)
        with pytest.raises(ValueError, match="output_size or an output_ratio"):
            fn(xx, 2)
        with pytest.raises(RuntimeError, match="too large relative to input"):
            fn(xx, 3, output_size=7)
        with pytest.raises(RuntimeError, match="3D or 4D"):
            fn(xx[0, 0], 2, output_size=3, _random_samples=lib.rand(1, 1, 2))
        with pytest.raises(ValueError, match="only one of"):
            mod(2, output_size=3, output_ratio=0.5)
        with pytest.raises(ValueError, match="between 0 and 1"):
            mod(2, output_ratio=1.5)
        with pytest.raises(ValueError, match="either an output size, or a pooling ratio"):
            mod(2)
    for lib, fn, xx in ((torch, TF.fractional_max_pool3d, torch.randn(1, 1, 5, 5, 5)),
                        (ak, F.fractional_max_pool3d, ak.randn(1, 1, 5, 5, 5))):
        with pytest.raises(RuntimeError, match="too large relative to input"):
            fn(xx, 2, output_size=4)  # the 3-d check is strict
    assert tuple(F.fractional_max_pool2d(ak.randn(3, 8, 8), 2, output_ratio=0.5).shape) == (3, 4, 4)
    with pytest.raises(RuntimeError, match="_random_samples"):
        F.fractional_max_pool2d(to_ak(x), 2, 3, _random_samples=ak.rand(1, 3, 2))
    with pytest.raises(TypeError, match="input"):
        F.fractional_max_pool2d(np.zeros((1, 1, 4, 4)), 2, 2)
