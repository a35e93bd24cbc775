"""PyTorch's older, hook-based ``nn.utils.weight_norm`` / ``spectral_norm`` (and their ``remove_``):
still in much published code, and their checkpoints use these names.

Each replaces the parameter ``weight`` by others (``weight_g`` and ``weight_v``; ``weight_orig`` with
buffers ``weight_u`` and ``weight_v``) and registers a forward pre-hook that recomputes ``weight`` as a
plain attribute before every forward. The arithmetic is shared with ``nn.utils.parametrizations``;
only the legacy power step's order (v first) and its place (the hook, in training mode) differ.
"""

from __future__ import annotations

import warnings
from typing import Any

from ..._C import Tensor
from ...autograd import no_grad
from ..module import Module
from ..parameter import Parameter, UninitializedParameter
from .parametrizations import (
    _check_power_iterations, _default_dim, _weight_norm, norm_except_dim, power_iteration_step, random_unit_vectors,
    reshape_to_matrix,
)

__all__ = ["WeightNorm", "weight_norm", "remove_weight_norm", "SpectralNorm", "spectral_norm", "remove_spectral_norm"]


def _hooks(module: Module) -> dict:
    return module.__dict__.get("_forward_pre_hooks", {})


def _pop_hook(module: Module, kind: type, name: str, what: str) -> Any:
    """Unregisters and returns the ``kind`` hook of ``name``; ValueError if there is none."""
    for k, hook in list(_hooks(module).items()):
        if isinstance(hook, kind) and hook.name == name:
            del module._forward_pre_hooks[k]
            module.__dict__.get("_forward_pre_hooks_with_kwargs", {}).pop(k, None)
            return hook
    raise ValueError(f"{what} of '{name}' not found in {module}")


def _refuse_twice(module: Module, kind: type, name: str, what: str) -> None:
    for hook in _hooks(module).values():
        if isinstance(hook, kind) and hook.name == name:
            raise RuntimeError(f"Cannot register two {what} hooks on the same parameter {name}")


class WeightNorm:
    """The forward pre-hook of the legacy ``weight_norm``: ``weight = weight_g * weight_v / ||weight_v||``."""

    def __init__(self, name: str, dim: int | None) -> None:
        self.name = name
        self.dim = -1 if dim is None else dim

    def compute_weight(self, module: Module) -> Tensor:
        return _weight_norm(getattr(module, self.name + "_v"), getattr(module, self.name + "_g"), self.dim)

    @staticmethod
    def apply(module: Module, name: str, dim: int | None) -> WeightNorm:
        warnings.warn("`aakaar.nn.utils.weight_norm` is deprecated in favor of "
                      "`aakaar.nn.utils.parametrizations.weight_norm`.", FutureWarning, stacklevel=3)
        _refuse_twice(module, WeightNorm, name, "weight_norm")
        fn = WeightNorm(name, dim)
        weight = getattr(module, name)
        if isinstance(weight, UninitializedParameter):
            raise ValueError("The module passed to `WeightNorm` can't have uninitialized parameters. "
                             "Make sure to run the dummy forward before applying weight normalization")
        del module._parameters[name]
        module.register_parameter(name + "_g", Parameter(norm_except_dim(weight, 2, fn.dim).detach()))
        module.register_parameter(name + "_v", Parameter(weight.detach()))
        setattr(module, name, fn.compute_weight(module))
        module.register_forward_pre_hook(fn)
        return fn

    def remove(self, module: Module) -> None:
        weight = self.compute_weight(module)
        delattr(module, self.name)
        del module._parameters[self.name + "_g"]
        del module._parameters[self.name + "_v"]
        setattr(module, self.name, Parameter(weight.detach()))

    def __call__(self, module: Module, inputs: Any) -> None:
        setattr(module, self.name, self.compute_weight(module))


def weight_norm(module: Module, name: str = "weight", dim: int | None = 0) -> Module:
    """Legacy weight normalisation: parameters ``<name>_g`` (norms over every dim but ``dim``; the whole
    tensor's for ``dim=None``) and ``<name>_v``; a forward pre-hook recomputes ``<name>``. Deprecated in
    PyTorch (FutureWarning) for ``nn.utils.parametrizations.weight_norm``."""
    WeightNorm.apply(module, name, dim)
    return module


def remove_weight_norm(module: Module, name: str = "weight") -> Module:
    """Undoes ``weight_norm``: ``<name>`` is a parameter again, holding the normalised value."""
    _pop_hook(module, WeightNorm, name, "weight_norm").remove(module)
    return module


class SpectralNorm:
    """The forward pre-hook of the legacy ``spectral_norm``: ``weight = weight_orig / sigma``, sigma
    ``u . W v`` after (in training mode) ``n_power_iterations`` power steps on the buffers."""

    _version = 1

    def __init__(self, name: str = "weight", n_power_iterations: int = 1, dim: int = 0, eps: float = 1e-12) -> None:
        _check_power_iterations(n_power_iterations)
        self.name, self.dim, self.n_power_iterations, self.eps = name, dim, n_power_iterations, eps

    def reshape_weight_to_matrix(self, weight: Tensor) -> Tensor:
        return reshape_to_matrix(weight, self.dim)

    def compute_weight(self, module: Module, do_power_iteration: bool) -> Tensor:
        weight = getattr(module, self.name + "_orig")
        u, v = getattr(module, self.name + "_u"), getattr(module, self.name + "_v")
        weight_mat = self.reshape_weight_to_matrix(weight)
        if do_power_iteration:
            for _ in range(self.n_power_iterations):
                power_iteration_step(weight_mat.detach(), u, v, self.eps, u_first=False)
            # Copies: the buffers change in place at the next step, and the backward must see these values.
            u, v = u.clone(), v.clone()
        return weight / u.matmul(weight_mat.matmul(v))

    def remove(self, module: Module) -> None:
        with no_grad():
            weight = self.compute_weight(module, do_power_iteration=False)
        for suffix in ("", "_u", "_v", "_orig"):
            delattr(module, self.name + suffix)
        module.register_parameter(self.name, Parameter(weight.detach()))

    def __call__(self, module: Module, inputs: Any) -> None:
        setattr(module, self.name, self.compute_weight(module, do_power_iteration=module.training))

    @staticmethod
    def apply(module: Module, name: str, n_power_iterations: int, dim: int, eps: float) -> SpectralNorm:
        _refuse_twice(module, SpectralNorm, name, "spectral_norm")
        fn = SpectralNorm(name, n_power_iterations, dim, eps)
        weight = module._parameters.get(name)
        if weight is None:
            raise ValueError(f"`SpectralNorm` cannot be applied as parameter `{name}` is None")
        if isinstance(weight, UninitializedParameter):
            raise ValueError("The module passed to `SpectralNorm` can't have uninitialized parameters. "
                             "Make sure to run the dummy forward before applying spectral normalization")
        with no_grad():
            u, v = random_unit_vectors(fn.reshape_weight_to_matrix(weight.detach()), fn.eps)
        delattr(module, fn.name)
        module.register_parameter(fn.name + "_orig", weight)
        setattr(module, fn.name, weight.detach())
        module.register_buffer(fn.name + "_u", u)
        module.register_buffer(fn.name + "_v", v)
        module.register_forward_pre_hook(fn)
        return fn


def spectral_norm(module: Module, name: str = "weight", n_power_iterations: int = 1, eps: float = 1e-12,
                  dim: int | None = None) -> Module:
    """Legacy spectral normalisation: parameter ``<name>_orig``, buffers ``<name>_u`` and ``<name>_v``, and
    a forward pre-hook that sets ``<name> = <name>_orig / sigma`` (one more power step per forward in
    training mode). ``dim`` defaults to 0, or 1 for the transposed convolutions."""
    SpectralNorm.apply(module, name, n_power_iterations, _default_dim(module, dim), eps)
    return module


def remove_spectral_norm(module: Module, name: str = "weight") -> Module:
    """Undoes ``spectral_norm``: ``<name>`` is a parameter again, holding ``<name>_orig / sigma``."""
    _pop_hook(module, SpectralNorm, name, "spectral_norm").remove(module)
    return module
