"""A Python model of the caching device allocator (csrc/cuda/allocator.cu), for chapter 10.

The book is built on machines without a GPU, so the chapter shows the allocator's policy
through this model: the same size classes (checked against the C++ constants by
tests/book/test_gpu_chapters.py) and the same free lists, counting what the real one
counts in ``aakaar.cuda.memory_stats()``.
"""
from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field

SMALL_STEP = 512          # kSmallStep in allocator.cu: granularity of small classes
SMALL_LIMIT = 1 << 20     # kSmallLimit: 1 MiB; above it, four classes per power of two


def size_class(nbytes: int) -> int:
    """The block size a request of ``nbytes`` is served from (allocator.cu's size_class)."""
    if nbytes < 0:
        raise ValueError(f"size_class: nbytes must be >= 0, got {nbytes}")
    if nbytes <= SMALL_LIMIT:
        return max(SMALL_STEP, -(-nbytes // SMALL_STEP) * SMALL_STEP)
    pow2 = SMALL_LIMIT
    while pow2 * 2 <= nbytes:
        pow2 *= 2
    step = pow2 // 4
    return -(-nbytes // step) * step


@dataclass
class CachingAllocatorModel:
    """Free lists per size class; ``device_mallocs`` counts what would have been cudaMalloc calls."""

    allocated: int = 0
    reserved: int = 0
    peak_allocated: int = 0
    peak_reserved: int = 0
    num_allocs: int = 0
    num_cache_hits: int = 0
    num_device_mallocs: int = 0
    num_device_frees: int = 0
    free: dict[int, int] = field(default_factory=lambda: defaultdict(int))  # class -> cached blocks
    live: dict[int, int] = field(default_factory=dict)                         # handle -> class
    _next: int = 0

    def malloc(self, nbytes: int) -> int:
        """A handle to a block of at least ``nbytes``; reuses a cached block of the same class."""
        size = size_class(nbytes)
        self.num_allocs += 1
        if self.free[size]:
            self.free[size] -= 1
            self.num_cache_hits += 1
        else:
            self.num_device_mallocs += 1
            self.reserved += size
            self.peak_reserved = max(self.peak_reserved, self.reserved)
        self._next += 1
        self.live[self._next] = size
        self.allocated += size
        self.peak_allocated = max(self.peak_allocated, self.allocated)
        return self._next

    def release(self, handle: int) -> None:
        """The block goes back to its free list (not to the device)."""
        size = self.live.pop(handle)
        self.free[size] += 1
        self.allocated -= size

    def empty_cache(self) -> None:
        """Every cached block goes back to the device."""
        for size, count in self.free.items():
            self.num_device_frees += count
            self.reserved -= size * count
        self.free.clear()

    def stats(self) -> dict[str, int]:
        """The counters under the names ``aakaar.cuda.memory_stats()`` uses."""
        return {"allocated_bytes": self.allocated, "reserved_bytes": self.reserved,
                "peak_allocated_bytes": self.peak_allocated, "peak_reserved_bytes": self.peak_reserved,
                "num_allocs": self.num_allocs, "num_cache_hits": self.num_cache_hits,
                "num_device_mallocs": self.num_device_mallocs, "num_device_frees": self.num_device_frees}
