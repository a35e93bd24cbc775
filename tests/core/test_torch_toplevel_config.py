"""torch's global switches and queries on aakaar: set_printoptions (its effect on repr, compared
with torch's repr), determinism flags, default device, matmul precision, inference/anomaly
queries, interop threads, flush-denormal, warn-always, compile, typename, is_storage.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import aakaar as ak

torch = pytest.importorskip("torch")


@pytest.fixture
def restore_printoptions():
    yield
    ak.set_printoptions(profile="default")
    torch.set_printoptions(profile="default")


def _repr_pair(values):
    a = np.asarray(values)
    return repr(ak.from_numpy(a.copy())), repr(torch.from_numpy(a.copy()))


@pytest.mark.parametrize("opts", [{"precision": 2}, {"precision": 6}, {"sci_mode": True}, {"sci_mode": False},
                                  {"linewidth": 40}, {"profile": "short"}, {"profile": "full"},
                                  {"threshold": 5, "edgeitems": 2}])
def test_set_printoptions_changes_repr_as_torch(opts, restore_printoptions):
    ak.set_printoptions(**opts)
    torch.set_printoptions(**opts)
    for values in (np.arange(1, 20, dtype=np.float32) / 7, np.array([1.5, 2.0e-5, 300.0], dtype=np.float32),
                   np.arange(12, dtype=np.int64).reshape(3, 4), np.arange(4, dtype=np.float32)):
        got, want = _repr_pair(values)
        if "..." in want:
            assert "..." in got                                  # summarised (numpy's spacing around ...)
            continue
        assert got == want


def test_printoptions_default_profile_restores(restore_printoptions):
    before = repr(ak.arange(30.0) / 7)
    ak.set_printoptions(precision=1, linewidth=30)
    assert repr(ak.arange(30.0) / 7) != before
    ak.set_printoptions(profile="default")
    assert repr(ak.arange(30.0) / 7) == before


def test_deterministic_flags():
    try:
        ak.use_deterministic_algorithms(True, warn_only=True)
        assert ak.are_deterministic_algorithms_enabled() and ak.is_deterministic_algorithms_warn_only_enabled()
        assert ak.get_deterministic_debug_mode() == 1
        ak.set_deterministic_debug_mode("error")
        assert ak.are_deterministic_algorithms_enabled() and not ak.is_deterministic_algorithms_warn_only_enabled()
        assert ak.get_deterministic_debug_mode() == 2
    finally:
        ak.use_deterministic_algorithms(False)
    assert not ak.are_deterministic_algorithms_enabled() and ak.get_deterministic_debug_mode() == 0
    for bad in ("x", 1):
        with pytest.raises(TypeError):
            torch.use_deterministic_algorithms(bad)
        with pytest.raises(TypeError):
            ak.use_deterministic_algorithms(bad)
    for bad in ("bad", 5):
        with pytest.raises(RuntimeError):
            torch.set_deterministic_debug_mode(bad)
        with pytest.raises(RuntimeError):
            ak.set_deterministic_debug_mode(bad)


def test_default_device_and_tensor_type():
    assert ak.get_default_device() == ak.device("cpu")
    ak.set_default_device("cpu")
    ak.set_default_device(None)
    with pytest.raises(NotImplementedError, match="device="):
        ak.set_default_device("cuda")
    with pytest.warns(UserWarning, match="deprecated"):
        ak.set_default_tensor_type("torch.FloatTensor")
    try:
        with pytest.warns(UserWarning):
            ak.set_default_tensor_type("torch.DoubleTensor")
        assert ak.get_default_dtype() == ak.float64
        assert ak.tensor([1.5]).dtype == ak.float64
    finally:
        ak.set_default_dtype(ak.float32)
    with pytest.warns(UserWarning), pytest.raises(TypeError):
        ak.set_default_tensor_type("torch.NoSuchTensor")
    assert ak.get_default_dtype() == ak.float32


def test_float32_matmul_precision():
    try:
        assert ak.get_float32_matmul_precision() == torch.get_float32_matmul_precision() == "highest"
        ak.set_float32_matmul_precision("medium")
        assert ak.get_float32_matmul_precision() == "medium"
        with pytest.warns(UserWarning):
            ak.set_float32_matmul_precision("bad")
        assert ak.get_float32_matmul_precision() == "medium"
    finally:
        ak.set_float32_matmul_precision("highest")


def test_inference_and_anomaly():
    assert ak.is_inference(ak.ones([2])) is torch.is_inference(torch.ones(2)) is False
    assert ak.is_inference_mode_enabled() is torch.is_inference_mode_enabled() is False
    assert ak.is_anomaly_enabled() is torch.is_anomaly_enabled() is False
    assert ak.is_anomaly_check_nan_enabled() is False
    ak.set_anomaly_enabled(False)
    with pytest.raises(NotImplementedError, match="anomaly"):
        ak.set_anomaly_enabled(True)


def test_threads_denormals_warn_always():
    assert ak.get_num_interop_threads() >= 1
    before = ak.get_num_interop_threads()
    ak.set_num_interop_threads(3)
    assert ak.get_num_interop_threads() == 3
    ak.set_num_interop_threads(before)
    with pytest.raises(RuntimeError):
        torch.set_num_interop_threads(0)
    with pytest.raises(RuntimeError):
        ak.set_num_interop_threads(0)
    ak.init_num_threads()
    assert ak.set_flush_denormal(True) is False                # aakaar keeps denormals, and says so
    tiny = ak.tensor([1e-40], dtype=ak.float32)
    assert tiny.item() != 0.0
    assert ak.is_warn_always_enabled() is False
    ak.set_warn_always(True)
    assert ak.is_warn_always_enabled() is True
    ak.set_warn_always(False)


def test_compile_returns_the_model_and_warns_once():
    import aakaar.torch_compat_config as cfg

    cfg._compile_warned[0] = False
    model = ak.nn.Linear(2, 3)
    with pytest.warns(UserWarning, match="no compiler"):
        assert ak.compile(model) is model
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert ak.compile(model, mode="max-autotune") is model    # once only

    @ak.compile(fullgraph=True)
    def f(x):
        return x * 2

    assert f(ak.ones([2])).tolist() == [2.0, 2.0]
    with pytest.raises(RuntimeError):
        ak.compile(3)


def test_typename_and_is_storage():
    assert ak.typename(ak.zeros([2])) == torch.typename(torch.zeros(2)).replace("torch", "aakaar")
    assert ak.typename(ak.zeros([2], dtype=ak.int64)) == "aakaar.LongTensor"
    assert ak.typename(3) == torch.typename(3) == "int"
    assert ak.typename(ak.nn.Linear).endswith(".Linear") and ak.typename(ak.nn.Linear).startswith("aakaar.nn")
    assert ak.is_storage(ak.zeros([1])) is torch.is_storage(torch.zeros(1)) is False
    assert ak.is_distributed(ak.zeros([1])) is torch.is_distributed(torch.zeros(1)) is False
    assert ak.zeros([1]).is_distributed() is torch.zeros(1).is_distributed() is False
    assert ak.is_vulkan_available() is torch.is_vulkan_available() is False



@pytest.mark.parametrize("name", ["pi", "e", "inf", "nan", "newaxis"])
def test_constants_as_torch(name):
    ours, theirs = getattr(ak, name), getattr(torch, name)
    assert type(ours) is type(theirs)
    assert ours is theirs or ours == theirs or (ours != ours and theirs != theirs)
    assert name in dir(ak)


def test_newaxis_indexes_as_none():
    x = ak.arange(6.0).reshape(2, 3)
    assert x[ak.newaxis].shape == (1, 2, 3) and x[:, ak.newaxis].shape == (2, 1, 3)
    assert ak.tensor(ak.pi).item() == pytest.approx(3.14159265)
    assert ak.full([2], ak.inf).isinf().all()
