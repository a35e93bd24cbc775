"""The very same kernel sources compile for a real GPU with nvcc (skipped without nvcc)."""
import shutil
import subprocess

import pytest

from emu_build import KERNEL_SOURCES, REPO

NVCC = shutil.which("nvcc") or next((p for p in ("/usr/local/cuda/bin/nvcc",) if shutil.which(p)), None)
# The drivers too: on a machine with a GPU, the same checks then run on the device.
SOURCES = [str(s) for s in KERNEL_SOURCES] + ["tests/cuda/drivers/check_kernels.cpp",
                                              "tests/cuda/drivers/planted_bugs.cu"]


@pytest.mark.skipif(NVCC is None, reason="nvcc not found")
@pytest.mark.parametrize("source", SOURCES)
def test_compiles_with_nvcc(source, tmp_path):
    cmd = [NVCC, "-std=c++17", "-arch=sm_80", "-Xcompiler=-Wall", "-Werror=all-warnings", "-Icsrc",
           "-Itests/cuda/drivers", "-x", "cu", "-c", source, "-o", str(tmp_path / "out.o")]
    r = subprocess.run(cmd, cwd=REPO, capture_output=True, text=True)
    assert r.returncode == 0, f"{' '.join(cmd)}\n{r.stdout}\n{r.stderr}"


# The backend's fused kernels (losses, CTC, the optimizer step, convolution, pooling,
# sort and scans), as CMakeLists.txt builds them
# for a GPU: the dispatch-table sources need --expt-relaxed-constexpr, the optimizer -fmad=false.
BACKEND_SOURCES = {"csrc/cuda/optimizer_ops.cu": ["-fmad=false"], "csrc/cuda/loss_ops.cu": [],
                   "csrc/cuda/ctc_ops.cu": [], "csrc/cuda/conv_ops.cu": [], "csrc/cuda/pool_ops.cu": [],
                   "csrc/cuda/sort_scan_ops.cu": []}


@pytest.mark.skipif(NVCC is None, reason="nvcc not found")
@pytest.mark.parametrize("source", sorted(BACKEND_SOURCES))
def test_fused_backend_kernels_compile_with_nvcc(source, tmp_path):
    cmd = [NVCC, "-std=c++17", "-arch=sm_80", "--expt-relaxed-constexpr", *BACKEND_SOURCES[source],
           "-Xcompiler=-Wall", "-Werror=all-warnings", "-Icsrc", "-x", "cu", "-c", source, "-o",
           str(tmp_path / "out.o")]
    r = subprocess.run(cmd, cwd=REPO, capture_output=True, text=True)
    assert r.returncode == 0, f"{' '.join(cmd)}\n{r.stdout}\n{r.stderr}"
