"""Fault injection for aakaar.save / aakaar.load (issue 15): truncation at every
length, bit flips, crafted headers with valid CRCs (the strict header checks),
and a process killed during save (its temporary is cleaned by the next save).

Every damaged file must give a SerializationError (a ValueError) — never a
crash, never another exception type, never wrong data.
"""

from __future__ import annotations

import json
import os
import struct
import subprocess
import sys
import textwrap
import zlib

import numpy as np
import pytest

import aakaar as ak
from aakaar.serialization import SerializationError


def _file(tmp_path) -> bytes:
    obj = {"a": ak.arange(5, dtype=ak.uint8), "b": ak.randn(3, 4), "c": [ak.tensor([True, False]), 1.5, "x"]}
    path = tmp_path / "f.ak"
    ak.save(obj, path)
    return path.read_bytes()


def _load_bytes(tmp_path, raw: bytes):
    p = tmp_path / "damaged.ak"
    p.write_bytes(raw)
    return ak.load(p)


def test_every_tensor_starts_aligned(tmp_path):
    raw = _file(tmp_path)
    hlen = struct.unpack_from("<8sQI", raw)[1]
    header = json.loads(raw[20:20 + hlen])
    assert all(e["offset"] % 64 == 0 for e in header["tensors"])
    out = _load_bytes(tmp_path, raw)
    assert out["a"].tolist() == [0, 1, 2, 3, 4] and out["c"][0].tolist() == [True, False]


def test_truncation_at_every_length(tmp_path):
    raw = _file(tmp_path)
    for n in range(len(raw)):
        with pytest.raises(SerializationError):
            _load_bytes(tmp_path, raw[:n])


def test_bit_flips_anywhere(tmp_path):
    raw = _file(tmp_path)
    rng = np.random.default_rng(0)
    for pos in list(range(0, 24)) + list(rng.integers(0, len(raw), 150)):
        for bit in (0, 7):
            damaged = bytearray(raw)
            damaged[pos] ^= 1 << bit
            try:
                out = _load_bytes(tmp_path, bytes(damaged))
            except SerializationError:
                continue
            # A flip in the zero padding after the header is not covered by a CRC; the data must still be right.
            assert out["a"].tolist() == [0, 1, 2, 3, 4]


def _crafted(raw: bytes, edit, data_edit=None) -> bytes:
    """A valid file (both CRCs right) with an edited header (and data section)."""
    hlen = struct.unpack_from("<8sQI", raw)[1]
    header = json.loads(raw[20:20 + hlen])
    data = raw[20 + hlen + (-(20 + hlen) % 64):]
    edit(header)
    if data_edit is not None:
        data = data_edit(data)
    header["data_nbytes"] = len(data)
    header["data_crc32"] = zlib.crc32(data)
    hbytes = json.dumps(header).encode()
    out = struct.pack("<8sQI", b"AAKAAR\x00\x01", len(hbytes), zlib.crc32(hbytes)) + hbytes
    return out + b"\x00" * (-len(out) % 64) + data


def _set(path, value):
    def edit(h):
        node = h
        for key in path[:-1]:
            node = node[key]
        node[path[-1]] = value
    return edit


CRAFTED = {
    "unaligned float32 offset": lambda h: h["tensors"][1].update(offset=h["tensors"][1]["offset"] + 4),
    "offset one byte off": lambda h: h["tensors"][1].update(offset=h["tensors"][1]["offset"] + 1),
    "aligned offset into the padding": lambda h: h["tensors"][1].update(offset=h["tensors"][1]["offset"] + 8),
    "overlapping tensors": lambda h: h["tensors"][2].update(offset=h["tensors"][1]["offset"]),
    "true as a tensor index": lambda h: h["root"]["values"][0].update(i=True),
    "float as a tensor index": lambda h: h["root"]["values"][0].update(i=0.0),
    "index out of range": lambda h: h["root"]["values"][0].update(i=99),
    "true in a shape": lambda h: h["tensors"][0].update(shape=[True]),
    "shape overflowing int64": lambda h: h["tensors"][0].update(shape=[2**32, 2**32, 0]),
    "bool nbytes": lambda h: h["tensors"][2].update(nbytes=True, shape=[1], dtype="uint8"),
    "string offset": lambda h: h["tensors"][0].update(offset="0"),
    "negative offset": lambda h: h["tensors"][0].update(offset=-64),
    "offset beyond data": lambda h: h["tensors"][0].update(offset=10**6),
    "unknown dtype": lambda h: h["tensors"][0].update(dtype="complex64"),
    "extra entry field": lambda h: h["tensors"][0].update(strides=[1]),
    "missing entry field": lambda h: h["tensors"][0].pop("requires_grad"),
    "string requires_grad": lambda h: h["tensors"][0].update(requires_grad="yes"),
    "extra header field": lambda h: h.update(extra=1),
    "version true": lambda h: h.update(version=True),
    "bool dict key": lambda h: h["root"].update(keys=[True, "b", "c"]),
    "non-bool ordered": lambda h: h["root"].update(ordered=1),
    "float node with a number": lambda h: h["root"]["values"][2]["items"][1].update(v=1.5),
    "unknown tag": lambda h: h["root"].update(t="set"),
    "tensors not a list": lambda h: h.update(tensors={}),
}


@pytest.mark.parametrize("name", sorted(CRAFTED))
def test_crafted_headers_with_valid_crcs_are_refused(tmp_path, name):
    raw = _file(tmp_path)
    with pytest.raises(SerializationError):
        _load_bytes(tmp_path, _crafted(raw, CRAFTED[name]))


def test_packed_files_of_earlier_releases_still_load(tmp_path):
    # Before tensors were padded to 64 bytes, format 1 packed them one after another; a
    # state_dict of float32 tensors (the common case) stays aligned that way and must load.
    w, b = ak.randn(3, 5), ak.randn(5)
    path = tmp_path / "sd.ak"
    ak.save({"w": w, "b": b}, path)
    raw = path.read_bytes()
    hlen = struct.unpack_from("<8sQI", raw)[1]
    header = json.loads(raw[20:20 + hlen])
    data = raw[20 + hlen + (-(20 + hlen) % 64):]
    entries = header["tensors"]
    packed = b"".join(data[e["offset"]:e["offset"] + e["nbytes"]] for e in entries)
    offsets = [0, entries[0]["nbytes"]]

    def repack(h):
        for e, off in zip(h["tensors"], offsets):
            e["offset"] = off

    out = _load_bytes(tmp_path, _crafted(raw, repack, lambda d: packed))
    assert out["w"].tolist() == w.tolist() and out["b"].tolist() == b.tolist()


def test_crafted_file_with_an_untouched_header_still_loads(tmp_path):
    raw = _file(tmp_path)
    out = _load_bytes(tmp_path, _crafted(raw, lambda h: None))
    assert out["a"].tolist() == [0, 1, 2, 3, 4]


def _kill_mid_save(path, code=17):
    script = textwrap.dedent(f"""
        import os, aakaar as ak
        from aakaar import serialization
        def dying_writer(f, blob):
            f.write(blob[: len(blob) // 2])
            f.flush()
            os._exit({code})
        serialization._write_tensor_bytes = dying_writer
        ak.save({{"a": ak.ones(100000)}}, {str(path)!r})
    """)
    proc = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120)
    assert proc.returncode == code, proc.stderr


def test_temporaries_of_killed_saves_are_cleaned_by_the_next_save(tmp_path):
    path = tmp_path / "x.ak"
    ak.save({"w": ak.zeros(10)}, path)
    for _ in range(3):
        _kill_mid_save(path)
    leftovers = [n for n in os.listdir(tmp_path) if n != "x.ak"]
    # Each save cleaned the temporary of the killed one before it: at most one is ever left.
    assert len(leftovers) == 1 and leftovers[0].endswith(".tmp")
    other = tmp_path / ".x.ak.notours.tmp"  # not named by a save of ours: left alone
    other.write_bytes(b"keep")
    ak.save({"w": ak.ones(10)}, path)
    assert sorted(os.listdir(tmp_path)) == [".x.ak.notours.tmp", "x.ak"]
    assert ak.load(path)["w"].tolist() == [1.0] * 10


def test_a_live_process_temporary_is_not_removed(tmp_path):
    path = tmp_path / "y.ak"
    sleeper = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    try:
        live = tmp_path / f".y.ak.{sleeper.pid}.abc.tmp"  # as if that process were saving now
        live.write_bytes(b"in progress")
        ak.save(ak.ones(2), path)
        assert live.exists()
    finally:
        sleeper.kill()
        sleeper.wait()
    ak.save(ak.ones(2), path)
    assert not live.exists()
