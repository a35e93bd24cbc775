"""The IDX file format of MNIST and EMNIST, read with checks.

An IDX file is a 4-byte magic number — two zero bytes, a type code (0x08: unsigned bytes) and
the number of dimensions — then one big-endian uint32 per dimension, then the data in row-major
order. The official files are gzip-compressed; both forms are read.
"""
from __future__ import annotations

import gzip
import os
from pathlib import Path

import numpy as np

__all__ = ["IdxError", "read_idx"]

_TYPES = {0x08: np.uint8, 0x09: np.int8, 0x0B: np.dtype(">i2"), 0x0C: np.dtype(">i4"), 0x0D: np.dtype(">f4"),
          0x0E: np.dtype(">f8")}


class IdxError(ValueError):
    """A file that is not a well-formed IDX file (wrong magic number, truncated, ...)."""


def _read_bytes(path: Path) -> bytes:
    try:
        with open(path, "rb") as f:
            head = f.read(2)
        if head == b"\x1f\x8b":  # gzip
            with gzip.open(path, "rb") as f:
                return f.read()
        return path.read_bytes()
    except (OSError, EOFError) as e:  # a truncated gzip stream raises EOFError
        raise IdxError(f"{path}: cannot be read as (gzipped) IDX: {e}") from e


def read_idx(path: str | os.PathLike, expect_ndim: int | None = None) -> np.ndarray:
    """The array stored in the IDX file at ``path`` (gzipped or not), checked against its header."""
    path = Path(path)
    if not path.is_file():
        raise FileNotFoundError(f"{path}: no such IDX file")
    data = _read_bytes(path)
    if len(data) < 4 or data[0] != 0 or data[1] != 0 or data[2] not in _TYPES:
        raise IdxError(f"{path}: not an IDX file (magic number {data[:4].hex() or 'missing'}; expected 0000 "
                       "followed by a type code such as 08 and the number of dimensions)")
    ndim = data[3]
    if expect_ndim is not None and ndim != expect_ndim:
        raise IdxError(f"{path}: an IDX file of {ndim} dimensions, expected {expect_ndim}")
    header = 4 + 4 * ndim
    if len(data) < header:
        raise IdxError(f"{path}: truncated header ({len(data)} bytes, the header alone takes {header})")
    shape = tuple(int(d) for d in np.frombuffer(data, dtype=">u4", count=ndim, offset=4))
    dtype = np.dtype(_TYPES[data[2]])
    want = int(np.prod(shape, dtype=np.int64)) * dtype.itemsize
    if len(data) - header != want:
        raise IdxError(f"{path}: the header announces shape {shape} ({want} bytes of data) but the file holds "
                       f"{len(data) - header} bytes: truncated or corrupt")
    return np.frombuffer(data, dtype=dtype, offset=header).reshape(shape).astype(dtype.newbyteorder("="), copy=False)
