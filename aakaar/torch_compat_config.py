"""torch's global switches and queries, as aakaar has them: print options, determinism flags,
the default device, matmul precision, inference tensors and anomaly mode, interop threads, denormals,
``compile``, ``typename`` and ``is_storage``.

Where aakaar has nothing for a switch to switch, the function says so rather than pretending:
``set_default_device`` accepts only the CPU (aakaar's factories do not read a default device),
``set_anomaly_enabled(True)`` raises (aakaar's engine has no anomaly mode), ``set_flush_denormal``
returns False (aakaar does not change the FPU's denormal mode), ``compile`` warns once that the
model runs uncompiled. Flags with no effect on aakaar's kernels (determinism, matmul precision,
warn-always) are recorded and read back, as torch's are.
"""

from __future__ import annotations

import math
import warnings
from typing import Any, Callable

from . import _C
from ._C import Tensor
from ._tensor import PRINT_OPTS

__all__ = [
    "set_printoptions", "use_deterministic_algorithms", "are_deterministic_algorithms_enabled",
    "is_deterministic_algorithms_warn_only_enabled", "set_deterministic_debug_mode", "get_deterministic_debug_mode",
    "get_default_device", "set_default_device", "set_default_tensor_type", "get_float32_matmul_precision",
    "set_float32_matmul_precision", "is_inference", "is_anomaly_enabled",
    "is_anomaly_check_nan_enabled", "set_anomaly_enabled", "get_num_interop_threads", "set_num_interop_threads",
    "init_num_threads", "set_flush_denormal", "set_warn_always", "is_warn_always_enabled", "compile", "typename",
    "is_storage", "is_distributed", "is_vulkan_available",
]

_PROFILES = {
    "default": (4, 1000, 3, 80),
    "short": (2, 1000, 2, 80),
    "full": (4, math.inf, 3, 80),
}


def set_printoptions(precision: int | None = None, threshold: float | None = None, edgeitems: int | None = None,
                     linewidth: int | None = None, profile: str | None = None, sci_mode: bool | None = None) -> None:
    """torch.set_printoptions: a profile ('default', 'short', 'full') first, then each option given;
    ``sci_mode`` is always set (None: chosen from the values), as torch does."""
    if profile is not None and profile in _PROFILES:  # torch ignores an unknown profile
        (PRINT_OPTS.precision, PRINT_OPTS.threshold, PRINT_OPTS.edgeitems,
         PRINT_OPTS.linewidth) = _PROFILES[profile]
    if precision is not None:
        PRINT_OPTS.precision = precision
    if threshold is not None:
        PRINT_OPTS.threshold = threshold
    if edgeitems is not None:
        PRINT_OPTS.edgeitems = edgeitems
    if linewidth is not None:
        PRINT_OPTS.linewidth = linewidth
    PRINT_OPTS.sci_mode = sci_mode


# ---- determinism: recorded flags (aakaar's CPU kernels have no nondeterministic variant to refuse) ------

_state: dict[str, Any] = {"deterministic": False, "warn_only": False, "matmul_precision": "highest",
                          "warn_always": False, "interop_threads": None}


def _need_bool(value: Any, fn: str, name: str, pos: int) -> None:
    if not isinstance(value, bool):
        raise TypeError(f"{fn}(): argument '{name}' (position {pos}) must be bool, not {type(value).__name__}")


def use_deterministic_algorithms(mode: bool, *, warn_only: bool = False) -> None:
    """Records the flag (read back by are_deterministic_algorithms_enabled). Every aakaar kernel
    already gives the same result for the same input on every run, so nothing else changes."""
    _need_bool(mode, "_set_deterministic_algorithms", "mode", 1)
    _need_bool(warn_only, "_set_deterministic_algorithms", "warn_only", 2)
    _state["deterministic"], _state["warn_only"] = mode, warn_only


def are_deterministic_algorithms_enabled() -> bool:
    """The flag set by use_deterministic_algorithms."""
    return _state["deterministic"]


def is_deterministic_algorithms_warn_only_enabled() -> bool:
    """The warn_only flag set by use_deterministic_algorithms."""
    return _state["warn_only"]


_DEBUG_MODES = {"default": 0, "warn": 1, "error": 2}


def set_deterministic_debug_mode(debug_mode: str | int) -> None:
    """0/'default': off, 1/'warn': deterministic with warnings, 2/'error': deterministic."""
    if isinstance(debug_mode, str):
        if debug_mode not in _DEBUG_MODES:
            raise RuntimeError(f"invalid value of debug_mode, expected one of `default`, `warn`, `error`, but got "
                               f"{debug_mode}")
        debug_mode = _DEBUG_MODES[debug_mode]
    elif not isinstance(debug_mode, int) or isinstance(debug_mode, bool):
        raise TypeError(f"debug_mode must be str or int, but got {type(debug_mode)}")
    if debug_mode not in (0, 1, 2):
        raise RuntimeError(f"invalid value of debug_mode, expected 0, 1, or 2, but got {debug_mode}")
    use_deterministic_algorithms(debug_mode != 0, warn_only=debug_mode == 1)


def get_deterministic_debug_mode() -> int:
    """0 (off), 1 (warn) or 2 (error), from the determinism flags."""
    if not _state["deterministic"]:
        return 0
    return 1 if _state["warn_only"] else 2


# ---- devices and dtypes ---------------------------------------------------------------------------------

def get_default_device() -> _C.device:
    """The CPU: aakaar's factory functions create tensors there unless given ``device=``."""
    return _C.device("cpu")


def set_default_device(device: Any) -> None:
    """Accepts None or the CPU (nothing changes); any other device raises, since aakaar's factory
    functions have no default device to change (pass ``device=`` to them instead)."""
    if device is None or _C.device(device).type == "cpu":
        return
    raise NotImplementedError(f"aakaar.set_default_device({device!r}): aakaar's factory functions always create "
                              "tensors on the CPU unless given device=; pass device= (or move with .to()) instead")


_TENSOR_TYPES = {"FloatTensor": "float32", "DoubleTensor": "float64", "HalfTensor": "float16",
                 "BFloat16Tensor": "bfloat16"}


def set_default_tensor_type(t: Any) -> None:
    """Deprecated in torch (as here): sets the default floating dtype from a tensor type name such
    as 'torch.FloatTensor' (or aakaar's dtype), through set_default_dtype."""
    warnings.warn("torch.set_default_tensor_type() is deprecated as of PyTorch 2.1, please use "
                  "torch.set_default_dtype() and torch.set_default_device() as alternatives.", UserWarning,
                  stacklevel=2)
    if isinstance(t, str):
        name = t.rsplit(".", 1)[-1]
        if name not in _TENSOR_TYPES:
            raise TypeError(f"invalid type: '{t}'")
        if t.startswith("torch.cuda."):
            set_default_device("cuda")
        t = getattr(_C.dtype, _TENSOR_TYPES[name])
    from .everyday_ops import set_default_dtype

    set_default_dtype(t)


_PRECISIONS = ("highest", "high", "medium")


def get_float32_matmul_precision() -> str:
    """The recorded precision: 'highest' (the default), 'high' or 'medium'."""
    return _state["matmul_precision"]


def set_float32_matmul_precision(precision: str) -> None:
    """Records 'highest', 'high' or 'medium' (torch warns and ignores anything else). aakaar's
    float32 matmul always computes in float32 ('highest'); the others allow faster, less precise
    arithmetic, which aakaar does not use, so results do not change."""
    if precision not in _PRECISIONS:
        warnings.warn(f"{precision} is not one of 'highest', 'high', or 'medium'; the current"
                      "setFloat32MatmulPrecision call has no effect.", UserWarning, stacklevel=2)
        return
    _state["matmul_precision"] = precision


# ---- inference and anomaly mode -----------------------------------------------------------------------

def is_inference(input: Tensor) -> bool:
    """False: aakaar's inference_mode marks no tensor as an inference tensor (it records no graph,
    as no_grad; aakaar has no version counters to skip)."""
    return input.is_inference()


def is_anomaly_enabled() -> bool:
    """False: aakaar's autograd engine has no anomaly mode."""
    return False


def is_anomaly_check_nan_enabled() -> bool:
    """False: aakaar's autograd engine has no anomaly mode."""
    return False


def set_anomaly_enabled(enabled: bool, check_nan: bool = True) -> None:
    """Turning it off is accepted; turning it on raises: aakaar's engine has no anomaly detection
    (no forward traceback is recorded, no NaN check of backward outputs), and pretending would
    leave a NaN hunt without the help it asked for."""
    if enabled:
        raise NotImplementedError("aakaar has no autograd anomaly mode: its engine records no forward traceback "
                                  "and does not check backward outputs for NaN")


# ---- threads and floating-point mode ---------------------------------------------------------------------

def get_num_interop_threads() -> int:
    """aakaar runs ops one after another (no inter-op pool): the recorded value, by default the
    intra-op thread count."""
    n = _state["interop_threads"]
    return n if n is not None else _C.get_num_threads()


def set_num_interop_threads(nthreads: int) -> None:
    """Recorded (read back by get_num_interop_threads); aakaar has no inter-op thread pool."""
    if isinstance(nthreads, bool) or not isinstance(nthreads, int):
        raise TypeError(f"set_num_interop_threads(): argument 'num' (position 1) must be int, not "
                        f"{type(nthreads).__name__}")
    if nthreads <= 0:
        raise RuntimeError("set_num_interop_threads expects a positive integer")
    _state["interop_threads"] = nthreads


def init_num_threads() -> None:
    """Nothing to do: aakaar's thread pool starts itself on first use."""


def set_flush_denormal(mode: bool) -> bool:
    """Returns False: aakaar does not switch the CPU's flush-denormal mode, so denormals are kept
    (torch returns True where it could set it)."""
    return False


def set_warn_always(b: bool) -> None:
    """Records the flag (aakaar's warnings follow Python's warning filters either way)."""
    _state["warn_always"] = bool(b)


def is_warn_always_enabled() -> bool:
    """The flag set by set_warn_always."""
    return _state["warn_always"]


# ---- compile, typename, is_storage -------------------------------------------------------------------

_compile_warned = [False]


def compile(model: Callable | None = None, *, fullgraph: bool = False, dynamic: bool | None = None,
            backend: Any = "inductor", mode: str | None = None, options: dict | None = None,
            disable: bool = False) -> Any:
    """Returns ``model`` unchanged (or, without one, a decorator that does): aakaar has no compiler.
    Warns once, so a speed comparison is not read as a compiled run."""
    if model is None:
        return lambda m: compile(m, fullgraph=fullgraph, dynamic=dynamic, backend=backend, mode=mode,
                                 options=options, disable=disable)
    if not callable(model):
        raise RuntimeError("torch.compile: expected a callable (an nn.Module or a function)")
    if not disable and not _compile_warned[0]:
        _compile_warned[0] = True
        warnings.warn("aakaar.compile: aakaar has no compiler; the model runs as it is (eagerly, uncompiled)",
                      UserWarning, stacklevel=2)
    return model


def typename(obj: Any) -> str:
    """'aakaar.FloatTensor' for a tensor (torch's name with aakaar's prefix), else the qualified
    class name ('int', 'aakaar.nn.layers.Linear')."""
    if isinstance(obj, Tensor):
        return obj.type()
    module = getattr(obj, "__module__", "") or ""
    qual = getattr(obj, "__qualname__", None) or getattr(obj, "__name__", None)
    if qual is None:
        module, qual = type(obj).__module__, type(obj).__qualname__
    return qual if module in ("", "builtins") else f"{module}.{qual}"


def is_distributed(input: Tensor) -> bool:
    """False: aakaar has no distributed tensors."""
    return False


def is_vulkan_available() -> bool:
    """False: aakaar has no Vulkan backend."""
    return False


def is_storage(obj: Any) -> bool:
    """False: aakaar has no storage objects apart from tensors."""
    return False
