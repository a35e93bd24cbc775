"""``aakaar.cpu.amp`` (torch.cpu.amp): the deprecated CPU spellings of ``aakaar.amp``'s classes."""

from __future__ import annotations

import warnings
from typing import Any

from .. import _C
from ..amp import autocast_mode, grad_scaler


class autocast(autocast_mode.autocast):  # noqa: N801  (torch's name)
    """``aakaar.amp.autocast('cpu', ...)``; deprecated in torch (a FutureWarning) and here."""

    def __init__(self, enabled: bool = True, dtype: Any = _C.dtype.bfloat16, cache_enabled: bool = True):
        warnings.warn("`torch.cpu.amp.autocast(args...)` is deprecated. Please use "
                      "`torch.amp.autocast('cpu', args...)` instead.", FutureWarning, stacklevel=2)
        super().__init__("cpu", dtype=dtype, enabled=enabled, cache_enabled=cache_enabled)


class GradScaler(grad_scaler.GradScaler):
    """``aakaar.amp.GradScaler('cpu', ...)``; deprecated in torch (a FutureWarning) and here."""

    def __init__(self, init_scale: float = 2.0**16, growth_factor: float = 2.0, backoff_factor: float = 0.5,
                 growth_interval: int = 2000, enabled: bool = True) -> None:
        warnings.warn("`torch.cpu.amp.GradScaler(args...)` is deprecated. Please use "
                      "`torch.amp.GradScaler('cpu', args...)` instead.", FutureWarning, stacklevel=2)
        super().__init__("cpu", init_scale, growth_factor, backoff_factor, growth_interval, enabled)
