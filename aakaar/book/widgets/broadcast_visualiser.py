"""BroadcastVisualiser: two shapes, the broadcast rule applied column by column, and the stride-0 reads."""
from __future__ import annotations

from typing import Sequence

import anywidget
import traitlets

from ._base import CSS, HERE, as_sizes


class BroadcastVisualiser(anywidget.AnyWidget):
    """Right-align two shapes, colour what broadcasting stretches, and show which elements each
    output reads. The rule itself is computed in ``broadcast_visualiser.js``."""

    _esm = HERE / "broadcast_visualiser.js"
    _css = CSS
    shape_a = traitlets.List(traitlets.Int(), default_value=[3, 1]).tag(sync=True)
    shape_b = traitlets.List(traitlets.Int(), default_value=[4]).tag(sync=True)

    def __init__(self, shape_a: Sequence[int] = (3, 1), shape_b: Sequence[int] = (4,), **kwargs):
        super().__init__(shape_a=as_sizes(shape_a, "shape_a"), shape_b=as_sizes(shape_b, "shape_b"), **kwargs)
