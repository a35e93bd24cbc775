"""Automatic mixed precision: ``aakaar.autocast`` (torch.autocast / torch.amp.autocast).

Inside an enabled region the ops of torch's lower-precision list (matmul, linear, convolutions,
...) cast their floating inputs to the region's dtype (bfloat16 or float16) and so compute and
return in it, the ops of torch's float32 list (the losses, 3-d pooling, prod, ...) cast theirs to
float32, and cat/stack promote to the widest floating input; float64 tensors are left alone, as
torch leaves them. Outside a region nothing changes.

How: torch does it with a dispatch key in front of the kernels. aakaar's ops are reached from
Python through a few public names, so those names (the functions and Tensor methods of the lists,
wherever aakaar's modules export them) are wrapped once, at import, by a function that checks a
thread-local flag and otherwise calls straight through. Like torch's autocast kernel, the wrapper
runs the op with autocast suspended, so the ops it calls inside are not cast again. torch's cache
of casted weights is not kept: it saves time, not values.
"""

from __future__ import annotations

import functools
import sys
import threading
import warnings
from typing import Any, Callable

from .. import _C
from .._C import Tensor

# ---- state: per thread, per device type (torch keeps it per thread too) --------------------------


class _State(threading.local):
    def __init__(self) -> None:
        self.enabled = {"cpu": False, "cuda": False}
        self.dtype = {"cpu": _C.dtype.bfloat16, "cuda": _C.dtype.float16}
        self.suspended = 0  # > 0 while an autocast op runs (its inner ops are not cast again)
        self.nesting = 0


_state = _State()
# How many (thread, device type) pairs have autocast on right now: while it is 0 (always, in a
# program that never uses autocast) a wrapped op costs one list lookup before calling through.
_live = [0]


def _set_enabled(device_type: str, value: bool) -> None:
    if _state.enabled[device_type] != value:
        _live[0] += 1 if value else -1
        _state.enabled[device_type] = value
_DEVICE_TYPES = ("cpu", "cuda")
_SUPPORTED = {"cpu": (_C.dtype.bfloat16, _C.dtype.float16), "cuda": (_C.dtype.float16, _C.dtype.bfloat16)}


def _check_device_type(device_type: Any) -> str:
    if not isinstance(device_type, str):
        raise ValueError(f"Expected `device_type` of type `str`, got: `{type(device_type)}`")
    if device_type not in _DEVICE_TYPES:
        raise RuntimeError(f"User specified an unsupported autocast device_type '{device_type}'")
    return device_type


def is_autocast_available(device_type: str) -> bool:
    """Whether autocast supports ``device_type`` ('cpu' and 'cuda' here)."""
    return device_type in _DEVICE_TYPES


def is_autocast_enabled(device_type: str | None = None) -> bool:
    """Whether autocast is on for ``device_type`` (torch's default, None, asks about 'cuda')."""
    return _state.enabled[_check_device_type("cuda" if device_type is None else device_type)]


def set_autocast_enabled(device_type: str, enabled: bool) -> None:
    _set_enabled(_check_device_type(device_type), bool(enabled))


def get_autocast_dtype(device_type: str) -> Any:
    """The dtype autocast casts to on ``device_type`` (bfloat16 for 'cpu', float16 for 'cuda' unless set)."""
    return _state.dtype[_check_device_type(device_type)]


def set_autocast_dtype(device_type: str, dtype: Any) -> None:
    _state.dtype[_check_device_type(device_type)] = dtype


def is_autocast_cpu_enabled() -> bool:
    return _state.enabled["cpu"]


def get_autocast_cpu_dtype() -> Any:
    return _state.dtype["cpu"]


def set_autocast_cpu_enabled(enabled: bool) -> None:
    _set_enabled("cpu", bool(enabled))


def set_autocast_cpu_dtype(dtype: Any) -> None:
    _state.dtype["cpu"] = dtype


def autocast_increment_nesting() -> int:
    _state.nesting += 1
    return _state.nesting


def autocast_decrement_nesting() -> int:
    _state.nesting -= 1
    return _state.nesting


def clear_autocast_cache() -> None:
    """No cache is kept (see the module's docstring); present for torch's API."""


def is_autocast_cache_enabled() -> bool:
    return False


class autocast:  # noqa: N801  (torch's name)
    """Context manager (and decorator) running its region's ops in mixed precision, as torch.autocast.

    ``device_type``: 'cpu' or 'cuda'; ``dtype``: bfloat16 or float16 (default: the device's current
    autocast dtype); ``enabled=False`` turns autocast off inside the region. An unsupported dtype
    warns and disables the region, as torch does.
    """

    def __init__(self, device_type: str, dtype: Any = None, enabled: bool = True, cache_enabled: bool | None = None):
        self.device = _check_device_type(device_type)
        self.fast_dtype = get_autocast_dtype(self.device) if dtype is None else dtype
        self._cache_enabled = cache_enabled
        self._enabled = bool(enabled)
        if self.device == "cuda" and self._enabled:
            from .. import cuda
            if not cuda.is_available():
                warnings.warn("User provided device_type of 'cuda', but CUDA is not available. Disabling")
                self._enabled = False
        if self._enabled and self.fast_dtype not in _SUPPORTED[self.device]:
            name = "CPU" if self.device == "cpu" else "CUDA"
            warnings.warn(f"In {name} autocast, but the target dtype is not supported. Disabling autocast.\n"
                          f"{name} Autocast only supports dtypes of "
                          + ", ".join(f"aakaar.{d}" for d in _SUPPORTED[self.device]) + " currently.")
            self._enabled = False

    def __enter__(self) -> "autocast":
        self._prev = (_state.enabled[self.device], _state.dtype[self.device])
        _set_enabled(self.device, self._enabled)
        _state.dtype[self.device] = self.fast_dtype
        autocast_increment_nesting()
        return self

    def __exit__(self, *exc: Any) -> bool:
        autocast_decrement_nesting()
        _set_enabled(self.device, self._prev[0])
        _state.dtype[self.device] = self._prev[1]
        return False

    def __call__(self, func: Callable[..., Any]) -> Callable[..., Any]:
        @functools.wraps(func)
        def decorated(*args: Any, **kwargs: Any) -> Any:
            with autocast(self.device, self.fast_dtype, self._enabled, self._cache_enabled):
                return func(*args, **kwargs)
        return decorated


# ---- the casting policies ---------------------------------------------------------------------------

def _first_tensor(args: tuple, kwargs: dict) -> Tensor | None:
    for a in (*args, *kwargs.values()):
        if isinstance(a, Tensor):
            return a
        if isinstance(a, (list, tuple)):
            for b in a:
                if isinstance(b, Tensor):
                    return b
    return None


def _eligible(t: Any, device_type: str) -> bool:
    # torch's is_eligible: a floating tensor on the region's device, float64 excepted.
    return isinstance(t, Tensor) and t.dtype.is_floating_point and t.dtype != _C.dtype.float64 \
        and t.device.type == device_type


def _cast_all(value: Any, dtype: Any, device_type: str) -> Any:
    if _eligible(value, device_type):
        return value if value.dtype == dtype else value.to(dtype)
    if isinstance(value, (list, tuple)) and any(isinstance(v, Tensor) for v in value):
        return type(value)(_cast_all(v, dtype, device_type) for v in value)
    return value


def _widest(args: tuple, kwargs: dict, device_type: str) -> Any:
    order = {_C.dtype.float16: 0, _C.dtype.bfloat16: 0, _C.dtype.float32: 1}
    found = []
    for a in (*args, *kwargs.values()):
        for t in (a if isinstance(a, (list, tuple)) else (a,)):
            if _eligible(t, device_type):
                found.append(t.dtype)
    if not found:
        return None
    if len(set(found)) == 1:
        return found[0]
    return _C.dtype.float32 if any(order.get(d, 1) for d in found) else found[0]


def _wrap(fn: Callable[..., Any], policy: str, when: Callable[..., bool] | None = None) -> Callable[..., Any]:
    @functools.wraps(fn)
    def autocast_op(*args: Any, **kwargs: Any) -> Any:
        if not _live[0]:
            return fn(*args, **kwargs)
        st = _state
        if st.suspended or not (st.enabled["cpu"] or st.enabled["cuda"]):
            return fn(*args, **kwargs)
        first = _first_tensor(args, kwargs)
        device_type = first.device.type if first is not None else "cpu"
        if not st.enabled.get(device_type, False) or (when is not None and not when(*args, **kwargs)):
            return fn(*args, **kwargs)
        if policy == "off":  # not on torch's lists, but computed here through a listed op
            dtype = None
        elif policy in ("lower", "lower_open"):
            dtype = st.dtype[device_type]
        elif policy == "fp32":
            dtype = _C.dtype.float32
        else:
            dtype = _widest(args, kwargs, device_type)
        if dtype is not None:
            args = tuple(_cast_all(a, dtype, device_type) for a in args)
            kwargs = {k: _cast_all(v, dtype, device_type) for k, v in kwargs.items()}
        if policy == "lower_open":  # a module's forward: its inner ops cast its weights themselves
            return fn(*args, **kwargs)
        st.suspended += 1
        try:
            return fn(*args, **kwargs)
        finally:
            st.suspended -= 1
    autocast_op._autocast_policy = policy  # type: ignore[attr-defined]
    return autocast_op
