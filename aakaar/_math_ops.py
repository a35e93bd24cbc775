"""``isclose``, ``allclose`` and ``equal``: comparisons of whole tensors, composed of
elementwise ops with PyTorch's exact rules (same dtype required, ``equal_nan``,
``rtol`` and ``atol`` non-negative, inf close only to itself).

They are installed as Tensor methods by :func:`install`, and ``aakaar.isclose(a, b)``
etc. call them (``aakaar/functional_ops.py``).
"""

from __future__ import annotations

from . import _C
from ._C import Tensor

__all__ = ["isclose", "allclose", "equal", "install"]


def _check_tensor(x: object, fn: str, name: str) -> None:
    if not isinstance(x, Tensor):
        raise TypeError(f"{fn}(): argument '{name}' must be an aakaar.Tensor, not {type(x).__name__}")


def isclose(self: Tensor, other: Tensor, rtol: float = 1e-05, atol: float = 1e-08, equal_nan: bool = False) -> Tensor:
    """Bool tensor: ``|self - other| <= atol + rtol * |other|`` elementwise, or equal (infinities
    of one sign are close; NaN is close to NaN only with ``equal_nan``). Inputs broadcast and must
    have one dtype, as in PyTorch."""
    _check_tensor(self, "isclose", "input")
    _check_tensor(other, "isclose", "other")
    if self.dtype != other.dtype:
        raise _C.DTypeError(f"isclose(): {self.dtype} did not match {other.dtype} (both inputs must have one dtype)")
    if not rtol >= 0:
        raise _C.ArgumentError(f"isclose(): rtol must be greater than or equal to zero, but got {rtol}")
    if not atol >= 0:
        raise _C.ArgumentError(f"isclose(): atol must be greater than or equal to zero, but got {atol}")
    close = self == other
    if equal_nan and self.dtype.is_floating_point:
        close = close | (self.isnan() & other.isnan())
    if rtol == 0 and atol == 0:
        return close
    if self.dtype == _C.dtype.bool:  # PyTorch computes the error of bools in the default dtype
        self, other = self.float(), other.float()
    allowed = (other * rtol).abs() + atol
    actual = (self - other).abs()
    return close | (actual.isfinite() & (actual <= allowed))


def allclose(self: Tensor, other: Tensor, rtol: float = 1e-05, atol: float = 1e-08, equal_nan: bool = False) -> bool:
    """Whether every element of ``isclose(self, other, ...)`` is True (a Python bool)."""
    return bool(isclose(self, other, rtol, atol, equal_nan).all().item())


def equal(self: Tensor, other: Tensor) -> bool:
    """True when both tensors have the same shape and the same values (NaN equals nothing), as
    ``torch.equal``; values of different dtypes are compared after type promotion."""
    _check_tensor(self, "equal", "input")
    _check_tensor(other, "equal", "other")
    if self.device != other.device:
        raise RuntimeError(f"equal(): expected both tensors on one device, got {self.device} and {other.device}")
    if tuple(self.shape) != tuple(other.shape):
        return False
    return bool((self == other).all().item())


def install() -> None:
    """Attach isclose, allclose and equal to the Tensor class."""
    Tensor.isclose = isclose
    Tensor.allclose = allclose
    Tensor.equal = equal
