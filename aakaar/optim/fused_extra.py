"""More optimizers whose step is one native call per parameter group: Rprop, ASGD and
Adafactor with PyTorch's arguments, defaults and errors, and Lion and LAMB as their
papers define them.

Rprop, ASGD and Lion are one elementwise pass, like those of fused.py
(core/optimizer_math.h). LAMB and Adafactor look at each whole parameter before
updating it (LAMB's trust ratio ||w|| / ||update||; Adafactor's row and column
means of g^2 and its RMS scaling), so their kernel (csrc/cpu/fused/optimizer_layerwise.cpp)
makes two passes per parameter, still all parameters of a group in one call.

``foreach=`` and ``fused=`` are accepted for compatibility with PyTorch and change
nothing here: every step is already one native multi-tensor call.
``differentiable=True`` runs a step composed of autograd ops instead (differentiable.py);
``capturable=True`` (Rprop, ASGD) keeps the counters on the parameters' device (CUDA) and is
refused for CPU parameters, as PyTorch refuses it (see __init__.py).
"""

from __future__ import annotations

from typing import Any, Callable

from .. import _C
from .._C import Tensor
from ..creation import full_like, zeros_like
from .fused import K, Params, _check_betas, _check_nonnegative, _check_unsupported, _counter, _Fused, _new_step
from .optimizer import check_tensor_lr

__all__ = ["Rprop", "ASGD", "Lion", "LAMB", "Adafactor"]


class Rprop(_Fused):
    """Resilient backpropagation: a step size per element that grows by ``etas[1]`` while the
    gradient keeps its sign and shrinks by ``etas[0]`` when it flips, within ``step_sizes``;
    only the gradient's sign moves the parameter."""

    kind = K.Rprop

    def __init__(self, params: Params, lr: float = 1e-2, etas: tuple[float, float] = (0.5, 1.2),
                 step_sizes: tuple[float, float] = (1e-6, 50), *, capturable: bool = False,
                 foreach: bool | None = None, maximize: bool = False, differentiable: bool = False) -> None:
        _check_nonnegative(lr=lr)
        if len(etas) != 2 or not 0.0 < etas[0] < 1.0 < etas[1]:
            raise ValueError(f"Invalid eta values: {etas[0]}, {etas[1]}")
        if len(step_sizes) != 2:
            raise ValueError(f"step_sizes must be a pair (min, max), got {step_sizes!r}")
        _check_unsupported("Rprop", capturable, differentiable)
        defaults = dict(lr=lr, etas=tuple(etas), step_sizes=tuple(step_sizes), foreach=foreach, maximize=maximize,
                        differentiable=differentiable, capturable=capturable)
        super().__init__(params, defaults)

    def _options(self, group: dict[str, Any]) -> dict[str, Any]:
        etaminus, etaplus = group["etas"]
        lo, hi = group["step_sizes"]
        return dict(etaminus=float(etaminus), etaplus=float(etaplus), step_size_min=float(lo),
                    step_size_max=float(hi))

    def _slots(self, group: dict[str, Any]) -> list[str | None]:
        return ["prev", "step_size"]

    def _init_state(self, group: dict[str, Any]) -> Callable[[Tensor, dict], None]:
        def init(p: Tensor, state: dict) -> None:
            state["step"] = _counter(group, p)
            state["prev"] = zeros_like(p)
            state["step_size"] = full_like(p, float(group["lr"]))  # every element starts at lr
        return init


class ASGD(_Fused):
    """Averaged SGD (Polyak & Juditsky): SGD with a decaying step eta and a decay of the
    parameter, plus ``state["ax"]``, the running average of the parameter from step ``t0`` on.
    eta and mu are each parameter's 0-d float32 state, renewed after every step as PyTorch does."""

    kind = K.ASGD
    scalar_keys = ("eta", "mu")

    def __init__(self, params: Params, lr: float = 1e-2, lambd: float = 1e-4, alpha: float = 0.75, t0: float = 1e6,
                 weight_decay: float = 0, foreach: bool | None = None, maximize: bool = False,
                 differentiable: bool = False, capturable: bool = False) -> None:
        _check_nonnegative(lr=lr, weight_decay=weight_decay)
        _check_unsupported("ASGD", capturable, differentiable)
        defaults = dict(lr=lr, lambd=lambd, alpha=alpha, t0=t0, weight_decay=weight_decay, foreach=foreach,
                        maximize=maximize, differentiable=differentiable, capturable=capturable)
        super().__init__(params, defaults)

    def _options(self, group: dict[str, Any]) -> dict[str, Any]:
        return dict(lambd=float(group["lambd"]), alpha=float(group["alpha"]), t0=float(group["t0"]))

    def _slots(self, group: dict[str, Any]) -> list[str | None]:
        return ["ax"]

    def _init_state(self, group: dict[str, Any]) -> Callable[[Tensor, dict], None]:
        def init(p: Tensor, state: dict) -> None:
            state["step"] = _counter(group, p)
            lr = group["lr"]
            if isinstance(lr, Tensor) and group.get("capturable"):  # copied on the device, never read on the host
                state["eta"] = lr.detach().reshape([]).to(p.device).to(_C.dtype.float32).clone()
            else:
                state["eta"] = _counter(group, p, float(lr))
            state["mu"] = _counter(group, p, 1.0)
            state["ax"] = zeros_like(p)
        return init


class Lion(_Fused):
    """Lion (Chen et al. 2023, "Symbolic Discovery of Optimization Algorithms"):
    ``p -= lr * (sign(beta1 * m + (1 - beta1) * g) + weight_decay * p)``, then
    ``m = beta2 * m + (1 - beta2) * g``. One state tensor (``exp_avg``), no step counter.
    Not in torch.optim; ``maximize`` follows it (the gradient is negated)."""

    kind = K.Lion
    counted = False

    def __init__(self, params: Params, lr: float = 1e-4, betas: tuple[float, float] = (0.9, 0.99),
                 weight_decay: float = 0, *, maximize: bool = False, foreach: bool | None = None,
                 fused: bool | None = None) -> None:
        _check_nonnegative(lr=lr)
        _check_betas(betas)
        _check_nonnegative(weight_decay=weight_decay)
        defaults = dict(lr=lr, betas=tuple(betas), weight_decay=weight_decay, maximize=maximize, foreach=foreach,
                        fused=fused)
        super().__init__(params, defaults)

    def _options(self, group: dict[str, Any]) -> dict[str, Any]:
        b1, b2 = group["betas"]
        return dict(beta1=float(b1), beta2=float(b2))

    def _slots(self, group: dict[str, Any]) -> list[str | None]:
        return ["exp_avg"]


class LAMB(_Fused):
    """LAMB (You et al. 2020, "Large Batch Optimization for Deep Learning", Algorithm 2): Adam's
    bias-corrected moments give ``r = m_hat / (sqrt(v_hat) + eps)``; the update ``u = r + weight_decay * p``
    is scaled per parameter by the trust ratio ``||p|| / ||u||`` (1 when either norm is 0):
    ``p -= lr * ||p|| / ||u|| * u``. Not in torch.optim; ``maximize`` negates the gradient."""

    kind = K.LAMB

    def __init__(self, params: Params, lr: float = 1e-3, betas: tuple[float, float] = (0.9, 0.999),
                 eps: float = 1e-6, weight_decay: float = 0, *, maximize: bool = False,
                 foreach: bool | None = None, fused: bool | None = None) -> None:
        _check_nonnegative(lr=lr, eps=eps)
        _check_betas(betas)
        _check_nonnegative(weight_decay=weight_decay)
        defaults = dict(lr=lr, betas=tuple(betas), eps=eps, weight_decay=weight_decay, maximize=maximize,
                        foreach=foreach, fused=fused)
        super().__init__(params, defaults)

    def _options(self, group: dict[str, Any]) -> dict[str, Any]:
        b1, b2 = group["betas"]
        return dict(beta1=float(b1), beta2=float(b2), eps=float(group["eps"]))

    def _slots(self, group: dict[str, Any]) -> list[str | None]:
        return ["exp_avg", "exp_avg_sq"]


class Adafactor(_Fused):
    """Adafactor (Shazeer & Stern 2018), as ``torch.optim.Adafactor``: for a parameter of two or
    more dimensions the second moment is factored into ``row_var`` (..., R, 1) and ``col_var``
    (..., 1, C) (memory R + C instead of R * C); a vector keeps ``variance``. beta2 follows
    ``1 - t^beta2_decay``; the step is ``max(eps2, RMS(p)) * min(lr, 1/sqrt(t))`` times the update
    clipped to RMS ``d``; ``eps=(None, 1e-3)``: None means the dtype's machine epsilon;
    ``weight_decay`` is decoupled (p *= 1 - lr * weight_decay)."""

    kind = K.Adafactor

    def __init__(self, params: Params, lr: float = 1e-2, beta2_decay: float = -0.8,
                 eps: tuple[float | None, float] = (None, 1e-3), d: float = 1.0, weight_decay: float = 0.0, *,
                 foreach: bool | None = None, maximize: bool = False) -> None:
        check_tensor_lr(lr)
        if not 0.0 <= lr:
            raise ValueError(f"Learning rate should be >= 0 but is: {lr}")
        if not 0.0 >= beta2_decay:
            raise ValueError(f"beta2_decay should be <= 0 but is: {beta2_decay}")
        if len(eps) != 2:
            raise ValueError(f"eps must be a pair (eps1 or None, eps2), got {eps!r}")
        if eps[0] is not None and not 0.0 <= eps[0]:
            raise ValueError(f"epsilon1 should be >= 0 but is: {eps[0]}")
        if not 0.0 <= eps[1]:
            raise ValueError(f"epsilon2 should be >= 0 but is: {eps[1]}")
        if not 1.0 <= d:
            raise ValueError(f"Clipping threshold d should be >= 1 but is: {d}")
        if not 0.0 <= weight_decay:
            raise ValueError(f"weight_decay should be >= 0 but is: {weight_decay}")
        defaults = dict(lr=lr, beta2_decay=beta2_decay, eps=tuple(eps), d=d, weight_decay=weight_decay,
                        foreach=foreach, maximize=maximize)
        super().__init__(params, defaults)

    def _init_state(self, group: dict[str, Any]) -> Callable[[Tensor, dict], None]:
        def init(p: Tensor, state: dict) -> None:
            state["step"] = _counter(group, p)
            if p.dim() > 1:
                shape = list(p.shape)
                state["row_var"] = _C.zeros(shape[:-1] + [1], dtype=p.dtype, device=p.device)
                state["col_var"] = _C.zeros(shape[:-2] + [1, shape[-1]], dtype=p.dtype, device=p.device)
            else:
                state["variance"] = zeros_like(p)
        return init

    def step(self, closure: Callable[[], Any] | None = None) -> Any:
        """One update of every parameter that has a gradient; returns the closure's loss."""
        loss = self._evaluate(closure)
        for group in self.param_groups:
            params = [p for p in group["params"] if p.grad is not None]
            if not params:
                continue
            eps1, eps2 = group["eps"]
            if eps1 is None:  # as torch: the machine epsilon of the group's first parameter with a gradient
                eps1 = _finfo_eps(params[0].dtype)
            step = _new_step(K.Adafactor, group, eps=float(eps1), eps2=float(eps2),
                             beta2_decay=float(group["beta2_decay"]), d=float(group["d"]))
            init = self._init_state(group)
            for p in params:
                if len(self.state[p]) == 0:
                    init(p, self.state[p])
            states = [self.state[p] for p in params]
            rows = [s.get("row_var", s.get("variance")) for s in states]
            cols = [s.get("col_var", s.get("variance")) for s in states]  # unused for a vector
            _C._optimizer_step(step, params, [p.grad for p in params], [rows, cols], [s["step"] for s in states], [])
        return loss


def _finfo_eps(dtype: Any) -> float:
    """torch.finfo(dtype).eps: 2 to the minus the number of mantissa bits of each floating dtype."""
    bits = {_C.dtype.float16: 10, _C.dtype.bfloat16: 7, _C.dtype.float32: 23}
    return 2.0 ** -bits.get(dtype, 52)

