"""``torch.optim.swa_utils``: Stochastic Weight Averaging (Izmailov et al. 2018) and exponential
moving averages of a model's weights.

- ``AveragedModel(model)`` keeps a deep copy of ``model`` whose parameters (and, with
  ``use_buffers=True``, buffers) are a running average of ``model``'s, updated by
  ``update_parameters(model)``: the equal-weight mean by default (SWA), or any ``avg_fn`` (one
  tensor at a time) or ``multi_avg_fn`` (lists of tensors at once), such as
  ``get_ema_multi_avg_fn(decay)``. ``n_averaged`` (a buffer) counts the updates.
- ``SWALR`` anneals each group's lr from its value to ``swa_lr`` over ``anneal_epochs`` steps
  (cosine or linear) and keeps it there.
- ``update_bn(loader, model)``: the averaged weights need their own batch-norm statistics; this
  recomputes them with one pass over the data (cumulative averages, ``momentum=None``).

The arithmetic is torch's, in its order (lerp for floating tensors), so the averages agree with
torch's to rounding.
"""

from __future__ import annotations

import itertools
import math
from copy import deepcopy
from typing import Any, Callable, Iterable

from .. import _C
from .._C import Tensor
from ..autograd import no_grad
from ..nn.module import Module
from .lr_scheduler import LRScheduler, _per_group
from .optimizer import Optimizer

__all__ = ["AveragedModel", "update_bn", "SWALR", "get_ema_multi_avg_fn", "get_swa_multi_avg_fn", "get_ema_avg_fn",
           "get_swa_avg_fn"]


def _check_decay(decay: float) -> None:
    if decay < 0.0 or decay > 1.0:
        raise ValueError(f"Invalid decay value {decay} provided. Please provide a value in [0,1] range.")


def get_ema_multi_avg_fn(decay: float = 0.999) -> Callable:
    """``multi_avg_fn`` of an exponential moving average: ``ema += (1 - decay) * (param - ema)``."""
    _check_decay(decay)

    def ema_update(ema_param_list: list[Tensor], current_param_list: list[Tensor], _: Any) -> None:
        with no_grad():
            if ema_param_list[0].is_floating_point():
                for p_ema, p_model in zip(ema_param_list, current_param_list):
                    p_ema.lerp_(p_model, 1 - decay)
            else:  # integer buffers (num_batches_tracked): lerp takes floating tensors only
                for p_ema, p_model in zip(ema_param_list, current_param_list):
                    p_ema.copy_(p_ema * decay + p_model * (1 - decay))

    return ema_update


def get_swa_multi_avg_fn() -> Callable:
    """``multi_avg_fn`` of the equal-weight mean: ``avg += (param - avg) / (n_averaged + 1)``."""

    def swa_update(averaged_param_list: list[Tensor], current_param_list: list[Tensor], num_averaged: Any) -> None:
        with no_grad():
            if averaged_param_list[0].is_floating_point():
                weight = 1 / (num_averaged + 1)
                weight = float(weight) if isinstance(weight, Tensor) else weight
                for p_avg, p_model in zip(averaged_param_list, current_param_list):
                    p_avg.lerp_(p_model, weight)
            else:
                for p_avg, p_model in zip(averaged_param_list, current_param_list):
                    diff = p_model - p_avg
                    if isinstance(num_averaged, Tensor):
                        p_avg.copy_(p_avg + diff / (num_averaged + 1))  # addcdiv: true division, then cast back
                    else:
                        p_avg.copy_(p_avg + diff * (1.0 / (num_averaged + 1)))

    return swa_update


def get_ema_avg_fn(decay: float = 0.999) -> Callable:
    """``avg_fn`` of an exponential moving average (one tensor at a time)."""
    _check_decay(decay)

    def ema_update(ema_param: Tensor, current_param: Tensor, num_averaged: Any) -> Tensor:
        with no_grad():
            return decay * ema_param + (1 - decay) * current_param

    return ema_update


def get_swa_avg_fn() -> Callable:
    """``avg_fn`` of the equal-weight mean (one tensor at a time)."""

    def swa_update(averaged_param: Tensor, current_param: Tensor, num_averaged: Any) -> Tensor:
        with no_grad():
            return averaged_param + (current_param - averaged_param) / (num_averaged + 1)

    return swa_update


class AveragedModel(Module):
    """A deep copy of ``model`` holding a running average of its parameters (see the module's docstring).

    ``device``: where the copy lives. ``avg_fn(averaged, current, n_averaged) -> Tensor`` or
    ``multi_avg_fn(averaged_list, current_list, n_averaged)`` (in place), not both; neither: the
    equal-weight mean. ``use_buffers``: average the buffers too (otherwise they are copied).
    """

    def __init__(self, model: Module, device: Any = None, avg_fn: Callable | None = None,
                 multi_avg_fn: Callable | None = None, use_buffers: bool = False) -> None:
        super().__init__()
        if avg_fn is not None and multi_avg_fn is not None:
            raise AssertionError("Only one of avg_fn and multi_avg_fn should be provided")
        self.module = deepcopy(model)
        if device is not None:
            self.module = self.module.to(device)
        self.register_buffer("n_averaged", _C.zeros([], dtype=_C.dtype.int64, device=device or "cpu"))
        self.avg_fn = avg_fn
        self.multi_avg_fn = multi_avg_fn
        self.use_buffers = use_buffers

    def forward(self, *args: Any, **kwargs: Any) -> Any:
        return self.module(*args, **kwargs)

    def update_parameters(self, model: Module) -> None:
        """Folds ``model``'s current parameters into the average (the first call copies them)."""
        if self.use_buffers:
            self_param: Iterable[Tensor] = itertools.chain(self.module.parameters(), self.module.buffers())
            model_param: Iterable[Tensor] = itertools.chain(model.parameters(), model.buffers())
        else:
            self_param, model_param = self.parameters(), model.parameters()
        averaged: list[Tensor] = []
        current: list[Tensor] = []
        first = int(self.n_averaged) == 0
        with no_grad():
            for p_avg, p_model in zip(self_param, model_param):
                p_model_ = p_model.detach().to(p_avg.device)
                averaged.append(p_avg.detach())
                current.append(p_model_)
                if first:
                    p_avg.detach().copy_(p_model_)
            if not first:
                if self.multi_avg_fn is not None or self.avg_fn is None:
                    # torch groups the tensors by (device, dtype) so each group is one foreach call
                    for avg_group, cur_group, device in _group_by_device_and_dtype(averaged, current):
                        fn = self.multi_avg_fn or get_swa_multi_avg_fn()
                        fn(avg_group, cur_group, self.n_averaged.to(device))
                else:
                    for p_avg, p_model in zip(averaged, current):
                        p_avg.copy_(self.avg_fn(p_avg, p_model, self.n_averaged.to(p_avg.device)))
            if not self.use_buffers:
                # the buffers (batch-norm statistics) follow the model: update_bn recomputes them for the average
                for b_swa, b_model in zip(self.module.buffers(), model.buffers()):
                    b_swa.detach().copy_(b_model.detach().to(b_swa.device))
            self.n_averaged.add_(1)


def _group_by_device_and_dtype(averaged: list[Tensor], current: list[Tensor]) -> list[tuple[list, list, Any]]:
    groups: dict[tuple[str, str], tuple[list, list, Any]] = {}
    for a, c in zip(averaged, current):
        key = (str(a.device), str(a.dtype))
        groups.setdefault(key, ([], [], a.device))
        groups[key][0].append(a)
        groups[key][1].append(c)
    return list(groups.values())


def _batch_norms(model: Module) -> list[Module]:
    """The batch-norm layers (torch's ``_BatchNorm``; aakaar's instance norms share the base class, not the role)."""
    from ..nn.layers import _BatchNorm
    from ..nn.layers_extra import _InstanceNorm
    return [m for m in model.modules() if isinstance(m, _BatchNorm) and not isinstance(m, _InstanceNorm)]


def update_bn(loader: Iterable[Any], model: Module, device: Any = None) -> None:
    """Recomputes the running statistics of ``model``'s batch norms with one pass over ``loader``
    (each item an input, or a list/tuple whose first element is the input), as a cumulative
    average; the model's training mode and the layers' momenta are restored afterwards."""
    momenta = {}
    for module in _batch_norms(model):
        module.reset_running_stats()
        momenta[module] = module.momentum
    if not momenta:
        return
    was_training = model.training
    model.train()
    for module in momenta:
        module.momentum = None
    with no_grad():
        for input in loader:
            if isinstance(input, (list, tuple)):
                input = input[0]
            if device is not None:
                input = input.to(device)
            model(input)
    for module, momentum in momenta.items():
        module.momentum = momentum
    model.train(was_training)


class SWALR(LRScheduler):
    """Anneals each group's lr to ``swa_lr`` (a number, or one per group) in ``anneal_epochs`` steps
    ("cos": along half a cosine; "linear"), then holds it; meant for the SWA phase of training."""

    _TRANSIENT = LRScheduler._TRANSIENT + ("anneal_func",)

    def __init__(self, optimizer: Optimizer, swa_lr: Any, anneal_epochs: int = 10, anneal_strategy: str = "cos",
                 last_epoch: int = -1) -> None:
        swa_lrs = _per_group("swa_lr", optimizer, swa_lr)
        for lr, group in zip(swa_lrs, optimizer.param_groups):
            group["swa_lr"] = lr
        if anneal_strategy not in ["cos", "linear"]:
            raise ValueError(f"anneal_strategy must be one of 'cos' or 'linear', instead got {anneal_strategy}")
        self._set_anneal_func(anneal_strategy)
        if not isinstance(anneal_epochs, int) or anneal_epochs < 0:
            raise ValueError(f"anneal_epochs must be equal or greater than 0, got {anneal_epochs}")
        self.anneal_epochs = anneal_epochs
        super().__init__(optimizer, last_epoch)

    @staticmethod
    def _linear_anneal(t: float) -> float:
        return t

    @staticmethod
    def _cosine_anneal(t: float) -> float:
        return (1 - math.cos(math.pi * t)) / 2

    @staticmethod
    def _get_initial_lr(lr: float, swa_lr: float, alpha: float) -> float:
        if alpha == 1:
            return swa_lr
        return (lr - alpha * swa_lr) / (1 - alpha)

    def get_lr(self) -> list[float]:
        # Recursive, as torch: the lr the schedule started from is recovered from the current one, so
        # an lr changed by hand mid-anneal carries on from there.
        self._warn_if_outside_step()
        step = self._step_count - 1
        if self.anneal_epochs == 0:
            step = max(1, step)
        prev_t = max(0, min(1, (step - 1) / max(1, self.anneal_epochs)))
        prev_alpha = self.anneal_func(prev_t)
        prev_lrs = [self._get_initial_lr(float(g["lr"]), g["swa_lr"], prev_alpha) for g in self.optimizer.param_groups]
        t = max(0, min(1, step / max(1, self.anneal_epochs)))
        alpha = self.anneal_func(t)
        return [g["swa_lr"] * alpha + lr * (1 - alpha) for g, lr in zip(self.optimizer.param_groups, prev_lrs)]

    def _set_anneal_func(self, anneal_strategy: str) -> None:
        self._anneal_strategy = anneal_strategy
        self.anneal_func = self._cosine_anneal if anneal_strategy == "cos" else self._linear_anneal

    def load_state_dict(self, state_dict: dict[str, Any]) -> None:
        super().load_state_dict(state_dict)
        self._set_anneal_func(self._anneal_strategy)

