#!/usr/bin/env bash
# The main job: sets up (idempotent), builds the book to book/_build/html,
# and runs the benchmarks against PyTorch and numpy (results in artifacts/).
# Usage: bash scripts/main.sh
set -euo pipefail
repo_root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$repo_root"
bash scripts/setup.sh
source .venv/bin/activate
bash scripts/build_book.sh
mkdir -p artifacts
python -m aakaar.book.bench.ops --quick --json artifacts/bench-ops.json
python -m aakaar.book.bench.gemm --json artifacts/bench-gemm.json
# The EMNIST-shaped training step against PyTorch's fused SGD, on the EMNIST files in $AAKAAR_DATA or
# ../shared/data/emnist (without them on random data of the same shape, and it says so):
# both libraries at one and at two threads in one interleaved run, and each at its fastest.
python -m aakaar.book.bench.train_step --threads 1,2 --json artifacts/bench-train-step.json
echo "main: book in book/_build/html (view: python -m http.server -d book/_build/html 8000); benchmarks in artifacts/"
