"""grid_sample in every mode x padding_mode x align_corners that PyTorch allows, 4-d (bilinear,
nearest, bicubic) and 5-d (trilinear, nearest): values and the gradients to input and grid against
torch on random shapes, with grid points outside [-1, 1] and exactly on the borders; gradcheck in
float64; torch's exception classes and messages for bad arguments; a 5-d spatial transformer."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

import aakaar as ak

from tests.nn.nn_helpers import assert_close, to_ak

torch = pytest.importorskip("torch")

MODES = {4: ("bilinear", "nearest", "bicubic"), 5: ("bilinear", "nearest")}
CASES = [(nd, mode, pad, align) for nd in (4, 5) for mode in MODES[nd]
         for pad in ("zeros", "border", "reflection") for align in (False, True)]
IDS = [f"{nd}d-{mode}-{pad}-{'align' if align else 'noalign'}" for nd, mode, pad, align in CASES]
# grid values whose pixel coordinates are exact in any rounding order: the corners (+-1: pixel 0 and
# size - 1 with align_corners, the outer edges without), the centre, and reflection fold points (+-3)
EXACT = np.array([-3.0, -1.0, 0.0, 1.0, 3.0])


def _random_case(nd: int, seed: int, lo: float = -2.2, hi: float = 2.2):
    """Input (N, C, *spatial) with spatial sizes 1..6 (size 1 is a special case of reflection) and a
    grid with about a third of its coordinates from EXACT, the rest uniform in [lo, hi]."""
    rng = np.random.default_rng(seed)
    n, c = (int(v) for v in rng.integers(1, 4, 2))
    spatial = [int(v) for v in rng.integers(1, 7, nd - 2)]
    out_spatial = [int(v) for v in rng.integers(1, 5, nd - 2)]
    x = rng.standard_normal((n, c, *spatial))
    g = rng.uniform(lo, hi, (n, *out_spatial, nd - 2))
    exact = rng.random(g.shape) < 0.35
    g[exact] = rng.choice(EXACT, int(exact.sum()))
    return rng, x, g


def _close(got, ref, rtol: float, what: str) -> None:
    """rtol relative to each element, and to the largest magnitude for the elements near 0 (grid
    gradients that cancel to ~0 when all taps read the same clipped border pixel)."""
    scale = max(1.0, float(ref.detach().abs().max())) if ref.numel() else 1.0
    assert_close(got, ref, rtol, rtol * scale, what)


@pytest.mark.parametrize("dtype", [torch.float64, torch.float32], ids=["f64", "f32"])
@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_values_and_gradients_match_torch(case, dtype):
    nd, mode, pad, align = case
    rtol = 1e-10 if dtype == torch.float64 else 1e-5
    for trial in range(3):
        rng, x, g = _random_case(nd, 1000 * CASES.index(case) + trial)
        tx = torch.tensor(x, dtype=dtype, requires_grad=True)
        tg = torch.tensor(g, dtype=dtype, requires_grad=True)
        ref = torch.nn.functional.grid_sample(tx, tg, mode, pad, align)
        ax, ag = to_ak(tx).requires_grad_(), to_ak(tg).requires_grad_()
        out = ak.nn.functional.grid_sample(ax, ag, mode, pad, align)
        _close(out, ref, rtol, "output")
        w = rng.standard_normal(tuple(ref.shape))
        ref.backward(torch.tensor(w, dtype=dtype))
        out.backward(ak.tensor(w).to(out.dtype))
        _close(ax.grad, tx.grad, rtol, "grad input")
        _close(ag.grad, tg.grad, rtol, "grad grid")  # zeros for nearest, as torch's


@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_gradcheck(case):
    """Central differences in float64, at points away from the kinks (integer and half-integer pixel
    coordinates: floor, round, clipping and the reflection folds), inside and outside the input."""
    nd, mode, pad, align = case
    rng = np.random.default_rng(CASES.index(case))
    spatial = [int(v) for v in rng.integers(1, 4, nd - 2)]
    out_spatial = [2] * (nd - 2)
    x = ak.tensor(rng.standard_normal((2, 2, *spatial)), requires_grad=True)
    sizes = np.array(spatial[::-1], dtype=np.float64)  # W, H[, D]: the grid's last dim
    frac = rng.uniform(0.1, 0.4, (2, *out_spatial, nd - 2)) + rng.integers(0, 2, (2, *out_spatial, nd - 2)) * 0.5
    pix = rng.integers(-2, 2 * int(sizes.max()), frac.shape) + frac
    if align:
        g = np.where(sizes > 1, 2 * pix / np.maximum(sizes - 1, 1) - 1, pix / 3)
    else:
        g = (2 * pix + 1) / sizes - 1
    grid = ak.tensor(g, requires_grad=True)
    assert ak.autograd.gradcheck(lambda a, b: ak.nn.functional.grid_sample(a, b, mode, pad, align), [x, grid],
                                 atol=1e-7, rtol=1e-6)


def test_border_points_get_no_clip_gradient():
    """At a point exactly on the border (pixel 0 or size - 1) 'border' padding gives the grid no
    gradient, as torch's clip_coordinates_set_grad, not the one-sided gradient of clamp."""
    x = torch.arange(12, dtype=torch.float64).reshape(1, 1, 3, 4).requires_grad_()
    g = torch.tensor([[[[-1.0, -1.0], [1.0, 1.0], [-1.0, 0.5]]]], dtype=torch.float64, requires_grad=True)
    ref = torch.nn.functional.grid_sample(x, g, "bilinear", "border", True)
    ref.sum().backward()
    ag = to_ak(g).requires_grad_()
    out = ak.nn.functional.grid_sample(to_ak(x), ag, "bilinear", "border", True)
    out.sum().backward()
    assert_close(out, ref, 1e-12)
    assert_close(ag.grad, g.grad, 1e-12, 1e-12, "grad grid")
    assert float(g.grad[0, 0, 0].abs().sum()) == 0.0  # the reference really has zeros there


def test_bicubic_reads_padded_taps():
    """A 1-pixel-wide image: with 'border' every tap reads that pixel (the weights sum to 1); with
    'zeros' the taps outside read 0, so between two pixel centres the value is partial."""
    x = torch.tensor([[[[2.0]]]], dtype=torch.float64)
    g = torch.tensor([[[[0.3, -0.2], [1.7, 0.9]]]], dtype=torch.float64)
    for pad in ("zeros", "border", "reflection"):
        ref = torch.nn.functional.grid_sample(x, g, "bicubic", pad, False)
        out = ak.nn.functional.grid_sample(to_ak(x), to_ak(g), "bicubic", pad, False)
        assert_close(out, ref, 1e-12, 1e-13, pad)


EMPTY = [  # (mode, input shape, grid shape): an empty batch, output or channel dim
    ("bicubic", (0, 2, 3, 4), (0, 3, 1, 2)), ("bicubic", (2, 2, 3, 4), (2, 0, 3, 2)),
    ("bicubic", (2, 0, 3, 4), (2, 3, 1, 2)), ("bilinear", (0, 2, 3, 4, 5), (0, 2, 3, 1, 3)),
    ("bilinear", (2, 2, 3, 4, 5), (2, 2, 0, 1, 3)), ("nearest", (2, 0, 3, 4, 5), (2, 2, 3, 1, 3)),
]


@pytest.mark.parametrize("mode,xs,gs", EMPTY)
def test_empty_batch_output_and_channels(mode, xs, gs):
    x, g = torch.randn(xs, dtype=torch.float64), torch.rand(gs, dtype=torch.float64) * 2 - 1
    ref = torch.nn.functional.grid_sample(x, g, mode, "zeros", False)
    out = ak.nn.functional.grid_sample(to_ak(x), to_ak(g), mode, "zeros", False)
    assert_close(out, ref, 0, 0)


def _raised(fn):
    try:
        fn()
    except Exception as e:  # noqa: BLE001 - the class is what is compared
        return type(e), str(e)
    raise AssertionError("no exception raised")


F64 = torch.float64
BAD = [  # (id, input shape, input dtype, grid shape, grid dtype, mode, padding)
    ("5d-bicubic", (2, 3, 4, 5, 6), F64, (2, 3, 4, 2, 3), F64, "bicubic", "zeros"),
    ("5d-bicubic-int", (2, 3, 4, 5, 6), torch.int64, (2, 3, 4, 2, 3), torch.int64, "bicubic", "zeros"),
    ("4d-input-5d-grid", (2, 3, 4, 5), F64, (2, 3, 4, 2, 3), F64, "bilinear", "zeros"),
    ("5d-input-4d-grid", (2, 3, 4, 5, 6), F64, (2, 3, 4, 2), F64, "nearest", "zeros"),
    ("4d-grid-last-3", (2, 3, 4, 5), F64, (2, 3, 4, 3), F64, "bicubic", "zeros"),
    ("5d-grid-last-2", (2, 3, 4, 5, 6), F64, (2, 3, 4, 2, 2), F64, "bilinear", "zeros"),
    ("4d-grid-3d", (2, 3, 4, 5), F64, (2, 3, 2), F64, "bilinear", "zeros"),
    ("4d-input-5d-grid-last-2", (2, 3, 4, 5), F64, (2, 3, 3, 4, 2), F64, "bilinear", "zeros"),
    ("5d-input-4d-grid-last-3", (2, 3, 4, 5, 6), F64, (2, 3, 4, 3), F64, "bilinear", "zeros"),
    ("3d-input", (2, 3, 4), F64, (2, 3, 2), F64, "bilinear", "zeros"),
    ("6d-input", (2, 3, 4, 1, 1, 1), F64, (2, 3, 2, 1, 1, 4), F64, "bilinear", "zeros"),
    ("batch", (2, 3, 4, 5), F64, (3, 3, 4, 2), F64, "bilinear", "zeros"),
    ("batch-5d-bicubic", (2, 3, 4, 5, 6), F64, (3, 3, 4, 2, 3), F64, "bicubic", "zeros"),
    ("batch-before-last", (2, 3, 4, 5), F64, (3, 3, 4, 3), F64, "bilinear", "zeros"),
    ("empty-spatial", (2, 3, 0, 5), F64, (2, 3, 4, 2), F64, "bilinear", "border"),
    ("empty-spatial-5d", (2, 3, 4, 0, 5), F64, (2, 3, 4, 2, 3), F64, "nearest", "zeros"),
    ("dtype-f32-f64", (2, 3, 4, 5), torch.float32, (2, 3, 4, 2), F64, "bilinear", "zeros"),
    ("dtype-f64-f32-5d", (2, 3, 4, 5, 6), F64, (2, 3, 4, 2, 3), torch.float32, "bilinear", "zeros"),
    ("dtype-float-long-grid", (2, 3, 4, 5), F64, (2, 3, 4, 2), torch.int64, "bicubic", "zeros"),
    ("int-input", (2, 3, 4, 5), torch.int64, (2, 3, 4, 2), torch.int64, "bilinear", "zeros"),
    ("int-input-float-grid", (2, 3, 4, 5), torch.int32, (2, 3, 4, 2), F64, "bicubic", "zeros"),
    ("int-input-5d", (2, 3, 4, 5, 6), torch.int64, (2, 3, 4, 2, 3), torch.int64, "nearest", "zeros"),
    ("bool-input", (2, 3, 4, 5), torch.bool, (2, 3, 4, 2), torch.bool, "bilinear", "zeros"),
    ("0d", (), F64, (), F64, "bilinear", "zeros"),
    ("mode", (2, 3, 4, 5), F64, (2, 3, 4, 2), F64, "cubic", "zeros"),
    ("padding", (2, 3, 4, 5), F64, (2, 3, 4, 2), F64, "bicubic", "wrap"),
]


@pytest.mark.parametrize("case", BAD, ids=[c[0] for c in BAD])
def test_bad_arguments_raise_as_torch(case):
    _, xs, xd, gs, gd, mode, pad = case
    x, g = torch.zeros(xs, dtype=xd), torch.zeros(gs, dtype=gd)
    want = _raised(lambda: torch.nn.functional.grid_sample(x, g, mode, pad, False))
    got = _raised(lambda: ak.nn.functional.grid_sample(to_ak(x), to_ak(g), mode, pad, False))
    assert got == want


def test_non_tensor_grid_is_a_type_error():
    x = ak.zeros([1, 1, 2, 2])
    with pytest.raises(TypeError, match="grid"):
        ak.nn.functional.grid_sample(x, [[0.0, 0.0]], align_corners=False)


@pytest.mark.parametrize("align", [False, True])
@pytest.mark.parametrize("mode", ["bilinear", "nearest"])
def test_volumetric_spatial_transformer(mode, align):
    """affine_grid (N, 3, 4) -> grid_sample 5-d, gradient to theta and the volume, against torch."""
    rng = np.random.default_rng(7)
    theta = torch.tensor(np.eye(3, 4) + rng.uniform(-0.3, 0.3, (2, 3, 4)), requires_grad=True)
    vol = torch.tensor(rng.standard_normal((2, 3, 4, 5, 6)), requires_grad=True)
    size = [2, 3, 3, 4, 5]
    ref = torch.nn.functional.grid_sample(vol, torch.nn.functional.affine_grid(theta, size, align), mode,
                                          "border", align)
    at, av = to_ak(theta).requires_grad_(), to_ak(vol).requires_grad_()
    out = ak.nn.functional.grid_sample(av, ak.nn.functional.affine_grid(at, size, align), mode, "border", align)
    _close(out, ref, 1e-10, "output")
    w = rng.standard_normal(tuple(ref.shape))
    ref.backward(torch.tensor(w))
    out.backward(ak.tensor(w))
    _close(av.grad, vol.grad, 1e-10, "grad volume")
    _close(at.grad, theta.grad, 1e-10, "grad theta")


def test_nearest_grid_gradient_is_zeros_not_absent():
    """torch's output requires grad through the grid alone in nearest mode, and grid.grad is zeros."""
    g = ak.tensor(np.random.default_rng(3).uniform(-1, 1, (1, 2, 2, 2, 3)), requires_grad=True)
    out = ak.nn.functional.grid_sample(ak.ones([1, 1, 2, 3, 4], dtype=ak.float64), g, "nearest",
                                       align_corners=True)
    assert out.requires_grad
    out.sum().backward()
    assert g.grad is not None and float(g.grad.abs().sum()) == 0.0


def test_no_grad_input_still_samples():
    """Every combination under no_grad: same values as torch (no autograd bookkeeping needed)."""
    for nd, mode, pad, align in itertools.islice(CASES, 0, None, 5):
        _, x, g = _random_case(nd, 99)
        ref = torch.nn.functional.grid_sample(torch.tensor(x), torch.tensor(g), mode, pad, align)
        with ak.no_grad():
            out = ak.nn.functional.grid_sample(ak.tensor(x, requires_grad=True), ak.tensor(g, requires_grad=True),
                                               mode, pad, align)
        assert not out.requires_grad
        _close(out, ref, 1e-10, f"{nd}d {mode} {pad} {align}")


@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_non_finite_grid_points_do_not_crash(case):
    """NaN and +-inf grid coordinates sample nothing (aakaar reads 0 there; torch's 2-d and 3-d CPU
    kernels disagree with each other on what they read), and the other points are unaffected."""
    nd, mode, pad, align = case
    rng = np.random.default_rng(11)
    x = torch.tensor(rng.standard_normal((1, 2) + (3, 4, 5)[5 - nd:]))
    g = rng.uniform(-1.5, 1.5, (1, 4) + (1,) * (nd - 3) + (nd - 2,))
    g[0, 0, ..., 0], g[0, 1, ..., -1], g[0, 2, ..., 0] = np.nan, np.inf, -np.inf
    g = torch.tensor(g)
    ref = torch.nn.functional.grid_sample(x, g, mode, pad, align)
    out = ak.nn.functional.grid_sample(to_ak(x), to_ak(g), mode, pad, align)
    assert_close(out.numpy()[:, :, 3], ref[:, :, 3], 1e-10, 1e-12)
