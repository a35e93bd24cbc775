"""Small utilities with PyTorch's names (``torch.utils.hooks``, ``torch.utils.data``)."""

from . import data, hooks

__all__ = ["data", "hooks"]
