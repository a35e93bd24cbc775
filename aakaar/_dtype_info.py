"""``aakaar.finfo`` and ``aakaar.iinfo``: the numeric limits of a dtype, as ``torch.finfo``/``torch.iinfo``."""

from __future__ import annotations

import numpy as np

from . import _C

__all__ = ["finfo", "iinfo"]

# bfloat16 is float32 with 8 significand bits (7 stored): float32's range, a coarser step.
_BFLOAT16 = dict(bits=16, eps=2.0**-7, max=3.3895313892515355e38, tiny=2.0**-126, resolution=0.01)


class finfo:  # noqa: N801  (PyTorch's name)
    """Limits of a floating dtype: bits, eps, max, min, tiny (= smallest_normal) and resolution."""

    def __init__(self, dtype: _C.dtype | None = None) -> None:
        dtype = _C._get_default_dtype() if dtype is None else dtype  # finfo(): the default dtype's, as torch
        if not isinstance(dtype, _C.dtype):
            raise TypeError(f"finfo(): expected an aakaar dtype, got {type(dtype).__name__}")
        if not dtype.is_floating_point:
            raise TypeError(f"finfo(): {dtype!r} is not a floating point dtype; use aakaar.iinfo for integer types")
        if dtype == _C.dtype.bfloat16:
            info = _BFLOAT16
        else:
            f = np.finfo(dtype.name)
            info = dict(bits=f.bits, eps=float(f.eps), max=float(f.max), tiny=float(f.tiny),
                        resolution=10.0 ** -f.precision)  # torch: 10^-digits, not numpy's rounded copy
        self.dtype = dtype
        self.bits: int = info["bits"]
        self.eps: float = info["eps"]
        self.max: float = info["max"]
        self.min: float = -info["max"]
        self.tiny: float = info["tiny"]
        self.smallest_normal: float = info["tiny"]
        self.resolution: float = info["resolution"]

    def __repr__(self) -> str:
        return (f"finfo(resolution={self.resolution}, min={self.min:g}, max={self.max:g}, eps={self.eps:g}, "
                f"smallest_normal={self.tiny:g}, tiny={self.tiny:g}, dtype={self.dtype.name})")


class iinfo:  # noqa: N801
    """Limits of an integer dtype: bits, min and max (bool is refused, as in PyTorch)."""

    def __init__(self, dtype: _C.dtype) -> None:
        if not isinstance(dtype, _C.dtype):
            raise TypeError(f"iinfo(): expected an aakaar dtype, got {type(dtype).__name__}")
        if dtype.is_floating_point or dtype == _C.dtype.bool:
            raise TypeError(f"iinfo(): {dtype!r} is not an integer dtype; use aakaar.finfo for floating types")
        i = np.iinfo(dtype.name)
        self.dtype = dtype
        self.bits: int = i.bits
        self.min: int = int(i.min)
        self.max: int = int(i.max)

    def __repr__(self) -> str:
        return f"iinfo(min={self.min}, max={self.max}, dtype={self.dtype.name})"
