"""``aakaar.amp.GradScaler`` (torch.amp.GradScaler): dynamic loss scaling for mixed precision.

The loss is multiplied by a scale before backward so that small float16 gradients do not flush to
zero; ``step`` divides the gradients by it again (``unscale_``) and skips the optimizer's step when
any of them is inf or NaN; ``update`` then halves the scale (``backoff_factor``) after a skipped
step, or doubles it (``growth_factor``) after ``growth_interval`` good ones in a row -- torch's
rules, step for step, so that a training loop makes the same decisions as torch's.
"""

from __future__ import annotations

import warnings
from collections import defaultdict
from enum import Enum
from typing import Any, Iterable

import numpy as np

from .. import _C
from .._C import Tensor
from ..autograd import no_grad


def _to_float32(value: float) -> float:
    """value rounded to float32 (inf past its range), as a Python float."""
    with np.errstate(over="ignore"):
        return float(np.float32(value))


class OptState(Enum):
    READY = 0
    UNSCALED = 1
    STEPPED = 2


def _refresh_per_optimizer_state() -> dict[str, Any]:
    return {"stage": OptState.READY, "found_inf_per_device": {}}


class GradScaler:
    """torch.amp.GradScaler(device='cuda', init_scale=2.**16, growth_factor=2., backoff_factor=.5,
    growth_interval=2000, enabled=True). A 'cuda' scaler without CUDA warns and disables itself."""

    def __init__(self, device: str = "cuda", init_scale: float = 2.0**16, growth_factor: float = 2.0,
                 backoff_factor: float = 0.5, growth_interval: int = 2000, enabled: bool = True) -> None:
        self._device = device
        self._enabled = enabled
        if self._device == "cuda" and enabled:
            from .. import cuda
            if not cuda.is_available():
                warnings.warn("torch.cuda.amp.GradScaler is enabled, but CUDA is not available.  Disabling.")
                self._enabled = False
        if self._enabled:
            assert growth_factor > 1.0, "The growth factor must be > 1.0."
            assert backoff_factor < 1.0, "The backoff factor must be < 1.0."
            self._init_scale = init_scale
            self._scale: Tensor | None = None
            self._growth_factor = growth_factor
            self._backoff_factor = backoff_factor
            self._growth_interval = growth_interval
            self._init_growth_tracker = 0
            self._growth_tracker: int | None = None
            self._per_optimizer_states: defaultdict[int, dict[str, Any]] = defaultdict(_refresh_per_optimizer_state)

    def _check_scale_growth_tracker(self, funcname: str) -> Tensor:
        fix = "This may indicate your script did not use scaler.scale(loss or outputs) earlier in the iteration."
        assert self._scale is not None, f"Attempted {funcname} but _scale is None.  " + fix
        assert self._growth_tracker is not None, f"Attempted {funcname} but _growth_tracker is None.  " + fix
        return self._scale

    def _lazy_init_scale_growth_tracker(self, device: Any) -> None:
        assert self._growth_tracker is None, "_growth_tracker initialized before _scale"
        # torch.full((), init_scale, dtype=float32): a scale past float32's range is inf there too.
        self._scale = _C.full([], _to_float32(self._init_scale), dtype=_C.dtype.float32, device=device)
        self._growth_tracker = self._init_growth_tracker

    def scale(self, outputs: Any) -> Any:
        """outputs (a tensor, or lists/tuples of them) multiplied by the scale factor."""
        if not self._enabled:
            return outputs
        if isinstance(outputs, Tensor):
            if self._scale is None:
                self._lazy_init_scale_growth_tracker(outputs.device)
            assert self._scale is not None
            return outputs * self._scale.to(outputs.device)

        def apply_scale(val: Any) -> Any:
            if isinstance(val, Tensor):
                if self._scale is None:
                    self._lazy_init_scale_growth_tracker(val.device)
                assert self._scale is not None
                return val * self._scale.to(val.device)
            if isinstance(val, Iterable):
                iterable = map(apply_scale, val)
                return type(val)(iterable) if isinstance(val, (list, tuple)) else iterable
            raise ValueError("outputs must be a Tensor or an iterable of Tensors")

        return apply_scale(outputs)

    def _unscale_grads_(self, optimizer: Any, inv_scale: float, allow_fp16: bool) -> dict[str, Tensor]:
        found_inf = False
        device = None
        with no_grad():
            for group in optimizer.param_groups:
                for param in group["params"]:
                    if param.grad is None:
                        continue
                    if not allow_fp16 and param.grad.dtype == _C.dtype.float16:
                        raise ValueError("Attempting to unscale FP16 gradients.")
                    device = param.grad.device
                    grad = param.grad
                    # torch's _amp_foreach_non_finite_check_and_unscale_: g *= inv_scale, and a flag
                    # for any non-finite element (checked before the multiply, as torch does).
                    if not bool(grad.isfinite().all()):
                        found_inf = True
                    grad.mul_(inv_scale)
        dev = device if device is not None else self._scale.device  # type: ignore[union-attr]
        return {str(dev): _C.full([1], 1.0 if found_inf else 0.0, dtype=_C.dtype.float32, device=dev)}

    def unscale_(self, optimizer: Any) -> None:
        """Divides optimizer's gradients by the scale in place (once per update(), before step())."""
        if not self._enabled:
            return
        self._check_scale_growth_tracker("unscale_")
        state = self._per_optimizer_states[id(optimizer)]
        if state["stage"] is OptState.UNSCALED:
            raise RuntimeError("unscale_() has already been called on this optimizer since the last update().")
        if state["stage"] is OptState.STEPPED:
            raise RuntimeError("unscale_() is being called after step().")
        assert self._scale is not None
        # torch: 1 / scale in double, rounded to float32.
        inv_scale = float(self._scale.double().reciprocal().float())
        state["found_inf_per_device"] = self._unscale_grads_(optimizer, inv_scale, False)
        state["stage"] = OptState.UNSCALED

    def step(self, optimizer: Any, *args: Any, **kwargs: Any) -> Any:
        """Unscales (unless done) and runs optimizer.step(*args, **kwargs) unless a gradient is inf/NaN."""
        if not self._enabled:
            return optimizer.step(*args, **kwargs)
        if "closure" in kwargs:
            raise RuntimeError("Closure use is not currently supported if GradScaler is enabled.")
        self._check_scale_growth_tracker("step")
        state = self._per_optimizer_states[id(optimizer)]
        if state["stage"] is OptState.STEPPED:
            raise RuntimeError("step() has already been called since the last update().")
        if state["stage"] is OptState.READY:
            self.unscale_(optimizer)
        assert len(state["found_inf_per_device"]) > 0, "No inf checks were recorded for this optimizer."
        retval = None
        if not sum(float(v.item()) for v in state["found_inf_per_device"].values()):
            retval = optimizer.step(*args, **kwargs)
        state["stage"] = OptState.STEPPED
        return retval

    def update(self, new_scale: float | Tensor | None = None) -> None:
        """Sets the scale for the next iteration: new_scale if given, else torch's backoff/growth rule."""
        if not self._enabled:
            return
        scale = self._check_scale_growth_tracker("update")
        if new_scale is not None:
            if isinstance(new_scale, float):
                scale.fill_(new_scale)
            else:
                reason = ("new_scale should be a float or a 1-element aakaar.FloatTensor or "
                          "aakaar.cuda.FloatTensor with requires_grad=False.")
                assert isinstance(new_scale, Tensor), reason
                assert new_scale.numel() == 1, reason
                assert new_scale.requires_grad is False, reason
                scale.copy_(new_scale.reshape([]))
        else:
            found_infs = [found_inf for state in self._per_optimizer_states.values()
                          for found_inf in state["found_inf_per_device"].values()]
            assert len(found_infs) > 0, "No inf checks were recorded prior to update."
            found_inf = sum(float(f.item()) for f in found_infs)
            assert self._growth_tracker is not None
            # torch's _amp_update_scale_ (in float32): back off after an overflow; grow after
            # growth_interval clean steps in a row, unless growing would overflow float32.
            current = float(scale.item())
            if found_inf:
                scale.fill_(_to_float32(current * self._backoff_factor))
                self._growth_tracker = 0
            else:
                successful = self._growth_tracker + 1
                if successful == self._growth_interval:
                    grown = _to_float32(current * self._growth_factor)
                    if grown != float("inf"):
                        scale.fill_(grown)
                    successful = 0
                self._growth_tracker = successful
        self._per_optimizer_states = defaultdict(_refresh_per_optimizer_state)

    def _get_growth_tracker(self) -> int:
        if self._enabled:
            return self._init_growth_tracker if self._growth_tracker is None else self._growth_tracker
        return 0

    def get_scale(self) -> float:
        """The current scale as a Python float (1.0 when disabled)."""
        if self._enabled:
            return self._init_scale if self._scale is None else float(self._scale.item())
        return 1.0

    def get_growth_factor(self) -> float:
        return self._growth_factor

    def set_growth_factor(self, new_factor: float) -> None:
        self._growth_factor = new_factor

    def get_backoff_factor(self) -> float:
        return self._backoff_factor

    def set_backoff_factor(self, new_factor: float) -> None:
        self._backoff_factor = new_factor

    def get_growth_interval(self) -> int:
        return self._growth_interval

    def set_growth_interval(self, new_interval: int) -> None:
        self._growth_interval = new_interval

    def is_enabled(self) -> bool:
        return self._enabled

    def state_dict(self) -> dict[str, Any]:
        """scale, growth_factor, backoff_factor, growth_interval, _growth_tracker ({} when disabled)."""
        if self._enabled:
            return {"scale": self.get_scale(), "growth_factor": self._growth_factor,
                    "backoff_factor": self._backoff_factor, "growth_interval": self._growth_interval,
                    "_growth_tracker": self._get_growth_tracker()}
        return {}

    def load_state_dict(self, state_dict: dict[str, Any]) -> None:
        if not self._enabled:
            return
        if len(state_dict) == 0:
            raise RuntimeError("The source state dict is empty, possibly because it was saved "
                               "from a disabled instance of GradScaler.")
        self._init_scale = state_dict["scale"]
        if self._scale is not None:
            self._scale.fill_(state_dict["scale"])
        self._growth_factor = state_dict["growth_factor"]
        self._backoff_factor = state_dict["backoff_factor"]
        self._growth_interval = state_dict["growth_interval"]
        self._init_growth_tracker = state_dict["_growth_tracker"]
        if self._growth_tracker is not None:
            self._growth_tracker = state_dict["_growth_tracker"]
