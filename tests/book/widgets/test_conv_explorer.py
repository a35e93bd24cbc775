"""The convolution explorer (chapter 13b): its JavaScript convolves, rectifies and pools as
aakaar.nn.functional does, and bad arguments are clear errors."""
from __future__ import annotations

import base64
import json

import numpy as np
import pytest

import aakaar as ak
import aakaar.nn.functional as F
from aakaar.book.widgets import KERNELS, ConvExplorer
from widget_helpers import run_js


def _image(seed=0):
    return np.random.default_rng(seed).integers(0, 256, (28, 28), dtype=np.uint8)


def test_the_state_holds_the_image_and_the_kernels():
    img = _image()
    w = ConvExplorer(img, caption="noise")
    assert np.array_equal(np.frombuffer(base64.b64decode(w.image), np.uint8).reshape(28, 28), img)
    assert list(w.kernels) == list(KERNELS) and w.kernel == next(iter(KERNELS))
    w2 = ConvExplorer(img, kernels={"id": np.eye(3)}, kernel="id")
    assert w2.kernels == {"id": np.eye(3).tolist()}


def test_bad_arguments_are_clear_errors():
    with pytest.raises(ValueError, match=r"uint8 of shape \(28, 28\)"):
        ConvExplorer(np.zeros((28, 28)))
    with pytest.raises(ValueError, match="must be 3x3"):
        ConvExplorer(_image(), kernels={"big": np.ones((5, 5))})
    with pytest.raises(ValueError, match="is not one of"):
        ConvExplorer(_image(), kernel="nope")
    with pytest.raises(ValueError, match="at least one kernel"):
        ConvExplorer(_image(), kernels={})


def test_js_convolves_and_pools_like_the_library(need_program, tmp_path):
    img = _image(3)
    x = img.astype(np.float64) / 255
    kernels = {name: np.asarray(k, np.float64) for name, k in KERNELS.items()}
    kernels["random"] = np.random.default_rng(1).standard_normal((3, 3))
    b64 = base64.b64encode(img.tobytes()).decode()
    got = run_js(need_program, tmp_path, "conv_explorer.js",
                 f"const x = m.decodeImage({json.dumps(b64)});\n"
                 f"const ks = {json.dumps({n: k.tolist() for n, k in kernels.items()})};\n"
                 "const out = {};\n"
                 "for (const [n, k] of Object.entries(ks)) { const c = m.conv3x3(x, 28, 28, k); "
                 "out[n] = [c, m.maxPool2(m.relu(c)), m.windowProducts(x, 28, 28, k, 0, 5)]; }\n"
                 "console.log(JSON.stringify(out));")
    xt = ak.from_numpy(x.reshape(1, 1, 28, 28))
    for name, k in kernels.items():
        conv, pooled, products = got[name]
        want = F.conv2d(xt, ak.from_numpy(k.reshape(1, 1, 3, 3)), padding=1)
        np.testing.assert_allclose(conv, want.numpy()[0, 0], atol=1e-12, err_msg=name)
        np.testing.assert_allclose(pooled, F.max_pool2d(F.relu(want), 2).numpy()[0, 0], atol=1e-12, err_msg=name)
        # the window at the top edge reads the padding's zeros in its first row
        window = np.pad(x, 1)[0:3, 5:8]
        np.testing.assert_allclose(products, (window * k).ravel(), atol=1e-12)
        assert sum(products) == pytest.approx(conv[0][5])
