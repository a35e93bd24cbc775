"""Turning graph recording off and on: ``no_grad``, ``enable_grad``,
``set_grad_enabled``. Each works as a context manager and as a decorator."""

from __future__ import annotations

import functools
from typing import Any, Callable, TypeVar

from .. import _C

F = TypeVar("F", bound=Callable[..., Any])

__all__ = ["no_grad", "enable_grad", "set_grad_enabled", "is_grad_enabled", "inference_mode", "is_inference_mode_enabled"]


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


_inference_depth = 0  # how many inference_mode(True) blocks are open (is_inference_mode_enabled)


class inference_mode(_GradMode):
    """``torch.inference_mode``: nothing inside is recorded, as with :class:`no_grad`
    (``inference_mode(False)`` changes nothing). PyTorch also marks the tensors made inside as
    *inference tensors* to skip its version counters; aakaar's tensors have no such flag, so
    inside this block they behave exactly as under ``no_grad``."""

    def __init__(self, mode: bool = True) -> None:
        self.enabled = bool(mode)

    def __new__(cls, mode: Any = True):
        self = object.__new__(cls)
        if callable(mode) and not isinstance(mode, bool):  # @inference_mode without parentheses
            self.enabled = True
            return self(mode)
        return self

    def _clone(self) -> "inference_mode":
        return inference_mode(self.enabled)

    def __enter__(self) -> None:
        global _inference_depth
        self._prev = _C.autograd.is_grad_enabled()
        if self.enabled:
            _C.autograd.set_grad_enabled(False)
            _inference_depth += 1

    def __exit__(self, *exc: Any) -> None:
        global _inference_depth
        if self.enabled:
            _inference_depth -= 1
        _C.autograd.set_grad_enabled(self._prev)


def is_inference_mode_enabled() -> bool:
    """Whether an ``inference_mode()`` block is open."""
    return _inference_depth > 0
