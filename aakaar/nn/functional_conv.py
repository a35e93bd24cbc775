"""Convolution and 2-d pooling: ``conv1d``, ``conv2d``, ``conv3d``, ``conv_transpose1d``,
``conv_transpose2d``, ``max_pool2d``, ``avg_pool2d``, ``adaptive_avg_pool2d``.

conv2d and the 2-d poolings are each one op of the compiled core (``csrc/ops/conv.cpp``) with one
autograd node; the backend entries ``conv2d``, ``conv2d_backward``, ``max_pool2d``, ``avg_pool2d``
and ``avg_pool2d_backward`` hold the kernels (the CPU's in ``csrc/cpu/fused/conv2d*.cpp``). The
rest reuse them: conv1d is conv2d one row high; conv3d unrolls its depth into channels and is one
conv2d; the transposed convolutions are conv2d's input gradient (``_C.conv2d_input_grad``, the
``conv2d_backward`` kernel run forward). This module turns PyTorch's flexible arguments (an int or
a tuple, ``'same'``/``'valid'``) into the fixed tuples the core takes, raising PyTorch's errors for
those it refuses.
"""

from __future__ import annotations

from typing import Sequence, Union

from .. import _C
from .._C import Tensor

__all__ = [
    "conv1d", "conv2d", "conv3d", "conv_transpose1d", "conv_transpose2d", "conv_transpose3d", "max_pool2d",
    "avg_pool2d", "adaptive_avg_pool2d",
]

IntPair = Union[int, Sequence[int]]


def _ntuple(value: IntPair, n: int, name: str, fn: str) -> tuple[int, ...]:
    """``value`` as n ints: an int is repeated; a sequence must hold one or n ints (torch's rule)."""
    if isinstance(value, bool):
        raise TypeError(f"{fn}(): {name} must be an int or a tuple of {n} ints, got {value!r}")
    if isinstance(value, int):
        return (value,) * n
    if isinstance(value, Sequence) and not isinstance(value, str):
        items = tuple(value)
        if all(isinstance(v, int) and not isinstance(v, bool) for v in items):
            if len(items) == n:
                return items
            if len(items) == 1:
                return items * n
        raise _C.ArgumentError(
            f"{fn}(): expected {name} to be a single integer value or a list of {n} values to match the "
            f"convolution dimensions, but got {name}={list(items)}"
        )
    raise TypeError(f"{fn}(): {name} must be an int or a tuple of {n} ints, got {type(value).__name__}")


def _pair(value: IntPair, name: str, fn: str) -> tuple[int, int]:
    """``value`` as two ints: an int is repeated; a sequence must hold one or two ints (torch's rule)."""
    return _ntuple(value, 2, name, fn)  # type: ignore[return-value]


def _check_tensor(x: object, fn: str, name: str = "input") -> None:
    if not isinstance(x, Tensor):
        raise TypeError(f"{fn}(): {name} must be an aakaar.Tensor, got {type(x).__name__}")


def _same_pads(kernel: Sequence[int], dilation: Sequence[int]) -> tuple[int, ...]:
    """Padding (before, after) per spatial dim that keeps the size: with an even dilated kernel
    one more zero goes after than before, as PyTorch does."""
    pads: list[int] = []
    for k, dil in zip(kernel, dilation):
        total = dil * (k - 1)
        pads += [total // 2, total - total // 2]
    return tuple(pads)


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
            pads = _same_pads(weight.shape[2:], d)
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


# ---- conv1d, conv3d and the transposed convolutions: the conv2d machinery, reshaped. ----


def _check_conv_nd(
    input: Tensor, weight: Tensor, bias: Tensor | None, n: int, groups: int, fn: str, transposed: bool = False
) -> None:
    """PyTorch's checks of an n-d (transposed) convolution's operands, with its messages, before
    the operands are reshaped for conv2d (whose own messages would name the reshaped sizes)."""
    _check_tensor(input, fn)
    _check_tensor(weight, fn, "weight")
    if bias is not None:
        _check_tensor(bias, fn, "bias")
    if isinstance(groups, bool) or not isinstance(groups, int):
        raise TypeError(f"{fn}(): groups must be an int, got {groups!r}")
    if input.ndim not in (n + 1, n + 2):
        raise _C.ArgumentError(
            f"{fn}: Expected {n + 1}D (unbatched) or {n + 2}D (batched) input to {fn}, but got input of size: "
            f"{list(input.shape)}"
        )
    if weight.ndim != n + 2:
        raise _C.ArgumentError(f"{fn}: expected a {n + 2}-d weight, got weight of size {list(weight.shape)}")
    if groups <= 0:
        raise _C.ArgumentError(f"{fn}: non-positive groups is not supported, got groups={groups}")
    if weight.shape[0] % groups != 0:
        raise _C.ArgumentError(
            f"{fn}: Given groups={groups}, expected weight to be divisible by {groups} at dimension 0, but got "
            f"weight of size {list(weight.shape)} instead"
        )
    channels = input.shape[0 if input.ndim == n + 1 else 1]
    want = weight.shape[0] if transposed else weight.shape[1] * groups
    if channels != want:
        what = "transposed=1, " if transposed else ""
        raise _C.ArgumentError(
            f"{fn}: Given {what}groups={groups}, weight of size {list(weight.shape)}, expected input"
            f"{list(input.shape)} to have {want} channels, but got {channels} channels instead"
        )
    out_channels = weight.shape[1] * groups if transposed else weight.shape[0]
    if bias is not None and (bias.ndim != 1 or bias.shape[0] != out_channels):
        raise _C.ArgumentError(
            f"{fn}: Given weight of size {list(weight.shape)}, expected bias to be 1-dimensional with "
            f"{out_channels} elements, but got bias of size {list(bias.shape)} instead"
        )


def _check_geometry(fn: str, stride: Sequence[int], pads: Sequence[int], dilation: Sequence[int]) -> None:
    if any(v <= 0 for v in stride):
        raise _C.ArgumentError(f"{fn}: non-positive stride is not supported, got stride={tuple(stride)}")
    if any(v < 0 for v in pads):
        raise _C.ArgumentError(f"{fn}: negative padding is not supported, got padding={tuple(pads)}")
    if any(v <= 0 for v in dilation):
        raise _C.ArgumentError(f"{fn}: dilation should be greater than zero, got dilation={tuple(dilation)}")


def _conv_pads(
    fn: str, n: int, weight: Tensor, stride: tuple[int, ...], padding: IntPair | str, dilation: tuple[int, ...]
) -> tuple[int, ...]:
    """Padding (before, after) per spatial dim from an int, a tuple, 'valid' or 'same'."""
    if isinstance(padding, str):
        if padding == "valid":
            return (0,) * (2 * n)
        if padding == "same":
            if any(v != 1 for v in stride):
                raise _C.ArgumentError(f"{fn}(): padding='same' is not supported for strided convolutions")
            return _same_pads(weight.shape[2:], dilation)
        raise _C.ArgumentError(f"Invalid padding string: {padding!r}, should be one of {{'valid', 'same'}}")
    p = _ntuple(padding, n, "padding", fn)
    return tuple(v for v in p for _ in range(2))


def _check_kernel_fits(fn: str, input: Tensor, weight: Tensor, pads: Sequence[int], dilation: Sequence[int]) -> None:
    n = weight.ndim - 2
    padded = [input.shape[input.ndim - n + i] + pads[2 * i] + pads[2 * i + 1] for i in range(n)]
    kernel = [dilation[i] * (weight.shape[2 + i] - 1) + 1 for i in range(n)]
    if any(k > p for k, p in zip(kernel, padded)):
        raise _C.ArgumentError(
            f"{fn}: Calculated padded input size per channel: ({' x '.join(map(str, padded))}). Kernel size: "
            f"({' x '.join(map(str, kernel))}). Kernel size can't be greater than actual input size"
        )


def conv1d(
    input: Tensor,
    weight: Tensor,
    bias: Tensor | None = None,
    stride: IntPair = 1,
    padding: IntPair | str = 0,
    dilation: IntPair = 1,
    groups: int = 1,
) -> Tensor:
    """1-d convolution of ``input`` (N, C, L) or (C, L) with ``weight`` (out_channels, C / groups, k).

    It is conv2d on a picture one row high (input (N, C, 1, L), kernel (1, k)): the same sums in
    the same order, so the same numbers.
    """
    _check_conv_nd(input, weight, bias, 1, groups, "conv1d")
    s, d = _ntuple(stride, 1, "stride", "conv1d"), _ntuple(dilation, 1, "dilation", "conv1d")
    pads = _conv_pads("conv1d", 1, weight, s, padding, d)
    _check_geometry("conv1d", s, pads, d)
    _check_kernel_fits("conv1d", input, weight, pads, d)
    out = _C.conv2d(input.unsqueeze(-2), weight.unsqueeze(-2), bias, (1, s[0]), (0, 0, *pads), (1, d[0]), groups)
    return out.squeeze(-2)


def conv3d(
    input: Tensor,
    weight: Tensor,
    bias: Tensor | None = None,
    stride: IntPair = 1,
    padding: IntPair | str = 0,
    dilation: IntPair = 1,
    groups: int = 1,
) -> Tensor:
    """3-d convolution of ``input`` (N, C, D, H, W) or (C, D, H, W) with ``weight``
    (out_channels, C / groups, kD, kH, kW).

    The depth dim is unrolled the way im2col unrolls the others: for each output depth od, the kD
    input slices it reads (depth od sD - padD + t dD, t < kD) become kD times as many channels of
    one picture, channel c kD + t, and the kernel (O, C / groups, kD, kH, kW) read as
    (O, C / groups kD, kH, kW) is the matching 2-d kernel (groups stay contiguous). One conv2d of
    N Do such pictures then gives every output: one GEMM per picture, as in 2-d, and the backward
    (and double backward) is conv2d's through the slicing.
    """
    _check_conv_nd(input, weight, bias, 3, groups, "conv3d")
    if input.ndim == 4:
        return conv3d(input.unsqueeze(0), weight, bias, stride, padding, dilation, groups).squeeze(0)
    s, d = _ntuple(stride, 3, "stride", "conv3d"), _ntuple(dilation, 3, "dilation", "conv3d")
    pads = _conv_pads("conv3d", 3, weight, s, padding, d)
    _check_geometry("conv3d", s, pads, d)
    _check_kernel_fits("conv3d", input, weight, pads, d)
    N, C, D, H, W = input.shape
    O, kD = weight.shape[0], weight.shape[2]
    x = input
    if pads[0] or pads[1]:
        x = _C.cat([_zeros_like_dim(x, 2, pads[0]), x, _zeros_like_dim(x, 2, pads[1])], 2)
    Dp = D + pads[0] + pads[1]
    Do = (Dp - d[0] * (kD - 1) - 1) // s[0] + 1
    span = s[0] * (Do - 1) + 1
    taps = [x[:, :, t * d[0]:t * d[0] + span:s[0]] for t in range(kD)]  # each (N, C, Do, H, W)
    pictures = _C.stack(taps, 2).permute(0, 3, 1, 2, 4, 5).reshape(N * Do, C * kD, H, W)
    w2 = weight.reshape(O, weight.shape[1] * kD, weight.shape[3], weight.shape[4])
    out = _C.conv2d(pictures, w2, bias, s[1:], pads[2:], d[1:], groups)  # (N Do, O, Ho, Wo)
    return out.reshape(N, Do, O, out.shape[2], out.shape[3]).permute(0, 2, 1, 3, 4)


def _zeros_like_dim(x: Tensor, dim: int, size: int) -> Tensor:
    shape = list(x.shape)
    shape[dim] = size
    return _C.zeros(*shape, dtype=x.dtype, device=x.device)


def _transposed_out_size(
    fn: str, input: Tensor, weight: Tensor, n: int, s: Sequence[int], p: Sequence[int], op: Sequence[int],
    d: Sequence[int],
) -> list[int]:
    for i in range(n):
        if not (op[i] < s[i] or op[i] < d[i]) or op[i] < 0:
            raise _C.ArgumentError(
                f"{fn}: output padding must be smaller than either stride or dilation, but got "
                f"output_padding={tuple(op)}, stride={tuple(s)}, dilation={tuple(d)}"
            )
    sizes = [
        (input.shape[input.ndim - n + i] - 1) * s[i] - 2 * p[i] + d[i] * (weight.shape[2 + i] - 1) + op[i] + 1
        for i in range(n)
    ]
    if any(v <= 0 for v in sizes):
        raise _C.ArgumentError(
            f"{fn}: Given input size per channel: ({' x '.join(str(v) for v in input.shape[input.ndim - n:])}). "
            f"Calculated output size per channel: ({' x '.join(map(str, sizes))}). Output size is too small"
        )
    return sizes


def _transposed_args(fn: str, n: int, input: Tensor, weight: Tensor, bias: Tensor | None, groups: int,
                     stride: IntPair, padding: IntPair, output_padding: IntPair, dilation: IntPair):
    """The checked arguments of conv_transpose{n}d: stride, padding, output_padding, dilation as n ints."""
    _check_conv_nd(input, weight, bias, n, groups, fn, transposed=True)
    if isinstance(padding, str):
        raise TypeError(f"{fn}(): argument 'padding' must be tuple of ints, not str")
    s, p = _ntuple(stride, n, "stride", fn), _ntuple(padding, n, "padding", fn)
    op, d = _ntuple(output_padding, n, "output_padding", fn), _ntuple(dilation, n, "dilation", fn)
    _check_geometry(fn, s, p, d)
    return s, p, op, d


def conv_transpose2d(
    input: Tensor,
    weight: Tensor,
    bias: Tensor | None = None,
    stride: IntPair = 1,
    padding: IntPair = 0,
    output_padding: IntPair = 0,
    groups: int = 1,
    dilation: IntPair = 1,
) -> Tensor:
    """Transposed 2-d convolution of ``input`` (N, C_in, H, W) or (C_in, H, W) with ``weight``
    (C_in, C_out / groups, kH, kW): the gradient of conv2d with respect to its input, so it is
    conv2d's backward kernel run forward (``_C.conv2d_input_grad``). Output size
    (H - 1) s - 2 p + d (k - 1) + output_padding + 1.
    """
    s, p, op, d = _transposed_args("conv_transpose2d", 2, input, weight, bias, groups, stride, padding,
                                   output_padding, dilation)
    if input.ndim == 3:
        return conv_transpose2d(input.unsqueeze(0), weight, bias, s, p, op, groups, d).squeeze(0)
    Ho, Wo = _transposed_out_size("conv_transpose2d", input, weight, 2, s, p, op, d)
    size = (input.shape[0], weight.shape[1] * groups, Ho, Wo)
    out = _C.conv2d_input_grad(input, weight, size, s, p, d, groups)
    return out if bias is None else out + bias.reshape(1, -1, 1, 1)


def conv_transpose1d(
    input: Tensor,
    weight: Tensor,
    bias: Tensor | None = None,
    stride: IntPair = 1,
    padding: IntPair = 0,
    output_padding: IntPair = 0,
    groups: int = 1,
    dilation: IntPair = 1,
) -> Tensor:
    """Transposed 1-d convolution of (N, C_in, L) or (C_in, L) with weight (C_in, C_out / groups, k):
    ``conv_transpose2d`` on a picture one row high."""
    s, p, op, d = _transposed_args("conv_transpose1d", 1, input, weight, bias, groups, stride, padding,
                                   output_padding, dilation)
    _transposed_out_size("conv_transpose1d", input, weight, 1, s, p, op, d)
    out = conv_transpose2d(input.unsqueeze(-2), weight.unsqueeze(-2), bias, (1, s[0]), (0, p[0]), (0, op[0]),
                           groups, (1, d[0]))
    return out.squeeze(-2)


def conv_transpose3d(
    input: Tensor,
    weight: Tensor,
    bias: Tensor | None = None,
    stride: IntPair = 1,
    padding: IntPair = 0,
    output_padding: IntPair = 0,
    groups: int = 1,
    dilation: IntPair = 1,
) -> Tensor:
    """Transposed 3-d convolution of (N, C_in, D, H, W) or (C_in, D, H, W) with weight
    (C_in, C_out / groups, kD, kH, kW): the adjoint of ``conv3d``'s unrolling, step by step.

    conv3d is one conv2d of depth-unrolled pictures, so its input gradient is conv2d's input
    gradient (one call for all N D pictures, each giving its kD unrolled slices) followed by the
    adjoint of the unrolling: a scatter-add of each slice to the output depth it came from
    (od sD + t dD), then the depth padding cropped off.
    """
    fn = "conv_transpose3d"
    s, p, op, d = _transposed_args(fn, 3, input, weight, bias, groups, stride, padding, output_padding, dilation)
    if input.ndim == 4:
        return conv_transpose3d(input.unsqueeze(0), weight, bias, s, p, op, groups, d).squeeze(0)
    Do, Ho, Wo = _transposed_out_size(fn, input, weight, 3, s, p, op, d)
    N, Cin, D, H, W = input.shape
    kD = weight.shape[2]
    Cout = weight.shape[1] * groups
    pictures = input.permute(0, 2, 1, 3, 4).reshape(N * D, Cin, H, W)
    w2 = weight.reshape(Cin, weight.shape[1] * kD, weight.shape[3], weight.shape[4])
    cols = _C.conv2d_input_grad(pictures, w2, (N * D, Cout * kD, Ho, Wo), s[1:], p[1:], d[1:], groups)
    # (N D, Cout kD, Ho, Wo) -> (N, Cout, D kD, Ho, Wo): slice (od, t) lands at depth od sD + t dD
    cols = cols.reshape(N, D, Cout, kD, Ho, Wo).permute(0, 2, 1, 3, 4, 5).reshape(N, Cout, D * kD, Ho, Wo)
    full_depth = max(Do + p[0], (D - 1) * s[0] + d[0] * (kD - 1) + 1)
    depth = [od * s[0] + t * d[0] for od in range(D) for t in range(kD)]
    from ..creation import tensor

    index = tensor(depth, dtype=_C.dtype.int64, device=input.device).reshape(1, 1, D * kD, 1, 1)
    index = index.expand(N, Cout, D * kD, Ho, Wo)
    planes = _C.zeros(N, Cout, full_depth, Ho, Wo, dtype=input.dtype, device=input.device).scatter_add(2, index, cols)
    out = planes[:, :, p[0]:p[0] + Do]
    return out if bias is None else out + bias.reshape(1, -1, 1, 1, 1)
