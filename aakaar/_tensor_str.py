"""The values part of a tensor's repr, laid out as PyTorch lays it out (torch/_tensor_str.py): one
width for every element, ``linewidth`` split into as many elements per line as fit, ``...`` in
place of the middle of a dim longer than ``2 * edgeitems`` once the tensor has more than
``threshold`` elements, and floats as integers (``1.``), fixed point or scientific notation chosen
from the values shown. The options live in :data:`aakaar._tensor.PRINT_OPTS`."""

from __future__ import annotations

import math
from typing import Any

import numpy as np

__all__ = ["tensor_values_str", "add_suffixes"]


class _Formatter:
    """One format and one width for all the values shown (torch's _Formatter)."""

    def __init__(self, values: np.ndarray, floating: bool, opts: Any) -> None:
        self.floating, self.opts = floating, opts
        self.int_mode, self.sci_mode, self.max_width = True, False, 1
        flat = values.reshape(-1)
        if not floating:
            for v in flat.tolist():
                self.max_width = max(self.max_width, len(f"{v}"))
            return
        finite = flat[np.isfinite(flat) & (flat != 0)].astype(np.float64)
        if finite.size == 0:
            return
        absval = np.abs(finite)
        lo, hi = absval.min(), absval.max()
        self.int_mode = bool(np.all(finite == np.ceil(finite)))
        self.sci_mode = (hi / lo > 1000.0 or hi > 1.0e8 or lo < 1.0e-4) if opts.sci_mode is None else opts.sci_mode
        prec = opts.precision
        for v in finite.tolist():
            if self.sci_mode:
                width = len(f"{v:.{prec}e}")
            elif self.int_mode:
                width = len(f"{v:.0f}") + 1
            else:
                width = len(f"{v:.{prec}f}")
            self.max_width = max(self.max_width, width)

    def format(self, value: Any) -> str:
        if not self.floating:
            text = f"{value}"
        elif self.sci_mode:
            text = f"{value:{self.max_width}.{self.opts.precision}e}"
        elif self.int_mode:
            text = f"{value:.0f}" + ("" if math.isinf(value) or math.isnan(value) else ".")
        else:
            text = f"{value:.{self.opts.precision}f}"
        return (self.max_width - len(text)) * " " + text


def _summarized(a: np.ndarray, edge: int) -> np.ndarray:
    """Only the values a summarised repr shows: the first and last ``edge`` along every long dim."""
    for d in range(a.ndim):
        if a.shape[d] > 2 * edge:
            a = np.concatenate([a.take(range(edge), axis=d), a.take(range(a.shape[d] - edge, a.shape[d]), axis=d)], d)
    return a


def _vector(a: np.ndarray, indent: int, summarize: bool, fmt: _Formatter, opts: Any) -> str:
    per_line = max(1, math.floor((opts.linewidth - indent) / (fmt.max_width + 2)))
    edge = opts.edgeitems
    if summarize and not edge:
        data = ["..."]
    elif summarize and a.shape[0] > 2 * edge:
        data = [fmt.format(v) for v in a[:edge].tolist()] + [" ..."] + [fmt.format(v) for v in a[-edge:].tolist()]
    else:
        data = [fmt.format(v) for v in a.tolist()]
    lines = [", ".join(data[i:i + per_line]) for i in range(0, len(data), per_line)]
    return "[" + (",\n" + " " * (indent + 1)).join(lines) + "]"


def _nested(a: np.ndarray, indent: int, summarize: bool, fmt: _Formatter, opts: Any) -> str:
    if a.ndim == 0:
        return fmt.format(a.item())
    if a.ndim == 1:
        return _vector(a, indent, summarize, fmt, opts)
    edge = opts.edgeitems
    if summarize and a.shape[0] > 2 * edge:
        rows = ([_nested(a[i], indent + 1, summarize, fmt, opts) for i in range(edge)] + ["..."]
                + [_nested(a[i], indent + 1, summarize, fmt, opts) for i in range(a.shape[0] - edge, a.shape[0])])
    else:
        rows = [_nested(a[i], indent + 1, summarize, fmt, opts) for i in range(a.shape[0])]
    return "[" + ("," + "\n" * (a.ndim - 1) + " " * (indent + 1)).join(rows) + "]"


def tensor_values_str(a: np.ndarray, floating: bool, indent: int, opts: Any) -> str:
    """The values of host array ``a`` as torch prints them after ``tensor(`` (``indent`` columns)."""
    if a.size == 0:
        return "[]"
    summarize = a.size > opts.threshold
    fmt = _Formatter(_summarized(a, opts.edgeitems) if summarize else a, floating, opts)
    return _nested(a, indent, summarize, fmt, opts)


def add_suffixes(text: str, suffixes: list[str], indent: int, opts: Any) -> str:
    """``text`` closed with its suffixes (dtype=..., grad_fn=...): on the last line, or each on a new
    line under the first value when the line would pass the line width (torch's _add_suffixes)."""
    parts = [text]
    last_line_len = len(text) - text.rfind("\n") + 1
    for suffix in suffixes:
        if last_line_len + len(suffix) + 2 > opts.linewidth:
            parts.append(",\n" + " " * indent + suffix)
            last_line_len = indent + len(suffix)
        else:
            parts.append(", " + suffix)
            last_line_len += len(suffix) + 2
    return "".join(parts) + ")"
