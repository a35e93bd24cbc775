"""Small utilities with PyTorch's names (``torch.utils.hooks``)."""

from . import hooks

__all__ = ["hooks"]
