"""F.pad, F.interpolate, F.unfold and F.fold against torch: values and gradients over random
shapes and arguments, gradcheck in float64, and PyTorch's exception classes for bad input."""

from __future__ import annotations

import numpy as np
import pytest

import aakaar as ak
import aakaar.nn.functional as F
from tests.nn.nn_helpers import assert_close, run_against_torch, to_ak

torch = pytest.importorskip("torch")
TF = torch.nn.functional

DTYPES = [(torch.float64, 1e-10, 1e-12), (torch.float32, 1e-5, 1e-6)]
DTYPE_IDS = ["float64", "float32"]


def _check_against_torch(fn_ak, fn_torch, shape, dtype, rtol, atol, seed=0):
    run_against_torch(fn_ak, fn_torch, [shape], dtype, rtol, atol, seed)


PADS = [
    ((2, 3, 5), (1, 2)), ((2, 3, 5), (-1, 3)), ((2, 3, 5), (2, -1)), ((2, 3, 5), (-4, 1)), ((2, 3, 5), (0, -2)), ((3, 5), (4, 4)),
    ((2, 3, 5, 6), (1, 2, 3, 0)), ((2, 3, 5, 6), (-2, 1, 2, -1)), ((3, 5, 6), (2, 2, 1, 1)),
    ((1, 2, 3, 4, 5), (1, 1, 2, 0, 0, 2)), ((2, 3, 4, 5), (1, 2, -1, 1, 2, 0)),
]


@pytest.mark.parametrize("dtype, rtol, atol", DTYPES, ids=DTYPE_IDS)
@pytest.mark.parametrize("mode", ["constant", "reflect", "replicate", "circular"])
@pytest.mark.parametrize("shape, pads", PADS, ids=[f"pad{i}" for i in range(len(PADS))])
def test_pad_matches_torch(shape, pads, mode, dtype, rtol, atol):
    n = len(pads) // 2
    if mode != "constant" and len(shape) not in (n + 1, n + 2):
        pytest.skip("torch pads only the last 1-3 dims of a (batched) input in this mode")
    if mode == "reflect" and any(p >= s for p, s in zip(pads[::2] + pads[1::2], list(shape[::-1][:n]) * 2)):
        pytest.skip("reflect needs pads smaller than the dim")
    _check_against_torch(lambda x: F.pad(x, pads, mode=mode), lambda x: TF.pad(x, pads, mode=mode), shape, dtype,
                         rtol, atol)


def test_pad_constant_value_and_gradcheck():
    x = ak.randn(2, 3, 4, dtype=ak.float64, requires_grad=True)
    out = F.pad(x, (1, 2, 0, 1), value=2.5)
    ref = TF.pad(torch.tensor(x.detach().numpy()), (1, 2, 0, 1), value=2.5)
    assert_close(out, ref, 0, 0)
    for mode in ["constant", "reflect", "replicate", "circular"]:
        assert ak.autograd.gradcheck(lambda t: F.pad(t, (2, 1), mode=mode), (x,))


@pytest.mark.parametrize("call, cls", [
    (lambda t, F: F.pad(t, (1, 2, 3)), RuntimeError),
    (lambda t, F: F.pad(t, (1, 1) * 4), RuntimeError),
    (lambda t, F: F.pad(t, (1, 1), mode="foo"), NotImplementedError),
    (lambda t, F: F.pad(t, (5, 1), mode="reflect"), RuntimeError),
    (lambda t, F: F.pad(t, (6, 1), mode="circular"), RuntimeError),
    (lambda t, F: F.pad(t, (1, 1), mode="reflect", value=1.0), RuntimeError),
    (lambda t, F: F.pad(t, (1, 1, 1, 1, 1, 1), mode="replicate"), NotImplementedError),
    (lambda t, F: F.pad(t, (1.5, 1)), TypeError),
    (lambda t, F: F.pad(t, (-6, 2)), RuntimeError),                  # a crop past the far end
    (lambda t, F: F.pad(t, (-3, -2), mode="replicate"), RuntimeError),  # an empty 1-d output
], ids=[f"bad{i}" for i in range(10)])
def test_pad_errors_as_torch(call, cls):
    t = torch.randn(1, 2, 5)
    with pytest.raises(cls):
        call(t, TF)
    with pytest.raises(cls):
        call(to_ak(t), F)


INTERP = [
    # (shape, kwargs)
    ((2, 3, 5), dict(size=8, mode="nearest")),
    ((2, 3, 7), dict(size=3, mode="nearest")),
    ((2, 3, 5), dict(scale_factor=2, mode="nearest")),
    ((2, 3, 6), dict(scale_factor=1 / 3, mode="nearest")),
    ((2, 3, 5), dict(scale_factor=1.7, mode="nearest-exact")),
    ((2, 3, 5, 4), dict(size=(7, 3), mode="nearest")),
    ((2, 3, 5, 4), dict(scale_factor=(1.5, 2.3), mode="nearest-exact")),
    ((1, 2, 3, 4, 5), dict(size=(5, 2, 7), mode="nearest")),
    ((2, 3, 5), dict(size=9, mode="linear")),
    ((2, 3, 5), dict(size=9, mode="linear", align_corners=True)),
    ((2, 3, 9), dict(size=4, mode="linear", align_corners=True)),
    ((2, 3, 5), dict(scale_factor=2.5, mode="linear")),
    ((2, 3, 5), dict(scale_factor=2.5, mode="linear", recompute_scale_factor=True)),
    ((2, 3, 5, 6), dict(size=(8, 4), mode="bilinear")),
    ((2, 3, 5, 6), dict(size=(8, 4), mode="bilinear", align_corners=True)),
    ((2, 3, 5, 6), dict(scale_factor=(0.6, 1.5), mode="bilinear")),
    ((2, 3, 4, 5), dict(scale_factor=1.2, mode="bilinear")),  # one dim keeps its size
    ((1, 2, 3, 4, 5), dict(size=(5, 6, 3), mode="trilinear")),
    ((1, 2, 3, 4, 5), dict(scale_factor=1.5, mode="trilinear", align_corners=True)),
    ((2, 3, 7, 5), dict(size=(3, 2), mode="area")),
    ((2, 3, 7), dict(size=4, mode="area")),
    ((2, 3, 1), dict(size=4, mode="linear", align_corners=True)),
    ((2, 3, 4), dict(size=1, mode="linear", align_corners=True)),
    ((2, 3, 5, 6), dict(size=(9, 4), mode="bicubic")),
    ((2, 3, 5, 6), dict(size=(9, 4), mode="bicubic", align_corners=True)),
    ((2, 3, 5, 6), dict(scale_factor=(0.6, 2.5), mode="bicubic")),
    ((2, 3, 1, 4), dict(size=(3, 1), mode="bicubic", align_corners=True)),
    ((2, 3, 12, 9), dict(size=(5, 4), mode="bilinear", antialias=True)),
    ((2, 3, 12, 9), dict(size=(5, 4), mode="bicubic", antialias=True)),
    ((2, 3, 12, 9), dict(size=(5, 20), mode="bicubic", antialias=True, align_corners=True)),
    ((2, 3, 12, 9), dict(scale_factor=(0.3, 1.5), mode="bilinear", antialias=True)),
    ((1, 2, 17, 5), dict(size=(2, 5), mode="bicubic", antialias=True)),
]


@pytest.mark.parametrize("dtype, rtol, atol", DTYPES, ids=DTYPE_IDS)
@pytest.mark.parametrize("shape, kw", INTERP, ids=[f"interp{i}" for i in range(len(INTERP))])
def test_interpolate_matches_torch(shape, kw, dtype, rtol, atol):
    # bicubic's weights are partly negative, so float32 results near zero are differences of
    # larger terms summed in another order than torch's: their tolerance scales with the largest
    cancels = kw["mode"] == "bicubic" or kw.get("antialias", False)
    run_against_torch(lambda x: F.interpolate(x, **kw), lambda x: TF.interpolate(x, **kw), [shape], dtype,
                      rtol, atol, relative_atol=cancels)


@pytest.mark.parametrize("kw", [dict(scale_factor=1.05, mode="bicubic"),
                                dict(scale_factor=(0.3, 1.05), mode="bilinear", antialias=True)])
def test_interpolate_where_a_size_is_kept_values_as_torch_gradients_by_finite_differences(kw):
    # A scale factor that leaves a size unchanged: PyTorch's forward resamples that dim (bicubic)
    # or copies it (antialias), and its backward does the other, so its gradient is not the
    # forward's (torch.autograd.gradcheck fails on both). aakaar matches the forward and
    # differentiates exactly what it computed.
    x = ak.randn(1, 2, 10, 9, dtype=ak.float64, requires_grad=True)
    assert_close(F.interpolate(x, **kw), TF.interpolate(torch.tensor(x.detach().numpy()), **kw), 1e-10, 1e-12)
    assert ak.autograd.gradcheck(lambda t: F.interpolate(t, **kw), (x,))


def test_interpolate_nearest_picks_torch_pixels_over_many_scales():
    """Nearest indices are floors of products: computed in float32 as PyTorch's kernel does,
    or some sizes (e.g. a third) would pick neighbouring pixels."""
    rng = np.random.default_rng(0)
    for _ in range(60):
        n_in = int(rng.integers(1, 40))
        x = torch.arange(float(n_in)).reshape(1, 1, n_in)
        for kw in (dict(size=int(rng.integers(1, 80))), dict(scale_factor=float(rng.uniform(0.2, 4.0)))):
            for mode in ("nearest", "nearest-exact"):
                try:
                    ref = TF.interpolate(x, mode=mode, **kw)
                except RuntimeError:
                    continue
                assert_close(F.interpolate(to_ak(x), mode=mode, **kw), ref, 0, 0, f"{n_in} {kw} {mode}")


def test_interpolate_gradcheck():
    x = ak.randn(1, 2, 3, 4, dtype=ak.float64, requires_grad=True)
    assert ak.autograd.gradcheck(lambda t: F.interpolate(t, size=(5, 3), mode="bilinear"), (x,))
    assert ak.autograd.gradcheck(lambda t: F.interpolate(t, scale_factor=2, mode="nearest"), (x,))
    assert ak.autograd.gradcheck(lambda t: F.interpolate(t, size=(5, 2), mode="bicubic"), (x,))
    assert ak.autograd.gradcheck(lambda t: F.interpolate(t, size=(2, 3), mode="bicubic", antialias=True), (x,))


def test_bicubic_weights_without_torch():
    # Checks of the weights independent of torch. Keys' cubic convolution sums to one (a constant
    # stays constant, even at the border where indices are clamped) and passes through the samples
    # (align_corners=True at 2w-1 points hits every sample); with A = -0.75 it is only first-order
    # accurate, but the antialiasing filter uses A = -0.5, which reproduces a straight line
    # exactly wherever all its taps are inside the image.
    w = 12
    xs = np.arange(w, dtype=np.float64)
    img = ak.tensor(np.tile(2 * xs - 3, (1, 1, 4, 1)))
    on_samples = F.interpolate(img, size=(4, 2 * w - 1), mode="bicubic", align_corners=True).numpy()[0, 0, 0]
    np.testing.assert_allclose(on_samples[::2], 2 * xs - 3, rtol=0, atol=1e-13)
    ramp = F.interpolate(img, size=(4, 3 * w), mode="bicubic", antialias=True).numpy()[0, 0, 0]
    pos = (np.arange(3 * w) + 0.5) / 3 - 0.5
    inside = (pos >= 2) & (pos <= w - 3)
    np.testing.assert_allclose(ramp[inside], (2 * pos - 3)[inside], rtol=0, atol=1e-12)
    for aa in (False, True):
        flat = F.interpolate(ak.full((1, 1, 5, 7), 3.0, dtype=ak.float64), size=(9, 4), mode="bicubic", antialias=aa)
        np.testing.assert_allclose(flat.numpy(), 3.0, rtol=1e-14)


@pytest.mark.parametrize("call, cls", [
    (lambda t, F: F.interpolate(t, size=5, mode="bilinear"), NotImplementedError),
    (lambda t, F: F.interpolate(t, size=5, mode="nearest", align_corners=True), ValueError),
    (lambda t, F: F.interpolate(t, size=0), RuntimeError),
    (lambda t, F: F.interpolate(t), ValueError),
    (lambda t, F: F.interpolate(t, size=2, scale_factor=2.0), ValueError),
    (lambda t, F: F.interpolate(t, size=(2, 2)), ValueError),
    (lambda t, F: F.interpolate(t, size=4, recompute_scale_factor=True), ValueError),
    (lambda t, F: F.interpolate(t, size=4, mode="foo"), NotImplementedError),
    (lambda t, F: F.interpolate(t, size=4, mode="bicubic"), NotImplementedError),
    (lambda t, F: F.interpolate(t, size=4, mode="linear", antialias=True), ValueError),
    (lambda t, F: F.interpolate(t.unsqueeze(0), size=(4, 4), mode="nearest", antialias=True), ValueError),
    (lambda t, F: F.interpolate(t.unsqueeze(0).int(), size=(4, 4), mode="bicubic"), NotImplementedError),
], ids=[f"bad{i}" for i in range(12)])
def test_interpolate_errors_as_torch(call, cls):
    t = torch.randn(1, 2, 3)
    with pytest.raises(cls):
        call(t, TF)
    with pytest.raises(cls):
        call(to_ak(t), F)


UNFOLD = [
    ((2, 3, 5, 6), dict(kernel_size=2)),
    ((2, 3, 5, 6), dict(kernel_size=(2, 3), stride=(1, 2), padding=1)),
    ((1, 2, 7, 7), dict(kernel_size=3, dilation=2, padding=(2, 1), stride=2)),
    ((3, 4, 4), dict(kernel_size=(1, 2))),
]


@pytest.mark.parametrize("dtype, rtol, atol", DTYPES, ids=DTYPE_IDS)
@pytest.mark.parametrize("shape, kw", UNFOLD, ids=[f"unfold{i}" for i in range(len(UNFOLD))])
def test_unfold_and_fold_match_torch(shape, kw, dtype, rtol, atol):
    _check_against_torch(lambda x: F.unfold(x, **kw), lambda x: TF.unfold(x, **kw), shape, dtype, rtol, atol)
    blocks = TF.unfold(torch.zeros(shape), **kw).shape
    size = shape[-2:]
    _check_against_torch(lambda x: F.fold(x, size, **kw), lambda x: TF.fold(x, size, **kw), blocks, dtype, rtol,
                         atol, seed=1)


def test_fold_gradcheck():
    x = ak.randn(1, 8, 25, dtype=ak.float64, requires_grad=True)
    assert ak.autograd.gradcheck(lambda t: F.fold(t, (4, 4), 2, padding=1, stride=1), (x,))


@pytest.mark.parametrize("call, cls", [
    (lambda F, t: F.unfold(t(1, 2, 3, 3), 4), RuntimeError),
    (lambda F, t: F.unfold(t(1, 2, 3, 3), 2, stride=0), RuntimeError),
    (lambda F, t: F.fold(t(1, 8, 10), (4, 4), 2), RuntimeError),
    (lambda F, t: F.fold(t(1, 7, 9), (4, 4), 2), RuntimeError),
], ids=[f"bad{i}" for i in range(4)])
def test_unfold_fold_errors_as_torch(call, cls):
    with pytest.raises(cls):
        call(TF, torch.randn)
    with pytest.raises(cls):
        call(F, lambda *s: ak.randn(*s))
