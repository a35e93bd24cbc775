"""The thread pool behind parallel_for (csrc/cpu/parallel.cpp), seen through ops
that split their work: results equal the one-thread results for every thread
count, nested and concurrent use works, and a forked child can still compute."""

from __future__ import annotations

import os
import threading
import time

import numpy as np
import pytest

import aakaar as ak


@pytest.fixture
def restore_threads():
    before = ak.get_num_threads()
    yield
    ak.set_num_threads(before)


def _wait_until_workers_sleep(timeout_s: float = 5.0) -> bool:
    deadline = time.monotonic() + timeout_s
    while ak._C._cpu_awake_workers() > 0 and time.monotonic() < deadline:
        time.sleep(0.01)  # they poll for about 50 us, then sleep
    return ak._C._cpu_awake_workers() == 0


def _work(seed: int):
    """A GEMM large enough to be split, an elementwise op and a reduction."""
    rng = np.random.default_rng(seed)
    a = ak.from_numpy(rng.standard_normal((300, 500)).astype(np.float32))
    b = ak.from_numpy(rng.standard_normal((500, 400)).astype(np.float32))
    big = ak.from_numpy(rng.standard_normal(1 << 20).astype(np.float32))
    return (a @ b).numpy(), (big * 2.0 + 1.0).numpy(), float(big.sum().item())


@pytest.mark.parametrize("threads", [2, 3, 8])
def test_results_do_not_depend_on_the_thread_count(restore_threads, threads):
    ak.set_num_threads(1)
    ref = _work(0)
    ak.set_num_threads(threads)
    for _ in range(3):  # the pool is reused across jobs
        got = _work(0)
        np.testing.assert_allclose(got[0], ref[0], rtol=1e-5, atol=1e-4)
        np.testing.assert_array_equal(got[1], ref[1])
        np.testing.assert_allclose(got[2], ref[2], rtol=1e-5)


@pytest.mark.parametrize("threads", [2, 3, 8])
def test_mid_size_elementwise_splits_right_after_a_split_job(restore_threads, threads):
    """Right after a split GEMM the workers are still awake and a 40k-element loop is split
    among them (8 times smaller grain): contiguous, strided and in-place results are the serial ones."""
    rng = np.random.default_rng(3)
    a = ak.from_numpy(rng.standard_normal((300, 500)).astype(np.float32))
    b = ak.from_numpy(rng.standard_normal((500, 400)).astype(np.float32))
    xs = rng.standard_normal((200, 401)).astype(np.float32)
    ys = rng.standard_normal((200, 401)).astype(np.float32)

    def ops():
        x, y = ak.from_numpy(xs.copy()), ak.from_numpy(ys.copy())
        a @ b  # split over the pool: its workers spin for a while after it
        awake = ak._C._cpu_awake_workers() > 0
        out = [(x * 2.0 + y).numpy(), (x.T + y.T).numpy(), x[:, ::2].exp().numpy()]
        x.lerp_(y, 0.25).add_(y, alpha=-0.5)
        return out + [x.numpy()], awake

    ak.set_num_threads(1)
    _wait_until_workers_sleep()  # from earlier tests
    ref, awake = ops()
    assert not awake  # one thread: no job was handed to the pool
    ak.set_num_threads(threads)
    # On a loaded machine (CI runs two test processes on two cores) a worker may not get a
    # core for a while and counts as asleep until it does: try until the split has run a
    # few times, for up to 10 s.
    seen_awake, deadline = 0, time.monotonic() + 10.0
    while seen_awake < 3 and time.monotonic() < deadline:
        got, awake = ops()
        seen_awake += awake
        for g, r in zip(got, ref):
            np.testing.assert_array_equal(g, r)
    assert seen_awake > 0, "the pool's workers were never awake right after a split GEMM"


def test_workers_fall_asleep_when_idle(restore_threads):
    ak.set_num_threads(2)
    x = ak.ones(1 << 20)
    (x * 2.0).sum()  # a split job
    assert _wait_until_workers_sleep()


def test_many_small_jobs_back_to_back(restore_threads):
    """Thousands of jobs in a row: every chunk of every job runs exactly once."""
    ak.set_num_threads(2)
    x = ak.ones(1 << 18)
    total = ak.zeros(1 << 18)
    for _ in range(2000):
        total += x
    assert float(total.min().item()) == 2000.0 and float(total.max().item()) == 2000.0


def test_python_threads_share_the_pool(restore_threads):
    """Two callers at once: one gets the pool, the other runs inline; both are right."""
    ak.set_num_threads(2)
    ref = _work(1)
    errors = []

    def run():
        try:
            for _ in range(5):
                got = _work(1)
                np.testing.assert_allclose(got[0], ref[0], rtol=1e-5, atol=1e-4)
        except Exception as e:  # pragma: no cover - reported below
            errors.append(e)

    threads = [threading.Thread(target=run) for _ in range(3)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors


@pytest.mark.skipif(not hasattr(os, "fork"), reason="needs fork()")
def test_forked_child_computes_without_the_workers(restore_threads):
    """A child of fork() has none of the parent's worker threads; it must still
    compute (an OpenMP team would wait forever for threads that do not exist).
    With workers asleep on the pool's condition variable at the fork, waking that
    copied condition variable in the child could block forever (1 fork in 10 with
    8 threads on a 2-core machine), until the child got a pool of its own."""
    import signal
    import time

    rng = np.random.default_rng(2)
    a = ak.from_numpy(rng.standard_normal((256, 784)).astype(np.float32))
    b = ak.from_numpy(rng.standard_normal((784, 256)).astype(np.float32))
    ref = a.numpy().astype(np.float64) @ b.numpy().astype(np.float64)
    ak.set_num_threads(8)  # many workers, so some are asleep at the fork
    for i in range(60):
        (a @ b).numpy()
        time.sleep((0, 3e-5, 1e-4, 1e-3, 1e-2)[i % 5])  # fork during the spin, and after it
        r, w = os.pipe()
        pid = os.fork()
        if pid == 0:  # the child: compute, report, exit without running pytest's teardown
            try:
                ok = all(np.allclose((a @ b).numpy(), ref, rtol=1e-4, atol=1e-3) for _ in range(2))
                os.write(w, b"ok" if ok else b"wrong")
            finally:
                os._exit(0)
        os.close(w)
        deadline = time.monotonic() + 30
        while True:
            done, status = os.waitpid(pid, os.WNOHANG)
            if done:
                break
            if time.monotonic() > deadline:
                os.kill(pid, signal.SIGKILL)
                os.waitpid(pid, 0)
                pytest.fail(f"fork {i}: the child hung in the thread pool")
            time.sleep(0.001)
        assert os.read(r, 16) == b"ok" and status == 0, f"fork {i}"
        os.close(r)


def test_set_num_threads_rejects_nonsense():
    with pytest.raises(ValueError, match="must be positive"):
        ak.set_num_threads(0)
