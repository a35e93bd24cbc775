"""``aakaar.save`` / ``aakaar.load``: tensors, state_dicts and plain data in one file.

Loading never executes code: the file holds a JSON description and raw
bytes, nothing else (no pickle). The format, version 1, all integers little-endian:

    offset  size  field
    0       8     magic  b"AAKAAR\\x00\\x01"  (the last byte is the format version)
    8       8     header length H (uint64)
    16      4     CRC-32 of the header bytes (uint32)
    20      H     header: UTF-8 JSON (below)
    20+H    pad   zero bytes up to a multiple of 64, so every tensor starts aligned
    ...     D     data: each tensor's elements, row-major, little-endian, one after another

The header is ``{"format": "aakaar", "version": 1, "data_nbytes": D,
"data_crc32": c, "tensors": [...], "root": obj}``. Each tensor entry is
``{"dtype": "float32", "shape": [2, 3], "offset": o, "nbytes": n,
"requires_grad": false}`` with ``offset`` relative to the data section.
``root`` encodes the saved object with a tag per node:

    {"t": "tensor", "i": k}                      the k-th tensor entry
    {"t": "dict", "ordered": b, "keys": [...], "values": [...]}   keys are encoded values (str or int)
    {"t": "list", "items": [...]}  /  {"t": "tuple", "items": [...]}
    {"t": "float", "v": "repr"}                  floats as repr strings: exact, and nan/inf survive
    JSON null, true/false, integers and strings  themselves

Each tensor's ``offset`` is a multiple of ALIGN (64): the writer pads the data
section between tensors with zero bytes (counted in D and in its CRC).

Views are saved as their own contiguous elements (storage sharing between
saved tensors is not preserved). Writing goes to a temporary file in the same
folder, ``.<name>.<pid>.<random>.tmp``, is flushed and fsync'ed, then renamed
over the target with ``os.replace`` — a crash at any point leaves either the
old file or the new one, never a mix. A process killed mid-save leaves its
temporary behind; the next ``save`` to the same path deletes every such
temporary whose process is no longer running (so they cannot accumulate, and
a concurrent save's temporary is left alone).

Loading reads and checks the whole file before it builds a single tensor: the
CRCs, and then the header strictly, since a CRC only proves the bytes are the
ones written, not that a writer wrote them sensibly: every field of the
expected JSON type (``true`` is not an int), no unknown fields, dtypes
known, shapes of non-negative ints, ``nbytes`` = elements x item size, every
tensor inside the data section, at the offset a writer gives it (in
order, each at the next multiple of ALIGN -- or packed one after another, as
earlier releases wrote format 1, if its items stay aligned), no two tensors
overlapping, every tensor reference an int in range.
"""

from __future__ import annotations

import glob
import json
import math
import os
import struct
import tempfile
import warnings
import zlib
from collections import OrderedDict
from typing import Any, BinaryIO

import numpy as np

from . import _C
from ._C import Tensor

__all__ = ["save", "load", "SerializationError"]

MAGIC = b"AAKAAR\x00\x01"
VERSION = 1
ALIGN = 64
_PREFIX = struct.Struct("<8sQI")  # magic, header length, header CRC-32

# Stored dtype name -> (aakaar dtype, little-endian numpy dtype).
_DTYPES = {
    "bool": (_C.dtype.bool, np.dtype("|b1")),
    "uint8": (_C.dtype.uint8, np.dtype("|u1")),
    "int64": (_C.dtype.int64, np.dtype("<i8")),
    "float32": (_C.dtype.float32, np.dtype("<f4")),
    "float64": (_C.dtype.float64, np.dtype("<f8")),
    # Added later; a name, not a number, is stored, so files written before load as they did.
    "int8": (_C.dtype.int8, np.dtype("|i1")),
    "int16": (_C.dtype.int16, np.dtype("<i2")),
    "int32": (_C.dtype.int32, np.dtype("<i4")),
    "float16": (_C.dtype.float16, np.dtype("<f2")),
    "bfloat16": (_C.dtype.bfloat16, np.dtype("<i2")),  # numpy has no bfloat16: its 16 bits, read as int16
}
_NAME_OF = {ak: name for name, (ak, _) in _DTYPES.items()}


class SerializationError(ValueError):
    """A file that is not a valid aakaar save file (wrong magic, truncated, corrupt, unknown dtype)."""


# ---- encoding ------------------------------------------------------------------------------


def _encode(obj: Any, tensors: list[Tensor], path: str) -> Any:
    """The JSON tree for ``obj``; tensors are appended to ``tensors`` and referenced by index."""
    if isinstance(obj, Tensor):
        if obj.device.type != "cpu":
            obj = obj.cpu()
        tensors.append(obj)
        return {"t": "tensor", "i": len(tensors) - 1}
    if obj is None or isinstance(obj, (bool, str)):
        return obj
    if isinstance(obj, int):
        return obj
    if isinstance(obj, float):
        return {"t": "float", "v": repr(obj)}
    if isinstance(obj, dict):
        keys, values = [], []
        for k, v in obj.items():
            if not isinstance(k, (str, int)) or isinstance(k, bool):
                raise TypeError(f"aakaar.save: dict keys must be str or int, got {type(k).__name__} at {path}")
            keys.append(k)
            values.append(_encode(v, tensors, f"{path}[{k!r}]"))
        return {"t": "dict", "ordered": isinstance(obj, OrderedDict), "keys": keys, "values": values}
    if isinstance(obj, (list, tuple)):
        items = [_encode(v, tensors, f"{path}[{i}]") for i, v in enumerate(obj)]
        return {"t": "list" if isinstance(obj, list) else "tuple", "items": items}
    raise TypeError(
        f"aakaar.save: cannot save an object of type {type(obj).__name__} at {path}; "
        "only tensors, dicts, lists, tuples, str, int, float, bool and None are supported"
    )


def _tensor_bytes(t: Tensor) -> bytes:
    name = _NAME_OF.get(t.dtype)
    if name is None:  # pragma: no cover - every aakaar dtype is in the table
        raise TypeError(f"aakaar.save: unsupported dtype {t.dtype}")
    t = t.detach().contiguous()
    if t.dtype == _C.dtype.bfloat16:
        t = t._bitcast(_C.dtype.int16)  # the raw bits: numpy has no bfloat16
    arr = np.ascontiguousarray(t.numpy()).astype(_DTYPES[name][1], copy=False)
    return arr.tobytes()


def _write_tensor_bytes(f: BinaryIO, blob: bytes) -> None:
    """One tensor's bytes (a separate function so tests can simulate a crash mid-write)."""
    f.write(blob)


def _serialize(obj: Any, f: BinaryIO) -> None:
    tensors: list[Tensor] = []
    root = _encode(obj, tensors, "obj")
    blobs = [_tensor_bytes(t) for t in tensors]
    entries, offset, crc, chunks = [], 0, 0, []
    for t, blob in zip(tensors, blobs):
        pad = b"\x00" * (-offset % ALIGN)  # every tensor starts at a multiple of ALIGN in the data section
        offset += len(pad)
        entries.append({
            "dtype": _NAME_OF[t.dtype], "shape": list(t.shape), "offset": offset, "nbytes": len(blob),
            "requires_grad": bool(t.requires_grad),
        })
        offset += len(blob)
        crc = zlib.crc32(blob, zlib.crc32(pad, crc))
        chunks.append((pad, blob))
    header = {"format": "aakaar", "version": VERSION, "data_nbytes": offset, "data_crc32": crc,
              "tensors": entries, "root": root}
    hbytes = json.dumps(header, separators=(",", ":")).encode("utf-8")
    f.write(_PREFIX.pack(MAGIC, len(hbytes), zlib.crc32(hbytes)))
    f.write(hbytes)
    f.write(b"\x00" * (-(_PREFIX.size + len(hbytes)) % ALIGN))
    for pad, blob in chunks:
        f.write(pad)
        _write_tensor_bytes(f, blob)


def _pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # alive, someone else's
        return True
    return True


def _remove_stale_temporaries(directory: str, name: str) -> None:
    """Deletes the temporaries of earlier saves to ``name`` whose writing process is gone
    (killed mid-save): each is as large as the file, and they would pile up otherwise."""
    for tmp in glob.glob(os.path.join(glob.escape(directory), glob.escape(f".{name}.") + "*.tmp")):
        pid_part = os.path.basename(tmp)[len(name) + 2:].split(".", 1)[0]
        if not pid_part.isdigit():  # not one of ours (or from before pids were in the name): leave it
            continue
        pid = int(pid_part)
        if pid != os.getpid() and _pid_alive(pid):
            continue  # a save in progress in another process
        if pid == os.getpid():
            continue  # this process's own save in another thread, or cleaned by its own except
        try:
            os.unlink(tmp)
        except OSError:
            pass


def save(obj: Any, f: str | os.PathLike | BinaryIO) -> None:
    """Saves ``obj`` (a tensor, a state_dict, nested dicts/lists/tuples of tensors and plain values)
    to the path ``f`` atomically, or to an open binary file object."""
    if hasattr(f, "write"):
        _serialize(obj, f)  # a stream: the caller owns atomicity
        return
    path = os.fspath(f)
    directory = os.path.dirname(os.path.abspath(path))
    _remove_stale_temporaries(directory, os.path.basename(path))
    fd, tmp = tempfile.mkstemp(dir=directory, prefix=f".{os.path.basename(path)}.{os.getpid()}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as out:
            _serialize(obj, out)
            out.flush()
            os.fsync(out.fileno())
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise
    try:  # make the rename itself durable; not every filesystem lets a directory be fsync'ed
        dfd = os.open(directory, os.O_RDONLY)
        try:
            os.fsync(dfd)
        finally:
            os.close(dfd)
    except OSError:
        pass


# ---- decoding ------------------------------------------------------------------------------


def _fail(where: str, msg: str) -> SerializationError:
    return SerializationError(f"aakaar.load({where}): {msg}")


def _parse(raw: bytes, where: str) -> tuple[dict, memoryview]:
    """Checks the whole file and returns (header, data section)."""
    if len(raw) < _PREFIX.size:
        raise _fail(where, f"file is truncated: {len(raw)} bytes, shorter than the {_PREFIX.size}-byte preamble")
    magic, hlen, hcrc = _PREFIX.unpack_from(raw, 0)
    if magic[:7] != MAGIC[:7]:
        raise _fail(where, f"not an aakaar save file (magic bytes {magic!r}, expected {MAGIC!r})")
    if magic[7] != VERSION:
        raise _fail(where, f"unsupported format version {magic[7]} (this aakaar reads version {VERSION})")
    hstart = _PREFIX.size
    if hstart + hlen > len(raw):
        raise _fail(where, f"file is truncated: the header needs {hlen} bytes, only {len(raw) - hstart} remain")
    hbytes = raw[hstart:hstart + hlen]
    if zlib.crc32(hbytes) != hcrc:
        raise _fail(where, "header is corrupt (CRC-32 mismatch)")
    try:
        header = json.loads(hbytes.decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as e:
        raise _fail(where, f"header is not valid JSON: {e}") from None
    if not isinstance(header, dict) or header.get("format") != "aakaar" or not _is_int(header.get("version")) \
            or header.get("version") != VERSION:
        raise _fail(where, "header does not describe an aakaar version-1 file")
    if set(header) != _HEADER_KEYS:
        raise _fail(where, f"header fields {sorted(header)} are not the expected {sorted(_HEADER_KEYS)}")
    dstart = hstart + hlen + (-(hstart + hlen) % ALIGN)
    dlen = header.get("data_nbytes")
    if not _is_int(dlen) or dlen < 0:
        raise _fail(where, "header has no valid data_nbytes")
    if not _is_int(header.get("data_crc32")):
        raise _fail(where, "header has no valid data_crc32")
    if dstart + dlen > len(raw):
        raise _fail(where, f"file is truncated: {dstart + dlen} bytes expected, {len(raw)} found")
    if dstart + dlen < len(raw):
        raise _fail(where, f"file has {len(raw) - dstart - dlen} unexpected trailing bytes")
    data = memoryview(raw)[dstart:dstart + dlen]
    if zlib.crc32(data) != header.get("data_crc32"):
        raise _fail(where, "tensor data is corrupt (CRC-32 mismatch)")
    return header, data


_HEADER_KEYS = {"format", "version", "data_nbytes", "data_crc32", "tensors", "root"}
_ENTRY_KEYS = {"dtype", "shape", "offset", "nbytes", "requires_grad"}


def _is_int(v: Any) -> bool:
    """A JSON integer: ``true``/``false`` are bools in Python, and ints too, but not here."""
    return isinstance(v, int) and not isinstance(v, bool)


def _canonical_offsets(entries: list[dict], align: int) -> list[int]:
    offsets, off = [], 0
    for e in entries:
        off += -off % align
        offsets.append(off)
        off += e["nbytes"]
    return offsets


def _check_layout(entries: list[dict], where: str) -> None:
    """The tensors sit where a writer puts them: one after another in order, each at the next
    multiple of ALIGN (this writer) or packed (files of earlier releases of format 1); so no
    two overlap and no offset points into another tensor's or the padding's bytes."""
    offsets = [e["offset"] for e in entries]
    if offsets not in (_canonical_offsets(entries, ALIGN), _canonical_offsets(entries, 1)):
        raise _fail(where, f"tensor offsets {offsets} are not the layout a writer produces")
    spans = sorted((e["offset"], e["offset"] + e["nbytes"], k) for k, e in enumerate(entries) if e["nbytes"] > 0)
    for (_, end, a), (start, _, b) in zip(spans, spans[1:]):
        if start < end:
            raise _fail(where, f"tensors {a} and {b} overlap in the data section")


def _check_entry(e: Any, k: int, dlen: int, where: str) -> tuple[_C.dtype, np.dtype, tuple[int, ...]]:
    if not isinstance(e, dict):
        raise _fail(where, f"tensor entry {k} is not an object")
    if set(e) != _ENTRY_KEYS:
        raise _fail(where, f"tensor entry {k} has fields {sorted(e)}, expected {sorted(_ENTRY_KEYS)}")
    if not isinstance(e["requires_grad"], bool):
        raise _fail(where, f"tensor {k} has a non-bool requires_grad {e['requires_grad']!r}")
    name = e.get("dtype")
    if name not in _DTYPES:
        raise _fail(where, f"tensor {k} has unknown dtype {name!r} (known: {', '.join(_DTYPES)})")
    ak_dtype, np_dtype = _DTYPES[name]
    shape = e.get("shape")
    if not isinstance(shape, list) or not all(_is_int(s) and s >= 0 for s in shape):
        raise _fail(where, f"tensor {k} has an invalid shape {shape!r}")
    numel = math.prod(shape)  # Python ints: no int64 overflow to wrap a huge shape to a small size
    off, nbytes = e.get("offset"), e.get("nbytes")
    if not _is_int(nbytes) or not _is_int(off) or nbytes != numel * np_dtype.itemsize or off < 0 \
            or off + nbytes > dlen:
        raise _fail(where, f"tensor {k} (shape {shape}, {name}) has inconsistent offset/nbytes {off}/{nbytes}")
    if off % np_dtype.itemsize:
        raise _fail(where, f"tensor {k} ({name}) starts at offset {off}, not aligned to its {np_dtype.itemsize}-byte items")
    return ak_dtype, np_dtype, tuple(shape)


def _decode(node: Any, tensors: list[Tensor], where: str) -> Any:
    if node is None or isinstance(node, (bool, int, str)):
        return node
    if not isinstance(node, dict):
        raise _fail(where, f"unexpected value of type {type(node).__name__} in the object tree")
    tag = node.get("t")
    if tag == "tensor":
        i = node.get("i")
        if not _is_int(i) or not 0 <= i < len(tensors):
            raise _fail(where, f"reference to tensor {i!r}, but the file has {len(tensors)}")
        return tensors[i]
    if tag == "float":
        try:
            if not isinstance(node["v"], str):
                raise TypeError
            return float(node["v"])
        except (KeyError, TypeError, ValueError):
            raise _fail(where, f"invalid float node {node!r}") from None
    if tag == "dict":
        keys, values = node.get("keys"), node.get("values")
        if not isinstance(keys, list) or not isinstance(values, list) or len(keys) != len(values):
            raise _fail(where, "invalid dict node")
        if not all(isinstance(k, str) or _is_int(k) for k in keys):
            raise _fail(where, "dict keys must be str or int")
        if not isinstance(node.get("ordered"), bool):
            raise _fail(where, "invalid dict node (ordered must be a bool)")
        out = OrderedDict() if node.get("ordered") else {}
        for k, v in zip(keys, values):
            out[k] = _decode(v, tensors, where)
        return out
    if tag in ("list", "tuple"):
        items = node.get("items")
        if not isinstance(items, list):
            raise _fail(where, f"invalid {tag} node")
        seq = [_decode(v, tensors, where) for v in items]
        return seq if tag == "list" else tuple(seq)
    raise _fail(where, f"unknown node tag {tag!r}")


def load(f: str | os.PathLike | BinaryIO, map_location: Any = None, pickle_module: Any = None, *,
         weights_only: bool | None = None, mmap: bool | None = None, **pickle_load_args: Any) -> Any:
    """Reads an object written by :func:`save`. Raises :class:`SerializationError` (a ValueError)
    for a file that is truncated, corrupt, of another format or with an unknown dtype.

    PyTorch's arguments: the file holds no code, so every load is what ``weights_only=True`` asks
    for (and ``False`` changes nothing). Tensors are saved from and read to the CPU;
    ``map_location`` (``"cpu"``, ``"cuda"``, an ``aakaar.device``, or a dict whose ``"cpu"`` entry
    names the target) moves them after reading. ``pickle_module`` and a callable map_location have
    no meaning for this format and are refused; ``mmap=True`` reads the file into memory (said in a
    warning)."""
    if pickle_module is not None or pickle_load_args:
        raise TypeError("aakaar.load: the file format holds no pickle, so pickle_module and pickle load "
                        "arguments do not apply")
    if mmap:
        warnings.warn("aakaar.load: mmap=True is not supported; the file is read into memory", UserWarning,
                      stacklevel=2)
    target = _map_location_target(map_location)
    loaded = _load_on_cpu(f)
    return loaded if target is None else _to_device(loaded, target)


def _map_location_target(map_location: Any) -> Any:
    """The device tensors go to (None: stay on the CPU, where the file's tensors are read)."""
    if map_location is None:
        return None
    if isinstance(map_location, dict):
        return _map_location_target(map_location.get("cpu"))
    if isinstance(map_location, (str, _C.device)):
        device = _C.device(map_location) if isinstance(map_location, str) else map_location
        return None if device.type == "cpu" else device
    if callable(map_location):
        raise NotImplementedError("aakaar.load: a callable map_location (storage, location) is not supported: "
                                  "aakaar files have no storages; pass a device such as 'cpu' or 'cuda'")
    raise TypeError(f"aakaar.load: map_location must be a str, an aakaar.device or a dict, not "
                    f"{type(map_location).__name__}")


def _to_device(obj: Any, device: Any) -> Any:
    """obj with every tensor in it moved to device (containers rebuilt as they were)."""
    if isinstance(obj, Tensor):
        moved = obj.detach().to(device)
        return moved.requires_grad_(True) if obj.requires_grad else moved
    if isinstance(obj, dict):
        return type(obj)((k, _to_device(v, device)) for k, v in obj.items())
    if isinstance(obj, (list, tuple)):
        return type(obj)(_to_device(v, device) for v in obj)
    return obj


def _load_on_cpu(f: str | os.PathLike | BinaryIO) -> Any:
    """load() without map_location: the object as the file holds it, tensors on the CPU."""
    if hasattr(f, "read"):
        raw, where = f.read(), "<stream>"
    else:
        where = os.fspath(f)
        with open(where, "rb") as fh:
            raw = fh.read()
    if not isinstance(raw, (bytes, bytearray)):
        raise TypeError("aakaar.load: the stream must be opened in binary mode")
    header, data = _parse(bytes(raw), str(where))
    entries = header.get("tensors")
    if not isinstance(entries, list):
        raise _fail(str(where), "header has no tensor list")
    checked = [_check_entry(e, k, len(data), str(where)) for k, e in enumerate(entries)]
    _check_layout(entries, str(where))
    # Only now, with the whole file validated, are tensors built.
    tensors = []
    for e, (ak_dtype, np_dtype, shape) in zip(entries, checked):
        arr = np.frombuffer(data, dtype=np_dtype, count=e["nbytes"] // np_dtype.itemsize, offset=e["offset"])
        t = _C.from_numpy(arr.astype(np_dtype.newbyteorder("="), copy=True).reshape(shape))
        if ak_dtype == _C.dtype.bfloat16:
            t = t._bitcast(_C.dtype.bfloat16)
        if e.get("requires_grad") and ak_dtype.is_floating_point:
            t.requires_grad_(True)
        tensors.append(t)
    return _decode(header.get("root"), tensors, str(where))
