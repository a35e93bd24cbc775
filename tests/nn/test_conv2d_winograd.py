"""conv2d's Winograd road (csrc/cpu/fused/conv2d_winograd.cpp): float32 3x3 convolutions with
stride and dilation 1, one group and at least 8 channels in and out take F(2x2, 3x3) in the
forward and for grad_input and grad_weight. Against a float64 reference and torch's float32, against the im2col
road (AAKAAR_CONV2D_ALGO=im2col), in every build of the transforms (baseline, AVX2, AVX-512),
and across thread counts."""

from __future__ import annotations

import os
import subprocess
import sys

import numpy as np
import pytest

import aakaar as ak
import aakaar.nn.functional as F

torch = pytest.importorskip("torch")
TF = torch.nn.functional

# (N, C, H, W, O, padding): channel counts around the 16-wide blocks of the transforms, odd and
# tiny maps (a last tile half outside), paddings 0..2 and uneven, a map whose tiles fill more
# than one block of 128 (30 x 30: 225 tiles), several small images per block (14 x 14: 49).
CASES = [
    (2, 8, 5, 5, 8, 1),
    (3, 16, 14, 14, 9, 1),
    (2, 9, 7, 6, 12, 0),
    (1, 8, 3, 4, 8, 2),
    (2, 17, 1, 1, 20, 1),
    (2, 10, 2, 9, 8, (2, 0)),
    (1, 12, 30, 30, 16, (0, 1)),
    (5, 32, 14, 14, 64, 1),
    (2, 8, 6, 6, 8, "same"),
    (1, 20, 4, 4, 33, "valid"),
]


def _reference(x, w, b, g, padding):
    """Output and the three gradients in float64 (torch), the yardstick for both float32 libraries."""
    xd, wd, bd = (torch.from_numpy(a.astype(np.float64)).requires_grad_() for a in (x, w, b))
    y = TF.conv2d(xd, wd, bd, padding=padding)
    y.backward(torch.from_numpy(g.astype(np.float64)))
    return [y.detach().numpy(), xd.grad.numpy(), wd.grad.numpy(), bd.grad.numpy()]


def _run(lib, fn, x, w, b, g, padding):
    xs, ws, bs = (lib.from_numpy(a.copy()).requires_grad_() for a in (x, w, b))
    y = fn(xs, ws, bs, padding=padding)
    y.backward(lib.from_numpy(g.copy()))
    return [y.detach().numpy(), xs.grad.numpy(), ws.grad.numpy(), bs.grad.numpy()]


def _problem(case, seed=0):
    N, C, H, W, O, padding = case
    rng = np.random.default_rng(seed)
    x = rng.standard_normal((N, C, H, W)).astype(np.float32)
    w = (rng.standard_normal((O, C, 3, 3)) * 0.2).astype(np.float32)
    b = rng.standard_normal(O).astype(np.float32)
    out_shape = TF.conv2d(torch.from_numpy(x), torch.from_numpy(w), padding=padding).shape
    g = rng.standard_normal(tuple(out_shape)).astype(np.float32)
    return x, w, b, g, padding


NAMES = ["output", "grad input", "grad weight", "grad bias"]


@pytest.mark.parametrize("case", CASES, ids=[f"case{i}" for i in range(len(CASES))])
def test_winograd_is_as_accurate_as_torch(case):
    """The largest errors against float64, relative to the largest value, of the output and the
    input's gradient are no more than twice torch's own float32 errors (or a few ulps); the
    weight's gradient (sums over every tile of the batch) and the bias's within 1e-5."""
    x, w, b, g, padding = _problem(case)
    ref = _reference(x, w, b, g, padding)
    ours = _run(ak, F.conv2d, x, w, b, g, padding)
    theirs = _run(torch, TF.conv2d, x, w, b, g, padding)
    for name, a, t, r in zip(NAMES, ours, theirs, ref):
        assert a.shape == r.shape, name
        scale = float(np.abs(r).max()) or 1.0
        err_a, err_t = np.abs(a - r).max() / scale, np.abs(t - r).max() / scale
        bound = max(2 * err_t, 4 * 2.0 ** -23) if name in ("output", "grad input") else 1e-5
        assert err_a <= bound, f"{name}: error {err_a:.2e}, torch's {err_t:.2e}"


def test_the_switch_chooses_the_road(monkeypatch):
    """AAKAAR_CONV2D_ALGO=im2col takes the other road: close results, not the same bits (the two
    sum in different orders), and Winograd's output no less accurate."""
    x, w, b, g, padding = _problem((4, 32, 14, 14, 64, 1), seed=3)
    ref = _reference(x, w, b, g, padding)
    wino = _run(ak, F.conv2d, x, w, b, g, padding)
    monkeypatch.setenv("AAKAAR_CONV2D_ALGO", "im2col")
    im2col = _run(ak, F.conv2d, x, w, b, g, padding)
    for name, a, c, r in zip(NAMES[:3], wino, im2col, ref):
        np.testing.assert_allclose(a, c, rtol=1e-4, atol=1e-5 * np.abs(r).max(), err_msg=name)
        assert not np.array_equal(a, c), f"{name}: the same bits -- was the same road taken twice?"
    # grad_bias is the same sum on both roads: the same bits
    np.testing.assert_array_equal(wino[3], im2col[3])


def test_float64_and_other_geometries_keep_im2col(monkeypatch):
    """Only float32 3x3 stride-1 undilated single-group convolutions change: the rest give the
    same bits with the switch on or off."""
    rng = np.random.default_rng(5)
    problems = [
        (rng.standard_normal((2, 16, 9, 9)), rng.standard_normal((16, 16, 3, 3)), dict(padding=1)),  # float64
        (rng.standard_normal((2, 16, 9, 9)).astype(np.float32),
         rng.standard_normal((16, 16, 3, 3)).astype(np.float32), dict(stride=2, padding=1)),
        (rng.standard_normal((2, 16, 9, 9)).astype(np.float32),
         rng.standard_normal((16, 8, 3, 3)).astype(np.float32), dict(padding=1, groups=2)),
        (rng.standard_normal((2, 4, 9, 9)).astype(np.float32),
         rng.standard_normal((16, 4, 3, 3)).astype(np.float32), dict(padding=1)),  # 4 channels in
        (rng.standard_normal((2, 16, 9, 9)).astype(np.float32),
         rng.standard_normal((16, 16, 3, 3)).astype(np.float32), dict(padding=3)),
    ]
    for x, w, kw in problems:
        auto = F.conv2d(ak.from_numpy(x), ak.from_numpy(w), **kw).numpy()
        monkeypatch.setenv("AAKAAR_CONV2D_ALGO", "im2col")
        forced = F.conv2d(ak.from_numpy(x), ak.from_numpy(w), **kw).numpy()
        monkeypatch.delenv("AAKAAR_CONV2D_ALGO")
        np.testing.assert_array_equal(auto, forced, err_msg=str(kw))


def test_threads_give_the_same_bits():
    x, w, b, g, padding = _problem((6, 16, 10, 10, 24, 1), seed=9)
    before = ak.get_num_threads()
    try:
        ak.set_num_threads(1)
        one = _run(ak, F.conv2d, x, w, b, g, padding)
        ak.set_num_threads(2)
        two = _run(ak, F.conv2d, x, w, b, g, padding)
    finally:
        ak.set_num_threads(before)
    for name, a, c in zip(NAMES, one, two):
        np.testing.assert_array_equal(a, c, err_msg=name)


ORDER = ["baseline", "avx2", "avx512"]
AVAILABLE = ORDER[: ORDER.index(ak._C.cpu_isa()) + 1]

SCRIPT = r"""
import numpy as np, torch, aakaar as ak
import aakaar.nn.functional as F
rng = np.random.default_rng(0)
for (N, C, H, W, O) in [(2, 20, 7, 9, 18), (1, 32, 15, 15, 16)]:
    x = rng.standard_normal((N, C, H, W)).astype(np.float32)
    w = (rng.standard_normal((O, C, 3, 3)) * 0.2).astype(np.float32)
    g = rng.standard_normal((N, O, H, W)).astype(np.float32)
    xa, wa = ak.from_numpy(x).requires_grad_(), ak.from_numpy(w).requires_grad_()
    y = F.conv2d(xa, wa, padding=1)
    y.backward(ak.from_numpy(g))
    xd, wd = (torch.from_numpy(a.astype(np.float64)).requires_grad_() for a in (x, w))
    yd = torch.nn.functional.conv2d(xd, wd, padding=1)
    yd.backward(torch.from_numpy(g.astype(np.float64)))
    for got, want in ((y.detach().numpy(), yd.detach().numpy()), (xa.grad.numpy(), xd.grad.numpy())):
        np.testing.assert_allclose(got, want, rtol=0, atol=1e-5 * np.abs(want).max())
print(ak._C.cpu_isa())
"""


@pytest.mark.parametrize("isa", AVAILABLE)
def test_each_build_of_the_transforms(isa):
    """The transforms are compiled once per instruction set (winograd_loops.h); each build this
    CPU runs gives the float64 answer to float32 accuracy."""
    env = dict(os.environ, AAKAAR_CPU_ISA=isa)
    env.pop("AAKAAR_CONV2D_ALGO", None)
    r = subprocess.run([sys.executable, "-c", SCRIPT], env=env, capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr[-3000:]
    assert r.stdout.strip() == isa, f"asked for {isa}, ran {r.stdout.strip()}"
