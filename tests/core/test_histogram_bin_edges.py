"""histogram / histogramdd / histc with unusual bin edges and ranges, against torch 2.13. torch does
not refuse edges that decrease (or hold NaN): its binary search then places the values, and
values outside [first edge, last edge] are dropped; aakaar gives the same bins. What torch
refuses (fewer than two edges, an infinite or NaN range in histc, integer input to histc), aakaar
refuses with torch's exception class and message."""

from __future__ import annotations

import pytest

import aakaar
from core_helpers import assert_same_as_torch

EXPRS = [
    # decreasing, repeated, NaN and infinite edges: torch's bins
    "T.histogram(x, T.tensor([0., 2., 1.]))", "T.histogram(x, T.tensor([3., 2., 1.]))",
    "T.histogram(x, T.tensor([0., 1., 1., 3.]))", "T.histogram(x, T.tensor([0., float('nan'), 3.]))",
    "T.histogram(x, T.tensor([0., float('inf')]))", "T.histogram(x, T.tensor([3., 0.]), density=True)",
    "T.histogram(T.arange(10.), T.tensor([0., 5., 2., 7., 9.]))",
    "T.histogram(T.arange(10.), T.tensor([0., 5., 2., 7., 9.]), weight=T.arange(10.) / 3)",
    "T.histogramdd(m.t(), bins=[T.tensor([0., 2., 1.]), T.tensor([0., 1., 6.])])",
    "T.histogramdd(m.t(), bins=[T.tensor([0., 1., 3.]), T.tensor([6., 1., 0.])])",
    "T.histogramdd(m.t(), bins=[T.tensor([0., 1., 3.]), T.tensor([0., 1., 1., 6.])])",
    "T.histogramdd(m.t(), bins=[T.tensor([0., 1., 3.]), T.tensor([0., float('nan'), 6.])])",
    # too few edges, bad shapes and dtypes, bad counts and ranges
    "T.histogram(x, T.tensor([0.]))", "T.histogram(x, T.tensor([]))", "T.histogram(x, T.tensor([[0., 1.]]))",
    "T.histogram(x, T.tensor([0, 1, 2]))", "T.histogram(x, 0)", "T.histogram(x, -1)",
    "T.histogram(x, 3, range=(2., 1.))", "T.histogram(x, 3, range=(1., 1.))", "T.histogram(x, 3, range=(0., float('inf')))",
    "T.histogram(x, 3, range=(float('nan'), 1.))", "T.histogram(T.tensor([1., float('inf')]), 3)",
    "T.histogram(T.tensor([1, 2]), 3)", "T.histogram(e0, 3)", "T.histogram(x0, 3)",
    "T.histogramdd(m.t(), bins=[T.tensor([0., 1., 3.]), T.tensor([0.])])",
    "T.histogramdd(m.t(), bins=[T.tensor([0., 1., 3.])])", "T.histogramdd(m.t(), bins=[2, 0])",
    "T.histogramdd(m.t(), bins=2, range=[0., 5., 5., 0.])", "T.histogramdd(m.t(), bins=2, range=[0., 5.])",
    "T.histogramdd(x, bins=2)",
    "T.histc(x, bins=0)", "T.histc(x, bins=3, min=2, max=1)", "T.histc(x, bins=3, min=1, max=1)",
    "T.histc(x, bins=3, min=0, max=float('inf'))", "T.histc(T.tensor([1., float('nan')]), bins=3)",
    "T.histc(T.tensor([1., float('inf')]), bins=3)", "T.histc(T.tensor([1, 2]), bins=3)", "T.histc(e0, bins=3)",
    "T.histc(x0, bins=3)",
]


@pytest.mark.parametrize("expr", EXPRS)
def test_histograms_with_unusual_edges_as_torch(torch, expr):
    assert_same_as_torch(torch, expr)


def test_refusals_say_what_was_wrong():
    x = aakaar.tensor([3.0, 1.0, 2.0])
    with pytest.raises(RuntimeError, match=r"bins must be > 0, but got 0 for dimension 0"):
        aakaar.histogram(x, aakaar.tensor([1.0]))
    with pytest.raises(RuntimeError, match=r"torch.histc: range of \[0, inf\] is not finite"):
        aakaar.histc(x, bins=3, min=0, max=float("inf"))
    with pytest.raises(NotImplementedError, match="int64"):
        aakaar.histc(aakaar.tensor([1, 2]), bins=3)
