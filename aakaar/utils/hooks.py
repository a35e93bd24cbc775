"""``RemovableHandle``: what every ``register_*_hook`` returns, as in ``torch.utils.hooks``."""

from __future__ import annotations

import itertools
import weakref
from collections import OrderedDict
from typing import Any

__all__ = ["RemovableHandle"]

_ids = itertools.count()


class RemovableHandle:
    """``handle.remove()`` unregisters the hook; also a context manager that removes it on exit.

    It keeps only a weak reference to the dicts it removes from, so a handle kept by the user
    does not keep a module alive."""

    def __init__(self, hooks_dict: Any, *, extra_dict: Any = None) -> None:
        self.hooks_dict_ref = weakref.ref(hooks_dict)
        self.id = next(_ids)
        extras = extra_dict if isinstance(extra_dict, (list, tuple)) else ([] if extra_dict is None else [extra_dict])
        self.extra_dict_ref = tuple(weakref.ref(d) for d in extras)

    def remove(self) -> None:
        for ref in (self.hooks_dict_ref, *self.extra_dict_ref):
            d = ref()
            if d is not None and self.id in d:
                del d[self.id]

    def __enter__(self) -> RemovableHandle:
        return self

    def __exit__(self, *exc: Any) -> None:
        self.remove()

    def __repr__(self) -> str:
        return f"<RemovableHandle id={self.id}>"


def add_hook(hooks: OrderedDict, hook: Any, prepend: bool = False,
             options: tuple[tuple[dict, Any], ...] = ()) -> RemovableHandle:
    """Puts ``hook`` in ``hooks`` (first with ``prepend``) and returns its handle; each
    ``(options_dict, value)`` records an option of this hook (with_kwargs, always_call) under its id,
    which the handle removes too."""
    if not callable(hook):
        raise TypeError(f"a hook must be callable, got {type(hook).__name__}")
    handle = RemovableHandle(hooks, extra_dict=[d for d, _ in options])
    hooks[handle.id] = hook
    if prepend:
        hooks.move_to_end(handle.id, last=False)
    for d, value in options:
        d[handle.id] = value
    return handle
