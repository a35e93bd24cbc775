"""Static matplotlib pictures of tensor layouts, for the book's figures.

The interactive explorers redraw in the browser; these functions draw the same idea once, as a
figure that also survives printing. They take plain metadata (shape, strides, offset), so they
work for real aakaar tensors, numpy arrays, or hypothetical layouts alike.
"""
from __future__ import annotations

import itertools
from typing import Sequence

from .widgets._base import as_sizes


def element_addresses(shape: Sequence[int], strides: Sequence[int], offset: int = 0) -> list[tuple[tuple[int, ...], int]]:
    """``[(index, storage address)]`` in row-major order: the address formula, spelled out."""
    shape, strides = as_sizes(shape, "shape"), as_sizes(strides, "strides", allow_negative=True)
    if len(shape) != len(strides):
        raise ValueError(f"shape {tuple(shape)} and strides {tuple(strides)} need the same length")
    return [(idx, offset + sum(i * s for i, s in zip(idx, strides)))
            for idx in itertools.product(*(range(n) for n in shape))]


def draw_layout(ax, shape: Sequence[int], strides: Sequence[int], offset: int = 0,
                storage_size: int | None = None, title: str = "") -> None:
    """Draw a 1-d or 2-d view above its storage, with a line from each element to its cell."""
    import matplotlib.patches as patches

    if len(shape) > 2:
        raise ValueError(f"draw_layout draws 1-d or 2-d views; got shape {tuple(shape)}")
    addrs = element_addresses(shape, strides, offset)
    rows, cols = (1, shape[0]) if len(shape) == 1 else (shape[0], shape[1]) if shape else (1, 1)
    if storage_size is None:
        storage_size = max((a for _, a in addrs), default=-1) + 1
    width = max(storage_size, cols) + 1
    colors = ["#4C8BE0", "#F0A030", "#5BB35B", "#D9534F", "#9467BD", "#8C564B"]
    # storage strip at the bottom
    for k in range(storage_size):
        ax.add_patch(patches.Rectangle((k, 0), 0.9, 0.9, fill=False, lw=1))
        ax.text(k + 0.45, 0.45, str(k), ha="center", va="center", fontsize=8)
    ax.text(-0.3, 0.45, "storage", ha="right", va="center", fontsize=9)
    top = 2.5
    for idx, a in addrs:
        r, c = (0, idx[0]) if len(idx) == 1 else (idx[0], idx[1]) if idx else (0, 0)
        x, y = c * 1.2 + (width - cols * 1.2) / 2, top + (rows - 1 - r) * 1.1
        col = colors[r % len(colors)]
        ax.add_patch(patches.Rectangle((x, y), 1.0, 0.9, color=col, alpha=0.35))
        ax.text(x + 0.5, y + 0.45, str(a), ha="center", va="center", fontsize=8)
        if 0 <= a < storage_size:
            ax.add_patch(patches.Rectangle((a, 0), 0.9, 0.9, color=col, alpha=0.35))
            ax.annotate("", xy=(a + 0.45, 0.9), xytext=(x + 0.5, y),
                        arrowprops=dict(arrowstyle="->", color=col, alpha=0.5, lw=0.8))
    ax.text(-0.3, top + rows * 0.55, "view", ha="right", va="center", fontsize=9)
    ax.set_xlim(-2.2, width + 0.5)
    ax.set_ylim(-0.3, top + rows * 1.1 + 0.3)
    ax.set_aspect("equal")
    ax.axis("off")
    ax.set_title(title or f"shape {tuple(shape)}, strides {tuple(strides)}, offset {offset}", fontsize=10)
