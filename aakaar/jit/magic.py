"""The ``%%cpp NAME [FUNCTION ...]`` and ``%%cuda NAME [FUNCTION ...]`` cell magics (registered by
``%load_ext aakaar.jit``)."""
from __future__ import annotations

import shlex

from IPython.core.error import UsageError
from IPython.core.magic import Magics, cell_magic, magics_class
from IPython.core.magic_arguments import argument, magic_arguments, parse_argstring

from . import load_inline
from ._build import CompileError, JitError
from ._checked import DEFAULT_CHECKED_CALLS, checked


@magics_class
class JitMagics(Magics):
    @magic_arguments()
    @argument("name", help="the module's name; also the function bound when no FUNCTION is given")
    @argument("functions", nargs="*", help="the C++ functions to bind into the notebook (default: NAME)")
    @argument("--cflags", default="", help='more compiler options, quoted: --cflags "-DN=4 -O2"')
    @argument("--timeout", type=float, default=None, help="seconds the compile may take")
    @argument("--checked-calls", type=int, default=DEFAULT_CHECKED_CALLS,
              help="how many first calls of each function run first in a forked copy of the process, "
                   "where a crash or an endless loop cannot take the notebook down (0: none)")
    @cell_magic
    def cpp(self, line: str, cell: str):
        """Compile the cell's C++ against the library and bind its functions in the notebook.

        ``%%cpp relu_`` binds the C++ function ``relu_``; ``%%cpp ops add_ mul_`` binds two and
        names the module ``ops``. Compiler errors are reported by the cell's own line numbers
        (the ``%%cpp`` line is line 1). The first calls of each function run first in a forked
        copy of the process (``--checked-calls``): a segfault there is a ``CrashError`` in the
        notebook, not a dead kernel, and Ctrl-C stops an endless loop. See :mod:`aakaar.jit`.
        """
        return self._compile(self.cpp, "cpp", line, cell, cuda=False)

    @magic_arguments()
    @argument("name", help="the module's name; also the function bound when no FUNCTION is given")
    @argument("functions", nargs="*", help="the host functions to bind into the notebook (default: NAME)")
    @argument("--cflags", default="", help='more compiler options, quoted: --cflags "-DN=4 -O2"')
    @argument("--timeout", type=float, default=None, help="seconds the compile may take")
    @argument("--target", choices=("auto", "gpu", "emulator"), default=None,
              help="gpu: nvcc, for the GPU; emulator: the host compiler, for the CUDA emulator on the CPU; "
                   "auto (default, or AAKAAR_JIT_CUDA_TARGET): the GPU when aakaar runs on one here")
    @argument("--arch", default=None, help="nvcc's -arch for the GPU (default: the GPU's own, e.g. sm_90)")
    @cell_magic
    def cuda(self, line: str, cell: str):
        """Compile the cell's CUDA and bind its host functions: with nvcc for the GPU when aakaar's
        CUDA backend runs on a real GPU here, otherwise for the CUDA emulator (csrc/cuda/emu), which
        runs the same source on the CPU. The first cell says which (once).

        Kernels launch with ``AAKAAR_LAUNCH(kernel, grid, block, smem, args...)``. On the emulator
        they read CPU tensors and its errors (a bad launch, a barrier not every thread reaches)
        arrive as RuntimeError; on the GPU they read tensors on "cuda" (host code may still take
        CPU tensors, so nothing checks where a pointer handed to a kernel lives). See
        :func:`aakaar.jit.load_inline` (``cuda=True``).
        """
        return self._compile(self.cuda, "cuda", line, cell, cuda=True)

    def _compile(self, magic, magic_name: str, line: str, cell: str, cuda: bool) -> None:
        args = parse_argstring(magic, line)
        if not args.name.isidentifier():
            raise UsageError(f"%%{magic_name}: the name must be a Python identifier, got {args.name!r}")
        functions = args.functions or [args.name]
        try:
            where = {"target": args.target, "cuda_arch": args.arch} if cuda else {}
            module = load_inline(args.name, cell, functions, extra_cflags=shlex.split(args.cflags),
                                 timeout=args.timeout, first_line=2, cell_name=f"<cell {args.name}>", cuda=cuda,
                                 **where)
        except (CompileError, JitError) as e:
            # Shown without the frames of this magic and of the builder: they are not the learner's.
            raise e.with_traceback(None) from None
        calls = getattr(args, "checked_calls", 0)  # %%cuda: the emulator's worker threads do not survive a fork
        for fn in functions:
            py_name = fn.rsplit("::", 1)[-1]
            self.shell.user_ns[py_name] = checked(getattr(module, py_name), py_name, calls)
