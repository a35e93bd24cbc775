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
NaN (or -1 for integers), never as zeros, and it checks every access, like
``compute-sanitizer --tool racecheck``: reading an element no thread has written, or one
that another thread wrote since the last barrier, writing one that another thread read or
wrote since the last barrier, and calling ``syncthreads()`` without ``yield`` are
:class:`SimError` errors that name the threads and the element. Global arrays passed through
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
    __slots__ = ("owner", "yielded")

    def __init__(self, owner: "Thread | None"):
        self.owner, self.yielded = owner, False


# The thread whose code runs right now (the scheduler sets it before resuming one).
_running: "Thread | None" = None


def _check_no_plain_barrier(t: "Thread") -> None:
    """A ``syncthreads()`` whose result was never yielded is a barrier that did not happen."""
    if t.unyielded:
        raise SimError(f"{t} called syncthreads() without yield: in this emulator a barrier is "
                       "`yield syncthreads()` (a plain call waits for nobody; see chapter 7)")


class _Shfl(NamedTuple):
    value: Any
    delta: int


def syncthreads() -> _Sync:
    """``yield syncthreads()``: wait until every thread of the block is here."""
    s = _Sync(_running)
    if _running is not None:
        _running.unyielded.append(s)
    return s


def shfl_down(value: Any, delta: int) -> _Shfl:
    """``v = yield shfl_down(v, d)``: get lane (lane + d)'s value (your own when that is past lane 31)."""
    return _Shfl(value, int(delta))


class Thread:
    """What a CUDA thread can see: its coordinates, the block's shared memory."""

    __slots__ = ("threadIdx", "blockIdx", "blockDim", "gridDim", "shared", "linear", "reads", "unyielded")

    def __init__(self, thread_idx: Dim3, block_idx: Dim3, block_dim: Dim3, grid_dim: Dim3, shared: dict):
        self.threadIdx, self.blockIdx, self.blockDim, self.gridDim = thread_idx, block_idx, block_dim, grid_dim
        self.shared = shared
        # threadIdx.x varies fastest: this is the order warps are cut from (warp = linear // 32).
        self.linear = thread_idx.x + block_dim.x * (thread_idx.y + block_dim.y * thread_idx.z)
        self.reads = 0  # elements read through CountingArray
        self.unyielded: list[_Sync] = []  # syncthreads() results not (yet) yielded

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


class _Phase:
    """A block's barrier count: accesses between two barriers are in the same phase."""

    def __init__(self) -> None:
        self.n = 0


class SharedArray:
    """A block's ``__shared__`` array that checks every access for races.

    Per element it remembers who wrote it last and in which phase, and who read it in the
    current phase. Indexing works as on the numpy array it wraps (ints, slices, tuples).
    """

    def __init__(self, name: str, data: np.ndarray, phase: _Phase, threads: list["Thread"]):
        self.name, self.data, self._phase, self._threads = name, data, phase, threads
        self.shape, self.dtype, self.ndim = data.shape, data.dtype, data.ndim
        n = data.size
        self._writer = np.full(n, -1, np.int64)      # linear id of the last writer (-1: never written)
        self._wphase = np.full(n, -1, np.int64)
        self._reader = np.full(n, -1, np.int64)      # a reader in _rphase; -2: several threads
        self._rphase = np.full(n, -1, np.int64)
        self._ids = np.arange(n).reshape(data.shape)

    def __len__(self) -> int:
        return len(self.data)

    def __array__(self, dtype=None, copy=None):
        return np.asarray(self.data, dtype=dtype)

    def __repr__(self) -> str:
        return f"SharedArray({self.name!r}, {self.data!r})"

    def _where(self, flat: int) -> str:
        idx = np.unravel_index(flat, self.shape)
        return f"{self.name}[{', '.join(str(int(i)) for i in idx)}]"

    def _flat(self, key) -> np.ndarray:
        return np.atleast_1d(self._ids[key]).ravel()

    def __getitem__(self, key):
        t, phase = _running, self._phase.n
        if t is not None:
            _check_no_plain_barrier(t)
            for e in self._flat(key):
                w = self._writer[e]
                if w == -1:
                    raise SimError(f"{t} reads {self._where(e)}, which no thread has written yet: is a "
                                   "`yield syncthreads()` missing between the stores and this read, or does "
                                   "the index point outside what the block stored?")
                if w != t.linear and self._wphase[e] == phase:
                    raise SimError(f"race: {t} reads {self._where(e)}, which {self._threads[w]} wrote after "
                                   "the last barrier: a `yield syncthreads()` is missing between that store "
                                   "and this read (if one follows the stores, is there one after the reads, "
                                   "before the next stores overwrite what others still read?)")
                if self._rphase[e] != phase:
                    self._rphase[e], self._reader[e] = phase, t.linear
                elif self._reader[e] != t.linear:
                    self._reader[e] = -2
        return self.data[key]

    def __setitem__(self, key, value):
        t, phase = _running, self._phase.n
        if t is not None:
            _check_no_plain_barrier(t)
            for e in self._flat(key):
                r = self._reader[e]
                if self._rphase[e] == phase and r != t.linear:
                    other = "other threads" if r == -2 else str(self._threads[r])
                    raise SimError(f"race: {t} overwrites {self._where(e)}, which {other} read after the last "
                                   "barrier: the next values arrive before everyone has used the old ones "
                                   "(a `yield syncthreads()` is missing after the reads)")
                if self._wphase[e] == phase and self._writer[e] not in (-1, t.linear):
                    raise SimError(f"race: {t} and {self._threads[self._writer[e]]} both write "
                                   f"{self._where(e)} between two barriers")
                self._writer[e], self._wphase[e] = t.linear, phase
        self.data[key] = value


def _dim3(v, what: str) -> Dim3:
    d = Dim3(*v) if isinstance(v, tuple) else Dim3(int(v))
    if any(not isinstance(c, (int, np.integer)) or c < 1 for c in d):
        raise ValueError(f"{what} must be a positive int or a tuple of up to 3 positive ints, got {v!r}")
    return d


def _fresh_shared(spec: dict, phase: _Phase, threads: list["Thread"]) -> dict:
    out = {}
    for name, (shape, dtype) in spec.items():
        dtype = np.dtype(dtype)
        out[name] = SharedArray(name, np.full(shape, np.nan if dtype.kind == "f" else -1, dtype), phase, threads)
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
                phase, threads = _Phase(), []
                smem = _fresh_shared(shared or {}, phase, threads)
                threads += [Thread(Dim3(tx, ty, tz), Dim3(bx, by, bz), block_dim, grid_dim, smem)
                            for tz in range(block_dim.z) for ty in range(block_dim.y) for tx in range(block_dim.x)]
                _run_block(kernel, threads, args, counters, order, phase)
                everyone += threads
    return everyone


def _run_block(kernel, threads: list[Thread], args: tuple, counters: list[CountingArray], order: str,
               phase: _Phase) -> None:
    try:
        _schedule_block(kernel, threads, args, counters, order, phase)
    finally:
        _set_running(None)


def _set_running(t: Thread | None) -> None:
    global _running
    _running = t


def _schedule_block(kernel, threads: list[Thread], args: tuple, counters: list[CountingArray], order: str,
                    phase: _Phase) -> None:
    gens = {}
    # A plain (non-generator) kernel runs entirely inside this call, so the order applies here too.
    for t in (reversed(threads) if order == "reverse" else threads):
        for c in counters:
            c.current = t
        _set_running(t)
        g = kernel(t, *args)
        gens[t.linear] = g if hasattr(g, "send") else None  # a plain function ran to its end already
        if gens[t.linear] is None:
            _check_no_plain_barrier(t)
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
            _set_running(threads[k])
            try:
                req = gens[k].send(send.pop(k, None))
            except StopIteration:
                _check_no_plain_barrier(threads[k])
                done.add(k)
                continue
            if isinstance(req, _Sync) and req in threads[k].unyielded:
                threads[k].unyielded.remove(req)
            _check_no_plain_barrier(threads[k])
            if not isinstance(req, (_Sync, _Shfl)):
                raise SimError(f"{threads[k]} yielded {req!r}: yield syncthreads() or shfl_down(v, d)")
            waiting[k] = req
        for c in counters:
            c.current = None
        _set_running(None)
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
            phase.n += 1  # what was written before the barrier is now safe to read by anyone
            progressed = True
        if not progressed:
            kinds = sorted({type(r).__name__.strip('_') for r in waiting.values()})
            raise SimError(f"block {tuple(threads[0].blockIdx)} is stuck: threads wait at {kinds} that cannot "
                           f"complete ({len(done)} threads returned; a shuffle needs every lane of its warp, "
                           "a barrier every thread of the block)")
