"""Spatial transformers: ``affine_grid`` (the sampling grid of a batch of affine maps) and
``grid_sample`` (reading an image at those points), for 4-d inputs; ``affine_grid`` also in 3-d.

``grid_sample`` is a composition: coordinates unnormalised from [-1, 1], clipped or reflected by
the padding mode, the corner pixels fetched with ``gather``, and the bilinear weights computed
from the coordinates, so the gradient reaches both the image and the grid (through the weights;
``floor`` has none, as in PyTorch's formula).
"""

from __future__ import annotations

import warnings
from typing import Sequence

from .. import _C
from .._C import Tensor
from .functional_conv import _check_tensor as _check

__all__ = ["affine_grid", "grid_sample"]


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


def _source(coord: Tensor, size: int, padding_mode: str, align_corners: bool) -> Tensor:
    x = _unnormalize(coord, size, align_corners)
    if padding_mode == "border":
        x = x.clamp(0, size - 1)
    elif padding_mode == "reflection":
        x = _reflect(x, 0, 2 * (size - 1)) if align_corners else _reflect(x, -1, 2 * size - 1)
        x = x.clamp(0, size - 1)
    return x


def grid_sample(input: Tensor, grid: Tensor, mode: str = "bilinear", padding_mode: str = "zeros",
                align_corners: bool | None = None) -> Tensor:
    """Samples (N, C, H, W) at the (x, y) points of grid (N, Ho, Wo, 2), in [-1, 1] ((-1, -1) the
    top-left corner): output (N, C, Ho, Wo). Modes 'bilinear' and 'nearest'; padding 'zeros',
    'border', 'reflection'."""
    _check(input, "grid_sample")
    _check(grid, "grid_sample", "grid")
    if mode not in ("bilinear", "nearest", "bicubic"):
        raise ValueError(f"nn.functional.grid_sample(): expected mode to be 'bilinear', 'nearest' or 'bicubic', "
                         f"but got: '{mode}'")
    if padding_mode not in ("zeros", "border", "reflection"):
        raise ValueError(f"nn.functional.grid_sample(): expected padding_mode to be 'zeros', 'border', or "
                         f"'reflection', but got: '{padding_mode}'")
    align_corners = _align_warning(align_corners)
    if input.ndim == 5:
        raise NotImplementedError("grid_sample: 5-d (volumetric) inputs are not supported by aakaar yet")
    if mode == "bicubic":
        raise NotImplementedError("grid_sample: mode='bicubic' is not supported by aakaar yet")
    if input.ndim != 4 or grid.ndim != 4 or grid.shape[-1] != 2:
        raise RuntimeError(f"grid_sampler(): expected 4D input and grid with same number of dimensions and "
                           f"grid.size(-1) == 2, but got input of shape {list(input.shape)} and grid of shape "
                           f"{list(grid.shape)}")
    if input.shape[0] != grid.shape[0]:
        raise RuntimeError(f"grid_sampler(): expected grid and input to have same batch size, but got input with "
                           f"sizes {list(input.shape)} and grid with sizes {list(grid.shape)}")
    N, C, H, W = input.shape
    Ho, Wo = grid.shape[1], grid.shape[2]
    x = _source(grid.select(-1, 0), W, padding_mode, align_corners).reshape(N, 1, Ho * Wo)
    y = _source(grid.select(-1, 1), H, padding_mode, align_corners).reshape(N, 1, Ho * Wo)
    planes = input.reshape(N, C, H * W)

    def tap(xi: Tensor, yi: Tensor) -> Tensor:
        """input at integer points (xi, yi) (float tensors), 0 outside the image."""
        inside = (xi >= 0) & (xi <= W - 1) & (yi >= 0) & (yi <= H - 1)
        flat = (yi.clamp(0, H - 1) * W + xi.clamp(0, W - 1)).to(_C.dtype.int64)
        vals = planes.gather(2, flat.expand(N, C, Ho * Wo))
        return vals.masked_fill(inside.logical_not().expand(N, C, Ho * Wo), 0.0)

    if mode == "nearest":
        out = tap(x.detach().round(), y.detach().round())
    else:
        x0, y0 = x.detach().floor(), y.detach().floor()
        wx1, wy1 = x - x0, y - y0
        wx0, wy0 = 1 - wx1, 1 - wy1
        out = (tap(x0, y0) * (wx0 * wy0) + tap(x0 + 1, y0) * (wx1 * wy0)
               + tap(x0, y0 + 1) * (wx0 * wy1) + tap(x0 + 1, y0 + 1) * (wx1 * wy1))
    return out.reshape(N, C, Ho, Wo)

