"""Small utilities with PyTorch's names (``torch.utils.hooks``, ``torch.utils.data``,
``torch.utils.checkpoint``)."""

from . import checkpoint, data, hooks

__all__ = ["checkpoint", "data", "hooks"]
