"""Optimizers and learning-rate schedulers: the ``torch.optim`` of aakaar.

This package will hold ``Optimizer`` and its subclasses (SGD with momentum,
Adam, AdamW, ...) whose steps run as fused multi-tensor kernels in C++, and
the schedulers that change their learning rates. The book builds them in its
optimizer chapters; until then the package is empty, so that
``aakaar.optim`` is importable wherever ``torch.optim`` would be.
"""
