"""Differential fuzz of aakaar against PyTorch (issue 15), crash-isolated.

The fuzzing itself runs in fuzz_torch_worker.py, in a subprocess per batch: a
crash, an abort or a sanitizer report kills the worker, not the test run, and
the test reports the case that was running (the worker writes each case
before it runs it). Each batch has its own seed, so the CI run covers
different ground from run to run only if AAKAAR_FUZZ_SEED changes.

Groups (one worker process each): "ops" (element-wise ops, views, reductions,
conversions), "matmul" (shapes, broadcast batch dims, dtype mismatches),
"index" (basic, advanced and boolean getitem; setitem with broadcasting; out
of range) and "autograd" (backward through random op chains, gradients
compared with torch's, errors at backward too), "math" (every dtype, the
16-bit floats and narrow integers included, in promotion against torch; the
maths API: trigonometric and hyperbolic functions, fmod, copysign, hypot,
atan2, div's rounding modes, bitwise ops and shifts) and "sortconv" (sort,
topk, the cumulative ops, and the argument corners of conv2d and max_pool2d;
fuzz_torch_math.py). Where torch raises, aakaar must raise an exception
caught as torch's is (fuzz_torch_common.strict).

Size: bounded for CI (a few hundred cases in all, well under a minute on two
cores). ``AAKAAR_FUZZ_EXAMPLES=20000 pytest tests/core/test_fuzz_against_torch.py``
runs a longer campaign (the number is split over the groups in the same
proportions); ``AAKAAR_FUZZ_SEED`` picks the seed.
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
# Each group's share of the examples.
SHARES = {"ops": 0.3, "matmul": 0.15, "index": 0.15, "autograd": 0.15, "math": 0.15, "sortconv": 0.1}


@pytest.mark.parametrize("group", list(SHARES))
def test_fuzz_against_torch(tmp_path, group):
    last = tmp_path / "last_case.txt"
    n = max(1, round(EXAMPLES * SHARES[group]))
    proc = subprocess.run(
        [sys.executable, str(WORKER), group, str(n), str(SEED * 1000 + list(SHARES).index(group)), str(last)],
        capture_output=True, text=True, timeout=max(600, 2 * n), env={**os.environ, "PYTHONHASHSEED": "0"},
    )
    case = last.read_text() if last.exists() else "<none>"
    if proc.returncode < 0:
        pytest.fail(f"the fuzz worker crashed (signal {-proc.returncode}) on case:\n{case}\n{proc.stderr[-4000:]}")
    assert proc.returncode == 0, f"last case: {case}\n{proc.stdout[-2000:]}\n{proc.stderr[-6000:]}"
    assert f"fuzz: ok {group} {n} examples" in proc.stdout, proc.stdout[-2000:]
