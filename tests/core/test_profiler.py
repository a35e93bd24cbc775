"""aakaar.profiler: every kernel call is seen at the backend table, named by entry and operation, and
the profile accounts for the block's whole wall time. No timing is asserted beyond what must hold."""
from __future__ import annotations

import pytest

import aakaar as ak
from aakaar import _C


def _names(prof: ak.profiler.profile) -> dict[str, int]:
    return {e.name: e.count for e in prof.events()}


def test_ops_are_named_by_entry_and_operation():
    x = ak.randn(8, 8)
    with ak.profiler.profile() as prof:
        y = (x * 2 + 1).relu().exp()
        y.sum()
        x @ x
        ak.maximum(x, y)
        (x < y).any()
    names = _names(prof)
    for name in ("binary/mul", "binary/add", "unary/relu", "unary/exp", "reduce/sum", "bmm", "binary/maximum",
                 "binary/lt", "reduce/any", "allocate"):
        assert name in names, (name, names)
    assert names["binary/mul"] == 1 and names["unary/exp"] == 1
    assert not any("op#" in n for n in names)  # every operation has its name


def test_every_operation_of_the_tables_enums_has_a_name():
    x, y = ak.rand(4) + 0.5, ak.rand(4) + 0.5
    b = x > 0.7
    with ak.profiler.profile() as prof:
        for op in (ak.add, ak.sub, ak.mul, ak.div, ak.floor_divide, ak.remainder, ak.pow, ak.maximum, ak.minimum,
                   ak.eq, ak.ne, ak.lt, ak.le, ak.gt, ak.ge):
            op(x, y)
        ak.logical_and(b, b), ak.logical_or(b, b), ak.logical_xor(b, b), ak.logical_not(b)
        for op in ("neg", "abs", "sign", "exp", "log", "log1p", "expm1", "sqrt", "rsqrt", "sin", "cos", "tanh",
                   "sigmoid", "relu", "floor", "ceil", "round", "reciprocal", "square"):
            getattr(x, op)()
        x.clamp(0.6, 0.9)
        for op in ("sum", "prod", "amax", "amin"):
            getattr(x, op)()
        b.all(), b.any()
    names = _names(prof)
    assert not any("op#" in n for n in names), names
    assert {"binary/floor_divide", "binary/remainder", "binary/logical_xor", "unary/logical_not", "unary/clamp",
            "unary/rsqrt", "reduce/prod", "reduce/max", "reduce/min", "reduce/all"} <= set(names)


def test_the_rows_and_the_rest_add_up_to_the_wall_time():
    a = ak.randn(256, 256)
    with ak.profiler.profile() as prof:
        for _ in range(5):
            a @ a
    events = prof.events()
    assert events == sorted(events, key=lambda e: -e.self_seconds)  # most self time first
    assert prof.kernel_seconds + prof.outside_kernels_seconds == pytest.approx(prof.wall_seconds)
    assert all(0 <= e.self_seconds <= e.total_seconds for e in events)
    assert _names(prof)["bmm"] == 5
    assert "bmm" in prof.table() and "outside kernels" in prof.table()


def test_a_training_step_shows_its_fused_kernels_and_autograd():
    model = ak.nn.Sequential(ak.nn.Linear(20, 16), ak.nn.ReLU(), ak.nn.Linear(16, 5))
    opt = ak.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    x, y = ak.randn(8, 20), ak.randint(0, 5, (8,))
    with ak.profiler.profile() as prof:
        for _ in range(3):
            opt.zero_grad()
            ak.nn.functional.cross_entropy(model(x), y).backward()
            opt.step()
    names = _names(prof)
    assert names["linear"] == 6 and names["linear_backward"] == 6  # backward runs through the table too
    assert names["cross_entropy"] == 3 and names["cross_entropy_backward"] == 3 and names["optimizer_step"] == 3


def test_recording_stops_with_the_block_even_when_it_raises():
    with pytest.raises(ZeroDivisionError):
        with ak.profiler.profile():
            raise ZeroDivisionError
    assert not _C._profiler_recording()
    with ak.profiler.profile() as prof:  # and a new profile starts from nothing
        ak.ones(3) + 1
    assert _names(prof)["binary/add"] == 1


def test_misuse_is_an_error():
    with ak.profiler.profile():
        with pytest.raises(RuntimeError, match="profiles do not nest"):
            with ak.profiler.profile():
                pass
    open_profile = ak.profiler.profile()
    with pytest.raises(RuntimeError, match="has not finished"):
        open_profile.events()
    with pytest.raises(RuntimeError, match="not recording"):
        _C._profiler_stop()
    _C._profiler_start()
    try:
        with pytest.raises(RuntimeError, match="already recording"):
            _C._profiler_start()
    finally:
        _C._profiler_stop()
