"""The CUDA programming model in a page of Python, for the exercises of chapters 7-9.

The C++ emulator (``csrc/cuda/emu``) runs each CUDA thread as a *fiber*: a function with
its own stack that the block's scheduler resumes in turn and that gives the CPU back at
every barrier. Python generators are exactly that, so here a kernel is a generator
function called once per thread::

    def kernel(t, x, out):                      # t: this thread's threadIdx, blockIdx, ...
        i = t.blockIdx.x * t.blockDim.x + t.threadIdx.x
        t.shared["buf"][t.threadIdx.x] = x[i]
        yield syncthreads()                     # __syncthreads()
        v = yield shfl_down(v, 16)              # __shfl_down_sync(0xffffffff, v, 16)

    launch(kernel, grid=4, block=64, args=(x, out), shared={"buf": (64, np.float32)})

A block's threads run one at a time, each until its next ``yield``; a barrier releases
when every thread of the block waits at it, a shuffle when every lane of the warp asks
for one. As in the C++ emulator, a barrier that some threads never reach is an error,
not a hang, and ``order="reverse"`` runs the threads last-first, so a kernel that
forgot a barrier gives different answers in the two orders. Shared memory starts as
NaN (or -1 for integers), never as zeros. Global arrays passed through
:class:`CountingArray` count the elements each thread reads.
"""
from __future__ import annotations

from typing import Any, Callable, NamedTuple

import numpy as np

WARP = 32


class Dim3(NamedTuple):
    x: int = 1
    y: int = 1
    z: int = 1


class SimError(RuntimeError):
    """A kernel broke a rule of the programming model (a barrier not reached by every thread, ...)."""


class _Sync:
    __slots__ = ()


class _Shfl(NamedTuple):
    value: Any
    delta: int


def syncthreads() -> _Sync:
    """``yield syncthreads()``: wait until every thread of the block is here."""
    return _Sync()


def shfl_down(value: Any, delta: int) -> _Shfl:
    """``v = yield shfl_down(v, d)``: get lane (lane + d)'s value (your own when that is past lane 31)."""
    return _Shfl(value, int(delta))


class Thread:
    """What a CUDA thread can see: its coordinates, the block's shared memory."""

    __slots__ = ("threadIdx", "blockIdx", "blockDim", "gridDim", "shared", "linear", "reads")

    def __init__(self, thread_idx: Dim3, block_idx: Dim3, block_dim: Dim3, grid_dim: Dim3, shared: dict):
        self.threadIdx, self.blockIdx, self.blockDim, self.gridDim = thread_idx, block_idx, block_dim, grid_dim
        self.shared = shared
        # threadIdx.x varies fastest: this is the order warps are cut from (warp = linear // 32).
        self.linear = thread_idx.x + block_dim.x * (thread_idx.y + block_dim.y * thread_idx.z)
        self.reads = 0  # elements read through CountingArray

    def __repr__(self) -> str:
        return f"thread {tuple(self.threadIdx)} of block {tuple(self.blockIdx)}"


class CountingArray:
    """A numpy array that counts how many elements each thread reads from it (global memory traffic)."""

    def __init__(self, array: np.ndarray):
        self.array = array
        self.shape, self.dtype, self.ndim = array.shape, array.dtype, array.ndim
        self.current: Thread | None = None  # set by launch before resuming a thread

    def __getitem__(self, key):
        value = self.array[key]
        if self.current is not None:
            self.current.reads += int(np.size(value))
        return value

    def __setitem__(self, key, value):
        self.array[key] = value

    def __len__(self) -> int:
        return len(self.array)


def _dim3(v, what: str) -> Dim3:
    d = Dim3(*v) if isinstance(v, tuple) else Dim3(int(v))
    if any(not isinstance(c, (int, np.integer)) or c < 1 for c in d):
        raise ValueError(f"{what} must be a positive int or a tuple of up to 3 positive ints, got {v!r}")
    return d


def _fresh_shared(spec: dict) -> dict:
    out = {}
    for name, (shape, dtype) in spec.items():
        dtype = np.dtype(dtype)
        out[name] = np.full(shape, np.nan if dtype.kind == "f" else -1, dtype)
    return out


def launch(kernel: Callable, grid, block, args: tuple = (), shared: dict | None = None,
           order: str = "forward") -> list[Thread]:
    """Run ``kernel(thread, *args)`` on every thread of a ``grid`` of ``block``-sized blocks.

    Returns the Thread objects (their ``reads`` counters say how much each read).
    """
    grid_dim, block_dim = _dim3(grid, "grid"), _dim3(block, "block")
    if block_dim.x * block_dim.y * block_dim.z > 1024:
        raise SimError(f"a block has at most 1024 threads, got {tuple(block_dim)}")
    if order not in ("forward", "reverse"):
        raise ValueError(f"order must be 'forward' or 'reverse', got {order!r}")
    counters = [a for a in args if isinstance(a, CountingArray)]
    everyone = []
    for bz in range(grid_dim.z):
        for by in range(grid_dim.y):
            for bx in range(grid_dim.x):
                smem = _fresh_shared(shared or {})
                threads = [Thread(Dim3(tx, ty, tz), Dim3(bx, by, bz), block_dim, grid_dim, smem)
                           for tz in range(block_dim.z) for ty in range(block_dim.y) for tx in range(block_dim.x)]
                _run_block(kernel, threads, args, counters, order)
                everyone += threads
    return everyone


def _run_block(kernel, threads: list[Thread], args: tuple, counters: list[CountingArray], order: str) -> None:
    gens = {}
    for t in threads:
        for c in counters:  # a plain (non-generator) kernel runs entirely inside this call
            c.current = t
        g = kernel(t, *args)
        gens[t.linear] = g if hasattr(g, "send") else None  # a plain function ran to its end already
    waiting: dict[int, Any] = {}       # thread -> what it waits for (_Sync or _Shfl)
    send: dict[int, Any] = {k: None for k in gens}  # thread -> value to resume it with
    done = {k for k, g in gens.items() if g is None}
    ids = sorted(gens, reverse=(order == "reverse"))
    while len(done) < len(gens):
        for k in ids:  # run every runnable thread until it blocks or ends
            if k in done or k in waiting:
                continue
            for c in counters:
                c.current = threads[k]
            try:
                req = gens[k].send(send.pop(k, None))
            except StopIteration:
                done.add(k)
                continue
            if not isinstance(req, (_Sync, _Shfl)):
                raise SimError(f"{threads[k]} yielded {req!r}: yield syncthreads() or shfl_down(v, d)")
            waiting[k] = req
        for c in counters:
            c.current = None
        if not waiting:
            continue
        progressed = False
        # Shuffles: a warp exchanges when every lane of it that exists is waiting at one.
        for w in sorted({k // WARP for k in waiting}):
            lanes = [k for k in gens if k // WARP == w]
            if all(isinstance(waiting.get(k), _Shfl) for k in lanes):
                values = {k: waiting[k].value for k in lanes}
                for k in lanes:
                    src = k + waiting[k].delta
                    send[k] = values[src] if src in values and src // WARP == w else values[k]
                    del waiting[k]
                progressed = True
        # The barrier: released when every thread of the block waits at it.
        if not progressed and all(isinstance(waiting.get(k), _Sync) for k in gens if k not in done) and waiting:
            if done:
                raise SimError(f"__syncthreads() not reached by every thread of block {tuple(threads[0].blockIdx)}: "
                               f"{len(waiting)} threads wait at it but {len(done)} have already returned "
                               f"(e.g. {threads[min(done)]}); a barrier must not sit in code some threads skip")
            for k in list(waiting):
                send[k] = None
                del waiting[k]
            progressed = True
        if not progressed:
            kinds = sorted({type(r).__name__.strip('_') for r in waiting.values()})
            raise SimError(f"block {tuple(threads[0].blockIdx)} is stuck: threads wait at {kinds} that cannot "
                           f"complete ({len(done)} threads returned; a shuffle needs every lane of its warp, "
                           "a barrier every thread of the block)")
