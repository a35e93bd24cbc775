"""3-d pooling: ``max_pool3d``, ``avg_pool3d``, ``adaptive_avg_pool3d``, ``adaptive_max_pool3d``.

A box window is a product of one window per dim, and every 3-d pooling here is separable: the
maximum (or sum) over a (kd, kh, kw) box is the maximum (or sum) over depth of the 2-d results
over (kh, kw). So each is two passes of the 2-d kernels: over (H, W) with the depth slices as
channels, then over D on a one-row picture. PyTorch's divisors are products of per-dim counts
(with or without padding, ceil-mode windows clipped), so they factor too; its first maximum in
(d, h, w) order is the first depth holding the maximum, then its first (h, w), which is what the
two passes pick. ``divisor_override`` is applied to the plain sums of the two passes.
"""

from __future__ import annotations

from typing import Sequence, Union

from .. import _C
from .._C import Tensor
from .functional_conv import _check_tensor, _ntuple, adaptive_avg_pool2d, avg_pool2d, max_pool2d
from .functional_pool import _adaptive_size, _max_unpool, adaptive_avg_pool1d, adaptive_max_pool1d, adaptive_max_pool2d

__all__ = ["max_pool3d", "avg_pool3d", "adaptive_avg_pool3d", "adaptive_max_pool3d", "max_pool3d_with_indices",
           "adaptive_max_pool3d_with_indices", "max_unpool3d", "lp_pool3d"]

IntOrSeq = Union[int, Sequence[int]]


def _volumes(input: object, fn: str) -> tuple[Tensor, tuple[int, ...]]:
    """(B, D, H, W) view of an (N, C, D, H, W) or (C, D, H, W) input, and its leading dims."""
    _check_tensor(input, fn)
    if input.ndim not in (4, 5):  # type: ignore[attr-defined]
        raise _C.ArgumentError(f"{fn}: Expected 4D or 5D (batch mode) tensor for input, but got: "
                               f"{list(input.shape)}")  # type: ignore[attr-defined]
    lead = tuple(input.shape[:-3])  # type: ignore[attr-defined]
    D, H, W = input.shape[-3:]  # type: ignore[attr-defined]
    return input.reshape(-1, D, H, W), lead  # type: ignore[attr-defined]


def _depth_rows(x: Tensor) -> Tensor:
    """(B, D, Ho, Wo) -> (B, Ho Wo, 1, D): depth along the width of a one-row picture."""
    B, D, Ho, Wo = x.shape
    return x.permute(0, 2, 3, 1).reshape(B, Ho * Wo, 1, D)


def _back(x: Tensor, lead: tuple[int, ...], Ho: int, Wo: int) -> Tensor:
    """(B, Ho Wo, [1,] Do) -> (*lead, Do, Ho, Wo)."""
    B, Do = x.shape[0], x.shape[-1]
    return x.reshape(B, Ho, Wo, Do).permute(0, 3, 1, 2).reshape(*lead, Do, Ho, Wo)


def _combine_indices(i_hw: Tensor, i_d: Tensor, lead: tuple[int, ...], H: int, W: int) -> Tensor:
    """Flat d H W + (h W + w) indices from the depth pass's d and the plane pass's h W + w at that d."""
    B, D, Ho, Wo = i_hw.shape
    hw = i_hw.permute(0, 2, 3, 1).reshape(B, Ho * Wo, D)
    d = i_d.reshape(B, Ho * Wo, -1)
    return _back(d * (H * W) + hw.gather(2, d), lead, Ho, Wo)


def max_pool3d(input: Tensor, kernel_size: IntOrSeq, stride: IntOrSeq | None = None, padding: IntOrSeq = 0,
               dilation: IntOrSeq = 1, ceil_mode: bool = False,
               return_indices: bool = False) -> Tensor | tuple[Tensor, Tensor]:
    """The largest value of each (kd, kh, kw) window; indices into each D*H*W volume."""
    x, lead = _volumes(input, "max_pool3d")
    k = _ntuple(kernel_size, 3, "kernel_size", "max_pool3d")
    s = k if stride is None or (isinstance(stride, Sequence) and len(stride) == 0) else \
        _ntuple(stride, 3, "stride", "max_pool3d")
    p, d = _ntuple(padding, 3, "padding", "max_pool3d"), _ntuple(dilation, 3, "dilation", "max_pool3d")
    for i in range(3):
        if not 0 <= p[i] <= k[i] // 2:
            raise _C.ArgumentError(f"max_pool3d: pad should be at most half of effective kernel size, but got "
                                   f"pad={p[i]}, kernel_size={k[i]} and dilation={d[i]}")
    H, W = x.shape[-2:]
    v1, i1 = max_pool2d(x, k[1:], s[1:], p[1:], d[1:], ceil_mode, return_indices=True)
    Ho, Wo = v1.shape[-2:]
    v2, i2 = max_pool2d(_depth_rows(v1), (1, k[0]), (1, s[0]), (0, p[0]), (1, d[0]), ceil_mode, return_indices=True)
    out = _back(v2, lead, Ho, Wo)
    if not return_indices:
        return out
    return out, _combine_indices(i1, i2, lead, H, W)


def avg_pool3d(input: Tensor, kernel_size: IntOrSeq, stride: IntOrSeq | None = None, padding: IntOrSeq = 0,
               ceil_mode: bool = False, count_include_pad: bool = True, divisor_override: int | None = None) -> Tensor:
    """The mean of each (kd, kh, kw) window (PyTorch's divisor rules)."""
    x, lead = _volumes(input, "avg_pool3d")
    k = _ntuple(kernel_size, 3, "kernel_size", "avg_pool3d")
    s = k if stride is None or (isinstance(stride, Sequence) and len(stride) == 0) else \
        _ntuple(stride, 3, "stride", "avg_pool3d")
    p = _ntuple(padding, 3, "padding", "avg_pool3d")
    if divisor_override is not None and (isinstance(divisor_override, bool) or not isinstance(divisor_override, int)):
        raise TypeError(f"avg_pool3d(): divisor_override must be an int or None, got {divisor_override!r}")
    if divisor_override == 0:
        raise _C.ArgumentError("avg_pool3d(): divisor must be not zero")
    one = 1 if divisor_override is not None else None  # plain sums, divided once at the end
    v1 = avg_pool2d(x, k[1:], s[1:], p[1:], ceil_mode, count_include_pad, one)
    Ho, Wo = v1.shape[-2:]
    v2 = avg_pool2d(_depth_rows(v1), (1, k[0]), (1, s[0]), (0, p[0]), ceil_mode, count_include_pad, one)
    out = _back(v2, lead, Ho, Wo)
    return out / divisor_override if divisor_override is not None else out


def adaptive_avg_pool3d(input: Tensor, output_size: IntOrSeq | Sequence[int | None]) -> Tensor:
    """Average pooling of (N, C, D, H, W) or (C, D, H, W) to a fixed output size."""
    x, lead = _volumes(input, "adaptive_avg_pool3d")
    Do, Ho, Wo = _adaptive_size(output_size, 3, x.shape[-3:], "adaptive_avg_pool3d")
    v1 = adaptive_avg_pool2d(x, (Ho, Wo))
    B, D = v1.shape[:2]
    v2 = adaptive_avg_pool1d(v1.permute(0, 2, 3, 1).reshape(B, Ho * Wo, D), Do)
    return _back(v2, lead, Ho, Wo)


def adaptive_max_pool3d(input: Tensor, output_size: IntOrSeq | Sequence[int | None],
                        return_indices: bool = False) -> Tensor | tuple[Tensor, Tensor]:
    """Max pooling of (N, C, D, H, W) or (C, D, H, W) to a fixed output size; indices into D*H*W."""
    x, lead = _volumes(input, "adaptive_max_pool3d")
    D, H, W = x.shape[-3:]
    Do, Ho, Wo = _adaptive_size(output_size, 3, (D, H, W), "adaptive_max_pool3d")
    v1, i1 = adaptive_max_pool2d(x, (Ho, Wo), return_indices=True)
    B = v1.shape[0]
    v2, i2 = adaptive_max_pool1d(v1.permute(0, 2, 3, 1).reshape(B, Ho * Wo, D), Do, return_indices=True)
    out = _back(v2, lead, Ho, Wo)
    if not return_indices:
        return out
    return out, _combine_indices(i1, i2, lead, H, W)


def max_pool3d_with_indices(input: Tensor, kernel_size: IntOrSeq, stride: IntOrSeq | None = None,
                            padding: IntOrSeq = 0, dilation: IntOrSeq = 1, ceil_mode: bool = False,
                            return_indices: bool = True) -> tuple[Tensor, Tensor]:
    return max_pool3d(input, kernel_size, stride, padding, dilation, ceil_mode, True)  # type: ignore[return-value]


def adaptive_max_pool3d_with_indices(input: Tensor, output_size: IntOrSeq,
                                     return_indices: bool = True) -> tuple[Tensor, Tensor]:
    return adaptive_max_pool3d(input, output_size, True)  # type: ignore[return-value]


def max_unpool3d(input: Tensor, indices: Tensor, kernel_size: IntOrSeq, stride: IntOrSeq | None = None,
                 padding: IntOrSeq = 0, output_size: Sequence[int] | None = None) -> Tensor:
    """The partial inverse of ``max_pool3d``: each value back at its index in a D*H*W volume of zeros."""
    return _max_unpool(input, indices, 3, kernel_size, stride, padding, output_size, "max_unpool3d")


def lp_pool3d(input: Tensor, norm_type: float, kernel_size: IntOrSeq, stride: IntOrSeq | None = None,
              ceil_mode: bool = False) -> Tensor:
    """The p-norm of each 3-d window (PyTorch's formula, see ``lp_pool2d``)."""
    from .functional_misc import _lp_finish

    k = _ntuple(kernel_size, 3, "kernel_size", "lp_pool3d")
    out = avg_pool3d(input.pow(norm_type), k, stride, 0, ceil_mode)
    return _lp_finish(out, norm_type, k[0] * k[1] * k[2])

