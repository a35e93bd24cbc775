"""The loss explorer (chapter 14): its formulas, evaluated in JavaScript, are the library's losses and
gradients; Python validates the state and names the same losses and parameters as the JavaScript."""
from __future__ import annotations

import json

import numpy as np
import pytest

import aakaar as ak
import aakaar.nn.functional as F
from aakaar.book.widgets import LossExplorer
from aakaar.book.widgets.loss_explorer import LOSSES, X_RANGES
from widget_helpers import run_js

CLASSES = 10
# Off the kinks (|x| = delta or beta, x = margin) so the one-sided derivatives do not matter; 0 is added
# where it is no kink, to pin sign(0) = 0 of the L1 gradient.
XS = [round(-3.97 + 0.31 * k, 2) for k in range(26)]


def library(name: str, xs: np.ndarray, p: float | None) -> tuple[np.ndarray, np.ndarray]:
    """Loss values and d loss / dx of aakaar.nn.functional at each x (float64), as the widget plots them."""
    n = len(xs)
    x = ak.from_numpy(np.asarray(xs, dtype=np.float64).copy()).requires_grad_()
    zeros, ones = ak.zeros(n, dtype=ak.float64), ak.ones(n, dtype=ak.float64)
    if name == "cross_entropy":
        logits = ak.cat([x.unsqueeze(1), ak.zeros(n, CLASSES - 1, dtype=ak.float64)], 1)
        loss = F.cross_entropy(logits, ak.zeros(n, dtype=ak.int64), reduction="none", label_smoothing=p)
    else:
        loss = {
            "mse": lambda: F.mse_loss(x, zeros, reduction="none"),
            "l1": lambda: F.l1_loss(x, zeros, reduction="none"),
            "huber": lambda: F.huber_loss(x, zeros, reduction="none", delta=p),
            "smooth_l1": lambda: F.smooth_l1_loss(x, zeros, reduction="none", beta=p),
            "bce_with_logits": lambda: F.binary_cross_entropy_with_logits(x, ones * p, reduction="none"),
            "soft_margin": lambda: F.soft_margin_loss(x, ones, reduction="none"),
            "hinge": lambda: F.margin_ranking_loss(x, zeros, ones, margin=p, reduction="none"),
        }[name]()
    loss.sum().backward()
    return loss.detach().numpy(), x.grad.numpy()


def js_spec(need_program, tmp_path) -> dict:
    return run_js(need_program, tmp_path, "loss_explorer.js", """
        const out = {};
        const ranges = {};
        for (const [k, v] of Object.entries(m.LOSSES)) {
          out[k] = v.param ? [v.param.name, v.param.min, v.param.max, v.param.default] : null;
          ranges[k] = m.rangeOf(k);
        }
        console.log(JSON.stringify({losses: out, ranges, classes: m.CLASSES}));""")


def test_python_and_javascript_name_the_same_losses_and_parameters(need_program, tmp_path):
    spec = js_spec(need_program, tmp_path)
    assert spec["classes"] == CLASSES
    assert list(spec["losses"]) == list(LOSSES)
    assert {k: tuple(v) for k, v in spec["ranges"].items()} == X_RANGES
    for name, p in spec["losses"].items():
        assert (p[:3] if p else None) == (list(LOSSES[name]) if LOSSES[name] else None), name
        if p:
            assert p[1] <= p[3] <= p[2], f"{name}: default outside its range"


@pytest.mark.parametrize("name", list(LOSSES))
def test_js_formulas_are_the_librarys_losses_and_gradients(need_program, tmp_path, name):
    spec = LOSSES[name]
    params = [None] if spec is None else sorted({spec[1], (spec[1] + spec[2]) / 2, spec[2], 1.0 if spec[2] >= 1 else spec[2]})
    if name == "smooth_l1":
        assert 0.0 in params  # beta = 0: the L1 loss
    xs = XS + ([] if name == "hinge" else [0.0]) + ([5.3, 8.9] if name == "cross_entropy" else [])  # its axis runs to 9
    got = run_js(need_program, tmp_path, "loss_explorer.js",
                 f"const xs = {json.dumps(xs)}, ps = {json.dumps(params)};\n"
                 f"console.log(JSON.stringify(ps.map((p) => xs.map((x) => m.evaluate({json.dumps(name)}, x, p)))));")
    for p, row in zip(params, got):
        values, grads = library(name, np.array(xs), p)
        np.testing.assert_allclose([r["value"] for r in row], values, rtol=1e-12, atol=1e-13, err_msg=f"{name} p={p}")
        np.testing.assert_allclose([r["grad"] for r in row], grads, rtol=1e-12, atol=1e-13, err_msg=f"{name} p={p} grad")


def test_the_minimum_it_reports_is_where_the_librarys_gradient_vanishes(need_program, tmp_path):
    cases = [("bce_with_logits", 0.3), ("bce_with_logits", 0.9), ("cross_entropy", 0.1), ("cross_entropy", 0.4),
             ("huber", 2.0), ("mse", None)]
    got = run_js(need_program, tmp_path, "loss_explorer.js",
                 f"const cases = {json.dumps(cases)};\n"
                 "console.log(JSON.stringify(cases.map(([n, p]) => m.minimiser(n, p))));")
    for (name, p), x in zip(cases, got):
        _, grad = library(name, np.array([x]), p)
        assert abs(grad[0]) < 1e-12, (name, p, x, grad)
    none = run_js(need_program, tmp_path, "loss_explorer.js",
                  "console.log(JSON.stringify([m.minimiser('bce_with_logits', 1), m.minimiser('cross_entropy', 0)]));")
    assert none == [None, None]  # a hard target: the loss keeps falling as the logit grows


def test_state_and_bad_arguments():
    w = LossExplorer("cross_entropy", x=-1.0, label_smoothing=0.1, delta=2)
    assert (w.loss, w.x, w.params) == ("cross_entropy", -1.0, {"cross_entropy": 0.1, "huber": 2.0})
    with pytest.raises(ValueError, match="loss must be one of mse, l1, huber"):
        LossExplorer("hubber")
    with pytest.raises(ValueError, match=r"delta must be a number in \[0.1, 3.0\], got 0"):
        LossExplorer(delta=0)
    with pytest.raises(ValueError, match=r"label_smoothing must be a number in \[0.0, 0.5\]"):
        LossExplorer("cross_entropy", label_smoothing=0.9)
    with pytest.raises(TypeError, match="unknown parameter 'alpha'"):
        LossExplorer(alpha=1.0)
    with pytest.raises(ValueError, match=r"x must be a number in \[-4.0, 4.0\] for huber"):
        LossExplorer(x=float("nan"))
    with pytest.raises(ValueError, match=r"x must be a number in \[-3.0, 9.0\] for cross_entropy"):
        LossExplorer("cross_entropy", x=-3.5)
    assert LossExplorer("cross_entropy", x=8.0).x == 8.0
