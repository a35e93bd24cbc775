"""Small utilities with PyTorch's names (``torch.utils.hooks``, ``torch.utils.data``)."""

from . import checkpoint, data, hooks

__all__ = ["checkpoint", "data", "hooks"]
