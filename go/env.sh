# The cgo flags that link the Go runtime against the right libpython: the one the virtual
# environment's python runs on (python3-config --embed would name the system's, which may be
# another build). Usage, from the repository root or anywhere:
#   source go/env.sh            # sets CGO_CFLAGS, CGO_LDFLAGS, AAKAAR_PYTHON
# AAKAAR_PYTHON picks another interpreter (default: the repository's .venv/bin/python).
_ak_repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
export AAKAAR_PYTHON="${AAKAAR_PYTHON:-$_ak_repo/.venv/bin/python}"
if [[ ! -x "$AAKAAR_PYTHON" ]]; then
  echo "go/env.sh: no python at $AAKAAR_PYTHON; run bash scripts/setup.sh first (or set AAKAAR_PYTHON)" >&2
  return 1 2>/dev/null || exit 1
fi
eval "$("$AAKAAR_PYTHON" - <<'PY'
import shlex, sysconfig
v = sysconfig.get_config_var
libdir, ver = v("LIBDIR"), v("LDVERSION")
cflags = f"-I{sysconfig.get_paths()['include']}"
# An rpath, so the binary finds this libpython without LD_LIBRARY_PATH; a static libpython must
# export its symbols (-Wl,-E) for the extension modules (aakaar._C, numpy) to link against.
ldflags = f"-L{libdir} -lpython{ver} -Wl,-rpath,{libdir} {v('LIBS') or ''} {v('SYSLIBS') or ''}"
if not v("Py_ENABLE_SHARED"):
    ldflags += " -Wl,-E"
print(f"export CGO_CFLAGS={shlex.quote(cflags)} CGO_LDFLAGS={shlex.quote(' '.join(ldflags.split()))}")
PY
)"
unset _ak_repo
