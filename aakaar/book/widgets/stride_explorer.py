"""StrideExplorer: pick a shape, strides, offset and a view operation; see the storage each element reads."""
from __future__ import annotations

from typing import Sequence

import anywidget
import traitlets

from ._base import CSS, HERE, as_sizes

VIEW_OPS = ("none", "transpose", "step", "select", "expand", "flatten")


def _row_major(shape: Sequence[int]) -> list[int]:
    strides, acc = [0] * len(shape), 1
    for d in range(len(shape) - 1, -1, -1):
        strides[d] = acc
        acc *= max(shape[d], 1)
    return strides


class StrideExplorer(anywidget.AnyWidget):
    """A tensor as (storage, offset, shape, strides), drawn cell by cell.

    All arithmetic runs in ``stride_explorer.js``; changing a control in the page (or a trait here,
    in a live notebook) redraws it. ``view_op`` is one of ``VIEW_OPS``.
    """

    _esm = HERE / "stride_explorer.js"
    _css = CSS
    shape = traitlets.List(traitlets.Int(), default_value=[3, 4]).tag(sync=True)
    strides = traitlets.List(traitlets.Int(), default_value=[4, 1]).tag(sync=True)
    offset = traitlets.Int(0).tag(sync=True)
    storage_size = traitlets.Int(12).tag(sync=True)
    view_op = traitlets.Unicode("none").tag(sync=True)

    def __init__(self, shape: Sequence[int] = (3, 4), strides: Sequence[int] | None = None,
                 offset: int = 0, storage_size: int | None = None, view_op: str = "none", **kwargs):
        shape = as_sizes(shape, "shape")
        strides = _row_major(shape) if strides is None else as_sizes(strides, "strides")
        if len(strides) != len(shape):
            raise ValueError(f"strides {tuple(strides)} need one entry per dimension of shape {tuple(shape)}")
        if offset < 0:
            raise ValueError(f"offset must be >= 0, got {offset}")
        if view_op not in VIEW_OPS:
            raise ValueError(f"view_op must be one of {VIEW_OPS}, got {view_op!r}")
        # By default the storage is exactly as large as the furthest element needs.
        furthest = offset + sum((s - 1) * st for s, st in zip(shape, strides)) if all(shape) else offset - 1
        if storage_size is None:
            storage_size = max(furthest + 1, 1)
        super().__init__(shape=shape, strides=strides, offset=offset, storage_size=storage_size,
                         view_op=view_op, **kwargs)

    @classmethod
    def from_tensor(cls, t, view_op: str = "none") -> "StrideExplorer":
        """Explore a real tensor's metadata (anything with .shape, .stride() and .storage_offset())."""
        try:
            shape, strides, offset = tuple(t.shape), tuple(t.stride()), int(t.storage_offset())
        except AttributeError as e:
            raise TypeError(f"from_tensor needs a tensor with .shape, .stride() and .storage_offset(), "
                            f"got {type(t).__name__}") from e
        return cls(shape, strides, offset, view_op=view_op)
