"""The check and speed-check cells of the CUDA exercises (chapters 7-10) hand the learner's kernels, and the
library's, tensors on the device of the cells' target (``aakaar.jit.cuda_target().device``), and bring
results back with ``.cpu()`` before numpy sees them.

On the emulator every device is the CPU, so a check that passes CPU tensors works there and breaks on a GPU:
a kernel built with nvcc that is given a host pointer fails with an illegal address, and CUDA is unusable
for the rest of the process. No GPU is needed to catch that: here the target says "gpu" (device "cuda"),
and aakaar's "cuda" tensors are stood in for by CPU tensors whose memory the test remembers
(:class:`StandIn`); every call of a function bound by a ``%%cuda`` cell (built for the emulator, so it
really runs) and of a library kernel checks where its tensor arguments live. Host code -- exercise 10.4's
allocator and the library's, which read their tensors on the CPU -- must get CPU tensors instead.
(tests/jit/gpu_check.py runs the same cells on a real GPU.)
"""
from __future__ import annotations

import contextlib
import io
import shutil

import pytest

import aakaar as ak
import aakaar.jit as jit
from aakaar.book.bench import timing
from aakaar.book.exercises import library_kernels
from aakaar.book.exercises.notebooks import cell_source, chapter_notebooks, read_notebook
from hint_helpers import REPO, notebook_cells

pytestmark = pytest.mark.skipif(shutil.which("c++") is None, reason="no C++ compiler (aakaar.jit needs one)")

CHAPTERS = ("7", "8", "9", "10")
# Each function a %%cuda cell of those chapters binds, and the library's kernels of their speed checks:
# "kernel" when its tensors are read by a kernel (on the target's device), "host" when host code reads them.
CELL_FUNCTIONS = {"add_row": "kernel", "transpose": "kernel", "warp_sum_all": "kernel", "tiled_matmul": "kernel",
                  "replay": "host"}
LIBRARY_FUNCTIONS = {"add": "kernel", "strided_copy": "kernel", "sum": "kernel", "gemm": "kernel",
                     "allocator_replay": "host"}
FACTORIES = ("full", "empty", "zeros", "ones", "randn", "rand", "arange", "tensor")


def cuda_exercises() -> dict[str, list[str]]:
    """Exercise id -> the functions its %%cuda cell binds, for every %%cuda cell of chapters 7-10's solutions."""
    out = {}
    notebooks = chapter_notebooks(REPO / "solutions")
    for chapter in CHAPTERS:
        for c in read_notebook(notebooks[chapter])["cells"]:
            src = cell_source(c)
            if c["cell_type"] == "code" and src.startswith("%%cuda"):
                words = [w for w in src.split("\n", 1)[0].split()[1:] if not w.startswith("-")]
                exercise = src.split("BEGIN SOLUTION ", 1)[1].split(":", 1)[0]
                out[exercise] = words[1:] or words[:1]
    return out


def is_cuda(device) -> bool:
    return device is not None and str(device).startswith("cuda")


class StandIn:
    """aakaar's "cuda" tensors, on a machine without a GPU: CPU tensors whose storage is remembered.

    Made by the factories with ``device="cuda"``, ``.to("cuda")``, ``.cuda()`` and by ``@`` / ``+`` / ``-`` of
    one; ``.cpu()`` and ``.to("cpu")`` copy one back to (unremembered) CPU memory, and ``.numpy()`` of one
    raises, as it does for a real GPU tensor."""

    def __init__(self, monkeypatch):
        self.kept: list = []  # kept alive, so that their memory is not reused by a CPU tensor
        self.violations: list[str] = []
        self.calls: dict[str, int] = {}
        T = ak.Tensor
        to, cpu, numpy = T.to, T.cpu, T.numpy

        def tensor_to(t, *args, **kwargs):
            dev = kwargs.pop("device", None)
            rest = []
            for a in args:  # t.to(device), t.to(device, dtype), t.to(dtype)
                if isinstance(a, (str, ak.device)):
                    dev = a
                else:
                    rest.append(a)
            if is_cuda(dev):
                return self.adopt((to(t, *rest, **kwargs) if rest or kwargs else t).clone())
            if self.holds(t):
                return to(t, *rest, **kwargs).clone() if rest or kwargs else t.clone()
            return to(t, *args, **kwargs) if dev is None else to(t, dev, *rest, **kwargs)

        monkeypatch.setattr(T, "to", tensor_to)
        monkeypatch.setattr(T, "cuda", lambda t, *a, **k: self.adopt(t.clone()))
        monkeypatch.setattr(T, "cpu", lambda t: t.clone() if self.holds(t) else cpu(t))

        def tensor_numpy(t, *a, **k):
            if self.holds(t):
                raise TypeError("can't convert a 'cuda' tensor to numpy: copy it to the CPU first with .cpu()")
            return numpy(t, *a, **k)
        monkeypatch.setattr(T, "numpy", tensor_numpy)
        for op in ("__matmul__", "__add__", "__sub__"):
            monkeypatch.setattr(T, op, self._follows(getattr(T, op)))
        for name in FACTORIES:
            monkeypatch.setattr(ak, name, self._factory(getattr(ak, name)))

    def adopt(self, t):
        self.kept.append(t)
        return t

    def holds(self, t) -> bool:
        return any(t.untyped_storage_ptr() == k.untyped_storage_ptr() for k in self.kept)

    def _follows(self, op):
        def run(a, b):
            out = op(a, b)
            on_gpu = self.holds(a) or (isinstance(b, ak.Tensor) and self.holds(b))
            return self.adopt(out) if on_gpu else out
        return run

    def _factory(self, make):
        def run(*args, device=None, **kwargs):
            if is_cuda(device):
                return self.adopt(make(*args, device="cpu", **kwargs))
            return make(*args, device=device, **kwargs)
        return run

    def guard(self, fn, name: str, reads: str):
        """``fn``, checking on every call that its tensor arguments live where its ``reads`` ("kernel"/"host") code
        reads them."""
        def call(*args):
            self.calls[name] = self.calls.get(name, 0) + 1
            for i, a in enumerate(args):
                if isinstance(a, ak.Tensor) and self.holds(a) != (reads == "kernel"):
                    where = "on the GPU" if self.holds(a) else "in CPU memory"
                    wanted = "its kernel reads the GPU's memory" if reads == "kernel" else "its host code reads it"
                    self.violations.append(f"{name}: argument {i} is {where}, but {wanted}")
            return fn(*args)
        call.__wrapped__ = call  # speed_check's timed calls go through the check too
        return call


@pytest.fixture
def emulator_here(monkeypatch):
    """The %%cuda cells are built for the emulator (whatever this machine has), then the target reports a GPU."""
    monkeypatch.setenv("AAKAAR_JIT_CUDA_TARGET", "emulator")
    real = jit.cuda_target

    def says_gpu():
        monkeypatch.setattr(jit, "cuda_target", lambda target=None, arch=None:
                            real(target) if target == "emulator" else jit.Target("gpu", "a test's stand-in", "sm_90"))
    return says_gpu


def shell_with_cell(exercise: str):
    """An IPython shell that has run the notebook's setup cell and the %%cuda cell of ``exercise``; and its check
    cell and speed-check cell."""
    from IPython.core.interactiveshell import InteractiveShell

    setup, cuda_cell, check = notebook_cells(exercise)
    path = chapter_notebooks(REPO / "solutions")[exercise.split(".")[0]]
    speed = next(src for c in read_notebook(path)["cells"]
                 if (src := cell_source(c)).startswith(f"# The speed check of exercise {exercise}:"))
    InteractiveShell.clear_instance()
    sh = InteractiveShell.instance()
    for src in (setup, "%load_ext aakaar.jit", cuda_cell):
        sh.run_cell(src, store_history=False).raise_error()
    return sh, check, speed


def stand_in_for_the_gpu(sh, exercise: str, monkeypatch, says_gpu) -> StandIn:
    gpu = StandIn(monkeypatch)
    says_gpu()
    for name in cuda_exercises()[exercise]:
        sh.user_ns[name] = gpu.guard(sh.user_ns[name], name, CELL_FUNCTIONS[name])

    class Library:  # library_cuda(name), built for the emulator, its functions guarded
        def __init__(self, name):
            self.module = jit.load_inline(f"library_{name}", library_kernels._SOURCES[name], [name], cuda=True,
                                          target="emulator")
            self.name = name

        def __getattr__(self, fn):
            return gpu.guard(getattr(self.module, fn), f"library {fn}", LIBRARY_FUNCTIONS[self.name])
    monkeypatch.setattr(library_kernels, "library_cuda", Library)
    # One untimed call of each: the speed is not what is checked here.
    monkeypatch.setattr(timing, "interleaved", lambda fns, **kw: {k: (f(), 1.0)[1] for k, f in fns.items()})
    return gpu


def run(sh, src: str) -> str:
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        sh.run_cell(src, store_history=False).raise_error()
    return out.getvalue()


def test_every_cuda_exercise_is_classified():
    found = cuda_exercises()
    assert set(found) == {"7.5", "8.4", "8.5", "9.4", "10.4"}, found
    assert {fn for fns in found.values() for fn in fns} == set(CELL_FUNCTIONS)
    assert set(LIBRARY_FUNCTIONS) == set(library_kernels._SOURCES)


@pytest.mark.parametrize("exercise", ["7.5", "8.4", "8.5", "9.4", "10.4"])
def test_checks_hand_the_kernels_tensors_on_the_targets_device(exercise, emulator_here, monkeypatch):
    pytest.importorskip("IPython")
    from IPython.core.interactiveshell import InteractiveShell

    sh, check, speed = shell_with_cell(exercise)
    try:
        gpu = stand_in_for_the_gpu(sh, exercise, monkeypatch, emulator_here)
        said = run(sh, check)
        assert f"Exercise {exercise} passed" in said, said
        said = run(sh, speed)
        assert f"Exercise {exercise} speed:" in said, said
        assert not gpu.violations, gpu.violations
        for name in cuda_exercises()[exercise]:
            assert gpu.calls.get(name, 0) >= 2, f"{name} was not called by both the check and the speed check"
        assert any(k.startswith("library ") for k in gpu.calls), f"no library kernel was called: {gpu.calls}"
        if any(CELL_FUNCTIONS[n] == "kernel" for n in cuda_exercises()[exercise]):
            assert gpu.kept, "no tensor was put on the GPU"
    finally:
        InteractiveShell.clear_instance()


def test_the_stand_in_catches_cpu_tensors_given_to_a_kernel(emulator_here, monkeypatch):
    """The check above can fail: 7.5's check as it was (CPU tensors, .numpy() of the output) is caught."""
    pytest.importorskip("IPython")
    from IPython.core.interactiveshell import InteractiveShell

    sh, _, _ = shell_with_cell("7.5")
    try:
        gpu = stand_in_for_the_gpu(sh, "7.5", monkeypatch, emulator_here)
        run(sh, "import aakaar as ak\nx = np.ones((3, 5), np.float32)\nout = ak.full(x.shape, 0.0)\n"
                "add_row(ak.from_numpy(x), ak.from_numpy(x[0]), out, 1)")
        assert gpu.violations and all("in CPU memory" in v for v in gpu.violations), gpu.violations
        with pytest.raises(TypeError, match=r"\.cpu\(\)"):
            run(sh, "ak.full((2, 2), 1.0, device='cuda').numpy()")
    finally:
        InteractiveShell.clear_instance()
