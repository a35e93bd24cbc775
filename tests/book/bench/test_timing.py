"""aakaar.book.bench.timing: the interleaved timer's settle, and the re-run of a
benchmark with the references' idle spinning capped (without it, a two-thread
figure measures whose idle threads spin longest, not who computes)."""

from __future__ import annotations

import sys

import pytest

from aakaar.book.bench import timing


def test_cap_idle_spinning_reruns_with_the_caps(monkeypatch):
    calls = []
    monkeypatch.setattr(timing.os, "execve", lambda path, argv, env: calls.append((path, argv, env)))
    for k in timing.SPIN_CAPS:
        monkeypatch.delenv(k, raising=False)
    monkeypatch.setenv("GOMP_SPINCOUNT", "123")  # a value the user set is kept
    timing.cap_idle_spinning("aakaar.book.bench.gemm", ["--threads", "2"])
    assert len(calls) == 1
    path, argv, env = calls[0]
    assert path == sys.executable and argv == [sys.executable, "-m", "aakaar.book.bench.gemm", "--threads", "2"]
    assert env["OPENBLAS_THREAD_TIMEOUT"] == timing.SPIN_CAPS["OPENBLAS_THREAD_TIMEOUT"]
    assert env["GOMP_SPINCOUNT"] == "123"


def test_cap_idle_spinning_runs_on_when_the_caps_are_set(monkeypatch):
    monkeypatch.setattr(timing.os, "execve", lambda *a: pytest.fail("re-ran although every cap was set"))
    for k, v in timing.SPIN_CAPS.items():
        monkeypatch.setenv(k, v)
    timing.cap_idle_spinning("aakaar.book.bench.gemm", [])
    assert timing.spin_caps_in_effect() == timing.SPIN_CAPS


def test_gemm_rounds_settle_each_candidate_before_timing_it():
    # Each timed call follows an untimed call of the same candidate (the settle),
    # whatever the rotated order of the round: the calls come in equal pairs.
    from aakaar.book.bench.gemm import time_interleaved

    log: list[str] = []
    fns = {name: (lambda name=name: log.append(name)) for name in ("a", "b", "c")}
    med, rounds = time_interleaved(fns, budget_s=0.0, est={"a": 1.0, "b": 1.0, "c": 1.0})
    assert rounds == 5 and set(med) == {"a", "b", "c"}
    assert len(log) == 2 * 3 * rounds
    assert all(log[i] == log[i + 1] for i in range(0, len(log), 2)), log
    assert log[::2][:6] == ["a", "b", "c", "b", "c", "a"]  # the order still rotates
