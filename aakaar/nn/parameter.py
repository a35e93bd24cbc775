"""``Parameter``: a tensor that a Module registers as learnable.

It is an ordinary :class:`aakaar.Tensor` (same storage, same ops) whose type
tells ``Module.__setattr__`` to put it in ``_parameters``, and which requires
grad by default. ``Tensor(data)`` makes a history-free alias of ``data`` in
C++, so wrapping never copies and never drags an old graph along.
"""

from __future__ import annotations

from .. import _C
from .._C import Tensor

__all__ = ["Parameter", "UninitializedParameter", "UninitializedBuffer", "Buffer"]


class Parameter(Tensor):
    """A learnable tensor: ``Parameter(ak.randn(3, 4))``; a leaf that requires grad."""

    def __init__(self, data: Tensor | None = None, requires_grad: bool = True) -> None:
        if data is None:
            data = _C.empty(0)
        if not isinstance(data, Tensor):
            raise TypeError(f"Parameter(): data must be an aakaar.Tensor, got {type(data).__name__}")
        if requires_grad and not data.dtype.is_floating_point:
            raise TypeError(f"Parameter(): only floating-point tensors can require gradients, got {data.dtype}")
        super().__init__(data)
        self.requires_grad_(requires_grad)

    def __repr__(self) -> str:
        return "Parameter containing:\n" + Tensor.__repr__(self)



class UninitializedParameter(Parameter):
    """The placeholder parameter of a lazy module (``nn.LazyLinear``): empty until the module's
    first forward gives it a shape."""

    cls_to_become = Parameter

    def __init__(self, requires_grad: bool = True, device: object = None, dtype: _C.dtype | None = None) -> None:
        super().__init__(_C.empty(0, dtype=dtype if dtype is not None else _C._get_default_dtype()), requires_grad)

    def __repr__(self) -> str:
        return "<UninitializedParameter>"


class UninitializedBuffer(Tensor):
    """The placeholder buffer of a lazy module."""

    def __init__(self, requires_grad: bool = False, device: object = None, dtype: _C.dtype | None = None) -> None:
        super().__init__(_C.empty(0, dtype=dtype if dtype is not None else _C._get_default_dtype()))

    def __repr__(self) -> str:
        return "<UninitializedBuffer>"


class Buffer(Tensor):
    """``self.stats = nn.Buffer(t)`` registers ``t`` as a buffer of the module (``persistent=False``
    keeps it out of the state_dict), as ``register_buffer`` does; the module stores a plain tensor."""

    def __init__(self, data: Tensor | None = None, *, persistent: bool = True) -> None:
        if data is None:
            data = _C.empty(0)
        if not isinstance(data, Tensor):
            raise TypeError(f"Buffer(): data must be an aakaar.Tensor, got {type(data).__name__}")
        super().__init__(data)
        self.persistent = persistent

