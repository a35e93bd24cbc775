"""f-string formatting of 0-d tensors and the dtype keyword of prod, mean, softmax and
log_softmax, against torch."""

from __future__ import annotations

import numpy as np
import pytest

import aakaar as ak

torch = pytest.importorskip("torch")


@pytest.mark.parametrize("value", [2.345, -0.5, 3, True])
@pytest.mark.parametrize("spec", ["", ".2f", ">8", "e", "+.1%"])
def test_zero_dim_tensor_formats_as_its_number_as_torch(value, spec):
    if isinstance(value, bool) and spec in ("e", "+.1%", ".2f"):
        spec = ""
    assert format(ak.tensor(value), spec) == format(torch.tensor(value), spec)


def test_formatting_a_vector_with_a_spec_refuses_as_torch():
    with pytest.raises(TypeError):
        format(torch.tensor([1.5]), ".2f")
    with pytest.raises(TypeError):
        format(ak.tensor([1.5]), ".2f")
    assert format(ak.tensor([1.5]), "") == str(ak.tensor([1.5]))


@pytest.mark.parametrize("name, args", [("prod", (1,)), ("prod", ()), ("mean", ()), ("mean", (0,)),
                                         ("softmax", (1,)), ("log_softmax", (0,))])
@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_dtype_keyword_casts_first_as_torch(name, args, dtype):
    x = np.array([[1, 5], [3, 2]], dtype=np.int64 if name in ("prod", "mean") else np.float32)
    ours = getattr(ak.tensor(x), name)(*args, dtype=getattr(ak, dtype))
    theirs = getattr(torch.tensor(x), name)(*args, dtype=getattr(torch, dtype))
    assert str(ours.dtype).split(".")[-1] == str(theirs.dtype).split(".")[-1]
    np.testing.assert_allclose(ours.numpy(), theirs.numpy(), rtol=1e-6)
    functional = getattr(ak, name, None)
    if functional is not None:
        np.testing.assert_allclose(functional(ak.tensor(x), *args, dtype=getattr(ak, dtype)).numpy(), theirs.numpy(),
                                   rtol=1e-6)


def test_integer_mean_without_dtype_still_refuses_as_torch():
    with pytest.raises(RuntimeError):
        torch.tensor([1, 2]).mean()
    with pytest.raises(RuntimeError):
        ak.tensor([1, 2]).mean()
