"""LossExplorer: a loss and its gradient against the prediction, with its parameter (chapter 14)."""
from __future__ import annotations

import math

import anywidget
import traitlets

from ._base import CSS, HERE

# name: (the parameter's name, its range) or None, as in loss_explorer.js's LOSSES (a test keeps the two equal).
LOSSES: dict[str, tuple[str, float, float] | None] = {
    "mse": None,
    "l1": None,
    "huber": ("delta", 0.1, 3.0),
    "smooth_l1": ("beta", 0.0, 3.0),
    "bce_with_logits": ("target", 0.0, 1.0),
    "soft_margin": None,
    "hinge": ("margin", 0.0, 3.0),
    "cross_entropy": ("label_smoothing", 0.0, 0.5),
}
# The x axis of each loss, as in the JavaScript: (-4, 4) but for the cross-entropy, whose smoothed
# minimum lies at larger logits.
X_RANGES: dict[str, tuple[float, float]] = {name: (-4.0, 4.0) for name in LOSSES} | {"cross_entropy": (-3.0, 9.0)}


class LossExplorer(anywidget.AnyWidget):
    """Pick a loss, move its parameter (delta, beta, margin, label smoothing, a BCE target) and drag
    a point along the prediction; see the loss, its gradient and their values at the point.

    The curves are computed in ``loss_explorer.js`` from the closed forms derived in chapter 14, so
    the widget responds in the static book, which has no Python kernel;
    tests/book/widgets/test_loss_explorer.py checks every formula against ``aakaar.nn.functional``
    and the library's autograd. Python validates and holds the state.
    """

    _esm = HERE / "loss_explorer.js"
    _css = CSS
    loss = traitlets.Unicode("huber").tag(sync=True)
    params = traitlets.Dict().tag(sync=True)
    x = traitlets.Float(1.5).tag(sync=True)

    def __init__(self, loss: str = "huber", x: float = 1.5, **params: float):
        if loss not in LOSSES:
            raise ValueError(f"LossExplorer: loss must be one of {', '.join(LOSSES)}, got {loss!r}")
        checked = {}
        for key, value in params.items():
            owners = [name for name, spec in LOSSES.items() if spec and spec[0] == key]
            if not owners:
                names = sorted({spec[0] for spec in LOSSES.values() if spec})
                raise TypeError(f"LossExplorer: unknown parameter {key!r} (the parameters are {', '.join(names)})")
            _, low, high = LOSSES[owners[0]]
            if isinstance(value, bool) or not isinstance(value, (int, float)) or not low <= value <= high:
                raise ValueError(f"LossExplorer: {key} must be a number in [{low}, {high}], got {value!r}")
            checked[owners[0]] = float(value)
        low, high = X_RANGES[loss]
        if isinstance(x, bool) or not isinstance(x, (int, float)) or not math.isfinite(x) or not low <= x <= high:
            raise ValueError(f"LossExplorer: x must be a number in [{low}, {high}] for {loss}, got {x!r}")
        super().__init__(loss=loss, params=checked, x=float(x))
