#!/usr/bin/env bash
# On a machine with a GPU: %%cuda sources (the exercises' cells, the library kernels of their speed
# checks, tests/jit's kernels) built with nvcc for the GPU give the CUDA emulator's results, and the
# CUDA exercises of chapters 7-10 run their check and speed-check cells on the GPU (needs IPython).
# Needs an aakaar built with nvcc (AAKAAR_CUDA=ON), which tests/cuda_backend/gpu_check.sh builds too:
#   AAKAAR_GPU_PKG=folder holding that aakaar package (e.g. build/cuda-gpu-module/pkg): skips the build.
#   ARCH=90-real (H100/H200) for the build otherwise.
# Without a GPU, `python tests/jit/gpu_check.py --compile-only` checks that every source compiles with nvcc.
set -euo pipefail
ARCH=${ARCH:-90-real}
export CMAKE_BUILD_PARALLEL_LEVEL=${CMAKE_BUILD_PARALLEL_LEVEL:-$(nproc)}
nvidia-smi --query-gpu=name,driver_version,compute_cap --format=csv,noheader || true
pkg=${AAKAAR_GPU_PKG:-$(python tests/cuda_backend/emu_module.py ON "$ARCH" | tail -1)}
echo "aakaar built with nvcc: $pkg"
# The staged package, not the source aakaar/ (which has no _C) nor an editable install's hook.
PYTHONPATH="$pkg${PYTHONPATH:+:$PYTHONPATH}" python -c "
import os, runpy, sys
sys.meta_path[:] = [f for f in sys.meta_path if type(f).__name__ != 'ScikitBuildRedirectingFinder']
sys.path[:] = [p for p in sys.path if p not in ('', os.getcwd())]
sys.argv = ['tests/jit/gpu_check.py', *sys.argv[1:]]
runpy.run_path('tests/jit/gpu_check.py', run_name='__main__')" "$@"
