"""Run the library's real CUDA kernels on the CPU, for readers without a GPU.

The kernels in ``csrc/ladders/cuda/*.cu`` are plain CUDA that also compiles with the host
compiler against the CUDA emulator (``csrc/cuda/emu``, see its README). This module
compiles a driver program from ``aakaar/book/cuda_emu/drivers/`` together with those kernels
and the emulator's runtime, and runs it::

    from aakaar.book import cuda_emu
    cuda_emu.run("book_kernels", "gemm", 64, 64, 64, 3)   # -> the driver's JSON, as a dict

Builds go to ``build/cuda-emu-book/<hash>/`` in the source checkout, keyed by a hash of
every source, the flags and the compiler, so a rebuild happens only when something
changed (the first one takes about half a minute; later calls cost nothing). It needs a
source checkout of aakaar (the ``csrc/`` folder) and a C++17 compiler (``$CXX``, default
``g++``); with ``compiler="nvcc"`` the same driver is built for a real GPU instead.
"""
from __future__ import annotations

import fcntl
import hashlib
import json
import os
import shutil
import subprocess
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

from .allocator_model import CachingAllocatorModel, size_class
from .pysim import Dim3, SimError, launch, shfl_down, syncthreads

__all__ = ["build", "run", "available", "source_root", "launch", "syncthreads", "shfl_down", "Dim3", "SimError",
           "size_class", "CachingAllocatorModel"]

HERE = Path(__file__).resolve().parent
DRIVERS = HERE / "drivers"
# -fstack-clash-protection: a large kernel frame still hits the guard page below a fiber's stack.
FLAGS = ["-std=c++17", "-O2", "-Wall", "-Wextra", "-fstack-clash-protection", "-pthread"]


def source_root() -> Path:
    """The source checkout holding ``csrc/`` (the folder above the ``aakaar`` package)."""
    root = HERE.parents[2]  # aakaar/book/cuda_emu -> the checkout
    if not (root / "csrc" / "cuda" / "emu" / "cuda_emu.h").is_file():
        raise RuntimeError(f"aakaar.book.cuda_emu needs a source checkout of aakaar (no csrc/cuda/emu in {root}); "
                           "clone the repository and install it with `pip install -e .`")
    return root


def _compiler(compiler: str) -> str:
    name = os.environ.get("CXX", "g++") if compiler == "host" else compiler
    path = shutil.which(name)
    if path is None:
        raise RuntimeError(f"aakaar.book.cuda_emu: compiler {name!r} is not on PATH")
    return name


def available() -> str | None:
    """None when kernels can be built and run here; otherwise why not."""
    try:
        source_root()
        _compiler("host")
    except RuntimeError as e:
        return str(e)
    return None


def _sources(root: Path, driver: str) -> tuple[list[Path], list[Path]]:
    src = DRIVERS / f"{driver}.cu"
    if not src.is_file():
        known = ", ".join(sorted(p.stem for p in DRIVERS.glob("*.cu")))
        raise ValueError(f"unknown driver {driver!r}; the drivers are: {known}")
    kernels = sorted((root / "csrc" / "ladders" / "cuda").glob("*.cu"))
    runtime = sorted((root / "csrc" / "cuda" / "emu").glob("*.cpp"))
    return [src, *kernels], runtime


def _key(root: Path, files: list[Path], cxx: str, flags: list[str]) -> str:
    h = hashlib.sha256(" ".join([cxx, *flags]).encode())
    h.update(subprocess.run([cxx, "--version"], capture_output=True, text=True).stdout.encode())
    dirs = [root / "csrc" / "cuda", root / "csrc" / "ladders" / "cuda"]
    headers = sorted(h for d in dirs for pattern in ("*.h", "*.cuh") for h in d.rglob(pattern))
    for f in [*files, *headers]:
        # The path from the checkout, not the name: __FILE__ in kernel error messages is that path,
        # so a moved source must not reuse a binary that names the old place.
        h.update(str(f.relative_to(root)).encode())
        h.update(f.read_bytes())
    return h.hexdigest()[:16]


def _compile(cmd: list[str], cwd: Path) -> None:
    r = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True)
    if r.returncode != 0:
        raise RuntimeError(f"aakaar.book.cuda_emu: compilation failed: {' '.join(cmd)}\n{(r.stdout + r.stderr)[-4000:]}")


def build(driver: str = "book_kernels", compiler: str = "host", gpu_arch: str = "80") -> Path:
    """Compile ``drivers/<driver>.cu`` with the kernels; return the executable (cached)."""
    root = source_root()
    cxx = _compiler(compiler)
    units, runtime = _sources(root, driver)
    if compiler == "host":
        flags = [*FLAGS, "-Icsrc"]
    else:  # nvcc: the same sources as CUDA, for one GPU architecture
        flags = ["-std=c++17", "-O3", f"-arch=sm_{gpu_arch}", "-Icsrc"]
        runtime = []
    key = _key(root, units + runtime, cxx, flags)
    cache = root / "build" / "cuda-emu-book"
    out = cache / key
    exe = out / driver
    cache.mkdir(parents=True, exist_ok=True)
    with open(cache / ".lock", "w") as lock:  # parallel notebook kernels build once, together
        fcntl.flock(lock, fcntl.LOCK_EX)
        if exe.is_file():
            return exe
        tmp = cache / f"{key}.partial"
        shutil.rmtree(tmp, ignore_errors=True)
        tmp.mkdir()
        jobs = []
        for src in units + runtime:
            lang = (["-x", "c++"] if compiler == "host" else ["-x", "cu"]) if src.suffix == ".cu" else []
            # Paths relative to the checkout: __FILE__ in kernel error messages then names repo files.
            jobs.append([cxx, *flags, *lang, "-c", str(src.relative_to(root)), "-o", str(tmp / f"{src.name}.o")])
        with ThreadPoolExecutor(max_workers=2) as pool:  # small machines: two compilers at a time
            list(pool.map(lambda cmd: _compile(cmd, root), jobs))
        objs = [str(tmp / f"{s.name}.o") for s in units + runtime]
        _compile([cxx, *(["-pthread"] if compiler == "host" else []), *objs, "-o", str(tmp / driver)], root)
        shutil.rmtree(out, ignore_errors=True)
        tmp.rename(out)
        return exe


def run(driver: str, *args: Any, threads: int | None = None, timeout: float = 300, **build_kw) -> dict:
    """Build (if needed) and run a driver; return the JSON object it prints.

    ``threads`` sets how many OS threads the emulator runs blocks on (``AAKAAR_EMU_THREADS``).
    """
    exe = build(driver, **build_kw)
    env = dict(os.environ)
    env.pop("AAKAAR_EMU_ORDER", None)
    if threads is not None:
        env["AAKAAR_EMU_THREADS"] = str(int(threads))
    r = subprocess.run([str(exe), *map(str, args)], capture_output=True, text=True, env=env, timeout=timeout)
    if r.returncode != 0:
        raise RuntimeError(f"{driver} {' '.join(map(str, args))} failed (exit {r.returncode}): {r.stderr.strip()}")
    return json.loads(r.stdout)
