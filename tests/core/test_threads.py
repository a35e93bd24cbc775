"""set_num_threads: results are identical for 1 and 2 threads (every parallel
kernel splits work so that no sum changes its order with the thread count)."""

from __future__ import annotations

import numpy as np
import pytest

import aakaar
from core_helpers import to_np


@pytest.fixture
def restore_threads():
    old = aakaar.get_num_threads()
    yield
    aakaar.set_num_threads(old)


def workload(x, y, m):
    """Ops that take the parallel paths (all above the size thresholds)."""
    return [
        x + y, (x * 2).exp(), x.sum(), x.sum(1), x.sum(0), x.T.sum(1), x.amax(1), x.argmax(1), x.mean(),
        x.softmax(1), x.log_softmax(0), x.cumsum(1), x.logsumexp(1), x.var(0), x.T.contiguous(), x + y.T.contiguous().T,
        m @ m, aakaar.rand(300_000, generator=aakaar.Generator().manual_seed(1)), x.to(aakaar.float64).sum(),
        x.gather(1, (x.abs() * 10).long() % x.shape[1]),
    ]


def test_one_and_two_threads_give_identical_results(restore_threads):
    rng = np.random.default_rng(0)
    x = aakaar.from_numpy(rng.standard_normal((700, 900)).astype(np.float32))
    y = aakaar.from_numpy(rng.standard_normal((700, 900)).astype(np.float32))
    m = aakaar.from_numpy(rng.standard_normal((200, 200)).astype(np.float32))
    aakaar.set_num_threads(1)
    assert aakaar.get_num_threads() == 1
    one = [to_np(r) for r in workload(x, y, m)]
    aakaar.set_num_threads(2)
    assert aakaar.get_num_threads() == 2
    two = [to_np(r) for r in workload(x, y, m)]
    for i, (a, b) in enumerate(zip(one, two)):
        np.testing.assert_array_equal(a, b, err_msg=f"result {i} differs between 1 and 2 threads")


def test_set_num_threads_rejects_non_positive(restore_threads):
    with pytest.raises(ValueError, match="0"):
        aakaar.set_num_threads(0)
