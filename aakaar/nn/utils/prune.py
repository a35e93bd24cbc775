"""``torch.nn.utils.prune``: zeroing parts of a module's tensor through a mask.

Pruning ``module.<name>`` moves the parameter to ``<name>_orig`` (still the parameter the optimizer
updates), stores a mask in the buffer ``<name>_mask`` and makes ``module.<name>`` the plain tensor
``<name>_mask * <name>_orig``; a forward pre-hook (the pruning method itself) recomputes it before
every call, so the pruned entries stay zero while ``<name>_orig`` trains. Pruning the same tensor
again combines the masks in a ``PruningContainer`` (the new method sees only what is left);
``remove`` makes the pruning permanent: ``<name>`` is a parameter again, holding the masked values.

As torch's: the methods (Identity, RandomUnstructured, L1Unstructured, RandomStructured,
LnStructured, CustomFromMask), their functions, ``global_unstructured`` (one threshold across
several tensors), ``remove`` and ``is_pruned``. The random methods draw from aakaar's generator, so
they choose other entries than torch's for a seed (the same number of them).
"""

from __future__ import annotations

import numbers
from abc import ABC, abstractmethod
from collections.abc import Iterable
from typing import Any

from ... import _C
from ..._C import Tensor
from ...autograd import no_grad

__all__ = ["BasePruningMethod", "PruningContainer", "Identity", "RandomUnstructured", "L1Unstructured",
           "RandomStructured", "LnStructured", "CustomFromMask", "identity", "random_unstructured", "l1_unstructured",
           "random_structured", "ln_structured", "global_unstructured", "custom_from_mask", "remove", "is_pruned"]


def _pre_hooks(module: Any) -> dict:
    return module.__dict__.get("_forward_pre_hooks", {})


def _drop_pre_hook(module: Any, key: Any) -> None:
    del module.__dict__["_forward_pre_hooks"][key]
    module.__dict__.get("_forward_pre_hooks_with_kwargs", {}).pop(key, None)  # the hook's options go with it


class BasePruningMethod(ABC):
    """A way of choosing a mask; an instance is also the forward pre-hook that applies it."""

    _tensor_name: str
    PRUNING_TYPE: str

    def __call__(self, module: Any, inputs: Any) -> None:
        setattr(module, self._tensor_name, self.apply_mask(module))

    @abstractmethod
    def compute_mask(self, t: Tensor, default_mask: Tensor) -> Tensor:
        """The new mask for ``t``, given the mask already on it (``default_mask``)."""

    def apply_mask(self, module: Any) -> Tensor:
        """``<name>_mask * <name>_orig``: the pruned tensor."""
        if self._tensor_name is None:
            raise AssertionError(f"Module {module} has to be pruned")
        mask = getattr(module, self._tensor_name + "_mask")
        orig = getattr(module, self._tensor_name + "_orig")
        return mask.to(dtype=orig.dtype) * orig

    @classmethod
    def apply(cls, module: Any, name: str, *args: Any, importance_scores: Tensor | None = None,
              **kwargs: Any) -> BasePruningMethod:
        """Prunes ``module.<name>`` with a new ``cls(*args, **kwargs)`` (combined with earlier pruning of it)."""
        method = _composite_method(cls, module, name, *args, **kwargs)
        orig = getattr(module, name)
        if importance_scores is not None:
            if importance_scores.shape != orig.shape:
                raise AssertionError(f"importance_scores should have the same shape as parameter {name} of {module}, "
                                     f"got {importance_scores.shape} vs {orig.shape}")
        else:
            importance_scores = orig
        if not isinstance(method, PruningContainer):
            # the first pruning of this tensor: the parameter moves to <name>_orig
            module.register_parameter(name + "_orig", orig)
            del module._parameters[name]
            default_mask = _C.ones(list(orig.shape), dtype=orig.dtype, device=orig.device)
        else:
            default_mask = getattr(module, name + "_mask").detach().clone()
        try:
            with no_grad():
                mask = method.compute_mask(importance_scores, default_mask=default_mask)
            module.register_buffer(name + "_mask", mask)
            setattr(module, name, method.apply_mask(module))
            module.register_forward_pre_hook(method)
        except Exception:
            if not isinstance(method, PruningContainer):  # put the parameter back as it was
                orig = getattr(module, name + "_orig")
                del module._parameters[name + "_orig"]
                module.__dict__.pop(name, None)
                module.register_parameter(name, orig)
            raise
        return method

    def prune(self, t: Tensor, default_mask: Tensor | None = None,
              importance_scores: Tensor | None = None) -> Tensor:
        """``t`` times the mask this method computes for it (no module involved)."""
        if importance_scores is not None:
            if importance_scores.shape != t.shape:
                raise AssertionError("importance_scores should have the same shape as tensor t, "
                                     f"got {importance_scores.shape} vs {t.shape}")
        else:
            importance_scores = t
        default_mask = default_mask if default_mask is not None else _C.ones(list(t.shape), dtype=t.dtype,
                                                                              device=t.device)
        return t * self.compute_mask(importance_scores, default_mask=default_mask)

    def remove(self, module: Any) -> None:
        """Makes the pruning permanent: ``<name>`` becomes the parameter again, holding the masked values."""
        if self._tensor_name is None:
            raise AssertionError(f"Module {module} has to be pruned before pruning can be removed")
        weight = self.apply_mask(module)
        if self._tensor_name in module.__dict__:
            delattr(module, self._tensor_name)
        orig = module._parameters[self._tensor_name + "_orig"]
        orig.data = weight.data
        del module._parameters[self._tensor_name + "_orig"]
        del module._buffers[self._tensor_name + "_mask"]
        setattr(module, self._tensor_name, orig)


def _composite_method(cls: type, module: Any, name: str, *args: Any, **kwargs: Any) -> BasePruningMethod:
    """The new method, or, when ``name`` is already pruned, the container of the old ones and it."""
    old_method = None
    found = 0
    hooks_to_remove = []
    for k, hook in _pre_hooks(module).items():
        if isinstance(hook, BasePruningMethod) and hook._tensor_name == name:
            old_method = hook
            hooks_to_remove.append(k)
            found += 1
    if found > 1:
        raise AssertionError(f"Avoid adding multiple pruning hooks to the same tensor {name} of module {module}. "
                             "Use a PruningContainer.")
    for k in hooks_to_remove:
        _drop_pre_hook(module, k)
    method = cls(*args, **kwargs)
    method._tensor_name = name
    if old_method is not None:
        if isinstance(old_method, PruningContainer):
            old_method.add_pruning_method(method)
            method = old_method
        else:
            container = PruningContainer(old_method)
            container.add_pruning_method(method)
            method = container
    return method


class PruningContainer(BasePruningMethod):
    """The sequence of methods pruning one tensor; the last one works on what the others left."""

    def __init__(self, *args: Any) -> None:
        self._pruning_methods: tuple[BasePruningMethod, ...] = ()
        if len(args) == 1:
            self._tensor_name = args[0]._tensor_name
            self.add_pruning_method(args[0])
        else:
            for method in args:
                self.add_pruning_method(method)

    def add_pruning_method(self, method: BasePruningMethod | None) -> None:
        if not isinstance(method, BasePruningMethod) and method is not None:
            raise TypeError(f"{type(method)} is not a BasePruningMethod subclass")
        if method is not None and self._tensor_name != method._tensor_name:
            raise ValueError("Can only add pruning methods acting on the parameter named "
                             f"'{self._tensor_name}' to PruningContainer {self}. Found '{method._tensor_name}'")
        self._pruning_methods += (method,)  # type: ignore[operator]

    def __len__(self) -> int:
        return len(self._pruning_methods)

    def __iter__(self) -> Any:
        return iter(self._pruning_methods)

    def __getitem__(self, idx: int) -> BasePruningMethod:
        return self._pruning_methods[idx]

    def compute_mask(self, t: Tensor, default_mask: Tensor) -> Tensor:
        """The last method's mask computed on the entries (unstructured) or channels (structured) still kept."""
        method = self._pruning_methods[-1]
        new_mask = default_mask.to(dtype=t.dtype)
        if method.PRUNING_TYPE == "unstructured":
            slc: Any = default_mask == 1
        elif method.PRUNING_TYPE == "structured":
            if not hasattr(method, "dim"):
                raise AttributeError('Pruning methods of PRUNING_TYPE "structured" need to have the attribute `dim` '
                                     "defined.")
            n_dims = t.dim()
            dim = method.dim
            if dim < 0:
                dim = n_dims + dim
            if dim < 0:
                raise IndexError(f"Index is out of bounds for tensor with dimensions {n_dims}")
            keep_channel = default_mask.sum(dim=[d for d in range(n_dims) if d != dim]) != 0
            slc = [slice(None)] * n_dims
            slc[dim] = keep_channel
            slc = tuple(slc)
        elif method.PRUNING_TYPE == "global":
            slc = tuple([slice(None)] * t.dim())
        else:
            raise ValueError(f"Unrecognized PRUNING_TYPE {method.PRUNING_TYPE}")
        partial_mask = method.compute_mask(t[slc], default_mask=default_mask[slc])
        new_mask[slc] = partial_mask.to(dtype=new_mask.dtype)
        return new_mask


class Identity(BasePruningMethod):
    """Prunes nothing (an all-ones mask): the reparametrization without the zeros."""

    PRUNING_TYPE = "unstructured"

    def compute_mask(self, t: Tensor, default_mask: Tensor) -> Tensor:
        return default_mask

    @classmethod
    def apply(cls, module: Any, name: str) -> BasePruningMethod:  # type: ignore[override]
        return super().apply(module, name)


def _zero_flat(mask: Tensor, indices: Tensor) -> Tensor:
    mask.view(-1)[indices] = 0
    return mask


class RandomUnstructured(BasePruningMethod):
    """Zeros ``amount`` (a fraction, or a count) of the entries, chosen at random."""

    PRUNING_TYPE = "unstructured"

    def __init__(self, amount: float) -> None:
        _validate_pruning_amount_init(amount)
        self.amount = amount

    def compute_mask(self, t: Tensor, default_mask: Tensor) -> Tensor:
        k = _compute_nparams_toprune(self.amount, t.numel())
        _validate_pruning_amount(k, t.numel())
        mask = default_mask.contiguous().clone()
        if k != 0:
            prob = _C.rand(list(t.shape), dtype=t.dtype if t.is_floating_point() else None, device=t.device)
            _zero_flat(mask, prob.view(-1).topk(k).indices)
        return mask

    @classmethod
    def apply(cls, module: Any, name: str, amount: float) -> BasePruningMethod:  # type: ignore[override]
        return super().apply(module, name, amount=amount)


class L1Unstructured(BasePruningMethod):
    """Zeros the ``amount`` entries of smallest absolute value."""

    PRUNING_TYPE = "unstructured"

    def __init__(self, amount: float) -> None:
        _validate_pruning_amount_init(amount)
        self.amount = amount

    def compute_mask(self, t: Tensor, default_mask: Tensor) -> Tensor:
        k = _compute_nparams_toprune(self.amount, t.numel())
        _validate_pruning_amount(k, t.numel())
        mask = default_mask.contiguous().clone()
        if k != 0:
            _zero_flat(mask, t.abs().reshape(-1).topk(k, largest=False).indices)
        return mask

    @classmethod
    def apply(cls, module: Any, name: str, amount: float,  # type: ignore[override]
              importance_scores: Tensor | None = None) -> BasePruningMethod:
        return super().apply(module, name, amount=amount, importance_scores=importance_scores)


def _channel_mask(t: Tensor, dim: int, keep: Tensor) -> Tensor:
    """Ones in the channels ``keep`` (indices or a bool mask) along ``dim``, zeros elsewhere."""
    mask = _C.zeros(list(t.shape), dtype=t.dtype, device=t.device)
    slc: list[Any] = [slice(None)] * t.dim()
    slc[dim] = keep
    mask[tuple(slc)] = 1
    return mask


class RandomStructured(BasePruningMethod):
    """Zeros ``amount`` whole channels along ``dim``, chosen at random."""

    PRUNING_TYPE = "structured"

    def __init__(self, amount: float, dim: int = -1) -> None:
        _validate_pruning_amount_init(amount)
        self.amount = amount
        self.dim = dim

    def compute_mask(self, t: Tensor, default_mask: Tensor) -> Tensor:
        _validate_structured_pruning(t)
        _validate_pruning_dim(t, self.dim)
        n = t.shape[self.dim]
        k = _compute_nparams_toprune(self.amount, n)
        _validate_pruning_amount(k, n)
        if k == 0:
            return default_mask
        prob = _C.rand([n])
        threshold = prob.kthvalue(k).values
        return _channel_mask(t, self.dim, prob > threshold) * default_mask.to(dtype=t.dtype)

    @classmethod
    def apply(cls, module: Any, name: str, amount: float, dim: int = -1) -> BasePruningMethod:  # type: ignore[override]
        return super().apply(module, name, amount=amount, dim=dim)


class LnStructured(BasePruningMethod):
    """Zeros the ``amount`` channels along ``dim`` of smallest ``n``-norm (n: as ``aakaar.norm``'s p)."""

    PRUNING_TYPE = "structured"

    def __init__(self, amount: float, n: Any, dim: int = -1) -> None:
        _validate_pruning_amount_init(amount)
        self.amount = amount
        self.n = n
        self.dim = dim

    def compute_mask(self, t: Tensor, default_mask: Tensor) -> Tensor:
        _validate_structured_pruning(t)
        _validate_pruning_dim(t, self.dim)
        size = t.shape[self.dim]
        k = _compute_nparams_toprune(self.amount, size)
        _validate_pruning_amount(k, size)
        keep = _compute_norm(t, self.n, self.dim).topk(size - k, largest=True).indices
        if k == 0:
            return default_mask
        return _channel_mask(t, self.dim, keep) * default_mask.to(dtype=t.dtype)

    @classmethod
    def apply(cls, module: Any, name: str, amount: float, n: Any, dim: int,  # type: ignore[override]
              importance_scores: Tensor | None = None) -> BasePruningMethod:
        return super().apply(module, name, amount=amount, n=n, dim=dim, importance_scores=importance_scores)


class CustomFromMask(BasePruningMethod):
    """The given mask (times any earlier one)."""

    PRUNING_TYPE = "global"

    def __init__(self, mask: Tensor) -> None:
        self.mask = mask

    def compute_mask(self, t: Tensor, default_mask: Tensor) -> Tensor:
        if default_mask.shape != self.mask.shape:
            raise AssertionError(f"default_mask shape {default_mask.shape} must match self.mask shape "
                                 f"{self.mask.shape}")
        return default_mask * self.mask.to(dtype=default_mask.dtype)

    @classmethod
    def apply(cls, module: Any, name: str, mask: Tensor) -> BasePruningMethod:  # type: ignore[override]
        return super().apply(module, name, mask=mask)


def identity(module: Any, name: str) -> Any:
    """Reparametrizes ``module.<name>`` as pruned without zeroing anything; returns the module."""
    Identity.apply(module, name)
    return module


def random_unstructured(module: Any, name: str, amount: float) -> Any:
    """Zeros ``amount`` random entries of ``module.<name>``; returns the module."""
    RandomUnstructured.apply(module, name, amount)
    return module


def l1_unstructured(module: Any, name: str, amount: float, importance_scores: Tensor | None = None) -> Any:
    """Zeros the ``amount`` entries of ``module.<name>`` of smallest |value| (or importance score)."""
    L1Unstructured.apply(module, name, amount=amount, importance_scores=importance_scores)
    return module


def random_structured(module: Any, name: str, amount: float, dim: int) -> Any:
    """Zeros ``amount`` random channels of ``module.<name>`` along ``dim``."""
    RandomStructured.apply(module, name, amount, dim)
    return module


def ln_structured(module: Any, name: str, amount: float, n: Any, dim: int,
                  importance_scores: Tensor | None = None) -> Any:
    """Zeros the ``amount`` channels of ``module.<name>`` along ``dim`` of smallest n-norm."""
    LnStructured.apply(module, name, amount, n, dim, importance_scores=importance_scores)
    return module


def global_unstructured(parameters: Iterable, pruning_method: type, importance_scores: dict | None = None,
                        **kwargs: Any) -> None:
    """Prunes the ``(module, name)`` tensors together: ``pruning_method(**kwargs)`` (unstructured) chooses
    over all their entries at once, so one tensor may lose more than another."""
    if not isinstance(parameters, Iterable):
        raise TypeError("global_unstructured(): parameters is not an Iterable")
    parameters = list(parameters)  # walked three times below (torch asks for a list or tuple)
    importance_scores = importance_scores if importance_scores is not None else {}
    if not isinstance(importance_scores, dict):
        raise TypeError("global_unstructured(): importance_scores must be of type dict")
    from .convert_parameters import parameters_to_vector
    scores = parameters_to_vector([importance_scores.get((m, n), getattr(m, n)) for m, n in parameters])
    default_mask = parameters_to_vector([
        getattr(m, n + "_mask") if hasattr(m, n + "_mask") else _C.ones(list(getattr(m, n).shape),
                                                                          dtype=getattr(m, n).dtype)
        for m, n in parameters])
    container = PruningContainer()
    container._tensor_name = "temp"
    method = pruning_method(**kwargs)
    method._tensor_name = "temp"
    if method.PRUNING_TYPE != "unstructured":
        raise TypeError('Only "unstructured" PRUNING_TYPE supported for the `pruning_method`. '
                        f"Found method {pruning_method} of type {method.PRUNING_TYPE}")
    container.add_pruning_method(method)
    with no_grad():
        final_mask = container.compute_mask(scores.detach(), default_mask.detach())
    pointer = 0
    for module, name in parameters:
        param = getattr(module, name)
        num = param.numel()
        custom_from_mask(module, name, mask=final_mask[pointer:pointer + num].view_as(param))
        pointer += num


def custom_from_mask(module: Any, name: str, mask: Tensor) -> Any:
    """Prunes ``module.<name>`` with the given mask; returns the module."""
    CustomFromMask.apply(module, name, mask)
    return module


def remove(module: Any, name: str) -> Any:
    """Makes the pruning of ``module.<name>`` permanent (a plain parameter again); returns the module."""
    for k, hook in _pre_hooks(module).items():
        if isinstance(hook, BasePruningMethod) and hook._tensor_name == name:
            hook.remove(module)
            _drop_pre_hook(module, k)
            return module
    raise ValueError(f"Parameter '{name}' of module {module} has to be pruned before pruning can be removed")


def is_pruned(module: Any) -> bool:
    """Whether ``module`` or one of its sub-modules has a pruning hook."""
    for _, submodule in module.named_modules():
        for hook in _pre_hooks(submodule).values():
            if isinstance(hook, BasePruningMethod):
                return True
    return False


def _validate_pruning_amount_init(amount: Any) -> None:
    if not isinstance(amount, numbers.Real):
        raise TypeError(f"Invalid type for amount: {amount}. Must be int or float.")
    if (isinstance(amount, numbers.Integral) and amount < 0) or (
            not isinstance(amount, numbers.Integral) and (float(amount) > 1.0 or float(amount) < 0.0)):
        raise ValueError(f"amount={amount} should either be a float in the range [0, 1] or a non-negative integer")


def _validate_pruning_amount(amount: Any, tensor_size: int) -> None:
    if isinstance(amount, numbers.Integral) and amount > tensor_size:
        raise ValueError(f"amount={amount} should be smaller than the number of parameters to prune={tensor_size}")


def _validate_structured_pruning(t: Tensor) -> None:
    if t.dim() <= 1:
        raise ValueError("Structured pruning can only be applied to multidimensional tensors. Found tensor of shape "
                         f"{t.shape} with {t.dim()} dims")


def _compute_nparams_toprune(amount: Any, tensor_size: int) -> int:
    # round half to even, as Python's round (torch's too): 0.5 of 5 entries prunes 2
    return amount if isinstance(amount, numbers.Integral) else round(amount * tensor_size)


def _validate_pruning_dim(t: Tensor, dim: int) -> None:
    if dim >= t.dim():
        raise IndexError(f"Invalid index {dim} for tensor of size {t.shape}")


def _compute_norm(t: Tensor, n: Any, dim: int) -> Tensor:
    """The n-norm of each channel along ``dim`` (over all the other dims)."""
    from ... import norm
    dims = list(range(t.dim()))
    dims.remove(dims[dim])
    return norm(t, p=n, dim=dims)
