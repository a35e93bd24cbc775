"""``nn.FractionalMaxPool2d`` / ``3d``: the modules of ``F.fractional_max_pool2d`` / ``3d``."""

from __future__ import annotations

from typing import Any

from .._C import Tensor
from . import functional as F
from .module import Module

__all__ = ["FractionalMaxPool2d", "FractionalMaxPool3d"]


def _ntuple(value: Any, n: int) -> tuple:
    return tuple(value) if isinstance(value, (tuple, list)) else (value,) * n


class _FractionalMaxPoolNd(Module):
    _n = 2

    def __init__(self, kernel_size: Any, output_size: Any = None, output_ratio: Any = None,
                 return_indices: bool = False, _random_samples: Tensor | None = None) -> None:
        super().__init__()
        n, name = self._n, type(self).__name__
        self.kernel_size = _ntuple(kernel_size, n)
        self.return_indices = return_indices
        self.register_buffer("_random_samples", _random_samples)
        self.output_size = _ntuple(output_size, n) if output_size is not None else None
        self.output_ratio = _ntuple(output_ratio, n) if output_ratio is not None else None
        if output_size is None and output_ratio is None:
            raise ValueError(f"{name} requires specifying either an output size, or a pooling ratio")
        if output_size is not None and output_ratio is not None:
            raise ValueError("only one of output_size and output_ratio may be specified")
        if self.output_ratio is not None and not all(0 < r < 1 for r in self.output_ratio):
            raise ValueError(f"output_ratio must be between 0 and 1 (got {output_ratio})")

    def forward(self, input: Tensor) -> Any:
        fn = F.fractional_max_pool2d if self._n == 2 else F.fractional_max_pool3d
        return fn(input, self.kernel_size, self.output_size, self.output_ratio, self.return_indices,
                  _random_samples=self._random_samples)


class FractionalMaxPool2d(_FractionalMaxPoolNd):
    """2-d fractional max pooling (see ``F.fractional_max_pool2d``)."""

    _n = 2


class FractionalMaxPool3d(_FractionalMaxPoolNd):
    """3-d fractional max pooling (see ``F.fractional_max_pool3d``)."""

    _n = 3
