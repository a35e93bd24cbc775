"""Where the time goes: every kernel call timed at the backend table.

    with aakaar.profiler.profile() as prof:
        train_one_epoch()
    print(prof.table(row_limit=10))

Every op reaches its kernels through one per-device table (``csrc/core/backend.h``); while a
:class:`profile` is open, that table's entries are timed (``csrc/core/profiler.cpp``). A row is a
table entry and, for ``binary``, ``unary``, ``reduce`` and the pointwise losses, the operation
(``binary`` / ``mul``). Times are *self* times: an entry running inside another is not counted
twice. What no row holds — Python, argument checks, shape work, the autograd engine's bookkeeping,
the allocator's fast path outside ``allocate`` — is the profile's wall time minus the rows' sum,
:attr:`profile.outside_kernels_seconds`.

CUDA entries are timed on the host: a launch returns before the GPU has finished, so a GPU profile
shows what launching costs (call :func:`aakaar.cuda.synchronize` inside the block to wait for the work).
Like ``torch.profiler.profile`` this is a context manager; it records kernel calls only (no shapes,
no stacks), and it costs two clock reads per kernel call while open, nothing when closed.
"""
from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any

from . import _C

__all__ = ["Event", "profile"]


@dataclass(frozen=True)
class Event:
    """One backend-table entry (and operation) over the profiled block."""
    device: str
    entry: str
    op: str
    count: int
    self_seconds: float   # without the entries it called
    total_seconds: float  # with them

    @property
    def name(self) -> str:
        """``entry`` or ``entry/op`` (``binary/mul``, ``bmm``)."""
        return f"{self.entry}/{self.op}" if self.op else self.entry


class profile:
    """Times every kernel call made while the block runs (see the module docstring)."""

    def __init__(self) -> None:
        self._events: list[Event] | None = None
        self.wall_seconds: float = 0.0
        self._start = 0.0

    def __enter__(self) -> "profile":
        if _C._profiler_recording():
            raise RuntimeError("aakaar.profiler.profile: another profile is open; profiles do not nest")
        _C._profiler_start()
        self._start = time.perf_counter()
        return self

    def __exit__(self, *exc: Any) -> None:
        self.wall_seconds = time.perf_counter() - self._start
        self._events = [Event(d, e, op, calls, self_ns * 1e-9, total_ns * 1e-9)
                        for d, e, op, calls, self_ns, total_ns in _C._profiler_stop()]

    def events(self) -> list[Event]:
        """The rows, most self time first (the profile must have been closed)."""
        if self._events is None:
            raise RuntimeError("aakaar.profiler.profile: the block has not finished; read the events after it")
        return list(self._events)

    key_averages = events  # PyTorch's name for the aggregated rows

    @property
    def kernel_seconds(self) -> float:
        """The sum of the rows' self times: the time spent inside kernels."""
        return sum(e.self_seconds for e in self.events())

    @property
    def outside_kernels_seconds(self) -> float:
        """Wall time not inside any kernel: Python, checks, shapes, the autograd engine."""
        return max(self.wall_seconds - self.kernel_seconds, 0.0)

    def table(self, row_limit: int = 20) -> str:
        """A plain-text table of the rows, with their share of the wall time."""
        events = self.events()
        wall = max(self.wall_seconds, 1e-12)
        lines = [f"{'entry':<28} {'device':<6} {'calls':>8} {'self ms':>10} {'share':>7}"]
        for e in events[:row_limit]:
            lines.append(f"{e.name:<28} {e.device:<6} {e.count:>8} {e.self_seconds * 1e3:>10.2f} "
                         f"{e.self_seconds / wall:>7.1%}")
        if len(events) > row_limit:
            rest = sum(e.self_seconds for e in events[row_limit:])
            lines.append(f"{f'({len(events) - row_limit} more)':<28} {'':<6} {'':>8} {rest * 1e3:>10.2f} "
                         f"{rest / wall:>7.1%}")
        lines.append(f"{'outside kernels':<28} {'':<6} {'':>8} {self.outside_kernels_seconds * 1e3:>10.2f} "
                     f"{self.outside_kernels_seconds / wall:>7.1%}")
        lines.append(f"{'wall':<28} {'':<6} {'':>8} {self.wall_seconds * 1e3:>10.2f}")
        return "\n".join(lines)
