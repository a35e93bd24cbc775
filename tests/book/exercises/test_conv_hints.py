"""Chapter 13b's check cells name the likely mistake: a flipped kernel, a missing bias or padding, the
dilation ignored, the columns of im2col transposed or in the wrong order, the input gradient with an unturned kernel, a
mean for a sum, Winograd's blocks without padding, room or cropping. Each typical wrong answer runs through the real check cell of
solutions/13b-convolutions.ipynb, in-process."""
from __future__ import annotations

import pytest

from hint_helpers import REPO, cells, hint_for

NOTEBOOK = REPO / "solutions" / "13b-convolutions.ipynb"

# Wrong answers built from the library's convolution (library_conv, from the notebook's setup cell),
# so that each is wrong in one way only.
PARTS = '''
def _parts(x, w, g, padding):
    xt, wt = ak.from_numpy(x).requires_grad_(), ak.from_numpy(w).requires_grad_()
    bt = ak.zeros(w.shape[0], dtype=ak.float64).requires_grad_()
    (F.conv2d(xt, wt, bt, padding=padding) * ak.from_numpy(g)).sum().backward()
    return xt.grad.numpy(), wt.grad.numpy(), bt.grad.numpy()
'''
COLS = '''
def _cols(x, kH, kW, stride, padding):
    N, C, H, W = x.shape
    xp = np.pad(x, ((0, 0), (0, 0), (padding, padding), (padding, padding)))
    Ho, Wo = (H + 2 * padding - kH) // stride + 1, (W + 2 * padding - kW) // stride + 1
    cols = np.empty((N, C, kH, kW, Ho, Wo))
    for p in range(kH):
        for q in range(kW):
            cols[:, :, p, q] = xp[:, :, p:p + stride * Ho:stride, q:q + stride * Wo:stride]
    return cols
'''

WRONG = [
    ("13b.1", "flipped kernel",
     "def conv2d_naive(x, w, b=None, stride=1, padding=0):\n"
     "    return library_conv(x, w[:, :, ::-1, ::-1].copy(), b, stride, padding)",
     "your kernel is flipped"),
    ("13b.1", "no bias",
     "def conv2d_naive(x, w, b=None, stride=1, padding=0):\n    return library_conv(x, w, None, stride, padding)",
     "the bias is missing"),
    ("13b.1", "no padding",
     "def conv2d_naive(x, w, b=None, stride=1, padding=0):\n    return library_conv(x, w, b, stride, 0)",
     "surround the input with `padding` rows and columns of zeros"),
    ("13b.1", "edge padding",
     "def conv2d_naive(x, w, b=None, stride=1, padding=0):\n"
     "    p = ((0, 0), (0, 0), (padding, padding), (padding, padding))\n"
     "    return library_conv(np.pad(x, p, mode='edge'), w, b, stride, 0)",
     "the border is wrong"),
    ("13b.1", "dilation ignored",
     "def conv2d_naive(x, w, b=None, stride=1, padding=0, dilation=1):\n"
     "    return library_conv(x, w, b, stride, padding)",
     "the dilation is ignored"),
    ("13b.1", "adjacent taps",
     "def conv2d_naive(x, w, b=None, stride=1, padding=0, dilation=1):\n"
     "    span = dilation * (w.shape[2] - 1) + 1\n"
     "    y = library_conv(x, w, b, stride, padding)\n"
     "    n = (x.shape[2] + 2 * padding - span) // stride + 1\n"
     "    return y[:, :, :n, :n]",
     "the taps are adjacent"),
    ("13b.2", "transposed", COLS + "def im2col(x, kH, kW, stride=1, padding=0):\n"
     "    c = _cols(x, kH, kW, stride, padding)\n"
     "    return c.reshape(len(x), -1, c.shape[-2] * c.shape[-1]).transpose(0, 2, 1)",
     "cols is transposed"),
    ("13b.2", "kernel-major rows", COLS + "def im2col(x, kH, kW, stride=1, padding=0):\n"
     "    c = _cols(x, kH, kW, stride, padding)\n"
     "    return c.transpose(0, 2, 3, 1, 4, 5).reshape(len(x), -1, c.shape[-2] * c.shape[-1])",
     "the channel must vary slowest"),
    ("13b.2", "no padding", COLS + "def im2col(x, kH, kW, stride=1, padding=0):\n"
     "    c = _cols(x, kH, kW, stride, 0)\n"
     "    return c.reshape(len(x), -1, c.shape[-2] * c.shape[-1])",
     "pad the input with zeros"),
    ("13b.3", "unturned kernel", PARTS + "def conv2d_backward(x, w, g, padding=0):\n"
     "    gx, gw, gb = _parts(x, w, g, padding)\n"
     "    gx = library_conv(g, w.transpose(1, 0, 2, 3).copy(), None, 1, w.shape[2] - 1 - padding)\n"
     "    return gx, gw, gb",
     "rotated by 180 degrees"),
    ("13b.3", "sign", PARTS + "def conv2d_backward(x, w, g, padding=0):\n"
     "    gx, gw, gb = _parts(x, w, g, padding)\n    return -gx, gw, gb",
     "wrong sign"),
    ("13b.3", "channels swapped", PARTS + "def conv2d_backward(x, w, g, padding=0):\n"
     "    gx, gw, gb = _parts(x, w, g, padding)\n    return gx, gw.transpose(1, 0, 2, 3), gb",
     "the channels swapped"),
    ("13b.3", "mean bias", PARTS + "def conv2d_backward(x, w, g, padding=0):\n"
     "    gx, gw, gb = _parts(x, w, g, padding)\n    return gx, gw, g.mean(axis=(0, 2, 3))",
     "not a mean"),
    ("13b.4", "no padding", "def winograd_conv3x3(x, w):\n    return library_conv(x, w, None, 1, 0)",
     "without padding"),
    ("13b.4", "last block dropped", "def winograd_conv3x3(x, w):\n"
     "    return library_conv(x, w, None, 1, 1)[:, :, :x.shape[2] // 2 * 2, :x.shape[3] // 2 * 2]",
     "an odd side needs one more 2x2 block"),
    ("13b.4", "not cropped", "def winograd_conv3x3(x, w):\n"
     "    y = library_conv(x, w, None, 1, 1)\n"
     "    return np.pad(y, ((0, 0), (0, 0), (0, x.shape[2] % 2), (0, x.shape[3] % 2)))",
     "crop the output"),
    ("13b.4", "flipped kernel", "def winograd_conv3x3(x, w):\n"
     "    return library_conv(x, w[:, :, ::-1, ::-1].copy(), None, 1, 1)",
     "your kernel is flipped"),
    ("13b.4", "one channel", "def winograd_conv3x3(x, w):\n    return library_conv(x[:, :1], w[:, :1], None, 1, 1)",
     "only the first input channel"),
]


@pytest.mark.parametrize("exercise, label, wrong, hint", WRONG, ids=[f"{e}-{l}" for e, l, _, _ in WRONG])
def test_a_typical_mistake_gets_its_hint(exercise, label, wrong, hint):
    line = hint_for(NOTEBOOK, exercise, wrong)
    assert hint in line, line


def test_every_exercise_has_mistakes_tested():
    assert {e for e, *_ in WRONG} == set(cells(NOTEBOOK)[1]) == {f"13b.{k}" for k in range(1, 5)}
