"""``Module``: the base class of every layer and model.

A module owns three ordered dicts, filled automatically by ``__setattr__``:

* ``_parameters``: :class:`Parameter` attributes (what an optimizer updates),
* ``_buffers``: tensors registered with ``register_buffer`` (state that is
  saved but not learned, e.g. BatchNorm's running statistics),
* ``_modules``: sub-modules, so ``named_parameters()`` can walk the tree.

Writing ``self.fc = Linear(3, 4)`` is all a model author does; the walk order
is registration order, self before children, like PyTorch, so state_dict keys
(``fc.weight``, ``fc.bias``) and parameter lists line up between the two.
"""

from __future__ import annotations

from collections import OrderedDict, namedtuple
from typing import Any, Callable, Iterator

from .. import _C
from .._C import Tensor
from .. import memory_formats as _memory_formats
from ..autograd import no_grad
from ..utils.hooks import RemovableHandle, add_hook
from .module_hooks import call_with_hooks
from .parameter import Buffer, Parameter

__all__ = ["Module"]

IncompatibleKeys = namedtuple("IncompatibleKeys", ["missing_keys", "unexpected_keys"])
_EXTRA_STATE = "_extra_state"  # the state_dict key of get_extra_state() (PyTorch's)


def _check_name(name: object, kind: str) -> None:
    if not isinstance(name, str):
        raise TypeError(f"{kind} name must be a string, got {type(name).__name__}")
    if name == "" or "." in name:
        raise KeyError(f"{kind} name can't be empty or contain '.', got {name!r}")


_FORMAT_RANK = {_memory_formats.channels_last: 4, _memory_formats.channels_last_3d: 5}


def _parse_to(args: tuple, kwargs: dict) -> tuple[Any, Any]:
    """(dtype, device) from ``to(dtype)``, ``to(device)``, ``to(device, dtype)``, ``to(tensor)``."""
    dtype, device = kwargs.pop("dtype", None), kwargs.pop("device", None)
    if kwargs:
        raise TypeError(f"Module.to() got unexpected keyword arguments {sorted(kwargs)}")
    for a in args:
        if isinstance(a, _C.dtype):
            dtype = a
        elif isinstance(a, Tensor):
            dtype, device = a.dtype, a.device
        elif isinstance(a, (str, _C.device)):
            device = a
        else:
            raise TypeError(f"Module.to() expects a dtype, a device or a tensor, got {type(a).__name__}")
    if dtype is not None and not dtype.is_floating_point:
        raise TypeError(f"Module.to() only accepts floating-point dtypes, got {dtype}")
    return dtype, device


class Module:
    """Base class for all layers and models. Subclasses call ``super().__init__()`` first,
    assign parameters and sub-modules as attributes, and define ``forward``."""

    training: bool

    def __init__(self) -> None:
        # object.__setattr__ because our own __setattr__ needs these dicts to exist.
        object.__setattr__(self, "training", True)
        object.__setattr__(self, "_parameters", OrderedDict())
        object.__setattr__(self, "_buffers", OrderedDict())
        object.__setattr__(self, "_non_persistent_buffers", set())
        object.__setattr__(self, "_modules", OrderedDict())

    def forward(self, *args: Any, **kwargs: Any) -> Any:
        raise NotImplementedError(f"Module [{type(self).__name__}] is missing the required \"forward\" function")

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        if self._has_hooks():
            return call_with_hooks(self, args, kwargs)
        return self.forward(*args, **kwargs)

    def _has_hooks(self) -> bool:
        """Whether a call runs hooks (so a caller that would skip ``__call__``, Sequential's fused
        Linear+ReLU, must not)."""
        d = self.__dict__
        return bool(d.get("_forward_pre_hooks") or d.get("_forward_hooks") or d.get("_backward_hooks")
                    or d.get("_backward_pre_hooks"))

    # ---- hooks (module_hooks.py runs them) --------------------------------------------------

    def _hook_dict(self, name: str) -> OrderedDict:
        # Made on first use: a module without hooks pays one dict lookup per call for them.
        return self.__dict__.setdefault(name, OrderedDict())

    def register_forward_pre_hook(self, hook: Callable, *, prepend: bool = False,
                                  with_kwargs: bool = False) -> RemovableHandle:
        """``hook(module, args)`` before forward (``hook(module, args, kwargs)`` with ``with_kwargs``);
        what it returns (not None) replaces the arguments."""
        return add_hook(self._hook_dict("_forward_pre_hooks"), hook, prepend,
                        ((self._hook_dict("_forward_pre_hooks_with_kwargs"), with_kwargs),))

    def register_forward_hook(self, hook: Callable, *, prepend: bool = False, with_kwargs: bool = False,
                              always_call: bool = False) -> RemovableHandle:
        """``hook(module, args, output)`` after forward (``hook(module, args, kwargs, output)`` with
        ``with_kwargs``); what it returns (not None) replaces the output. ``always_call``: also when
        forward raised (with output None)."""
        return add_hook(self._hook_dict("_forward_hooks"), hook, prepend,
                        ((self._hook_dict("_forward_hooks_with_kwargs"), with_kwargs),
                         (self._hook_dict("_forward_hooks_always_called"), always_call)))

    def register_full_backward_pre_hook(self, hook: Callable, prepend: bool = False) -> RemovableHandle:
        """``hook(module, grad_output)`` when the gradients of the module's outputs are known;
        what it returns (not None) replaces them."""
        return add_hook(self._hook_dict("_backward_pre_hooks"), hook, prepend)

    def register_full_backward_hook(self, hook: Callable, prepend: bool = False) -> RemovableHandle:
        """``hook(module, grad_input, grad_output)`` when the gradients of the module's positional tensor
        inputs are known (None for inputs that need none); what it returns (not None) replaces grad_input."""
        return add_hook(self._hook_dict("_backward_hooks"), hook, prepend)

    def register_state_dict_pre_hook(self, hook: Callable) -> RemovableHandle:
        """``hook(module, prefix, keep_vars)`` before this module's entries are put in a state_dict."""
        return add_hook(self._hook_dict("_state_dict_pre_hooks"), hook)

    def register_state_dict_post_hook(self, hook: Callable) -> RemovableHandle:
        """``hook(module, state_dict, prefix, local_metadata)`` once the state_dict is complete; it may
        change the dict in place (or return a new one for the top-level call)."""
        return add_hook(self._hook_dict("_state_dict_hooks"), hook)

    def register_load_state_dict_pre_hook(self, hook: Callable) -> RemovableHandle:
        """``hook(module, state_dict, prefix, local_metadata, strict, missing_keys, unexpected_keys,
        error_msgs)`` before anything is checked or loaded; it may edit ``state_dict`` in place (rename
        keys of an older checkpoint, for example)."""
        return add_hook(self._hook_dict("_load_state_dict_pre_hooks"), hook)

    def register_load_state_dict_post_hook(self, hook: Callable) -> RemovableHandle:
        """``hook(module, incompatible_keys)`` after loading. Unlike PyTorch's, it cannot turn a strict
        failure into success: with ``strict=True`` the keys are checked before anything is copied, so that
        a failed load changes nothing."""
        return add_hook(self._hook_dict("_load_state_dict_post_hooks"), hook)

    # ---- registration ---------------------------------------------------------------------

    def _registry(self, attr: str) -> OrderedDict:
        d = self.__dict__.get(attr)
        if d is None:
            raise AttributeError(f"cannot assign to {type(self).__name__} before Module.__init__() call")
        return d

    def register_parameter(self, name: str, param: Parameter | None) -> None:
        """Adds a parameter (or a None placeholder, e.g. ``bias=False``) under ``name``."""
        params = self._registry("_parameters")
        _check_name(name, "parameter")
        if hasattr(self, name) and name not in params:
            raise KeyError(f"attribute {name!r} already exists")
        if param is not None and not isinstance(param, Parameter):
            raise TypeError(
                f"cannot assign {type(param).__name__} object to parameter {name!r} (aakaar.nn.Parameter or None required)"
            )
        params[name] = param

    def register_buffer(self, name: str, tensor: Tensor | None, persistent: bool = True) -> None:
        """Adds a tensor that is module state but not a parameter; persistent ones go in state_dict."""
        buffers = self._registry("_buffers")
        _check_name(name, "buffer")
        if hasattr(self, name) and name not in buffers:
            raise KeyError(f"attribute {name!r} already exists")
        if tensor is not None and not isinstance(tensor, Tensor):
            raise TypeError(f"cannot assign {type(tensor).__name__} object to buffer {name!r} (aakaar.Tensor or None required)")
        buffers[name] = tensor
        if persistent:
            self._non_persistent_buffers.discard(name)
        else:
            self._non_persistent_buffers.add(name)

    def add_module(self, name: str, module: Module | None) -> None:
        """Adds a child module under ``name``."""
        modules = self._registry("_modules")
        _check_name(name, "module")
        if module is not None and not isinstance(module, Module):
            raise TypeError(f"{type(module).__name__} is not a Module subclass")
        if hasattr(self, name) and name not in modules:
            raise KeyError(f"attribute {name!r} already exists")
        modules[name] = module

    register_module = add_module

    def _param(self, name: str) -> Any:
        """``self.<name>`` for a forward's hot path: the registry entry of a plain parameter (no miss of
        the ordinary lookup before ``__getattr__``), else the attribute: a parametrized tensor
        (nn.utils.parametrize's property) or one that a forward pre-hook set (legacy weight_norm)."""
        params = self._parameters
        return params[name] if name in params else getattr(self, name, None)

    def __setattr__(self, name: str, value: Any) -> None:
        params = self.__dict__.get("_parameters")
        if isinstance(value, Buffer):
            if params is None:
                raise AttributeError("cannot assign buffer before Module.__init__() call")
            self._forget(name)
            self.register_buffer(name, value.detach(), persistent=value.persistent)
        elif isinstance(value, Parameter):
            if params is None:
                raise AttributeError("cannot assign parameters before Module.__init__() call")
            self._forget(name)
            self.register_parameter(name, value)
        elif params is not None and name in params:
            if value is not None:
                raise TypeError(
                    f"cannot assign {type(value).__name__} as parameter {name!r} (aakaar.nn.Parameter or None expected)"
                )
            params[name] = None
        elif isinstance(value, Module):
            if params is None:
                raise AttributeError("cannot assign a module before Module.__init__() call")
            self._forget(name)
            self._modules[name] = value
        elif params is not None and name in self._modules:
            if value is not None:
                raise TypeError(f"cannot assign {type(value).__name__} as child module {name!r} (Module or None expected)")
            self._modules[name] = None
        elif params is not None and name in self._buffers:
            if value is not None and not isinstance(value, Tensor):
                raise TypeError(f"cannot assign {type(value).__name__} as buffer {name!r} (aakaar.Tensor or None expected)")
            self._buffers[name] = value
        else:
            object.__setattr__(self, name, value)

    def _forget(self, name: str) -> None:
        """Removes ``name`` from every registry (an attribute changes kind)."""
        self.__dict__.pop(name, None)
        for reg in ("_parameters", "_buffers", "_modules"):
            self.__dict__[reg].pop(name, None)
        self._non_persistent_buffers.discard(name)

    def __getattr__(self, name: str) -> Any:
        # Only called when normal lookup fails, i.e. for registered entries.
        d = self.__dict__
        for reg in ("_parameters", "_buffers", "_modules"):
            if reg in d and name in d[reg]:
                return d[reg][name]
        raise AttributeError(f"'{type(self).__name__}' object has no attribute '{name}'")

    def __delattr__(self, name: str) -> None:
        for reg in ("_parameters", "_buffers", "_modules"):
            if name in self.__dict__.get(reg, {}):
                del self.__dict__[reg][name]
                self._non_persistent_buffers.discard(name)
                return
        object.__delattr__(self, name)

    def __dir__(self) -> list[str]:
        return sorted(set(super().__dir__()) | set(self._parameters) | set(self._buffers) | set(self._modules))

    def __deepcopy__(self, memo: dict) -> Module:
        """``copy.deepcopy(model)``: an independent module with cloned parameters and buffers (what
        ``nn.TransformerEncoder`` does to its layer, and what users do to keep a best model)."""
        new = type(self).__new__(type(self))
        memo[id(self)] = new
        for key, value in self.__dict__.items():
            object.__setattr__(new, key, _deepcopy_value(value, memo))
        return new

    # ---- walking the tree ------------------------------------------------------------------

    def named_modules(self, memo: set | None = None, prefix: str = "", remove_duplicate: bool = True) -> Iterator[tuple[str, Module]]:
        """(qualified name, module) for this module and every descendant, depth first."""
        if memo is None:
            memo = set()
        if remove_duplicate:
            if id(self) in memo:
                return
            memo.add(id(self))
        yield prefix, self
        for name, child in self._modules.items():
            if child is None:
                continue
            yield from child.named_modules(memo, prefix + ("." if prefix else "") + name, remove_duplicate)

    def modules(self) -> Iterator[Module]:
        yield from self._module_list()

    def _module_list(self) -> list[Module]:
        """This module and every descendant, depth first, each once: named_modules()
        without the names, which a training loop's zero_grad() and optimizer step
        ask for every step (building the dotted names costs more than the walk)."""
        out: list[Module] = []
        seen: set[int] = set()

        def visit(m: Module) -> None:
            if id(m) in seen:
                return
            seen.add(id(m))
            out.append(m)
            for child in m._modules.values():
                if child is not None:
                    visit(child)

        visit(self)
        return out

    def _member_list(self, registry: str, recurse: bool) -> list:
        """The values of named_parameters()/named_buffers() (same order, shared ones once), without names."""
        out, seen = [], set()
        for mod in self._module_list() if recurse else (self,):
            for value in mod.__dict__[registry].values():
                if value is not None and id(value) not in seen:
                    seen.add(id(value))
                    out.append(value)
        return out

    def named_children(self) -> Iterator[tuple[str, Module]]:
        seen = set()
        for name, child in self._modules.items():
            if child is not None and id(child) not in seen:
                seen.add(id(child))
                yield name, child

    def children(self) -> Iterator[Module]:
        for _, c in self.named_children():
            yield c

    def _named_members(self, registry: str, prefix: str, recurse: bool, remove_duplicate: bool = True):
        seen: set[int] = set()
        mods = self.named_modules(prefix=prefix, remove_duplicate=remove_duplicate) if recurse else [(prefix, self)]
        for mod_prefix, mod in mods:
            for name, value in mod.__dict__[registry].items():
                if value is None or (remove_duplicate and id(value) in seen):
                    continue
                seen.add(id(value))
                yield mod_prefix + ("." if mod_prefix else "") + name, value

    def named_parameters(self, prefix: str = "", recurse: bool = True, remove_duplicate: bool = True) -> Iterator[tuple[str, Parameter]]:
        """(qualified name, parameter) in registration order; a shared parameter appears once."""
        yield from self._named_members("_parameters", prefix, recurse, remove_duplicate)

    def parameters(self, recurse: bool = True) -> Iterator[Parameter]:
        yield from self._member_list("_parameters", recurse)

    def named_buffers(self, prefix: str = "", recurse: bool = True, remove_duplicate: bool = True) -> Iterator[tuple[str, Tensor]]:
        yield from self._named_members("_buffers", prefix, recurse, remove_duplicate)

    def buffers(self, recurse: bool = True) -> Iterator[Tensor]:
        yield from self._member_list("_buffers", recurse)

    # ---- modes, gradients, conversion -----------------------------------------------------

    def train(self, mode: bool = True) -> Module:
        """Training mode (Dropout drops, BatchNorm uses batch statistics) for this module and its children."""
        if not isinstance(mode, bool):
            raise ValueError(f"train(): mode must be a bool, got {type(mode).__name__}")
        for m in self.modules():
            object.__setattr__(m, "training", mode)
        return self

    def eval(self) -> Module:
        """Evaluation mode: ``train(False)``."""
        return self.train(False)

    def requires_grad_(self, requires_grad: bool = True) -> Module:
        for p in self.parameters():
            p.requires_grad_(requires_grad)
        return self

    def zero_grad(self, set_to_none: bool = True) -> None:
        """Drops every parameter's ``.grad`` (or zeroes it in place with ``set_to_none=False``).

        None is the default because it frees the memory and lets the next
        backward *assign* the gradient instead of adding to a zero tensor.
        """
        for p in self._member_list("_parameters", True):
            if p.grad is None:
                continue
            if set_to_none:
                p.grad = None
            else:
                with no_grad():
                    p.grad.zero_()

    def apply(self, fn: Callable[[Module], None]) -> Module:
        """Calls ``fn`` on every child (recursively) and then on this module, e.g. for custom init."""
        for child in self.children():
            child.apply(fn)
        fn(self)
        return self

    def _apply(self, convert: Callable[[Tensor], Tensor], recurse: bool = True) -> Module:
        """Replaces every parameter and buffer by ``convert(tensor)`` (a new Parameter for parameters);
        only this module's own with ``recurse=False``."""
        for m in self.modules() if recurse else [self]:
            for name, p in m._parameters.items():
                if p is None:
                    continue
                new = convert(p.detach())
                if new is not p:
                    m._parameters[name] = Parameter(new, requires_grad=p.requires_grad)
            for name, b in m._buffers.items():
                if b is not None:
                    m._buffers[name] = convert(b)
        return self

    def to(self, *args: Any, **kwargs: Any) -> Module:
        """Moves parameters and buffers to a device and/or casts the floating-point ones to a dtype:
        ``to(dtype)``, ``to(device)``, ``to(device, dtype)``, ``to(tensor)`` (its device and dtype).

        An unavailable device raises the tensor's RuntimeError before anything moves. Converted
        parameters are new Parameter objects (without ``.grad``), so build optimizers after ``to()``.
        """
        kwargs = dict(kwargs)
        fmt = kwargs.pop("memory_format", None)
        dtype, device = _parse_to(args, kwargs)
        if dtype is None and device is None and fmt is None:
            return self
        if device is not None:  # a malformed or unavailable device fails here, before anything moves
            _C.empty([0], device=device)

        def convert(t: Tensor) -> Tensor:
            cast = dtype if dtype is not None and t.dtype.is_floating_point else t.dtype
            moved = t.to(device=t.device if device is None else device, dtype=cast)
            # memory_format (torch's rule): only 4-d (channels_last) or 5-d (channels_last_3d) tensors change layout
            if fmt is not None and t.ndim == _FORMAT_RANK.get(fmt):
                moved = moved.contiguous(memory_format=fmt)
            return moved

        with no_grad():
            return self._apply(convert)

    def float(self) -> Module:
        return self.to(_C.dtype.float32)

    def double(self) -> Module:
        return self.to(_C.dtype.float64)

    def half(self) -> Module:
        """Casts the floating-point parameters and buffers to float16 (computed in float32, stored in 16 bits)."""
        return self.to(_C.dtype.float16)

    def bfloat16(self) -> Module:
        """Casts the floating-point parameters and buffers to bfloat16 (computed in float32, stored in 16 bits)."""
        return self.to(_C.dtype.bfloat16)

    def cpu(self) -> Module:
        """Moves every parameter and buffer to the CPU."""
        return self.to("cpu")

    def type(self, dst_type: Any) -> Module:
        """Casts every parameter and buffer to ``dst_type`` (a dtype, or a name such as "torch.DoubleTensor")."""
        return self._apply(lambda t: t.type(dst_type))

    def to_empty(self, *, device: Any, recurse: bool = True) -> Module:
        """Moves parameters and buffers to ``device`` *without copying their values* (the new memory is
        uninitialised): for modules built on the "meta"-like path that are then initialised in place."""
        from .. import empty_like

        return self._apply(lambda t: empty_like(t, device=device), recurse)

    def cuda(self, device: int | None = None) -> Module:
        """Moves every parameter and buffer to the GPU (``cuda:device``, default the current one)."""
        return self.to("cuda" if device is None else f"cuda:{device}")

    # ---- state_dict ---------------------------------------------------------------------------

    def state_dict(self, destination: OrderedDict | None = None, prefix: str = "", keep_vars: bool = False) -> OrderedDict:
        """Parameters and persistent buffers by qualified name. Values are detached aliases
        (not copies): save them, or clone them to keep a snapshot."""
        out = OrderedDict() if destination is None else destination
        post_hooks = []
        for mod_prefix, mod in self.named_modules(prefix=prefix.rstrip("."), remove_duplicate=False):
            dot = mod_prefix + ("." if mod_prefix else "")
            for hook in list(mod.__dict__.get("_state_dict_pre_hooks", {}).values()):
                hook(mod, dot, keep_vars)
            for name, p in mod._parameters.items():
                if p is not None:
                    out[dot + name] = p if keep_vars else p.detach()
            for name, b in mod._buffers.items():
                if b is not None and name not in mod._non_persistent_buffers:
                    out[dot + name] = b if keep_vars else b.detach()
            if type(mod).get_extra_state is not Module.get_extra_state:
                out[dot + _EXTRA_STATE] = mod.get_extra_state()
            post_hooks += [(hook, mod, dot) for hook in mod.__dict__.get("_state_dict_hooks", {}).values()]
        # Children's hooks before their parents' (PyTorch calls each when its subtree is done).
        for hook, mod, dot in reversed(post_hooks):
            answer = hook(mod, out, dot, {})
            if answer is not None and mod is self:
                out = answer
        return out

    def load_state_dict(self, state_dict: dict, strict: bool = True) -> IncompatibleKeys:
        """Copies tensors from ``state_dict`` into this module's parameters and buffers.

        Everything is checked first; if anything is wrong (a missing or
        unexpected key with ``strict=True``, a shape mismatch, a non-tensor
        value) a RuntimeError lists every problem and *nothing* is copied.
        """
        if not isinstance(state_dict, dict):
            raise TypeError(f"load_state_dict() expects a dict, got {type(state_dict).__name__}")
        modules = list(self.named_modules(remove_duplicate=False))
        if any(m.__dict__.get("_load_state_dict_pre_hooks") for _, m in modules):
            state_dict = OrderedDict(state_dict)  # the hooks may edit it: never the caller's dict
            for mod_prefix, mod in modules:
                for hook in list(mod.__dict__.get("_load_state_dict_pre_hooks", {}).values()):
                    hook(mod, state_dict, mod_prefix + ("." if mod_prefix else ""), {}, strict, [], [], [])
        own = self.state_dict(keep_vars=True)
        extra_states = [(mod_prefix + ("." if mod_prefix else "") + _EXTRA_STATE, mod) for mod_prefix, mod in modules
                        if type(mod).get_extra_state is not Module.get_extra_state]
        for key, _ in extra_states:
            own.pop(key, None)
        extra_keys = {key for key, _ in extra_states}
        missing = [k for k in own if k not in state_dict] + [k for k in extra_keys if k not in state_dict]
        unexpected = [k for k in state_dict if k not in own and k not in extra_keys]
        errors = []
        if strict and unexpected:
            errors.append("Unexpected key(s) in state_dict: " + ", ".join(f'"{k}"' for k in unexpected) + ".")
        if strict and missing:
            errors.append("Missing key(s) in state_dict: " + ", ".join(f'"{k}"' for k in missing) + ".")
        staged = []
        for key, target in own.items():
            if key not in state_dict:
                continue
            value = state_dict[key]
            if not isinstance(value, Tensor):
                errors.append(f'While copying the parameter named "{key}", expected an aakaar.Tensor, got {type(value).__name__}.')
                continue
            if tuple(value.shape) != tuple(target.shape):
                errors.append(
                    f"size mismatch for {key}: copying a param with shape {tuple(value.shape)} from checkpoint, "
                    f"the shape in current model is {tuple(target.shape)}."
                )
                continue
            staged.append((target, value))
        if errors:
            raise RuntimeError(
                f"Error(s) in loading state_dict for {type(self).__name__}:\n\t" + "\n\t".join(errors)
            )
        with no_grad():
            # Convert everything before writing anything, so a failed conversion cannot leave a half-loaded model.
            converted = [(t, v if v.dtype == t.dtype else v.to(t.dtype)) for t, v in staged]
            for target, value in converted:
                target.copy_(value)
        for key, mod in extra_states:
            if key in state_dict:
                mod.set_extra_state(state_dict[key])
        result = IncompatibleKeys(missing, unexpected)
        for _, mod in modules:
            for hook in list(mod.__dict__.get("_load_state_dict_post_hooks", {}).values()):
                hook(mod, result)
        return result

    def get_extra_state(self) -> Any:
        """Override (with ``set_extra_state``) to keep state that is not a tensor in the state_dict,
        under the key ``_extra_state``."""
        raise RuntimeError("Reached a code path in Module.get_extra_state() that should never be called: "
                           "override get_extra_state (and set_extra_state) together")

    def set_extra_state(self, state: Any) -> None:
        """Receives what ``get_extra_state`` returned, from load_state_dict."""
        raise RuntimeError("Reached a code path in Module.set_extra_state() that should never be called: "
                           "override set_extra_state (and get_extra_state) together")

    # ---- finding members by qualified name ---------------------------------------------------

    def get_submodule(self, target: str) -> Module:
        """The sub-module at ``target`` ("encoder.layers.0"); "" is this module."""
        if target == "":
            return self
        mod: Module = self
        walked = []
        for item in target.split("."):
            if not hasattr(mod, item):
                raise AttributeError(f"{mod._get_name()} has no attribute `{item}`"
                                     + (f" (in {'.'.join(walked)})" if walked else ""))
            mod = getattr(mod, item)
            walked.append(item)
            if not isinstance(mod, Module):
                raise AttributeError(f"`{item}` is not an nn.Module")
        return mod

    def set_submodule(self, target: str, module: Module, strict: bool = False) -> None:
        """Puts ``module`` at ``target``; with ``strict``, the attribute must exist and be a sub-module."""
        if target == "":
            raise ValueError("Cannot set the submodule without a target name!")
        if not isinstance(module, Module):
            raise ValueError(f"`module` is not an nn.Module, found {type(module)}")
        parent_path, _, name = target.rpartition(".")
        parent = self.get_submodule(parent_path)
        if strict and not hasattr(parent, name):
            raise AttributeError(f"{parent._get_name()} has no attribute `{name}`")
        if hasattr(parent, name) and not isinstance(getattr(parent, name), Module) and getattr(parent, name) is not None:
            raise AttributeError(f"`{name}` is not an nn.Module")
        setattr(parent, name, module)

    def get_parameter(self, target: str) -> Parameter:
        """The parameter at ``target`` ("fc.weight")."""
        module_path, _, name = target.rpartition(".")
        mod = self.get_submodule(module_path)
        if not hasattr(mod, name):
            raise AttributeError(f"{mod._get_name()} has no attribute `{name}`")
        param = getattr(mod, name)
        if not isinstance(param, Parameter):
            raise AttributeError(f"`{name}` is not an nn.Parameter")
        return param

    def get_buffer(self, target: str) -> Tensor:
        """The buffer at ``target`` ("bn.running_mean")."""
        module_path, _, name = target.rpartition(".")
        mod = self.get_submodule(module_path)
        if not hasattr(mod, name):
            raise AttributeError(f"{mod._get_name()} has no attribute `{name}`")
        if name not in mod._buffers:
            raise AttributeError(f"`{name}` is not a buffer")
        return mod._buffers[name]

    # ---- printing -----------------------------------------------------------------------------

    def extra_repr(self) -> str:
        """The text inside the parentheses of this module's repr line (override in layers)."""
        return ""

    def _get_name(self) -> str:
        return type(self).__name__

    def __repr__(self) -> str:
        lines = []
        extra = self.extra_repr()
        if extra:
            lines = extra.split("\n")
        for name, child in self._modules.items():
            child_repr = repr(child).replace("\n", "\n  ")
            lines.append(f"({name}): {child_repr}")
        head = self._get_name() + "("
        if not lines:
            return head + ")"
        if len(lines) == 1 and not self._modules:
            return head + lines[0] + ")"
        return head + "\n  " + "\n  ".join(lines) + "\n)"


def _deepcopy_value(value: Any, memo: dict) -> Any:
    """copy.deepcopy that also copies tensors: a Parameter stays a Parameter, a tensor's data is
    cloned and keeps requires_grad; tensors shared within the module stay shared (the memo)."""
    import copy

    if id(value) in memo:
        return memo[id(value)]
    if isinstance(value, Tensor):
        data = value.detach().clone()
        if isinstance(value, Parameter):
            out: Any = Parameter(data, value.requires_grad)
        else:
            out = data.requires_grad_(value.requires_grad) if value.is_leaf else data
        memo[id(value)] = out
        return out
    if type(value) in (dict, OrderedDict):
        out = type(value)()
        memo[id(value)] = out
        for k, v in value.items():
            out[k] = _deepcopy_value(v, memo)
        return out
    if type(value) in (list, tuple):
        items = [_deepcopy_value(v, memo) for v in value]
        return items if type(value) is list else tuple(items)
    return copy.deepcopy(value, memo)

