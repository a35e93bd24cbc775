"""Layers for images and other spatial inputs besides convolution and pooling: ``BatchNorm2d``/``3d``,
``Dropout1d``/``2d``/``3d``, ``Upsample`` and the padding layers (``ZeroPad2d``,
``ConstantPad1d``/``2d``/``3d``, ``ReflectionPad1d``/``2d``, ``ReplicationPad1d``/``2d``/``3d``,
``CircularPad1d``/``2d``).

PyTorch's names, arguments, ``state_dict`` keys and printed form; each ``forward`` is one call of
:mod:`aakaar.nn.functional`.
"""

from __future__ import annotations

from typing import Sequence, Union

from .._C import Tensor
from . import functional as F
from .layers import Dropout, _BatchNorm
from .module import Module

__all__ = [
    "BatchNorm2d", "BatchNorm3d", "Dropout1d", "Dropout2d", "Dropout3d", "Upsample", "UpsamplingNearest2d",
    "UpsamplingBilinear2d", "ZeroPad1d", "ZeroPad2d", "ZeroPad3d", "ConstantPad1d", "ConstantPad2d", "ConstantPad3d",
    "ReflectionPad1d", "ReflectionPad2d", "ReflectionPad3d", "ReplicationPad1d", "ReplicationPad2d",
    "ReplicationPad3d", "CircularPad1d", "CircularPad2d", "CircularPad3d",
]


class BatchNorm2d(_BatchNorm):
    """Per-channel normalisation of (N, C, H, W) inputs over N, H and W, with running statistics
    (the same rules as ``BatchNorm1d``)."""

    _ranks = (4,)
    _shapes = "(N, C, H, W)"


class BatchNorm3d(_BatchNorm):
    """Per-channel normalisation of (N, C, D, H, W) inputs, with running statistics."""

    _ranks = (5,)
    _shapes = "(N, C, D, H, W)"


class Dropout1d(Dropout):
    """Zeroes whole channels of (N, C, L) or (C, L) in training mode (``F.dropout1d``)."""

    def forward(self, input: Tensor) -> Tensor:
        return F.dropout1d(input, self.p, self.training)


class Dropout2d(Dropout):
    """Zeroes whole channels of (N, C, H, W) in training mode (``F.dropout2d``)."""

    def forward(self, input: Tensor) -> Tensor:
        return F.dropout2d(input, self.p, self.training)


class Dropout3d(Dropout):
    """Zeroes whole channels of (N, C, D, H, W) or (C, D, H, W) in training mode (``F.dropout3d``)."""

    def forward(self, input: Tensor) -> Tensor:
        return F.dropout3d(input, self.p, self.training)


Size = Union[int, Sequence[int], None]


class Upsample(Module):
    """Resizes the spatial dims (``F.interpolate``) to ``size`` or by ``scale_factor``."""

    def __init__(
        self, size: Size = None, scale_factor: float | Sequence[float] | None = None, mode: str = "nearest",
        align_corners: bool | None = None, recompute_scale_factor: bool | None = None,
    ) -> None:
        super().__init__()
        self.name = type(self).__name__
        self.size = size
        if isinstance(scale_factor, (tuple, list)):
            self.scale_factor: float | tuple[float, ...] | None = tuple(float(f) for f in scale_factor)
        else:
            self.scale_factor = float(scale_factor) if scale_factor else None
        self.mode, self.align_corners, self.recompute_scale_factor = mode, align_corners, recompute_scale_factor

    def forward(self, input: Tensor) -> Tensor:
        return F.interpolate(input, self.size, self.scale_factor, self.mode, self.align_corners,
                             recompute_scale_factor=self.recompute_scale_factor)

    def extra_repr(self) -> str:
        info = f"scale_factor={self.scale_factor!r}" if self.scale_factor is not None else f"size={self.size!r}"
        return info + f", mode={self.mode!r}"


class UpsamplingNearest2d(Upsample):
    """``Upsample`` with mode 'nearest'."""

    def __init__(self, size: Size = None, scale_factor: float | Sequence[float] | None = None) -> None:
        super().__init__(size, scale_factor, mode="nearest")


class UpsamplingBilinear2d(Upsample):
    """``Upsample`` with mode 'bilinear' and align_corners=True (as PyTorch's)."""

    def __init__(self, size: Size = None, scale_factor: float | Sequence[float] | None = None) -> None:
        super().__init__(size, scale_factor, mode="bilinear", align_corners=True)


class _PadNd(Module):
    """Pads the last n dims by ``padding``: an int (every side), or (left, right[, top, bottom[,
    front, back]]), ``F.pad``'s order."""

    _n = 2
    _mode = "constant"

    def __init__(self, padding: int | Sequence[int], value: float = 0.0) -> None:
        super().__init__()
        count = 2 * self._n
        if isinstance(padding, int) and not isinstance(padding, bool):
            self.padding: tuple[int, ...] = (padding,) * count
        else:
            self.padding = tuple(padding)
            if len(self.padding) != count:
                raise ValueError(f"{type(self).__name__}: padding must be an int or a tuple of {count} ints, "
                                 f"got {padding!r}")
        self.value = value

    def forward(self, input: Tensor) -> Tensor:
        if self._mode == "constant":
            return F.pad(input, self.padding, "constant", self.value)
        return F.pad(input, self.padding, self._mode)

    def extra_repr(self) -> str:
        return f"padding={self.padding}, value={self.value}" if self._mode == "constant" else f"{self.padding}"


def _pad_class(name: str, n: int, mode: str, doc: str, zero: bool = False) -> type:
    def __init__(self, padding: int | Sequence[int], value: float = 0.0) -> None:
        _PadNd.__init__(self, padding, value)

    def __init_zero__(self, padding: int | Sequence[int]) -> None:
        _PadNd.__init__(self, padding, 0.0)

    attrs = {"_n": n, "_mode": mode, "__doc__": doc, "__module__": __name__,
             "__init__": __init_zero__ if zero or mode != "constant" else __init__}
    if zero:
        attrs["extra_repr"] = lambda self: f"{self.padding}"
    return type(name, (_PadNd,), attrs)


ZeroPad1d = _pad_class("ZeroPad1d", 1, "constant", "Pads the last dim with zeros.", zero=True)
ZeroPad2d = _pad_class("ZeroPad2d", 2, "constant", "Pads the last 2 dims with zeros.", zero=True)
ZeroPad3d = _pad_class("ZeroPad3d", 3, "constant", "Pads the last 3 dims with zeros.", zero=True)
ConstantPad1d = _pad_class("ConstantPad1d", 1, "constant", "Pads the last dim with a constant.")
ConstantPad2d = _pad_class("ConstantPad2d", 2, "constant", "Pads the last 2 dims with a constant.")
ConstantPad3d = _pad_class("ConstantPad3d", 3, "constant", "Pads the last 3 dims with a constant.")
ReflectionPad1d = _pad_class("ReflectionPad1d", 1, "reflect", "Pads the last dim with its mirror image.")
ReflectionPad2d = _pad_class("ReflectionPad2d", 2, "reflect", "Pads the last 2 dims with their mirror image.")
ReflectionPad3d = _pad_class("ReflectionPad3d", 3, "reflect", "Pads the last 3 dims with their mirror image.")
ReplicationPad1d = _pad_class("ReplicationPad1d", 1, "replicate", "Pads the last dim by repeating its edge.")
ReplicationPad2d = _pad_class("ReplicationPad2d", 2, "replicate", "Pads the last 2 dims by repeating their edges.")
ReplicationPad3d = _pad_class("ReplicationPad3d", 3, "replicate", "Pads the last 3 dims by repeating their edges.")
CircularPad1d = _pad_class("CircularPad1d", 1, "circular", "Pads the last dim by wrapping around.")
CircularPad2d = _pad_class("CircularPad2d", 2, "circular", "Pads the last 2 dims by wrapping around.")
CircularPad3d = _pad_class("CircularPad3d", 3, "circular", "Pads the last 3 dims by wrapping around.")
