"""Differential fuzz of aakaar against PyTorch (issue 15), crash-isolated.

The fuzzing itself runs in fuzz_torch_worker.py, in a subprocess per batch: a
crash, an abort or a sanitizer report kills the worker, not the test run, and
the test reports the case that was running (the worker writes each case
before it runs it). Each batch has its own seed, so the CI run covers
different ground from run to run only if AAKAAR_FUZZ_SEED changes.

Size: bounded for CI (a few hundred cases, well under a minute on two shared
cores). ``AAKAAR_FUZZ_EXAMPLES=20000 pytest tests/core/test_fuzz_against_torch.py``
runs a longer campaign; ``AAKAAR_FUZZ_SEED`` picks the seed.
"""

from __future__ import annotations

import os
import pathlib
import subprocess
import sys

import pytest

pytest.importorskip("torch")
pytest.importorskip("hypothesis")

WORKER = pathlib.Path(__file__).with_name("fuzz_torch_worker.py")
EXAMPLES = int(os.environ.get("AAKAAR_FUZZ_EXAMPLES", "300"))
SEED = int(os.environ.get("AAKAAR_FUZZ_SEED", "15"))
BATCHES = 2


@pytest.mark.parametrize("batch", range(BATCHES))
def test_fuzz_against_torch(tmp_path, batch):
    last = tmp_path / "last_case.txt"
    proc = subprocess.run(
        [sys.executable, str(WORKER), str(EXAMPLES // BATCHES), str(SEED * 1000 + batch), str(last)],
        capture_output=True, text=True, timeout=max(600, EXAMPLES), env={**os.environ, "PYTHONHASHSEED": "0"},
    )
    case = last.read_text() if last.exists() else "<none>"
    if proc.returncode < 0:
        pytest.fail(f"the fuzz worker crashed (signal {-proc.returncode}) on case:\n{case}\n{proc.stderr[-4000:]}")
    assert proc.returncode == 0, f"last case: {case}\n{proc.stdout[-2000:]}\n{proc.stderr[-6000:]}"
