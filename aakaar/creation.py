"""Creating tensors from Python data, and the ``*_like`` helpers."""

from __future__ import annotations

from typing import Any, Sequence

import numpy as np

from . import _C
from ._C import Tensor

__all__ = [
    "tensor", "as_tensor", "zeros_like", "ones_like", "full_like", "empty_like", "rand_like", "randn_like",
    "randint_like",
]

_NUMPY_OF = {
    _C.dtype.bool: np.bool_,
    _C.dtype.uint8: np.uint8,
    _C.dtype.int8: np.int8,
    _C.dtype.int16: np.int16,
    _C.dtype.int32: np.int32,
    _C.dtype.int64: np.int64,
    _C.dtype.float16: np.float16,
    _C.dtype.float32: np.float32,
    _C.dtype.float64: np.float64,
}
_SUPPORTED_NUMPY = {np.dtype(v): k for k, v in _NUMPY_OF.items()}
# Python numbers (doubles) become float16 and bfloat16 through float32, as in PyTorch
# (c10::Half and c10::BFloat16 take a float): numpy's direct double -> float16 rounding
# would differ in the rare double-rounding cases. numpy has no bfloat16 at all.
_STAGING = {**_NUMPY_OF, _C.dtype.float16: np.float32, _C.dtype.bfloat16: np.float32}


def _infer(data: Any, path: tuple[int, ...] = ()) -> tuple[tuple[int, ...], str]:
    """Shape and kind ('bool' < 'int' < 'float') of nested sequences; raises on ragged input."""
    if isinstance(data, (bool, np.bool_)):
        return (), "bool"
    if isinstance(data, (int, np.integer)):
        return (), "int"
    if isinstance(data, (float, np.floating)):
        return (), "float"
    if isinstance(data, Tensor):
        kind = "float" if data.dtype.is_floating_point else ("bool" if data.dtype == _C.dtype.bool else "int")
        return tuple(data.shape), kind
    if isinstance(data, np.ndarray):
        return tuple(data.shape), "float" if data.dtype.kind == "f" else ("bool" if data.dtype.kind == "b" else "int")
    if not isinstance(data, Sequence) or isinstance(data, (str, bytes)):
        where = "".join(f"[{i}]" for i in path)
        raise TypeError(f"tensor(): could not convert an object of type {type(data).__name__} at data{where} to a number")
    if len(data) == 0:
        return (0,), "float"
    shapes_kinds = [_infer(item, path + (i,)) for i, item in enumerate(data)]
    first = shapes_kinds[0][0]
    for i, (shape, _) in enumerate(shapes_kinds):
        if shape != first:
            where = "".join(f"[{j}]" for j in path)
            raise ValueError(
                f"tensor(): ragged nested sequence: data{where}[0] has shape {list(first)} "
                f"but data{where}[{i}] has shape {list(shape)}"
            )
    order = {"bool": 0, "int": 1, "float": 2}
    kind = max((k for _, k in shapes_kinds), key=order.__getitem__)
    return (len(data),) + first, kind


def _requiring_grad(t: Tensor, requires_grad: bool) -> Tensor:
    """``t`` made a leaf that requires grad when asked (a RuntimeError for a non-floating dtype, as in PyTorch)."""
    return t.requires_grad_(True) if requires_grad else t


def tensor(data: Any, dtype: _C.dtype | None = None, device: Any = None, requires_grad: bool = False) -> Tensor:
    """A new tensor holding a copy of ``data`` (a number, nested lists, a numpy array or a tensor).

    The dtype is inferred like PyTorch: bools give ``bool``, ints ``int64``, any float the default
    floating dtype (``float32`` unless :func:`aakaar.set_default_dtype` changed it).
    The result is always a leaf (a tensor's history is not copied); ``requires_grad=True`` makes it
    one that requires grad.
    """
    if isinstance(data, Tensor):
        src = data.detach()
        out = src.to(dtype) if dtype is not None else src
        out = out.clone() if out is src else out
        out = out.to(device) if device is not None else out
        return _requiring_grad(out, requires_grad)
    if isinstance(data, np.generic) and data.dtype in _SUPPORTED_NUMPY:
        # A numpy scalar keeps its dtype, as a 0-d array does (and as in PyTorch):
        # tensor(np.float64(3.0)) is float64, not the float32 of a Python float.
        data = np.asarray(data)
    if isinstance(data, np.ndarray):
        if data.dtype not in _SUPPORTED_NUMPY:
            if dtype is None:
                raise TypeError(
                    f"tensor(): unsupported numpy dtype {data.dtype}; aakaar supports bool, uint8, int8, int16, "
                    "int32, int64, float16, float32 and float64 (pass dtype= or convert with .astype)"
                )
        # np.asarray(order="C"), not np.ascontiguousarray: the latter turns 0-d arrays into 1-d ones.
        arr = np.asarray(data, dtype=_STAGING[dtype] if dtype is not None else None, order="C")
    else:
        _, kind = _infer(data)
        if dtype is None:
            dtype = {"bool": _C.dtype.bool, "int": _C.dtype.int64, "float": _C._get_default_dtype()}[kind]
        items = data
        if isinstance(data, (list, tuple)) and any(isinstance(x, Tensor) for x in data):
            items = [x.detach().numpy() if isinstance(x, Tensor) else x for x in data]
        try:
            # A Python float beyond float32's range becomes inf, as torch.tensor makes it: not worth a warning.
            with np.errstate(over="ignore"):
                arr = np.array(items, dtype=_STAGING[dtype])
        except OverflowError as e:
            raise ValueError(f"tensor(): value out of range for {dtype!r}: {e}") from None
    arr = np.asarray(arr, order="C")
    if not (arr.flags.writeable and arr.flags.aligned):
        # tensor() copies anyway, so read-only input (np.broadcast_to, frombuffer of bytes)
        # and misaligned views are fine: copy them first into memory from_numpy can share.
        arr = arr.copy()
    out = _C.from_numpy(arr).clone()
    if dtype is not None and out.dtype != dtype:
        out = out.to(dtype)
    out = out.to(device) if device is not None else out
    return _requiring_grad(out, requires_grad)


def as_tensor(data: Any, dtype: _C.dtype | None = None) -> Tensor:
    """Like :func:`tensor`, but shares memory with a numpy array or tensor when it can."""
    if isinstance(data, Tensor) and (dtype is None or data.dtype == dtype):
        return data
    if isinstance(data, np.ndarray) and data.dtype in _SUPPORTED_NUMPY and (dtype is None or _SUPPORTED_NUMPY[data.dtype] == dtype):
        if all(s >= 0 for s in data.strides) and data.flags.writeable and data.flags.aligned:
            return _C.from_numpy(data)
    return tensor(data, dtype)


# The *_like factories take PyTorch's keywords: dtype, device and requires_grad.


def empty_like(t: Tensor, *, dtype: _C.dtype | None = None, device: Any = None, requires_grad: bool = False) -> Tensor:
    """An uninitialised tensor with ``t``'s shape (and dtype and device unless given)."""
    return _C.empty(*t.shape, dtype=dtype or t.dtype, device=device or t.device, requires_grad=requires_grad)


def zeros_like(t: Tensor, *, dtype: _C.dtype | None = None, device: Any = None, requires_grad: bool = False) -> Tensor:
    """Zeros with ``t``'s shape."""
    return _C.zeros(*t.shape, dtype=dtype or t.dtype, device=device or t.device, requires_grad=requires_grad)


def ones_like(t: Tensor, *, dtype: _C.dtype | None = None, device: Any = None, requires_grad: bool = False) -> Tensor:
    """Ones with ``t``'s shape."""
    return _C.ones(*t.shape, dtype=dtype or t.dtype, device=device or t.device, requires_grad=requires_grad)


def full_like(
    t: Tensor, fill_value: Any, *, dtype: _C.dtype | None = None, device: Any = None, requires_grad: bool = False
) -> Tensor:
    """``fill_value`` everywhere, with ``t``'s shape."""
    return _C.full(t.shape, fill_value, dtype=dtype or t.dtype, device=device or t.device, requires_grad=requires_grad)


def rand_like(
    t: Tensor, *, dtype: _C.dtype | None = None, device: Any = None, requires_grad: bool = False, generator: Any = None
) -> Tensor:
    """Uniform [0, 1) numbers with ``t``'s shape."""
    return _C.rand(*t.shape, dtype=dtype or t.dtype, device=device or t.device, generator=generator,
                   requires_grad=requires_grad)


def randn_like(
    t: Tensor, *, dtype: _C.dtype | None = None, device: Any = None, requires_grad: bool = False, generator: Any = None
) -> Tensor:
    """Standard normal numbers with ``t``'s shape."""
    return _C.randn(*t.shape, dtype=dtype or t.dtype, device=device or t.device, generator=generator,
                    requires_grad=requires_grad)


def randint_like(
    t: Tensor, low: int = 0, high: int | None = None, *, dtype: _C.dtype | None = None, device: Any = None,
    requires_grad: bool = False, generator: Any = None,
) -> Tensor:
    """Random integers in [low, high) with ``t``'s shape (``randint_like(t, high)`` as in PyTorch)."""
    if high is None:
        low, high = 0, low
    return _C.randint(low, high, tuple(t.shape), dtype=dtype or t.dtype, device=device or t.device,
                      generator=generator, requires_grad=requires_grad)
