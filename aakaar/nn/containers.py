"""Containers: modules that hold other modules.

* ``Sequential`` chains its children: the output of one is the input of the next.
* ``ModuleList`` / ``ModuleDict`` are a list / dict whose entries are
  *registered* (a plain Python list of layers would hide their parameters
  from ``parameters()`` and ``state_dict()``).

Children are stored under their index as a string ("0", "1", ...), which is
why a Sequential's state_dict keys read ``0.weight``, ``2.bias``.
"""

from __future__ import annotations

from collections import OrderedDict
from typing import Any, Iterable, Iterator, Mapping

from .module import Module
from . import functional as F
from .layers import Linear, ReLU

__all__ = ["Sequential", "ModuleList", "ModuleDict"]


def _index(i: int, n: int, kind: str) -> int:
    if not isinstance(i, int):
        raise TypeError(f"{kind} indices must be integers or slices, not {type(i).__name__}")
    if not -n <= i < n:
        raise IndexError(f"index {i} is out of range for a {kind} of length {n}")
    return i % n


class Sequential(Module):
    """``Sequential(Linear(784, 256), ReLU(), Linear(256, 10))`` or ``Sequential(OrderedDict(...))``."""

    def __init__(self, *args: Module) -> None:
        super().__init__()
        if len(args) == 1 and isinstance(args[0], OrderedDict):
            for name, module in args[0].items():
                self.add_module(name, module)
        else:
            for i, module in enumerate(args):
                self.add_module(str(i), module)

    def __len__(self) -> int:
        return len(self._modules)

    def __iter__(self) -> Iterator[Module]:
        return iter(self._modules.values())

    def __getitem__(self, idx: int | slice) -> Any:
        if isinstance(idx, slice):
            return Sequential(OrderedDict(list(self._modules.items())[idx]))
        keys = list(self._modules)
        return self._modules[keys[_index(idx, len(keys), "Sequential")]]

    def __setitem__(self, idx: int, module: Module) -> None:
        keys = list(self._modules)
        self.add_module(keys[_index(idx, len(keys), "Sequential")], module)

    def append(self, module: Module) -> Sequential:
        self.add_module(str(len(self)), module)
        return self

    def forward(self, input: Any) -> Any:
        modules = list(self._modules.values())
        i = 0
        while i < len(modules):
            # Linear then ReLU runs as one fused op (F.linear(..., activation="relu")):
            # one GEMM with the ReLU in its epilogue and one autograd node instead of two.
            # Exact types only: a subclass may override forward.
            if i + 1 < len(modules) and type(modules[i]) is Linear and type(modules[i + 1]) is ReLU:
                params = modules[i]._parameters  # Linear.forward says why not .weight
                input = F.linear(input, params["weight"], params["bias"], activation="relu")
                i += 2
                continue
            input = modules[i](input)
            i += 1
        return input


class ModuleList(Module):
    """A list of registered modules; index it, iterate it, append to it. It has no forward."""

    def __init__(self, modules: Iterable[Module] | None = None) -> None:
        super().__init__()
        if modules is not None:
            self.extend(modules)

    def __len__(self) -> int:
        return len(self._modules)

    def __iter__(self) -> Iterator[Module]:
        return iter(self._modules.values())

    def __getitem__(self, idx: int | slice) -> Any:
        if isinstance(idx, slice):
            return ModuleList(list(self._modules.values())[idx])
        return self._modules[str(_index(idx, len(self), "ModuleList"))]

    def __setitem__(self, idx: int, module: Module) -> None:
        self.add_module(str(_index(idx, len(self), "ModuleList")), module)

    def __delitem__(self, idx: int) -> None:
        items = list(self._modules.values())
        del items[_index(idx, len(items), "ModuleList")]
        self._renumber(items)

    def _renumber(self, items: list[Module]) -> None:
        self._modules.clear()
        for i, m in enumerate(items):
            self.add_module(str(i), m)

    def append(self, module: Module) -> ModuleList:
        self.add_module(str(len(self)), module)
        return self

    def extend(self, modules: Iterable[Module]) -> ModuleList:
        for m in modules:
            self.append(m)
        return self

    def insert(self, index: int, module: Module) -> None:
        items = list(self._modules.values())
        items.insert(index, module)
        self._renumber(items)

    def __iadd__(self, modules: Iterable[Module]) -> ModuleList:
        return self.extend(modules)


class ModuleDict(Module):
    """A dict of registered modules, in insertion order. It has no forward."""

    def __init__(self, modules: Mapping[str, Module] | Iterable[tuple[str, Module]] | None = None) -> None:
        super().__init__()
        if modules is not None:
            self.update(modules)

    def __getitem__(self, key: str) -> Module:
        if key not in self._modules:
            raise KeyError(f"ModuleDict has no key {key!r} (keys: {list(self._modules)})")
        return self._modules[key]

    def __setitem__(self, key: str, module: Module) -> None:
        self.add_module(key, module)

    def __delitem__(self, key: str) -> None:
        del self._modules[key]

    def __len__(self) -> int:
        return len(self._modules)

    def __iter__(self) -> Iterator[str]:
        return iter(self._modules)

    def __contains__(self, key: object) -> bool:
        return key in self._modules

    def keys(self) -> Iterable[str]:
        return self._modules.keys()

    def values(self) -> Iterable[Module]:
        return self._modules.values()

    def items(self) -> Iterable[tuple[str, Module]]:
        return self._modules.items()

    def pop(self, key: str) -> Module:
        module = self[key]
        del self._modules[key]
        return module

    def update(self, modules: Mapping[str, Module] | Iterable[tuple[str, Module]]) -> None:
        pairs = modules.items() if isinstance(modules, Mapping) else modules
        for key, module in pairs:
            self.add_module(key, module)
