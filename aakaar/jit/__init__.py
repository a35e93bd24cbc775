"""C++ compiled at run time against the library: :func:`load_inline` and the ``%%cpp`` cell magic.

A cell's C++ sees pybind11 and the library's public headers (``aakaar/jit/prelude.h``): it takes
aakaar tensors as ``aakaar::TensorPtr`` / ``const aakaar::Tensor&`` -- the very objects Python holds,
no copy -- and may use the dtype dispatch (``AK_DISPATCH_FLOAT``), the thread pool
(``aakaar::parallel_for``), the vector math (``aakaar::cpu::exp_f32``) and ``aakaar::Tensor::empty``.
It is compiled with the library's flags (C++17, -O3, no -march=native) and linked against the
loaded ``aakaar._C``, so the same allocator and thread pool serve both.

The headers live in the source tree (``csrc/``), so the jit needs aakaar installed from a checkout
(``pip install -e .``); otherwise it raises :class:`SourceTreeNotFoundError` (``AAKAAR_CSRC`` may
name a checkout's csrc folder). Built modules are cached in ``AAKAAR_JIT_CACHE`` (default
``~/.cache/aakaar/jit``) by a hash of the source, the flags, the compiler's version and the
library's build; a second load of the same source compiles nothing. The compiler is
``AAKAAR_JIT_CXX``, else ``CXX``, else ``c++``.

In IPython / Jupyter::

    %load_ext aakaar.jit

    %%cpp scale_
    void scale_(const aakaar::Tensor& t, double a) { ... }

compiles the cell and binds ``scale_`` in the notebook (``%%cpp NAME FN1 FN2`` binds several).
``%%cuda NAME ...`` does the same for CUDA (``cuda=True``): built with nvcc for the GPU when aakaar's
CUDA backend runs on a real GPU here, otherwise for the CUDA emulator (the same source, on the CPU);
it says which, once, and the module's ``__aakaar_jit_target__`` is "gpu" or "emulator"
(:func:`cuda_target` tells in advance; ``target=`` / ``%%cuda --target`` chooses).
"""
from __future__ import annotations

from types import ModuleType
from typing import Iterable, Mapping, Sequence

from ._checked import CrashError, checked
from ._build import (CompileError, CompileTimeoutError, CompilerNotFoundError, JitError,
                     SourceTreeNotFoundError, build, cache_dir, load)
from ._target import Target, TargetUnavailableError, announce, resolve as cuda_target

__all__ = ["load_inline", "cuda_target", "Target", "checked", "CrashError", "CompileError", "CompileTimeoutError",
           "CompilerNotFoundError", "JitError", "SourceTreeNotFoundError", "TargetUnavailableError", "cache_dir",
           "load_ipython_extension"]


def load_inline(name: str, cpp_source: str, functions: Sequence[str] | Mapping[str, str] | None = None, *,
                extra_cflags: Iterable[str] = (), extra_ldflags: Iterable[str] = (),
                compiler: str | None = None, timeout: float | None = None, first_line: int = 1,
                cell_name: str | None = None, cuda: bool = False, target: str | None = None,
                cuda_arch: str | None = None) -> ModuleType:
    """Compile ``cpp_source`` (C++17) into a Python module and load it, as
    ``torch.utils.cpp_extension.load_inline`` does.

    Args:
        name: the module's name, a Python identifier. A changed source loads under a fresh
            module name (``aakaar_jit_<name>_<hash>``); the previous version stays valid.
        cpp_source: the C++; it sees ``aakaar/jit/prelude.h`` (pybind11 and the library's headers).
        functions: C++ functions to bind, by name (a list, or ``{name: docstring}``). With none, the
            source writes ``PYBIND11_MODULE(AAKAAR_JIT_MODULE_NAME, m) { ... }`` itself.
        extra_cflags, extra_ldflags: more compiler and linker options (they are part of the cache key).
        compiler: the compiler to run (default: ``AAKAAR_JIT_CXX``, ``CXX``, ``c++``); for the GPU,
            the host compiler nvcc runs (its ``-ccbin``; default nvcc's own choice).
        timeout: seconds the compile may take (default ``AAKAAR_JIT_TIMEOUT`` or 300).
        first_line: the line number of the source's first line in error messages (2 under ``%%cpp``).
        cell_name: the file name the compiler reports (default ``NAME.cpp``, ``NAME.cu`` for CUDA).
        cuda: the source is CUDA, built for ``target``; it also sees ``aakaar/jit/cuda_prelude.h``.
            Launch with ``AAKAAR_LAUNCH(kernel, grid, block, smem, args...)``, the spelling that
            compiles both ways; an exercise's stub is ``aakaar::jit::not_implemented("...")``,
            which kernels may call too (NotImplementedError in Python, after AAKAAR_CHECK_LAUNCH()).
        target: where a CUDA source runs (default ``AAKAAR_JIT_CUDA_TARGET``, else "auto").
            "emulator": compiled with the host compiler for the CUDA emulator (csrc/cuda/emu):
            kernels run on the CPU, over CPU tensors' memory, and a bad launch, a barrier not
            reached by every thread or a warp operation missing lanes raises the emulator's
            RuntimeError naming the kernel and the block. "gpu": compiled with nvcc
            (``AAKAAR_JIT_NVCC``, ``$CUDA_HOME/bin/nvcc`` or ``nvcc`` on PATH); kernels run on the GPU
            and read tensors on "cuda". "auto": the GPU when aakaar's CUDA backend runs on a real GPU
            here and nvcc is found, else the emulator; which one is printed once per process.
        cuda_arch: nvcc's ``-arch`` for "gpu" (``sm_90``, ``90`` or ``9.0``; default
            ``AAKAAR_JIT_CUDA_ARCH``, else the GPU's compute capability, else sm_90).

    Raises:
        CompileError: the source did not compile; its message lists the errors by the source's
            own line numbers (``.errors``, and the whole compiler output in ``.log``).
        CompileTimeoutError: the compile ran past ``timeout``.
        CompilerNotFoundError: there is no compiler.
        SourceTreeNotFoundError: aakaar is not installed from a source checkout.
        TargetUnavailableError: ``target="gpu"`` where the GPU cannot be used (the message says why).
        ValueError: ``name`` is not an identifier, or ``target`` is not one of the three.

    The module's ``__aakaar_jit_target__`` is "cpu" (C++), "emulator" or "gpu", and
    ``__aakaar_jit_target_reason__`` says why.
    """
    where = cuda_target(target, cuda_arch) if cuda else None
    b = build(name, cpp_source, functions, extra_cflags=extra_cflags, extra_ldflags=extra_ldflags,
              compiler=compiler, timeout=timeout, first_line=first_line, cell_name=cell_name, cuda=cuda,
              target=where.name if where else target, cuda_arch=where.arch if where else cuda_arch)
    module = load(b)
    if where is not None:
        module.__aakaar_jit_target_reason__ = where.reason
        if (target or "auto") == "auto":  # chosen for the caller: say what was chosen (no silent fallback)
            announce(name, where)
    return module


def load_ipython_extension(ipython) -> None:
    """``%load_ext aakaar.jit``: registers the ``%%cpp`` and ``%%cuda`` cell magics."""
    from .magic import JitMagics
    ipython.register_magics(JitMagics)
