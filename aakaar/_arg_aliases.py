"""NumPy's argument names as aliases, as PyTorch accepts them: ``axis=`` for
``dim=`` and ``keepdims=`` for ``keepdim=``.

``x.sum(axis=1, keepdims=True)`` is ``x.sum(dim=1, keepdim=True)``. The methods
(and so the ``aakaar.sum(x, ...)`` functions, which call them) are wrapped in
Python; a call without keyword arguments goes straight through.
"""

from __future__ import annotations

import functools
from typing import Any, Callable

from ._C import Tensor

__all__ = ["ALIASES", "METHODS_WITH_DIM", "accept_numpy_names", "install"]

# alias -> the name aakaar (and PyTorch) use
ALIASES = {"axis": "dim", "keepdims": "keepdim"}

# Tensor methods that take ``dim`` (or ``keepdim``) by keyword.
METHODS_WITH_DIM = [
    "sum", "mean", "prod", "all", "any", "amax", "amin", "max", "min", "argmax", "argmin", "var", "std",
    "logsumexp", "softmax", "log_softmax", "cumsum", "squeeze", "unsqueeze", "narrow", "select", "split",
    "chunk", "unbind", "unflatten", "index_select", "gather", "scatter", "scatter_", "scatter_add",
    "scatter_add_", "size", "stride",
    # api-shape branch: sorting, scans and the reductions of aakaar/shape_ops.py, shape_extras.py
    "sort", "argsort", "topk", "kthvalue", "median", "nanmedian", "mode", "cumprod", "cummax", "cummin",
    "logcumsumexp", "count_nonzero", "nansum", "nanmean", "repeat_interleave", "unique", "index_add",
    "index_copy", "index_fill", "scatter_reduce", "std_mean", "var_mean", "aminmax",
]


def accept_numpy_names(fn: Callable[..., Any]) -> Callable[..., Any]:
    """``fn`` also accepting ``axis=`` and ``keepdims=``; passing a name and its alias together is a TypeError."""

    @functools.wraps(fn)
    def call(*args: Any, **kwargs: Any) -> Any:
        if kwargs:
            for alias, name in ALIASES.items():
                if alias in kwargs:
                    if name in kwargs:
                        raise TypeError(
                            f"{fn.__name__}(): got both '{name}' and its alias '{alias}'; pass only one of them"
                        )
                    kwargs[name] = kwargs.pop(alias)
        return fn(*args, **kwargs)

    call._accepts_numpy_names = True  # type: ignore[attr-defined]
    return call


def install() -> None:
    """Wraps the Tensor methods in METHODS_WITH_DIM (after aakaar._tensor has added its own)."""
    for name in METHODS_WITH_DIM:
        method = getattr(Tensor, name)
        if not getattr(method, "_accepts_numpy_names", False):
            setattr(Tensor, name, accept_numpy_names(method))
