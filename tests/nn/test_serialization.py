"""aakaar.save / aakaar.load: round trips for every dtype and nested containers,
atomic writes (a failure or a crash mid-write leaves the old file intact), and
clear errors for truncated, corrupt or foreign files — before anything is built."""

from __future__ import annotations

import io
import json
import math
import os
import struct
import subprocess
import sys
import textwrap
import zlib
from collections import OrderedDict

import numpy as np
import pytest

import aakaar as ak
import aakaar.nn as nn
from aakaar import serialization
from aakaar.serialization import SerializationError

DTYPES = [ak.bool, ak.uint8, ak.int64, ak.float32, ak.float64]
NP = {ak.bool: np.bool_, ak.uint8: np.uint8, ak.int64: np.int64, ak.float32: np.float32, ak.float64: np.float64}


def _sample(dtype, shape, seed=0):
    rng = np.random.default_rng(seed)
    return ak.from_numpy(np.asarray((rng.standard_normal(shape) * 100).astype(NP[dtype])))


def _same(a, b):
    assert isinstance(b, ak.Tensor)
    assert a.dtype == b.dtype and tuple(a.shape) == tuple(b.shape)
    np.testing.assert_array_equal(a.numpy(), b.numpy())


@pytest.mark.parametrize("dtype", DTYPES, ids=str)
@pytest.mark.parametrize("shape", [(), (0,), (5,), (3, 4), (2, 0, 3), (2, 3, 4)])
def test_round_trip_every_dtype(tmp_path, dtype, shape):
    t = _sample(dtype, shape)
    path = tmp_path / "t.ak"
    ak.save(t, path)
    _same(t, ak.load(path))
    _same(t, ak.load(str(path)))


def test_views_and_nested_containers(tmp_path):
    base = _sample(ak.float64, (4, 6))
    obj = {
        "transposed": base.T,  # non-contiguous: saved as its own row-major elements
        "sliced": base[1:, ::2],
        "nested": [base[0], (1, 2.5, "three", None, True), {"inner": ak.tensor([1, 2, 3])}],
        "floats": [math.inf, -math.inf, 0.1, -0.0, 1e-310],
        7: "int keys work",
        "ordered": OrderedDict([("b", 1), ("a", 2)]),
    }
    path = tmp_path / "obj.ak"
    ak.save(obj, path)
    got = ak.load(path)
    _same(base.T.contiguous(), got["transposed"])
    _same(base[1:, ::2].contiguous(), got["sliced"])
    _same(base[0].contiguous(), got["nested"][0])
    assert got["nested"][1] == (1, 2.5, "three", None, True) and isinstance(got["nested"][1], tuple)
    _same(ak.tensor([1, 2, 3]), got["nested"][2]["inner"])
    assert got["floats"][:3] == [math.inf, -math.inf, 0.1] and math.copysign(1, got["floats"][3]) == -1
    assert got["floats"][4] == 1e-310 and got[7] == "int keys work"
    assert type(got["ordered"]) is OrderedDict and list(got["ordered"]) == ["b", "a"]
    assert math.isnan(ak.load(_saved(tmp_path, float("nan"))))


def _saved(tmp_path, obj, name="x.ak"):
    path = tmp_path / name
    ak.save(obj, path)
    return path


def test_loaded_tensors_own_their_memory_and_keep_requires_grad(tmp_path):
    p = nn.Parameter(ak.randn(3))
    got = ak.load(_saved(tmp_path, {"p": p, "plain": ak.randn(2)}))
    assert got["p"].requires_grad and got["p"].is_leaf and not got["plain"].requires_grad
    with ak.no_grad():
        got["p"].add_(1)  # writable
    assert not np.array_equal(got["p"].detach().numpy(), p.detach().numpy())


def test_state_dict_round_trip_into_a_fresh_model(tmp_path):
    ak.manual_seed(0)
    model = nn.Sequential(nn.Linear(4, 8), nn.BatchNorm1d(8), nn.ReLU(), nn.Linear(8, 3))
    model(ak.randn(5, 4))  # running statistics move
    path = _saved(tmp_path, model.state_dict(), "model.ak")
    fresh = nn.Sequential(nn.Linear(4, 8), nn.BatchNorm1d(8), nn.ReLU(), nn.Linear(8, 3))
    fresh.load_state_dict(ak.load(path))
    model.eval(), fresh.eval()
    x = ak.randn(3, 4)
    np.testing.assert_array_equal(model(x).detach().numpy(), fresh(x).detach().numpy())
    assert int(fresh[1].num_batches_tracked.item()) == 1


def test_streams(tmp_path):
    buf = io.BytesIO()
    ak.save({"a": ak.arange(5)}, buf)
    buf.seek(0)
    _same(ak.arange(5), ak.load(buf)["a"])
    with pytest.raises(TypeError, match="binary mode"):
        ak.load(io.StringIO("text"))


def test_unsupported_objects_are_refused_before_writing(tmp_path):
    path = _saved(tmp_path, ak.ones(2))
    old = path.read_bytes()
    for bad, what in [({"f": lambda: 0}, "function"), ({"s": {1, 2}}, "set"), ({(1, 2): ak.ones(1)}, "tuple"),
                      ({"m": nn.Linear(1, 1)}, "Linear")]:
        with pytest.raises(TypeError, match=what):
            ak.save(bad, path)
        assert path.read_bytes() == old
    assert sorted(os.listdir(tmp_path)) == ["x.ak"]  # no temporary files left behind


def test_failure_mid_write_leaves_old_file_intact(tmp_path, monkeypatch):
    path = _saved(tmp_path, {"w": ak.zeros(1000)})
    old = path.read_bytes()
    calls = []

    def failing_writer(f, blob):
        calls.append(len(blob))
        if len(calls) == 2:
            f.write(blob[: len(blob) // 2])
            raise OSError("disk full (simulated)")
        f.write(blob)

    monkeypatch.setattr(serialization, "_write_tensor_bytes", failing_writer)
    with pytest.raises(OSError, match="simulated"):
        ak.save({"a": ak.ones(1000), "b": ak.ones(1000), "c": ak.ones(1000)}, path)
    assert len(calls) == 2
    assert path.read_bytes() == old
    assert sorted(os.listdir(tmp_path)) == ["x.ak"]
    _same(ak.zeros(1000), ak.load(path)["w"])


def test_process_killed_mid_write_leaves_old_file_intact(tmp_path):
    path = _saved(tmp_path, {"w": ak.zeros(1000)})
    old = path.read_bytes()
    script = textwrap.dedent(f"""
        import os, aakaar as ak
        from aakaar import serialization
        written = []
        def dying_writer(f, blob):
            written.append(1)
            f.write(blob[: len(blob) // 2])
            f.flush()
            os._exit(17)  # no cleanup, no exception handlers: like a kill -9 or a power cut
        serialization._write_tensor_bytes = dying_writer
        ak.save({{"a": ak.ones(100000)}}, {str(path)!r})
    """)
    proc = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 17, proc.stderr
    assert path.read_bytes() == old
    leftovers = [n for n in os.listdir(tmp_path) if n != "x.ak"]
    assert leftovers and all(n.endswith(".tmp") for n in leftovers)  # the half-written temp file, not the target
    _same(ak.zeros(1000), ak.load(path)["w"])


def _rewrite_header(raw: bytes, edit) -> bytes:
    """Applies edit(header_dict) and re-signs the header, keeping the data section: a *valid* file
    with a chosen header, to reach the checks after the CRC."""
    magic, hlen, _ = struct.unpack_from("<8sQI", raw)
    header = json.loads(raw[20:20 + hlen])
    data_start = 20 + hlen + (-(20 + hlen) % 64)
    data = raw[data_start:]
    edit(header)
    hbytes = json.dumps(header).encode()
    pad = b"\x00" * (-(20 + len(hbytes)) % 64)
    return struct.pack("<8sQI", magic, len(hbytes), zlib.crc32(hbytes)) + hbytes + pad + data


def test_corrupt_truncated_and_foreign_files_raise_clear_errors(tmp_path):
    path = _saved(tmp_path, {"w": ak.arange(100, dtype=ak.float32), "n": 3})
    raw = path.read_bytes()
    bad = tmp_path / "bad.ak"

    def check(content: bytes, pattern: str):
        bad.write_bytes(content)
        with pytest.raises(SerializationError, match=pattern):
            ak.load(bad)

    check(b"", "truncated")
    check(raw[:10], "truncated")
    check(raw[:30], "truncated")  # inside the header
    check(raw[:-1], "truncated")  # one byte of tensor data missing
    check(raw + b"\x00", "trailing bytes")
    check(b"PK\x03\x04" + raw[4:], "not an aakaar save file")
    check(b"\x80\x04\x95" + raw[3:], "not an aakaar save file")  # a pickle's opening bytes
    check(raw[:7] + b"\x09" + raw[8:], "unsupported format version 9")
    flipped = bytearray(raw)
    flipped[-5] ^= 0x40
    check(bytes(flipped), "tensor data is corrupt")
    flipped = bytearray(raw)
    flipped[25] ^= 0x01
    check(bytes(flipped), "header is corrupt")

    def set_dtype(h):
        h["tensors"][0]["dtype"] = "complex64"

    check(_rewrite_header(raw, set_dtype), "unknown dtype 'complex64'")

    def set_shape(h):
        h["tensors"][0]["shape"] = [101]

    check(_rewrite_header(raw, set_shape), "inconsistent offset/nbytes")

    def set_tag(h):
        h["root"]["values"][0] = {"t": "object", "module": "os", "name": "system"}

    check(_rewrite_header(raw, set_tag), "unknown node tag 'object'")
    with pytest.raises(SerializationError):
        ak.load(io.BytesIO(raw[:50]))
    assert issubclass(SerializationError, ValueError)


def test_a_bad_file_changes_nothing_in_a_model(tmp_path):
    model = nn.Linear(3, 2)
    snapshot = {k: v.numpy().copy() for k, v in model.state_dict().items()}
    other = nn.Linear(3, 2)
    with ak.no_grad():
        other.weight.fill_(9), other.bias.fill_(9)
    raw = _saved(tmp_path, other.state_dict()).read_bytes()
    (tmp_path / "cut.ak").write_bytes(raw[:-3])
    with pytest.raises(SerializationError, match="truncated"):
        model.load_state_dict(ak.load(tmp_path / "cut.ak"))
    for k, v in model.state_dict().items():
        np.testing.assert_array_equal(v.numpy(), snapshot[k])
