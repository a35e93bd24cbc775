"""torch.nn.utils.convert_conv2d_weight_memory_format / convert_conv3d_weight_memory_format: the
weights of a model's (transposed) convolutions, and only those, re-laid out in a memory format
(e.g. channels_last), recursively through its children."""

from __future__ import annotations

from typing import Any, TypeVar

_M = TypeVar("_M")


def _convert(module: Any, memory_format: Any, kinds: tuple[type, ...]) -> Any:
    if isinstance(module, kinds):
        module.weight.data = module.weight.detach().clone().contiguous(memory_format=memory_format)
    for child in module.children():
        _convert(child, memory_format, kinds)
    return module


def convert_conv2d_weight_memory_format(module: _M, memory_format: Any) -> _M:
    """``module`` with the weight of every nn.Conv2d and nn.ConvTranspose2d in it in ``memory_format``."""
    from .. import Conv2d, ConvTranspose2d
    return _convert(module, memory_format, (Conv2d, ConvTranspose2d))


def convert_conv3d_weight_memory_format(module: _M, memory_format: Any) -> _M:
    """``module`` with the weight of every nn.Conv3d and nn.ConvTranspose3d in it in ``memory_format``."""
    from .. import Conv3d, ConvTranspose3d
    return _convert(module, memory_format, (Conv3d, ConvTranspose3d))
