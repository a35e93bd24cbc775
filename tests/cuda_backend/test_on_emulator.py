"""Runs the CUDA backend suite (tests/cuda_backend/suite) on the CUDA emulator.

CI has no GPU, so this builds aakaar once more with AAKAAR_CUDA=EMU -- the same .cu
sources compiled for the CPU against csrc/cuda/emu -- and runs the suite in a fresh
interpreter that imports that build. The build is cached by a hash of the sources
(tests/cuda_backend/emu_module.py); the suite run itself takes about a minute.
"""
from __future__ import annotations

import re
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))
import emu_module  # noqa: E402

SUITE = "tests/cuda_backend/suite"


@pytest.mark.xdist_group("cuda-emu")
def test_backend_suite_on_the_emulator():
    why_not = emu_module.tools_available()
    if why_not:
        pytest.skip(f"cannot build the emulator module: {why_not}")
    pkg = emu_module.build()
    r = emu_module.run_suite(pkg, SUITE, "-q", "-p", "no:cacheprovider", "-p", "no:randomly", "-rfEs",
                             "--durations=5")
    out = r.stdout + r.stderr
    tail = out[-8000:]
    assert r.returncode == 0, f"the CUDA backend suite failed on the emulator:\n{tail}"
    summary = out.strip().splitlines()[-1]
    passed = re.search(r"(\d+) passed", summary)
    assert passed and int(passed.group(1)) > 300, f"too few tests ran:\n{tail}"
    # skips are for ops a dtype refuses everywhere; a skipped device would mean nothing ran
    assert "no CUDA device" not in out, tail
    print(summary)
