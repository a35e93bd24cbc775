#!/usr/bin/env bash
# Builds the kernel checks and benchmark with nvcc and runs them on a real GPU: the same
# sources and drivers the emulator tests use. Run from the repository root on a machine
# with a GPU; ARCH defaults to sm_90 (H100/H200). Output goes to build/cuda-gpu/.
set -euo pipefail
ARCH=${ARCH:-sm_90}
OUT=build/cuda-gpu
mkdir -p "$OUT"
NVCC=(nvcc -std=c++17 -O3 -arch="$ARCH" -Icsrc -Itests/cuda/drivers)
for f in csrc/ladders/cuda/*.cu; do "${NVCC[@]}" -c "$f" -o "$OUT/$(basename "$f").o" & done
wait
for d in check_kernels bench_kernels; do
  "${NVCC[@]}" -x cu -c "tests/cuda/drivers/$d.cpp" -o "$OUT/$d.o"
  "${NVCC[@]}" "$OUT/$d.o" "$OUT"/*.cu.o -o "$OUT/$d"
done
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader || true
"$OUT/check_kernels" | grep -v '^ok' || true
"$OUT/bench_kernels" --reps 20 --gemm 4096 --n 100000000
