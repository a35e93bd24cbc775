"""Shared pieces of the book's widgets.

The widgets are anywidget widgets whose logic lives in their JavaScript module (``_esm``): the
static book has no Python kernel, so anything computed in Python would be frozen at build time.
Python only holds and validates the state.
"""
from __future__ import annotations

import pathlib
from typing import Iterable

HERE = pathlib.Path(__file__).parent
CSS = HERE / "widgets.css"


def as_sizes(value: Iterable[int], what: str, allow_negative: bool = False) -> list[int]:
    """Turn ``value`` into a list of ints, or raise a ValueError/TypeError naming ``what``."""
    if isinstance(value, (str, bytes)) or not hasattr(value, "__iter__"):
        raise TypeError(f"{what} must be a sequence of ints such as (3, 4), got {value!r}")
    out = []
    for v in value:
        if isinstance(v, bool) or not hasattr(v, "__index__"):
            raise TypeError(f"{what} must contain ints, got {v!r} in {tuple(value)!r}")
        v = int(v.__index__())
        if v < 0 and not allow_negative:
            raise ValueError(f"{what} must not contain negative numbers, got {tuple(value)!r}")
        out.append(v)
    return out
