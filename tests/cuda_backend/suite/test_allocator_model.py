"""Chapter 10 teaches the caching allocator through a Python model
(aakaar.book.cuda_emu.allocator_model); here the model predicts the real allocator's counters."""
from __future__ import annotations

import aakaar
from aakaar.book.cuda_emu import CachingAllocatorModel


def test_the_book_model_predicts_the_real_allocator():
    aakaar.cuda.synchronize()
    aakaar.cuda.empty_cache()
    before = aakaar.cuda.memory_stats()
    model = CachingAllocatorModel()
    for n in (1000, 1000, 300_000, 70, 300_001, 1 << 19):
        t = aakaar.empty(n, device="cuda")
        model.release(model.malloc(4 * n))
        del t
    after = aakaar.cuda.memory_stats()
    got = {k: after[k] - before[k] for k in ("num_allocs", "num_cache_hits", "num_device_mallocs")}
    want = {k: model.stats()[k] for k in got}
    assert got == want
    assert after["reserved_bytes"] == model.stats()["reserved_bytes"]
