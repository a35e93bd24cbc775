"""Builds aakaar with ``AAKAAR_CUDA=EMU`` -- device "cuda" on the CUDA emulator -- once per source change.

The module goes to its own CMake build folder (build/cuda-emu-module/cmake, incremental),
and a staging package build/cuda-emu-module/pkg/aakaar is assembled from symlinks to the
repository's Python sources plus the emulator build of ``_C``: put ``pkg`` first on
``PYTHONPATH`` (and see ``BOOTSTRAP``) and ``import aakaar`` gets the emulated CUDA backend.
A hash of every C++/CUDA source, CMakeLists.txt, the compiler and the Python version
decides whether anything needs rebuilding; a lock lets pytest-xdist workers share one build.
"""
from __future__ import annotations

import fcntl
import hashlib
import os
import shutil
import subprocess
import sys
import sysconfig
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
CACHE = REPO / "build" / "cuda-emu-module"
CXX = os.environ.get("CXX", "g++")

# The subprocess that runs the suite must import the staged package, so it drops what
# would win over PYTHONPATH: an editable install's import hook, and the current folder
# (`python -c` puts it first; from the repository root it holds the source `aakaar/`).
BOOTSTRAP = (
    "import os, sys; "
    "sys.meta_path[:] = [f for f in sys.meta_path if type(f).__name__ != 'ScikitBuildRedirectingFinder']; "
    "sys.path[:] = [p for p in sys.path if p not in ('', os.getcwd())]; "
    "import pytest; sys.exit(pytest.main(sys.argv[1:]))"
)


def tools_available() -> str | None:
    """None when the build can run here, else why not."""
    if shutil.which(CXX) is None:
        return f"no C++ compiler ({CXX})"
    if shutil.which("cmake") is None:
        return "no cmake on PATH"
    return None


def _sources_hash() -> str:
    h = hashlib.sha256()
    h.update(sys.version.encode())
    h.update(subprocess.run([CXX, "--version"], capture_output=True, text=True).stdout.encode())
    files = [REPO / "CMakeLists.txt"] + sorted(
        p for p in (REPO / "csrc").rglob("*") if p.is_file() and p.suffix in {".h", ".cuh", ".cu", ".cpp"}
    )
    for f in files:
        h.update(str(f.relative_to(REPO)).encode())
        h.update(f.read_bytes())
    return h.hexdigest()[:16]


def _pybind11_cmake_dir() -> str:
    try:
        import pybind11
    except ImportError:  # installed into the build folder, not the environment
        tools = CACHE / "tools"
        if not (tools / "pybind11").exists():
            subprocess.run([sys.executable, "-m", "pip", "install", "--quiet", "--target", str(tools), "pybind11"],
                           check=True)
        sys.path.insert(0, str(tools))
        import pybind11
    return pybind11.get_cmake_dir()


def _run(cmd: list[str], log: Path) -> None:
    env = dict(os.environ, CMAKE_BUILD_PARALLEL_LEVEL=os.environ.get("CMAKE_BUILD_PARALLEL_LEVEL", "2"))
    r = subprocess.run(cmd, cwd=REPO, capture_output=True, text=True, env=env)
    log.write_text(r.stdout + r.stderr)
    if r.returncode != 0:
        raise RuntimeError(f"EMU build failed: {' '.join(cmd)}\n{(r.stdout + r.stderr)[-6000:]}")


def _stage(so: Path, pkg_root: Path) -> None:
    """pkg_root/aakaar: symlinks to the Python sources, plus a copy of the emulator build of _C."""
    pkg = pkg_root / "aakaar"
    shutil.rmtree(pkg_root, ignore_errors=True)
    pkg.mkdir(parents=True)
    for entry in (REPO / "aakaar").iterdir():
        if entry.name.startswith("_C") and entry.suffix in {".so", ".pyd"} or entry.name == "__pycache__":
            continue
        (pkg / entry.name).symlink_to(entry)
    shutil.copy2(so, pkg / so.name)


def build(mode: str = "EMU", architectures: str | None = None) -> Path:
    """Returns the folder to put first on PYTHONPATH (it holds the staged ``aakaar``).

    mode "EMU" builds for the emulator; "ON" builds with nvcc for a real GPU (used by
    gpu_check.sh) into build/cuda-gpu-module, for `architectures` (e.g. "90-real").
    """
    key = _sources_hash() + mode + (architectures or "")
    cache = CACHE if mode == "EMU" else REPO / "build" / "cuda-gpu-module"
    cache.mkdir(parents=True, exist_ok=True)
    pkg_root = cache / "pkg"
    with open(cache / ".lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        stamp = cache / "built-from"
        if stamp.exists() and stamp.read_text() == key and (pkg_root / "aakaar").is_dir():
            return pkg_root
        build_dir = cache / "cmake"
        generator = ["-G", "Ninja"] if shutil.which("ninja") and not (build_dir / "Makefile").exists() else []
        arch = [f"-DAAKAAR_CUDA_ARCHITECTURES={architectures}"] if architectures else []
        _run(["cmake", "-S", str(REPO), "-B", str(build_dir), *generator, f"-DAAKAAR_CUDA={mode}", *arch,
              "-DCMAKE_BUILD_TYPE=Release", f"-DPython_EXECUTABLE={sys.executable}",
              f"-Dpybind11_DIR={_pybind11_cmake_dir()}"], cache / "configure.log")
        _run(["cmake", "--build", str(build_dir), "--target", "_C"], cache / "build.log")
        suffix = sysconfig.get_config_var("EXT_SUFFIX")
        so = build_dir / f"_C{suffix}"
        if not so.exists():
            raise RuntimeError(f"EMU build produced no {so.name} in {build_dir}")
        _stage(so, pkg_root)
        stamp.write_text(key)
        return pkg_root


def run_suite(pkg_root: Path, *pytest_args: str, timeout: float = 900) -> subprocess.CompletedProcess:
    """Runs pytest in a fresh interpreter that imports the staged (emulated) aakaar."""
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(pkg_root), env.get("PYTHONPATH", "")]).rstrip(os.pathsep)
    env["AAKAAR_EXPECT_CUDA"] = "emulated"  # the suite then fails, not skips, without a device
    env.setdefault("AAKAAR_EMU_THREADS", "2")  # the CI machines have two cores
    env.pop("PYTEST_XDIST_WORKER", None)
    env.pop("PYTEST_ADDOPTS", None)
    return subprocess.run([sys.executable, "-c", BOOTSTRAP, *pytest_args], cwd=REPO, env=env, capture_output=True,
                          text=True, timeout=timeout)


if __name__ == "__main__":
    # python tests/cuda_backend/emu_module.py [EMU|ON] [architectures]: build, print the folder
    print(build(*sys.argv[1:]))
