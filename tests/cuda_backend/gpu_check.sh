#!/usr/bin/env bash
# On a machine with a GPU: builds aakaar with nvcc (AAKAAR_CUDA=ON) for one architecture,
# runs the CUDA backend suite against it, then the benchmark (GEMM 4096^3 vs cuBLAS,
# elementwise/reduction GB/s vs device-to-device memcpy). Run from the repository root.
#   ARCH=90-real (H100/H200; 80-real for A100)   OUT=folder for the JSON result
#   AAKAAR_GPU_PKG=folder holding an aakaar package with a _C built with AAKAAR_CUDA=ON for
#   this machine's Python (built elsewhere, to save the GPU machine's time): skips the build.
set -euo pipefail
ARCH=${ARCH:-90-real}
OUT=${OUT:-build/cuda-gpu-module}
export CMAKE_BUILD_PARALLEL_LEVEL=${CMAKE_BUILD_PARALLEL_LEVEL:-$(nproc)}
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader || true
pkg=${AAKAAR_GPU_PKG:-$(python tests/cuda_backend/emu_module.py ON "$ARCH" | tail -1)}
echo "built: $pkg"
boot=$(python -c 'import sys; sys.path.insert(0, "tests/cuda_backend"); import emu_module; print(emu_module.BOOTSTRAP)')
# One pytest process per file: a crash (e.g. host code reading device memory) then
# costs one file's results, not the whole run's.
for f in tests/cuda_backend/suite/test_*.py; do
  echo "== $f"
  AAKAAR_EXPECT_CUDA=gpu PYTHONPATH="$pkg${PYTHONPATH:+:$PYTHONPATH}" \
    python -c "$boot" "$f" -q -p no:cacheprovider -rfE --durations=3 2>&1 | tail -25 || echo "FAILED: $f"
done
# %%cuda cells built with nvcc against this build: the same results as on the emulator.
AAKAAR_GPU_PKG="$pkg" bash tests/jit/gpu_check.sh || echo "FAILED: tests/jit/gpu_check.sh"
mkdir -p "$OUT"
PYTHONPATH="$pkg${PYTHONPATH:+:$PYTHONPATH}" python -c "
import os, sys; sys.meta_path[:] = [f for f in sys.meta_path if type(f).__name__ != 'ScikitBuildRedirectingFinder']
sys.path[:] = [p for p in sys.path if p not in ('', os.getcwd())]  # not the source aakaar/, which has no _C
sys.argv = ['bench_gpu.py', '--json', '$OUT/bench.json']; sys.path.insert(0, 'tests/cuda_backend')
import bench_gpu; bench_gpu.main()"
