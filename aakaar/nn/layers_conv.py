"""Convolution and pooling layers: ``Conv1d``/``2d``/``3d``, ``ConvTranspose1d``/``2d``/``3d``,
``MaxPool1d``/``2d``, ``AvgPool1d``/``2d``, adaptive average and max pooling, ``MaxUnpool1d``/``2d``.

Same arguments, attributes, initialisation, ``state_dict`` names (``weight``, ``bias``) and
printed form as ``torch.nn``; each ``forward`` is one call into :mod:`aakaar.nn.functional`.
"""

from __future__ import annotations

import math
from typing import Callable, Sequence, Union

from .. import _C
from .._C import Tensor
from . import functional as F
from . import init
from .functional_conv import _same_pads
from .layers import _dtype
from .module import Module
from .parameter import Parameter

__all__ = [
    "Conv1d", "Conv2d", "Conv3d", "ConvTranspose1d", "ConvTranspose2d", "ConvTranspose3d", "MaxPool1d", "MaxPool2d", "AvgPool1d",
    "AvgPool2d", "AdaptiveAvgPool1d", "AdaptiveAvgPool2d", "AdaptiveMaxPool1d", "AdaptiveMaxPool2d", "MaxUnpool1d",
    "MaxUnpool2d",
]

IntPair = Union[int, Sequence[int]]
PADDING_MODES = ("zeros", "reflect", "replicate", "circular")


def _ntuple(value: IntPair, n: int, name: str, layer: str = "Conv") -> tuple[int, ...]:
    if isinstance(value, int) and not isinstance(value, bool):
        return (value,) * n
    items = tuple(value)
    if len(items) != n or not all(isinstance(v, int) and not isinstance(v, bool) for v in items):
        raise ValueError(f"{layer}: {name} must be an int or a tuple of {n} ints, got {value!r}")
    return items


class _ConvNd(Module):
    """An n-d convolution (n = 1, 2, 3) or, with ``transposed``, its transpose: weight
    (out_channels, in_channels / groups, *kernel_size), or (in_channels, out_channels / groups,
    *kernel_size) when transposed; bias (out_channels,).

    Initialised like PyTorch: ``kaiming_uniform_(weight, a=sqrt(5))`` and the bias
    U(±1/sqrt(fan_in)), fan_in = weight.shape[1] * prod(kernel_size). A ``padding_mode`` other
    than ``'zeros'`` pads with ``F.pad`` first and convolves without padding, as PyTorch does.
    """

    _n = 2
    _transposed = False

    def __init__(
        self,
        in_channels: int,
        out_channels: int,
        kernel_size: IntPair,
        stride: IntPair = 1,
        padding: IntPair | str = 0,
        dilation: IntPair = 1,
        groups: int = 1,
        bias: bool = True,
        padding_mode: str = "zeros",
        dtype: _C.dtype | None = None,
        output_padding: IntPair = 0,
    ) -> None:
        super().__init__()
        n, name = self._n, type(self).__name__
        if not isinstance(groups, int) or isinstance(groups, bool) or groups <= 0:
            raise ValueError("groups must be a positive integer")
        if in_channels % groups != 0:
            raise ValueError("in_channels must be divisible by groups")
        if out_channels % groups != 0:
            raise ValueError("out_channels must be divisible by groups")
        self.kernel_size = _ntuple(kernel_size, n, "kernel_size", name)
        self.stride = _ntuple(stride, n, "stride", name)
        self.dilation = _ntuple(dilation, n, "dilation", name)
        if isinstance(padding, str):
            if padding not in ("same", "valid"):
                raise ValueError(f"Invalid padding string {padding!r}, should be one of {{'valid', 'same'}}")
            if padding == "same" and any(s != 1 for s in self.stride):
                raise ValueError("padding='same' is not supported for strided convolutions")
            self.padding: tuple[int, ...] | str = padding
        else:
            self.padding = _ntuple(padding, n, "padding", name)
        if padding_mode not in PADDING_MODES:
            raise ValueError(f"padding_mode must be one of {list(PADDING_MODES)}, but got padding_mode='{padding_mode}'")
        if self._transposed and padding_mode != "zeros":
            raise ValueError(f'Only "zeros" padding mode is supported for {name}')
        self.output_padding = _ntuple(output_padding, n, "output_padding", name)
        self.transposed = self._transposed
        self.in_channels, self.out_channels, self.groups = in_channels, out_channels, groups
        self.padding_mode = padding_mode
        # F.pad's amounts for the other padding modes: (before, after) for the last dim first
        if isinstance(self.padding, str):
            same = _same_pads(self.kernel_size, self.dilation) if self.padding == "same" else (0,) * (2 * n)
            self._reversed_padding_repeated_twice = tuple(
                v for i in reversed(range(n)) for v in (same[2 * i], same[2 * i + 1]))
        else:
            self._reversed_padding_repeated_twice = tuple(v for p in reversed(self.padding) for v in (p, p))
        dt = _dtype(dtype)
        shape = (in_channels, out_channels // groups) if self._transposed else (out_channels, in_channels // groups)
        self.weight = Parameter(_C.empty(*shape, *self.kernel_size, dtype=dt))
        if bias:
            self.bias = Parameter(_C.empty(out_channels, dtype=dt))
        else:
            self.register_parameter("bias", None)
        self.reset_parameters()

    def reset_parameters(self) -> None:
        fan_in = self.weight.shape[1] * math.prod(self.kernel_size)
        if self.weight.numel() == 0:
            init.zeros_(self.weight)
        else:
            init.kaiming_uniform_(self.weight, a=math.sqrt(5))
        if self.bias is not None and fan_in != 0:
            bound = 1.0 / math.sqrt(fan_in)
            init.uniform_(self.bias, -bound, bound)

    def _conv(self) -> Callable[..., Tensor]:
        return (F.conv1d, F.conv2d, F.conv3d)[self._n - 1]

    def forward(self, input: Tensor) -> Tensor:
        weight, bias = self._param("weight"), self._param("bias")
        if self.padding_mode != "zeros":
            padded = F.pad(input, self._reversed_padding_repeated_twice, mode=self.padding_mode)
            return self._conv()(padded, weight, bias, self.stride, 0, self.dilation, self.groups)
        return self._conv()(input, weight, bias, self.stride, self.padding, self.dilation, self.groups)

    def extra_repr(self) -> str:
        n = self._n
        s = f"{self.in_channels}, {self.out_channels}, kernel_size={self.kernel_size}, stride={self.stride}"
        if self.padding != (0,) * n:
            s += f", padding={self.padding}"
        if self.dilation != (1,) * n:
            s += f", dilation={self.dilation}"
        if self.output_padding != (0,) * n:
            s += f", output_padding={self.output_padding}"
        if self.groups != 1:
            s += f", groups={self.groups}"
        if self.bias is None:
            s += ", bias=False"
        if self.padding_mode != "zeros":
            s += f", padding_mode={self.padding_mode}"
        return s


def _conv_init(n: int):
    def __init__(
        self,
        in_channels: int,
        out_channels: int,
        kernel_size: IntPair,
        stride: IntPair = 1,
        padding: IntPair | str = 0,
        dilation: IntPair = 1,
        groups: int = 1,
        bias: bool = True,
        padding_mode: str = "zeros",
        dtype: _C.dtype | None = None,
    ) -> None:
        _ConvNd.__init__(self, in_channels, out_channels, kernel_size, stride, padding, dilation, groups, bias,
                         padding_mode, dtype)
    return __init__


class Conv1d(_ConvNd):
    """1-d convolution of (N, C, L): weight (out_channels, in_channels / groups, k)."""

    _n = 1
    __init__ = _conv_init(1)


class Conv2d(_ConvNd):
    """2-d convolution: weight (out_channels, in_channels / groups, *kernel_size), bias (out_channels,).

    Initialised like PyTorch: ``kaiming_uniform_(weight, a=sqrt(5))`` and the bias
    U(±1/sqrt(fan_in)), fan_in = in_channels / groups * kH * kW.
    """

    _n = 2
    __init__ = _conv_init(2)


class Conv3d(_ConvNd):
    """3-d convolution of (N, C, D, H, W): weight (out_channels, in_channels / groups, kD, kH, kW)."""

    _n = 3
    __init__ = _conv_init(3)


class _ConvTransposeNd(_ConvNd):
    """Transposed convolution: weight (in_channels, out_channels / groups, *kernel_size).
    ``forward(input, output_size)`` picks the output_padding that gives that size, as PyTorch."""

    _transposed = True

    def __init__(
        self,
        in_channels: int,
        out_channels: int,
        kernel_size: IntPair,
        stride: IntPair = 1,
        padding: IntPair = 0,
        output_padding: IntPair = 0,
        groups: int = 1,
        bias: bool = True,
        dilation: IntPair = 1,
        padding_mode: str = "zeros",
        dtype: _C.dtype | None = None,
    ) -> None:
        if isinstance(padding, str):
            raise ValueError(f'{type(self).__name__}: padding must be an int or a tuple of ints, got "{padding}"')
        super().__init__(in_channels, out_channels, kernel_size, stride, padding, dilation, groups, bias,
                         padding_mode, dtype, output_padding)

    def _output_padding(self, input: Tensor, output_size: Sequence[int] | None) -> tuple[int, ...]:
        """PyTorch's _output_padding: the output_padding that makes the output output_size."""
        n = self._n
        if output_size is None:
            return self.output_padding  # type: ignore[return-value]
        non_spatial = 2 if input.ndim == n + 2 else 1
        size = list(output_size)
        if len(size) == non_spatial + n:
            size = size[non_spatial:]
        if len(size) != n:
            raise ValueError(
                f"ConvTranspose{n}D: for {input.ndim}D input, output_size must have {n} or {non_spatial + n} "
                f"elements (got {len(size)})"
            )
        mins = [(input.shape[d + non_spatial] - 1) * self.stride[d] - 2 * self.padding[d]  # type: ignore[index]
                + self.dilation[d] * (self.kernel_size[d] - 1) + 1 for d in range(n)]
        maxs = [mins[d] + self.stride[d] - 1 for d in range(n)]
        for d in range(n):
            if not mins[d] <= size[d] <= maxs[d]:
                raise ValueError(
                    f"requested an output size of {size}, but valid sizes range from {mins} to {maxs} (for an input "
                    f"of {list(input.shape[non_spatial:])})"
                )
        return tuple(size[d] - mins[d] for d in range(n))

    def forward(self, input: Tensor, output_size: Sequence[int] | None = None) -> Tensor:
        fn = (F.conv_transpose1d, F.conv_transpose2d, F.conv_transpose3d)[self._n - 1]
        return fn(input, self._param("weight"), self._param("bias"), self.stride, self.padding,
                  self._output_padding(input, output_size), self.groups, self.dilation)


class ConvTranspose1d(_ConvTransposeNd):
    """Transposed 1-d convolution (the gradient of Conv1d with respect to its input)."""

    _n = 1


class ConvTranspose2d(_ConvTransposeNd):
    """Transposed 2-d convolution (the gradient of Conv2d with respect to its input)."""

    _n = 2


class ConvTranspose3d(_ConvTransposeNd):
    """Transposed 3-d convolution (the gradient of Conv3d with respect to its input)."""

    _n = 3


class MaxPool2d(Module):
    """The largest value of each window (``F.max_pool2d``); ``stride`` defaults to ``kernel_size``."""

    def __init__(
        self,
        kernel_size: IntPair,
        stride: IntPair | None = None,
        padding: IntPair = 0,
        dilation: IntPair = 1,
        return_indices: bool = False,
        ceil_mode: bool = False,
    ) -> None:
        super().__init__()
        self.kernel_size = kernel_size
        self.stride = stride if stride is not None else kernel_size
        self.padding, self.dilation = padding, dilation
        self.return_indices, self.ceil_mode = return_indices, ceil_mode

    def forward(self, input: Tensor) -> Tensor | tuple[Tensor, Tensor]:
        return F.max_pool2d(input, self.kernel_size, self.stride, self.padding, self.dilation,
                            ceil_mode=self.ceil_mode, return_indices=self.return_indices)

    def extra_repr(self) -> str:
        return (f"kernel_size={self.kernel_size}, stride={self.stride}, padding={self.padding}, "
                f"dilation={self.dilation}, ceil_mode={self.ceil_mode}")


class AvgPool2d(Module):
    """The mean of each window (``F.avg_pool2d``); ``stride`` defaults to ``kernel_size``."""

    def __init__(
        self,
        kernel_size: IntPair,
        stride: IntPair | None = None,
        padding: IntPair = 0,
        ceil_mode: bool = False,
        count_include_pad: bool = True,
        divisor_override: int | None = None,
    ) -> None:
        super().__init__()
        self.kernel_size = kernel_size
        self.stride = stride if stride is not None else kernel_size
        self.padding, self.ceil_mode = padding, ceil_mode
        self.count_include_pad, self.divisor_override = count_include_pad, divisor_override

    def forward(self, input: Tensor) -> Tensor:
        return F.avg_pool2d(input, self.kernel_size, self.stride, self.padding, self.ceil_mode,
                            self.count_include_pad, self.divisor_override)

    def extra_repr(self) -> str:
        return f"kernel_size={self.kernel_size}, stride={self.stride}, padding={self.padding}"


class AdaptiveAvgPool2d(Module):
    """Average pooling to a fixed output size (``F.adaptive_avg_pool2d``)."""

    def __init__(self, output_size: IntPair | Sequence[int | None]) -> None:
        super().__init__()
        self.output_size = output_size

    def forward(self, input: Tensor) -> Tensor:
        return F.adaptive_avg_pool2d(input, self.output_size)

    def extra_repr(self) -> str:
        return f"output_size={self.output_size}"


class MaxPool1d(MaxPool2d):
    """The largest value of each window of (N, C, L) (``F.max_pool1d``)."""

    def forward(self, input: Tensor) -> Tensor | tuple[Tensor, Tensor]:
        return F.max_pool1d(input, self.kernel_size, self.stride, self.padding, self.dilation,
                            ceil_mode=self.ceil_mode, return_indices=self.return_indices)


class AvgPool1d(Module):
    """The mean of each window of (N, C, L) (``F.avg_pool1d``); sizes kept as 1-tuples, as PyTorch."""

    def __init__(
        self, kernel_size: IntPair, stride: IntPair | None = None, padding: IntPair = 0, ceil_mode: bool = False,
        count_include_pad: bool = True,
    ) -> None:
        super().__init__()
        self.kernel_size = _ntuple(kernel_size, 1, "kernel_size", "AvgPool1d")
        self.stride = _ntuple(stride if stride is not None else kernel_size, 1, "stride", "AvgPool1d")
        self.padding = _ntuple(padding, 1, "padding", "AvgPool1d")
        self.ceil_mode, self.count_include_pad = ceil_mode, count_include_pad

    def forward(self, input: Tensor) -> Tensor:
        return F.avg_pool1d(input, self.kernel_size, self.stride, self.padding, self.ceil_mode, self.count_include_pad)

    def extra_repr(self) -> str:
        return f"kernel_size={self.kernel_size}, stride={self.stride}, padding={self.padding}"


class AdaptiveAvgPool1d(AdaptiveAvgPool2d):
    """Average pooling of (N, C, L) to a fixed length (``F.adaptive_avg_pool1d``)."""

    def forward(self, input: Tensor) -> Tensor:
        return F.adaptive_avg_pool1d(input, self.output_size)


class AdaptiveMaxPool2d(Module):
    """Max pooling to a fixed output size (``F.adaptive_max_pool2d``)."""

    def __init__(self, output_size: IntPair | Sequence[int | None], return_indices: bool = False) -> None:
        super().__init__()
        self.output_size, self.return_indices = output_size, return_indices

    def forward(self, input: Tensor) -> Tensor | tuple[Tensor, Tensor]:
        return F.adaptive_max_pool2d(input, self.output_size, self.return_indices)

    def extra_repr(self) -> str:
        return f"output_size={self.output_size}"


class AdaptiveMaxPool1d(AdaptiveMaxPool2d):
    """Max pooling of (N, C, L) to a fixed length (``F.adaptive_max_pool1d``)."""

    def forward(self, input: Tensor) -> Tensor | tuple[Tensor, Tensor]:
        return F.adaptive_max_pool1d(input, self.output_size, self.return_indices)


class _MaxUnpoolNd(Module):
    _n = 2

    def __init__(self, kernel_size: IntPair, stride: IntPair | None = None, padding: IntPair = 0) -> None:
        super().__init__()
        name = type(self).__name__
        self.kernel_size = _ntuple(kernel_size, self._n, "kernel_size", name)
        self.stride = _ntuple(stride if stride is not None else kernel_size, self._n, "stride", name)
        self.padding = _ntuple(padding, self._n, "padding", name)

    def forward(self, input: Tensor, indices: Tensor, output_size: Sequence[int] | None = None) -> Tensor:
        fn = F.max_unpool1d if self._n == 1 else F.max_unpool2d
        return fn(input, indices, self.kernel_size, self.stride, self.padding, output_size)

    def extra_repr(self) -> str:
        return f"kernel_size={self.kernel_size}, stride={self.stride}, padding={self.padding}"


class MaxUnpool1d(_MaxUnpoolNd):
    """The partial inverse of MaxPool1d (``F.max_unpool1d``)."""

    _n = 1


class MaxUnpool2d(_MaxUnpoolNd):
    """The partial inverse of MaxPool2d (``F.max_unpool2d``)."""

    _n = 2
