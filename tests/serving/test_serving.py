"""aakaar.serving: the Python side of the Go server (go/, chapter 18)."""
from __future__ import annotations

import ctypes

import numpy as np
import pytest

import aakaar
from aakaar.serialization import SerializationError
from aakaar.serving import build_mlp, load_model, run, save_model, wrap_only

SIZES = [12, 8, 5]


@pytest.fixture
def model_file(tmp_path):
    aakaar.manual_seed(0)
    module = build_mlp(SIZES)
    path = tmp_path / "mlp.aksv"
    save_model(path, module, SIZES)
    return path, module


def c_buffer(values: np.ndarray):
    """C memory (as Go's would be) holding values, and a writable memoryview of it."""
    buf = (ctypes.c_float * values.size)(*values.ravel().tolist())
    return buf, memoryview(buf).cast("B")


def test_build_mlp_is_chapter_17s_shape():
    layers = list(build_mlp([784, 256, 128, 47]).children())
    assert [type(m).__name__ for m in layers] == ["Linear", "ReLU", "Linear", "ReLU", "Linear"]
    assert [(m.in_features, m.out_features) for m in layers if type(m).__name__ == "Linear"] == [
        (784, 256), (256, 128), (128, 47)]


def test_save_load_round_trip(model_file):
    path, module = model_file
    served = load_model(path)
    assert (served.in_features, served.out_features, served.sizes) == (12, 5, SIZES)
    for (k, a), (k2, b) in zip(module.state_dict().items(), served.module.state_dict().items()):
        assert k == k2 and np.array_equal(a.numpy(), b.numpy())


def test_run_reads_and_writes_the_callers_memory_without_copies(model_file):
    path, module = model_file
    served = load_model(path)
    x = np.random.default_rng(0).standard_normal((3, 12)).astype(np.float32)
    inb, inv = c_buffer(x)
    outb, outv = c_buffer(np.full((3, 5), np.nan, np.float32))
    run(served, inv, outv, 3)
    with aakaar.no_grad():
        want = module(aakaar.tensor(x)).numpy()
    got = np.ctypeslib.as_array(outb).reshape(3, 5)  # the C memory itself
    np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-6)
    # The tensors serving wraps are the caller's bytes: same address, writes go through.
    from aakaar.serving import _view
    t = _view(inv, 3, 12)
    assert t.data_ptr() == ctypes.addressof(inb)
    t.mul_(0.0)
    assert not any(inb)
    del t
    inv.release(), outv.release()  # nothing of serving's holds them after run


def test_run_matches_torch(model_file):
    torch = pytest.importorskip("torch")
    path, module = model_file
    served = load_model(path)
    x = np.random.default_rng(1).standard_normal((4, 12)).astype(np.float32)
    _, inv = c_buffer(x)
    outb, outv = c_buffer(np.zeros((4, 5), np.float32))
    run(served, inv, outv, 4)
    ref = torch.nn.Sequential(torch.nn.Linear(12, 8), torch.nn.ReLU(), torch.nn.Linear(8, 5))
    with torch.no_grad():
        for p, q in zip(ref.parameters(), module.parameters()):
            p.copy_(torch.from_numpy(q.numpy()))
        want = ref(torch.from_numpy(x)).numpy()
    np.testing.assert_allclose(np.ctypeslib.as_array(outb).reshape(4, 5), want, rtol=1e-5, atol=1e-6)


def test_wrap_only_zeroes_the_output(model_file):
    served = load_model(model_file[0])
    _, inv = c_buffer(np.ones((2, 12), np.float32))
    outb, outv = c_buffer(np.ones((2, 5), np.float32))
    wrap_only(served, inv, outv, 2)
    assert not any(outb)


def test_a_buffer_too_small_is_a_value_error(model_file):
    served = load_model(model_file[0])
    _, inv = c_buffer(np.ones((1, 12), np.float32))
    _, outv = c_buffer(np.ones((2, 5), np.float32))
    with pytest.raises(ValueError, match="cannot hold 2 rows of 12"):
        run(served, inv, outv, 2)


def test_missing_file(tmp_path):
    with pytest.raises(FileNotFoundError, match="no model file"):
        load_model(tmp_path / "nope.aksv")


def test_corrupt_file(tmp_path):
    p = tmp_path / "bad.aksv"
    p.write_bytes(b"AAKAAR\x00\x01garbage")
    with pytest.raises(SerializationError):
        load_model(p)


def test_a_foreign_save_file_is_refused(tmp_path):
    p = tmp_path / "plain.aksv"
    aakaar.save({"weights": aakaar.zeros(3)}, p)
    with pytest.raises(SerializationError, match="not a served-model file"):
        load_model(p)


@pytest.mark.parametrize("sizes", [[784], [784, 0], "784", [784, True]])
def test_bad_sizes(tmp_path, sizes):
    p = tmp_path / "m.aksv"
    aakaar.save({"format": "aakaar-serving", "version": 1, "kind": "mlp", "sizes": sizes, "state_dict": {}}, p)
    with pytest.raises(SerializationError, match="sizes"):
        load_model(p)


def test_weights_that_do_not_fit_the_sizes(tmp_path):
    p = tmp_path / "m.aksv"
    save_model(p, build_mlp([12, 8, 5]), [12, 9, 5])
    with pytest.raises(SerializationError, match="do not fit"):
        load_model(p)
