"""``aakaar.cpu`` (torch.cpu): the CPU device's module, with its ``amp`` namespace."""

from __future__ import annotations

from . import amp  # noqa: F401

__all__ = ["amp", "is_available", "device_count", "current_device", "synchronize"]


def is_available() -> bool:
    """Always True: aakaar always has the CPU."""
    return True


def device_count() -> int:
    return 1


def current_device() -> str:
    return "cpu"


def synchronize(device: object = None) -> None:
    """CPU work is synchronous: nothing to wait for."""
