"""``aakaar.amp``: automatic mixed precision (torch.amp): ``autocast`` and ``GradScaler``."""

from .autocast_mode import autocast, get_autocast_dtype, is_autocast_available, is_autocast_enabled  # noqa: F401
from .grad_scaler import GradScaler  # noqa: F401

__all__ = ["autocast", "GradScaler", "is_autocast_available", "is_autocast_enabled", "get_autocast_dtype"]
