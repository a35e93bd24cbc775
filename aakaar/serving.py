"""Inference for a served model: the Python side of the Go server in ``go/`` (chapter 18).

A served model is a file in aakaar's own safe format (:mod:`aakaar.serialization`: JSON and raw
bytes, no pickle), holding ``{"format": "aakaar-serving", "version": 1, "kind": "mlp",
"sizes": [784, 256, 128, 47], "state_dict": {...}}``: an MLP of Linear layers with ReLUs between
them, like chapter 17's. :func:`save_model` writes one, :func:`load_model` reads and checks one.

:func:`run` is what the Go runtime calls for each batch. Its inputs and outputs are buffers the
caller owns (memory Go allocated with ``C.malloc``, wrapped by the C glue as ``memoryview``\\ s):
``numpy.frombuffer`` views them and :func:`aakaar.from_numpy` shares the view, so the model reads
the request bytes where Go wrote them and the C++ kernel of ``copy_`` writes the logits straight
into Go's output buffer: no copy in either direction. Nothing here keeps a reference to either
buffer after ``run`` returns (the caller releases the ``memoryview``, which fails loudly if
something still holds it).
"""

from __future__ import annotations

import os
from typing import Any, Sequence

import numpy as np

from . import _C, nn
from .autograd import no_grad
from .serialization import SerializationError, load, save

__all__ = ["ServedModel", "build_mlp", "save_model", "load_model", "run", "noop", "wrap_only"]

FORMAT = "aakaar-serving"
VERSION = 1


def build_mlp(sizes: Sequence[int]) -> nn.Sequential:
    """Linear layers of ``sizes`` with a ReLU between each two (chapter 17's model for (784, 256, 128, 47))."""
    linears = [nn.Linear(fan_in, fan_out) for fan_in, fan_out in zip(sizes[:-1], sizes[1:])]
    layers = [m for linear in linears[:-1] for m in (linear, nn.ReLU())] + linears[-1:]
    return nn.Sequential(*layers)


class ServedModel:
    """A loaded model: the module in eval mode, and the sizes of one input row and one output row."""

    def __init__(self, module: nn.Module, sizes: Sequence[int]):
        self.module = module.eval()
        self.sizes = [int(s) for s in sizes]
        self.in_features = self.sizes[0]
        self.out_features = self.sizes[-1]

    def __call__(self, x: _C.Tensor) -> _C.Tensor:
        return self.module(x)


def _check_sizes(sizes: Any, path: str) -> list[int]:
    if (not isinstance(sizes, list) or len(sizes) < 2
            or not all(isinstance(s, int) and not isinstance(s, bool) and s > 0 for s in sizes)):
        raise SerializationError(f"{path}: 'sizes' must be a list of at least two positive ints, got {sizes!r}")
    return sizes


def save_model(path: str | os.PathLike, module: nn.Module, sizes: Sequence[int]) -> None:
    """Writes ``module`` (an MLP of ``sizes``, as :func:`build_mlp` makes) as a served-model file, atomically."""
    save({"format": FORMAT, "version": VERSION, "kind": "mlp", "sizes": [int(s) for s in sizes],
          "state_dict": module.state_dict()}, path)


def load_model(path: str | os.PathLike) -> ServedModel:
    """Reads a served-model file; a missing file raises FileNotFoundError, a corrupt or foreign one
    SerializationError (a ValueError) naming what is wrong."""
    path = os.fspath(path)
    if not os.path.isfile(path):
        raise FileNotFoundError(f"aakaar.serving: no model file at {path!r}")
    obj = load(path)
    if not isinstance(obj, dict) or obj.get("format") != FORMAT:
        raise SerializationError(f"{path}: not a served-model file (expected a dict with format {FORMAT!r})")
    if obj.get("version") != VERSION or obj.get("kind") != "mlp":
        raise SerializationError(f"{path}: unsupported served model (version {obj.get('version')!r}, "
                                 f"kind {obj.get('kind')!r}); this aakaar reads version {VERSION}, kind 'mlp'")
    sizes = _check_sizes(obj.get("sizes"), path)
    module = build_mlp(sizes)
    state = obj.get("state_dict")
    if not isinstance(state, dict):
        raise SerializationError(f"{path}: 'state_dict' must be a dict of tensors")
    expected = {k: tuple(v.shape) for k, v in module.state_dict().items()}
    got = {k: tuple(v.shape) for k, v in state.items() if isinstance(v, _C.Tensor)}
    if got != expected or len(state) != len(expected):
        raise SerializationError(f"{path}: the weights do not fit an MLP of sizes {sizes}: "
                                 f"expected {expected}, got {got}")
    module.load_state_dict(state)
    return ServedModel(module, sizes)


def _view(buf: memoryview, rows: int, cols: int) -> _C.Tensor:
    """A (rows, cols) float32 tensor over ``buf``'s memory, without copying (write-through both ways)."""
    if rows < 0 or rows * cols * 4 > buf.nbytes:
        raise ValueError(f"aakaar.serving: a buffer of {buf.nbytes} bytes cannot hold {rows} rows of {cols} float32")
    arr = np.frombuffer(buf, dtype=np.float32, count=rows * cols).reshape(rows, cols)
    return _C.from_numpy(arr)


# [[book:serving_run]]
def run(model: ServedModel, inputs: memoryview, outputs: memoryview, rows: int) -> None:
    """The model on ``rows`` requests: reads ``inputs`` (rows x in_features float32), writes the
    logits into ``outputs`` (rows x out_features float32). Both buffers belong to the caller."""
    x = _view(inputs, rows, model.in_features)
    out = _view(outputs, rows, model.out_features)
    with no_grad():
        out.copy_(model(x))  # the C++ kernel writes into the caller's memory
# [[/book:serving_run]]


def noop() -> None:
    """Nothing: the C glue times a call into Python with it (the C→Python hop of chapter 18)."""


def wrap_only(model: ServedModel, inputs: memoryview, outputs: memoryview, rows: int) -> None:
    """Everything ``run`` does but the model: wraps both buffers and zeroes the output in C++
    (the Python→C++ hop of chapter 18)."""
    _view(inputs, rows, model.in_features)
    _view(outputs, rows, model.out_features).zero_()
