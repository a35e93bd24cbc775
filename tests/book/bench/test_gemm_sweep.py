"""The GEMM benchmark's pieces that chapters 6 and 6b run at build time: the size sweep (in-process and
through `--sweep`, as chapter 6b runs it in a child process), the copy bandwidth and the FMA ceiling."""
from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from aakaar import _C
from aakaar.book.bench import gemm


def test_size_sweep_times_both_libraries_at_every_size():
    out = gemm.size_sweep([16, 40], threads=(1,), rounds=3, target_s=0.002)
    assert out["sizes"] == [16, 40]
    assert set(out["gflops"]) == {"aakaar 1", "numpy 1"}
    assert all(len(r) == 2 and min(r) > 0 for r in out["gflops"].values())


def test_the_sweep_command_writes_its_json(tmp_path):
    path = tmp_path / "sweep.json"
    r = subprocess.run([sys.executable, "-m", "aakaar.book.bench.gemm", "--sweep", "24", "--threads", "1",
                        "--json", str(path)], capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr[-2000:]
    data = json.loads(path.read_text())
    assert data["sizes"] == [24] and set(data["gflops"]) == {"aakaar 1", "numpy 1"}
    assert set(data["spin_caps"]) == {"OPENBLAS_THREAD_TIMEOUT", "GOMP_SPINCOUNT"}  # the caps were in effect


def test_copy_bandwidth_is_positive():
    assert gemm.copy_bandwidth(1 << 16, repeat=5) > 0


@pytest.mark.skipif(not _C.gemm.has_avx2_fma(), reason="the FMA probe needs AVX2")
def test_the_fma_ceiling_uses_the_widest_vectors_the_kernels_use():
    """Capped at AVX2 (AAKAAR_CPU_ISA=avx2) the ceiling is the AVX2 probe's; uncapped it is never lower
    (a core with full-width AVX-512 units doubles it; one that splits them in halves does not)."""
    def best(env_isa):
        env = {**os.environ, "AAKAAR_CPU_ISA": env_isa} if env_isa else dict(os.environ)
        code = "from aakaar import _C; print(max(_C.gemm.fma_peak_gflops() for _ in range(3)))"
        r = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=120)
        assert r.returncode == 0, r.stderr
        return float(r.stdout)
    capped, widest = best("avx2"), best(None)
    assert capped > 0 and widest >= 0.8 * capped
