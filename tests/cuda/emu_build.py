"""Builds the CUDA emulator test drivers with the host compiler, once per source change.

The kernels (csrc/ladders/cuda/*.cu) are compiled as C++ (`g++ -x c++`) against the
emulator (csrc/cuda/emu), linked with the drivers in tests/cuda/drivers, and cached in
build/cuda-emu-tests/<hash of sources, flags and compiler>/ so that reruns cost nothing.
"""
from __future__ import annotations

import fcntl
import hashlib
import os
import shutil
import subprocess
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
EMU = Path("csrc/cuda/emu")
KERNELS = Path("csrc/ladders/cuda")
DRIVERS = Path("tests/cuda/drivers")
CACHE = REPO / "build" / "cuda-emu-tests"

CXX = os.environ.get("CXX", "g++")
# -fstack-clash-protection: a kernel frame larger than a page still hits the guard page
# below a fiber's 64 KiB stack instead of jumping over it.
FLAGS = ["-std=c++17", "-O2", "-g", "-Wall", "-Wextra", "-Werror", "-fstack-clash-protection", "-pthread",
         "-Icsrc", f"-I{DRIVERS}"]

RUNTIME = [EMU / "emu_runtime.cpp", EMU / "fiber.cpp"]
KERNEL_SOURCES = sorted(p.relative_to(REPO) for p in (REPO / KERNELS).glob("*.cu"))
# driver -> does it link the library kernels?
PROGRAMS = {
    "check_kernels": (DRIVERS / "check_kernels.cpp", True),
    "check_emulator": (DRIVERS / "check_emulator.cpp", False),
    "planted_bugs": (DRIVERS / "planted_bugs.cu", False),
    "bench_kernels": (DRIVERS / "bench_kernels.cpp", True),
}


def compiler_available() -> bool:
    return shutil.which(CXX) is not None


def _sources_hash() -> str:
    h = hashlib.sha256()
    h.update(" ".join(FLAGS).encode())
    h.update(subprocess.run([CXX, "--version"], capture_output=True, text=True).stdout.encode())
    # csrc/cuda (the emulator and the headers the ladders include, e.g. cuda/gemm.cuh), the ladders, the drivers.
    for folder in (EMU.parent, KERNELS, DRIVERS):
        for f in sorted((REPO / folder).rglob("*")):
            if f.is_file() and f.suffix in {".h", ".cuh", ".cu", ".cpp"}:
                h.update(str(f.relative_to(REPO)).encode())
                h.update(f.read_bytes())
    return h.hexdigest()[:16]


def _run(cmd: list[str]) -> None:
    # Relative paths, run from the repository root: messages then name repo paths.
    r = subprocess.run(cmd, cwd=REPO, capture_output=True, text=True)
    if r.returncode != 0:
        raise RuntimeError(f"compilation failed: {' '.join(cmd)}\n{r.stdout}{r.stderr}")


def _compile(src: Path, obj: Path, extra: list[str]) -> None:
    lang = ["-x", "c++"] if src.suffix == ".cu" else []
    _run([CXX, *FLAGS, *extra, *lang, "-c", str(src), "-o", str(obj)])


def build() -> Path:
    """Returns the folder holding the built programs (plus *_ucontext variants)."""
    key = _sources_hash()
    out = CACHE / key
    CACHE.mkdir(parents=True, exist_ok=True)
    with open(CACHE / ".lock", "w") as lock:  # pytest-xdist workers build once, together
        fcntl.flock(lock, fcntl.LOCK_EX)
        if (out / "done").exists():
            return out
        tmp = CACHE / f"{key}.partial"
        shutil.rmtree(tmp, ignore_errors=True)
        tmp.mkdir()
        rel = tmp.relative_to(REPO)
        jobs = []
        for src in RUNTIME + KERNEL_SOURCES:
            jobs.append((src, rel / (src.name + ".o"), []))
        for src in RUNTIME:  # the portable ucontext fallback, tested too
            jobs.append((src, rel / (src.name + ".ucontext.o"), ["-DAAKAAR_EMU_UCONTEXT"]))
        for name, (src, _) in PROGRAMS.items():
            jobs.append((src, rel / (name + ".o"), []))
        with ThreadPoolExecutor(max_workers=2) as pool:  # the machines have 2 cores
            list(pool.map(lambda j: _compile(*j), jobs))
        runtime = [str(rel / (s.name + ".o")) for s in RUNTIME]
        runtime_uc = [str(rel / (s.name + ".ucontext.o")) for s in RUNTIME]
        kernels = [str(rel / (s.name + ".o")) for s in KERNEL_SOURCES]
        for name, (_, uses_kernels) in PROGRAMS.items():
            objs = [str(rel / (name + ".o"))] + (kernels if uses_kernels else [])
            _run([CXX, "-pthread", *objs, *runtime, "-o", str(rel / name)])
        _run([CXX, "-pthread", str(rel / "check_emulator.o"), *runtime_uc, "-o", str(rel / "check_emulator_ucontext")])
        (tmp / "done").write_text("ok\n")
        shutil.rmtree(out, ignore_errors=True)
        tmp.rename(out)
        for old in CACHE.iterdir():  # builds of earlier sources are never reused
            if old.is_dir() and old != out:
                shutil.rmtree(old, ignore_errors=True)
        return out


def run(program: Path, *args: str, env: dict[str, str] | None = None, timeout: float = 120):
    full_env = dict(os.environ)
    full_env.pop("AAKAAR_EMU_ORDER", None)
    full_env.pop("AAKAAR_EMU_THREADS", None)
    full_env.update(env or {})
    return subprocess.run([str(program), *args], cwd=REPO, capture_output=True, text=True, env=full_env,
                          timeout=timeout)
