"""Philox streams identical to the CPU's, the caching allocator, out-of-memory, autograd on "cuda"."""
from __future__ import annotations

import gc

import numpy as np
import pytest
from cuda_suite_helpers import check, pair, sample

import aakaar


@pytest.mark.parametrize("dtype", [aakaar.float32, aakaar.float64], ids=str)
@pytest.mark.parametrize("n", [1, 3, 1001, 4099])
def test_philox_streams_match_cpu(dtype, n):
    g_cpu, g_dev = aakaar.Generator(), aakaar.Generator()
    g_cpu.manual_seed(77)
    g_dev.manual_seed(77)
    for _ in range(2):  # the second draw checks that both generators advanced alike
        u_cpu = aakaar.rand(n, dtype=dtype, generator=g_cpu)
        u_dev = aakaar.rand(n, dtype=dtype, device="cuda", generator=g_dev)
        check(u_dev, u_cpu, rtol=0, atol=0)  # the same bits
        z_cpu = aakaar.randn(n, dtype=dtype, generator=g_cpu)
        z_dev = aakaar.randn(n, dtype=dtype, device="cuda", generator=g_dev)
        # Box-Muller's log/cos/sin: the same libm on the emulator; a GPU's may differ in the last bit.
        tol = 0 if aakaar.cuda.is_emulated() else 1e-6
        check(z_dev, z_cpu, rtol=tol, atol=tol)


def test_manual_seed_reproduces_on_device():
    aakaar.manual_seed(5)
    a = aakaar.randn(3, 7, device="cuda")
    aakaar.manual_seed(5)
    b = aakaar.randn(3, 7)
    check(a, b, rtol=1e-6, atol=1e-6)


def test_allocator_statistics_and_cache():
    gc.collect()
    aakaar.cuda.empty_cache()
    base = aakaar.cuda.memory_allocated()
    assert aakaar.cuda.memory_reserved() == base  # an empty cache holds nothing beyond live tensors
    n = 300_001  # float32: 1.2 MB, size class 1.25 MiB
    size = aakaar._C.cuda.size_class(n * 4)
    assert size >= n * 4 and size == 1_310_720
    t = aakaar.empty(n, device="cuda")
    assert aakaar.cuda.memory_allocated() == base + size
    assert aakaar.cuda.max_memory_allocated() >= base + size
    del t
    assert aakaar.cuda.memory_allocated() == base
    assert aakaar.cuda.memory_reserved() >= base + size  # the block is cached, not freed
    before = aakaar.cuda.memory_stats()
    t2 = aakaar.empty(n - 1000, device="cuda")  # same size class: served from the cache
    after = aakaar.cuda.memory_stats()
    assert after["num_device_mallocs"] == before["num_device_mallocs"]
    assert after["num_cache_hits"] == before["num_cache_hits"] + 1
    del t2
    aakaar.cuda.empty_cache()
    assert aakaar.cuda.memory_reserved() == aakaar.cuda.memory_allocated() == base
    aakaar.cuda.reset_peak_memory_stats()
    assert aakaar.cuda.max_memory_allocated() == base


def test_size_classes():
    sc = aakaar._C.cuda.size_class
    assert [sc(0), sc(1), sc(512), sc(513)] == [512, 512, 512, 1024]
    assert sc(1 << 20) == 1 << 20
    assert sc((1 << 20) + 1) == (1 << 20) + (1 << 18)  # four classes per power of two above 1 MiB
    for n in [3, 5000, 1 << 21, 10**9 + 7]:
        assert n <= sc(n) <= max(512, int(n * 1.25) + 1)


def test_out_of_memory_is_a_clear_error():
    with pytest.raises(RuntimeError, match="out of memory.*cuda:0"):
        aakaar.empty(2**50, device="cuda")
    t = aakaar.ones(10, device="cuda")  # the device still works afterwards
    assert t.sum().cpu().item() == 10


def test_synchronize():
    aakaar.cuda.synchronize()
    assert aakaar.cuda.device_count() >= 1


def test_autograd_on_device(rng):
    x_cpu, x_dev = pair(sample(rng, (4, 33), aakaar.float64))
    w_cpu, w_dev = pair(sample(rng, (33, 5), aakaar.float64))
    for x, w in ((x_cpu, w_cpu), (x_dev, w_dev)):
        x.requires_grad_(True)
        w.requires_grad_(True)
        loss = ((x @ w).gelu().log_softmax(1) * (x @ w).sigmoid()).sum()
        loss.backward()
    check(x_dev.grad, x_cpu.grad, rtol=1e-10, atol=1e-12)
    check(w_dev.grad, w_cpu.grad, rtol=1e-10, atol=1e-12)
