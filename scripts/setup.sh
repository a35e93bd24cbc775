#!/usr/bin/env bash
# Sets up everything aakaar needs on a fresh Debian/Ubuntu machine, idempotently:
#   * a virtual environment in .venv with aakaar installed in editable mode
#     (C++ core built by scikit-build-core; CUDA sources too when nvcc is found)
#     plus the test, torch (2.13.0, CPU), book and lab (JupyterLab) extras;
#   * the book's offline JavaScript and Debian's chromium (scripts/install_book_deps.sh);
#   * Go (Debian's golang-go) for go/, chapter 18's server, when `go` is missing.
# A second run compiles nothing unless C++ sources changed (tests/setup checks this).
# Usage: bash scripts/setup.sh
set -euo pipefail
repo_root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$repo_root"

python=${PYTHON:-python3}
if [[ ! -x .venv/bin/python ]]; then
  "$python" -m venv .venv
fi
pip=(.venv/bin/python -m pip install --quiet --disable-pip-version-check)

# The build back end and the tools it calls live in .venv, and pip builds with them
# (--no-build-isolation). With build isolation pip would give every build a fresh
# /tmp/pip-build-env-*; pybind11's include folder is part of every compile command,
# so CMake would see new flags and ninja would recompile all of csrc/ on every run.
# Keep this list in step with [build-system].requires (tests/setup checks it).
"${pip[@]}" "scikit-build-core>=0.10" "pybind11>=2.13" "cmake>=3.24" ninja

# Two build jobs: the reference machines have two cores.
export CMAKE_BUILD_PARALLEL_LEVEL=${CMAKE_BUILD_PARALLEL_LEVEL:-2}
mkdir -p build
stamp=build/.setup-stamp
touch "$stamp"
if ! compgen -G "build/*/CMakeCache.txt" >/dev/null; then
  echo "setup: building the C++ core for the first time (10-20 minutes on two cores)"
fi
# pip reinstalls the editable aakaar (a few seconds when nothing changed: CMake
# re-configures with the same paths and ninja finds nothing to do); requirements
# that are already satisfied are left alone.
"${pip[@]}" --no-build-isolation -e ".[test,torch,book,lab]"
compiled=$(find build -path build/cuda-emu-module -prune -o -name '*.o' -newer "$stamp" -print | wc -l)
echo "setup: C++ core built ($compiled object files compiled this run)"

# The notebooks' kernel (book build, tests, JupyterLab), installed into .venv where it takes the
# place of ipykernel's built-in spec. Its env quiets debugpy, which on Python >= 3.11 warns at
# every kernel start that "frozen modules are being used" (nothing here runs the debugger).
.venv/bin/python -m ipykernel install --sys-prefix --name python3 --display-name "Python 3 (aakaar)" \
  --env PYDEVD_DISABLE_FILE_VALIDATION 1 >/dev/null
mkdir -p .venv/etc/ipython  # and the kernels' configuration (why: see the file)
cp scripts/jupyter/ipython_kernel_config.py .venv/etc/ipython/ipython_kernel_config.py

# Go builds and tests go/ (chapter 18: serving from Go; tests/go runs its tests). Debian's
# golang-go (1.19) is enough: go/ uses the standard library alone.
if ! command -v go >/dev/null 2>&1; then
  if [[ $(id -u) -eq 0 ]] && command -v apt-get >/dev/null 2>&1; then
    echo "setup: installing Go (Debian's golang-go)"
    apt-get update -qq >/dev/null
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq golang-go >/dev/null
  elif [[ -z "${AAKAAR_SKIP_GO:-}" ]]; then
    echo "setup: Go is missing and this is not root: install it (sudo apt-get install golang-go), or set" \
         "AAKAAR_SKIP_GO=1 to set up without it (tests/go then skips, outside CI)" >&2
    exit 1
  fi
fi

# The book tools (jupyter-book, anywidget) are found through the venv.
PATH="$repo_root/.venv/bin:$PATH" bash scripts/install_book_deps.sh
.venv/bin/python -c "import aakaar, sys; print('setup: aakaar', aakaar.__version__, 'kernels', aakaar._C.cpu_isa(), 'cuda built', aakaar.cuda.is_built())"
if command -v go >/dev/null 2>&1; then echo "setup: $(go version)"; fi
echo "setup: open the exercises with: .venv/bin/jupyter lab exercises/"
