"""Pooling beyond the 2-d kernels: ``max_pool1d``, ``avg_pool1d``, ``adaptive_avg_pool1d``,
``adaptive_max_pool1d``, ``adaptive_max_pool2d``, ``max_unpool1d``, ``max_unpool2d``.

The 1-d poolings are the 2-d ones (``functional_conv.py``, kernels in the core) on a picture one
row high: the same windows, the same sums, and a maximum's index in a (1, L) plane is its
position in L. The adaptive max pool and the unpooling are compositions of ``gather`` and
``scatter`` (recorded ops, so they differentiate, also twice, and run wherever those run).
"""

from __future__ import annotations

import math

from typing import Sequence, Union

from .. import _C
from .._C import Tensor
from ..creation import tensor
from .functional_conv import _check_tensor, _ntuple, adaptive_avg_pool2d, avg_pool2d, max_pool2d

__all__ = [
    "max_pool1d", "avg_pool1d", "adaptive_avg_pool1d", "adaptive_max_pool1d", "adaptive_max_pool2d",
    "max_unpool1d", "max_unpool2d",
]

IntOrSeq = Union[int, Sequence[int]]


def _check_1d(input: object, fn: str) -> None:
    _check_tensor(input, fn)
    if input.ndim not in (2, 3):  # type: ignore[attr-defined]
        raise _C.ArgumentError(
            f"{fn}: Expected 2D or 3D (batch mode) tensor with optional 0 dim batch size for input, but got:"
            f"{list(input.shape)}"  # type: ignore[attr-defined]
        )


def _one(value: IntOrSeq, name: str, fn: str) -> int:
    return _ntuple(value, 1, name, fn)[0]


def _default_stride(stride: IntOrSeq | None, kernel: int, fn: str) -> int:
    """stride=None (or an empty list, as torch accepts) means the kernel size."""
    if stride is None or (isinstance(stride, Sequence) and len(stride) == 0):
        return kernel
    return _one(stride, "stride", fn)


def max_pool1d(
    input: Tensor,
    kernel_size: IntOrSeq,
    stride: IntOrSeq | None = None,
    padding: IntOrSeq = 0,
    dilation: IntOrSeq = 1,
    ceil_mode: bool = False,
    return_indices: bool = False,
) -> Tensor | tuple[Tensor, Tensor]:
    """The largest value of each window of (N, C, L) or (C, L); indices are positions in L."""
    _check_1d(input, "max_pool1d")
    k = _one(kernel_size, "kernel_size", "max_pool1d")
    s = _default_stride(stride, k, "max_pool1d")
    p, d = _one(padding, "padding", "max_pool1d"), _one(dilation, "dilation", "max_pool1d")
    if k > 0 and not 0 <= p <= k // 2:
        raise _C.ArgumentError(
            f"max_pool1d() padding should be at most half of kernel size, but got padding={p} and kernel_size={k}"
        )
    out, idx = max_pool2d(input.unsqueeze(-2), (1, k), (1, s), (0, p), (1, d), ceil_mode, return_indices=True)
    out, idx = out.squeeze(-2), idx.squeeze(-2)
    return (out, idx) if return_indices else out


def avg_pool1d(
    input: Tensor,
    kernel_size: IntOrSeq,
    stride: IntOrSeq | None = None,
    padding: IntOrSeq = 0,
    ceil_mode: bool = False,
    count_include_pad: bool = True,
) -> Tensor:
    """The mean of each window of (N, C, L) or (C, L) (PyTorch's divisor rules)."""
    _check_tensor(input, "avg_pool1d")
    if input.ndim not in (2, 3):
        raise _C.ArgumentError(
            f"Expected 2 to 3 dimensions, but got {input.ndim}-dimensional tensor for argument #1 'self' "
            "(while checking arguments for avg_pool1d)"
        )
    k = _one(kernel_size, "kernel_size", "avg_pool1d")
    s = _default_stride(stride, k, "avg_pool1d")
    p = _one(padding, "padding", "avg_pool1d")
    return avg_pool2d(input.unsqueeze(-2), (1, k), (1, s), (0, p), ceil_mode, count_include_pad).squeeze(-2)


def _adaptive_size(value: IntOrSeq | Sequence[int | None], n: int, sizes: Sequence[int], fn: str) -> tuple[int, ...]:
    if isinstance(value, int) and not isinstance(value, bool):
        items: tuple = (value,) * n
    else:
        items = tuple(value)
        if len(items) != n:
            raise _C.ArgumentError(f"{fn}(): output_size must be {n}, got {list(items)}")
    out = tuple(sizes[i] if v is None else v for i, v in enumerate(items))
    if any(not isinstance(v, int) or isinstance(v, bool) or v < 0 for v in out):
        raise _C.ArgumentError(f"{fn}(): elements of output_size must be greater than or equal to 0, got {out}")
    return out


def adaptive_avg_pool1d(input: Tensor, output_size: IntOrSeq) -> Tensor:
    """Average pooling of (N, C, L) or (C, L) to a fixed length (PyTorch's uneven windows)."""
    _check_tensor(input, "adaptive_avg_pool1d")
    if input.ndim not in (2, 3):
        raise _C.ArgumentError(
            f"Expected 2 to 3 dimensions, but got {input.ndim}-dimensional tensor for argument #1 'self' "
            "(while checking arguments for adaptive_avg_pool1d)"
        )
    (L,) = _adaptive_size(output_size, 1, input.shape[-1:], "adaptive_avg_pool1d")
    return adaptive_avg_pool2d(input.unsqueeze(-2), (1, L)).squeeze(-2)


def _window_table(size: int, out: int) -> tuple[list[int], int, list[int]]:
    """PyTorch's adaptive windows [floor(i size / out), ceil((i + 1) size / out)): the start of
    each, the longest's length, and the end of each."""
    starts = [(i * size) // out for i in range(out)]
    ends = [-((-(i + 1) * size) // out) for i in range(out)]
    return starts, max(e - b for b, e in zip(starts, ends)), ends


def adaptive_max_pool2d(
    input: Tensor, output_size: IntOrSeq | Sequence[int | None], return_indices: bool = False
) -> Tensor | tuple[Tensor, Tensor]:
    """Max pooling of (N, C, H, W) or (C, H, W) to a fixed output size; indices into each H*W plane.

    Every window is read through one table of flat positions (Ho Wo windows by kh kw taps, the
    longest window's size): a shorter window repeats its first pixel in the spare taps, which
    changes neither its maximum nor which element is the first maximum. One gather and one
    max over the last dim then pool every window at once.
    """
    _check_tensor(input, "adaptive_max_pool2d")
    if input.ndim not in (3, 4):
        raise _C.ArgumentError(
            f"adaptive_max_pool2d(): Expected 3D or 4D tensor, but got: {list(input.shape)}"
        )
    H, W = input.shape[-2], input.shape[-1]
    if any(v == 0 for v in input.shape[-3:]):
        raise _C.ArgumentError(
            f"adaptive_max_pool2d(): Expected input to have non-zero size for non-batch dimensions, but input has "
            f"sizes {list(input.shape)}"
        )
    Ho, Wo = _adaptive_size(output_size, 2, (H, W), "adaptive_max_pool2d")
    lead = tuple(input.shape[:-2])
    if Ho == 0 or Wo == 0:
        empty = _C.zeros(*lead, Ho, Wo, dtype=input.dtype, device=input.device)
        return (empty, _C.zeros(*lead, Ho, Wo, dtype=_C.dtype.int64, device=input.device)) if return_indices else empty
    hs, kh, he = _window_table(H, Ho)
    ws, kw, we = _window_table(W, Wo)
    table = []
    for i in range(Ho):
        for j in range(Wo):
            taps = [h * W + w for h in range(hs[i], he[i]) for w in range(ws[j], we[j])]
            table += taps + [taps[0]] * (kh * kw - len(taps))
    planes = input.reshape(-1, H * W)
    index = tensor(table, dtype=_C.dtype.int64, device=input.device)
    picked = planes.index_select(1, index).reshape(planes.shape[0], Ho * Wo, kh * kw)
    values, arg = picked.max(-1)
    out = values.reshape(*lead, Ho, Wo)
    if not return_indices:
        return out
    flat = index.reshape(1, Ho * Wo, kh * kw).expand(planes.shape[0], Ho * Wo, kh * kw)
    indices = flat.gather(2, arg.unsqueeze(-1)).reshape(*lead, Ho, Wo)
    return out, indices


def adaptive_max_pool1d(
    input: Tensor, output_size: IntOrSeq, return_indices: bool = False
) -> Tensor | tuple[Tensor, Tensor]:
    """Max pooling of (N, C, L) or (C, L) to a fixed length: ``adaptive_max_pool2d`` one row high."""
    _check_tensor(input, "adaptive_max_pool1d")
    if input.ndim not in (2, 3):
        raise _C.ArgumentError(f"adaptive_max_pool1d(): Expected 2D or 3D tensor, but got: {list(input.shape)}")
    (L,) = _adaptive_size(output_size, 1, input.shape[-1:], "adaptive_max_pool1d")
    out, idx = adaptive_max_pool2d(input.unsqueeze(-2), (1, L), return_indices=True)  # type: ignore[misc]
    return (out.squeeze(-2), idx.squeeze(-2)) if return_indices else out.squeeze(-2)


def _unpool_size(
    fn: str, input: Tensor, n: int, kernel: tuple[int, ...], stride: tuple[int, ...], padding: tuple[int, ...],
    output_size: Sequence[int] | None,
) -> list[int]:
    """PyTorch's _unpool_output_size: the default (in - 1) s - 2 p + k, or output_size (its last n
    entries), which must lie within a stride of the default."""
    spatial = list(input.shape[input.ndim - n:])
    default = [(spatial[i] - 1) * stride[i] + kernel[i] - 2 * padding[i] for i in range(n)]
    if output_size is None:
        return default
    size = list(output_size)
    if len(size) == n + 2:
        size = size[2:]
    elif len(size) == n + 1 and input.ndim == n + 1:
        size = size[1:]
    if len(size) != n:
        raise _C.ArgumentError(
            f"output_size should be a sequence containing {n} or {n + 2} elements, but it has a length of '{len(size)}'"
        )
    for i in range(n):
        lo, hi = default[i] - stride[i], default[i] + stride[i]
        if not lo < size[i] < hi:
            raise _C.ArgumentError(
                f'invalid output_size "{tuple(size)}" (dim {i} must be between {lo} and {hi})'
            )
    return size


def max_unpool2d(
    input: Tensor,
    indices: Tensor,
    kernel_size: IntOrSeq,
    stride: IntOrSeq | None = None,
    padding: IntOrSeq = 0,
    output_size: Sequence[int] | None = None,
) -> Tensor:
    """The partial inverse of ``max_pool2d``: each value goes back to the position its index names
    in an (H_out, W_out) plane of zeros (a scatter; its gradient is the gather of those positions)."""
    return _max_unpool(input, indices, 2, kernel_size, stride, padding, output_size, "max_unpool2d")


def max_unpool1d(
    input: Tensor,
    indices: Tensor,
    kernel_size: IntOrSeq,
    stride: IntOrSeq | None = None,
    padding: IntOrSeq = 0,
    output_size: Sequence[int] | None = None,
) -> Tensor:
    """The partial inverse of ``max_pool1d`` (see ``max_unpool2d``)."""
    return _max_unpool(input, indices, 1, kernel_size, stride, padding, output_size, "max_unpool1d")


def _max_unpool(
    input: Tensor, indices: Tensor, n: int, kernel_size: IntOrSeq, stride: IntOrSeq | None, padding: IntOrSeq,
    output_size: Sequence[int] | None, fn: str,
) -> Tensor:
    _check_tensor(input, fn)
    _check_tensor(indices, fn, "indices")
    if input.ndim not in (n + 1, n + 2):
        raise _C.ArgumentError(f"{fn}: Expected {n + 1}D or {n + 2}D input tensor, but got {list(input.shape)}")
    if indices.dtype != _C.dtype.int64:
        raise _C.DTypeError(f"{fn}: elements in indices should be type int64 but got: {indices.dtype}")
    if tuple(indices.shape) != tuple(input.shape):
        raise _C.ArgumentError(
            f"Expected shape of indices to be same as that of the input tensor ({list(input.shape)}) but got "
            f"indices tensor with shape: {list(indices.shape)}"
        )
    k = _ntuple(kernel_size, n, "kernel_size", fn)
    s = k if stride is None else _ntuple(stride, n, "stride", fn)
    p = _ntuple(padding, n, "padding", fn)
    size = _unpool_size(fn, input, n, k, s, p, output_size)
    plane = math.prod(size)
    lead = tuple(input.shape[:input.ndim - n])
    flat_idx = indices.reshape(math.prod(lead), math.prod(input.shape[input.ndim - n:]))
    if flat_idx.numel() and (int(flat_idx.amin().item()) < 0 or int(flat_idx.amax().item()) >= plane):
        bad = int(flat_idx.amax().item()) if int(flat_idx.amax().item()) >= plane else int(flat_idx.amin().item())
        raise _C.ArgumentError(
            f"Found an invalid max index: {bad} (output volumes are of size {'x'.join(map(str, size))})"
        )
    src = input.reshape(flat_idx.shape[0], flat_idx.shape[1])
    zeros = _C.zeros(flat_idx.shape[0], plane, dtype=input.dtype, device=input.device)
    return zeros.scatter(1, flat_idx, src).reshape(*lead, *size)

