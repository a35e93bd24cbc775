"""CUDA devices and memory, shaped like ``torch.cuda``.

Tensors live on ``"cuda"`` when this build compiled the CUDA backend and a device is
usable: a real GPU (nvcc builds) or the CUDA emulator, which runs the very same kernel
sources on the CPU (``AAKAAR_CUDA=EMU`` builds; :func:`is_emulated` says which).
Every function here works on every machine; the ones that need a device raise a
RuntimeError without one.

Device memory comes from a caching allocator: freed blocks are kept for reuse, so
:func:`memory_reserved` (held from CUDA) is at least :func:`memory_allocated` (held by
live tensors), and :func:`empty_cache` hands the difference back.
"""

from __future__ import annotations

from . import _C

__all__ = [
    "is_built",
    "is_available",
    "is_emulated",
    "device_count",
    "get_device_name",
    "synchronize",
    "memory_allocated",
    "memory_reserved",
    "max_memory_allocated",
    "max_memory_reserved",
    "reset_peak_memory_stats",
    "memory_stats",
    "empty_cache",
]


def is_built() -> bool:
    """Whether this build of aakaar compiled its CUDA sources (for a GPU or the emulator)."""
    return _C.cuda.is_built()


def is_emulated() -> bool:
    """Whether ``"cuda"`` is the CUDA emulator running on the CPU rather than a GPU."""
    return _C.cuda.is_emulated()


def device_count() -> int:
    """Number of visible CUDA devices (0 without a GPU or driver; 1 on the emulator)."""
    return _C.cuda.device_count()


def is_available() -> bool:
    """Whether tensors can be created on ``"cuda"`` in this process."""
    return is_built() and device_count() > 0 and _C.has_cuda_backend()


def get_device_name(index: int = 0) -> str:
    """The name of CUDA device ``index``."""
    return _C.cuda.device_name(index)


def _require(what: str) -> None:
    if not is_available():
        raise RuntimeError(
            f"aakaar.cuda.{what}(): no CUDA device is available "
            f"(built with CUDA: {is_built()}, devices: {device_count()})"
        )


def synchronize() -> None:
    """Waits until all queued kernels and copies have finished; raises the first kernel error."""
    _require("synchronize")
    _C.cuda.synchronize()


def memory_stats() -> dict[str, int]:
    """The caching allocator's counters: bytes allocated/reserved (now and peak), allocations, cache hits."""
    if not is_built():
        return {}
    return dict(_C.cuda.memory_stats())


def _stat(name: str) -> int:
    return memory_stats().get(name, 0)


def memory_allocated() -> int:
    """Bytes of device memory held by live cuda tensors (counted in allocator size classes)."""
    return _stat("allocated_bytes")


def memory_reserved() -> int:
    """Bytes of device memory the allocator holds: live tensors plus its cache of free blocks."""
    return _stat("reserved_bytes")


def max_memory_allocated() -> int:
    """The peak of :func:`memory_allocated` since the start or the last :func:`reset_peak_memory_stats`."""
    return _stat("peak_allocated_bytes")


def max_memory_reserved() -> int:
    """The peak of :func:`memory_reserved`."""
    return _stat("peak_reserved_bytes")


def reset_peak_memory_stats() -> None:
    """Restarts the peak counters from the current values."""
    if is_built():
        _C.cuda.reset_peak_memory_stats()


def empty_cache() -> None:
    """Returns every cached, unused block to CUDA (live tensors keep theirs)."""
    if is_built():
        _C.cuda.empty_cache()
