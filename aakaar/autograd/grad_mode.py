"""Turning graph recording off and on: ``no_grad``, ``enable_grad``,
``set_grad_enabled``. Each works as a context manager and as a decorator."""

from __future__ import annotations

import functools
from typing import Any, Callable, TypeVar

from .. import _C

F = TypeVar("F", bound=Callable[..., Any])

__all__ = ["no_grad", "enable_grad", "set_grad_enabled", "is_grad_enabled"]


def is_grad_enabled() -> bool:
    """Whether operations currently record the graph."""
    return _C.autograd.is_grad_enabled()


class _GradMode:
    """Sets grad mode on entry and restores the previous mode on exit."""

    mode: bool = True

    def __enter__(self) -> None:
        self._prev = _C.autograd.is_grad_enabled()
        _C.autograd.set_grad_enabled(self.mode)

    def __exit__(self, *exc: Any) -> None:
        _C.autograd.set_grad_enabled(self._prev)

    def __call__(self, fn: F) -> F:
        @functools.wraps(fn)
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            with self.__class__():
                return fn(*args, **kwargs)

        return wrapper  # type: ignore[return-value]


class no_grad(_GradMode):
    """Nothing inside is recorded: no graph, no saved tensors (inference, optimizer steps)."""

    mode = False


class enable_grad(_GradMode):
    """Recording on, even inside ``no_grad``."""

    mode = True


class set_grad_enabled(_GradMode):
    """``set_grad_enabled(False)`` is ``no_grad()``; it also switches the mode when called plainly."""

    def __init__(self, mode: bool) -> None:
        self.mode = bool(mode)
        self._prev = _C.autograd.is_grad_enabled()
        _C.autograd.set_grad_enabled(self.mode)

    def __enter__(self) -> None:
        pass  # already switched in __init__

    def __exit__(self, *exc: Any) -> None:
        _C.autograd.set_grad_enabled(self._prev)

    def __call__(self, fn: F) -> F:
        raise TypeError("set_grad_enabled(mode) is a context manager; as a decorator use no_grad() or enable_grad()")
