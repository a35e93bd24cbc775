"""Spatial transformers: ``affine_grid`` (the sampling grid of a batch of affine maps) and
``grid_sample`` (reading an image or a volume at those points), 4-d and 5-d as PyTorch.

``grid_sample`` is a composition: coordinates unnormalised from [-1, 1], clipped or reflected by
the padding mode, the neighbouring pixels fetched with ``gather``, and the (bi/tri)linear or
bicubic weights computed from the coordinates, so the gradient reaches both the image and the grid
(through the weights; ``floor`` and the tap positions have none, as in PyTorch's formula).
"""

from __future__ import annotations

import itertools
import math
import warnings
from typing import Sequence

from .. import _C
from .._C import Tensor
from ..autograd.grad_mode import is_grad_enabled
from ..everyday_ops import _torch_name
from .functional_conv import _check_tensor as _check
from .functional_resample import _cubic_coefficients

__all__ = ["affine_grid", "grid_sample"]

_CUBIC_A = -0.75  # bicubic's cubic convolution parameter, as PyTorch's


def _align_warning(align_corners: bool | None) -> bool:
    if align_corners is None:
        warnings.warn("Default grid_sample and affine_grid behavior has changed to align_corners=False since 1.3.0. "
                      "Please specify align_corners=True if the old behavior is desired. See the documentation of "
                      "grid_sample for details.", stacklevel=3)
        return False
    return align_corners


def affine_grid(theta: Tensor, size: Sequence[int], align_corners: bool | None = None) -> Tensor:
    """The sampling grid of ``grid_sample`` for a batch of affine maps: theta (N, 2, 3) and size
    (N, C, H, W) -> (N, H, W, 2); theta (N, 3, 4) and size (N, C, D, H, W) -> (N, D, H, W, 3)."""
    _check(theta, "affine_grid", "theta")
    align_corners = _align_warning(align_corners)
    if not theta.is_floating_point():
        raise ValueError(f"Expected theta to have floating point type, but got {theta.dtype}")
    size = list(size)
    if len(size) == 4:
        if theta.ndim != 3 or tuple(theta.shape[1:]) != (2, 3):
            raise ValueError(f"Expected a batch of 2D affine matrices of shape Nx2x3 for size {size}. "
                             f"Got {list(theta.shape)}.")
        spatial = size[2:]
    elif len(size) == 5:
        if theta.ndim != 3 or tuple(theta.shape[1:]) != (3, 4):
            raise ValueError(f"Expected a batch of 3D affine matrices of shape Nx3x4 for size {size}. "
                             f"Got {list(theta.shape)}.")
        spatial = size[2:]
    else:
        raise NotImplementedError(f"affine_grid only supports 4D and 5D sizes, for 2D and 3D affine transforms, "
                                  f"respectively. Got size {size}.")
    if min(size) <= 0:
        raise ValueError(f"Expected non-zero, positive output size. Got {size}")
    n = size[0]

    def line(steps: int) -> Tensor:
        if steps <= 1:
            return _C.zeros([max(steps, 1)], dtype=theta.dtype)
        t = _C.linspace(-1.0, 1.0, steps, dtype=theta.dtype)
        return t if align_corners else t * ((steps - 1) / steps)

    # base grid (*spatial, k + 1): coordinates x, y[, z] (x varies along the last dim), then 1
    k = len(spatial)
    coords = []
    for axis in range(k):  # axis 0 is x (the last spatial dim)
        dim = k - 1 - axis
        shape = [1] * k
        shape[dim] = spatial[dim]
        coords.append(line(spatial[dim]).reshape(shape).expand(list(spatial)))
    coords.append(_C.ones(list(spatial), dtype=theta.dtype))
    base = _C.stack(coords, -1)._to_device(theta.device).reshape([1, -1, k + 1])
    grid = base.matmul(theta.transpose(1, 2))  # (N, prod(spatial), k)
    return grid.reshape([n] + list(spatial) + [k])


def _unnormalize(coord: Tensor, size: int, align_corners: bool) -> Tensor:
    if align_corners:
        return (coord + 1) * ((size - 1) / 2)
    return ((coord + 1) * size - 1) / 2


def _reflect(coord: Tensor, twice_low: int, twice_high: int) -> Tensor:
    """PyTorch's reflect_coordinates: fold coord into [low, high] by mirroring at both ends."""
    if twice_low == twice_high:
        return coord * 0
    lo = twice_low / 2
    span = (twice_high - twice_low) / 2
    x = (coord - lo).abs()
    extra = x.fmod(span)
    flips = (x / span).floor().detach()
    even = flips.fmod(2) == 0
    return _C.where(even, extra + lo, (extra * -1) + (span + lo))


def _clip(x: Tensor, size: int) -> Tensor:
    """PyTorch's clip_coordinates: x clamped to [0, size - 1]. Unlike ``clamp``'s, its gradient is 0
    on the ends themselves too (grid_sample's backward counts the borders as outside)."""
    inside = (x > 0) & (x < size - 1)
    return _C.where(inside, x, x.detach().clamp(0, size - 1))


def _pad(x: Tensor, size: int, padding_mode: str, align_corners: bool) -> Tensor:
    """PyTorch's compute_coordinates: a pixel coordinate moved inside by the padding mode ('zeros'
    leaves it, and the taps outside read 0)."""
    if padding_mode == "border":
        x = _clip(x, size)
    elif padding_mode == "reflection":
        x = _reflect(x, 0, 2 * (size - 1)) if align_corners else _reflect(x, -1, 2 * size - 1)
        x = _clip(x, size)
    return x


def _source(coord: Tensor, size: int, padding_mode: str, align_corners: bool) -> Tensor:
    return _pad(_unnormalize(coord, size, align_corners), size, padding_mode, align_corners)


def _check_grid_args(input: Tensor, grid: Tensor, mode: str) -> None:
    """PyTorch's checks (check_grid_sampler_common, _2d/_3d and the kernel's dtype dispatch), in its order."""
    if input.ndim == 0 or grid.ndim == 0:
        raise IndexError("Dimension specified as 0 but tensor has no dimensions")
    if input.device != grid.device:
        raise RuntimeError(f"grid_sampler(): expected input and grid to be on same device, but input is on "
                           f"{input.device} and grid is on {grid.device}")
    if input.shape[0] != grid.shape[0]:
        raise RuntimeError(f"grid_sampler(): expected grid and input to have same batch size, but got input with "
                           f"sizes {list(input.shape)} and grid with sizes {list(grid.shape)}")
    if grid.shape[-1] != input.ndim - 2:
        raise RuntimeError(f"grid_sampler(): expected grid to have size {input.ndim - 2} in last dimension, but got "
                           f"grid with sizes {list(grid.shape)}")
    for i in range(2, input.ndim):
        if input.shape[i] <= 0:
            raise RuntimeError(f"grid_sampler(): expected input to have non-empty spatial dimensions, but input has "
                               f"sizes {list(input.shape)} with dimension {i} being empty")
    k = 4 if input.ndim == 4 else 5
    if input.ndim != k or grid.ndim != k:
        raise RuntimeError(f"grid_sampler(): expected {k}D input and grid with same number of dimensions, but got "
                           f"input with sizes {list(input.shape)} and grid with sizes {list(grid.shape)}")
    if k == 5 and mode == "bicubic":
        raise RuntimeError("grid_sampler(): bicubic interpolation only supports 4D input")
    if not input.is_floating_point():
        kernel = "grid_sampler_2d_cpu_kernel_impl" if k == 4 else "grid_sampler3d_cpu"
        raise NotImplementedError(f"\"{kernel}\" not implemented for '{_torch_name(input.dtype)}'")
    if grid.dtype != input.dtype:
        raise RuntimeError(f"expected scalar type {_torch_name(input.dtype)} but found {_torch_name(grid.dtype)}")


def grid_sample(input: Tensor, grid: Tensor, mode: str = "bilinear", padding_mode: str = "zeros",
                align_corners: bool | None = None) -> Tensor:
    """Samples (N, C, H, W) at the (x, y) points of grid (N, Ho, Wo, 2), or (N, C, D, H, W) at the
    (x, y, z) points of grid (N, Do, Ho, Wo, 3), in [-1, 1] ((-1, -1[, -1]) the first corner): output
    (N, C, Ho, Wo) or (N, C, Do, Ho, Wo). Modes 'bilinear' (trilinear in 5-d), 'nearest' and
    'bicubic' (4-d only); padding 'zeros', 'border', 'reflection'."""
    _check(input, "grid_sample")
    _check(grid, "grid_sample", "grid")
    if mode not in ("bilinear", "nearest", "bicubic"):
        raise ValueError(f"nn.functional.grid_sample(): expected mode to be 'bilinear', 'nearest' or 'bicubic', "
                         f"but got: '{mode}'")
    if padding_mode not in ("zeros", "border", "reflection"):
        raise ValueError(f"nn.functional.grid_sample(): expected padding_mode to be 'zeros', 'border', or "
                         f"'reflection', but got: '{padding_mode}'")
    align_corners = _align_warning(align_corners)
    _check_grid_args(input, grid, mode)
    N, C = input.shape[0], input.shape[1]
    sizes = list(input.shape[2:])[::-1]  # W, H[, D]: the order of the grid's last dim
    out_shape = list(grid.shape[1:-1])
    P = math.prod(out_shape)
    planes = input.reshape(N, C, math.prod(sizes))
    coords = [grid.select(-1, i).reshape(N, 1, P) for i in range(len(sizes))]

    def tap(points: list[Tensor]) -> Tensor:
        """input at integer points (x, y[, z]) (float tensors, no gradient), 0 outside the input and
        at non-finite points."""
        inside, flat, stride = None, None, 1
        for p, size in zip(points, sizes):
            ok = (p >= 0) & (p <= size - 1)
            inside = ok if inside is None else inside & ok
            term = _C.where(ok, p, 0.0) * stride  # any valid index where masked (NaN too: no crash)
            flat = term if flat is None else flat + term
            stride *= size
        vals = planes.gather(2, flat.to(_C.dtype.int64).expand(N, C, P))
        return vals.masked_fill(inside.logical_not().expand(N, C, P), 0.0)

    if mode == "bicubic":
        # the point itself is not padded: the taps at floor - 1 .. floor + 2 are, one by one
        # (PyTorch's get_value_bounded), so the 4 x 4 window keeps its shape at the borders
        (W, H), (gx, gy) = sizes, coords
        x, y = _unnormalize(gx, W, align_corners), _unnormalize(gy, H, align_corners)
        x0, y0 = x.detach().floor(), y.detach().floor()
        wx, wy = _cubic_coefficients(x - x0, _CUBIC_A), _cubic_coefficients(y - y0, _CUBIC_A)
        xs = [_pad(x0 + (i - 1), W, padding_mode, align_corners) for i in range(4)]
        out = None
        for j in range(4):
            yj = _pad(y0 + (j - 1), H, padding_mode, align_corners)
            row = None
            for i in range(4):
                v = tap([xs[i], yj]) * wx[i]
                row = v if row is None else row + v
            out = row * wy[j] if out is None else out + row * wy[j]
    else:
        src = [_source(c, size, padding_mode, align_corners) for c, size in zip(coords, sizes)]
        if mode == "nearest":
            # round half to even, as std::nearbyint
            out = tap([p.detach().round() for p in src])
            if grid.requires_grad and is_grad_enabled():
                # PyTorch's grid gradient is zeros here, not absent: a path that carries none
                never = _C.zeros([N, 1, P], dtype=_C.dtype.bool)._to_device(grid.device)
                for p in src:
                    out = out + _C.where(never, p, 0.0)
        else:
            lows = [p.detach().floor() for p in src]
            fracs = [p - lo for p, lo in zip(src, lows)]
            out = None
            for corner in itertools.product((0, 1), repeat=len(sizes)):
                corner = corner[::-1]  # x varies fastest, as PyTorch's nw, ne, sw, se order
                w = None
                for c, f in zip(corner, fracs):
                    wd = f if c else 1 - f
                    w = wd if w is None else w * wd
                v = tap([lo + c for lo, c in zip(lows, corner)]) * w
                out = v if out is None else out + v
    return out.reshape([N, C] + out_shape)
