"""aakaar.set_default_dtype against torch.set_default_dtype: what the default floating dtype changes
(Python floats made tensors, factories without dtype=, integers promoted to floats, nn parameters)
and what it leaves alone (integers, bools, numpy arrays, *_like, one_hot), plus the refusals."""

from __future__ import annotations

import threading

import numpy as np
import pytest

import aakaar

torch = pytest.importorskip("torch")

DEFAULTS = ["float64", "float16", "bfloat16", "float32"]


@pytest.fixture(params=DEFAULTS)
def default(request):
    """Sets the same default dtype in aakaar and torch; float32 comes back even when the test fails."""
    name = request.param
    try:
        aakaar.set_default_dtype(getattr(aakaar, name))
        torch.set_default_dtype(getattr(torch, name))
        yield name
    finally:
        aakaar.set_default_dtype(aakaar.float32)
        torch.set_default_dtype(torch.float32)


def _name(dtype) -> str:
    return str(dtype).split(".")[-1]


def _values(t) -> np.ndarray:
    """float64 (or int64, bool) numpy values: numpy has no bfloat16."""
    return t.detach().to(t.dtype if not t.dtype.is_floating_point else
                         (aakaar.float64 if isinstance(t, aakaar.Tensor) else torch.float64)).numpy()


# Each case builds a tensor with either library (the module is passed in); deterministic ones
# are compared value for value too, so a float64 default is caught if it went through float32.
DETERMINISTIC = {
    "tensor_list": lambda m: m.tensor([1.5, 0.1]),
    "tensor_scalar": lambda m: m.tensor(2.0),
    "tensor_mixed_list": lambda m: m.tensor([1, 2.5, True]),
    "tensor_empty_list": lambda m: m.tensor([]),
    "as_tensor_list": lambda m: m.as_tensor([0.1, 0.2]),
    "zeros": lambda m: m.zeros(2, 3),
    "ones": lambda m: m.ones(2),
    "full_float": lambda m: m.full((2,), 0.1),
    "full_int": lambda m: m.full((2,), 3),
    "full_bool": lambda m: m.full((2,), True),
    "arange_float": lambda m: m.arange(0, 1, 0.1),
    "arange_float_end": lambda m: m.arange(2.5),
    "arange_int": lambda m: m.arange(5),
    "linspace": lambda m: m.linspace(0, 1, 7),
    "logspace": lambda m: m.logspace(0, 2, 5),
    "eye": lambda m: m.eye(3),
    "scalar_tensor": lambda m: m.scalar_tensor(3),
    "zeros_like_f32": lambda m: m.zeros_like(m.ones(2, dtype=m.float32)),
    "ones_like_int": lambda m: m.ones_like(m.tensor([1, 2])),
    "full_like_f32": lambda m: m.full_like(m.ones(2, dtype=m.float32), 0.1),
    "int_times_float": lambda m: m.tensor([1, 2, 3]) * 1.5,
    "float_times_int": lambda m: 0.1 * m.tensor([1, 2, 3]),
    "int_plus_float": lambda m: m.tensor([1, 2]) + 0.1,
    "bool_times_float": lambda m: m.tensor([True, False]) * 0.5,
    "int_true_div": lambda m: m.tensor([1, 2, 3]) / 3,
    "int_div_int_tensor": lambda m: m.tensor([1, 2, 3]) / m.tensor([2, 2, 2]),
    "int_rdiv": lambda m: 1 / m.tensor([1, 2, 4]),
    "int_pow_float": lambda m: m.tensor([1, 2, 3]) ** 0.5,
    "int_sqrt": lambda m: m.tensor([1, 2, 4]).sqrt(),
    "int_exp": lambda m: m.tensor([0, 1]).exp(),
    "int_clamp_fraction": lambda m: m.tensor([1, 2, 3]).clamp(0.5, 2.5),
    "int_atan2": lambda m: m.atan2(m.tensor([1, 2]), m.tensor([3, 4])),
    "int_logsumexp": lambda m: m.logsumexp(m.tensor([1, 2, 3]), 0),
    "int_plus_int": lambda m: m.tensor([1, 2]) + 3,
    "int_floordiv": lambda m: m.tensor([7, 8]) // 2,
    "f32_times_float": lambda m: m.ones(2, dtype=m.float32) * 0.1,
    "f32_plus_f64_scalar_tensor": lambda m: m.ones(2, dtype=m.float32) + m.tensor(0.1),
    "int_tensor": lambda m: m.tensor([1, 2]),
    "bool_tensor": lambda m: m.tensor([True, False]),
    "numpy_f32": lambda m: m.tensor(np.array([0.1, 0.2], dtype=np.float32)),
    "numpy_f64": lambda m: m.tensor(np.array([0.1, 0.2], dtype=np.float64)),
    "numpy_scalar_f32": lambda m: m.tensor(np.float32(0.1)),
    "from_numpy_f32": lambda m: m.from_numpy(np.array([0.1], dtype=np.float32)),
    "from_numpy_f64": lambda m: m.from_numpy(np.array([0.1], dtype=np.float64)),
    "one_hot": lambda m: m.nn.functional.one_hot(m.tensor([0, 2]), 3),
    "float_method": lambda m: m.tensor([1, 2]).float(),
    "double_method": lambda m: m.tensor([1, 2]).double(),
}

RANDOM = {
    "empty": lambda m: m.empty(2, 3),
    "rand": lambda m: m.rand(3),
    "randn": lambda m: m.randn(3),
    "rand_like_int_input_f32": lambda m: m.rand_like(m.ones(2, dtype=m.float32)),
    "randn_like_f64": lambda m: m.randn_like(m.ones(2, dtype=m.float64)),
    "normal_floats": lambda m: m.normal(0.0, 1.0, size=(3,)),
    "randint": lambda m: m.randint(0, 5, (3,)),
    "linear_weight": lambda m: m.nn.Linear(2, 3).weight,
    "linear_bias": lambda m: m.nn.Linear(2, 3).bias,
    "layernorm_weight": lambda m: m.nn.LayerNorm(4).weight,
    "embedding_weight": lambda m: m.nn.Embedding(5, 2).weight,
    "parameter_of_floats": lambda m: m.nn.Parameter(m.tensor([0.5])),
}


# linspace's interior points may differ from torch's by one unit in the last place in float32 and
# the 16-bit types (torch's own formula and rounding; not about the default dtype).
WITHIN_ONE_ULP = {"linspace"}


@pytest.mark.parametrize("case", sorted(DETERMINISTIC))
def test_dtype_and_values_follow_torch(default, case):
    a, t = DETERMINISTIC[case](aakaar), DETERMINISTIC[case](torch)
    assert _name(a.dtype) == _name(t.dtype), f"{case} with default {default}"
    rtol = aakaar.finfo(a.dtype).eps if case in WITHIN_ONE_ULP else 0
    np.testing.assert_allclose(_values(a), _values(t), rtol=rtol, atol=0, err_msg=f"{case} with default {default}")


@pytest.mark.parametrize("case", sorted(RANDOM))
def test_dtype_of_random_and_nn_follows_torch(default, case):
    a, t = RANDOM[case](aakaar), RANDOM[case](torch)
    assert _name(a.dtype) == _name(t.dtype), f"{case} with default {default}"
    assert tuple(a.shape) == tuple(t.shape)


def test_get_default_dtype_and_repr(default):
    assert _name(aakaar.get_default_dtype()) == _name(torch.get_default_dtype()) == default
    assert aakaar.finfo().bits == torch.finfo().bits
    for dt in ("float32", "float64", "int64", "bool"):
        a = aakaar.tensor([1, 0], dtype=getattr(aakaar, dt))
        t = torch.tensor([1, 0], dtype=getattr(torch, dt))
        # The repr names the dtype unless it is implied (the default float, int64, bool), as torch's.
        assert ("dtype=" in repr(a)) == ("dtype=" in repr(t)), (dt, repr(a), repr(t))


def test_mean_of_integers_still_refused(default):
    with pytest.raises(RuntimeError):
        torch.tensor([1, 2]).mean()
    with pytest.raises(RuntimeError):
        aakaar.tensor([1, 2]).mean()


def test_in_place_true_division_of_integers_still_refused(default):
    with pytest.raises(RuntimeError):
        torch.tensor([1, 2]).div_(2)
    with pytest.raises(RuntimeError):
        aakaar.tensor([1, 2]).div_(2)


def test_float64_default_keeps_python_float_precision():
    try:
        aakaar.set_default_dtype(aakaar.float64)
        x = aakaar.tensor([0.1]) + 0.2
        assert x.dtype == aakaar.float64 and x.item() == 0.1 + 0.2
        assert (aakaar.arange(10) * 0.1).numpy().tolist() == [i * 0.1 for i in range(10)]
    finally:
        aakaar.set_default_dtype(aakaar.float32)


def test_float64_default_gradient_is_float64():
    try:
        aakaar.set_default_dtype(aakaar.float64)
        x = aakaar.tensor([0.3, 0.7], requires_grad=True)
        (x * x).sum().backward()
        assert x.grad.dtype == aakaar.float64
        np.testing.assert_array_equal(x.grad.numpy(), [0.6, 1.4])
    finally:
        aakaar.set_default_dtype(aakaar.float32)


@pytest.mark.parametrize("bad", ["int64", "int32", "uint8", "bool"])
def test_non_floating_dtype_refused_like_torch(bad):
    with pytest.raises(TypeError) as tinfo:
        torch.set_default_dtype(getattr(torch, bad))
    with pytest.raises(TypeError) as ainfo:
        aakaar.set_default_dtype(getattr(aakaar, bad))
    assert str(ainfo.value) == str(tinfo.value)
    assert aakaar.get_default_dtype() == aakaar.float32


@pytest.mark.parametrize("bad", ["float64", None, 3, np.float64])
def test_non_dtype_refused_like_torch(bad):
    with pytest.raises(TypeError) as tinfo:
        torch.set_default_dtype(bad)
    with pytest.raises(TypeError) as ainfo:
        aakaar.set_default_dtype(bad)
    assert str(ainfo.value) == str(tinfo.value)
    assert aakaar.get_default_dtype() == aakaar.float32


def test_process_wide_like_torch():
    # One setting for the whole process, as in PyTorch: a thread sees what the main thread set.
    seen = []
    try:
        aakaar.set_default_dtype(aakaar.float64)
        th = threading.Thread(target=lambda: seen.append((aakaar.get_default_dtype(), aakaar.zeros(1).dtype)))
        th.start()
        th.join()
    finally:
        aakaar.set_default_dtype(aakaar.float32)
    assert seen == [(aakaar.float64, aakaar.float64)]
    assert aakaar.zeros(1).dtype == aakaar.float32
