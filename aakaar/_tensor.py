"""Python-side parts of :class:`aakaar.Tensor`: printing, conversion, and the
few methods whose logic is about Python objects rather than memory.

Everything numeric is implemented in C++ (``csrc/``); this module only adds
convenience on top of the compiled class.
"""

from __future__ import annotations

from collections import namedtuple
from typing import Any, Iterator

import numpy as np

from . import _C
from ._C import Tensor

__all__ = ["install_methods"]

# (values, indices) pairs returned by max/min along a dim, like torch.return_types.
MaxMin = namedtuple("MaxMin", ["values", "indices"])

# The dtypes a repr leaves unsaid, as PyTorch: int64, bool and the default floating dtype.
_IMPLIED_DTYPES = (_C.dtype.int64, _C.dtype.bool)


class _PrintOptions:
    """torch's print options (``aakaar.set_printoptions`` sets them): digits after the point, the
    element count above which the repr is summarised with ``...``, the items shown at each edge of
    a summarised dim, the line width, and scientific notation (None: chosen from the values)."""

    precision = 4
    threshold: float = 1000
    edgeitems = 3
    linewidth = 80
    sci_mode: bool | None = None


PRINT_OPTS = _PrintOptions()


def _host_array(self: Tensor) -> np.ndarray:
    """The values as a numpy array on the host; bfloat16 (which numpy lacks) as the float32 it holds exactly."""
    t = self.cpu()
    return (t._to_dtype(_C.dtype.float32) if t.dtype == _C.dtype.bfloat16 else t).numpy()


def _repr(self: Tensor) -> str:
    """PyTorch's repr: ``tensor([[1.0000, 2.5000], ...])``, then what the values leave unsaid: the device,
    the size of an empty tensor (not 1-d), a dtype other than the defaults, and the autograd state
    (``grad_fn=<MulBackward0>``, or ``requires_grad=True`` on a leaf)."""
    from . import _tensor_str
    prefix = "tensor("
    body = _tensor_str.tensor_values_str(_host_array(self), self.dtype.is_floating_point, len(prefix), PRINT_OPTS)
    extras = []
    if self.device.type != "cpu":
        extras.append(f"device='{self.device}'")
    if self.numel() == 0:
        if self.ndim != 1:
            extras.append(f"size={tuple(self.shape)}")
        if self.dtype != _C._get_default_dtype():  # no values to tell an int64 empty tensor by: always said
            extras.append(f"dtype={self.dtype!r}")
    else:
        if not PRINT_OPTS.edgeitems:  # no values shown at the edges: the size is said instead
            extras.append(f"size={tuple(self.shape)}")
        if self.dtype not in _IMPLIED_DTYPES and self.dtype != _C._get_default_dtype():
            extras.append(f"dtype={self.dtype!r}")
    if self.grad_fn is not None:
        extras.append(f"grad_fn=<{type(self.grad_fn).__name__}>")
    elif self.requires_grad:
        extras.append("requires_grad=True")
    return _tensor_str.add_suffixes(prefix + body, extras, len(prefix), PRINT_OPTS)


def _tolist(self: Tensor) -> Any:
    """Nested Python lists (a Python number for a 0-d tensor)."""
    return _host_array(self).tolist()


def _iter(self: Tensor) -> Iterator[Tensor]:
    """Iterates over the first dim (views, like ``unbind(0)``)."""
    if self.ndim == 0:
        raise TypeError("iteration over a 0-d tensor")
    return iter(self.unbind(0))


def _to(self: Tensor, *args: Any, dtype: Any = None, device: Any = None, copy: bool = False) -> Tensor:
    """``t.to(dtype)``, ``t.to(device)``, ``t.to(device, dtype)`` or ``t.to(other_tensor)``."""
    for a in args:
        if isinstance(a, _C.dtype):
            dtype = a
        elif isinstance(a, Tensor):
            dtype, device = a.dtype, a.device
        else:
            device = a
    out = self
    if device is not None:
        out = out._to_device(device)
    if dtype is not None:
        out = out._to_dtype(dtype, copy and out is self)
    elif copy and out is self:
        out = out.clone()
    return out


def _max(self: Tensor, dim: Any = None, keepdim: bool = False) -> Any:
    """The largest element, or (values, indices) along ``dim``."""
    if dim is None:
        out = self.amax()
        _C.autograd._rename_node(out, "AmaxBackward", "MaxBackward1")  # torch's name for max() (same gradient)
        return out
    _dims_not_bool("max", dim)
    if isinstance(dim, Tensor):
        return self.maximum(dim)
    return MaxMin(*self._max_dim(dim, keepdim))


def _min(self: Tensor, dim: Any = None, keepdim: bool = False) -> Any:
    """The smallest element, or (values, indices) along ``dim``."""
    if dim is None:
        out = self.amin()
        _C.autograd._rename_node(out, "AminBackward", "MinBackward1")  # torch's name for min() (same gradient)
        return out
    _dims_not_bool("min", dim)
    if isinstance(dim, Tensor):
        return self.minimum(dim)
    return MaxMin(*self._min_dim(dim, keepdim))


def _scalar_of(kind: type):
    def convert(self: Tensor):
        if self.numel() != 1:  # torch raises a RuntimeError; ArgumentError is that and a ValueError
            raise _C.ArgumentError(
                f"only one-element tensors can be converted to Python scalars: a Tensor with {self.numel()} "
                f"elements (shape {tuple(self.shape)}) cannot be converted to Scalar"
            )
        return kind(self.item())

    return convert


def _bool(self: Tensor) -> bool:
    """The truth value of a one-element tensor."""
    if self.numel() != 1:
        raise RuntimeError(
            f"Boolean value of a tensor with {self.numel()} elements is ambiguous; use .any() or .all()"
        )
    return bool(self.item())


def _index(self: Tensor) -> int:
    """A one-element integer tensor used as a Python index."""
    if self.numel() != 1 or self.dtype.is_floating_point:
        raise TypeError("only integer tensors of a single element can be converted to an index")
    return int(self.item())


def _cpu(self: Tensor) -> Tensor:
    """This tensor on the cpu (itself if already there)."""
    return self._to_device("cpu")


def _cuda(self: Tensor, device: Any = "cuda") -> Tensor:
    """This tensor on a CUDA device (needs a CUDA build and a GPU)."""
    return self._to_device(device)


def _as(dtype: Any):
    def convert(self: Tensor) -> Tensor:
        return self._to_dtype(dtype)

    convert.__doc__ = f"``self.to({dtype.name})``: a converted copy, or self if it already is {dtype.name}."
    return convert


def _type_as(self: Tensor, other: Tensor) -> Tensor:
    """This tensor converted to ``other``'s dtype."""
    return self._to_dtype(other.dtype)


def _t(self: Tensor) -> Tensor:
    """Transpose of a matrix (at most 2 dims), as ``torch.Tensor.t``."""
    if self.ndim > 2:
        raise _C.ArgumentError(f"t() expects a tensor with <= 2 dims, got shape {tuple(self.shape)}")
    if self.ndim < 2:
        return self
    out = self.transpose(0, 1)
    _C.autograd._rename_node(out, "TransposeBackward", "TBackward")  # torch's name for t()
    return out


def _is_floating_point(self: Tensor) -> bool:
    """Whether the dtype is a floating one (float16, bfloat16, float32, float64)."""
    return self.dtype.is_floating_point


# PyTorch's legacy tensor-type names, by dtype: t.type() is 'aakaar.FloatTensor' where
# torch says 'torch.FloatTensor' ('aakaar.cuda.FloatTensor' on a CUDA device).
_TYPE_NAMES = {
    "bool": "BoolTensor", "uint8": "ByteTensor", "int8": "CharTensor", "int16": "ShortTensor",
    "int32": "IntTensor", "int64": "LongTensor", "float16": "HalfTensor", "bfloat16": "BFloat16Tensor",
    "float32": "FloatTensor", "float64": "DoubleTensor",
}


def _type(self: Tensor, dtype: Any = None, non_blocking: bool = False) -> Any:
    """With no argument, the type's name ('aakaar.FloatTensor'); with a dtype (or such a name), a converted copy."""
    prefix = "aakaar." if self.device.type == "cpu" else f"aakaar.{self.device.type}."
    if dtype is None:
        return prefix + _TYPE_NAMES[self.dtype.name]
    if isinstance(dtype, str):
        wanted = {("aakaar." + v): k for k, v in _TYPE_NAMES.items()}
        wanted.update({("torch." + v): k for k, v in _TYPE_NAMES.items()})
        wanted.update({("aakaar.cuda." + v): k for k, v in _TYPE_NAMES.items()})
        if dtype not in wanted:
            raise ValueError(f"invalid type: {dtype!r} (expected a name such as 'aakaar.FloatTensor' or a dtype)")
        dtype = getattr(_C.dtype, wanted[dtype])
    if not isinstance(dtype, _C.dtype):
        raise TypeError(f"type(): expected a dtype or a type name, got {type(dtype).__name__}")
    return self._to_dtype(dtype)


# ---- construction ---------------------------------------------------------------------------
# pybind11 builds a Tensor in two steps, __new__ (an empty Python shell) and
# __init__ (the C++ tensor). ``Tensor.__new__(Tensor)`` alone left a shell whose
# methods dereferenced a null tensor (numel() crashed the process). Here
# __new__ does the whole construction, so no Tensor object exists without its
# C++ tensor: ``Tensor.__new__(Tensor)`` is an empty float32 tensor (PyTorch's
# ``torch.Tensor()``), ``Tensor(data)`` a history-free alias of data, and
# __init__ has nothing left to do (subclasses such as nn.Parameter still call it).
_shell_new = Tensor.__new__  # pybind11's: allocates the Python object only
_native_init = Tensor.__init__  # pybind11's: makes the C++ tensor (an alias of data)


def _tensor_new(cls: type, data: Any = None, *args: Any, **kwargs: Any) -> Tensor:
    self = _shell_new(cls)
    _native_init(self, _C.empty(0) if data is None else data)
    return self


def _tensor_init(self: Tensor, *args: Any, **kwargs: Any) -> None:
    """Nothing to do: ``Tensor.__new__`` made the tensor (see aakaar/_tensor.py)."""


def _dims_not_bool(name: str, dim: Any) -> None:
    if isinstance(dim, (bool, np.bool_)):
        raise TypeError(f"{name}(): dim must be an int, got bool (did you mean keepdim=True?)")


_native_dtype_init = _C.dtype.__init__
_DTYPE_VALUES = {int(d) for d in _C.dtype.__members__.values()}


def _dtype_init(self: Any, value: Any) -> None:
    # pybind11's enum accepts any int (ak.dtype(99)), which then reaches C++ as
    # an invalid enum; only the ten dtypes exist.
    if isinstance(value, bool) or not isinstance(value, int) or value not in _DTYPE_VALUES:
        raise TypeError(f"invalid dtype {value!r}: expected one of {sorted(_DTYPE_VALUES)} "
                        "(aakaar.bool, uint8, int8, int16, int32, int64, float16, bfloat16, float32, float64)")
    _native_dtype_init(self, value)


def install_methods() -> None:
    """Attach the Python-level methods to the compiled Tensor class."""
    Tensor.__new__ = staticmethod(_tensor_new)
    Tensor.__init__ = _tensor_init
    _C.dtype.__init__ = _dtype_init
    Tensor.__repr__ = _repr
    Tensor.__str__ = lambda self: self.__repr__()  # a subclass's repr (Parameter containing: ...), as torch
    Tensor.tolist = _tolist
    Tensor.__iter__ = _iter
    Tensor.to = _to
    Tensor.cpu = _cpu
    Tensor.cuda = _cuda
    Tensor.float = _as(_C.dtype.float32)
    Tensor.double = _as(_C.dtype.float64)
    Tensor.long = _as(_C.dtype.int64)
    Tensor.bool = _as(_C.dtype.bool)
    Tensor.byte = _as(_C.dtype.uint8)
    Tensor.char = _as(_C.dtype.int8)
    Tensor.short = _as(_C.dtype.int16)
    Tensor.int = _as(_C.dtype.int32)
    Tensor.half = _as(_C.dtype.float16)
    Tensor.bfloat16 = _as(_C.dtype.bfloat16)
    Tensor.type = _type
    Tensor.type_as = _type_as
    Tensor.t = _t
    Tensor.is_floating_point = _is_floating_point
    Tensor.max = _max
    Tensor.min = _min
    Tensor.__bool__ = _bool
    Tensor.__float__ = _scalar_of(float)
    Tensor.__int__ = _scalar_of(int)
    Tensor.__index__ = _index
