#!/usr/bin/env bash
# The main job: sets up (idempotent), builds the book to book/_build/html,
# runs the EMNIST benchmark (five epochs of an MLP, aakaar against PyTorch's default,
# foreach and fused optimizers) and the kernel benchmarks (results in artifacts/).
# Usage: bash scripts/main.sh
set -euo pipefail
repo_root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$repo_root"
bash scripts/setup.sh
source .venv/bin/activate
bash scripts/build_book.sh
mkdir -p artifacts
# EMNIST, full size: the ByMerge test split carved into 100,000 train and 16,323 held-out samples
# (official train files, when AAKAAR_DATA or the cache has them, are used instead; with no EMNIST
# at all, a labelled synthetic stand-in). About 3 minutes at one thread.
python -m aakaar.book.bench emnist --epochs 5 --threads 1,2 --profile --json artifacts/bench-emnist.json --no-progress
python -m aakaar.book.bench.ops --quick --json artifacts/bench-ops.json
python -m aakaar.book.bench.gemm --json artifacts/bench-gemm.json
# The EMNIST-shaped training step against PyTorch's fused SGD, on the EMNIST files in $AAKAAR_DATA or
# ../shared/data/emnist (without them on random data of the same shape, and it says so):
# both libraries at one and at two threads in one interleaved run, and each at its fastest.
python -m aakaar.book.bench.train_step --threads 1,2 --json artifacts/bench-train-step.json
echo "main: book in book/_build/html (view: python -m http.server -d book/_build/html 8000); benchmarks in artifacts/"
