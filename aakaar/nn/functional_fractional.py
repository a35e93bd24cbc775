"""Fractional max pooling (Graham, 2014): ``fractional_max_pool2d`` / ``3d``, PyTorch's algorithm.

Each (batch, channel) plane has its own random sample ``u`` in [0, 1) per spatial dim; the windows of
that dim start at ``int((i + u) * alpha) - int(u * alpha)`` with ``alpha = (in - k) / (out - 1)``
(the last at ``in - k``), computed in the input's floating-point type as PyTorch's kernel does, so the
same ``_random_samples`` give the same windows. The pooling is then a composition of recorded ops: a
``gather`` of every window's k values (row-major, so the first maximum is PyTorch's), the position of
the maximum (PyTorch's pick, NaN included), and a ``gather`` of that value and of its flat index; the
gradient flows back through the gathers to the indexed element.
"""

from __future__ import annotations

from typing import Any, Sequence, Union

import numpy as np

from .. import _C
from .._C import Tensor
from ..creation import tensor
from .functional_conv import _check_tensor, _ntuple

__all__ = ["fractional_max_pool2d", "fractional_max_pool3d", "fractional_max_pool2d_with_indices",
           "fractional_max_pool3d_with_indices"]

IntOrSeq = Union[int, Sequence[int]]


def _intervals(samples: np.ndarray, in_size: int, out_size: int, k: int) -> np.ndarray:
    """(planes, out_size) window starts, in the samples' float type (float32 for float32 inputs)."""
    ft = samples.dtype.type
    seq = np.empty((samples.shape[0], out_size), dtype=np.int64)
    if out_size > 1:
        alpha = ft(in_size - k) / ft(out_size - 1)
        i = np.arange(out_size - 1, dtype=samples.dtype)
        start = ((i[None, :] + samples[:, None]) * alpha).astype(np.int64)
        seq[:, :-1] = start - (samples * alpha).astype(np.int64)[:, None]
    if out_size > 0:
        seq[:, -1] = in_size - k
    return seq


def _window_argmax(values: Tensor) -> Tensor:
    """(..., 1) position of each window's maximum as PyTorch's kernel picks it: the first maximum, but
    the last NaN when the window holds any (its test is ``val > max || isnan(val)``)."""
    arg = values.argmax(-1, keepdim=True)
    nan = values.isnan()
    if not bool(nan.any()):
        return arg
    window = values.shape[-1]
    last_nan = (window - 1) - nan.flip([-1]).to(_C.dtype.int64).argmax(-1, keepdim=True)
    return _C.where(nan.any(-1, keepdim=True), last_nan, arg)


def _output_size(fn: str, n: int, input: Tensor, output_size: Any, output_ratio: Any) -> tuple[int, ...]:
    if output_size is None and output_ratio is None:
        raise ValueError(f"{fn} requires specifying either an output_size or an output_ratio")
    if output_size is not None:
        return _ntuple(output_size, n, "output_size", fn)
    ratio = (output_ratio,) * n if isinstance(output_ratio, (int, float)) else tuple(output_ratio)
    if len(ratio) == 1:
        ratio = ratio * n
    if len(ratio) != n:
        raise ValueError(f"{fn} requires output_ratio to either be a single Int or tuple of Ints.")
    return tuple(int(input.shape[-n + d] * ratio[d]) for d in range(n))


def _fractional_max_pool(fn: str, n: int, input: Tensor, kernel_size: IntOrSeq, output_size: Any,
                         output_ratio: Any, samples: Tensor | None) -> tuple[Tensor, Tensor]:
    _check_tensor(input, fn)
    if input.ndim not in (n + 1, n + 2):
        raise RuntimeError(f"{fn}(): Expected {n + 1}D or {n + 2}D tensor, but got: {list(input.shape)}")
    for d in range(input.ndim - n - 1, input.ndim):
        if d > 0 and input.shape[d] == 0:
            raise RuntimeError(f"{fn}(): Expected input to have non-zero size for non-batch dimensions, but got "
                               f"{list(input.shape)} with dimension {d} being empty.")
    k = _ntuple(kernel_size, n, "kernel_size", fn)
    out = _output_size(fn, n, input, output_size, output_ratio)
    sizes = tuple(input.shape[-n:])
    names = ("time", "height", "width")[3 - n:]
    for d in range(n):
        if k[d] <= 0 or out[d] <= 0:
            raise RuntimeError(f"{fn}(): kernel_size and output_size must be positive, got {k} and {out}")
        # PyTorch's 3-d kernel wants one more row than the 2-d one (its check is strict).
        if out[d] + k[d] - 1 > sizes[d] - (n == 3):
            raise RuntimeError(f"{fn}{'_out' if n == 3 else ''}(): pool {names[d]} {k[d]} too large relative to "
                               f"input {names[d]} {sizes[d]}")
    batched = input.ndim == n + 2
    N, C = (input.shape[0], input.shape[1]) if batched else (1, input.shape[0])
    if samples is None:
        samples = _C.rand(N, C, n, dtype=input.dtype, device=input.device)
    _check_tensor(samples, fn, "_random_samples")
    if tuple(samples.shape) != (N, C, n):
        raise RuntimeError(f"{fn}(): Expect _random_samples to have shape {[N, C, n]}, got {list(samples.shape)}")
    if samples.dtype != input.dtype:
        raise RuntimeError(f"{fn}(): expected _random_samples to have the input's dtype {input.dtype}, "
                           f"got {samples.dtype}")
    u = np.asarray(samples.detach().cpu().numpy()).reshape(N * C, n)
    # PyTorch's sample order: 2-d (w, h), 3-d (t, h, w).
    order = (1, 0) if n == 2 else (0, 1, 2)
    starts = [_intervals(u[:, order[d]], sizes[d], out[d], k[d]) for d in range(n)]
    # Flat index (in the plane) of each output position's window elements, row-major in the window.
    strides = [int(np.prod(sizes[d + 1:])) for d in range(n)]
    flat = np.zeros((N * C,) + out + k, dtype=np.int64)
    for d in range(n):
        shape = [N * C] + [1] * (2 * n)
        shape[1 + d] = out[d]
        pos = starts[d].reshape(shape)
        off_shape = [1] * (1 + 2 * n)
        off_shape[1 + n + d] = k[d]
        flat += (pos + np.arange(k[d]).reshape(off_shape)) * strides[d]
    window, positions = int(np.prod(k)), int(np.prod(out))
    flat = flat.reshape(N, C, positions * window)
    idx = tensor(np.ascontiguousarray(flat), device=input.device)
    x = input.reshape(N, C, int(np.prod(sizes)))
    values = x.gather(2, idx).reshape(N, C, positions, window)
    arg = _window_argmax(values.detach())
    # The gradient goes where the index points (a gather), as PyTorch's backward scatters to it.
    best = values.gather(3, arg)
    indices = idx.reshape(N, C, positions, window).gather(3, arg)
    lead = (N, C) if batched else (C,)
    return best.reshape(*lead, *out), indices.reshape(*lead, *out)


def fractional_max_pool2d_with_indices(input: Tensor, kernel_size: IntOrSeq, output_size: IntOrSeq | None = None,
                                       output_ratio: Any = None, return_indices: bool = False,
                                       _random_samples: Tensor | None = None) -> tuple[Tensor, Tensor]:
    """(values, indices into each H*W plane) of 2-d fractional max pooling."""
    return _fractional_max_pool("fractional_max_pool2d", 2, input, kernel_size, output_size, output_ratio,
                                _random_samples)


def fractional_max_pool2d(input: Tensor, kernel_size: IntOrSeq, output_size: IntOrSeq | None = None,
                          output_ratio: Any = None, return_indices: bool = False,
                          _random_samples: Tensor | None = None) -> Tensor | tuple[Tensor, Tensor]:
    """2-d fractional max pooling of (N, C, H, W) or (C, H, W) to ``output_size`` (or ``output_ratio``
    of the input's size), with pseudo-random windows of ``kernel_size``."""
    out = fractional_max_pool2d_with_indices(input, kernel_size, output_size, output_ratio, True, _random_samples)
    return out if return_indices else out[0]


def fractional_max_pool3d_with_indices(input: Tensor, kernel_size: IntOrSeq, output_size: IntOrSeq | None = None,
                                       output_ratio: Any = None, return_indices: bool = False,
                                       _random_samples: Tensor | None = None) -> tuple[Tensor, Tensor]:
    """(values, indices into each D*H*W volume) of 3-d fractional max pooling."""
    return _fractional_max_pool("fractional_max_pool3d", 3, input, kernel_size, output_size, output_ratio,
                                _random_samples)


def fractional_max_pool3d(input: Tensor, kernel_size: IntOrSeq, output_size: IntOrSeq | None = None,
                          output_ratio: Any = None, return_indices: bool = False,
                          _random_samples: Tensor | None = None) -> Tensor | tuple[Tensor, Tensor]:
    """3-d fractional max pooling of (N, C, D, H, W) or (C, D, H, W)."""
    out = fractional_max_pool3d_with_indices(input, kernel_size, output_size, output_ratio, True, _random_samples)
    return out if return_indices else out[0]
