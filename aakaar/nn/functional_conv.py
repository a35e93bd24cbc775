"""2-d convolution and pooling: ``conv2d``, ``max_pool2d``, ``avg_pool2d``, ``adaptive_avg_pool2d``.

Each is one op of the compiled core (``csrc/ops/conv.cpp``) with one autograd node; the backend
entries ``conv2d``, ``conv2d_backward``, ``max_pool2d``, ``avg_pool2d`` and
``avg_pool2d_backward`` hold the kernels (the CPU's in ``csrc/cpu/fused/conv2d*.cpp``). This
module only turns PyTorch's flexible arguments (an int or a pair, ``'same'``/``'valid'``) into
the fixed tuples the core takes, raising PyTorch's errors for those it refuses.
"""

from __future__ import annotations

from typing import Sequence, Union

from .. import _C
from .._C import Tensor

__all__ = ["conv2d", "max_pool2d", "avg_pool2d", "adaptive_avg_pool2d"]

IntPair = Union[int, Sequence[int]]


def _pair(value: IntPair, name: str, fn: str) -> tuple[int, int]:
    """``value`` as two ints: an int is repeated; a sequence must hold one or two ints (torch's rule)."""
    if isinstance(value, bool):
        raise TypeError(f"{fn}(): {name} must be an int or a tuple of 2 ints, got {value!r}")
    if isinstance(value, int):
        return value, value
    if isinstance(value, Sequence) and not isinstance(value, str):
        items = tuple(value)
        if all(isinstance(v, int) and not isinstance(v, bool) for v in items):
            if len(items) == 2:
                return items[0], items[1]
            if len(items) == 1:
                return items[0], items[0]
        raise _C.ArgumentError(
            f"{fn}(): expected {name} to be a single integer value or a list of 2 values to match the "
            f"convolution dimensions, but got {name}={list(items)}"
        )
    raise TypeError(f"{fn}(): {name} must be an int or a tuple of 2 ints, got {type(value).__name__}")


def _check_tensor(x: object, fn: str, name: str = "input") -> None:
    if not isinstance(x, Tensor):
        raise TypeError(f"{fn}(): {name} must be an aakaar.Tensor, got {type(x).__name__}")


def conv2d(
    input: Tensor,
    weight: Tensor,
    bias: Tensor | None = None,
    stride: IntPair = 1,
    padding: IntPair | str = 0,
    dilation: IntPair = 1,
    groups: int = 1,
) -> Tensor:
    """2-d convolution (cross-correlation, as PyTorch) of ``input`` (N, C, H, W) or (C, H, W) with
    ``weight`` (out_channels, C / groups, kH, kW), plus ``bias`` (out_channels,).

    ``padding`` is an int, a pair, ``'valid'`` (none) or ``'same'`` (output as large as the input;
    stride 1 only). With an even dilated kernel, ``'same'`` pads one more zero after than before,
    as PyTorch does.
    """
    _check_tensor(input, "conv2d")
    _check_tensor(weight, "conv2d", "weight")
    if bias is not None:
        _check_tensor(bias, "conv2d", "bias")
    s = _pair(stride, "stride", "conv2d")
    d = _pair(dilation, "dilation", "conv2d")
    if isinstance(groups, bool) or not isinstance(groups, int):
        raise TypeError(f"conv2d(): groups must be an int, got {groups!r}")
    if isinstance(padding, str):
        if padding == "valid":
            pads = (0, 0, 0, 0)
        elif padding == "same":
            if s != (1, 1):
                raise _C.ArgumentError("conv2d(): padding='same' is not supported for strided convolutions")
            if weight.ndim != 4:
                raise _C.ArgumentError(f"conv2d(): expected a 4-d weight, got weight of size {list(weight.shape)}")
            pads_hw = []
            for k, dil in zip(weight.shape[2:], d):
                total = dil * (k - 1)
                pads_hw.append((total // 2, total - total // 2))
            pads = (*pads_hw[0], *pads_hw[1])
        else:
            raise _C.ArgumentError(f"Invalid padding string: {padding!r}, should be one of {{'valid', 'same'}}")
    else:
        ph, pw = _pair(padding, "padding", "conv2d")
        pads = (ph, ph, pw, pw)
    return _C.conv2d(input, weight, bias, s, pads, d, groups)


def _pool_args(
    fn: str, kernel_size: IntPair, stride: IntPair | None, padding: IntPair
) -> tuple[tuple[int, int], tuple[int, int], tuple[int, int]]:
    k = _pair(kernel_size, "kernel_size", fn)
    # stride=None (or an empty list, as torch accepts) means the kernel size
    if stride is None or (isinstance(stride, Sequence) and len(stride) == 0):
        s = k
    else:
        s = _pair(stride, "stride", fn)
    return k, s, _pair(padding, "padding", fn)


def max_pool2d(
    input: Tensor,
    kernel_size: IntPair,
    stride: IntPair | None = None,
    padding: IntPair = 0,
    dilation: IntPair = 1,
    ceil_mode: bool = False,
    return_indices: bool = False,
) -> Tensor | tuple[Tensor, Tensor]:
    """The largest value of each window (PyTorch's rules: the first of equal maxima, NaN wins).

    With ``return_indices=True`` also the int64 position of each maximum in its H*W plane.
    """
    _check_tensor(input, "max_pool2d")
    k, s, p = _pool_args("max_pool2d", kernel_size, stride, padding)
    d = _pair(dilation, "dilation", "max_pool2d")
    out, indices = _C.max_pool2d(input, k, s, p, d, bool(ceil_mode))
    return (out, indices) if return_indices else out


def avg_pool2d(
    input: Tensor,
    kernel_size: IntPair,
    stride: IntPair | None = None,
    padding: IntPair = 0,
    ceil_mode: bool = False,
    count_include_pad: bool = True,
    divisor_override: int | None = None,
) -> Tensor:
    """The mean of each window. ``count_include_pad`` counts padded zeros in the divisor;
    ``divisor_override`` replaces the divisor altogether."""
    _check_tensor(input, "avg_pool2d")
    k, s, p = _pool_args("avg_pool2d", kernel_size, stride, padding)
    if divisor_override is None:
        div = 0
    elif isinstance(divisor_override, bool) or not isinstance(divisor_override, int):
        raise TypeError(f"avg_pool2d(): divisor_override must be an int or None, got {divisor_override!r}")
    elif divisor_override == 0:
        raise _C.ArgumentError("avg_pool2d(): divisor must be not zero")
    else:
        div = divisor_override
    return _C.avg_pool2d(input, k, s, p, bool(ceil_mode), bool(count_include_pad), div)


def adaptive_avg_pool2d(input: Tensor, output_size: IntPair | Sequence[int | None]) -> Tensor:
    """Average pooling to a fixed output size (None keeps the input's size in that dim).

    When the input size is a multiple of the output size every window has the same size and
    stride, and this is ``avg_pool2d``; otherwise PyTorch's windows (start floor(i H / Ho),
    end ceil((i + 1) H / Ho)) overlap unevenly and are averaged one by one.
    """
    _check_tensor(input, "adaptive_avg_pool2d")
    if input.ndim not in (3, 4):
        raise _C.ArgumentError(
            f"adaptive_avg_pool2d(): expected 3D or 4D tensor, but got input of size {list(input.shape)}"
        )
    H, W = input.shape[-2], input.shape[-1]
    if isinstance(output_size, int) and not isinstance(output_size, bool):
        size = (output_size, output_size)
    else:
        items = tuple(output_size)
        if len(items) != 2:
            raise _C.ArgumentError(f"adaptive_avg_pool2d(): output_size must be 2, got {list(items)}")
        size = (H if items[0] is None else items[0], W if items[1] is None else items[1])
    Ho, Wo = size
    if Ho < 0 or Wo < 0 or any(s == 0 for s in input.shape[-3:]):
        raise _C.ArgumentError(
            f"adaptive_avg_pool2d(): elements of output_size must be greater than or equal to 0 and the input "
            f"must have non-zero non-batch dims, got output_size={size} for input of size {list(input.shape)}"
        )
    if Ho > 0 and Wo > 0 and H % Ho == 0 and W % Wo == 0:
        return avg_pool2d(input, (H // Ho, W // Wo), (H // Ho, W // Wo))
    rows = []
    for i in range(Ho):
        h0, h1 = (i * H) // Ho, -((-(i + 1) * H) // Ho)
        cols = []
        for j in range(Wo):
            w0, w1 = (j * W) // Wo, -((-(j + 1) * W) // Wo)
            cols.append(input[..., h0:h1, w0:w1].mean((-2, -1)))
        rows.append(_C.stack(cols, -1))
    return _C.stack(rows, -2)
