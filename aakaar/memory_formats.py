"""``torch.memory_format``: ``contiguous_format``, ``channels_last`` (NHWC memory for an NCHW
tensor), ``channels_last_3d`` (NDHWC) and ``preserve_format``, and the methods that take them:
``contiguous``, ``is_contiguous``, ``clone`` and ``to(memory_format=)``, ``Module.to(memory_format=)``.

A channels-last tensor keeps its logical shape (N, C, H, W) and has strides (H W C, 1, W C, C):
the channels of one pixel are adjacent in memory. aakaar's kernels read any strides, so every op
accepts such a tensor (the convolution makes its own contiguous copy); what the format changes is
the layout, for code that asks for it or checks it.
"""

from __future__ import annotations

from typing import Any

from ._C import Tensor

__all__ = ["memory_format", "contiguous_format", "channels_last", "channels_last_3d", "preserve_format"]


class memory_format:  # noqa: N801  (torch's name)
    """One of the memory layouts below."""

    def __init__(self, name: str) -> None:
        self._name = name

    def __repr__(self) -> str:
        return f"aakaar.{self._name}"


contiguous_format = memory_format("contiguous_format")
channels_last = memory_format("channels_last")
channels_last_3d = memory_format("channels_last_3d")
preserve_format = memory_format("preserve_format")

# The dim order of each channels-last format, outermost first: N, then the spatial dims, then C.
_ORDER = {channels_last: (0, 2, 3, 1), channels_last_3d: (0, 2, 3, 4, 1)}


def _check_rank(t: Tensor, fmt: memory_format) -> None:
    rank = len(_ORDER[fmt])
    if t.ndim != rank:
        raise RuntimeError(f"required rank {rank} tensor to use {fmt._name} format")


def _dense_strides(shape: tuple, order: tuple) -> list[int]:
    """The strides of a tensor of this shape laid out densely in this dim order (outermost first)."""
    strides = [0] * len(shape)
    step = 1
    for d in reversed(order):
        strides[d] = step
        step *= max(shape[d], 1)
    return strides


def _has_layout(t: Tensor, order: tuple) -> bool:
    """Whether t's strides are the dense ones of `order` (dims of size 1 may have any stride, as torch allows)."""
    expected = _dense_strides(tuple(t.shape), order)
    return all(t.shape[d] == 1 or t.stride(d) == expected[d] for d in range(t.ndim))


def _in_layout(t: Tensor, order: tuple) -> Tensor:
    """A copy of t (same shape and values) laid out in `order`."""
    inverse = [order.index(d) for d in range(len(order))]
    return t.permute(*order).contiguous().permute(*inverse)


def _format_of(t: Tensor) -> memory_format:
    """What preserve_format keeps: channels-last when t is laid out so (and not plain contiguous)."""
    for fmt, order in _ORDER.items():
        if t.ndim == len(order) and _has_layout(t, order) and not t.is_contiguous():
            return fmt
    return contiguous_format


def _check_format(fmt: Any, fn: str) -> memory_format:
    if not isinstance(fmt, memory_format):
        raise TypeError(f"{fn}(): argument 'memory_format' must be aakaar.memory_format, not {type(fmt).__name__}")
    return fmt


def install() -> None:
    """contiguous/is_contiguous/clone/to with torch's memory_format argument."""
    contiguous_plain, is_contiguous_plain, clone_plain, to_plain = (Tensor.contiguous, Tensor.is_contiguous,
                                                                    Tensor.clone, Tensor.to)

    def contiguous(self: Tensor, memory_format: Any = contiguous_format) -> Tensor:
        """This tensor if already laid out in memory_format, else a copy that is."""
        fmt = _check_format(memory_format, "contiguous")
        if fmt in (contiguous_format, preserve_format):
            return contiguous_plain(self)
        _check_rank(self, fmt)
        return self if _has_layout(self, _ORDER[fmt]) else _in_layout(self, _ORDER[fmt])

    def is_contiguous(self: Tensor, memory_format: Any = contiguous_format) -> bool:
        """Whether the layout is row-major with no gaps (or channels-last, when asked)."""
        fmt = _check_format(memory_format, "is_contiguous")
        if fmt in (contiguous_format, preserve_format):  # torch answers preserve_format as contiguous_format
            return is_contiguous_plain(self)
        return self.ndim == len(_ORDER[fmt]) and _has_layout(self, _ORDER[fmt])

    def clone(self: Tensor, *, memory_format: Any = preserve_format) -> Tensor:
        """A copy with its own storage, in memory_format (preserve_format: channels-last stays so)."""
        fmt = _check_format(memory_format, "clone")
        if fmt is preserve_format:
            fmt = _format_of(self)
        if fmt is contiguous_format:
            return clone_plain(self)
        _check_rank(self, fmt)
        return _in_layout(self, _ORDER[fmt])

    def to(self: Tensor, *args: Any, memory_format: Any = None, **kwargs: Any) -> Tensor:
        out = to_plain(self, *args, **kwargs)
        if memory_format is None or _check_format(memory_format, "to") is preserve_format:
            return out
        converted = contiguous(out, memory_format)
        return converted

    to.__doc__ = to_plain.__doc__
    Tensor.contiguous, Tensor.is_contiguous, Tensor.clone, Tensor.to = contiguous, is_contiguous, clone, to
