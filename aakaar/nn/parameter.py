"""``Parameter``: a tensor that a Module registers as learnable.

It is an ordinary :class:`aakaar.Tensor` (same storage, same ops) whose type
tells ``Module.__setattr__`` to put it in ``_parameters``, and which requires
grad by default. ``Tensor(data)`` makes a history-free alias of ``data`` in
C++, so wrapping never copies and never drags an old graph along.
"""

from __future__ import annotations

from .. import _C
from .._C import Tensor

__all__ = ["Parameter"]


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

