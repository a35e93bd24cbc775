"""The optimizer step benchmark runs, checks agreement with torch first, and reports ratios
(no timing is asserted)."""

import pytest

torch = pytest.importorskip("torch")  # the reference: skips without the torch extra

from aakaar.book.bench import optim_step  # noqa: E402


def test_optim_step_bench_reports_ratios_against_every_torch_form():
    rec = optim_step.run(threads=1, rounds=1, names=["SGD", "Adam"], target_s=0.0002)
    for name in ("SGD", "Adam"):
        assert "torch default" in rec["ratios"][name] and "torch foreach" in rec["ratios"][name]
        assert all(r > 0 for r in rec["ratios"][name].values())
