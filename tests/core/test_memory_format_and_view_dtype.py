"""memory_format (contiguous_format, channels_last, channels_last_3d, preserve_format) in
contiguous / is_contiguous / clone / to / Module.to, and view(dtype), against torch."""

from __future__ import annotations

import numpy as np
import pytest

import aakaar as ak

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


def test_view_dtype_of_another_size_says_so():
    with pytest.raises(NotImplementedError, match="item size"):
        ak.ones(4).view(ak.float16)
    with pytest.raises(TypeError):
        ak.ones(4).view(2, dtype=ak.int32)
    assert ak.ones(4).view(2, 2).shape == (2, 2)
