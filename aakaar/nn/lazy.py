"""Lazy modules: ``LazyLinear``, ``LazyConv1d``/``2d``/``3d``, ``LazyConvTranspose1d``/``2d``/``3d``,
``LazyBatchNorm1d``/``2d``/``3d``, ``LazyInstanceNorm1d``/``2d``/``3d``.

Each is built without its input size; its parameters are ``UninitializedParameter`` until the
first forward, which reads the size from the input, runs the ordinary layer's constructor (so the
initialisation is the layer's own) and turns the module into that layer (``cls_to_become``), as
PyTorch does.
"""

from __future__ import annotations

from typing import Any

from .._C import Tensor
from .layers import BatchNorm1d, Linear
from .layers_conv import Conv1d, Conv2d, Conv3d, ConvTranspose1d, ConvTranspose2d, ConvTranspose3d
from .layers_extra import InstanceNorm1d, InstanceNorm2d, InstanceNorm3d
from .layers_spatial import BatchNorm2d, BatchNorm3d
from .module import Module
from .parameter import UninitializedParameter

__all__ = [
    "LazyLinear", "LazyConv1d", "LazyConv2d", "LazyConv3d", "LazyConvTranspose1d", "LazyConvTranspose2d",
    "LazyConvTranspose3d", "LazyBatchNorm1d", "LazyBatchNorm2d", "LazyBatchNorm3d", "LazyInstanceNorm1d",
    "LazyInstanceNorm2d", "LazyInstanceNorm3d",
]


class _LazyModule(Module):
    """Holds the constructor arguments until the first input says the missing size."""

    cls_to_become: type
    _spatial = 0  # the number of spatial dims: an input of rank _spatial + 1 is unbatched

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__()
        kwargs.pop("device", None)
        object.__setattr__(self, "_lazy_args", (args, kwargs))
        self.weight = UninitializedParameter()

    def has_uninitialized_params(self) -> bool:
        return True

    def _input_size(self, input: Tensor) -> int:
        # the norms read dim 1 even of an unbatched input, as PyTorch's _LazyNormBase does
        if self._spatial and input.ndim == self._spatial + 1 and "Norm" not in type(self).__name__:
            return input.shape[0]
        if input.ndim < 2 and not isinstance(self, LazyLinear):
            raise ValueError(f"{type(self).__name__}: expected an input with a channel dim, got shape "
                             f"{list(input.shape)}")
        return input.shape[-1] if isinstance(self, LazyLinear) else input.shape[1]

    def initialize_parameters(self, input: Tensor) -> None:
        args, kwargs = self.__dict__.pop("_lazy_args")
        cls = self.cls_to_become
        training, size = self.training, self._input_size(input)
        self.__class__ = cls  # first: the layer's constructor calls super() on its own class
        cls.__init__(self, size, *args, **kwargs)
        self.train(training)

    def forward(self, input: Tensor, *args: Any, **kwargs: Any) -> Any:
        self.initialize_parameters(input)
        return self(input, *args, **kwargs)

    def extra_repr(self) -> str:
        args, kwargs = self.__dict__.get("_lazy_args", ((), {}))
        return ", ".join([f"0"] + [repr(a) for a in args] + [f"{k}={v!r}" for k, v in kwargs.items()])


def _lazy(name: str, cls: type, spatial: int, doc: str) -> type:
    return type(name, (_LazyModule,), {"cls_to_become": cls, "_spatial": spatial, "__doc__": doc,
                                       "__module__": __name__})


LazyLinear = _lazy("LazyLinear", Linear, 0, "A Linear whose in_features is read from the first input's last dim.")
LazyConv1d = _lazy("LazyConv1d", Conv1d, 1, "A Conv1d whose in_channels is read from the first input.")
LazyConv2d = _lazy("LazyConv2d", Conv2d, 2, "A Conv2d whose in_channels is read from the first input.")
LazyConv3d = _lazy("LazyConv3d", Conv3d, 3, "A Conv3d whose in_channels is read from the first input.")
LazyConvTranspose1d = _lazy("LazyConvTranspose1d", ConvTranspose1d, 1, "A lazy ConvTranspose1d.")
LazyConvTranspose2d = _lazy("LazyConvTranspose2d", ConvTranspose2d, 2, "A lazy ConvTranspose2d.")
LazyConvTranspose3d = _lazy("LazyConvTranspose3d", ConvTranspose3d, 3, "A lazy ConvTranspose3d.")
LazyBatchNorm1d = _lazy("LazyBatchNorm1d", BatchNorm1d, 0, "A BatchNorm1d whose num_features is read from dim 1.")
LazyBatchNorm2d = _lazy("LazyBatchNorm2d", BatchNorm2d, 0, "A BatchNorm2d whose num_features is read from dim 1.")
LazyBatchNorm3d = _lazy("LazyBatchNorm3d", BatchNorm3d, 0, "A BatchNorm3d whose num_features is read from dim 1.")


class _LazyInstanceNorm(_LazyModule):
    """PyTorch's lazy instance norms default to affine=True and track_running_stats=True (their
    _LazyNormBase's defaults), unlike the eager InstanceNorm layers."""

    def __init__(self, eps: float = 1e-5, momentum: float | None = 0.1, affine: bool = True,
                 track_running_stats: bool = True, device: object = None, dtype: Any = None, *,
                 bias: bool = True) -> None:
        super().__init__(eps, momentum, affine, track_running_stats, dtype=dtype, bias=bias)


LazyInstanceNorm1d = type("LazyInstanceNorm1d", (_LazyInstanceNorm,), {"cls_to_become": InstanceNorm1d, "_spatial": 1,
                                                                      "__doc__": "A lazy InstanceNorm1d."})
LazyInstanceNorm2d = type("LazyInstanceNorm2d", (_LazyInstanceNorm,), {"cls_to_become": InstanceNorm2d, "_spatial": 2,
                                                                      "__doc__": "A lazy InstanceNorm2d."})
LazyInstanceNorm3d = type("LazyInstanceNorm3d", (_LazyInstanceNorm,), {"cls_to_become": InstanceNorm3d, "_spatial": 3,
                                                                      "__doc__": "A lazy InstanceNorm3d."})
