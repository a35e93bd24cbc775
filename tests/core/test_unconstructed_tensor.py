"""A Tensor object cannot exist without its C++ tensor (issue 15).

``ak.Tensor.__new__(ak.Tensor)`` used to give a bare Python shell whose
``numel()`` and ``is_contiguous()`` dereferenced a null tensor (a segfault)
and whose ``.ndim``/``.shape``/``.device`` read garbage. ``__new__`` now makes
the whole tensor: alone it is an empty float32 tensor, as ``torch.Tensor()``.
The crashing calls run in a subprocess so a regression fails the test instead
of killing the run.
"""

from __future__ import annotations

import subprocess
import sys
import textwrap

import pytest

import aakaar as ak
import aakaar.nn as nn


def test_new_without_init_is_an_empty_tensor_in_a_subprocess():
    code = textwrap.dedent(
        """
        import aakaar as ak
        t = ak.Tensor.__new__(ak.Tensor)
        print(t.numel(), t.is_contiguous(), t.ndim, tuple(t.shape), str(t.device), t.dtype, t.storage_offset())
        """
    )
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    assert r.stdout.split() == ["0", "True", "1", "(0,)", "cpu", "aakaar.float32", "0"]


def test_every_method_of_a_new_only_tensor_works():
    t = ak.Tensor.__new__(ak.Tensor)
    assert t.numel() == 0 and t.is_contiguous() and t.ndim == 1
    assert tuple(t.shape) == (0,) and t.storage_offset() == 0
    assert (t + 1).numel() == 0 and t.sum().item() == 0


def test_new_with_data_aliases_it_and_init_is_harmless():
    base = ak.arange(3.0)
    t = ak.Tensor.__new__(ak.Tensor, base)
    t.__init__(base)
    t[0] = 7.0
    assert base[0].item() == 7.0  # an alias, as ak.Tensor(base)
    assert ak.Tensor(base).data_ptr() == base.data_ptr()


def test_parameter_subclass_still_constructs():
    p = nn.Parameter(ak.ones(2))
    assert p.requires_grad and tuple(p.shape) == (2,)
    q = nn.Parameter()
    assert q.numel() == 0
    r = nn.Parameter.__new__(nn.Parameter)
    assert r.numel() == 0


@pytest.mark.parametrize("value", [99, -1, 10, True, "float32"])
def test_invalid_dtype_values_cannot_be_made(value):
    with pytest.raises(TypeError):
        ak.dtype(value)


def test_promote_types_accepts_only_real_dtypes():
    assert ak.promote_types(ak.float32, ak.int64) == ak.float32
    with pytest.raises(TypeError):
        ak.promote_types(ak.dtype(99), ak.float32)
