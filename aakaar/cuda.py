"""CUDA device queries, shaped like ``torch.cuda``.

The tensor kernels for ``device="cuda"`` are a later part of the library;
until they are registered, asking for a cuda tensor raises a RuntimeError
that says so. These queries work on every machine, with or without a GPU.
"""

from __future__ import annotations

from . import _C

__all__ = ["is_built", "is_available", "device_count", "get_device_name", "synchronize", "memory_allocated"]


def is_built() -> bool:
    """Whether this build of aakaar compiled its CUDA sources."""
    return _C.cuda.is_built()


def device_count() -> int:
    """Number of visible CUDA devices (0 without a GPU or driver)."""
    return _C.cuda.device_count()


def is_available() -> bool:
    """Whether tensors can be created on ``"cuda"`` in this process."""
    return is_built() and device_count() > 0 and _C.has_cuda_backend()


def get_device_name(index: int = 0) -> str:
    """The name of CUDA device ``index``."""
    return _C.cuda.device_name(index)


def synchronize() -> None:
    """Waits for all queued GPU work (nothing to wait for without a CUDA backend)."""
    if not is_available():
        raise RuntimeError("aakaar.cuda.synchronize(): no CUDA device is available")


def memory_allocated() -> int:
    """Bytes held by live cuda tensors (0 when CUDA is not available)."""
    return 0
