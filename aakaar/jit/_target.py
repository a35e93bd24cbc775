"""Where a CUDA cell runs: built with nvcc for the GPU, or with the host compiler for the CUDA emulator.

The same source builds both ways (``csrc/cuda/emu/cuda_emu.h`` is the emulator under the host
compiler and a thin layer over ``cuda_runtime.h`` under nvcc). ``"auto"`` takes the GPU only when
its kernels can share memory with aakaar's tensors: aakaar's CUDA backend built for a real GPU,
a device present, and nvcc to compile with. Otherwise it takes the emulator and says why.
"""
from __future__ import annotations

import ctypes
import functools
import os
import pathlib
import re
import shlex
import shutil
from dataclasses import dataclass

from ._build import CompilerNotFoundError, JitError

TARGETS = ("auto", "gpu", "emulator")
DEFAULT_CUDA_ARCH = "sm_90"  # Hopper (H100/H200): the GPUs this project is checked on


class TargetUnavailableError(JitError):
    """``target="gpu"`` was asked for where a CUDA cell cannot run on a GPU (the message says why)."""


@dataclass(frozen=True)
class Target:
    """What a CUDA source is built for: ``name`` ("gpu" or "emulator"), why (``reason``), the GPU
    architecture (``arch``, nvcc's ``-arch``; None for the emulator) and the device whose tensors
    its kernels read (``device``: "cuda" on the GPU, "cpu" on the emulator)."""
    name: str
    reason: str
    arch: str | None = None

    @property
    def device(self) -> str:
        return "cuda" if self.name == "gpu" else "cpu"

    def describe(self) -> str:
        if self.name == "gpu":
            return (f"built with nvcc for the GPU ({self.arch}, {self.reason}); its kernels read "
                    f"tensors on 'cuda' (x.cuda())")
        return (f"built for the CUDA emulator: kernels run on the CPU, over CPU tensors; "
                f"the GPU was not used because {self.reason}")


def nvcc_command() -> list[str]:
    """nvcc: ``AAKAAR_JIT_NVCC`` (a command, e.g. ``"nvcc -ccbin g++-13"``), else ``$CUDA_HOME/bin/nvcc``
    (or ``CUDA_PATH``), else ``nvcc`` on PATH. Raises :class:`CompilerNotFoundError` without one."""
    env = os.environ.get("AAKAAR_JIT_NVCC")
    if env:
        argv = shlex.split(env)
        if argv and shutil.which(argv[0]):
            return argv
        raise CompilerNotFoundError(f"aakaar.jit: AAKAAR_JIT_NVCC is {env!r}, which is not a program here: "
                                    f"no nvcc to build CUDA for the GPU")
    for var in ("CUDA_HOME", "CUDA_PATH"):
        home = os.environ.get(var)
        if home and (pathlib.Path(home) / "bin" / "nvcc").is_file():
            return [str(pathlib.Path(home) / "bin" / "nvcc")]
    found = shutil.which("nvcc")
    if found:
        return [found]
    raise CompilerNotFoundError(
        "aakaar.jit: building CUDA for the GPU needs nvcc (the CUDA toolkit), and none was found "
        "(not in AAKAAR_JIT_NVCC, $CUDA_HOME/bin or on PATH)")


def normalise_arch(arch: str) -> str:
    """``"sm_90"``, ``"90"``, ``"9.0"`` -> ``"sm_90"``; ``"sm_90a"`` and ``"compute_90"`` stay as given."""
    a = str(arch).strip()
    if re.fullmatch(r"\d+\.\d+", a):
        major, minor = a.split(".")
        return f"sm_{major}{minor}"
    if re.fullmatch(r"\d+[af]?", a):
        return f"sm_{a}"
    if re.fullmatch(r"(sm|compute)_\d+[af]?", a):
        return a
    raise ValueError(f"aakaar.jit: {arch!r} is not a CUDA architecture (write it as sm_90, 90 or 9.0)")


@functools.lru_cache(maxsize=None)
def device_compute_capability(index: int = 0) -> tuple[int, int] | None:
    """The compute capability of GPU ``index``, asked of the driver (libcuda); None without one."""
    try:
        cu = ctypes.CDLL("libcuda.so.1")
    except OSError:
        return None
    dev, major, minor = ctypes.c_int(), ctypes.c_int(), ctypes.c_int()
    # CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR / _MINOR
    if (cu.cuInit(0) != 0 or cu.cuDeviceGet(ctypes.byref(dev), index) != 0
            or cu.cuDeviceGetAttribute(ctypes.byref(major), 75, dev) != 0
            or cu.cuDeviceGetAttribute(ctypes.byref(minor), 76, dev) != 0):
        return None
    return major.value, minor.value


def cuda_arch(arch: str | None = None) -> tuple[str, str]:
    """The ``-arch`` for nvcc and where it came from: ``arch``, else ``AAKAAR_JIT_CUDA_ARCH``, else
    the present GPU's compute capability, else :data:`DEFAULT_CUDA_ARCH`."""
    if arch:
        return normalise_arch(arch), "asked for"
    env = os.environ.get("AAKAAR_JIT_CUDA_ARCH")
    if env:
        return normalise_arch(env), "AAKAAR_JIT_CUDA_ARCH"
    cc = device_compute_capability()
    if cc:
        return f"sm_{cc[0]}{cc[1]}", "the GPU's compute capability"
    return DEFAULT_CUDA_ARCH, "the default: no GPU to ask; set AAKAAR_JIT_CUDA_ARCH"


def gpu_unavailable_reason() -> str | None:
    """Why a CUDA cell cannot run on a GPU in this process, or None when it can."""
    from .. import cuda
    if not cuda.is_built():
        return "aakaar was built without its CUDA backend (AAKAAR_CUDA=OFF, or no nvcc when it was built)"
    if cuda.is_emulated():
        return "aakaar's CUDA backend is the emulator build (AAKAAR_CUDA=EMU): its 'cuda' tensors are CPU memory"
    if not cuda.is_available():
        return "no CUDA device is visible (no GPU, or no driver)"
    try:
        nvcc_command()
    except CompilerNotFoundError as e:
        return str(e).removeprefix("aakaar.jit: ")
    return None


def resolve(target: str | None = None, arch: str | None = None) -> Target:
    """The target for a CUDA source: ``target`` ("auto", "gpu", "emulator"; None: ``AAKAAR_JIT_CUDA_TARGET``,
    else "auto"). Raises :class:`TargetUnavailableError` for "gpu" where there is no GPU to run on."""
    asked = target or os.environ.get("AAKAAR_JIT_CUDA_TARGET") or "auto"
    if asked not in TARGETS:
        raise ValueError(f"aakaar.jit: target must be one of {', '.join(map(repr, TARGETS))}, got {asked!r}")
    if asked == "emulator":
        return Target("emulator", "target='emulator' was asked for")
    why = gpu_unavailable_reason()
    if why is None:
        a, source = cuda_arch(arch)
        return Target("gpu", source, a)
    if asked == "gpu":
        raise TargetUnavailableError(f"aakaar.jit: target='gpu' is not possible here: {why}. "
                                     f"target='emulator' (or 'auto') runs the same source on the CPU.")
    return Target("emulator", why)


_announced: set[Target] = set()


def announce(name: str, target: Target, prefix: str = "aakaar.jit") -> None:
    """Say, once per process and target, which target a CUDA source was built for (no silent fallback)."""
    if target in _announced:
        return
    _announced.add(target)
    print(f"{prefix} {name}: {target.describe()}", flush=True)
