"""More of torch.Tensor's surface: ``layout`` (``aakaar.strided``), ``register_post_accumulate_grad_hook``,
``as_subclass``, the deprecated ``resize``/``resize_as``, ``name``, ``is_set_to``, ``set_``,
``dim_order``, ``to_dense``, ``const_data_ptr``, ``dense_dim``/``sparse_dim``, the ``is_<device>``
flags of devices aakaar does not have, and the methods of the top-level functions added in
torch_compat_ops (``as_strided_scatter``, ``geqrf``, ``orgqr``, ``ormqr``).

``storage()``/``untyped_storage()`` raise NotImplementedError: aakaar has no Storage objects, and a
stand-in without storage semantics (resizing, sharing, ``data_ptr`` identity) would mislead.
"""

from __future__ import annotations

import warnings
from collections import OrderedDict
from typing import Any

from . import _C
from ._C import Tensor

__all__ = ["layout", "strided"]


class layout:  # noqa: N801  (torch's name)
    """A tensor's memory layout. aakaar has one: ``aakaar.strided`` (dense, with strides)."""

    __slots__ = ("name",)

    def __init__(self, name: str) -> None:
        self.name = name

    def __repr__(self) -> str:
        return f"aakaar.{self.name}"

    def __reduce__(self) -> str:
        return self.name  # pickles as the module-level singleton


strided = layout("strided")


# ---- hooks ---------------------------------------------------------------------------------------------

def register_post_accumulate_grad_hook(self: Tensor, hook: Any) -> Any:
    """Calls ``hook(tensor)`` during each backward, right after the gradient has been added into this
    leaf's ``.grad`` (an optimizer can step there and free ``.grad``). Returns a handle whose
    ``remove()`` switches the hook off. Leaves only, as torch."""
    from .utils.hooks import RemovableHandle

    if not callable(hook):
        raise TypeError(f"register_post_accumulate_grad_hook: the hook must be callable, got {type(hook).__name__}")
    live: OrderedDict[int, Any] = OrderedDict()
    handle = RemovableHandle(live)
    live[handle.id] = hook

    def call(tensor: Tensor) -> None:
        active = live.get(handle.id)
        if active is not None and active(tensor) is not None:
            raise RuntimeError("post accumulate grad hooks should return None (they cannot replace the gradient)")

    self._register_post_accumulate_grad_hook(call)
    return handle


# ---- identity, shape, storage -----------------------------------------------------------------------------

def as_subclass(self: Tensor, cls: type) -> Tensor:
    """A ``cls`` instance sharing this tensor's memory. ``cls`` must subclass aakaar.Tensor. A
    tensor that requires grad is refused: aakaar's subclass instances start as leaves, and the
    result would be cut from the graph that torch's stays attached to."""
    if not (isinstance(cls, type) and issubclass(cls, Tensor)):
        raise TypeError(f"as_subclass(): argument 'cls' must be a subclass of Tensor, got {cls!r}")
    if self.requires_grad:
        raise NotImplementedError("as_subclass() of a tensor that requires grad: aakaar cannot attach a subclass "
                                  "instance to the autograd graph; call it on a detached tensor")
    out = cls.__new__(cls)  # (an empty tensor: pybind's __new__ constructs one)
    out._set_data(self)  # now showing self's memory, shape, strides and dtype
    return out


def _resize_numel_check(self: Tensor, sizes: tuple) -> None:
    n = 1
    for s in sizes:
        n *= s
    if n != self.numel():
        raise RuntimeError(f"requested resize to {'x'.join(map(str, sizes))} ({n} elements in total), but the given "
                           f"tensor has a size of {'x'.join(map(str, self.shape))} ({self.numel()} elements). "
                           "autograd's resize can only change the shape of a given tensor, while preserving the "
                           "number of elements. ")


def resize(self: Tensor, *sizes: Any) -> Tensor:
    """Deprecated in torch (warns, as torch): a reshaped copy with the same number of elements."""
    warnings.warn("non-inplace resize is deprecated", stacklevel=2)
    if len(sizes) == 1 and isinstance(sizes[0], (list, tuple)):
        sizes = tuple(sizes[0])
    _resize_numel_check(self, sizes)
    return self.reshape(list(sizes))  # torch's Resize: a view of a contiguous tensor, else a copy


def resize_as(self: Tensor, tensor: Tensor) -> Tensor:
    """Deprecated in torch (warns, as torch): resize to ``tensor``'s shape."""
    warnings.warn("non-inplace resize_as is deprecated", stacklevel=2)
    sizes = tuple(tensor.shape)
    _resize_numel_check(self, sizes)
    return self.reshape(list(sizes))


def is_set_to(self: Tensor, tensor: Tensor) -> bool:
    """Whether both tensors look at the same memory with the same offset, sizes and strides."""
    return (self.data_ptr() == tensor.data_ptr() and tuple(self.shape) == tuple(tensor.shape)
            and tuple(self.stride()) == tuple(tensor.stride()) and self.dtype == tensor.dtype)


def set_(self: Tensor, source: Tensor | None = None, storage_offset: int = 0, size: Any = None,
         stride: Any = None) -> Tensor:
    """This tensor now shows ``source``'s memory (its whole geometry, or ``size``/``stride`` from
    ``storage_offset``); with no source, an empty tensor. A Storage source is refused (aakaar has none)."""
    if source is None:
        source = _C.empty([0], dtype=self.dtype, device=self.device)
    if not isinstance(source, Tensor):
        raise TypeError(f"set_(): aakaar has no Storage objects; source must be a Tensor, got "
                        f"{type(source).__name__}")
    if self.is_leaf and self.requires_grad:
        raise RuntimeError("a leaf Variable that requires grad is being used in an in-place operation.")
    if size is not None:
        if stride is None:
            stride, acc = [], 1
            for s in reversed(list(size)):
                stride.insert(0, acc)
                acc *= s
        source = source.as_strided(list(size), list(stride), storage_offset)
    self._set_data(source)
    return self


def module_load(self: Tensor, other: Tensor, assign: bool = False) -> Tensor:
    """What Module.load_state_dict loads into a parameter or buffer: ``other.detach()`` with
    ``assign``, else ``self.copy_(other).detach()`` (torch's default)."""
    return other.detach() if assign else self.copy_(other).detach()


def _raise_no_storage(self: Tensor, *args: Any, **kwargs: Any) -> Any:
    """Raises NotImplementedError: aakaar has no Storage objects (see the message for what to use)."""
    raise NotImplementedError("aakaar has no Storage objects: a tensor's memory is reached through data_ptr(), "
                              "storage_offset(), stride() and numpy(); share it with views or set_(tensor)")


def dim_order(self: Tensor, *, ambiguity_check: bool | list = False) -> tuple[int, ...]:
    """The dims from outermost to innermost in memory (torch's sort: by stride, size-0 strides and
    ties resolved as torch resolves them)."""
    if not isinstance(ambiguity_check, bool):
        if not isinstance(ambiguity_check, list) or ambiguity_check:
            # (aakaar has no memory_format objects to list)
            raise TypeError("The ambiguity_check argument must be a bool or a list of memory formats.")
    nd = self.ndim
    shape, strides = list(self.shape), list(self.stride())
    if ambiguity_check is not False and (any(a == b for a, b in zip(strides, strides[1:])) or 1 in shape):
        # several dim orders fit (a size-1 dim, or equal strides), and no memory format picks one
        raise RuntimeError("The tensor does not have unique dim order, or cannot map to exact one of the given "
                           "memory formats.")
    if nd == 0:
        return ()
    if nd == 1:
        return (0,)
    if self.is_contiguous() and not _channels_last(shape, strides):
        return tuple(range(nd))

    def ge(a: int, b: int) -> bool:
        return b == 0 or (a != 0 and (a >= b or a % b == 0))

    def should_swap(a: int, b: int) -> int:
        sa, sb = strides[a], strides[b]
        if sa == 0 or sb == 0:
            return 0
        if sa == sb:
            return 0 if ge(shape[b], shape[a]) else 1
        if ge(sb, sa):
            return -1
        return 1 if ge(sa, sb) else 0

    perm = list(reversed(range(nd)))
    for i in range(1, nd):
        d1 = i
        for d0 in reversed(range(i)):
            c = should_swap(perm[d0], perm[d1])
            if c > 0:
                perm[d0], perm[d1] = perm[d1], perm[d0]
                d1 = d0
            elif c < 0:
                break
    if ambiguity_check is not False:
        for i in range(nd - 1):
            if should_swap(perm[i], perm[i + 1]) != -1:
                raise RuntimeError("The tensor does not have unique dim order.")
    return tuple(reversed(perm))


def _channels_last(shape: list, strides: list) -> bool:
    """Whether a 4-d tensor is densely laid out as (N, H, W, C) (torch's channels_last)."""
    if len(shape) != 4:
        return False
    expected, acc = {}, 1
    for d in (1, 3, 2, 0):
        expected[d] = acc
        acc *= shape[d]
    return all(shape[d] == 1 or strides[d] == expected[d] for d in range(4))


def to_dense(self: Tensor, dtype: Any = None, *, masked_grad: bool | None = None) -> Tensor:
    """The tensor itself (aakaar's tensors are dense); converted when ``dtype`` is given."""
    return self if dtype is None or dtype == self.dtype else self.to(dtype)


def const_data_ptr(self: Tensor) -> int:
    """The address of the first element (data_ptr(); aakaar has no read-only tensors)."""
    return self.data_ptr()


def dense_dim(self: Tensor) -> int:
    """Every dim of a dense tensor is dense: ndim (torch's answer for a strided tensor)."""
    return self.ndim


def is_distributed(self: Tensor) -> bool:
    """False: aakaar has no distributed tensors."""
    return False


def sparse_dim(self: Tensor) -> int:
    """0: aakaar's tensors are dense (torch's answer for a strided tensor)."""
    return 0


_PROPERTIES = {
    "layout": (lambda self: strided, "aakaar.strided: every aakaar tensor is dense, with strides."),
    "name": (lambda self: None, "None: aakaar has no named tensors."),
}
for _dev in ("xpu", "mps", "xla", "ipu", "mtia", "maia", "vulkan"):
    _PROPERTIES[f"is_{_dev}"] = (lambda self: False, f"False: aakaar has no {_dev} device.")

_METHODS = {
    "register_post_accumulate_grad_hook": register_post_accumulate_grad_hook,
    "as_subclass": as_subclass,
    "resize": resize,
    "resize_as": resize_as,
    "is_set_to": is_set_to,
    "set_": set_,
    "storage": _raise_no_storage,
    "untyped_storage": _raise_no_storage,
    "dim_order": dim_order,
    "to_dense": to_dense,
    "module_load": module_load,
    "const_data_ptr": const_data_ptr,
    "dense_dim": dense_dim,
    "is_distributed": is_distributed,
    "sparse_dim": sparse_dim,
}


def install() -> None:
    from . import torch_compat_ops as ops


    for name, (getter, doc) in _PROPERTIES.items():
        setattr(Tensor, name, property(getter, doc=doc))
    for name, fn in _METHODS.items():
        setattr(Tensor, name, fn)
    for name in ("as_strided_scatter", "geqrf", "orgqr", "ormqr"):
        setattr(Tensor, name, getattr(ops, name))
