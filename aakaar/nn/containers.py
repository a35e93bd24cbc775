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

from .._C import Tensor
from .module import Module
from .parameter import Parameter
from . import functional as F
from .layers import Linear, ReLU

__all__ = ["Sequential", "ModuleList", "ModuleDict", "ParameterList", "ParameterDict"]


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
            # Exact types only: a subclass may override forward. Not with hooks (a legacy
            # weight_norm's pre-hook computes the weight), which only __call__ runs.
            if (i + 1 < len(modules) and type(modules[i]) is Linear and type(modules[i + 1]) is ReLU
                    and not modules[i]._has_hooks() and not modules[i + 1]._has_hooks()):
                lin = modules[i]
                input = F.linear(input, lin._param("weight"), lin._param("bias"), activation="relu")
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


def _as_parameter(value: Any) -> Any:
    """PyTorch's rule for ParameterList/Dict entries: a plain tensor becomes a Parameter; other
    objects are kept as ordinary attributes."""
    if isinstance(value, Tensor) and not isinstance(value, Parameter):
        return Parameter(value)
    return value


class ParameterList(Module):
    """A list of registered parameters (state_dict keys "0", "1", ...); tensors are wrapped in Parameter."""

    def __init__(self, values: Iterable[Any] | None = None) -> None:
        super().__init__()
        self._size = 0
        if values is not None:
            self.extend(values)

    def __len__(self) -> int:
        return self._size

    def __getitem__(self, idx: int | slice) -> Any:
        if isinstance(idx, slice):
            return ParameterList([self[i] for i in range(len(self))[idx]])
        return getattr(self, str(_index(idx, len(self), "ParameterList")))

    def __setitem__(self, idx: int, param: Any) -> None:
        setattr(self, str(_index(idx, len(self), "ParameterList")), _as_parameter(param))

    def __iter__(self) -> Iterator[Any]:
        return iter(self[i] for i in range(len(self)))

    def __iadd__(self, parameters: Iterable[Any]) -> ParameterList:
        return self.extend(parameters)

    def append(self, value: Any) -> ParameterList:
        self._size += 1
        setattr(self, str(self._size - 1), _as_parameter(value))
        return self

    def extend(self, values: Iterable[Any]) -> ParameterList:
        if isinstance(values, Tensor) or not hasattr(values, "__iter__"):
            raise TypeError(f"ParameterList.extend should be called with an iterable, but got {type(values).__name__}")
        for v in values:
            self.append(v)
        return self

    def extra_repr(self) -> str:
        lines = []
        for i, p in enumerate(self):
            if isinstance(p, Tensor):
                kind = "Parameter" if isinstance(p, Parameter) else "Tensor"
                lines.append(f"  ({i}): {kind} containing: [{p.dtype} of size {'x'.join(map(str, p.shape))}]")
            else:
                lines.append(f"  ({i}): Object of type: {type(p).__name__}")
        return "\n".join(lines)


class ParameterDict(Module):
    """A dict of registered parameters, in insertion order; tensors are wrapped in Parameter."""

    def __init__(self, parameters: Any = None) -> None:
        super().__init__()
        self._keys: dict[str, None] = {}
        if parameters is not None:
            self.update(parameters)

    def __getitem__(self, key: str) -> Any:
        if key not in self._keys:
            raise KeyError(key)
        return getattr(self, key)

    def __setitem__(self, key: str, value: Any) -> None:
        if not isinstance(key, str):
            raise TypeError(f"ParameterDict keys must be strings, got {type(key).__name__}")
        self._keys[key] = None
        setattr(self, key, _as_parameter(value))

    def __delitem__(self, key: str) -> None:
        del self._keys[key]
        delattr(self, key)

    def __len__(self) -> int:
        return len(self._keys)

    def __iter__(self) -> Iterator[str]:
        return iter(self._keys)

    def __reversed__(self) -> Iterator[str]:
        return reversed(list(self._keys))

    def __contains__(self, key: object) -> bool:
        return key in self._keys

    def copy(self) -> ParameterDict:
        return ParameterDict(OrderedDict((k, self[k]) for k in self._keys))

    def setdefault(self, key: str, default: Any = None) -> Any:
        if key not in self:
            self[key] = default
        return self[key]

    def clear(self) -> None:
        for k in list(self._keys):
            del self[k]

    def pop(self, key: str) -> Any:
        v = self[key]
        del self[key]
        return v

    def popitem(self) -> tuple[str, Any]:
        k = list(self._keys)[-1]
        return k, self.pop(k)

    def get(self, key: str, default: Any = None) -> Any:
        return self[key] if key in self else default

    def fromkeys(self, keys: Iterable[str], default: Any = None) -> ParameterDict:
        return ParameterDict((k, default) for k in keys)

    def keys(self) -> Iterable[str]:
        return self._keys.keys()

    def items(self) -> Iterable[tuple[str, Any]]:
        return ((k, self[k]) for k in self._keys)

    def values(self) -> Iterable[Any]:
        return (self[k] for k in self._keys)

    def update(self, parameters: Any) -> None:
        if isinstance(parameters, (OrderedDict, ParameterDict)):
            pairs = list(parameters.items())
        elif isinstance(parameters, Mapping):
            pairs = sorted(parameters.items())  # PyTorch sorts a plain dict's keys
        else:
            pairs = []
            for j, p in enumerate(parameters):
                if not isinstance(p, (tuple, list)) or len(p) != 2:
                    raise ValueError(f"ParameterDict update sequence element #{j} has length "
                                     f"{len(p) if hasattr(p, '__len__') else '?'}; 2 is required")
                pairs.append((p[0], p[1]))
        for k, v in pairs:
            self[k] = v

    def __or__(self, other: ParameterDict) -> ParameterDict:
        out = self.copy()
        out.update(other)
        return out
