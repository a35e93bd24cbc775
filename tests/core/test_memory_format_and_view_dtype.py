"""memory_format (contiguous_format, channels_last, channels_last_3d, preserve_format) in
contiguous / is_contiguous / clone / to / Module.to, and view(dtype), against torch."""

from __future__ import annotations

import numpy as np
import pytest

import aakaar as ak
from core_helpers import assert_same_as_torch

torch = pytest.importorskip("torch")


def _fmt(lib, name):
    return getattr(lib, name)


@pytest.mark.parametrize("shape, name", [((2, 3, 4, 5), "channels_last"), ((1, 3, 1, 5), "channels_last"),
                                         ((2, 3, 2, 4, 5), "channels_last_3d")])
def test_channels_last_layouts_match_torch(shape, name):
    x = np.arange(np.prod(shape), dtype=np.float32).reshape(shape)
    a, t = ak.from_numpy(x.copy()), torch.from_numpy(x.copy())
    ca, ct = a.contiguous(memory_format=_fmt(ak, name)), t.contiguous(memory_format=_fmt(torch, name))
    assert ca.stride() == ct.stride()
    np.testing.assert_array_equal(ca.numpy(), x)
    for fmt in ("contiguous_format", name):
        assert ca.is_contiguous(memory_format=_fmt(ak, fmt)) == ct.is_contiguous(memory_format=_fmt(torch, fmt))
        assert a.is_contiguous(memory_format=_fmt(ak, fmt)) == t.is_contiguous(memory_format=_fmt(torch, fmt))
    assert ca.clone().stride() == ct.clone().stride()  # preserve_format keeps channels-last
    assert ca.clone(memory_format=ak.contiguous_format).stride() == ct.clone(memory_format=torch.contiguous_format).stride()
    assert a.to(memory_format=_fmt(ak, name)).stride() == t.to(memory_format=_fmt(torch, name)).stride()
    assert ca.contiguous(memory_format=_fmt(ak, name)) is ca  # already laid out so: no copy


def test_channels_last_tensors_compute_the_same_values():
    x = np.random.default_rng(0).normal(size=(2, 3, 6, 6)).astype(np.float32)
    w = np.random.default_rng(1).normal(size=(4, 3, 3, 3)).astype(np.float32)
    a = ak.from_numpy(x).contiguous(memory_format=ak.channels_last)
    plain = ak.nn.functional.conv2d(ak.from_numpy(x), ak.from_numpy(w), padding=1)
    np.testing.assert_array_equal(ak.nn.functional.conv2d(a, ak.from_numpy(w), padding=1).numpy(), plain.numpy())
    np.testing.assert_array_equal((a * 2 + 1).numpy(), x * 2 + 1)


def test_module_to_channels_last_as_torch():
    torch.manual_seed(0)
    tm = torch.nn.Sequential(torch.nn.Conv2d(3, 4, 3), torch.nn.BatchNorm2d(4), torch.nn.Flatten(), torch.nn.Linear(4, 2))
    am = ak.nn.Sequential(ak.nn.Conv2d(3, 4, 3), ak.nn.BatchNorm2d(4), ak.nn.Flatten(), ak.nn.Linear(4, 2))
    tm.to(memory_format=torch.channels_last)
    am.to(memory_format=ak.channels_last)
    for (n, p), (tn, tp) in zip(am.named_parameters(), tm.named_parameters()):
        assert n == tn and p.stride() == tp.stride() and isinstance(p, ak.nn.Parameter)


def test_memory_format_refusals_as_torch():
    for lib in (torch, ak):
        with pytest.raises(RuntimeError):
            lib.ones(2, 3).contiguous(memory_format=lib.channels_last)
        assert lib.ones(2, 3).is_contiguous(memory_format=lib.preserve_format)
        assert not lib.ones(2, 3).t().is_contiguous(memory_format=lib.preserve_format)
    with pytest.raises(TypeError):
        ak.ones(2).contiguous(memory_format="channels_last")
    assert repr(ak.channels_last) == "aakaar.channels_last"


@pytest.mark.parametrize("src, dst", [("float32", "int32"), ("int32", "float32"), ("float64", "int64"),
                                      ("float16", "int16"), ("int16", "bfloat16")])
def test_view_dtype_bitcasts_as_torch(src, dst):
    t = torch.tensor([1.5, -2.0, 0.0, 3.25]).to(getattr(torch, src))
    a = ak.from_numpy(t.float().numpy()).to(getattr(ak, src)) if src in ("bfloat16",) else ak.tensor(
        t.numpy() if src != "bfloat16" else t.float().numpy()).to(getattr(ak, src))
    va, vt = a.view(getattr(ak, dst)), t.view(getattr(torch, dst))
    np.testing.assert_array_equal(va.float().numpy() if dst == "bfloat16" else va.numpy(),
                                  vt.float().numpy() if dst == "bfloat16" else vt.numpy())
    assert va.data_ptr() == a.data_ptr()  # a view: the same memory
    assert a.view(dtype=getattr(ak, dst)).shape == a.shape


VIEW_DTYPE = [
    # more, smaller items: the last dim grows by the ratio of the item sizes, other strides too
    "T.arange(6.).reshape(2, 3).view(T.int16)", "T.arange(6.).reshape(2, 3).view(T.uint8)",
    "T.arange(6.).reshape(2, 3).view(T.bool)", "T.arange(8.).reshape(2, 4).view(T.float16)",
    "T.arange(4, dtype=T.float64).view(T.float32)", "T.arange(8.)[2:].view(T.int16)",
    "T.arange(12.).reshape(3, 4)[1:, :2].view(T.bfloat16)",
    # fewer, larger items: the last dim (and the offset, and the other strides) must divide
    "T.arange(8.).reshape(2, 4).view(T.float64)", "T.arange(12, dtype=T.int16).reshape(3, 4).view(T.int64)",
    "T.arange(8.)[2:].view(T.float64)", "T.arange(18.).reshape(3, 6)[:, :2].view(T.float64)",
    "T.zeros(0, 4).view(T.float64)", "T.tensor([1., 2.], requires_grad=True).view(T.int32)",
    # torch's refusals
    "T.arange(6.).reshape(2, 3).view(T.float64)", "T.arange(4.)[1:].view(T.float64)", "T.ones(3, 1).view(T.float64)",
    "T.ones(2, 4).t().view(T.int16)", "T.ones(4)[::2].view(T.int16)", "T.tensor(1.).view(T.int16)",
    "T.ones(2, 0).view(T.float64)", "T.arange(8.)[1:7].view(T.float64)",
    # the same item size: same shape, any strides
    "T.tensor(1.).view(T.int32)", "T.ones(4)[::2].view(T.int32)",
]


def _view_dtype_facts(r):
    return r if isinstance(r, Exception) else (tuple(r.shape), tuple(r.stride()), r.storage_offset())


@pytest.mark.parametrize("expr", VIEW_DTYPE)
def test_view_dtype_between_item_sizes_as_torch(torch, expr):
    got = assert_same_as_torch(torch, expr)
    if not isinstance(got, Exception):  # the same geometry too: a view over the same bytes
        assert _view_dtype_facts(got) == _view_dtype_facts(eval(expr, {"T": torch})), expr  # noqa: S307


def test_view_dtype_shares_memory_and_reads_the_bytes():
    x = ak.tensor([1.0, -2.0], dtype=ak.float32)
    b = x.view(ak.uint8)
    assert b.shape == (8,) and b.numpy().tobytes() == x.numpy().tobytes()
    b[3] = 0  # the high byte of the first float (little-endian): a write through the view
    assert x[0].item() != 1.0
    d = ak.arange(4, dtype=ak.float64).view(ak.float32).view(ak.float64)
    assert d.tolist() == [0.0, 1.0, 2.0, 3.0]
    with pytest.raises(RuntimeError, match=r"self.size\(-1\) must be divisible by 2 to view float32 as float64"):
        ak.ones(3).view(ak.float64)


def test_view_takes_a_shape_or_a_dtype():
    with pytest.raises(TypeError):
        ak.ones(4).view(2, dtype=ak.int32)
    assert ak.ones(4).view(2, 2).shape == (2, 2)
