#!/usr/bin/env bash
# Builds build/gemm-dev/aakaar/_C*.so holding only the gemm submodule, with the
# same flags as CMakeLists.txt (portable code, *_avx2.cpp with -mavx2 -mfma),
# next to an empty aakaar/__init__.py: a stand-in package for working on the
# ladder while the rest of the core does not build. Use it from a venv that
# has numpy and pytest but no aakaar installed, and from outside the repo
# root (so that the real aakaar/ is not found first):
#   bash tools/gemm_dev/build.sh
#   cd /tmp && PYTHONPATH=$REPO/build/gemm-dev python -m pytest $REPO/tests/test_gemm.py
set -e
cd "$(dirname "$0")/../.."
out=build/gemm-dev
mkdir -p "$out/obj" "$out/aakaar"
: > "$out/aakaar/__init__.py"
inc="-Icsrc $(python3 -m pybind11 --includes)"
flags="-O3 -std=c++17 -fPIC -fno-math-errno -Wall -Wno-unused-function -fopenmp -DAAKAAR_OPENMP=1"
objs=""
for src in csrc/cpu/gemm/*.cpp csrc/cpu/parallel.cpp csrc/python/bind_gemm.cpp tools/gemm_dev/dev_module.cpp; do
  obj="$out/obj/$(echo "$src" | tr / _).o"
  extra=""
  case "$src" in *_avx2.cpp) extra="-mavx2 -mfma" ;; esac
  if [ ! -f "$obj" ] || [ "$src" -nt "$obj" ] || [ -n "$(find csrc/cpu/gemm csrc/cpu/parallel.h -newer "$obj" -name '*.h')" ]; then
    echo "compile $src" && g++ $flags $extra $inc -c "$src" -o "$obj" &
    # at most 2 compilers at a time
    [ "$(jobs -p | wc -l)" -ge 2 ] && wait -n
  fi
  objs="$objs $obj"
done
wait
g++ -shared -fopenmp $objs -o "$out/aakaar/_C$(python3-config --extension-suffix)"
echo "built $out/aakaar/_C$(python3-config --extension-suffix)"
