"""torch.nn.utils.skip_init: a module built without running its parameter initialisation."""

from __future__ import annotations

import contextlib
import inspect
from typing import Any, Iterator

from .. import init as _init

# The in-place initialisers a module's reset_parameters calls through aakaar.nn.init.
_INITIALISERS = [name for name in dir(_init) if name.endswith("_") and not name.startswith("_")]


@contextlib.contextmanager
def _initialisers_skipped() -> Iterator[None]:
    saved = {name: getattr(_init, name) for name in _INITIALISERS}
    try:
        for name in saved:
            setattr(_init, name, lambda tensor, *args, **kwargs: tensor)
        yield
    finally:
        for name, fn in saved.items():
            setattr(_init, name, fn)


def skip_init(module_cls: Any, *args: Any, **kwargs: Any) -> Any:
    """``module_cls(*args, **kwargs)`` with its parameters and buffers left unspecified (torch builds it
    on the meta device and calls ``to_empty``; aakaar, which has no meta device, builds it directly with
    the ``nn.init`` initialisers turned into no-ops, then gives it fresh uninitialised storage the same
    way). A class must accept a ``device`` argument, as torch requires -- except aakaar.nn's own layers,
    which take none and are built on the CPU, then moved."""
    from ..module import Module

    if not (isinstance(module_cls, type) and issubclass(module_cls, Module)):
        raise RuntimeError(f"Expected a Module; got {module_cls}")
    takes_device = "device" in inspect.signature(module_cls).parameters
    # aakaar's own layers take no device argument (they are built on the CPU and moved with .to):
    # they are accepted; any other module must take one, as torch requires.
    if not takes_device and not module_cls.__module__.startswith("aakaar.nn"):
        raise RuntimeError("Module must support a 'device' arg to skip initialization")
    final_device = kwargs.pop("device", "cpu")
    with _initialisers_skipped():
        module = module_cls(*args, device=final_device, **kwargs) if takes_device else module_cls(*args, **kwargs)
    return module.to_empty(device=final_device)
