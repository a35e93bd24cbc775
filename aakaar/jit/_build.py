"""Compiling, caching and loading the C++ of a cell (see :func:`aakaar.jit.load_inline`)."""
from __future__ import annotations

import functools
import hashlib
import importlib.machinery
import importlib.util
import keyword
import os
import pathlib
import re
import shlex
import shutil
import signal
import subprocess
import sys
import sysconfig
import tempfile
from dataclasses import dataclass, field
from types import ModuleType
from typing import Iterable, Mapping, Sequence

PRELUDE = pathlib.Path(__file__).with_name("prelude.h")
CUDA_PRELUDE = PRELUDE.with_name("cuda_prelude.h")  # after PRELUDE in a CUDA source
DEFAULT_TIMEOUT_S = 300.0

# The library's own compile options (CMakeLists.txt): C++17, -O3, the same float
# semantics, no -march=native (a cached module must run where the library runs).
# -fvisibility=hidden as for every pybind11 module: only PyInit_* is exported.
BASE_FLAGS = ("-std=c++17", "-O3", "-fPIC", "-shared", "-fvisibility=hidden",
              "-fno-math-errno", "-fno-trapping-math", "-Wall", "-Wno-unused-function")


EMU_FLAGS = ("-fstack-clash-protection", "-pthread")
# A CUDA source built for the GPU: nvcc with the options of the library's own CUDA build
# (CMakeLists.txt: C++17, --expt-relaxed-constexpr, the CUDA runtime linked statically, which
# shares the process's primary context, hence its device pointers, with aakaar._C's), and the
# host compiler given BASE_FLAGS' code-generation options.
NVCC_FLAGS = ("-std=c++17", "-O3", "--shared", "--expt-relaxed-constexpr", "-cudart", "static",
              "-Xcompiler", "-fPIC,-fvisibility=hidden,-fno-math-errno,-fno-trapping-math,-Wall,-Wno-unused-function")
EMU_RUNTIME = ("emu_runtime.cpp", "fiber.cpp")


class JitError(RuntimeError):
    """A C++ source that aakaar.jit could not build or load (PyTorch's load_inline raises RuntimeError too)."""


class CompilerNotFoundError(JitError):
    """No C++ compiler where aakaar.jit looked for one."""


class SourceTreeNotFoundError(JitError):
    """The library's C++ headers (csrc/) are not there: aakaar was not installed from a source checkout."""


@dataclass
class CompileError(JitError):
    """The cell did not compile. ``errors`` holds ``(line, column, message)`` in the cell's own line
    numbers; ``log`` is the compiler's whole output."""
    name: str
    errors: list[tuple[int, int, str]]
    log: str
    source_lines: list[str] = field(repr=False, default_factory=list)
    first_line: int = 1

    def __str__(self) -> str:
        if not self.errors:
            return f"aakaar.jit: {self.name} did not compile:\n{self.log.strip()[-4000:]}"
        out = [f"aakaar.jit: {self.name} did not compile ({len(self.errors)} "
               f"error{'s' if len(self.errors) != 1 else ''}; line numbers are the cell's):"]
        for line, col, msg in self.errors[:20]:
            out.append(f"  line {line}:{col}: {msg}")
            k = line - self.first_line
            if 0 <= k < len(self.source_lines):
                out.append(f"    {line:4d} | {self.source_lines[k]}")
        if len(self.errors) > 20:
            out.append(f"  ... and {len(self.errors) - 20} more (the compiler's output is in .log)")
        return "\n".join(out)


class CompileTimeoutError(JitError, TimeoutError):
    """The compiler ran longer than the time limit."""


# ---- where things are --------------------------------------------------------

def source_dir() -> pathlib.Path:
    """The library's ``csrc/``. It is in the source tree, not in a wheel, so the jit needs aakaar
    installed from a checkout (``pip install -e .``); ``AAKAAR_CSRC`` names another copy."""
    env = os.environ.get("AAKAAR_CSRC")
    here = pathlib.Path(env) if env else pathlib.Path(__file__).resolve().parents[2] / "csrc"
    if not (here / "core" / "tensor.h").is_file():
        raise SourceTreeNotFoundError(
            f"aakaar.jit compiles against the library's C++ headers, which live in the source tree "
            f"(csrc/), and {here} has none. Install aakaar from a checkout (git clone ...; "
            f"pip install -e .) or set AAKAAR_CSRC to the checkout's csrc folder.")
    return here


def cache_dir() -> pathlib.Path:
    """``AAKAAR_JIT_CACHE``, else ``$XDG_CACHE_HOME/aakaar/jit`` (``~/.cache/aakaar/jit``)."""
    env = os.environ.get("AAKAAR_JIT_CACHE")
    if env:
        return pathlib.Path(env).expanduser()
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return pathlib.Path(base) / "aakaar" / "jit"


def compiler_command(compiler: str | None = None) -> list[str]:
    """The compiler: ``compiler``, else ``AAKAAR_JIT_CXX``, else ``CXX`` (what CMake used to build
    the library when set), else ``c++``. Raises :class:`CompilerNotFoundError` when it is missing."""
    spec = compiler or os.environ.get("AAKAAR_JIT_CXX") or os.environ.get("CXX") or "c++"
    argv = shlex.split(spec)
    # A launcher such as ccache in CXX ("ccache g++") is fine: the program is what must exist.
    if not argv or shutil.which(argv[0]) is None:
        raise CompilerNotFoundError(
            f"aakaar.jit needs a C++17 compiler to build C++ cells, and there is none here: "
            f"{spec!r} was not found. Install one (e.g. apt install g++) or point AAKAAR_JIT_CXX at it.")
    return argv


@functools.lru_cache(maxsize=None)
def _compiler_version(argv: tuple[str, ...]) -> str:
    r = subprocess.run([*argv, "--version"], capture_output=True, text=True, timeout=60)
    return r.stdout.strip() + r.stderr.strip()


@functools.lru_cache(maxsize=None)
def _file_digest(path: str, mtime_ns: int, size: int) -> str:
    with open(path, "rb") as f:
        return hashlib.file_digest(f, "sha256").hexdigest() if hasattr(hashlib, "file_digest") \
            else hashlib.sha256(f.read()).hexdigest()


def _library_module() -> pathlib.Path:
    """The loaded aakaar._C: the jit module links against it (Tensor::empty, the thread pool, ...)."""
    import aakaar._C as core
    return pathlib.Path(core.__file__).resolve()


def _headers_state(csrc: pathlib.Path) -> str:
    """Names, sizes and times of the headers a cell may include (and of the emulator's runtime, which
    a CUDA cell compiles in): an edited one is a new build."""
    h = hashlib.sha256()
    files = [*csrc.rglob("*.h"), *csrc.rglob("*.cuh"), *(csrc / "cuda" / "emu" / f for f in EMU_RUNTIME)]
    for p in sorted(files):
        st = p.stat()
        h.update(f"{p.relative_to(csrc)}:{st.st_size}:{st.st_mtime_ns}\n".encode())
    return h.hexdigest()


# ---- the source and the command ----------------------------------------------

def check_name(name: str) -> None:
    if not isinstance(name, str) or not name.isidentifier() or keyword.iskeyword(name):
        raise ValueError(f"aakaar.jit: the name must be a Python identifier (letters, digits, _), got {name!r}")


def _normalise_functions(functions: Sequence[str] | Mapping[str, str] | None) -> dict[str, str]:
    if functions is None:
        return {}
    if isinstance(functions, str):
        functions = [functions]
    items = functions.items() if isinstance(functions, Mapping) else ((f, "") for f in functions)
    out = {}
    for fn, doc in items:
        if not isinstance(fn, str) or not re.fullmatch(r"[A-Za-z_]\w*(::[A-Za-z_]\w*)*", fn):
            raise ValueError(f"aakaar.jit: {fn!r} is not a C++ function name")
        out[fn] = doc or ""
    return out


def generate_source(module_name: str, cell_name: str, cpp_source: str, functions: dict[str, str],
                    first_line: int, cuda: bool = False) -> str:
    """The translation unit: the prelude, the cell under a #line directive (so the compiler reports
    the cell's own line numbers), then the bindings of ``functions``. A CUDA cell also sees
    cuda_prelude.h: CUDA (csrc/cuda/emu/cuda_emu.h: the emulator's threadIdx, __syncthreads,
    AAKAAR_LAUNCH, ... or nvcc's) and the exercises' stub, aakaar::jit::not_implemented."""
    quoted = cell_name.replace("\\", "\\\\").replace('"', '\\"')
    parts = [f'#include "{PRELUDE.name}"',
             *([f'#include "{CUDA_PRELUDE.name}"'] if cuda else []),
             f"#define AAKAAR_JIT_MODULE_NAME {module_name}",
             f'#line {first_line} "{quoted}"',
             cpp_source,
             "",
             '#line 1 "<aakaar.jit bindings>"']
    if not functions:  # the cell writes PYBIND11_MODULE(AAKAAR_JIT_MODULE_NAME, m) { ... } itself
        return "\n".join(parts) + "\n"
    parts.append(f"PYBIND11_MODULE({module_name}, m) {{")
    for fn, doc in functions.items():
        parts.append(f'  m.def("{fn.rsplit("::", 1)[-1]}", &{fn}, {_cpp_string(doc)});')
    # Ours, not the cell's: NotImplemented -> NotImplementedError, and a way to check, once
    # loaded, that this module sees the library's Tensor type (the same pybind11 internals).
    parts += ["  aakaar::jit::register_translators();",
              '  m.def("_aakaar_jit_sees_tensor", [] {',
              "    return pybind11::detail::get_type_info(typeid(aakaar::Tensor)) != nullptr;",
              "  });",
              "}"]
    return "\n".join(parts) + "\n"


def _cpp_string(s: str) -> str:
    return '"' + s.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n") + '"'


def _python_include() -> list[str]:
    inc = {sysconfig.get_paths()["include"], sysconfig.get_paths()["platinclude"]}
    return [f"-I{p}" for p in sorted(inc)]


def compile_command(argv: list[str], src: pathlib.Path, out: pathlib.Path, csrc: pathlib.Path,
                    library: pathlib.Path, extra_cflags: Sequence[str], extra_ldflags: Sequence[str],
                    cuda: bool = False, arch: str | None = None) -> list[str]:
    """The command line: the host compiler (C++, or CUDA for the emulator), or with ``arch`` nvcc
    (CUDA for the GPU; ``src`` is a .cu file, ``argv`` nvcc)."""
    import pybind11
    if arch is not None:
        return [*argv, *NVCC_FLAGS, f"-arch={arch}", *extra_cflags,
                f"-I{PRELUDE.parent}", f"-I{csrc}", f"-I{pybind11.get_include()}", *_python_include(),
                str(src), "-o", str(out), "-Xlinker", str(library), *extra_ldflags]
    # The emulator's runtime is compiled into the module (the library's CPU build has none);
    # -fstack-clash-protection as in the library's EMU build: a big kernel frame still hits the
    # guard page below a fiber's stack.
    emu = [*EMU_FLAGS, *(str(csrc / "cuda" / "emu" / f) for f in EMU_RUNTIME)] if cuda else []
    return [*argv, *BASE_FLAGS, *extra_cflags,
            f"-I{PRELUDE.parent}", f"-I{csrc}", f"-I{pybind11.get_include()}", *_python_include(),
            str(src), *emu, "-o", str(out),
            # Linked by path: the loader finds the aakaar._C that Python already loaded (the same
            # file), so Tensor::empty, the thread pool and the allocator are the library's own.
            str(library), *extra_ldflags]


# ---- errors ------------------------------------------------------------------

def map_errors(log: str, cell_name: str) -> list[tuple[int, int, str]]:
    """``(line, column, message)`` of each error the compiler reported in the cell: GCC/Clang's
    ``NAME:LINE:COL: error: ...`` and nvcc's front end's ``NAME(LINE): error: ...``, after which
    nvcc echoes the line (indented by two) and a caret under the column."""
    name = re.escape(cell_name)
    pat = re.compile(rf"^{name}(?::(\d+):(?:(\d+):)?|\((\d+)\):) (?:fatal |catastrophic )?error: (.*)$", re.M)
    errors = []
    for m in pat.finditer(log):
        if m[1]:
            errors.append((int(m[1]), int(m[2] or 0), m[4].strip()))
            continue
        following = log[m.end():].split("\n")[1:3]
        caret = following[1] if len(following) == 2 and following[1].strip() == "^" else ""
        errors.append((int(m[3]), max(caret.find("^") - 1, 0), m[4].strip()))
    return errors


# ---- building ----------------------------------------------------------------

def _run_compiler(cmd: list[str], timeout: float, cwd: pathlib.Path) -> subprocess.CompletedProcess:
    """Runs the compiler in its own process group, so a time-out ends the whole of it (cc1plus too)."""
    proc = subprocess.Popen(cmd, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                            start_new_session=True, env={**os.environ, "LC_ALL": "C"})
    try:
        out, _ = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.communicate()
        raise
    except BaseException:  # KeyboardInterrupt in a notebook: stop the compiler too
        os.killpg(proc.pid, signal.SIGKILL)
        proc.communicate()
        raise
    return subprocess.CompletedProcess(cmd, proc.returncode, out, "")


@dataclass
class Build:
    """What :func:`build` made: the module's file and name, and whether it came from the cache."""
    path: pathlib.Path
    module_name: str
    cached: bool
    log: str = ""
    target: str = "cpu"  # "cpu" (C++), "emulator" or "gpu" (CUDA)
    arch: str | None = None  # nvcc's -arch for "gpu"


def build(name: str, cpp_source: str, functions: Sequence[str] | Mapping[str, str] | None = None, *,
          extra_cflags: Iterable[str] = (), extra_ldflags: Iterable[str] = (), compiler: str | None = None,
          timeout: float | None = None, first_line: int = 1, cell_name: str | None = None,
          cuda: bool = False, target: str | None = None, cuda_arch: str | None = None) -> Build:
    """Compile ``cpp_source`` into a module file in the cache (or find it there). With ``cuda``,
    the source is CUDA, built for ``target`` (see :func:`aakaar.jit.load_inline`): "gpu" compiles
    with nvcc whether or not a GPU is present (loading it is another matter), "emulator" with the
    host compiler, "auto" or None as :func:`aakaar.jit.cuda_target` decides."""
    check_name(name)
    if not isinstance(cpp_source, str):
        raise TypeError(f"aakaar.jit: cpp_source must be a str, got {type(cpp_source).__name__}")
    fns = _normalise_functions(functions)
    extra_cflags, extra_ldflags = list(extra_cflags), list(extra_ldflags)
    csrc = source_dir()
    library = _library_module()
    kind, arch = _build_target(cuda, target, cuda_arch)
    if kind == "gpu":
        from ._target import nvcc_command
        # nvcc runs a host compiler for the host code: ``compiler`` names that one (-ccbin).
        argv = nvcc_command() + ([] if compiler is None else ["-ccbin", compiler])
    else:
        argv = compiler_command(compiler)
    cell_name = cell_name or f"{name}{'.cu' if cuda else '.cpp'}"
    import pybind11

    # The key: everything the built file depends on. The module's name is derived from it, so a
    # changed cell loads under a fresh name (Python cannot reload an extension module in place).
    st = library.stat()
    key = hashlib.sha256("\0".join([
        cpp_source, repr(sorted(fns.items())), repr(first_line), cell_name, repr(BASE_FLAGS), repr(cuda),
        kind, repr(arch), *((repr(NVCC_FLAGS),) if kind == "gpu" else ()),
        repr(extra_cflags), repr(extra_ldflags), _compiler_version(tuple(argv)), pybind11.__version__,
        sys.version, PRELUDE.read_text(), CUDA_PRELUDE.read_text() if cuda else "", _headers_state(csrc),
        _file_digest(str(library), st.st_mtime_ns, st.st_size)]).encode()).hexdigest()[:16]
    module_name = f"aakaar_jit_{name}_{key}"
    folder = cache_dir()
    path = folder / f"{module_name}{importlib.machinery.EXTENSION_SUFFIXES[0]}"
    if path.exists():
        return Build(path, module_name, cached=True, target=kind, arch=arch)

    folder.mkdir(parents=True, exist_ok=True)
    src_text = generate_source(module_name, cell_name, cpp_source, fns, first_line, cuda)
    with tempfile.TemporaryDirectory(prefix=f"{module_name}-", dir=folder) as tmp:
        tmpdir = pathlib.Path(tmp)
        src = tmpdir / f"{module_name}{'.cu' if kind == 'gpu' else '.cpp'}"
        src.write_text(src_text)
        out = tmpdir / path.name
        cmd = compile_command(argv, src, out, csrc, library, extra_cflags, extra_ldflags,
                              kind == "emulator", arch)
        limit = timeout if timeout is not None else float(os.environ.get("AAKAAR_JIT_TIMEOUT", DEFAULT_TIMEOUT_S))
        try:
            r = _run_compiler(cmd, limit, tmpdir)
        except subprocess.TimeoutExpired:
            raise CompileTimeoutError(
                f"aakaar.jit: compiling {name} took longer than {limit:g} s and was stopped "
                f"(a template recursing without end? raise the limit with timeout= or AAKAAR_JIT_TIMEOUT)") from None
        except FileNotFoundError:
            raise CompilerNotFoundError(f"aakaar.jit: the compiler {argv[0]!r} could not be run") from None
        if r.returncode != 0 or not out.exists():
            raise CompileError(name, map_errors(r.stdout, cell_name), r.stdout,
                               cpp_source.split("\n"), first_line)
        # Atomic: another process loading the same cell sees either no file or the whole file.
        (folder / src.name).write_text(src_text)
        os.replace(out, path)
    return Build(path, module_name, cached=False, log=r.stdout, target=kind, arch=arch)


def _build_target(cuda: bool, target: str | None, cuda_arch: str | None) -> tuple[str, str | None]:
    """("cpu" | "emulator" | "gpu", nvcc's -arch or None) for a build."""
    if not cuda:
        if target not in (None, "auto") or cuda_arch is not None:
            raise ValueError("aakaar.jit: target= and cuda_arch= are for CUDA sources (cuda=True)")
        return "cpu", None
    from . import _target
    if target == "gpu":  # compiled here even without a GPU; loading checks for one
        return "gpu", _target.cuda_arch(cuda_arch)[0]
    t = _target.resolve(target, cuda_arch)
    return t.name, t.arch


_loaded: dict[str, ModuleType] = {}


def load(b: Build) -> ModuleType:
    """Import a built module (once per process and version)."""
    if b.module_name in _loaded:
        return _loaded[b.module_name]
    import aakaar  # noqa: F401  (the Tensor type must be registered before the module looks for it)
    loader = importlib.machinery.ExtensionFileLoader(b.module_name, str(b.path))
    spec = importlib.util.spec_from_file_location(b.module_name, b.path, loader=loader)
    try:
        module = importlib.util.module_from_spec(spec)
        loader.exec_module(module)
    except ImportError as e:
        m = re.search(r"undefined symbol: (\S+)", str(e))
        if not m:
            raise
        symbol = m[1]
        filt = shutil.which("c++filt")
        if filt:
            symbol = subprocess.run([filt, symbol], capture_output=True, text=True).stdout.strip() or symbol
        raise JitError(
            f"aakaar.jit: {b.module_name} calls {symbol}, which the loaded aakaar._C does not export: "
            f"a function declared in a header but defined nowhere, or an aakaar._C built before it "
            f"exported its symbols (rebuild it: pip install -e .)") from None
    sees = getattr(module, "_aakaar_jit_sees_tensor", None)
    if sees is not None and not sees():
        import pybind11
        raise JitError(
            f"aakaar.jit: {b.module_name} does not share aakaar.Tensor with aakaar._C: they were built "
            f"with different pybind11 versions or compilers (the jit uses pybind11 {pybind11.__version__}); "
            f"rebuild aakaar with this pybind11 (pip install -e . --no-build-isolation)")
    module.__aakaar_jit_cached__ = b.cached
    module.__aakaar_jit_target__ = b.target
    module.__aakaar_jit_arch__ = b.arch
    _loaded[b.module_name] = module
    return module
