"""LaunchExplorer: a 1-D kernel launch's index arithmetic and the memory sectors each warp reads.

The arithmetic (grid size, global index, 32-byte sectors per warp) runs in ``launch_explorer.js``
so the widget works in the static book; Python only validates and holds the four numbers."""
from __future__ import annotations

import anywidget
import traitlets

from ._base import CSS, HERE


def _positive(value, what: str, low: int = 1, high: int | None = None) -> int:
    if isinstance(value, bool) or not hasattr(value, "__index__"):
        raise TypeError(f"{what} must be an int, got {value!r}")
    value = int(value.__index__())
    if value < low or (high is not None and value > high):
        raise ValueError(f"{what} must be between {low} and {high}, got {value}" if high is not None
                         else f"{what} must be >= {low}, got {value}")
    return value


class LaunchExplorer(anywidget.AnyWidget):
    """``n`` elements, ``block`` threads per block, thread i reading element ``i * stride``; ``warp``
    picks the warp whose memory sectors are counted."""

    _esm = HERE / "launch_explorer.js"
    _css = CSS
    n = traitlets.Int(200).tag(sync=True)
    block = traitlets.Int(64).tag(sync=True)
    stride = traitlets.Int(1).tag(sync=True)
    warp = traitlets.Int(0).tag(sync=True)

    def __init__(self, n: int = 200, block: int = 64, stride: int = 1, warp: int = 0, **kwargs):
        n, block = _positive(n, "n"), _positive(block, "block", 1, 1024)
        stride, warp = _positive(stride, "stride"), _positive(warp, "warp", 0)
        warps = -(-n // block) * -(-block // 32)
        if warp >= warps:
            raise ValueError(f"warp must be below {warps} (the launch has {warps} warps), got {warp}")
        super().__init__(n=n, block=block, stride=stride, warp=warp, **kwargs)
