"""Tensor repr as torch prints it: the values (widths, line breaks, summaries, int/fixed/scientific
float formats) and the suffixes in torch's order: device, size of an empty tensor, dtype (aakaar's
dtype name), then grad_fn=<...> or requires_grad=True. Checked by printing the same tensor in
both libraries; torch's "torch." becomes "aakaar." in dtype names, nothing else differs."""

from __future__ import annotations

import pytest

import aakaar

EXPRS = [
    "T.tensor([1., 2.], requires_grad=True)", "T.tensor([1., 2.], requires_grad=True).sum()",
    "T.tensor([1., 2.], requires_grad=True) * 2", "T.tensor([[1., 2.], [3., 4.]], requires_grad=True)",
    "T.tensor([1., 2.], dtype=T.float64, requires_grad=True)", "T.tensor([1., 2.], dtype=T.float64, requires_grad=True).mean()",
    "T.tensor(3., requires_grad=True)", "T.tensor([1.5, 2.], requires_grad=True).clone()",
    "T.tensor([1.5, 2.], requires_grad=True).detach()", "T.tensor([1.5, 2.], requires_grad=True)[0]",
    "T.tensor([1., 2.], dtype=T.float16, requires_grad=True)", "T.nn.Parameter(T.tensor([1., 2.]))",
    "T.nn.Parameter(T.zeros(0, 2))",
    # empty tensors: the size unless 1-d, the dtype unless the default float (even int64)
    "T.zeros(0, 3)", "T.zeros(0)", "T.zeros(0, dtype=T.int64)", "T.zeros(0, 3, dtype=T.int64)",
    "T.zeros(2, 0, dtype=T.float64)", "T.zeros(0, dtype=T.bool)", "T.zeros(0, requires_grad=True)",
    "T.zeros(0, 3, requires_grad=True)", "T.zeros(0, 3, dtype=T.float64, requires_grad=True)", "T.zeros(3, 0, 2)",
    # values: widths, line breaks, summaries and float formats
    "T.tensor(3)", "T.tensor([1, 2], dtype=T.int32)", "T.tensor([True])", "T.tensor([[True, False], [False, True]])",
    "T.ones(3, 30, requires_grad=True)", "T.arange(40.).reshape(2, 20).requires_grad_() * 1.5",
    "T.arange(10.).reshape(2, 5).requires_grad_() * 1000000", "T.arange(2000.).requires_grad_()",
    "T.arange(2000).reshape(40, 50)", "T.arange(2000.).reshape(2, 10, 100) / 7",
    "T.tensor([1e-5, 1., 100.])", "T.tensor([1e10, 1.])", "T.tensor([-1.5, 2.25, float('nan'), float('inf')])",
    "T.tensor([1., float('nan')])", "T.tensor([float('nan')])", "T.tensor([-3, 100, 7])", "T.tensor(3.5)",
    "T.tensor(-0.0)", "T.tensor([0.1, 0.25], dtype=T.bfloat16)", "T.tensor([200, 3], dtype=T.uint8)",
    "T.linspace(0, 1, 7)", "T.tensor([[1e-8, 1.]])", "T.ones(2, 3, dtype=T.int16)", "T.tensor([123456789.])",
]


@pytest.mark.parametrize("expr", EXPRS)
def test_repr_as_torch(torch, expr):
    theirs = repr(eval(expr, {"T": torch})).replace("torch.", "aakaar.")  # noqa: S307
    assert repr(eval(expr, {"T": aakaar})) == theirs  # noqa: S307


OPTIONS = [dict(precision=2, linewidth=40, threshold=20, edgeitems=2), dict(sci_mode=True), dict(sci_mode=False),
           dict(linewidth=30), dict(threshold=5, edgeitems=1), dict(threshold=5, edgeitems=0),
           dict(precision=6, linewidth=120)]
UNDER_OPTIONS = ["T.tensor([1.5, -2.25, 3.])", "T.arange(12.).reshape(3, 4) * 1e-6", "T.tensor([-0.0, 0.0])",
                 "T.tensor([2**40, -5])", "T.arange(5000.).reshape(50, 100)", "T.arange(30).reshape(2, 3, 5)",
                 "T.tensor([[1.123456789, 22.5], [333.75, -4444.125]], dtype=T.float64)",
                 "T.zeros(1, 0, requires_grad=True)", "T.arange(100.).reshape(10, 10).requires_grad_() / 3"]


@pytest.mark.parametrize("options", OPTIONS, ids=str)
def test_print_options_apply_as_in_torch(torch, options):
    try:
        for T in (torch, aakaar):
            T.set_printoptions(**options)
        for expr in UNDER_OPTIONS:
            theirs = repr(eval(expr, {"T": torch})).replace("torch.", "aakaar.")  # noqa: S307
            assert repr(eval(expr, {"T": aakaar})) == theirs, (options, expr)  # noqa: S307
    finally:
        for T in (torch, aakaar):
            T.set_printoptions(profile="default")


@pytest.mark.parametrize("expr", ["T.nn.Parameter(T.tensor([1., 2.]))", "T.tensor([1., 2.], requires_grad=True) * 2",
                                  "T.zeros(0, 2, dtype=T.int64)"])
def test_str_is_the_repr_as_torch(torch, expr):
    theirs = str(eval(expr, {"T": torch})).replace("torch.", "aakaar.")  # noqa: S307
    assert str(eval(expr, {"T": aakaar})) == theirs  # noqa: S307
