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

    def __new__(cls, fn: Callable[..., Any] | None = None):
        # `@no_grad` without parentheses (as torch allows): the class is
        # called with the function itself; return the wrapped function.
        self = super().__new__(cls)
        if fn is not None and callable(fn):
            return self(fn)
        return self

    def __init__(self, fn: Callable[..., Any] | None = None) -> None:
        pass

    def _clone(self) -> "_GradMode":
        return self.__class__()

    def __call__(self, fn: F) -> F:
        @functools.wraps(fn)
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            # A fresh manager per call: the decorated function may recurse or
            # run in several threads, and each needs its own saved mode.
            with self._clone():
                return fn(*args, **kwargs)

        return wrapper  # type: ignore[return-value]


class no_grad(_GradMode):
    """Nothing inside is recorded: no graph, no saved tensors (inference, optimizer steps)."""

    mode = False


class enable_grad(_GradMode):
    """Recording on, even inside ``no_grad``."""

    mode = True


class set_grad_enabled(_GradMode):
    """``set_grad_enabled(False)`` is ``no_grad()``. Called plainly it switches
    the mode for good; as a context manager it restores the mode on exit; as
    a decorator it runs the function in that mode (like torch)."""

    def __new__(cls, mode: bool):
        return object.__new__(cls)

    def __init__(self, mode: bool) -> None:
        if not isinstance(mode, (bool, int)):
            raise TypeError(f"set_grad_enabled(mode): mode must be a bool, got {type(mode).__name__}")
        self.mode = bool(mode)
        self._prev = _C.autograd.is_grad_enabled()
        _C.autograd.set_grad_enabled(self.mode)

    def __enter__(self) -> None:
        pass  # already switched in __init__

    def __exit__(self, *exc: Any) -> None:
        _C.autograd.set_grad_enabled(self._prev)

    def _clone(self) -> "_GradMode":
        return _ScopedMode(self.mode)

    def __call__(self, fn: F) -> F:
        # Used as a decorator, the switch made by __init__ must not last.
        _C.autograd.set_grad_enabled(self._prev)
        return super().__call__(fn)


class _ScopedMode(_GradMode):
    """A context manager for a given mode (what set_grad_enabled's decorator uses per call)."""

    def __new__(cls, mode: bool):
        return object.__new__(cls)

    def __init__(self, mode: bool) -> None:
        self.mode = mode
