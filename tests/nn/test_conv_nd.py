"""F.conv1d, F.conv3d, F.conv_transpose1d/2d/3d against torch (values and every gradient) over random
shapes, strides, paddings, dilations and groups; conv2d's double backward against torch and
finite differences; PyTorch's exception classes for bad input."""

from __future__ import annotations

import numpy as np
import pytest

import aakaar as ak
import aakaar.nn.functional as F
from tests.nn.nn_helpers import assert_close, run_against_torch, to_ak

torch = pytest.importorskip("torch")
TF = torch.nn.functional

DTYPES = [(torch.float64, 1e-10, 1e-11), (torch.float32, 1e-5, 1e-5)]
DTYPE_IDS = ["float64", "float32"]


def _run(fn_ak, fn_torch, shapes, dtype, rtol, atol, seed=0):
    run_against_torch(fn_ak, fn_torch, shapes, dtype, rtol, atol, seed, relative_atol=True)


def _case(rng, n, transposed=False):
    """A random n-d (transposed) convolution: shapes of input, weight, bias and its keyword arguments."""
    groups = int(rng.choice([1, 1, 2, 3]))
    cin, cout = groups * int(rng.integers(1, 3)), groups * int(rng.integers(1, 3))
    k = tuple(int(v) for v in rng.integers(1, 4, n))
    s = tuple(int(v) for v in rng.integers(1, 3, n))
    d = tuple(int(v) for v in rng.integers(1, 3, n))
    p = tuple(int(rng.integers(0, 1 + (d[i] * (k[i] - 1)) // 2)) for i in range(n))
    size = tuple(int(d[i] * (k[i] - 1) + 1 + rng.integers(0, 5)) for i in range(n))
    N = int(rng.integers(1, 3))
    kw = dict(stride=s, padding=p, dilation=d, groups=groups)
    if transposed:
        kw["output_padding"] = tuple(int(rng.integers(0, max(s[i], d[i]))) for i in range(n))
        return (N, cin) + size, (cin, cout // groups) + k, (cout,), kw
    return (N, cin) + size, (cout, cin // groups) + k, (cout,), kw


CONVS = {
    "conv1d": (1, F.conv1d, TF.conv1d, False),
    "conv3d": (3, F.conv3d, TF.conv3d, False),
    "conv_transpose1d": (1, F.conv_transpose1d, TF.conv_transpose1d, True),
    "conv_transpose2d": (2, F.conv_transpose2d, TF.conv_transpose2d, True),
    "conv_transpose3d": (3, F.conv_transpose3d, TF.conv_transpose3d, True),
}


@pytest.mark.parametrize("dtype, rtol, atol", DTYPES, ids=DTYPE_IDS)
@pytest.mark.parametrize("name", list(CONVS))
@pytest.mark.parametrize("seed", range(8))
def test_conv_nd_matches_torch_on_random_cases(name, seed, dtype, rtol, atol):
    n, fa, ft, transposed = CONVS[name]
    rng = np.random.default_rng(1000 * seed + n)
    xs, ws, bs, kw = _case(rng, n, transposed)
    with_bias = seed % 2 == 0
    _run(lambda x, w, b: fa(x, w, b, **kw), lambda x, w, b: ft(x, w, b, **kw),
         [xs, ws, bs if with_bias else None], dtype, rtol, atol, seed)


@pytest.mark.filterwarnings("ignore:Using padding='same' with even kernel lengths")
@pytest.mark.parametrize("name, xs, ws, kw", [
    ("conv1d", (2, 4, 9), (6, 2, 4), dict(padding="same", dilation=2, groups=2)),
    ("conv1d", (4, 9), (6, 4, 3), dict(padding="valid", stride=2)),   # unbatched
    ("conv3d", (1, 2, 5, 6, 4), (3, 2, 2, 3, 2), dict(padding="same")),
    ("conv3d", (2, 5, 6, 4), (3, 2, 3, 1, 2), dict(stride=(2, 1, 1), padding=(1, 0, 1))),
    ("conv_transpose2d", (2, 7, 7), (2, 3, 3, 3), dict(stride=2, padding=1, output_padding=1)),
    ("conv_transpose1d", (3, 5), (3, 2, 4), dict(stride=3, dilation=2, output_padding=2)),
    ("conv_transpose3d", (2, 3, 2, 3), (2, 2, 2, 3, 2), dict(stride=(2, 1, 2), padding=(1, 0, 1), output_padding=(1, 0, 1))),
], ids=["c1same", "c1unbatched", "c3same", "c3unbatched", "ct2unbatched", "ct1unbatched", "ct3unbatched"])
def test_conv_nd_special_paddings_and_unbatched(name, xs, ws, kw):
    n, fa, ft, _ = CONVS[name]
    _run(lambda x, w: fa(x, w, **kw), lambda x, w: ft(x, w, **kw), [xs, ws], torch.float64, 1e-10, 1e-11)


def test_conv_nd_gradcheck():
    rng = np.random.default_rng(5)

    def leaf(*shape):
        return ak.from_numpy(rng.standard_normal(shape)).requires_grad_()

    assert ak.autograd.gradcheck(lambda x, w, b: F.conv1d(x, w, b, stride=2, padding=1, groups=2),
                                 (leaf(2, 4, 7), leaf(2, 2, 3), leaf(2)))
    assert ak.autograd.gradcheck(lambda x, w: F.conv3d(x, w, stride=(1, 2, 1), padding=1),
                                 (leaf(1, 2, 3, 4, 3), leaf(2, 2, 2, 2, 2)))
    assert ak.autograd.gradcheck(
        lambda x, w, b: F.conv_transpose2d(x, w, b, stride=2, padding=1, output_padding=1, groups=2),
        (leaf(1, 4, 3, 3), leaf(4, 1, 3, 2), leaf(2)))


# ---- double backward ----

def _double_backward(fn, x, w, b, seed=7):
    """d/d(x, w, b, v) of <grad(fn(x, w, b), (x, w, b), v), r>, for torch or aakaar tensors."""
    lib = torch if isinstance(x, torch.Tensor) else ak
    rng = np.random.default_rng(seed)
    out = fn(x, w, b)

    def like(t):
        arr = rng.standard_normal(tuple(t.shape))
        return torch.tensor(arr, dtype=t.dtype) if lib is torch else ak.from_numpy(arr)

    v = like(out).requires_grad_()
    grads = lib.autograd.grad(out, (x, w, b), v, create_graph=True)
    total = sum((gr * like(gr)).sum() for gr in grads)
    # b enters the first gradients only through nothing (grad_b is a sum of v): unused
    return lib.autograd.grad(total, (x, w, b, v), allow_unused=True)


@pytest.mark.parametrize("name, xs, ws, kw", [
    ("conv2d", (2, 4, 6, 5), (6, 2, 3, 2), dict(stride=(2, 1), padding=1, dilation=(1, 2), groups=2)),
    ("conv2d", (1, 3, 5, 5), (2, 3, 3, 3), dict(padding="same")),
    ("conv1d", (2, 2, 8), (3, 2, 3), dict(stride=2)),
    ("conv3d", (1, 2, 4, 3, 4), (2, 2, 2, 2, 2), dict(padding=1)),
    ("conv_transpose2d", (2, 4, 4, 3), (4, 3, 3, 3), dict(stride=2, padding=1, output_padding=1, groups=2)),
    ("conv_transpose3d", (1, 2, 2, 3, 2), (2, 2, 2, 2, 2), dict(stride=2, padding=1, output_padding=(1, 0, 1))),
], ids=["conv2d", "conv2d_same", "conv1d", "conv3d", "conv_transpose2d", "conv_transpose3d"])
def test_double_backward_matches_torch(name, xs, ws, kw):
    fa, ft = getattr(F, name), getattr(TF, name)
    rng = np.random.default_rng(3)
    out_ch = ws[1] * kw.get("groups", 1) if "transpose" in name else ws[0]
    ts = [torch.tensor(rng.standard_normal(s), dtype=torch.float64, requires_grad=True) for s in (xs, ws, (out_ch,))]
    ref = _double_backward(lambda x, w, b: ft(x, w, b, **kw), *ts)
    got = _double_backward(lambda x, w, b: fa(x, w, b, **kw), *[to_ak(t).requires_grad_() for t in ts])
    for k, (a, r) in enumerate(zip(got, ref)):
        if r is None:
            assert a is None or not np.asarray(a).any(), f"second derivative {k}"
        else:
            assert_close(a, r, 1e-10, 1e-11, f"second derivative {k}")


def test_conv2d_gradgradcheck():
    """The gradient of conv2d's gradient against finite differences of the gradient (gradgradcheck)."""
    rng = np.random.default_rng(11)

    def leaf(*shape):
        return ak.from_numpy(rng.standard_normal(shape)).requires_grad_()

    x, w, b, v = leaf(2, 2, 5, 4), leaf(4, 1, 3, 2), leaf(4), leaf(2, 4, 3, 5)

    def grads(x, w, b, v):
        with ak.enable_grad():  # gradcheck evaluates its finite differences under no_grad
            return ak.autograd.grad(F.conv2d(x, w, b, stride=(2, 1), padding=(1, 1), groups=2), (x, w, b), v,
                                    create_graph=True)

    assert ak.autograd.gradcheck(grads, (x, w, b, v))


def test_conv2d_plain_backward_builds_no_graph():
    """Without create_graph the gradients are plain tensors (no graph is built for them)."""
    x = ak.randn(1, 2, 5, 5, requires_grad=True)
    w = ak.randn(3, 2, 3, 3, requires_grad=True)
    gx, gw = ak.autograd.grad(F.conv2d(x, w).sum(), (x, w))
    assert not gx.requires_grad and not gw.requires_grad


# ---- errors ----

BAD = [
    # (function, input shape, weight shape, bias shape, kwargs)
    ("conv1d", (2, 4, 5, 5), (3, 4, 3), None, {}),
    ("conv1d", (2, 4, 5), (3, 3, 3), None, {}),
    ("conv1d", (2, 4, 5), (3, 2, 3), None, dict(groups=2)),          # 3 out channels, 2 groups
    ("conv1d", (2, 4, 5), (4, 4, 7), None, {}),                      # kernel larger than the input
    ("conv1d", (2, 4, 5), (4, 4, 3), (3,), {}),
    ("conv1d", (2, 4, 5), (4, 4, 3), None, dict(padding=-1)),
    ("conv1d", (2, 4, 5), (4, 4, 3), None, dict(stride=0)),
    ("conv1d", (2, 4, 5), (4, 4, 3), None, dict(padding="same", stride=2)),
    ("conv3d", (2, 4, 5, 5), (3, 4, 3, 3, 3), None, {}),             # (C, D, H, W) with C = 2: mismatch
    ("conv3d", (2, 4, 5, 5, 5), (3, 4, 3, 3), None, {}),
    ("conv3d", (1, 2, 3, 3, 3), (2, 2, 2, 4, 2), None, {}),
    ("conv3d", (1, 2, 3, 3, 3), (2, 2, 2, 2, 2), None, dict(dilation=0)),
    ("conv_transpose2d", (1, 2, 3, 3), (3, 3, 3, 3), None, {}),
    ("conv_transpose2d", (1, 2, 3, 3), (2, 3, 3, 3), None, dict(stride=2, output_padding=2)),
    ("conv_transpose2d", (1, 2, 3, 3), (2, 3, 3, 3), None, dict(padding=3)),
    ("conv_transpose2d", (1, 2, 3, 3), (2, 3, 3, 3), None, dict(padding=-1)),
    ("conv_transpose2d", (1, 4, 3, 3), (4, 3, 3, 3), None, dict(groups=3)),
    ("conv_transpose1d", (1, 2, 3), (2, 3, 3), (2,), {}),
    ("conv_transpose3d", (1, 2, 3, 3, 3), (3, 2, 2, 2, 2), None, {}),
    ("conv_transpose3d", (1, 2, 3, 3, 3), (2, 2, 2, 2, 2), None, dict(stride=2, output_padding=(0, 0, 2))),
]


@pytest.mark.parametrize("name, xs, ws, bs, kw", BAD, ids=[f"bad{i}" for i in range(len(BAD))])
def test_conv_nd_errors_as_torch(name, xs, ws, bs, kw):
    x, w = torch.randn(*xs), torch.randn(*ws)
    b = torch.randn(*bs) if bs else None
    with pytest.raises(RuntimeError):
        getattr(TF, name)(x, w, b, **kw)
    with pytest.raises(RuntimeError):
        getattr(F, name)(to_ak(x), to_ak(w), to_ak(b) if b is not None else None, **kw)
