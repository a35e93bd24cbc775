"""Padding, resampling and sliding blocks: ``pad``, ``interpolate``, ``unfold``, ``fold``.

None of these does arithmetic worth a kernel of its own: each output element is an input element
(padding, nearest-neighbour resizing, im2col), a constant, or a weighted pair of input elements
(linear resizing, one dim at a time). So each is a composition of ``index_select``, ``narrow``,
``cat`` and ``scatter_add`` with index tables computed here: the backward is those ops' backward
(a scatter-add of the gradient to the positions read), differentiable again, and every op runs on
any device that has those primitives.

The index tables follow PyTorch's CPU kernels to the bit where the index is a floor of a
product (nearest: computed in float32 as PyTorch does, or a resize by 1/3 would pick other pixels).
"""

from __future__ import annotations

from typing import Any, Sequence, Union

import numpy as np

from .. import _C
from .._C import Tensor
from ..creation import tensor
from .functional_conv import _check_tensor, _ntuple

__all__ = ["pad", "interpolate", "unfold", "fold"]

IntOrSeq = Union[int, Sequence[int]]
PAD_MODES = ("constant", "reflect", "replicate", "circular")


def _index(values: Sequence[int] | np.ndarray, device: object) -> Tensor:
    return tensor(np.asarray(values, dtype=np.int64), device=device)


def _source_positions(mode: str, size: int, before: int, after: int) -> np.ndarray:
    """For each output position j of a dim padded by (before, after), the input position it copies."""
    i = np.arange(size + before + after, dtype=np.int64) - before
    if mode == "reflect":
        i = np.abs(i)
        i = np.where(i >= size, 2 * (size - 1) - i, i)
    elif mode == "replicate":
        i = np.clip(i, 0, size - 1)
    else:  # circular: PyTorch crops the negative amounts first, then wraps within what is left
        first = max(-before, 0)
        kept = size - first - max(-after, 0)
        i = first + np.mod(np.arange(size + before + after, dtype=np.int64) - max(before, 0), max(kept, 1))
    return i


def pad(input: Tensor, pad: Sequence[int], mode: str = "constant", value: float | None = None) -> Tensor:
    """Pads the last ``len(pad) // 2`` dims: ``pad`` is (before, after) for the last dim, then the
    one before it, and so on. A negative amount crops. ``constant`` fills with ``value`` (0 by
    default); ``reflect`` mirrors without repeating the edge, ``replicate`` repeats the edge,
    ``circular`` wraps around (the last three pad only the last 1-3 dims of a batched or
    unbatched input, as in PyTorch)."""
    _check_tensor(input, "pad")
    if isinstance(pad, (int, str)) or not isinstance(pad, Sequence):
        raise TypeError(f"pad(): argument 'pad' (position 2) must be tuple of ints, not {type(pad).__name__}")
    for k, v in enumerate(pad):
        if isinstance(v, bool) or not isinstance(v, int):
            raise TypeError(
                f"pad(): argument 'pad' (position 2) must be tuple of ints, but found element of type "
                f"{type(v).__name__} at pos {k}"
            )
    if len(pad) % 2:
        raise _C.ArgumentError("Padding length must be divisible by 2")
    n = len(pad) // 2
    if n > input.ndim:
        raise _C.ArgumentError(
            f"Padding length should be less than or equal to two times the input dimension but got padding length "
            f"{len(pad)} and input of dimension {input.ndim}"
        )
    if mode not in PAD_MODES:
        raise NotImplementedError(f"Unrecognised padding mode {mode}")
    if mode != "constant":
        if value is not None and value != 0:
            raise _C.ArgumentError(f'Padding mode "{mode}" doesn\'t take in value argument')
        if n not in (1, 2, 3) or input.ndim not in (n + 1, n + 2):
            raise NotImplementedError(
                f"Padding size {len(pad)} is not supported for {input.ndim}D input tensor.\n"
                "Supported combinations for non-constant padding:\n"
                "  - 2D or 3D input: padding size = 2 (pads last dimension)\n"
                "  - 3D or 4D input: padding size = 4 (pads last 2 dimensions)\n"
                "  - 4D or 5D input: padding size = 6 (pads last 3 dimensions)"
            )
    out = input
    for k in range(n):
        dim, before, after = input.ndim - 1 - k, pad[2 * k], pad[2 * k + 1]
        size = out.shape[dim]
        # constant and circular crop first (a crop past the far end is an error); reflect and
        # replicate read the uncropped input, and PyTorch's 1-d kernels refuse an empty output
        kept = size - max(-before, 0) - max(-after, 0)
        if size + before + after < 0 or (kept < 0 and mode in ("constant", "circular")):
            raise _C.ArgumentError(
                f"pad(): the input size {size}, plus negative padding {before} and {after} resulted in a negative "
                f"output size, which is invalid. Check dimension {dim} of your input."
            )
        if mode in ("reflect", "replicate") and n == 1 and size + before + after == 0:
            raise _C.ArgumentError(f"input (W: {size}) is too small. Calculated output W: 0")
        if mode == "constant":
            out = _pad_constant(out, dim, before, after, 0.0 if value is None else value)
            continue
        if mode == "reflect" and (before >= size or after >= size):
            raise _C.ArgumentError(
                f"Argument #4: Padding size should be less than the corresponding input dimension, but got: padding "
                f"({before}, {after}) at dimension {dim} of input {list(input.shape)}"
            )
        if mode == "circular" and (before > kept or after > kept or (kept == 0 and size + before + after > 0)):
            raise _C.ArgumentError("Padding value causes wrapping around more than once.")
        if size == 0:
            raise _C.ArgumentError(
                f"pad(): mode '{mode}' needs a non-empty dimension to copy from, but dimension {dim} of input "
                f"{list(input.shape)} is empty"
            )
        out = out.index_select(dim, _index(_source_positions(mode, size, before, after), input.device))
    return out


def _pad_constant(x: Tensor, dim: int, before: int, after: int, value: float) -> Tensor:
    """Crops the negative amounts, then joins blocks of ``value`` for the positive ones."""
    size = x.shape[dim]
    cut_before, cut_after = max(-before, 0), max(-after, 0)
    if cut_before or cut_after:
        x = x.narrow(dim, cut_before, size - cut_before - cut_after)
    parts = []
    for amount in (before, after):
        shape = list(x.shape)
        shape[dim] = max(amount, 0)
        parts.append(_C.full(tuple(shape), value, dtype=x.dtype, device=x.device))
    if before <= 0 and after <= 0:
        return x
    return _C.cat([parts[0], x, parts[1]], dim)


# ---- interpolate ----

def _scale_value(scale: float | None, in_size: int, out_size: int, ftype: type) -> np.floating:
    """PyTorch's compute_scales_value: 1 / scale_factor when one was given, else in / out."""
    if scale is not None and scale > 0:
        return ftype(1.0 / scale)
    return ftype(in_size) / ftype(out_size)


def _nearest_positions(in_size: int, out_size: int, scale: float | None, exact: bool) -> np.ndarray:
    """PyTorch's nearest_idx / nearest_exact_idx, in float32 as its kernels compute them."""
    j = np.arange(out_size, dtype=np.int64)
    sc = _scale_value(scale, in_size, out_size, np.float32)
    if exact:  # floorf((j + 0.5) * scale): the product in double, rounded to float
        src = np.floor(((j + 0.5) * np.float64(sc)).astype(np.float32))
    else:  # floorf(j * scale), in float
        src = np.floor(j.astype(np.float32) * sc)
    return np.minimum(src.astype(np.int64), in_size - 1)


def _linear_positions(
    in_size: int, out_size: int, scale: float | None, align_corners: bool, ftype: type
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """PyTorch's compute_source_index_and_lambda: the two neighbours of each output position and
    the second one's weight, in the kernel's arithmetic type (float32 for float32 input)."""
    j = np.arange(out_size, dtype=np.int64)
    if out_size == in_size:
        return j, j, np.zeros(out_size, dtype=ftype)
    if align_corners:
        ratio = ftype(in_size - 1) / ftype(out_size - 1) if out_size > 1 else ftype(0)
        real = ratio * j.astype(ftype)
    else:
        ratio = _scale_value(scale, in_size, out_size, ftype)
        real = ratio * (j.astype(ftype) + ftype(0.5)) - ftype(0.5)
        real = np.where(real < 0, ftype(0), real).astype(ftype)
    i0 = np.minimum(np.floor(real).astype(np.int64), in_size - 1)
    lam = np.clip(real - i0.astype(ftype), 0, 1).astype(ftype)
    i1 = i0 + (i0 < in_size - 1)
    return i0, i1, lam


def _cubic_coefficients(t: Any, a: float) -> list:
    """The four weights of Keys' cubic convolution at fraction ``t`` (PyTorch's
    get_cubic_upsample_coefficients): for the neighbours at -1, 0, +1 and +2. Arithmetic only, so
    ``t`` may be a numpy array or an aakaar Tensor (grid_sample's bicubic, differentiated through)."""
    def near(x):  # |x| <= 1
        return ((a + 2) * x - (a + 3)) * x * x + 1

    def far(x):  # 1 < |x| < 2
        return ((a * x - 5 * a) * x + 8 * a) * x - 4 * a

    return [far(t + 1), near(t), near(1 - t), far(2 - t)]


def _cubic_weights(t: np.ndarray, a: float) -> np.ndarray:
    return np.stack(_cubic_coefficients(t, a), axis=1)


def _cubic_taps(
    in_size: int, out_size: int, scale: float | None, align_corners: bool, ftype: type
) -> tuple[np.ndarray, np.ndarray]:
    """Bicubic's taps along one dim: four source indices per output position (clamped to the
    input, as PyTorch reads beyond the border) and their weights, A = -0.75 as in PyTorch."""
    j = np.arange(out_size, dtype=np.int64).astype(ftype)
    if align_corners:
        ratio = ftype(in_size - 1) / ftype(out_size - 1) if out_size > 1 else ftype(0)
        real = ratio * j
    else:  # unlike linear, the source position is not clamped at 0 (cubic=True)
        real = _scale_value(scale, in_size, out_size, ftype) * (j + ftype(0.5)) - ftype(0.5)
    base = np.floor(real)
    weights = _cubic_weights((real - base).astype(ftype), ftype(-0.75)).astype(ftype)
    index = np.clip(base.astype(np.int64)[:, None] + np.arange(-1, 3), 0, in_size - 1)
    return index, weights


def _antialias_taps(
    mode: str, in_size: int, out_size: int, scale: float | None, align_corners: bool, ftype: type
) -> tuple[np.ndarray, np.ndarray]:
    """Antialiased taps along one dim (PyTorch's and PIL's resampling): when shrinking, the
    filter (triangle for bilinear, cubic with A = -0.5 for bicubic) is stretched by the scale so
    every input pixel contributes, then each output's weights are normalised to sum to one."""
    support_base = 1.0 if mode == "bilinear" else 2.0
    if align_corners:
        sc = (in_size - 1) / (out_size - 1) if out_size > 1 else 0.0
    else:
        sc = float(_scale_value(scale, in_size, out_size, np.float64))
    support = support_base * sc if sc >= 1.0 else support_base
    invscale = 1.0 / sc if sc >= 1.0 else 1.0
    taps = int(np.ceil(support)) * 2 + 1
    index = np.zeros((out_size, taps), dtype=np.int64)
    weights = np.zeros((out_size, taps), dtype=np.float64)
    for i in range(out_size):
        center = sc * (i + 0.5)
        lo = max(int(center - support + 0.5), 0)
        n = min(int(center + support + 0.5), in_size) - lo
        x = (np.arange(n) + lo - center + 0.5) * invscale
        if mode == "bilinear":
            w = np.clip(1.0 - np.abs(x), 0.0, None)
        else:
            ax = np.abs(x)
            a = -0.5
            w = np.where(ax < 1, ((a + 2) * ax - (a + 3)) * ax * ax + 1,
                         np.where(ax < 2, ((a * ax - 5 * a) * ax + 8 * a) * ax - 4 * a, 0.0))
        total = w.sum()
        index[i, :n] = lo + np.arange(n)
        weights[i, :n] = w / total if total != 0 else w
    return index, weights.astype(ftype)


def _resample_taps(x: Tensor, dim: int, index: np.ndarray, weights: np.ndarray) -> Tensor:
    """Σ_k x[..., index[:, k], ...] * weights[:, k] along ``dim``: one gather and one
    multiply-add per tap, so autograd differentiates it with the ops it already has."""
    out = None
    for k in range(index.shape[1]):
        if not weights[:, k].any():
            continue
        term = x.index_select(dim, _index(index[:, k], x.device)) * _along(weights[:, k], x.ndim, dim, x)
        out = term if out is None else out + term
    return out if out is not None else x.index_select(dim, _index(index[:, 0], x.device)) * 0


def _along(values: np.ndarray, ndim: int, dim: int, like: Tensor) -> Tensor:
    """A weight vector shaped to broadcast along ``dim`` of an ndim-d tensor."""
    shape = [1] * ndim
    shape[dim] = len(values)
    return tensor(values.astype(np.float64), dtype=like.dtype, device=like.device).reshape(*shape)


def interpolate(
    input: Tensor,
    size: IntOrSeq | None = None,
    scale_factor: float | Sequence[float] | None = None,
    mode: str = "nearest",
    align_corners: bool | None = None,
    recompute_scale_factor: bool | None = None,
    antialias: bool = False,
) -> Tensor:
    """Resizes the spatial dims of (N, C, *spatial) to ``size``, or by ``scale_factor``.

    Modes ``nearest``, ``nearest-exact``, ``linear`` (3-d input), ``bilinear`` and ``bicubic``
    (4-d), ``trilinear`` (5-d) and ``area`` (adaptive average pooling; 3-d and 4-d input), with
    PyTorch's ``align_corners`` and ``recompute_scale_factor``; ``antialias=True`` (bilinear and
    bicubic) filters before shrinking, as PyTorch and PIL do. Every mode is separable: one 1-d
    resize per spatial dim, each a few gathers and multiply-adds (taps) that autograd already
    differentiates.
    """
    _check_tensor(input, "interpolate")
    if mode in ("nearest", "area", "nearest-exact"):
        if align_corners is not None:
            raise ValueError(
                "align_corners option can only be set with the interpolating modes: linear | bilinear | bicubic | "
                "trilinear"
            )
    elif align_corners is None:
        align_corners = False
    dim = input.ndim - 2
    if size is not None and scale_factor is not None:
        raise ValueError("only one of size or scale_factor should be defined")
    scales: list[float] | None
    if size is not None:
        scales = None
        if isinstance(size, (list, tuple)):
            if len(size) != dim:
                raise ValueError(
                    "Input and output must have the same number of spatial dimensions, but got input with spatial "
                    f"dimensions of {list(input.shape[2:])} and output size of {size}. Please provide input tensor "
                    "in (N, C, d1, d2, ...,dK) format and output size in (o1, o2, ...,oK) format."
                )
            if not all(isinstance(v, int) and not isinstance(v, bool) for v in size):
                raise TypeError(
                    "expected size to be one of int or Tuple[int] or Tuple[int, int] or Tuple[int, int, int], but "
                    f"got size with types {[type(v) for v in size]}"
                )
            out_size = list(size)
        else:
            out_size = [size] * dim
    elif scale_factor is not None:
        if isinstance(scale_factor, (list, tuple)):
            if len(scale_factor) != dim:
                raise ValueError(
                    "Input and scale_factor must have the same number of spatial dimensions, but got input with "
                    f"spatial dimensions of {list(input.shape[2:])} and scale_factor of shape {scale_factor}. "
                    "Please provide input tensor in (N, C, d1, d2, ...,dK) format and scale_factor in (s1, s2, "
                    "...,sK) format."
                )
            scales = [float(v) for v in scale_factor]
        else:
            scales = [float(scale_factor)] * dim
        # PyTorch's compute_output_size: the product truncated to an int
        out_size = [int(input.shape[2 + i] * scales[i]) for i in range(dim)]
    else:
        raise ValueError("either size or scale_factor should be defined")
    if recompute_scale_factor and size is not None:
        raise ValueError("recompute_scale_factor is not meaningful with an explicit size.")
    if recompute_scale_factor or mode == "area":
        scales = None  # the kernel works from the integer sizes
    if antialias and not (mode in ("bilinear", "bicubic") and input.ndim == 4):
        raise ValueError("Anti-alias option is restricted to bilinear and bicubic modes and requires a 4-D tensor as input")
    wants = {"linear": 3, "bilinear": 4, "bicubic": 4, "trilinear": 5}
    if input.ndim not in (3, 4, 5) or mode not in ("nearest", "nearest-exact", "area", *wants):
        if mode == "lanczos" and input.ndim == 4:
            raise NotImplementedError(f"interpolate(): mode '{mode}' is not implemented in aakaar")
        raise NotImplementedError(
            f"Input Error: Only 3D, 4D and 5D input Tensors supported (got {input.ndim}D) for the modes: nearest | "
            f"linear | bilinear | bicubic | trilinear | lanczos | area | nearest-exact (got {mode})"
        )
    if mode in wants and input.ndim != wants[mode]:
        raise NotImplementedError(f"Got {input.ndim}D input, but {mode} mode needs {wants[mode]}D input")
    names = "DHW"[3 - dim:]
    if any(v <= 0 for v in out_size) or any(v <= 0 for v in input.shape[2:]):
        ins = ", ".join(f"{n}: {v}" for n, v in zip(names, input.shape[2:]))
        outs = ", ".join(f"{n}: {v}" for n, v in zip(names, out_size))
        raise _C.ArgumentError(
            f"Input and output sizes should be greater than 0, but got input ({ins}) and output ({outs})"
        )
    if mode == "area":
        from .functional_pool import adaptive_avg_pool1d
        from .functional_conv import adaptive_avg_pool2d

        if dim == 1:
            return adaptive_avg_pool1d(input, out_size[0])
        if dim == 2:
            return adaptive_avg_pool2d(input, out_size)
        raise NotImplementedError("interpolate(): mode 'area' of a 5-d input (adaptive_avg_pool3d) is not implemented")
    ftype = np.float64 if input.dtype == _C.dtype.float64 else np.float32
    out = input
    for i in range(dim):
        d, n_in, n_out = 2 + i, input.shape[2 + i], out_size[i]
        sc = None if scales is None else scales[i]
        if mode in ("nearest", "nearest-exact"):
            pos = _nearest_positions(n_in, n_out, sc, mode == "nearest-exact")
            out = out.index_select(d, _index(pos, input.device))
            continue
        if not input.dtype.is_floating_point:
            raise _C.DTypeError(f'"upsample_{mode}" not implemented for \'{input.dtype}\'')
        if antialias or mode == "bicubic":
            if n_out == n_in and antialias:
                continue  # PyTorch copies a dim whose size does not change; bicubic without
                # antialias still resamples it when a scale_factor says the scale is not 1
            index, weights = (_antialias_taps(mode, n_in, n_out, sc, bool(align_corners), ftype) if antialias
                              else _cubic_taps(n_in, n_out, sc, bool(align_corners), ftype))
            out = _resample_taps(out, d, index, weights)
            continue
        i0, i1, lam = _linear_positions(n_in, n_out, sc, bool(align_corners), ftype)
        if n_out == n_in:
            continue
        a = out.index_select(d, _index(i0, input.device))
        b = out.index_select(d, _index(i1, input.device))
        out = a * _along(1 - lam, out.ndim, d, out) + b * _along(lam, out.ndim, d, out)
    return out


# ---- unfold / fold (im2col / col2im) ----

def _block_args(fn: str, kernel_size: IntOrSeq, dilation: IntOrSeq, padding: IntOrSeq, stride: IntOrSeq):
    k = _ntuple(kernel_size, 2, "kernel_size", fn)
    d = _ntuple(dilation, 2, "dilation", fn)
    p = _ntuple(padding, 2, "padding", fn)
    s = _ntuple(stride, 2, "stride", fn)
    for name, v, low in (("kernel", k, 1), ("stride", s, 1), ("dilation", d, 1), ("padding", p, 0)):
        if v[0] < low or v[1] < low:
            what = "greater than zero" if low else "non-negative"
            raise _C.ArgumentError(
                f"{fn}(): {name} should be {what}, but got {name}_height: {v[0]} {name}_width: {v[1]}"
            )
    return k, d, p, s


def _block_table(H: int, W: int, k, d, p, s, fn: str) -> tuple[np.ndarray, int, int]:
    """The flat positions in the padded (H + 2 p0, W + 2 p1) plane that im2col reads, ordered
    (kernel row, kernel col, block row, block col), and the number of block rows and cols."""
    Hp, Wp = H + 2 * p[0], W + 2 * p[1]
    bh = (Hp - d[0] * (k[0] - 1) - 1) // s[0] + 1
    bw = (Wp - d[1] * (k[1] - 1) - 1) // s[1] + 1
    if bh < 1 or bw < 1:
        raise _C.ArgumentError(
            f"Given input with spatial size ({H}, {W}), kernel_size={k}, dilation={d}, padding={p}, calculated shape "
            f"of the array of sliding blocks as ({bh}, {bw}), but its components must be at least one."
        )
    rows = (np.arange(k[0])[:, None, None, None] * d[0] + np.arange(bh)[None, None, :, None] * s[0])
    cols = (np.arange(k[1])[None, :, None, None] * d[1] + np.arange(bw)[None, None, None, :] * s[1])
    return (rows * Wp + cols).reshape(-1), bh, bw


def unfold(
    input: Tensor, kernel_size: IntOrSeq, dilation: IntOrSeq = 1, padding: IntOrSeq = 0, stride: IntOrSeq = 1
) -> Tensor:
    """im2col: (N, C, H, W) or (C, H, W) -> (N, C kH kW, L), each column one sliding block
    (channel-major, then kernel row and col), L blocks in row-major order."""
    _check_tensor(input, "unfold")
    if input.ndim not in (3, 4):
        raise _C.ArgumentError(
            f"Input Error: Only 3D or 4D input Tensors are supported (got {input.ndim}D)"
        )
    if input.ndim == 3:
        return unfold(input.unsqueeze(0), kernel_size, dilation, padding, stride).squeeze(0)
    k, d, p, s = _block_args("unfold", kernel_size, dilation, padding, stride)
    N, C, H, W = input.shape
    table, bh, bw = _block_table(H, W, k, d, p, s, "unfold")
    x = pad(input, (p[1], p[1], p[0], p[0])) if p[0] or p[1] else input
    x = x.reshape(N, C, x.shape[2] * x.shape[3])
    blocks = x.index_select(2, _index(table, input.device))  # (N, C, kH kW bh bw)
    return blocks.reshape(N, C * k[0] * k[1], bh * bw)


def fold(
    input: Tensor,
    output_size: IntOrSeq,
    kernel_size: IntOrSeq,
    dilation: IntOrSeq = 1,
    padding: IntOrSeq = 0,
    stride: IntOrSeq = 1,
) -> Tensor:
    """col2im, the adjoint of ``unfold``: (N, C kH kW, L) or (C kH kW, L) -> (N, C, H, W), every
    column's entries added back to the pixels its block covers (overlaps add up)."""
    _check_tensor(input, "fold")
    if input.ndim not in (2, 3):
        raise _C.ArgumentError(
            f"Expected 2D or 3D (batch mode) tensor for input with possibly 0 batch size and non-zero dimensions "
            f"for input, but got: {list(input.shape)}"
        )
    if input.ndim == 2:
        return fold(input.unsqueeze(0), output_size, kernel_size, dilation, padding, stride).squeeze(0)
    H, W = _ntuple(output_size, 2, "output_size", "fold")
    k, d, p, s = _block_args("fold", kernel_size, dilation, padding, stride)
    N, CK, L = input.shape
    if CK % (k[0] * k[1]):
        raise _C.ArgumentError(
            f"Expected size of input's dimension 1 to be divisible by the product of kernel_size, but got "
            f"input.size(1)={CK} and kernel_size={k}."
        )
    table, bh, bw = _block_table(H, W, k, d, p, s, "fold")
    if L != bh * bw:
        raise _C.ArgumentError(
            f"Given output_size=({H}, {W}), kernel_size={k}, dilation={d}, padding={p}, stride={s}, expected size of "
            f"input's dimension 2 to match the calculated number of sliding blocks {bh} * {bw} = {bh * bw}, but got "
            f"input.size(2)={L}."
        )
    C = CK // (k[0] * k[1])
    Hp, Wp = H + 2 * p[0], W + 2 * p[1]
    src = input.reshape(N, C, k[0] * k[1] * L)
    index = _index(table, input.device).reshape(1, 1, -1).expand(N, C, table.size)
    plane = _C.zeros(N, C, Hp * Wp, dtype=input.dtype, device=input.device).scatter_add(2, index, src)
    return plane.reshape(N, C, Hp, Wp)[:, :, p[0]:p[0] + H, p[1]:p[1] + W]
