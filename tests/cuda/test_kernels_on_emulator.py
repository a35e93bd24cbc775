"""Every CUDA kernel against its CPU reference, run on the emulator.

The cases (tests/cuda/drivers/check_kernels.cpp) cover sizes that are not multiples of
the block size, non-contiguous views (transposed, stepped slices, broadcast, large
strides), empty tensors, and for GEMM every rung of the ladder with transposed operands,
alpha/beta and K = 0. Each group runs in the default schedule and again with one OS
thread and the fibers of a block resumed in reverse order, which exposes kernels that
depend on the order threads run in (a missing __syncthreads(), for instance).
"""
import re

import pytest

from emu_build import run

SCHEDULES = {
    "default": {},
    "reverse-1-thread": {"AAKAAR_EMU_ORDER": "reverse", "AAKAAR_EMU_THREADS": "1"},
    "forward-3-threads": {"AAKAAR_EMU_THREADS": "3"},
}
MIN_CASES = {"elementwise": 19, "reduce": 28, "gemm": 65}


@pytest.mark.parametrize("schedule", list(SCHEDULES))
@pytest.mark.parametrize("group", list(MIN_CASES))
def test_kernels_match_reference(emu_bin, group, schedule):
    r = run(emu_bin / "check_kernels", group, env=SCHEDULES[schedule])
    assert r.returncode == 0, f"{r.stdout}\n{r.stderr}"
    m = re.search(r"(\d+) cases, 0 failed", r.stdout)
    assert m and int(m.group(1)) >= MIN_CASES[group], r.stdout


def test_benchmark_program_runs(emu_bin):
    """The benchmark is a program, not a test: only check that it runs and reports."""
    r = run(emu_bin / "bench_kernels", "--reps", "1", "--gemm", "40", "--n", "5000")
    assert r.returncode == 0, r.stderr
    assert r.stdout.count("sgemm 40^3") == 7 and "sum 5000 floats" in r.stdout
