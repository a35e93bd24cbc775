"""PyTorch's everyday conventions: the subpackages reachable after ``import aakaar``,
the dtype aliases, and numpy's ``axis=``/``keepdims=`` for ``dim=``/``keepdim=``."""

from __future__ import annotations

import re
import subprocess
import sys

import numpy as np
import pytest

import aakaar

# ---- subpackages ------------------------------------------------------------------


def test_subpackages_are_attributes_after_a_plain_import():
    # A fresh interpreter: in this one some test may already have imported them.
    code = (
        "import sys, aakaar\n"
        "assert 'aakaar.nn' in sys.modules\n"
        "print(aakaar.nn.Linear.__name__, aakaar.nn.functional.relu.__name__, aakaar.nn.init.__name__,\n"
        "      aakaar.optim.__name__, aakaar.data.__name__)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == ["Linear", "relu", "aakaar.nn.init", "aakaar.optim", "aakaar.data"]


def test_importing_a_subpackage_first_has_no_cycle():
    for first in ("aakaar.nn", "aakaar.nn.functional", "aakaar.optim", "aakaar.data"):
        out = subprocess.run([sys.executable, "-c", f"import {first}; import aakaar; aakaar.nn.Module; aakaar.optim"],
                             capture_output=True, text=True, timeout=120)
        assert out.returncode == 0, f"import {first} first: {out.stderr}"


def test_data_is_the_torch_utils_data_of_aakaar():
    for name in ("Dataset", "TensorDataset", "DataLoader", "RandomSampler", "random_split", "EMNIST"):
        assert hasattr(aakaar.data, name), name


def test_optim_is_the_torch_optim_of_aakaar():
    for name in ("Optimizer", "SGD", "Adam", "AdamW"):
        assert hasattr(aakaar.optim, name), name


# ---- dtype aliases ------------------------------------------------------------------


@pytest.mark.parametrize("alias, dtype", [
    ("float", "float32"), ("double", "float64"), ("long", "int64"), ("bool", "bool"),
    ("float32", "float32"), ("float64", "float64"), ("int64", "int64"), ("uint8", "uint8"),
    ("int", "int32"), ("int32", "int32"), ("short", "int16"), ("int16", "int16"), ("int8", "int8"),
    ("half", "float16"), ("float16", "float16"), ("bfloat16", "bfloat16"),
])
def test_dtype_aliases(alias, dtype, torch):
    assert getattr(aakaar, alias) is getattr(aakaar.dtype, dtype)
    assert str(getattr(torch, alias)) == f"torch.{dtype}"  # the same meaning in torch
    assert aakaar.zeros(2, dtype=getattr(aakaar, alias)).dtype == getattr(aakaar.dtype, dtype)


@pytest.mark.parametrize("alias, missing", [("cfloat", "complex64"), ("complex128", "complex128"),
                                            ("uint16", "uint16")])
def test_dtypes_aakaar_lacks_are_absent_with_a_clear_message(alias, missing):
    assert not hasattr(aakaar, alias)
    with pytest.raises(AttributeError, match=rf"no {missing} dtype yet.*int32"):
        getattr(aakaar, alias)


def test_unknown_attribute_is_still_a_plain_attribute_error():
    with pytest.raises(AttributeError, match="has no attribute 'no_such_thing'"):
        aakaar.no_such_thing  # noqa: B018


# ---- axis= and keepdims= --------------------------------------------------------------

X = np.arange(24, dtype=np.float64).reshape(2, 3, 4) / 7.0 - 1.0

# (method, extra positional args, keyword args in numpy spelling)
ALIAS_CALLS = [
    ("sum", (), {"axis": 1}),
    ("sum", (), {"axis": (0, 2), "keepdims": True}),
    ("mean", (), {"axis": -1, "keepdims": True}),
    ("prod", (), {"axis": 2}),
    ("amax", (), {"axis": 1, "keepdims": True}),
    ("amin", (), {"axis": 0}),
    ("argmax", (), {"axis": 2, "keepdims": True}),
    ("argmin", (), {"axis": 1}),
    ("std", (), {"axis": 1, "keepdims": True}),
    ("var", (), {"axis": 2}),
    ("logsumexp", (), {"axis": 1, "keepdims": True}),
    ("softmax", (), {"axis": 1}),
    ("log_softmax", (), {"axis": 2}),
    ("cumsum", (), {"axis": 1}),
    ("all", (), {"axis": 1}),
    ("any", (), {"axis": 2, "keepdims": True}),
    ("squeeze", (), {"axis": 0}),
    ("unsqueeze", (), {"axis": 1}),
]


def _values(r):
    r = r.values if hasattr(r, "values") and not callable(r.values) else r
    return r.detach().numpy() if hasattr(r, "detach") else np.asarray(r)


@pytest.mark.parametrize("name, args, kwargs", ALIAS_CALLS, ids=lambda v: str(v))
def test_numpy_names_match_torch(name, args, kwargs, torch):
    a, t = aakaar.tensor(X), torch.tensor(X)
    if name in ("all", "any"):
        a, t = a > 0, t > 0
    ours_method = getattr(a, name)(*args, **kwargs)
    ours_function = getattr(aakaar, name)(a, *args, **kwargs)
    theirs = getattr(t, name)(*args, **kwargs)
    np.testing.assert_allclose(_values(ours_method), _values(theirs), rtol=1e-12)
    np.testing.assert_allclose(_values(ours_function), _values(theirs), rtol=1e-12)


@pytest.mark.parametrize("name", ["max", "min"])
def test_max_min_along_axis_give_values_and_indices(name, torch):
    a, t = aakaar.tensor(X), torch.tensor(X)
    ours, theirs = getattr(a, name)(axis=1, keepdims=True), getattr(t, name)(axis=1, keepdims=True)
    np.testing.assert_allclose(ours.values.numpy(), theirs.values.numpy())
    np.testing.assert_array_equal(ours.indices.numpy(), theirs.indices.numpy())


def test_cat_and_stack_take_axis(torch):
    parts = [X[0], X[1]]
    for fn in ("cat", "stack"):
        ours = getattr(aakaar, fn)([aakaar.tensor(p) for p in parts], axis=1)
        theirs = getattr(torch, fn)([torch.tensor(p) for p in parts], axis=1)
        np.testing.assert_array_equal(ours.numpy(), theirs.numpy())


def test_both_dim_and_axis_is_an_error_like_torch(torch):
    a, t = aakaar.tensor(X), torch.tensor(X)
    with pytest.raises(TypeError):
        t.sum(dim=0, axis=1)
    with pytest.raises(TypeError, match="both 'dim' and its alias 'axis'"):
        a.sum(dim=0, axis=1)
    with pytest.raises(TypeError, match="both 'keepdim' and its alias 'keepdims'"):
        aakaar.mean(a, 0, keepdim=True, keepdims=True)


def test_every_method_with_a_dim_keyword_takes_axis():
    # The compiled methods name their arguments in their signatures: any with a
    # `dim` keyword must be on the alias list, so a new reduction cannot forget it.
    missing = []
    for name in dir(aakaar.Tensor):
        method = getattr(aakaar.Tensor, name)
        doc = getattr(method, "__doc__", None) or ""
        first = doc.strip().splitlines()[0] if doc.strip() else ""
        if name.startswith("_") or not re.search(r"\b(dim|keepdim): ", first):
            continue
        if not getattr(method, "_accepts_numpy_names", False):
            missing.append(name)
    assert not missing, f"methods with dim= but no axis= alias: {missing}"


def test_gradients_flow_through_the_aliased_spelling():
    x = aakaar.tensor(X, requires_grad=True)
    x.sum(axis=1, keepdims=True).mean().backward()
    np.testing.assert_allclose(x.grad.numpy(), np.full(X.shape, 1.0 / 8))
