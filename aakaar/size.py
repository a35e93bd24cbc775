"""``aakaar.Size``: the type of ``Tensor.shape`` and ``Tensor.size()``, PyTorch's ``torch.Size``.

A tuple of ints (so ``x.shape == (2, 3)`` and unpacking work as with any tuple) that prints as
``aakaar.Size([2, 3])``, knows its ``numel()``, and stays a Size when sliced, added to or repeated.
The library's shapes are made in C++ (csrc/python/convert.cpp) without running ``__new__``: they
are ints already.
"""

from __future__ import annotations

import math
import operator
from typing import Any, Iterable, SupportsIndex


class Size(tuple):
    """The sizes of a tensor's dimensions; ``Size([2, 3]).numel() == 6``."""

    def __new__(cls, sizes: Iterable[SupportsIndex] = ()) -> "Size":
        items = tuple(sizes)
        for i, s in enumerate(items):
            if not hasattr(type(s), "__index__"):
                raise TypeError(f"aakaar.Size() takes an iterable of 'int' (item {i} is '{type(s).__name__}')")
        return super().__new__(cls, (operator.index(s) for s in items))

    def numel(self) -> int:
        """The number of elements of a tensor of this shape (1 for the empty Size)."""
        return math.prod(self)

    def __getitem__(self, index: Any) -> Any:
        item = super().__getitem__(index)
        return Size(item) if isinstance(index, slice) else item

    def __add__(self, other: Any) -> "Size":
        if not isinstance(other, tuple):
            return NotImplemented
        return Size(tuple(self) + other)

    def __radd__(self, other: Any) -> "Size":
        if not isinstance(other, tuple):
            return NotImplemented
        return Size(other + tuple(self))

    def __mul__(self, times: SupportsIndex) -> "Size":
        return Size(tuple(self) * operator.index(times))

    __rmul__ = __mul__

    def __repr__(self) -> str:
        return f"aakaar.Size({list(self)})"

    __str__ = __repr__

    def __reduce__(self) -> tuple:
        return (Size, (tuple(self),))
