"""The set-up is incremental: run again with nothing changed, it compiles nothing.

scripts/setup.sh installs aakaar with `pip install --no-build-isolation -e .`, building in
build/{wheel_tag}. This test repeats that build step -- the PEP 517 hook pip calls, with the
same pyproject settings, in the same build folder -- and counts the object files it compiles.
It leaves the installed package alone (the wheel goes to a temporary folder), so it is safe
beside other tests. When nothing changed it costs a CMake re-configure and a ninja no-op.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
IN_CI = os.environ.get("CI", "").lower() == "true"


def _need(condition: bool, reason: str) -> None:
    if not condition:
        if IN_CI:  # CI ran scripts/setup.sh first: a missing build is a broken set-up there
            pytest.fail(reason)
        pytest.skip(reason)


def _cache(build_dir: Path) -> dict[str, str]:
    entries = {}
    for line in (build_dir / "CMakeCache.txt").read_text().splitlines():
        if line and not line.startswith(("#", "//")) and "=" in line:
            key, value = line.split("=", 1)
            entries[key.split(":")[0]] = value
    return entries


def _setup_build_dir() -> Path | None:
    """The build folder of this interpreter's editable install (build/{wheel_tag})."""
    for cache in sorted(REPO.glob("build/*/CMakeCache.txt")):
        python = _cache(cache.parent).get("Python_EXECUTABLE", "")
        if python and Path(python).resolve() == Path(sys.executable).resolve():
            return cache.parent
    return None


@pytest.fixture(scope="module")
def build_dir() -> Path:
    d = _setup_build_dir()
    _need(d is not None, f"no build of aakaar for {sys.executable} under build/ (run bash scripts/setup.sh)")
    return d


def test_the_build_uses_tools_that_outlive_it(build_dir):
    # The root cause of full rebuilds: under pip's build isolation pybind11 lives in a
    # temporary /tmp/pip-build-env-*, a new one each run, and its include folder is part
    # of every compile command.
    cache = _cache(build_dir)
    temporary = {k: v for k, v in cache.items() if "pip-build-env" in v}
    assert not temporary, f"the build refers to pip's temporary build environment: {temporary}"
    assert Path(cache["pybind11_DIR"]).is_dir()


def test_a_second_build_compiles_nothing(build_dir, tmp_path):
    # Sources edited after the last set-up would rightly be compiled: not this test's business.
    import aakaar

    installed = Path(aakaar._C.__file__).stat().st_mtime
    sources = [REPO / "CMakeLists.txt", REPO / "pyproject.toml",
               *(p for p in (REPO / "csrc").rglob("*") if p.suffix in {".h", ".cpp", ".cu", ".cuh"})]
    changed = [str(p.relative_to(REPO)) for p in sources if p.stat().st_mtime > installed]
    _need(not changed, f"C++ sources changed since the last set-up (run bash scripts/setup.sh): {changed[:3]}")

    before = time.time()
    time.sleep(0.01)  # object files written by this build have a later mtime than `before`
    env = dict(os.environ, CMAKE_BUILD_PARALLEL_LEVEL="2")
    hook = "import sys; from scikit_build_core.build import build_editable; build_editable(sys.argv[1])"
    r = subprocess.run([sys.executable, "-c", hook, str(tmp_path)], cwd=REPO, env=env, capture_output=True,
                       text=True, timeout=1800)
    out = r.stdout + r.stderr
    assert r.returncode == 0, f"the build step failed:\n{out[-4000:]}"
    compiled = [p for p in build_dir.rglob("*.o") if p.stat().st_mtime > before]
    assert not compiled, (
        f"a second build with nothing changed compiled {len(compiled)} files, e.g. "
        f"{[p.name for p in compiled[:5]]}; build output:\n{out[-4000:]}")
    assert "no work to do" in out


def test_setup_installs_every_build_requirement():
    # Without build isolation pip does not install [build-system].requires: setup.sh must.
    tomllib = pytest.importorskip("tomllib")  # Python >= 3.11
    requires = tomllib.loads((REPO / "pyproject.toml").read_text())["build-system"]["requires"]
    setup = (REPO / "scripts" / "setup.sh").read_text()
    missing = [r for r in requires if f'"{r}"' not in setup]
    assert not missing, f"scripts/setup.sh does not install the build requirements {missing}"
    assert "--no-build-isolation" in setup
