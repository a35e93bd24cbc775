"""The caching CPU allocator (csrc/core/storage.cpp): freed blocks are reused,
the cache respects its cap, empty_cache gives everything back, the counters
stay consistent when several threads allocate, and bad input is refused."""

from __future__ import annotations

import threading

import numpy as np
import pytest

import aakaar as ak
import aakaar.nn.functional as F
from aakaar import _C

MIB = 1 << 20


@pytest.fixture(autouse=True)
def _restore_limit():
    """Each test starts from an empty cache and leaves the limit as it found it."""
    limit = _C.cpu_allocator_stats()["cache_limit_bytes"]
    _C.empty_cache()
    yield
    _C.set_cpu_cache_limit(limit)
    _C.empty_cache()


def test_size_classes():
    assert _C.cpu_size_class(0) == 64
    assert _C.cpu_size_class(100) == 128  # below 4 KiB: whole cache lines, straight from malloc
    assert _C.cpu_size_class(4096) == 4096
    assert _C.cpu_size_class(4097) == 5120  # quarter steps of the power of two below
    assert _C.cpu_size_class(8193) == 10240
    assert _C.cpu_size_class(784 * 256 * 4) == 917504  # the EMNIST MLP's first weight: 512 KiB + 3 quarters
    for n in [4096, 5000, 123457, 3 * MIB + 1]:
        c = _C.cpu_size_class(n)
        assert n <= c <= n * 1.25 + 64


def test_freed_block_is_reused():
    a = ak.empty(MIB // 4)  # 1 MiB of float32
    ptr = a.data_ptr()
    before = _C.cpu_allocator_stats()
    del a
    assert _C.cpu_allocator_stats()["cached_bytes"] == before["cached_bytes"] + MIB
    b = ak.empty(MIB // 4)
    after = _C.cpu_allocator_stats()
    assert b.data_ptr() == ptr
    assert after["num_cache_hits"] == before["num_cache_hits"] + 1
    assert after["num_mallocs"] == before["num_mallocs"]
    # A reused block is handed out uninitialised, but every creation function still fills it.
    b.fill_(7.0)
    del b
    np.testing.assert_array_equal(ak.zeros(MIB // 4).numpy(), 0.0)


def test_a_training_step_reaches_a_steady_state():
    """After the first step every temporary of the next step comes from the cache."""
    w = ak.randn(256, 784).requires_grad_()
    x = ak.randn(64, 784)

    def step():
        w.grad = None
        F.linear(x, w, activation="relu").sum().backward()

    step()
    before = _C.cpu_allocator_stats()
    for _ in range(3):
        step()
    after = _C.cpu_allocator_stats()
    assert after["num_allocs"] > before["num_allocs"]
    assert after["num_mallocs"] == before["num_mallocs"]


def test_cap_on_cached_bytes():
    _C.set_cpu_cache_limit(2 * MIB)
    blocks = [ak.empty(MIB // 4) for _ in range(4)]
    frees = _C.cpu_allocator_stats()["num_frees"]
    del blocks
    s = _C.cpu_allocator_stats()
    assert s["cached_bytes"] == 2 * MIB  # two kept, two given back
    assert s["num_frees"] == frees + 2
    # Lowering the limit trims the cache at once; 0 turns caching off.
    _C.set_cpu_cache_limit(MIB)
    assert _C.cpu_allocator_stats()["cached_bytes"] == MIB
    _C.set_cpu_cache_limit(0)
    assert _C.cpu_allocator_stats()["cached_bytes"] == 0
    ak.empty(MIB // 4)  # freed straight away
    assert _C.cpu_allocator_stats()["cached_bytes"] == 0


def test_block_larger_than_the_cap_is_not_cached():
    _C.set_cpu_cache_limit(MIB)
    big = ak.empty(MIB)  # 4 MiB
    del big
    assert _C.cpu_allocator_stats()["cached_bytes"] == 0


def test_empty_cache_and_live_bytes():
    base = _C.cpu_allocator_stats()["allocated_bytes"]
    a = ak.empty(MIB // 4)
    assert _C.cpu_allocator_stats()["allocated_bytes"] == base + MIB
    assert _C.cpu_allocator_stats()["peak_allocated_bytes"] >= base + MIB
    del a
    assert _C.cpu_allocator_stats()["allocated_bytes"] == base
    assert _C.cpu_allocator_stats()["cached_bytes"] >= MIB
    _C.empty_cache()
    assert _C.cpu_allocator_stats()["cached_bytes"] == 0


def test_views_keep_the_block_alive():
    a = ak.arange(MIB // 4, dtype=ak.float32)
    v = a[10:20]
    ptr = a.data_ptr()
    del a
    other = ak.empty(MIB // 4)  # must not get the block the view still uses
    assert other.data_ptr() != ptr
    np.testing.assert_array_equal(v.numpy(), np.arange(10, 20, dtype=np.float32))


def test_threads_share_the_allocator_safely():
    base = _C.cpu_allocator_stats()["allocated_bytes"]
    errors = []

    def work(seed):
        try:
            rng = np.random.default_rng(seed)
            for _ in range(200):
                n = int(rng.integers(1024, 300_000))
                t = ak.full((n,), float(seed))
                s = (t + 1.0).sum().item()
                if s != n * (seed + 1.0):
                    errors.append((seed, n, s))
        except Exception as e:  # pragma: no cover - reported below
            errors.append(e)

    threads = [threading.Thread(target=work, args=(i,)) for i in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors
    assert _C.cpu_allocator_stats()["allocated_bytes"] == base


def test_bad_input():
    with pytest.raises(ValueError, match="must be >= 0"):
        _C.set_cpu_cache_limit(-1)
    with pytest.raises(ValueError, match="must be >= 0"):
        _C.cpu_size_class(-5)
    with pytest.raises(TypeError):
        _C.set_cpu_cache_limit("lots")


def test_bypass_leaves_the_cache_alone():
    a = ak.empty(MIB // 4)
    del a
    cached = _C.cpu_allocator_stats()["cached_bytes"]
    _C.set_cpu_cache_enabled(False)
    try:
        before = _C.cpu_allocator_stats()
        b = ak.empty(MIB // 4)  # from the system, though a block of its class is cached
        del b  # back to the system
        after = _C.cpu_allocator_stats()
        assert after["num_cache_hits"] == before["num_cache_hits"]
        assert after["num_mallocs"] == before["num_mallocs"] + 1
        assert after["num_frees"] == before["num_frees"] + 1
        assert after["cached_bytes"] == cached
    finally:
        _C.set_cpu_cache_enabled(True)
    hits = _C.cpu_allocator_stats()["num_cache_hits"]
    c = ak.empty(MIB // 4)
    assert _C.cpu_allocator_stats()["num_cache_hits"] == hits + 1
    del c
