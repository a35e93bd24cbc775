#!/usr/bin/env bash
# Builds aakaar._C with AddressSanitizer + UndefinedBehaviorSanitizer (plus
# float-cast-overflow) in its own build folder, with the CUDA backend compiled
# for the emulator (AAKAAR_CUDA=EMU: device "cuda" runs the same .cu kernels on
# the CPU, sanitized too), stages it as a package beside the Python sources, and
# runs the core, autograd and nn tests and the emulated CUDA backend suite
# against it. Exit status 0 only if the tests pass and no sanitizer report
# names aakaar's code.
#
#   scripts/sanitize.sh                  # everything
#   scripts/sanitize.sh tests/core/test_views.py   # chosen test paths
#
# Why it is arranged like this:
# - reports of *passing* tests would be lost in pytest's captured output, so
#   every sanitizer writes to files (log_path) in build/sanitize/logs, one per
#   process, which also catches subprocesses the tests start;
# - the tests must import the sanitized build, never the source tree or the
#   editable install: build/sanitize/pkg holds the package (symlinks to aakaar/*
#   plus the sanitized _C), is first on PYTHONPATH, and its sitecustomize.py
#   drops scikit-build's editable import hook in every interpreter, including
#   subprocesses; pytest runs from build/sanitize, not the repository root
#   (whose aakaar/ would win as the current folder);
# - python itself is not instrumented, so libasan is preloaded; leak detection
#   is off (CPython keeps its interned objects until exit).
# It takes long on two cores (a full rebuild with sanitizers, and the tests run
# several times slower), so CI does not run it; see README ("Sanitizers").
set -euo pipefail
REPO="$(cd "$(dirname "$0")/.." && pwd)"
PY="${PYTHON:-$REPO/.venv/bin/python}"
OUT="$REPO/build/sanitize"
BUILD="$OUT/cmake"
PKG="$OUT/pkg"
LOGS="$OUT/logs"
mkdir -p "$BUILD" "$LOGS"
rm -f "$LOGS"/*

FLAGS="-fsanitize=address,undefined,float-cast-overflow -fno-omit-frame-pointer -g -O1"
PYBIND11_DIR="$("$PY" -c 'import pybind11; print(pybind11.get_cmake_dir())')"
GEN=()
command -v ninja >/dev/null && [ ! -f "$BUILD/Makefile" ] && GEN=(-G Ninja)
cmake -S "$REPO" -B "$BUILD" "${GEN[@]}" -DAAKAAR_CUDA=EMU -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DCMAKE_CXX_FLAGS="$FLAGS" -DCMAKE_SHARED_LINKER_FLAGS="-fsanitize=address,undefined,float-cast-overflow" \
  -DPython_EXECUTABLE="$PY" -Dpybind11_DIR="$PYBIND11_DIR" > "$OUT/configure.log"
CMAKE_BUILD_PARALLEL_LEVEL="${CMAKE_BUILD_PARALLEL_LEVEL:-2}" cmake --build "$BUILD" --target _C > "$OUT/build.log"

SO="$(ls "$BUILD"/_C*.so | head -1)"
rm -rf "$PKG" && mkdir -p "$PKG/aakaar"
for entry in "$REPO"/aakaar/*; do
  name="$(basename "$entry")"
  case "$name" in _C*.so|__pycache__) continue ;; esac
  ln -s "$entry" "$PKG/aakaar/$name"
done
cp "$SO" "$PKG/aakaar/"
cat > "$PKG/sitecustomize.py" <<'EOF'
# Every interpreter of the sanitizer run (subprocesses too) imports the staged,
# sanitized aakaar: scikit-build's editable hook would send it to the dev build.
import sys
sys.meta_path[:] = [f for f in sys.meta_path if type(f).__name__ != "ScikitBuildRedirectingFinder"]
EOF

if [ "$#" -gt 0 ]; then TESTS=("$@"); else
  TESTS=("$REPO/tests/core" "$REPO/tests/autograd" "$REPO/tests/nn")
fi
ABS=()
for t in "${TESTS[@]}"; do ABS+=("$(cd "$(dirname "$t")" && pwd)/$(basename "$t")"); done

export PYTHONPATH="$PKG"
export LD_PRELOAD="$("${CXX:-g++}" -print-file-name=libasan.so)"
export ASAN_OPTIONS="detect_leaks=0:log_path=$LOGS/asan:allocator_may_return_null=1:detect_odr_violation=0:alloc_dealloc_mismatch=0"
export UBSAN_OPTIONS="print_stacktrace=1:log_path=$LOGS/ubsan:halt_on_error=0"
export AAKAAR_EMU_THREADS=2
export AAKAAR_EXPECT_CUDA=emulated
status=0
cd "$OUT"
"$PY" -c 'import aakaar, sys; assert "/build/sanitize/pkg/" in aakaar._C.__file__, aakaar._C.__file__; print("sanitized build:", aakaar._C.__file__)'
"$PY" -m pytest -q -p no:cacheprovider --rootdir="$REPO" -c "$REPO/pyproject.toml" "${ABS[@]}" || status=$?
if [ "$#" -eq 0 ]; then
  # The emulated CUDA backend: the same suite the emulator CI job runs, against this build.
  "$PY" -m pytest -q -p no:cacheprovider --rootdir="$REPO" -c "$REPO/pyproject.toml" \
    "$REPO/tests/cuda_backend/suite" || status=$?
fi
unset LD_PRELOAD

# Reports that name aakaar's code (torch and numpy are not instrumented, but ASan
# sees their memory too: only our frames count).
reports=$(grep -l -E "csrc/|_C\.cpython" "$LOGS"/* 2>/dev/null || true)
if [ -n "$reports" ]; then
  echo "sanitizer reports in aakaar's code:"
  for f in $reports; do echo "== $f"; head -40 "$f"; done
  status=1
else
  echo "sanitizers: no reports in aakaar's code ($(ls "$LOGS" | wc -l) log files in $LOGS)"
fi
exit $status
