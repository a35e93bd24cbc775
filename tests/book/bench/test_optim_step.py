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


def test_optim_step_bench_covers_the_other_optimizers():
    """Rprop (torch.optim's), Lion (torch reference written in the bench) and Muon (weight matrices
    only; its check allows bfloat16's precision): each checked against torch, then timed."""
    rec = optim_step.run(threads=1, rounds=1, names=["Rprop", "Lion", "Muon"], target_s=0.0002)
    assert set(rec["ratios"]["Rprop"]) >= {"torch default", "torch foreach"}
    assert set(rec["ratios"]["Lion"]) == {"torch default", "torch foreach"}  # no fused form
    assert {"torch default", "torch float32"} <= set(rec["ratios"]["Muon"])  # bfloat16 and float32 iterations
    assert set(optim_step.OPTIONS) >= {"Rprop", "ASGD", "Adafactor", "Muon", "Lion", "LAMB"}
