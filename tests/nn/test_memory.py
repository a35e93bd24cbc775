"""Memory stays flat over a long training loop: the graph of each step is freed
after backward and nothing (a cycle, a cached tensor, a hook) keeps it alive.

RSS is read from /proc/self/statm. A leak of even one activation per step
(16 x 64 float32 = 4 KiB) would add ~40 MiB over 10,000 steps; the tolerance
(8 MiB) leaves room for allocator noise and nothing else.
"""

from __future__ import annotations

import gc
import sys

import pytest

import aakaar as ak
import aakaar.nn as nn
import aakaar.nn.functional as F

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc/self/statm")

STEPS, WARMUP = 10_000, 500
TOLERANCE = 8 * 2**20


def _rss() -> int:
    import os

    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")


@pytest.fixture
def one_thread():
    """Memory, not parallelism, is under test: one thread keeps 10,000 steps at a few seconds
    on a shared machine, where waking a second thread per tiny op costs more than the op."""
    before = ak.get_num_threads()
    ak.set_num_threads(1)
    yield
    ak.set_num_threads(before)


def test_training_loop_memory_is_flat(one_thread):
    ak.manual_seed(0)
    model = nn.Sequential(nn.Linear(32, 64), nn.ReLU(), nn.Dropout(0.1), nn.Linear(64, 10))
    x, y = ak.randn(16, 32), ak.randint(0, 10, (16,))
    params = list(model.parameters())
    samples = {}
    for step in range(STEPS):
        loss = F.cross_entropy(model(x), y)
        model.zero_grad()
        loss.backward()
        with ak.no_grad():
            for p in params:
                p.sub_(p.grad * 0.01)
        if step == WARMUP or step == STEPS - 1:
            gc.collect()
            samples[step] = _rss()
    growth = samples[STEPS - 1] - samples[WARMUP]
    print(f"RSS after {WARMUP} steps {samples[WARMUP] / 2**20:.1f} MiB, after {STEPS}: "
          f"{samples[STEPS - 1] / 2**20:.1f} MiB (growth {growth / 2**10:.0f} KiB)")
    assert growth < TOLERANCE, f"RSS grew by {growth / 2**20:.1f} MiB over {STEPS - WARMUP} steps"
    assert loss.grad_fn is not None  # the last graph is alive only through `loss`

