"""Learning-rate schedulers: the ``torch.optim.lr_scheduler`` of aakaar.

A scheduler changes ``group["lr"]`` of an optimizer's parameter groups as
training goes on. The loop is PyTorch's::

    for batch in data:
        loss = model(batch); loss.backward()
        optimizer.step()
        scheduler.step()        # after the optimizer: lr for the *next* step

Every scheduler keeps a step counter ``last_epoch`` (the number of
``scheduler.step()`` calls; the constructor takes the first one, so it is 0
right after construction) and ``base_lrs``, each group's ``initial_lr``.

Two ways of writing a schedule
------------------------------
A schedule is a function of the step ``t``: ``lr_t = base_lr * f(t)``. Most
schedules here are nevertheless written *recursively*, ``lr_t = lr_{t-1} * r_t``
with ``r_t = f(t) / f(t-1)`` (PyTorch calls this the *chainable* form). The
reason: the recursive form only ever looks at the lr now in the group, so two
schedulers can act on one optimizer one after the other (``ChainedScheduler``)
and each one's factor multiplies the other's; and a user who sets
``group["lr"]`` by hand sees the schedule continue from that value. The closed
form, ``base_lr * f(t)``, is still there (``_closed_form``): ``step(epoch)``
jumps to an arbitrary step with it. Floating-point rounding makes the two
differ in the last bits; aakaar applies the same recursion as PyTorch, in the
same order of operations, so that its learning rates equal PyTorch's bit for
bit (tests/optim/test_lr_scheduler_parity.py).

The schedulers: LambdaLR, MultiplicativeLR, StepLR, MultiStepLR, ConstantLR,
LinearLR, ExponentialLR, PolynomialLR, CosineAnnealingLR,
CosineAnnealingWarmRestarts, CyclicLR, OneCycleLR, SequentialLR,
ChainedScheduler and ReduceLROnPlateau.
"""

from __future__ import annotations

import math
import types
import warnings
from bisect import bisect_right
from collections import Counter
from typing import Any, Callable, Iterable, Sequence, SupportsFloat

from .._C import Tensor
from .optimizer import Optimizer

__all__ = ["LRScheduler", "LambdaLR", "MultiplicativeLR", "StepLR", "MultiStepLR", "ConstantLR", "LinearLR",
           "ExponentialLR", "PolynomialLR", "CosineAnnealingLR", "CosineAnnealingWarmRestarts", "CyclicLR",
           "OneCycleLR", "SequentialLR", "ChainedScheduler", "ReduceLROnPlateau"]

_EPOCH_DEPRECATED = (
    "The epoch parameter in `scheduler.step()` was not necessary and is being deprecated where possible. "
    "Please use `scheduler.step()` to step the scheduler. During the deprecation, if epoch is different from "
    "None, the closed form is used instead of the new chainable form, where available.")

_ORDER_URL = "https://pytorch.org/docs/stable/optim.html#how-to-adjust-learning-rate"


def _check_optimizer(optimizer: Any) -> None:
    if not isinstance(optimizer, Optimizer):
        raise TypeError(f"{type(optimizer).__name__} is not an Optimizer")


def _per_group(name: str, optimizer: Optimizer, value: Any) -> list[Any]:
    """``value`` for each parameter group: a list or tuple gives one per group, anything else is shared."""
    n = len(optimizer.param_groups)
    if isinstance(value, (list, tuple)):
        if len(value) != n:
            raise ValueError(f"{name} must have the same length as optimizer.param_groups. "
                             f"{name} has {len(value)} values, param_groups has {n}.")
        return list(value)
    return [value] * n


def _group_lrs(optimizer: Optimizer) -> list[float]:
    """Each group's lr; a tensor lr is cloned, so the list does not change when the scheduler fills it."""
    return [_copy(group["lr"]) for group in optimizer.param_groups]


def _copy(value: Any) -> Any:
    return value.clone() if isinstance(value, Tensor) else value


def _set_group_value(group: dict[str, Any], key: str, value: Any) -> None:
    """group[key] = value, except that a tensor (a tensor lr) is filled in place, as PyTorch does, so
    whoever holds that tensor sees the new value."""
    if isinstance(group[key], Tensor):
        group[key].fill_(float(value))
    else:
        group[key] = value


def _mark_stepped(optimizer: Optimizer, args: Any, kwargs: Any) -> None:
    optimizer._opt_called = True  # type: ignore[attr-defined]


def _track_optimizer_steps(optimizer: Optimizer) -> None:
    """Registers (once per optimizer) a step post-hook that records that ``optimizer.step()`` ran, so that a
    scheduler can warn when it is stepped first (the lr schedule would then skip its first value)."""
    if not getattr(optimizer, "_lr_scheduler_tracked", False):
        optimizer.register_step_post_hook(_mark_stepped)
        optimizer._lr_scheduler_tracked = True  # type: ignore[attr-defined]


def _saved_callables(fns: Iterable[Callable | None]) -> list[dict | None]:
    """What a state dict keeps of user callables: a plain function or lambda is code, not state (None);
    a callable object's attributes are state, and are saved."""
    return [None if fn is None or isinstance(fn, types.FunctionType) else dict(vars(fn)) for fn in fns]


def _restore_callables(fns: Sequence[Callable | None], saved: Sequence[dict | None]) -> None:
    for fn, state in zip(fns, saved):
        if state is not None and fn is not None:
            vars(fn).update(state)


class LRScheduler:
    """Base class of the schedulers (``torch.optim.lr_scheduler.LRScheduler``'s interface).

    ``optimizer``: the optimizer whose groups' ``"lr"`` this scheduler sets.
    ``last_epoch``: -1 for a new schedule; a step number to resume one, in
    which case every group must already hold ``"initial_lr"`` (an optimizer
    loaded from a checkpoint does).

    A subclass writes ``get_lr()``: the lrs of step ``self.last_epoch``, usually
    from the lrs now in the groups (the recursive form, see the module's
    docstring), and optionally ``_closed_form()``: the same lrs from
    ``self.base_lrs`` alone, used by ``step(epoch)``.
    """

    # Not state: saved neither by state_dict() nor replaced by load_state_dict().
    _TRANSIENT = ("optimizer", "_is_initial", "_in_step")
    # Set while the constructor takes the first step: some recursive schedules must leave the lr alone then
    # (their factor r_0 would be f(0)/f(-1)).
    _is_initial = False
    # Set while step() asks get_lr(): get_lr() from outside is a mistake PyTorch warns about.
    _in_step = False

    def __init__(self, optimizer: Optimizer, last_epoch: int = -1) -> None:
        _check_optimizer(optimizer)
        self.optimizer = optimizer
        if last_epoch == -1:
            # setdefault, not assignment: a second scheduler on the same optimizer, or one built on an optimizer
            # loaded from a checkpoint, keeps the original lr as its base.
            for group in optimizer.param_groups:
                group.setdefault("initial_lr", _copy(group["lr"]))
        else:
            for i, group in enumerate(optimizer.param_groups):
                if "initial_lr" not in group:
                    raise KeyError(f"param 'initial_lr' is not specified in param_groups[{i}] when resuming "
                                   "scheduler with last_epoch >= 0 (load the optimizer's state dict first)")
        self.base_lrs: list[float] = [_copy(group["initial_lr"]) for group in optimizer.param_groups]
        self.last_epoch = last_epoch
        _track_optimizer_steps(optimizer)
        self._initial_step()

    def _initial_step(self) -> None:
        """The constructor's step: moves ``last_epoch`` from -1 to 0 and sets the lrs of step 0."""
        self._step_count = 0
        self._is_initial = True
        try:
            self.step()
        finally:
            self._is_initial = False

    # ---- the schedule -----------------------------------------------------------------------

    def get_lr(self) -> list[float]:
        """The lrs of step ``self.last_epoch`` (called by ``step()``; use ``get_last_lr()`` to read them)."""
        raise NotImplementedError

    def get_last_lr(self) -> list[float]:
        """The lrs this scheduler set last, one per parameter group."""
        return self._last_lr

    def _warn_if_outside_step(self) -> None:
        if not self._in_step:
            warnings.warn("To get the last learning rate computed by the scheduler, please use `get_last_lr()`.",
                          UserWarning, stacklevel=3)

    def _warn_if_before_optimizer(self) -> None:
        """On the first user step: has the optimizer stepped yet? If not, the user calls them in the wrong
        order, and the first lr of the schedule is never used."""
        if self._step_count != 1:
            return
        if "step" in vars(self.optimizer):
            # an instance attribute shadows the class's step, and with it the hook that tracks the calls
            warnings.warn("Seems like `optimizer.step()` has been overridden after learning rate scheduler "
                          "initialization. Please, make sure to call `optimizer.step()` before "
                          f"`lr_scheduler.step()`. See more details at {_ORDER_URL}", UserWarning, stacklevel=3)
        elif not getattr(self.optimizer, "_opt_called", False):
            warnings.warn("Detected call of `lr_scheduler.step()` before `optimizer.step()`. In PyTorch 1.1.0 and "
                          "later (and in aakaar), you should call them in the opposite order: `optimizer.step()` "
                          "before `lr_scheduler.step()`. Failure to do this will result in skipping the first "
                          f"value of the learning rate schedule. See more details at {_ORDER_URL}",
                          UserWarning, stacklevel=3)

    def step(self, epoch: int | None = None) -> None:
        """Advances the schedule one step (or, deprecated, to step ``epoch``) and writes the new lrs."""
        self._warn_if_before_optimizer()
        self._step_count += 1
        if epoch is not None:
            warnings.warn(_EPOCH_DEPRECATED, UserWarning, stacklevel=2)
        self._advance(epoch)

    def _advance(self, epoch: int | None = None) -> None:
        """Moves to the next step (``epoch`` None) or to step ``epoch`` by the closed form, and sets the lrs."""
        self._in_step = True
        try:
            if epoch is None:
                self.last_epoch += 1
                lrs = self.get_lr()
            else:
                self.last_epoch = epoch
                lrs = self._closed_form() if self._has_closed_form() else self.get_lr()
        finally:
            self._in_step = False
        for group, lr in zip(self.optimizer.param_groups, lrs):
            _set_group_value(group, "lr", lr)
        self._last_lr = _group_lrs(self.optimizer)

    def _has_closed_form(self) -> bool:
        return type(self)._closed_form is not LRScheduler._closed_form

    def _closed_form(self) -> list[float]:
        raise NotImplementedError

    # ---- state --------------------------------------------------------------------------------

    def state_dict(self) -> dict[str, Any]:
        """The scheduler's state: every attribute but the optimizer (and user functions)."""
        return {k: v for k, v in vars(self).items() if k not in self._TRANSIENT}

    def load_state_dict(self, state_dict: dict[str, Any]) -> None:
        """Restores what ``state_dict()`` returned."""
        vars(self).update({k: v for k, v in state_dict.items() if k not in self._TRANSIENT})

    def __repr__(self) -> str:
        return f"{type(self).__name__}(last_epoch={getattr(self, 'last_epoch', None)})"


_LRScheduler = LRScheduler  # PyTorch's old name


class _LambdaScheduler(LRScheduler):
    """What LambdaLR and MultiplicativeLR share: one user function per group, saved only if it is an object."""

    _TRANSIENT = LRScheduler._TRANSIENT + ("lr_lambdas",)

    def __init__(self, optimizer: Optimizer, lr_lambda: Callable[[int], float] | Sequence[Callable[[int], float]],
                 last_epoch: int = -1) -> None:
        _check_optimizer(optimizer)  # before reading its groups: a TypeError, not an AttributeError
        n = len(optimizer.param_groups)
        if isinstance(lr_lambda, (list, tuple)):
            if len(lr_lambda) != n:
                raise ValueError(f"Expected {n} lr_lambdas, but got {len(lr_lambda)}")
            self.lr_lambdas = list(lr_lambda)
        else:
            self.lr_lambdas = [lr_lambda] * n
        for fn in self.lr_lambdas:
            if not callable(fn):
                raise TypeError(f"lr_lambda should be a function, but got {type(fn).__name__}")
        super().__init__(optimizer, last_epoch)

    def state_dict(self) -> dict[str, Any]:
        state = super().state_dict()
        state["lr_lambdas"] = _saved_callables(self.lr_lambdas)
        return state

    def load_state_dict(self, state_dict: dict[str, Any]) -> None:
        super().load_state_dict(state_dict)
        _restore_callables(self.lr_lambdas, state_dict.get("lr_lambdas", []))


class LambdaLR(_LambdaScheduler):
    """``lr_t = base_lr * lr_lambda(t)``: any schedule, as a function of the step.

    ``lr_lambda``: one function, or a list of one per parameter group. The
    schedule is in closed form already (it is a function of ``t``), so it
    ignores lrs set by hand or by other schedulers: they are overwritten.
    """

    def get_lr(self) -> list[float]:
        self._warn_if_outside_step()
        return [base_lr * fn(self.last_epoch) for fn, base_lr in zip(self.lr_lambdas, self.base_lrs)]


class MultiplicativeLR(_LambdaScheduler):
    """``lr_t = lr_{t-1} * lr_lambda(t)``: the function gives the factor of each step, not the lr.

    Step 0 keeps the lr (there is no previous step to multiply)."""

    def get_lr(self) -> list[float]:
        self._warn_if_outside_step()
        if self._is_initial:
            return _group_lrs(self.optimizer)
        return [group["lr"] * fn(self.last_epoch) for fn, group in zip(self.lr_lambdas, self.optimizer.param_groups)]


class StepLR(LRScheduler):
    """``lr_t = base_lr * gamma ** (t // step_size)``: multiplied by ``gamma`` every ``step_size`` steps.

    Recursively: the lr is kept, except at the multiples of ``step_size``
    (not 0), where it is multiplied by ``gamma``."""

    def __init__(self, optimizer: Optimizer, step_size: int, gamma: float = 0.1, last_epoch: int = -1) -> None:
        if not step_size > 0:  # PyTorch fails later, with a ZeroDivisionError or a never-changing lr
            raise ValueError(f"Expected positive step_size, but got {step_size}")
        self.step_size = step_size
        self.gamma = gamma
        super().__init__(optimizer, last_epoch)

    def get_lr(self) -> list[float]:
        self._warn_if_outside_step()
        t = self.last_epoch
        if t == 0 or t % self.step_size != 0:
            return _group_lrs(self.optimizer)
        return [lr * self.gamma for lr in _group_lrs(self.optimizer)]

    def _closed_form(self) -> list[float]:
        return [base_lr * self.gamma ** (self.last_epoch // self.step_size) for base_lr in self.base_lrs]


class MultiStepLR(LRScheduler):
    """``lr_t = base_lr * gamma ** (number of milestones <= t)``: multiplied by ``gamma`` at each milestone.

    ``milestones`` may repeat a step: each occurrence counts (a milestone given
    twice multiplies by ``gamma ** 2`` there), which is why they are counted
    rather than kept as a set."""

    def __init__(self, optimizer: Optimizer, milestones: Iterable[int], gamma: float = 0.1,
                 last_epoch: int = -1) -> None:
        self.milestones = Counter(milestones)
        self.gamma = gamma
        super().__init__(optimizer, last_epoch)

    def get_lr(self) -> list[float]:
        self._warn_if_outside_step()
        hits = self.milestones.get(self.last_epoch, 0)
        if hits == 0:
            return _group_lrs(self.optimizer)
        return [lr * self.gamma ** hits for lr in _group_lrs(self.optimizer)]

    def _closed_form(self) -> list[float]:
        passed = bisect_right(sorted(self.milestones.elements()), self.last_epoch)
        return [base_lr * self.gamma ** passed for base_lr in self.base_lrs]


class ConstantLR(LRScheduler):
    """``lr_t = base_lr * factor`` for ``t < total_iters``, then ``base_lr``: a constant warm-up.

    Recursively: step 0 multiplies by ``factor``, step ``total_iters``
    divides it back out (as a multiplication by ``1 / factor``, PyTorch's
    rounding), and every other step keeps the lr."""

    def __init__(self, optimizer: Optimizer, factor: float = 1.0 / 3, total_iters: int = 5,
                 last_epoch: int = -1) -> None:
        if factor > 1.0 or factor < 0:
            raise ValueError("Constant multiplicative factor expected to be between 0 and 1.")
        self.factor = factor
        self.total_iters = total_iters
        super().__init__(optimizer, last_epoch)

    def get_lr(self) -> list[float]:
        self._warn_if_outside_step()
        if self.last_epoch == 0:
            return [lr * self.factor for lr in _group_lrs(self.optimizer)]
        if self.last_epoch != self.total_iters:
            return _group_lrs(self.optimizer)
        return [lr * (1.0 / self.factor) for lr in _group_lrs(self.optimizer)]

    def _closed_form(self) -> list[float]:
        done = self.last_epoch >= self.total_iters
        return [base_lr * (self.factor + done * (1 - self.factor)) for base_lr in self.base_lrs]


class LinearLR(LRScheduler):
    """``lr_t = base_lr * (s + (e - s) * min(t, T) / T)``: the factor goes linearly from ``start_factor`` s to
    ``end_factor`` e over ``total_iters`` T steps, then stays.

    Recursively the step-t factor is f(t) / f(t-1) = 1 + (e - s) / (T s + (t - 1)(e - s)):
    the ratio of consecutive factors, written with T multiplied through."""

    def __init__(self, optimizer: Optimizer, start_factor: float = 1.0 / 3, end_factor: float = 1.0,
                 total_iters: int = 5, last_epoch: int = -1) -> None:
        if start_factor > 1.0 or start_factor <= 0:
            raise ValueError("Starting multiplicative factor expected to be greater than 0 and less or equal to 1.")
        if end_factor > 1.0 or end_factor < 0:
            raise ValueError("Ending multiplicative factor expected to be between 0 and 1.")
        self.start_factor = start_factor
        self.end_factor = end_factor
        self.total_iters = total_iters
        super().__init__(optimizer, last_epoch)

    def get_lr(self) -> list[float]:
        self._warn_if_outside_step()
        t = self.last_epoch
        if t == 0:
            return [lr * self.start_factor for lr in _group_lrs(self.optimizer)]
        if self._is_initial or t > self.total_iters:
            return _group_lrs(self.optimizer)
        slope = self.end_factor - self.start_factor
        ratio = 1.0 + slope / (self.total_iters * self.start_factor + (t - 1) * slope)
        return [lr * ratio for lr in _group_lrs(self.optimizer)]

    def _closed_form(self) -> list[float]:
        slope = self.end_factor - self.start_factor
        t = min(self.total_iters, self.last_epoch)
        return [base_lr * (self.start_factor + slope * t / self.total_iters) for base_lr in self.base_lrs]


class ExponentialLR(LRScheduler):
    """``lr_t = base_lr * gamma ** t``: multiplied by ``gamma`` every step."""

    def __init__(self, optimizer: Optimizer, gamma: float, last_epoch: int = -1) -> None:
        self.gamma = gamma
        super().__init__(optimizer, last_epoch)

    def get_lr(self) -> list[float]:
        self._warn_if_outside_step()
        if self._is_initial:
            return _group_lrs(self.optimizer)
        return [lr * self.gamma for lr in _group_lrs(self.optimizer)]

    def _closed_form(self) -> list[float]:
        return [base_lr * self.gamma ** self.last_epoch for base_lr in self.base_lrs]


class PolynomialLR(LRScheduler):
    """``lr_t = base_lr * (1 - min(t, T) / T) ** power``: decays to 0 at step ``total_iters`` T, then stays.

    Recursively the factor of step t is ((1 - t/T) / (1 - (t-1)/T)) ** power."""

    def __init__(self, optimizer: Optimizer, total_iters: int = 5, power: float = 1.0, last_epoch: int = -1) -> None:
        self.total_iters = total_iters
        self.power = power
        super().__init__(optimizer, last_epoch)

    def get_lr(self) -> list[float]:
        self._warn_if_outside_step()
        t, T = self.last_epoch, self.total_iters
        if self._is_initial or t > T:
            return _group_lrs(self.optimizer)
        ratio = ((1.0 - t / T) / (1.0 - (t - 1) / T)) ** self.power
        return [lr * ratio for lr in _group_lrs(self.optimizer)]

    def _closed_form(self) -> list[float]:
        T = self.total_iters
        return [base_lr * (1.0 - min(T, self.last_epoch) / T) ** self.power for base_lr in self.base_lrs]


class CosineAnnealingLR(LRScheduler):
    """``lr_t = eta_min + (base_lr - eta_min) * (1 + cos(pi t / T_max)) / 2`` (SGDR without restarts).

    Half a cosine from ``base_lr`` down to ``eta_min`` over ``T_max`` steps;
    past ``T_max`` the cosine carries on and the lr climbs back up (period
    ``2 T_max``). Recursively, ``lr_t - eta_min`` is ``lr_{t-1} - eta_min``
    times the ratio of consecutive ``1 + cos`` terms. At the bottom of each
    period that ratio is 0/0-like (``1 + cos(pi) = 0``), so the step just past
    it adds the rise instead: ``(base_lr - eta_min) (1 - cos(pi / T_max)) / 2``.
    """

    def __init__(self, optimizer: Optimizer, T_max: int, eta_min: float = 0.0, last_epoch: int = -1) -> None:
        if not T_max > 0:  # PyTorch fails at the first step, with a ZeroDivisionError
            raise ValueError(f"Expected positive T_max, but got {T_max}")
        self.T_max = T_max
        self.eta_min = eta_min
        super().__init__(optimizer, last_epoch)

    def get_lr(self) -> list[float]:
        self._warn_if_outside_step()
        t, T, low = self.last_epoch, self.T_max, self.eta_min
        if self._is_initial:
            return _group_lrs(self.optimizer)
        if (t - 1 - T) % (2 * T) == 0:  # the step after a minimum
            return [lr + (base_lr - low) * (1 - math.cos(math.pi / T)) / 2
                    for base_lr, lr in zip(self.base_lrs, _group_lrs(self.optimizer))]
        ratio = (1 + math.cos(math.pi * t / T)) / (1 + math.cos(math.pi * (t - 1) / T))
        return [ratio * (lr - low) + low for lr in _group_lrs(self.optimizer)]

    def _closed_form(self) -> list[float]:
        cos = 1 + math.cos(math.pi * self.last_epoch / self.T_max)
        return [self.eta_min + (base_lr - self.eta_min) * cos / 2 for base_lr in self.base_lrs]


class CosineAnnealingWarmRestarts(LRScheduler):
    """SGDR (Loshchilov & Hutter): cosine annealing that restarts at ``base_lr``.

    ``lr = eta_min + (base_lr - eta_min) * (1 + cos(pi T_cur / T_i)) / 2``, where
    ``T_cur`` counts the steps since the last restart and ``T_i`` is the length of
    the current cycle: ``T_0`` at first, multiplied by ``T_mult`` at each restart.
    The lr is computed from ``T_cur`` directly (closed form): restarts would
    break a recursion. ``step(epoch)`` accepts fractional epochs (a restart in
    the middle of an epoch).
    """

    def __init__(self, optimizer: Optimizer, T_0: int, T_mult: int = 1, eta_min: float = 0.0,
                 last_epoch: int = -1) -> None:
        if not isinstance(T_0, int) or T_0 <= 0:
            raise ValueError(f"Expected positive integer T_0, but got {T_0}")
        if not isinstance(T_mult, int) or T_mult < 1:
            raise ValueError(f"Expected integer T_mult >= 1, but got {T_mult}")
        if not isinstance(eta_min, (float, int)):
            raise ValueError(f"Expected float or int eta_min, but got {eta_min} of type {type(eta_min)}")
        self.T_0 = T_0
        self.T_i = T_0
        self.T_mult = T_mult
        self.eta_min = eta_min
        self.T_cur: float = last_epoch
        super().__init__(optimizer, last_epoch)

    def get_lr(self) -> list[float]:
        self._warn_if_outside_step()
        cos = 1 + math.cos(math.pi * self.T_cur / self.T_i)
        return [self.eta_min + (base_lr - self.eta_min) * cos / 2 for base_lr in self.base_lrs]

    def step(self, epoch: float | None = None) -> None:
        """Advances one step, or (``epoch`` given, possibly fractional) jumps to that point of the schedule."""
        self._warn_if_before_optimizer()
        self._step_count += 1
        if epoch is None and self.last_epoch < 0:
            epoch = 0  # the constructor's step: start the first cycle
        if epoch is None:
            epoch = self.last_epoch + 1
            self.T_cur = self.T_cur + 1
            if self.T_cur >= self.T_i:  # restart; the next cycle is T_mult times longer
                self.T_cur = self.T_cur % self.T_i
                self.T_i = self.T_i * self.T_mult
        else:
            self._seek(epoch)
        self.last_epoch = math.floor(epoch)
        self._in_step = True
        try:
            lrs = self.get_lr()
        finally:
            self._in_step = False
        for group, lr in zip(self.optimizer.param_groups, lrs):
            _set_group_value(group, "lr", lr)
        self._last_lr = _group_lrs(self.optimizer)

    def _seek(self, epoch: float) -> None:
        """Sets ``T_cur`` and ``T_i`` for step ``epoch``. With T_mult > 1 cycle n starts at
        T_0 (T_mult^n - 1) / (T_mult - 1), a geometric sum, so n is a logarithm."""
        if epoch < 0:
            raise ValueError(f"Expected non-negative epoch, but got {epoch}")
        if epoch < self.T_0:
            self.T_i, self.T_cur = self.T_0, epoch
        elif self.T_mult == 1:
            self.T_cur = epoch % self.T_0
        else:
            n = int(math.log(epoch / self.T_0 * (self.T_mult - 1) + 1, self.T_mult))
            self.T_cur = epoch - self.T_0 * (self.T_mult ** n - 1) / (self.T_mult - 1)
            self.T_i = self.T_0 * self.T_mult ** n


def _set_momentum(group: dict[str, Any], momentum: float, use_beta1: bool) -> None:
    """SGD-like optimizers have ``momentum``; Adam-like ones cycle beta1, the first of ``betas``."""
    if use_beta1:
        group["betas"] = (momentum, *group["betas"][1:])
    else:
        group["momentum"] = momentum


def _momentum_kind(optimizer: Optimizer) -> bool:
    """True for beta1 (Adam-like), False for ``momentum`` (SGD-like); ValueError for neither."""
    if "momentum" not in optimizer.defaults and "betas" not in optimizer.defaults:
        raise ValueError("optimizer must support momentum or beta1 with `cycle_momentum` option enabled")
    return "betas" in optimizer.defaults


class CyclicLR(LRScheduler):
    """Cyclical learning rates (Smith, 2017): the lr goes from ``base_lr`` up to ``max_lr`` over
    ``step_size_up`` steps and back down over ``step_size_down``, again and again.

    With ``cycle = floor(1 + t / L)`` (L = up + down, the cycle's length) and
    ``x`` the position in the cycle in [0, 1), the triangle's height is
    ``x / ratio`` going up and ``(x - 1) / (ratio - 1)`` going down (``ratio = up / L``),
    and ``lr = base_lr + (max_lr - base_lr) * height * scale``. The modes choose
    the scale: ``"triangular"`` 1; ``"triangular2"`` halves the amplitude each
    cycle, ``1 / 2 ** (cycle - 1)``; ``"exp_range"`` decays it every step,
    ``gamma ** t``. A custom ``scale_fn`` gets the cycle or the step
    (``scale_mode``). With ``cycle_momentum`` the momentum (or Adam's beta1)
    moves the opposite way, between ``max_momentum`` and ``base_momentum``:
    a large step wants less momentum.

    The lr is a function of ``t`` (closed form), and the scheduler is meant to
    step after every batch, not every epoch.
    """

    _TRANSIENT = LRScheduler._TRANSIENT + ("_scale_fn_custom",)

    def __init__(self, optimizer: Optimizer, base_lr: float | list[float], max_lr: float | list[float],
                 step_size_up: int = 2000, step_size_down: int | None = None, mode: str = "triangular",
                 gamma: float = 1.0, scale_fn: Callable[[float], float] | None = None, scale_mode: str = "cycle",
                 cycle_momentum: bool = True, base_momentum: float | list[float] = 0.8,
                 max_momentum: float | list[float] = 0.9, last_epoch: int = -1) -> None:
        _check_optimizer(optimizer)
        self.optimizer = optimizer
        base_lrs = _per_group("base_lr", optimizer, base_lr)
        if last_epoch == -1:
            for group, lr in zip(optimizer.param_groups, base_lrs):
                _set_group_value(group, "lr", lr)
        self.max_lrs = _per_group("max_lr", optimizer, max_lr)

        up = float(step_size_up)
        down = float(step_size_down) if step_size_down is not None else up
        self.total_size = up + down
        self.step_ratio = up / self.total_size

        if mode not in ("triangular", "triangular2", "exp_range") and scale_fn is None:
            raise ValueError("mode is invalid and scale_fn is None")
        self.mode = mode
        self.gamma = gamma
        self._scale_fn_custom = scale_fn
        # the built-in modes fix the scale mode: triangular2 scales per cycle, exp_range per step
        self.scale_mode = scale_mode if scale_fn is not None else ("iterations" if mode == "exp_range" else "cycle")

        self.cycle_momentum = cycle_momentum
        if cycle_momentum:
            self.use_beta1 = _momentum_kind(optimizer)
            self.base_momentums = _per_group("base_momentum", optimizer, base_momentum)
            self.max_momentums = _per_group("max_momentum", optimizer, max_momentum)
            if last_epoch == -1:
                for group, high, low in zip(optimizer.param_groups, self.max_momentums, self.base_momentums):
                    _set_momentum(group, high, self.use_beta1)
                    group["max_momentum"] = high
                    group["base_momentum"] = low
        super().__init__(optimizer, last_epoch)
        # base_lr, not the groups' initial_lr, is the bottom of the cycle from now on (the constructor's step
        # above used initial_lr, which a checkpointed optimizer may hold: PyTorch's order, kept for parity)
        self.base_lrs = base_lrs

    def scale_fn(self, x: float) -> float:
        """The amplitude's scale at cycle (or step) ``x``."""
        if self._scale_fn_custom is not None:
            return self._scale_fn_custom(x)
        if self.mode == "triangular":
            return 1.0
        if self.mode == "triangular2":
            return 1 / (2.0 ** (x - 1))
        return self.gamma ** x  # exp_range

    def get_lr(self) -> list[float]:
        self._warn_if_outside_step()
        t = self.last_epoch
        cycle = math.floor(1 + t / self.total_size)
        x = 1.0 + t / self.total_size - cycle
        height = x / self.step_ratio if x <= self.step_ratio else (x - 1) / (self.step_ratio - 1)
        scale = self.scale_fn(cycle if self.scale_mode == "cycle" else t)
        lrs = [low + (high - low) * height * scale for low, high in zip(self.base_lrs, self.max_lrs)]
        if self.cycle_momentum:
            for group, low, high in zip(self.optimizer.param_groups, self.base_momentums, self.max_momentums):
                _set_momentum(group, high - (high - low) * height * scale, self.use_beta1)
        return lrs

    def state_dict(self) -> dict[str, Any]:
        state = super().state_dict()
        state["_scale_fn_custom"] = _saved_callables([self._scale_fn_custom])[0]
        return state

    def load_state_dict(self, state_dict: dict[str, Any]) -> None:
        super().load_state_dict(state_dict)
        _restore_callables([self._scale_fn_custom], [state_dict.get("_scale_fn_custom")])


class OneCycleLR(LRScheduler):
    """The 1cycle policy (Smith & Topin, 2018): one warm-up to ``max_lr`` and one long anneal far below the start.

    The lr starts at ``max_lr / div_factor`` (the groups' ``initial_lr``),
    rises to ``max_lr`` over the first ``pct_start`` of ``total_steps``, then
    anneals to ``initial_lr / final_div_factor``. With ``three_phase`` it comes
    back down to ``initial_lr`` symmetrically first, and only the last phase
    anneals to the minimum. Each phase interpolates between its two ends by
    ``anneal_strategy``: ``"cos"``, ``end + (start - end) (1 + cos(pi p)) / 2``,
    or ``"linear"``, ``start + (end - start) p``, with ``p`` the fraction of the
    phase done. With ``cycle_momentum`` the momentum (Adam: beta1) runs the
    other way, between ``max_momentum`` and ``base_momentum``.

    Give ``total_steps``, or ``epochs`` and ``steps_per_epoch``; stepping past
    ``total_steps`` is a ValueError.
    """

    def __init__(self, optimizer: Optimizer, max_lr: float | list[float], total_steps: int | None = None,
                 epochs: int | None = None, steps_per_epoch: int | None = None, pct_start: float = 0.3,
                 anneal_strategy: str = "cos", cycle_momentum: bool = True,
                 base_momentum: float | list[float] = 0.85, max_momentum: float | list[float] = 0.95,
                 div_factor: float = 25.0, final_div_factor: float = 1e4, three_phase: bool = False,
                 last_epoch: int = -1) -> None:
        _check_optimizer(optimizer)
        self.optimizer = optimizer
        if total_steps is not None:
            if not isinstance(total_steps, int) or total_steps <= 0:
                raise ValueError(f"Expected positive integer total_steps, but got {total_steps}")
            self.total_steps = total_steps
        elif epochs is not None and steps_per_epoch is not None:
            if not isinstance(epochs, int) or epochs <= 0:
                raise ValueError(f"Expected positive integer epochs, but got {epochs}")
            if not isinstance(steps_per_epoch, int) or steps_per_epoch <= 0:
                raise ValueError(f"Expected positive integer steps_per_epoch, but got {steps_per_epoch}")
            self.total_steps = epochs * steps_per_epoch
        else:
            raise ValueError("You must define either total_steps OR (epochs AND steps_per_epoch)")
        if not isinstance(pct_start, float) or pct_start < 0 or pct_start > 1:
            raise ValueError(f"Expected float between 0 and 1 pct_start, but got {pct_start}")
        if anneal_strategy not in ("cos", "linear"):
            raise ValueError(f"anneal_strategy must be one of 'cos' or 'linear', instead got {anneal_strategy}")
        self.anneal_strategy = anneal_strategy

        # Each phase: (its last step, the group keys of its start and end lr, of its start and end momentum).
        # The lrs live in the groups (initial_lr, max_lr, min_lr), so a checkpointed optimizer carries them.
        warm_end = float(pct_start * self.total_steps) - 1
        last = self.total_steps - 1
        if three_phase:
            self._phases = [(warm_end, "initial_lr", "max_lr", "max_momentum", "base_momentum"),
                            (float(2 * pct_start * self.total_steps) - 2, "max_lr", "initial_lr",
                             "base_momentum", "max_momentum"),
                            (last, "initial_lr", "min_lr", "max_momentum", "max_momentum")]
        else:
            self._phases = [(warm_end, "initial_lr", "max_lr", "max_momentum", "base_momentum"),
                            (last, "max_lr", "min_lr", "base_momentum", "max_momentum")]

        max_lrs = _per_group("max_lr", optimizer, max_lr)
        if last_epoch == -1:
            for group, top in zip(optimizer.param_groups, max_lrs):
                group["initial_lr"] = top / div_factor
                group["max_lr"] = top
                group["min_lr"] = group["initial_lr"] / final_div_factor

        self.cycle_momentum = cycle_momentum
        if cycle_momentum:
            self.use_beta1 = _momentum_kind(optimizer)
            max_momentums = _per_group("max_momentum", optimizer, max_momentum)
            base_momentums = _per_group("base_momentum", optimizer, base_momentum)
            if last_epoch == -1:
                for group, high, low in zip(optimizer.param_groups, max_momentums, base_momentums):
                    _set_momentum(group, high, self.use_beta1)
                    group["max_momentum"] = high
                    group["base_momentum"] = low
        super().__init__(optimizer, last_epoch)

    def _anneal(self, start: float, end: float, pct: float) -> float:
        if self.anneal_strategy == "cos":
            return end + (start - end) / 2.0 * (math.cos(math.pi * pct) + 1)
        return (end - start) * pct + start

    def get_lr(self) -> list[float]:
        self._warn_if_outside_step()
        t = self.last_epoch
        if t > self.total_steps:
            raise ValueError(f"Tried to step {t} times. The specified number of total steps is {self.total_steps}")
        lrs = []
        for group in self.optimizer.param_groups:
            start = 0.0
            for i, (end, lr0, lr1, m0, m1) in enumerate(self._phases):
                if t <= end or i == len(self._phases) - 1:  # the phase t is in (the last one holds any overrun)
                    pct = (t - start) / (end - start)
                    lrs.append(self._anneal(group[lr0], group[lr1], pct))
                    if self.cycle_momentum:
                        _set_momentum(group, self._anneal(group[m0], group[m1], pct), self.use_beta1)
                    break
                start = end
        return lrs


class _Composite(LRScheduler):
    """What SequentialLR and ChainedScheduler share: checks of the schedulers they drive, and a state dict
    made of theirs."""

    _TRANSIENT = LRScheduler._TRANSIENT + ("_schedulers",)

    def _check_schedulers(self, optimizer: Optimizer, schedulers: Sequence[LRScheduler], what: str) -> None:
        name = type(self).__name__
        if len(schedulers) < 1:
            raise ValueError(f"{name} expects at least one scheduler{what}, but got no scheduler.")
        for i, s in enumerate(schedulers):
            if not hasattr(s, "optimizer"):
                raise TypeError(f"{name} at index {i} should have `optimizer` as its attribute.")
            if isinstance(s, ReduceLROnPlateau):
                raise ValueError(f"{name} does not support `ReduceLROnPlateau` scheduler as it requires additional "
                                 "kwargs to be specified when calling `step`, but got one at index "
                                 f"{i} in the given schedulers sequence.")
            if s.optimizer is not optimizer:
                raise ValueError(f"{name} expects all schedulers to belong to the same optimizer, but got scheduler "
                                 f"{type(s).__name__} at index {i} has {s.optimizer}, which is different from "
                                 f"{type(optimizer).__name__}.")

    def state_dict(self) -> dict[str, Any]:
        state = super().state_dict()
        state["_schedulers"] = [s.state_dict() for s in self._schedulers]
        return state

    def load_state_dict(self, state_dict: dict[str, Any]) -> None:
        super().load_state_dict(state_dict)
        for s, saved in zip(self._schedulers, state_dict["_schedulers"]):
            s.load_state_dict(saved)


class SequentialLR(_Composite):
    """One scheduler after another: ``schedulers[i]`` runs from ``milestones[i-1]`` to ``milestones[i]``.

    E.g. a LinearLR warm-up for 20 steps, then ExponentialLR decay:
    ``SequentialLR(opt, [LinearLR(opt, ...), ExponentialLR(opt, ...)], milestones=[20])``.
    Building the schedulers already took their first steps; this constructor
    undoes that (lrs back to ``initial_lr``, every scheduler's step count back
    by one) and takes the first step of the first scheduler only. At a
    milestone the next scheduler starts over from its step 0 (in closed form:
    from its base lrs), whatever lr the previous one left.
    """

    def __init__(self, optimizer: Optimizer, schedulers: list[LRScheduler], milestones: list[int],
                 last_epoch: int = -1) -> None:
        self._check_schedulers(optimizer, schedulers, "")
        if len(milestones) != len(schedulers) - 1:
            raise ValueError("Sequential Schedulers expects number of schedulers provided to be one more than the "
                             f"number of milestone points, but got number of schedulers {len(schedulers)} and the "
                             f"number of milestones to be equal to {len(milestones)}")
        self._schedulers = schedulers
        self._milestones = milestones
        self.last_epoch = last_epoch + 1
        self.optimizer = optimizer
        for group in optimizer.param_groups:
            _set_group_value(group, "lr", group["initial_lr"])
        self._undo_initial_steps(self)
        first = self._schedulers[bisect_right(self._milestones, 0)]
        first._initial_step()
        self._last_lr = first.get_last_lr()

    def _undo_initial_steps(self, scheduler: LRScheduler) -> None:
        """Takes back one step of every scheduler under ``scheduler`` (nested composites included)."""
        if hasattr(scheduler, "_schedulers"):
            for s in scheduler._schedulers:
                self._undo_initial_steps(s)
        elif hasattr(scheduler, "last_epoch"):
            scheduler.last_epoch -= 1

    def step(self) -> None:  # type: ignore[override]
        """Steps the scheduler whose turn it is; at a milestone, restarts the next one at its step 0."""
        self.last_epoch += 1
        i = bisect_right(self._milestones, self.last_epoch)
        current = self._schedulers[i]
        if i > 0 and self._milestones[i - 1] == self.last_epoch:
            current._advance(0)
        else:
            current.step()
        self._last_lr = current.get_last_lr()


class ChainedScheduler(_Composite):
    """Several schedulers at once: each ``step()`` steps all of them, in order.

    Their recursive forms compose: each multiplies the lr the previous one
    left, so e.g. ConstantLR's warm-up factor and ExponentialLR's decay apply
    together. (Closed-form schedulers such as LambdaLR overwrite the lr instead.)
    """

    def __init__(self, schedulers: Sequence[LRScheduler], optimizer: Optimizer | None = None) -> None:
        if len(schedulers) < 1:
            raise ValueError(f"{type(self).__name__} expects at least one scheduler to be chained, "
                             "but got no scheduler.")
        optimizer = optimizer or schedulers[0].optimizer
        self._check_schedulers(optimizer, schedulers, " to be chained")
        self._schedulers = list(schedulers)
        self.optimizer = optimizer
        self._last_lr = _group_lrs(optimizer)

    def step(self) -> None:  # type: ignore[override]
        """Steps every scheduler, in the order given."""
        for s in self._schedulers:
            s.step()
        self._last_lr = _group_lrs(self.optimizer)


class ReduceLROnPlateau(LRScheduler):
    """Multiplies the lr by ``factor`` when a metric has stopped improving.

    ``step(metric)`` after each evaluation. The metric improves when it beats
    the best so far by more than ``threshold``: relatively (``"rel"``:
    ``metric < best * (1 - threshold)`` in ``"min"`` mode, ``> best * (1 + threshold)``
    in ``"max"``) or absolutely (``"abs"``: ``best -/+ threshold``). After more
    than ``patience`` steps without improvement every group's lr is reduced,
    to no less than its ``min_lr``, and the counting pauses for ``cooldown``
    steps (the model needs a few steps to profit from the new lr). A reduction
    smaller than ``eps`` is skipped: it would only add rounding noise.

    Unlike the other schedulers it follows a measurement, not the step count,
    so the constructor takes no step and there is no ``get_lr()``.
    """

    def __init__(self, optimizer: Optimizer, mode: str = "min", factor: float = 0.1, patience: int = 10,
                 threshold: float = 1e-4, threshold_mode: str = "rel", cooldown: int = 0,
                 min_lr: float | list[float] = 0, eps: float = 1e-8) -> None:
        if factor >= 1.0:
            raise ValueError("Factor should be < 1.0.")
        self.factor = factor
        _check_optimizer(optimizer)
        self.optimizer = optimizer
        if isinstance(min_lr, (list, tuple)):
            if len(min_lr) != len(optimizer.param_groups):
                raise ValueError(f"expected {len(optimizer.param_groups)} min_lrs, got {len(min_lr)}")
            self.default_min_lr: float | None = None
            self.min_lrs = list(min_lr)
        else:
            self.default_min_lr = min_lr
            self.min_lrs = [min_lr] * len(optimizer.param_groups)
        self.patience = patience
        self.cooldown = cooldown
        self.eps = eps
        self.last_epoch = 0
        self._last_lr = _group_lrs(optimizer)
        self._set_comparison(mode, threshold, threshold_mode)
        self._reset()

    def _set_comparison(self, mode: str, threshold: float, threshold_mode: str) -> None:
        if mode not in ("min", "max"):
            raise ValueError(f"mode {mode} is unknown!")
        if threshold_mode not in ("rel", "abs"):
            raise ValueError(f"threshold mode {threshold_mode} is unknown!")
        self.mode = mode
        self.threshold = threshold
        self.threshold_mode = threshold_mode
        # the worst possible value: the first metric always improves on it
        self.mode_worse = math.inf if mode == "min" else -math.inf

    def _reset(self) -> None:
        self.best = self.mode_worse
        self.cooldown_counter = 0
        self.num_bad_epochs = 0

    @property
    def in_cooldown(self) -> bool:
        return self.cooldown_counter > 0

    def is_better(self, a: float, best: float) -> bool:
        """Whether metric ``a`` improves on ``best`` by more than the threshold."""
        if self.mode == "min":
            return a < best * (1.0 - self.threshold) if self.threshold_mode == "rel" else a < best - self.threshold
        return a > best * (self.threshold + 1.0) if self.threshold_mode == "rel" else a > best + self.threshold

    def step(self, metrics: SupportsFloat, epoch: int | None = None) -> None:  # type: ignore[override]
        """Records ``metrics`` (e.g. the validation loss) and reduces the lr if it has plateaued."""
        current = float(metrics)
        if epoch is None:
            epoch = self.last_epoch + 1
        else:
            warnings.warn(_EPOCH_DEPRECATED, UserWarning, stacklevel=2)
        self.last_epoch = epoch
        if self.is_better(current, self.best):
            self.best = current
            self.num_bad_epochs = 0
        else:
            self.num_bad_epochs += 1
        if self.in_cooldown:
            self.cooldown_counter -= 1
            self.num_bad_epochs = 0  # bad steps in the cooldown do not count
        if self.num_bad_epochs > self.patience:
            self._reduce_lr()
            self.cooldown_counter = self.cooldown
            self.num_bad_epochs = 0
        self._last_lr = _group_lrs(self.optimizer)

    def _reduce_lr(self) -> None:
        groups = self.optimizer.param_groups
        if len(groups) != len(self.min_lrs):
            # a group was added since construction: a shared min_lr extends to it, a per-group list cannot
            if self.default_min_lr is None:
                raise RuntimeError(f"The number of param groups in the `optimizer` ({len(groups)}) differs from when "
                                   f"`ReduceLROnPlateau` was initialized ({len(self.min_lrs)}), usually due to a new "
                                   "param group being added to the optimizer. Please modify the `min_lrs` field to "
                                   "match the length of the `optimizer` param groups.")
            self.min_lrs = [self.default_min_lr] * len(groups)
        for group, floor in zip(groups, self.min_lrs):
            old = float(group["lr"])
            new = max(old * self.factor, floor)
            if old - new > self.eps:
                _set_group_value(group, "lr", new)

    def load_state_dict(self, state_dict: dict[str, Any]) -> None:
        super().load_state_dict(state_dict)
        self._set_comparison(self.mode, self.threshold, self.threshold_mode)
