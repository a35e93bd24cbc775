#!/usr/bin/env bash
# Sets up everything aakaar needs on a fresh Debian/Ubuntu machine, idempotently:
#   * a virtual environment in .venv with aakaar installed in editable mode
#     (C++ core built by scikit-build-core; CUDA sources too when nvcc is found)
#     plus the test, torch (2.13.0, CPU) and book extras;
#   * the book's offline JavaScript and Debian's chromium (scripts/install_book_deps.sh).
# Usage: bash scripts/setup.sh
set -euo pipefail
repo_root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$repo_root"

python=${PYTHON:-python3}
if [[ ! -x .venv/bin/python ]]; then
  "$python" -m venv .venv
fi
# Two build jobs: the reference machines have two cores.
export CMAKE_BUILD_PARALLEL_LEVEL=${CMAKE_BUILD_PARALLEL_LEVEL:-2}
.venv/bin/python -m pip install --quiet --disable-pip-version-check -e ".[test,torch,book]"
# The book tools (jupyter-book, anywidget) are found through the venv.
PATH="$repo_root/.venv/bin:$PATH" bash scripts/install_book_deps.sh
.venv/bin/python -c "import aakaar, sys; print('setup: aakaar', aakaar.__version__, 'kernels', aakaar._C.cpu_isa(), 'cuda built', aakaar.cuda.is_built())"
