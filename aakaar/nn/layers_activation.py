"""Activation layers beyond ReLU/GELU/SiLU/... (``layers.py``): each forward is one call
into :mod:`aakaar.nn.functional`, with PyTorch's constructor arguments and ``extra_repr``.
"""

from __future__ import annotations

from .. import _C
from .._C import Tensor
from . import functional as F
from .layers import _InplaceActivation
from .module import Module
from .parameter import Parameter

__all__ = [
    "Hardsigmoid", "Hardswish", "Hardtanh", "ReLU6", "Softsign", "Mish", "CELU", "SELU", "PReLU", "GLU",
    "LogSigmoid", "Softmin", "Tanhshrink", "Softshrink", "Hardshrink", "Threshold",
]


class Hardsigmoid(_InplaceActivation):
    fn = staticmethod(F.hardsigmoid)


class Hardswish(_InplaceActivation):
    fn = staticmethod(F.hardswish)


class Mish(_InplaceActivation):
    fn = staticmethod(F.mish)


class SELU(_InplaceActivation):
    fn = staticmethod(F.selu)


class ReLU6(_InplaceActivation):
    fn = staticmethod(F.relu6)


class Hardtanh(Module):
    def __init__(self, min_val: float = -1.0, max_val: float = 1.0, inplace: bool = False) -> None:
        super().__init__()
        if min_val > max_val:
            raise ValueError("min_val cannot be greater than max_val")
        self.min_val, self.max_val, self.inplace = min_val, max_val, inplace

    def forward(self, input: Tensor) -> Tensor:
        return F.hardtanh(input, self.min_val, self.max_val, self.inplace)

    def extra_repr(self) -> str:
        return f"min_val={self.min_val}, max_val={self.max_val}" + (", inplace=True" if self.inplace else "")


class CELU(Module):
    def __init__(self, alpha: float = 1.0, inplace: bool = False) -> None:
        super().__init__()
        self.alpha, self.inplace = alpha, inplace

    def forward(self, input: Tensor) -> Tensor:
        return F.celu(input, self.alpha, self.inplace)

    def extra_repr(self) -> str:
        return f"alpha={self.alpha}" + (", inplace=True" if self.inplace else "")


class Threshold(Module):
    def __init__(self, threshold: float, value: float, inplace: bool = False) -> None:
        super().__init__()
        self.threshold, self.value, self.inplace = threshold, value, inplace

    def forward(self, input: Tensor) -> Tensor:
        return F.threshold(input, self.threshold, self.value, self.inplace)

    def extra_repr(self) -> str:
        return f"threshold={self.threshold}, value={self.value}" + (", inplace=True" if self.inplace else "")


class _Plain(Module):
    def forward(self, input: Tensor) -> Tensor:
        return type(self).fn(input)


class Softsign(_Plain):
    fn = staticmethod(F.softsign)


class LogSigmoid(_Plain):
    fn = staticmethod(F.logsigmoid)


class Tanhshrink(_Plain):
    fn = staticmethod(F.tanhshrink)


class Softshrink(Module):
    def __init__(self, lambd: float = 0.5) -> None:
        super().__init__()
        self.lambd = lambd

    def forward(self, input: Tensor) -> Tensor:
        return F.softshrink(input, self.lambd)

    def extra_repr(self) -> str:
        return str(self.lambd)


class Hardshrink(Softshrink):
    def forward(self, input: Tensor) -> Tensor:
        return F.hardshrink(input, self.lambd)


class GLU(Module):
    def __init__(self, dim: int = -1) -> None:
        super().__init__()
        self.dim = dim

    def forward(self, input: Tensor) -> Tensor:
        return F.glu(input, self.dim)

    def extra_repr(self) -> str:
        return f"dim={self.dim}"


class Softmin(Module):
    def __init__(self, dim: int | None = None) -> None:
        super().__init__()
        self.dim = dim

    def forward(self, input: Tensor) -> Tensor:
        return F.softmin(input, self.dim)

    def extra_repr(self) -> str:
        return f"dim={self.dim}"


class PReLU(Module):
    """``x`` for ``x > 0``, else ``weight * x``: one learnt slope, or one per channel
    (``num_parameters`` = the input's dim 1), initialised to ``init`` (0.25) as in PyTorch."""

    def __init__(self, num_parameters: int = 1, init: float = 0.25, device: object = None,
                 dtype: _C.dtype | None = None) -> None:
        super().__init__()
        if isinstance(num_parameters, bool) or not isinstance(num_parameters, int) or num_parameters < 1:
            raise ValueError(f"PReLU: num_parameters must be a positive int, got {num_parameters!r}")
        dt = _C._get_default_dtype() if dtype is None else dtype
        if not dt.is_floating_point:
            raise TypeError(f"layer parameters must be floating point, got dtype={dt!r}")
        self.num_parameters = num_parameters
        self.init = init
        weight = _C.full((num_parameters,), float(init), dtype=dt)
        if device is not None:
            weight = weight.to(device)
        self.weight = Parameter(weight)

    def reset_parameters(self) -> None:
        from ..autograd import no_grad

        with no_grad():
            self.weight.fill_(self.init)

    def forward(self, input: Tensor) -> Tensor:
        return F.prelu(input, self.weight)

    def extra_repr(self) -> str:
        return f"num_parameters={self.num_parameters}"
