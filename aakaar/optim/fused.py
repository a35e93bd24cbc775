"""The optimizers whose update is one elementwise pass: SGD, Adam, AdamW, Adagrad,
RMSprop, Adamax, NAdam, RAdam and Adadelta, with PyTorch's arguments and defaults.

Each ``step()`` makes one native call per parameter group (``_C._optimizer_step``):
the op (csrc/ops/optimizer.cpp) increments the step counters and works out the
bias corrections, and the device's fused kernel (csrc/cpu/fused/optimizer.cpp)
updates every parameter and its state in one multi-tensor loop, vectorised and
threaded above a size threshold, in float32 or float64, contiguous or not (float16 and bfloat16
parameters and state go to it as float32 copies, rounded back once: see __init__.py).

``foreach=`` and ``fused=`` are accepted for compatibility with PyTorch and change
nothing: every step here is already fused and multi-tensor (PyTorch's ``fused=True``
in spirit, PyTorch's single-tensor arithmetic in its order of operations).
``differentiable=True`` runs a step composed of autograd ops instead (differentiable.py);
``capturable=True`` keeps the step counters on the parameters' device (CUDA), which renews them and
works out the bias corrections itself, and is refused for CPU parameters, as PyTorch refuses it
(see __init__.py). ``lr`` may be a one-element tensor, as in PyTorch: each step reads its value (on
the device, for a capturable group's lr tensor there), and a scheduler fills it in place.
"""

from __future__ import annotations

from typing import Any, Callable, Iterable

from .. import _C
from .._C import Tensor
from ..creation import full_like, zeros_like
from .differentiable import composed_step
from .optimizer import Optimizer, check_tensor_lr

__all__ = ["SGD", "Adam", "AdamW", "Adagrad", "RMSprop", "Adamax", "NAdam", "RAdam", "Adadelta"]

Params = Iterable[Tensor] | Iterable[dict]
K = _C.OptimizerKind


def _check_nonnegative(**values: float) -> None:
    check_tensor_lr(values.get("lr"))
    names = {"lr": "learning rate", "eps": "epsilon value"}
    for name, v in values.items():
        if not 0.0 <= v:
            raise ValueError(f"Invalid {names.get(name, name + ' value')}: {v}")


def _check_betas(betas: tuple[float, float]) -> None:
    if len(betas) != 2:
        raise ValueError(f"betas must be a pair of numbers, got {betas!r}")
    for i, b in enumerate(betas):
        if not 0.0 <= b < 1.0:
            raise ValueError(f"Invalid beta parameter at index {i}: {b}")


def _check_unsupported(name: str, capturable: bool = False, differentiable: bool = False,
                       fused: bool | None = None) -> None:
    """The construction-time refusals PyTorch makes: ``fused=True`` cannot be recorded by autograd.
    (``capturable=True`` is checked at each step, where PyTorch checks it: see _check_capturable.)"""
    if differentiable and fused:
        raise RuntimeError("`fused` does not support `differentiable`")


def _check_capturable(group: dict[str, Any], params: Iterable[Tensor], state: Any = None) -> bool:
    """Whether the group's step is capturable: ``capturable=True`` asks that a step never wait on the
    host (CUDA graphs). PyTorch allows it only on accelerators and refuses CPU parameters, or step
    counters left on the CPU, at the step with an AssertionError; so does aakaar. On "cuda" the
    counters then live on the device, which renews them itself (_C._optimizer_step_capturable)."""
    params = list(params)
    if not group.get("capturable") or not params:
        return False
    for i, p in enumerate(params):
        if p.device.type != "cuda":
            raise AssertionError("If capturable=True, params and state_steps must be on supported devices: "
                                 f"['cuda'] (parameter {i} is on '{p.device.type}'; capturable=True is for "
                                 "CUDA graphs, set capturable=False for CPU parameters)")
        step = state.get(p, {}).get("step") if state is not None else None
        if isinstance(step, Tensor) and step.device != p.device:
            raise AssertionError("If capturable=True, params and state_steps must be on supported devices: "
                                 f"['cuda'] (the step of parameter {i} is on '{step.device}', its parameter on "
                                 f"'{p.device}': state made with capturable=False stays on the host; load it "
                                 "through load_state_dict, which moves it)")
    if group.get("differentiable"):
        raise NotImplementedError("capturable=True with differentiable=True: aakaar's recorded step "
                                  "(differentiable.py) keeps its step counters on the host; use capturable=False")
    return True


def _counter(group: dict[str, Any], p: Tensor, value: float = 0.0) -> Tensor:
    """A 0-d float32 counter of parameter ``p`` (its step; NAdam's mu_product, ASGD's eta and mu), as
    torch.optim keeps it: on the CPU, or on p's device with capturable=True."""
    t = _C.zeros(dtype=_C.dtype.float32, device=p.device if group.get("capturable") else "cpu")
    if value != 0.0:
        t.fill_(float(value))
    return t


def _device_lr(group: dict[str, Any]) -> Tensor | None:
    """A capturable group's lr when it is a tensor on a device (read there, never on the host)."""
    lr = group["lr"]
    if group.get("capturable") and isinstance(lr, Tensor) and lr.device.type != "cpu":
        return lr
    return None


def _new_step(kind: Any, group: dict[str, Any], **fields: Any) -> Any:
    s = _C.OptimizerStep()
    s.kind = kind
    lr = group["lr"]
    # A capturable step reads an lr tensor on the device there (_C._optimizer_step_capturable's lr).
    s.lr = 0.0 if _device_lr(group) is not None else float(lr)
    s.weight_decay = float(group.get("weight_decay", 0.0))
    s.maximize = bool(group.get("maximize", False))
    for k, v in fields.items():
        setattr(s, k, v)
    return s


class _Fused(Optimizer):
    """An optimizer whose step is ``_fused_step`` once per group."""

    kind: Any = None
    counted = True  # whether each parameter has a "step" counter the op increments
    scalar_keys: tuple[str, ...] = ()  # per-parameter 0-d state the op reads and renews (ASGD)

    def _options(self, group: dict[str, Any]) -> dict[str, Any]:
        """The OptimizerStep fields of this group besides lr, weight_decay and maximize."""
        return {}

    def _slots(self, group: dict[str, Any]) -> list[str | None]:
        raise NotImplementedError

    def _init_state(self, group: dict[str, Any]) -> Callable[[Tensor, dict], None]:
        """A parameter's first state: its step counter and a zero tensor for each slot the group uses.
        Optimizers whose state starts otherwise (or in another order, as torch saves it) override this."""
        slots = [name for name in self._slots(group) if name is not None]
        counted = self.counted

        def init(p: Tensor, state: dict) -> None:
            if counted:
                state["step"] = _counter(group, p)
            for name in slots:
                state[name] = zeros_like(p)
        return init

    def step(self, closure: Callable[[], Any] | None = None) -> Any:
        """One update of every parameter that has a gradient; returns the closure's loss."""
        loss = self._evaluate(closure)
        for group in self.param_groups:
            capturable = _check_capturable(group, [p for p in group["params"] if p.grad is not None], self.state)
            if group.get("differentiable"):
                composed_step(self, self.kind, group)
                continue
            step = _new_step(self.kind, group, **self._options(group))
            self._fused_step(group, step, self._slots(group), self._init_state(group), counted=self.counted,
                             nadam=self.kind == K.NAdam, scalar_keys=self.scalar_keys, capturable=capturable)
        return loss


class SGD(Optimizer):
    """Stochastic gradient descent, with momentum (and dampening, Nesterov), weight decay and maximize."""

    def __init__(self, params: Params, lr: float = 1e-3, momentum: float = 0, dampening: float = 0,
                 weight_decay: float = 0, nesterov: bool = False, *, maximize: bool = False,
                 foreach: bool | None = None, differentiable: bool = False, fused: bool | None = None) -> None:
        _check_nonnegative(lr=lr, momentum=momentum, weight_decay=weight_decay)
        _check_unsupported("SGD", differentiable=differentiable, fused=fused)
        if nesterov and (momentum <= 0 or dampening != 0):
            raise ValueError("Nesterov momentum requires a momentum and zero dampening")
        defaults = dict(lr=lr, momentum=momentum, dampening=dampening, weight_decay=weight_decay, nesterov=nesterov,
                        maximize=maximize, foreach=foreach, differentiable=differentiable, fused=fused)
        super().__init__(params, defaults)

    def step(self, closure: Callable[[], Any] | None = None) -> Any:
        """One update of every parameter that has a gradient; returns the closure's loss."""
        loss = self._evaluate(closure)
        for group in self.param_groups:
            if group.get("differentiable"):
                composed_step(self, K.SGD, group)
                continue
            momentum = float(group["momentum"])
            fields = dict(momentum=momentum, dampening=float(group["dampening"]), nesterov=bool(group["nesterov"]))
            if momentum == 0:
                self._fused_step(group, _new_step(K.SGD, group, **fields), [None], lambda p, s: None, counted=False)
                continue
            # A parameter's first step sets its momentum buffer to the gradient; later ones decay it.
            with_grad = [p for p in group["params"] if p.grad is not None]
            fresh = [p for p in with_grad if "momentum_buffer" not in self.state[p]]
            for p in fresh:
                self.state[p]["momentum_buffer"] = zeros_like(p)
            if fresh:
                sub = dict(group, params=fresh)
                self._fused_step(sub, _new_step(K.SGD, group, first_step=True, **fields), ["momentum_buffer"],
                                 lambda p, s: None, counted=False)
            if len(fresh) < len(with_grad):
                seen = {id(p) for p in fresh}
                sub = dict(group, params=[p for p in with_grad if id(p) not in seen])
                self._fused_step(sub, _new_step(K.SGD, group, **fields), ["momentum_buffer"], lambda p, s: None,
                                 counted=False)
        return loss


class Adam(_Fused):
    """Adam (Kingma & Ba), with amsgrad, L2 or decoupled weight decay, and maximize."""

    kind = K.Adam

    def __init__(self, params: Params, lr: float = 1e-3, betas: tuple[float, float] = (0.9, 0.999), eps: float = 1e-8,
                 weight_decay: float = 0, amsgrad: bool = False, *, foreach: bool | None = None,
                 maximize: bool = False, capturable: bool = False, differentiable: bool = False,
                 fused: bool | None = None, decoupled_weight_decay: bool = False) -> None:
        _check_nonnegative(lr=lr, eps=eps)
        _check_betas(betas)
        _check_nonnegative(weight_decay=weight_decay)
        _check_unsupported(type(self).__name__, capturable, differentiable, fused)
        defaults = dict(lr=lr, betas=tuple(betas), eps=eps, weight_decay=weight_decay, amsgrad=amsgrad,
                        maximize=maximize, foreach=foreach, capturable=capturable, differentiable=differentiable,
                        fused=fused, decoupled_weight_decay=decoupled_weight_decay)
        super().__init__(params, defaults)

    def _options(self, group: dict[str, Any]) -> dict[str, Any]:
        b1, b2 = group["betas"]
        return dict(beta1=float(b1), beta2=float(b2), eps=float(group["eps"]), amsgrad=bool(group["amsgrad"]),
                    decoupled_weight_decay=bool(group["decoupled_weight_decay"]))

    def _slots(self, group: dict[str, Any]) -> list[str | None]:
        return ["exp_avg", "exp_avg_sq", "max_exp_avg_sq" if group["amsgrad"] else None]


class AdamW(Adam):
    """Adam with decoupled weight decay (Loshchilov & Hutter): p *= 1 - lr * weight_decay before each step."""

    def __init__(self, params: Params, lr: float = 1e-3, betas: tuple[float, float] = (0.9, 0.999), eps: float = 1e-8,
                 weight_decay: float = 1e-2, amsgrad: bool = False, *, maximize: bool = False,
                 foreach: bool | None = None, capturable: bool = False, differentiable: bool = False,
                 fused: bool | None = None) -> None:
        super().__init__(params, lr, betas, eps, weight_decay, amsgrad, foreach=foreach, maximize=maximize,
                         capturable=capturable, differentiable=differentiable, fused=fused,
                         decoupled_weight_decay=True)

    def load_state_dict(self, state_dict: dict[str, Any]) -> None:
        super().load_state_dict(state_dict)
        for group in self.param_groups:
            group["decoupled_weight_decay"] = True


class Adagrad(_Fused):
    """Adagrad, with lr_decay, weight decay, an initial accumulator value and maximize."""

    kind = K.Adagrad

    def __init__(self, params: Params, lr: float = 1e-2, lr_decay: float = 0, weight_decay: float = 0,
                 initial_accumulator_value: float = 0, eps: float = 1e-10, foreach: bool | None = None, *,
                 maximize: bool = False, differentiable: bool = False, fused: bool | None = None) -> None:
        _check_nonnegative(lr=lr, lr_decay=lr_decay, weight_decay=weight_decay,
                           initial_accumulator_value=initial_accumulator_value, eps=eps)
        _check_unsupported("Adagrad", differentiable=differentiable, fused=fused)
        defaults = dict(lr=lr, lr_decay=lr_decay, eps=eps, weight_decay=weight_decay,
                        initial_accumulator_value=initial_accumulator_value, foreach=foreach, maximize=maximize,
                        differentiable=differentiable, fused=fused)
        super().__init__(params, defaults)
        # Adagrad's state exists from the start, as in PyTorch.
        for group in self.param_groups:
            for p in group["params"]:
                self._init_state(group)(p, self.state[p])

    def _options(self, group: dict[str, Any]) -> dict[str, Any]:
        return dict(eps=float(group["eps"]), lr_decay=float(group["lr_decay"]))

    def _slots(self, group: dict[str, Any]) -> list[str | None]:
        return ["sum"]

    def _init_state(self, group: dict[str, Any]) -> Callable[[Tensor, dict], None]:
        def init(p: Tensor, state: dict) -> None:
            state["step"] = _counter(group, p)
            state["sum"] = full_like(p, float(group["initial_accumulator_value"]))
        return init


class RMSprop(_Fused):
    """RMSprop, with momentum, centered, weight decay and maximize."""

    kind = K.RMSprop

    def __init__(self, params: Params, lr: float = 1e-2, alpha: float = 0.99, eps: float = 1e-8,
                 weight_decay: float = 0, momentum: float = 0, centered: bool = False, capturable: bool = False,
                 foreach: bool | None = None, maximize: bool = False, differentiable: bool = False) -> None:
        _check_nonnegative(lr=lr, eps=eps, momentum=momentum, weight_decay=weight_decay, alpha=alpha)
        _check_unsupported("RMSprop", capturable, differentiable)
        defaults = dict(lr=lr, momentum=momentum, alpha=alpha, eps=eps, centered=centered, weight_decay=weight_decay,
                        capturable=capturable, foreach=foreach, maximize=maximize, differentiable=differentiable)
        super().__init__(params, defaults)

    def _options(self, group: dict[str, Any]) -> dict[str, Any]:
        return dict(alpha=float(group["alpha"]), eps=float(group["eps"]), momentum=float(group["momentum"]),
                    centered=bool(group["centered"]))

    def _slots(self, group: dict[str, Any]) -> list[str | None]:
        return ["square_avg", "grad_avg" if group["centered"] else None,
                "momentum_buffer" if group["momentum"] > 0 else None]

    def _init_state(self, group: dict[str, Any]) -> Callable[[Tensor, dict], None]:
        def init(p: Tensor, state: dict) -> None:
            state["step"] = _counter(group, p)
            state["square_avg"] = zeros_like(p)
            if group["momentum"] > 0:
                state["momentum_buffer"] = zeros_like(p)
            if group["centered"]:
                state["grad_avg"] = zeros_like(p)
        return init


class Adamax(_Fused):
    """Adamax (Adam with the infinity norm), with weight decay and maximize."""

    kind = K.Adamax

    def __init__(self, params: Params, lr: float = 2e-3, betas: tuple[float, float] = (0.9, 0.999),
                 eps: float = 1e-8, weight_decay: float = 0, foreach: bool | None = None, *, maximize: bool = False,
                 differentiable: bool = False, capturable: bool = False) -> None:
        _check_nonnegative(lr=lr, eps=eps)
        _check_betas(betas)
        _check_nonnegative(weight_decay=weight_decay)
        _check_unsupported("Adamax", capturable, differentiable)
        defaults = dict(lr=lr, betas=tuple(betas), eps=eps, weight_decay=weight_decay, foreach=foreach,
                        maximize=maximize, differentiable=differentiable, capturable=capturable)
        super().__init__(params, defaults)

    def _options(self, group: dict[str, Any]) -> dict[str, Any]:
        b1, b2 = group["betas"]
        return dict(beta1=float(b1), beta2=float(b2), eps=float(group["eps"]))

    def _slots(self, group: dict[str, Any]) -> list[str | None]:
        return ["exp_avg", "exp_inf"]


class NAdam(_Fused):
    """NAdam (Adam with Nesterov momentum), with momentum_decay, L2 or decoupled weight decay, maximize."""

    kind = K.NAdam

    def __init__(self, params: Params, lr: float = 2e-3, betas: tuple[float, float] = (0.9, 0.999),
                 eps: float = 1e-8, weight_decay: float = 0, momentum_decay: float = 4e-3,
                 decoupled_weight_decay: bool = False, *, foreach: bool | None = None, maximize: bool = False,
                 capturable: bool = False, differentiable: bool = False) -> None:
        _check_nonnegative(lr=lr, eps=eps)
        _check_betas(betas)
        _check_nonnegative(weight_decay=weight_decay, momentum_decay=momentum_decay)
        _check_unsupported("NAdam", capturable, differentiable)
        defaults = dict(lr=lr, betas=tuple(betas), eps=eps, weight_decay=weight_decay, momentum_decay=momentum_decay,
                        decoupled_weight_decay=decoupled_weight_decay, maximize=maximize, foreach=foreach,
                        capturable=capturable, differentiable=differentiable)
        super().__init__(params, defaults)

    def _options(self, group: dict[str, Any]) -> dict[str, Any]:
        b1, b2 = group["betas"]
        return dict(beta1=float(b1), beta2=float(b2), eps=float(group["eps"]),
                    momentum_decay=float(group["momentum_decay"]),
                    decoupled_weight_decay=bool(group["decoupled_weight_decay"]))

    def _slots(self, group: dict[str, Any]) -> list[str | None]:
        return ["exp_avg", "exp_avg_sq"]

    def _init_state(self, group: dict[str, Any]) -> Callable[[Tensor, dict], None]:
        def init(p: Tensor, state: dict) -> None:
            state["step"] = _counter(group, p)
            state["mu_product"] = _counter(group, p, 1.0)
            state["exp_avg"] = zeros_like(p)
            state["exp_avg_sq"] = zeros_like(p)
        return init


class RAdam(_Fused):
    """RAdam (rectified Adam), with L2 or decoupled weight decay and maximize."""

    kind = K.RAdam

    def __init__(self, params: Params, lr: float = 1e-3, betas: tuple[float, float] = (0.9, 0.999),
                 eps: float = 1e-8, weight_decay: float = 0, decoupled_weight_decay: bool = False, *,
                 foreach: bool | None = None, maximize: bool = False, capturable: bool = False,
                 differentiable: bool = False) -> None:
        _check_nonnegative(lr=lr, eps=eps)
        _check_betas(betas)
        _check_nonnegative(weight_decay=weight_decay)
        _check_unsupported("RAdam", capturable, differentiable)
        defaults = dict(lr=lr, betas=tuple(betas), eps=eps, weight_decay=weight_decay, maximize=maximize,
                        foreach=foreach, capturable=capturable, decoupled_weight_decay=decoupled_weight_decay,
                        differentiable=differentiable)
        super().__init__(params, defaults)

    def _options(self, group: dict[str, Any]) -> dict[str, Any]:
        b1, b2 = group["betas"]
        return dict(beta1=float(b1), beta2=float(b2), eps=float(group["eps"]),
                    decoupled_weight_decay=bool(group["decoupled_weight_decay"]))

    def _slots(self, group: dict[str, Any]) -> list[str | None]:
        return ["exp_avg", "exp_avg_sq"]


class Adadelta(_Fused):
    """Adadelta, with weight decay and maximize."""

    kind = K.Adadelta

    def __init__(self, params: Params, lr: float = 1.0, rho: float = 0.9, eps: float = 1e-6, weight_decay: float = 0,
                 foreach: bool | None = None, *, capturable: bool = False, maximize: bool = False,
                 differentiable: bool = False) -> None:
        _check_nonnegative(lr=lr)
        if not 0.0 <= rho <= 1.0:
            raise ValueError(f"Invalid rho value: {rho}")
        _check_nonnegative(eps=eps, weight_decay=weight_decay)
        _check_unsupported("Adadelta", capturable, differentiable)
        defaults = dict(lr=lr, rho=rho, eps=eps, weight_decay=weight_decay, maximize=maximize, capturable=capturable,
                        foreach=foreach, differentiable=differentiable)
        super().__init__(params, defaults)

    def _options(self, group: dict[str, Any]) -> dict[str, Any]:
        return dict(rho=float(group["rho"]), eps=float(group["eps"]))

    def _slots(self, group: dict[str, Any]) -> list[str | None]:
        return ["square_avg", "acc_delta"]

