"""Wrong values, missing validation and wrongly refused calls of issue 15, against PyTorch 2.13.

Rules chosen (and documented in csrc/ops/ops.h, check_scalar_fits):
- a Python number written into a tensor (full, fill_, index assignment,
  masked_fill) follows PyTorch's "cannot be converted without overflow" rule:
  NaN/inf or out of range into an integer dtype, a finite value beyond float32
  into float32, an int outside [-255, 255] into uint8 (negatives wrap) are errors;
- a tensor converted to an integer dtype (``.to``) never fails, and takes the
  value x86 PyTorch gives: NaN and out-of-range floats become INT64_MIN (so 0
  in uint8), floats go to uint8 through int64 (-1.0 -> 255);
- a Python int beyond int64 is a float with a floating tensor; with an integer
  tensor it is an error (PyTorch silently gives INT64_MIN there, which we
  consider wrong).
"""

from __future__ import annotations

import math

import numpy as np
import pytest

import aakaar as ak

torch = pytest.importorskip("torch")
NAN = float("nan")


# ---- wrong values ---------------------------------------------------------------------------


def test_add_with_alpha_computes_in_the_result_dtype():
    a = ak.zeros(1, dtype=ak.float64)
    a.add_(ak.tensor([254], dtype=ak.uint8), alpha=2)
    assert a.tolist() == [508.0]
    assert ak.zeros(1, dtype=ak.float64).add(ak.tensor([254], dtype=ak.uint8), alpha=2).tolist() == [508.0]
    assert ak.zeros(1, dtype=ak.int64).add(ak.tensor([254], dtype=ak.uint8), alpha=2).tolist() == [508]
    b = ak.zeros(1, dtype=ak.int64)
    b.sub_(ak.tensor([254], dtype=ak.uint8), alpha=2)
    t = torch.zeros(1, dtype=torch.int64)
    t.sub_(torch.tensor([254], dtype=torch.uint8), alpha=2)
    assert b.tolist() == t.tolist() == [-508]


@pytest.mark.parametrize("op", ["scatter_", "scatter_add_"])
def test_scatter_from_a_source_aliasing_the_destination_is_refused(op):
    a = ak.arange(6.0)
    idx = ak.tensor([2, 1, 0])
    with pytest.raises(RuntimeError, match="single memory location"):
        getattr(a, op)(0, idx, a[:3])
    ta = torch.arange(6.0)
    with pytest.raises(RuntimeError):
        getattr(ta, op)(0, torch.tensor([2, 1, 0]), ta[:3])
    getattr(a, op)(0, idx, a[:3].clone())  # a copy is fine
    b = ak.arange(6.0)
    b[3:].scatter_(0, ak.tensor([0, 1]), b[:2])  # same storage, disjoint memory: fine
    assert b.tolist() == [0.0, 1.0, 2.0, 0.0, 1.0, 5.0]


def test_sum_with_a_dtype_returns_that_dtype():
    x = [[1, 0], [0, 0]]
    for dt, tdt in [(ak.bool, torch.bool), (ak.uint8, torch.uint8), (ak.float64, torch.float64)]:
        got = ak.tensor(x).sum(0, dtype=dt)
        want = torch.tensor(x).sum(0, dtype=tdt)
        assert got.dtype == dt and got.tolist() == want.tolist()
    assert ak.tensor([200, 100]).sum(dtype=ak.uint8).tolist() == torch.tensor([200, 100]).sum(dtype=torch.uint8).tolist()


def test_clamp_propagates_a_nan_bound():
    x = [1.0, NAN, -3.0]
    for lo, hi in [(NAN, None), (None, NAN), (0.0, NAN), (NAN, 2.0)]:
        got = ak.tensor(x).clamp(lo, hi).numpy()
        want = torch.tensor(x).clamp(lo, hi).numpy()
        np.testing.assert_array_equal(got, want)
        y = ak.tensor(x)
        y.clamp_(lo, hi)
        np.testing.assert_array_equal(y.numpy(), want)
    np.testing.assert_array_equal(ak.tensor([1, 2]).clamp(None, NAN).numpy(), [NAN, NAN])
    with pytest.raises(TypeError):
        ak.tensor([1, 2]).clamp_(None, NAN)
    with pytest.raises(RuntimeError):
        torch.tensor([1, 2]).clamp_(None, NAN)


def test_integer_clamp_bounds_beyond_the_dtype():
    """A clamp bound outside the tensor's dtype clamps by value: 300 clamps nothing in uint8.

    PyTorch refuses these ("value cannot be converted to type uint8_t without overflow"), and
    float32.clamp(0, 1e300) too: it converts the bound to the dtype first. We choose otherwise on
    purpose: a bound is only compared with, never stored, so no value is lost (numpy's clip agrees);
    the differential fuzz accepts exactly this refusal of torch's (fuzz_torch_common).
    """
    u = ak.tensor([0, 100, 255], dtype=ak.uint8)
    assert u.clamp(-5, 300).tolist() == [0, 100, 255]
    assert u.clamp(min=50).tolist() == [50, 100, 255]
    assert ak.tensor([5, -5]).clamp(-1e18, 1e18).tolist() == [5, -5]
    assert ak.tensor([1.0, -2.0]).clamp(-1e300, 1e300).tolist() == [1.0, -2.0]
    with pytest.raises(RuntimeError, match="without overflow"):
        torch.tensor([0, 100, 255], dtype=torch.uint8).clamp(-5, 300)


def test_numpy_scalars_keep_their_dtype():
    assert ak.tensor(np.float64(3.0)).dtype == ak.float64
    assert ak.tensor(np.float32(3.0)).dtype == ak.float32
    assert ak.tensor(np.int64(3)).dtype == ak.int64
    assert ak.tensor(np.bool_(True)).dtype == ak.bool
    assert ak.tensor(np.int32(3)).dtype == ak.int32
    assert ak.tensor(np.uint16(3)).dtype == ak.int64  # unsupported numpy dtype: the Python-number rule
    assert ak.tensor(3.0).dtype == ak.float32


def test_bool_dims_are_refused_and_var_true_is_unbiased():
    x = ak.tensor([1.0, 2.0, 4.0])
    assert x.var(True).item() == pytest.approx(torch.tensor([1.0, 2.0, 4.0]).var(True).item())
    assert x.var(False).item() == pytest.approx(torch.tensor([1.0, 2.0, 4.0]).var(False).item())
    assert x.std(True).item() == pytest.approx(torch.tensor([1.0, 2.0, 4.0]).std(True).item())
    m = ak.ones(2, 2)
    for call in [lambda: m.any(True), lambda: m.all(True), lambda: m.sum(True), lambda: m.argmin(True),
                 lambda: m.argmax(True), lambda: m.max(True), lambda: m.min(True), lambda: m.mean(True)]:
        with pytest.raises(TypeError):
            call()
    with pytest.raises(TypeError):
        torch.ones(2, 2).any(True)


def test_flatten_of_a_0d_tensor_checks_its_dims():
    s = ak.tensor(3.0)
    assert tuple(s.flatten().shape) == (1,) and tuple(s.flatten(0, -1).shape) == (1,)
    for a, b in [(0, 100), (5, 0), (-2, 0)]:
        with pytest.raises(IndexError):
            s.flatten(a, b)
        with pytest.raises(IndexError):
            torch.tensor(3.0).flatten(a, b)


def test_float_to_integer_conversion_matches_torch_on_x86():
    x = [NAN, 1e300, -1e300, float("inf"), -1.0, 300.7, -300.2, 2.0**63, -(2.0**63)]
    for dt, tdt in [(ak.int64, torch.int64), (ak.uint8, torch.uint8), (ak.bool, torch.bool)]:
        for fdt, tfdt in [(ak.float32, torch.float32), (ak.float64, torch.float64)]:
            got = ak.tensor(x, dtype=fdt).to(dt).tolist()
            want = torch.tensor(x, dtype=tfdt).to(tdt).tolist()
            assert got == want, (dt, fdt)


# ---- missing validation ----------------------------------------------------------------------


def test_copy_into_an_expanded_tensor_is_refused():
    e = ak.zeros(1).expand(3)
    with pytest.raises(RuntimeError, match="single memory location"):
        e.copy_(ak.ones(3))
    with pytest.raises(RuntimeError):
        e[:] = 1.0
    with pytest.raises(RuntimeError):
        e[ak.tensor([0, 1])] = 1.0
    with pytest.raises(RuntimeError):
        torch.zeros(1).expand(3).copy_(torch.ones(3))


@pytest.mark.parametrize(
    "dtype, value",
    [("uint8", 1e308), ("uint8", 256), ("uint8", -256), ("uint8", -1.0), ("uint8", NAN), ("int64", NAN),
     ("int64", float("inf")), ("int64", 1e19), ("float32", 1e308), ("float32", -1e39)],
)
def test_numbers_that_do_not_fit_the_dtype_are_refused(dtype, value):
    dt, tdt = getattr(ak, dtype), getattr(torch, dtype)
    with pytest.raises(RuntimeError):
        torch.full((3,), value, dtype=tdt)
    with pytest.raises(ValueError, match="without overflow"):
        ak.full((3,), value, dtype=dt)
    t = ak.zeros(3, dtype=dt)
    with pytest.raises(ValueError):
        t[0] = value
    with pytest.raises(ValueError):
        t.fill_(value)
    with pytest.raises(ValueError):
        t.masked_fill(ak.tensor([True, False, False]), value) if dt == ak.float32 else t.fill_(value)
    assert t.tolist() == [0, 0, 0]


@pytest.mark.parametrize("dtype, value", [("uint8", -1), ("uint8", 255), ("int64", 1.5), ("float32", float("inf")),
                                          ("float32", NAN), ("bool", 7), ("float64", 1e308)])
def test_numbers_that_fit_are_written_like_torch(dtype, value):
    dt, tdt = getattr(ak, dtype), getattr(torch, dtype)
    got = ak.full((2,), value, dtype=dt).numpy()
    want = torch.full((2,), value, dtype=tdt).numpy()
    np.testing.assert_array_equal(got, want)
    t = ak.zeros(2, dtype=dt)
    t[0] = value
    tt = torch.zeros(2, dtype=tdt)
    tt[0] = value
    np.testing.assert_array_equal(t.numpy(), tt.numpy())


@pytest.mark.parametrize("p", [1.5, -0.1, NAN])
def test_bernoulli_refuses_probabilities_outside_0_1(p):
    with pytest.raises(ValueError, match="bernoulli"):
        ak.bernoulli(ak.tensor([0.5, p]))
    with pytest.raises(RuntimeError):
        torch.bernoulli(torch.tensor([0.5, p]))
    assert ak.bernoulli(ak.tensor([0.0, 1.0])).tolist() == [0.0, 1.0]


def test_randint_bounds_must_fit_a_bool_or_uint8_dtype():
    assert set(ak.randint(0, 2, (100,), dtype=ak.bool).tolist()) <= {False, True}
    with pytest.raises(ValueError):
        ak.randint(0, 10, (3,), dtype=ak.bool)
    with pytest.raises(RuntimeError):
        torch.randint(0, 10, (3,), dtype=torch.bool)
    with pytest.raises(ValueError):
        ak.randint(0, 300, (3,), dtype=ak.uint8)


def test_generator_device_is_checked():
    assert ak.Generator("cpu") is not None and ak.Generator() is not None
    with pytest.raises(TypeError):
        ak.Generator(5)
    if not ak.cuda.is_available():
        with pytest.raises(RuntimeError):
            ak.Generator("cuda")


# ---- refused where it should work ------------------------------------------------------------


def test_inplace_ops_on_a_zero_element_expanded_view():
    for e, shape in [(ak.zeros(1).expand(0), (0,)), (ak.zeros(1, 0).expand(3, 0), (3, 0))]:
        e.add_(1)
        e.mul_(2.0)
        e.copy_(ak.ones(*shape))
        e.neg_()
        assert tuple(e.shape) == shape
    assert tuple(torch.zeros(1).expand(0).add_(1).shape) == (0,)


def test_python_int_beyond_int64_with_a_float_tensor_is_a_float():
    np.testing.assert_array_equal((ak.ones(2) * 2**63).numpy(), (torch.ones(2) * 2**63).numpy())
    np.testing.assert_array_equal((ak.ones(2, dtype=ak.float64) + 2**70).numpy(), np.full(2, 1.0 + 2.0**70))
    t = ak.zeros(2)
    t[0] = 2**64
    assert t[0].item() == 2.0**64
    with pytest.raises(ValueError):  # an int64 tensor cannot take it (PyTorch wraps to INT64_MIN)
        ak.ones(2, dtype=ak.int64) * 2**63


def test_an_empty_list_index_selects_nothing():
    assert ak.arange(3.0)[[]].tolist() == torch.arange(3.0)[[]].tolist() == []
    assert tuple(ak.ones(2, 3)[:, []].shape) == tuple(torch.ones(2, 3)[:, []].shape) == (2, 0)
    a = ak.arange(3.0)
    a[[]] = 5.0
    assert a.tolist() == [0.0, 1.0, 2.0]


def test_tensor_of_a_read_only_or_misaligned_array_copies_it():
    ro = np.broadcast_to(np.arange(3.0), (2, 3))
    assert ak.tensor(ro).tolist() == [[0.0, 1.0, 2.0]] * 2
    frozen = np.arange(4, dtype=np.int64)
    frozen.setflags(write=False)
    assert ak.tensor(frozen).tolist() == [0, 1, 2, 3] and ak.as_tensor(frozen).tolist() == [0, 1, 2, 3]
    buf = bytearray(np.arange(5, dtype=np.float32).tobytes() + b"\0")
    odd = np.frombuffer(buf, dtype=np.float32, count=4, offset=1)  # a float view at an odd byte offset
    assert not odd.flags.aligned
    assert ak.tensor(odd).numpy().tobytes() == odd.tobytes()
    assert ak.as_tensor(odd).numpy().tobytes() == odd.tobytes()
    with pytest.raises(ValueError, match="aligned"):
        ak.from_numpy(odd)  # sharing it would make every kernel's load misaligned (undefined)
