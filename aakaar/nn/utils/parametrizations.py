"""``torch.nn.utils.parametrizations``: weight normalisation and spectral normalisation written as
parametrizations (``nn.utils.parametrize``), PyTorch's current API.

``weight_norm`` keeps ``parametrizations.weight.original0`` (g, the norms) and ``original1`` (v, the
direction) and reads ``weight = g * v / ||v||``. ``spectral_norm`` keeps the weight as ``original``
and the power iteration's vectors as buffers ``_u`` and ``_v`` of the parametrization; in training
each read of the weight runs ``n_power_iterations`` steps (updating them in place), in eval it only
divides by the current estimate ``u . W v``. The steps are PyTorch's, so with the same ``_u``/``_v``
(copy them from a torch model's state_dict) the weights agree.
"""

from __future__ import annotations

from typing import Any

from ... import _C
from ..._C import Tensor
from ...autograd import no_grad
from .. import functional as F
from ..module import Module
from . import parametrize
from .orthogonal import orthogonal  # noqa: F401  (PyTorch's third parametrization, in its own file)

__all__ = ["weight_norm", "spectral_norm", "orthogonal", "norm_except_dim"]


def norm_except_dim(v: Tensor, pow: float = 2, dim: int = 0) -> Tensor:
    """PyTorch's ``torch.norm_except_dim``: the ``pow``-norm of ``v`` over every dim but ``dim``, kept as
    size-1 dims (so it broadcasts against ``v``). ``dim=-1`` means the norm of the whole tensor (a 0-d
    tensor), not the last dim: PyTorch's convention, which ``weight_norm(dim=None)`` relies on."""
    if dim == -1:
        return _vector_norm(v, pow, list(range(v.ndim)), keepdim=False)
    d = dim + v.ndim if dim < 0 else dim
    if not 0 <= d < max(v.ndim, 1):
        raise IndexError(f"Dimension out of range (expected to be in range of [{-v.ndim}, {v.ndim - 1}], "
                         f"but got {dim})")
    return _vector_norm(v, pow, [i for i in range(v.ndim) if i != d], keepdim=True)


def _vector_norm(v: Tensor, p: float, dims: list[int], keepdim: bool) -> Tensor:
    from ..functional_norm import _vector_norm as norm

    return norm(v, p, dims, keepdim=keepdim) if dims else v.abs() if p != 0 else (v != 0).to(v.dtype)


def _weight_norm(v: Tensor, g: Tensor, dim: int = 0) -> Tensor:
    """``v * (g / ||v||)`` with the norm over every dim but ``dim`` (PyTorch's ``torch._weight_norm``)."""
    return v * (g / norm_except_dim(v, 2, dim))


class _WeightNorm(Module):
    def __init__(self, dim: int | None = 0) -> None:
        super().__init__()
        self.dim = -1 if dim is None else dim

    def forward(self, weight_g: Tensor, weight_v: Tensor) -> Tensor:
        return _weight_norm(weight_v, weight_g, self.dim)

    def right_inverse(self, weight: Tensor) -> tuple[Tensor, Tensor]:
        return norm_except_dim(weight, 2, self.dim), weight


def weight_norm(module: Module, name: str = "weight", dim: int | None = 0) -> Module:
    """Splits ``module.<name>`` into a magnitude ``original0`` (its norm over every dim but ``dim``; the
    whole tensor's norm for ``dim=None``) and a direction ``original1``; reading it gives
    ``original0 * original1 / ||original1||``. A state_dict of the legacy API (``weight_g``/``weight_v``)
    loads into it."""
    parametrize.register_parametrization(module, name, _WeightNorm(dim), unsafe=True)

    def _weight_norm_compat_hook(mod: Module, state_dict: dict, prefix: str, *args: Any) -> None:
        g_key, v_key = f"{prefix}{name}_g", f"{prefix}{name}_v"
        if g_key in state_dict and v_key in state_dict:
            state_dict[f"{prefix}parametrizations.{name}.original0"] = state_dict.pop(g_key)
            state_dict[f"{prefix}parametrizations.{name}.original1"] = state_dict.pop(v_key)

    module.register_load_state_dict_pre_hook(_weight_norm_compat_hook)
    return module


def reshape_to_matrix(weight: Tensor, dim: int) -> Tensor:
    """``weight`` as (size of ``dim``, everything else): the matrix whose spectral norm is taken."""
    if dim != 0:
        weight = weight.permute(dim, *(d for d in range(weight.ndim) if d != dim))
    return weight.reshape(weight.shape[0], -1)


def power_iteration_step(weight_mat: Tensor, u: Tensor, v: Tensor, eps: float, u_first: bool) -> None:
    """One step of the power method on ``weight_mat``, written into ``u`` and ``v`` (no autograd).
    ``u_first``: u = normalize(W v), then v = normalize(W^T u) (the parametrization's order); else v
    first (the legacy hook's order)."""
    with no_grad():
        if u_first:
            F.normalize(weight_mat.matmul(v), dim=0, eps=eps, out=u)
            F.normalize(weight_mat.transpose(0, 1).matmul(u), dim=0, eps=eps, out=v)
        else:
            F.normalize(weight_mat.transpose(0, 1).matmul(u), dim=0, eps=eps, out=v)
            F.normalize(weight_mat.matmul(v), dim=0, eps=eps, out=u)


def random_unit_vectors(weight_mat: Tensor, eps: float) -> tuple[Tensor, Tensor]:
    """Normalised standard-normal starting vectors u (rows of ``weight_mat``) and v (columns)."""
    h, w = weight_mat.shape
    kw = {"dtype": weight_mat.dtype, "device": weight_mat.device}
    return (F.normalize(_C.randn(h, **kw), dim=0, eps=eps), F.normalize(_C.randn(w, **kw), dim=0, eps=eps))


def _check_power_iterations(n: Any) -> None:
    if n <= 0:
        raise ValueError(f"Expected n_power_iterations to be positive, but got n_power_iterations={n}")


class _SpectralNorm(Module):
    def __init__(self, weight: Tensor, n_power_iterations: int = 1, dim: int = 0, eps: float = 1e-12) -> None:
        super().__init__()
        ndim = weight.ndim
        if dim >= ndim or dim < -ndim:
            raise IndexError(f"Dimension out of range (expected to be in range of [-{ndim}, {ndim - 1}] but got {dim})")
        _check_power_iterations(n_power_iterations)
        self.dim = dim if dim >= 0 else dim + ndim
        self.eps = eps
        if ndim > 1:
            self.n_power_iterations = n_power_iterations
            weight_mat = reshape_to_matrix(weight.detach(), self.dim)
            u, v = random_unit_vectors(weight_mat, eps)
            self.register_buffer("_u", u)
            self.register_buffer("_v", v)
            self._power_method(weight_mat, 15)

    def _power_method(self, weight_mat: Tensor, n_power_iterations: int) -> None:
        for _ in range(n_power_iterations):
            power_iteration_step(weight_mat.detach(), self._u, self._v, self.eps, u_first=True)

    def forward(self, weight: Tensor) -> Tensor:
        if weight.ndim == 1:
            return F.normalize(weight, dim=0, eps=self.eps)
        weight_mat = reshape_to_matrix(weight, self.dim)
        if self.training:
            self._power_method(weight_mat, self.n_power_iterations)
        # Copies: the buffers change in place at the next step, and the backward must see these values.
        u, v = self._u.clone(), self._v.clone()
        sigma = u.matmul(weight_mat.matmul(v))
        return weight / sigma

    def right_inverse(self, value: Tensor) -> Tensor:
        return value


def _default_dim(module: Module, dim: int | None) -> int:
    """dim 0 (output features), or 1 for the transposed convolutions, whose weight is (in, out, ...)."""
    if dim is not None:
        return dim
    from ..layers_conv import _ConvTransposeNd

    return 1 if isinstance(module, _ConvTransposeNd) else 0


def spectral_norm(module: Module, name: str = "weight", n_power_iterations: int = 1, eps: float = 1e-12,
                  dim: int | None = None) -> Module:
    """Makes ``module.<name>`` read ``W / sigma(W)``, sigma estimated by the power method (state in
    ``parametrizations.<name>[0]._u`` and ``._v``; one more step per read in training mode)."""
    weight = getattr(module, name, None)
    if not isinstance(weight, Tensor):
        raise ValueError(f"Module '{module}' has no parameter or buffer with name '{name}'")
    parametrize.register_parametrization(
        module, name, _SpectralNorm(weight, n_power_iterations, _default_dim(module, dim), eps))
    return module
