"""``torch.nn.utils.parametrize``: a module's tensor computed from others each time it is read.

``register_parametrization(m, "weight", P())`` moves ``m.weight`` to
``m.parametrizations.weight.original`` (the state_dict key PyTorch uses) and makes ``m.weight``
read ``P(original)``. As in PyTorch, the module's class is swapped for a generated subclass
(``ParametrizedLinear``) that holds ``weight`` as a property: a property is a data descriptor,
so it wins over ``Module.__getattr__`` on reads, and ``Module.__setattr__`` falls through to
``object.__setattr__`` for a plain tensor, which calls the property's setter (``right_inverse``).
Taking the last parametrization off restores the original class.
"""

from __future__ import annotations

from collections.abc import Sequence
from contextlib import contextmanager
from typing import Any, Iterator

from ..._C import Tensor
from ...autograd import no_grad
from ..containers import ModuleDict, ModuleList
from ..module import Module
from ..parameter import Parameter

__all__ = ["cached", "ParametrizationList", "register_parametrization", "is_parametrized",
           "remove_parametrizations", "type_before_parametrizations", "transfer_parametrizations_and_params"]

_cache_enabled = 0
_cache: dict[tuple[int, str], Tensor] = {}


@contextmanager
def cached() -> Iterator[None]:
    """Within the block, each parametrized tensor is computed once (on first read) and reused: for a
    weight read several times in one forward (an RNN's recurrent kernel, tied weights)."""
    global _cache, _cache_enabled
    _cache_enabled += 1
    try:
        yield
    finally:
        _cache_enabled -= 1
        if not _cache_enabled:
            _cache = {}


def _register_parameter_or_buffer(module: Module, name: str, X: Tensor) -> None:
    if isinstance(X, Parameter):
        module.register_parameter(name, X)
    else:
        module.register_buffer(name, X)


def _maybe_set(dest: Tensor, src: Tensor) -> None:
    """PyTorch's ``dest.set_(src)``: ``dest`` (the same object, so optimizers holding it still see it)
    takes ``src``'s data, shape included."""
    if src is not dest:
        with no_grad():
            dest.data = src


def _check_same(what: str, a: Any, b: Any, message: str) -> None:
    if a != b:
        raise ValueError(message.format(what=what, a=a, b=b))


class ParametrizationList(ModuleList):
    """The parametrizations of one tensor (``module.parametrizations[name]``) and its original value(s):
    ``original``, or ``original0``, ``original1``, ... when the first parametrization's ``right_inverse``
    returns several tensors. Built by :func:`register_parametrization`, not by users."""

    original: Tensor
    unsafe: bool

    def __init__(self, modules: Sequence[Module], original: Tensor, unsafe: bool = False) -> None:
        if len(modules) == 0:
            raise ValueError("ParametrizationList requires one or more modules.")
        super().__init__(modules)
        self.unsafe = unsafe
        original_shape, original_dtype = tuple(original.shape), original.dtype
        with no_grad():
            new: Any = original
            for module in reversed(list(self)):
                if hasattr(module, "right_inverse"):
                    try:
                        new = module.right_inverse(new)
                    except NotImplementedError:
                        pass
        if not isinstance(new, (Tensor, Sequence)):
            raise ValueError("'right_inverse' must return a Tensor or a Sequence of tensors (list, tuple...). "
                             f"Got {type(new).__name__}")
        self.is_tensor = isinstance(new, Tensor)
        self.ntensors = 1 if self.is_tensor else len(new)
        if self.is_tensor:
            _check_same("dtype", original.dtype, new.dtype, "When `right_inverse` outputs one tensor, it may not "
                        "change the {what}.\noriginal.{what}: {a}\nright_inverse(original).{what}: {b}")
            _check_same("device", original.device, new.device, "When `right_inverse` outputs one tensor, it may "
                        "not change the {what}.\noriginal.{what}: {a}\nright_inverse(original).{what}: {b}")
            _maybe_set(original, new)
            _register_parameter_or_buffer(self, "original", original)
        else:
            for i, originali in enumerate(new):
                if not isinstance(originali, Tensor):
                    raise ValueError("'right_inverse' must return a Tensor or a Sequence of tensors (list, tuple...). "
                                     f"Got element {i} of the sequence with type {type(originali).__name__}.")
                if isinstance(original, Parameter):
                    originali = Parameter(originali.detach(), original.requires_grad)
                else:
                    originali = originali.detach().requires_grad_(original.requires_grad)
                _register_parameter_or_buffer(self, f"original{i}", originali)
        if not self.unsafe:
            Z = self()
            if not isinstance(Z, Tensor):
                raise ValueError(f"A parametrization must return a tensor. Got {type(Z).__name__}.")
            msg = ("Registering a parametrization may not change the {what} of the tensor, unless `unsafe` flag is "
                   "enabled.\nunparametrized {what}: {a}\nparametrized {what}: {b}")
            _check_same("dtype", original_dtype, Z.dtype, msg)
            _check_same("shape", original_shape, tuple(Z.shape), msg)

    def right_inverse(self, value: Tensor) -> None:
        """Runs the ``right_inverse`` of each parametrization, last first, and stores the result in
        ``original`` (or ``original0``, ...): what assigning ``module.weight = value`` does."""
        with no_grad():
            for module in reversed(list(self)):
                if not hasattr(module, "right_inverse"):
                    raise RuntimeError(f"parametrization {type(module).__name__} does not implement right_inverse.")
                value = module.right_inverse(value)
            if self.is_tensor:
                if not isinstance(value, Tensor):
                    raise ValueError(f"`right_inverse` should return a tensor. Got {type(value).__name__}")
                if value.dtype != self.original.dtype:
                    raise ValueError(f"The tensor returned by `right_inverse` has dtype {value.dtype} "
                                     f"while `original` has dtype {self.original.dtype}")
                _maybe_set(self.original, value)
                return
            if not isinstance(value, Sequence):
                raise ValueError(f"'right_inverse' must return a sequence of tensors. Got {type(value).__name__}.")
            if len(value) != self.ntensors:
                raise ValueError(f"'right_inverse' must return a sequence of tensors of length {self.ntensors}. "
                                 f"Got a sequence of length {len(value)}.")
            for i, tensor in enumerate(value):
                original_i = getattr(self, f"original{i}")
                if not isinstance(tensor, Tensor):
                    raise ValueError("'right_inverse' must return a sequence of tensors or reference-type opaques. "
                                     f"Got element {i} of type {type(tensor).__name__}.")
                if original_i.dtype != tensor.dtype:
                    raise ValueError(f"Tensor {i} returned by `right_inverse` has dtype {tensor.dtype} "
                                     f"while `original{i}` has dtype {original_i.dtype}")
                _maybe_set(original_i, tensor)

    def forward(self) -> Tensor:
        chain = list(self._modules.values())
        if self.is_tensor:
            x = chain[0](self.original)
        else:
            x = chain[0](*(getattr(self, f"original{i}") for i in range(self.ntensors)))
        for module in chain[1:]:
            x = module(x)
        return x


def _getstate(self: Module) -> None:
    raise RuntimeError("Serialization of parametrized modules is only supported through state_dict(). See:\n"
                       "https://pytorch.org/tutorials/beginner/saving_loading_models.html"
                       "#saving-loading-a-general-checkpoint-for-inference-and-or-resuming-training")


def _inject_new_class(module: Module) -> None:
    """Gives ``module`` a class of its own (a subclass of its class) to hold the properties."""
    cls = module.__class__
    module.__class__ = type(f"Parametrized{cls.__name__}", (cls,), {"__getstate__": _getstate})


def _inject_property(module: Module, tensor_name: str) -> None:
    """``module.<tensor_name>`` as a property: reading runs the parametrizations (once per ``cached()``
    block), assigning runs their ``right_inverse``."""
    if hasattr(module, tensor_name):
        raise AssertionError(f"Module already has an attribute named '{tensor_name}'")

    def get_parametrized(self: Module) -> Tensor:
        parametrization = self.parametrizations[tensor_name]
        if not _cache_enabled:
            return parametrization()
        key = (id(self), tensor_name)
        tensor = _cache.get(key)
        if tensor is None:
            tensor = _cache[key] = parametrization()
        return tensor

    def set_original(self: Module, value: Tensor) -> None:
        self.parametrizations[tensor_name].right_inverse(value)

    setattr(module.__class__, tensor_name, property(get_parametrized, set_original))


def register_parametrization(module: Module, tensor_name: str, parametrization: Module, *,
                             unsafe: bool = False) -> Module:
    """Makes ``module.<tensor_name>`` read ``parametrization(original)``; a second registration on the
    same name chains (the newest runs last). ``parametrization.right_inverse`` (when defined) sets the
    original from a value: at registration (so the tensor keeps its value) and on assignment.
    Without ``unsafe`` the parametrization may not change the tensor's shape or dtype (ValueError)."""
    parametrization.train(module.training)
    if is_parametrized(module, tensor_name):
        if not unsafe:
            _check_chained(module, tensor_name, parametrization)
        plist = module.parametrizations[tensor_name]
        plist.append(parametrization)
        plist.unsafe |= unsafe
    elif tensor_name in module._buffers or tensor_name in module._parameters:
        original = getattr(module, tensor_name)
        plist = ParametrizationList([parametrization], original, unsafe=unsafe)
        delattr(module, tensor_name)
        if not is_parametrized(module):
            _inject_new_class(module)
            module.parametrizations = ModuleDict()
        _inject_property(module, tensor_name)
        module.parametrizations[tensor_name] = plist
    else:
        raise ValueError(f"Module '{module}' does not have a parameter, a buffer, or a parametrized element "
                         f"with name '{tensor_name}'")
    return module


def _check_chained(module: Module, tensor_name: str, parametrization: Module) -> None:
    """A parametrization added on top of others must keep the tensor's shape and dtype, and so must
    its ``right_inverse``."""
    Y = getattr(module, tensor_name)
    X = parametrization(Y)
    if not isinstance(X, Tensor):
        raise ValueError(f"A parametrization must return a tensor. Got {type(X).__name__}.")
    msg = ("Registering a parametrization may not change the {what} of the tensor, unless the `unsafe` flag is "
           f"enabled.\nmodule.{tensor_name}.{{what}}: {{a}}\nparametrization(module.{tensor_name}).{{what}}: {{b}}")
    _check_same("dtype", Y.dtype, X.dtype, msg)
    _check_same("shape", tuple(Y.shape), tuple(X.shape), msg)
    if not hasattr(parametrization, "right_inverse"):
        return
    try:
        Z = parametrization.right_inverse(X)
    except NotImplementedError:
        return
    if not isinstance(Z, Tensor):
        raise ValueError(f"parametrization.right_inverse must return a tensor. Got: {type(Z).__name__}")
    msg = ("The tensor returned by parametrization.right_inverse must have the same {what} as "
           f"module.{tensor_name}, unless the `unsafe` flag is enabled.\nmodule.{tensor_name}.{{what}}: {{a}}\n"
           "returned {what}: {b}")
    _check_same("dtype", Y.dtype, Z.dtype, msg)
    _check_same("shape", tuple(Y.shape), tuple(Z.shape), msg)


def is_parametrized(module: Module, tensor_name: str | None = None) -> bool:
    """Whether ``module`` has any parametrization (or one on ``tensor_name``)."""
    parametrizations = module._modules.get("parametrizations") if isinstance(module, Module) else None
    if not isinstance(parametrizations, ModuleDict):
        return False
    return len(parametrizations) > 0 if tensor_name is None else tensor_name in parametrizations


def remove_parametrizations(module: Module, tensor_name: str, leave_parametrized: bool = True) -> Module:
    """Takes the parametrizations off ``tensor_name``: it becomes a plain parameter (or buffer) again,
    holding the parametrized value (``leave_parametrized=True``) or the original one. The original
    tensor object is kept, so an optimizer that holds it still updates the module."""
    if not is_parametrized(module, tensor_name):
        raise ValueError(f"Module {module} does not have a parametrization on {tensor_name}")
    plist = module.parametrizations[tensor_name]
    if plist.is_tensor:
        original = plist.original
        if leave_parametrized:
            with no_grad():
                t = getattr(module, tensor_name)
            _maybe_set(original, t)
    else:
        if not leave_parametrized:
            raise ValueError("Cannot leave unparametrized (`leave_parametrized=False`) a tensor that is "
                             "parametrized in terms of a sequence of tensors.")
        t = getattr(module, tensor_name)
        original = Parameter(t.detach()) if t.requires_grad else t
    delattr(module.__class__, tensor_name)
    del module.parametrizations[tensor_name]
    _register_parameter_or_buffer(module, tensor_name, original)
    if not is_parametrized(module):
        delattr(module, "parametrizations")
        module.__class__ = module.__class__.__bases__[0]
    return module


def type_before_parametrizations(module: Module) -> type:
    """The module's class before parametrizations were registered (``Linear``, not ``ParametrizedLinear``)."""
    return module.__class__.__bases__[0] if is_parametrized(module) else type(module)


def transfer_parametrizations_and_params(from_module: Module, to_module: Module,
                                         tensor_name: str | None = None) -> Module:
    """Registers ``from_module``'s parametrizations (all, or those of ``tensor_name``) on ``to_module``,
    which then shares their modules and original tensors; a missing tensor is created on ``to_module``."""
    if not is_parametrized(from_module):
        return to_module
    names = list(from_module.parametrizations) if tensor_name is None else [tensor_name]
    for name in names:
        if not hasattr(to_module, name):
            setattr(to_module, name, Parameter(getattr(from_module, name).detach()))
        source = from_module.parametrizations[name]
        for param_func in source:
            register_parametrization(to_module, name, param_func)
        target = to_module.parametrizations[name]
        originals = ["original"] if "original" in source._parameters or "original" in source._buffers else \
            [f"original{i}" for i in range(source.ntensors)]
        for key in originals:
            setattr(target, key, getattr(source, key))
    return to_module
