"""%%cuda sources on a real GPU against the CUDA emulator: the same source, built both ways, gives the
same results (run by tests/jit/gpu_check.sh, which imports an aakaar built with nvcc).

The sources are the book's own: every ``%%cuda`` cell of the exercises (solutions and stubs), the
library kernels of the exercises' speed checks (aakaar.book.exercises.library_kernels) and the
kernels of tests/jit. All are first compiled in parallel for both targets (the GPU build with
nvcc); then each is run on "cuda" tensors (GPU) and on CPU tensors (emulator) and compared.
Last, the CUDA exercises of chapters 7-10 run as a learner runs them, in IPython: the setup cell,
``%load_ext aakaar.jit``, the ``%%cuda`` cell (built for the GPU by "auto"), its check cell and its
speed-check cell, for the solutions (each check must pass) and for the stubs (each check must stop at
NotImplementedError); after each, CUDA must still work (a kernel given a host pointer would have left
it unusable).

    python tests/jit/gpu_check.py                  # on a GPU machine (aakaar built with AAKAAR_CUDA=ON)
    python tests/jit/gpu_check.py --compile-only   # anywhere with nvcc: every source compiles for the GPU

Prints a PASS/FAIL line per check and exits 1 on any failure.
"""
from __future__ import annotations

import argparse
import concurrent.futures
import ctypes
import json
import os
import pathlib
import sys
import tempfile
import traceback

import numpy as np

REPO = pathlib.Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "tests" / "jit"))

import aakaar as ak  # noqa: E402
import aakaar.jit as jit  # noqa: E402
from aakaar.book.exercises.library_kernels import _SOURCES as LIBRARY_SOURCES  # noqa: E402
from aakaar.book.exercises.notebooks import cell_source, chapter_notebooks, read_notebook  # noqa: E402
from aakaar.jit import _target  # noqa: E402
from test_cuda_emulator import SOURCE as TEST_SOURCE  # noqa: E402

failures: list[str] = []


def check(label: str, fn) -> None:
    try:
        fn()
        print(f"PASS {label}", flush=True)
    except Exception:
        failures.append(label)
        print(f"FAIL {label}\n{traceback.format_exc()}", flush=True)


def cuda_cells() -> list[tuple[str, str, str, list[str]]]:
    """(notebook, module name, source, functions) of every %%cuda cell of the solutions and the exercises."""
    out = []
    for folder in ("solutions", "exercises"):
        for nb_path in sorted((REPO / folder).glob("*.ipynb")):
            for cell in json.loads(nb_path.read_text())["cells"]:
                text = "".join(cell["source"])
                if cell["cell_type"] == "code" and text.startswith("%%cuda"):
                    head, _, body = text.partition("\n")
                    words = [w for w in head.split()[1:] if not w.startswith("-")]
                    out.append((f"{folder}/{nb_path.name}", words[0], body, words[1:] or [words[0]]))
    return out


def sources() -> dict[str, tuple[str, list[str]]]:
    """Every source this check builds: key -> (source, functions); the key is also the module's name
    (a stub and its solution have different keys, so they load as different modules)."""
    out = {"test_kernels": (TEST_SOURCE, ["scale_", "sums"])}
    out.update({f"library_{k}": (src, [k]) for k, src in LIBRARY_SOURCES.items()})
    for nb, name, body, fns in cuda_cells():
        kind = "solution" if nb.startswith("solutions") else "stub"
        out[f"{name}_{kind}"] = (body, fns)
    return out


def build_all(srcs, targets, workers: int) -> None:
    """Compiles every source for every target at once (nvcc runs one process per source)."""
    compile_in_parallel([(f"compiles for the {t}: {k}", k, *srcs[k], {"target": t, "first_line": 2})
                         for k in srcs for t in targets], workers)


def compile_in_parallel(jobs, workers: int) -> None:
    """jobs: (label, name, source, functions, build's keyword arguments); each is a check."""
    with concurrent.futures.ThreadPoolExecutor(workers) as pool:
        futures = {pool.submit(jit.build, name, src, fns, cuda=True, **kw): label for label, name, src, fns, kw in jobs}
        for f in concurrent.futures.as_completed(futures):
            check(futures[f], f.result)


def load(key: str, target: str, srcs):
    src, fns = srcs[key]
    return jit.load_inline(key, src, fns, cuda=True, target=target, first_line=2)


def on(device: str, *arrays):
    return [ak.from_numpy(np.ascontiguousarray(a)).to(device) for a in arrays]


def same(key: str, run, srcs, rtol: float = 1e-5, atol: float = 1e-5) -> None:
    """run(module, device) -> numpy result, on the GPU build over 'cuda' tensors and on the emulator's over CPU ones."""
    gpu = np.asarray(run(load(key, "gpu", srcs), "cuda"))
    emu = np.asarray(run(load(key, "emulator", srcs), "cpu"))
    np.testing.assert_allclose(gpu, emu, rtol=rtol, atol=atol, err_msg=f"{key}: the GPU and the emulator differ")


def run_all(srcs) -> None:
    rng = np.random.default_rng(0)

    def test_kernels(m, dev):
        x, = on(dev, np.arange(1000, dtype=np.float32))
        m.scale_(x, 0.5, 128)
        return np.concatenate([x.cpu().numpy(), m.sums(on(dev, np.ones(1000, np.float32))[0]).cpu().numpy()])
    check("test kernels: GPU == emulator", lambda: same("test_kernels", test_kernels, srcs))

    def bad_launch():  # more than 1024 threads a block: a RuntimeError on both, and the GPU still works after
        for target, dev in (("gpu", "cuda"), ("emulator", "cpu")):
            m = load("test_kernels", target, srcs)
            x, = on(dev, np.zeros(4096, np.float32))
            try:
                m.scale_(x, 1.0, 2048)
            except RuntimeError:
                pass
            else:
                raise AssertionError(f"{target}: a launch of 2048 threads a block raised nothing")
        check("test kernels: GPU == emulator (after a failed launch)", lambda: same("test_kernels", test_kernels, srcs))
    check("a bad launch is a RuntimeError on both", bad_launch)

    a, b = (rng.standard_normal(s).astype(np.float32) for s in [(300, 301), (301,)])

    def add_row(m, dev):
        x, bb, out = on(dev, a, b, np.zeros_like(a))
        m.add_row(x, bb, out, 1 << 30)
        return out.cpu().numpy()

    def transpose(m, dev):
        x, out = on(dev, a[:45, :70], np.zeros((70, 45), np.float32))
        m.transpose(x, out)
        return out.cpu().numpy()

    def warp_sum_all(m, dev):
        return m.warp_sum_all(on(dev, rng_fixed(200_000))[0])

    def tiled_matmul(m, dev):
        A, B, C = on(dev, a[:23, :29], a[50:79, :37], np.zeros((23, 37), np.float32))
        m.tiled_matmul(A, B, C)
        return C.cpu().numpy()

    for name, run, tol in (("add_row", add_row, 1e-6), ("transpose", transpose, 0), ("warp_sum_all", warp_sum_all, 1e-4),
                           ("tiled_matmul", tiled_matmul, 1e-5)):
        check(f"exercise {name} (solution): GPU == emulator",
              lambda n=name, r=run, t=tol: same(f"{n}_solution", r, srcs, rtol=t, atol=t))

    def stub_on_the_gpu():  # a stub in a kernel: NotImplementedError, and the GPU still works after it
        x, out = on("cuda", a[:45, :70], np.zeros((70, 45), np.float32))
        try:
            load("transpose_stub", "gpu", srcs).transpose(x, out)
        except NotImplementedError as e:
            assert str(e).startswith("Exercise 8.4:"), str(e)
        else:
            raise AssertionError("the stub of exercise 8.4 raised nothing on the GPU")
        same("transpose_solution", transpose, srcs, 0, 0)
    check("an exercise's stub in a kernel on the GPU: NotImplementedError", stub_on_the_gpu)

    def lib_gemm(version):
        def run(m, dev):
            A, B, C = on(dev, a[:64, :96], a[100:196, :80], np.zeros((64, 80), np.float32))
            m.gemm(A, B, C, version)
            return C.cpu().numpy()
        return run

    for v in (1, 3, 7):
        check(f"library gemm v{v}: GPU == emulator", lambda v=v: same("library_gemm", lib_gemm(v), srcs, 1e-4, 1e-4))

    def lib_sum(m, dev):
        x, out = on(dev, rng_fixed(100_000), np.zeros(1, np.float32))
        m.sum(x, out)
        return out.cpu().numpy()
    check("library sum: GPU == emulator", lambda: same("library_sum", lib_sum, srcs, 1e-4, 1e-4))

    def lib_add(m, dev):
        x, bb, out = on(dev, a, b, np.zeros_like(a))
        m.add(x, bb.expand(300, 301), out)
        return out.cpu().numpy()
    check("library add (b broadcast, stride 0): GPU == emulator", lambda: same("library_add", lib_add, srcs, 0, 0))

    def lib_copy(m, dev):
        x, out = on(dev, a[:64, :96], np.zeros((96, 64), np.float32))
        m.strided_copy(x.T, out)
        return out.cpu().numpy()
    check("library strided copy (a transpose): GPU == emulator", lambda: same("library_strided_copy", lib_copy, srcs, 0, 0))


def rng_fixed(n: int) -> np.ndarray:
    return np.random.default_rng(n).random(n, dtype=np.float32)


NOTEBOOK_CHAPTERS = ("7", "8", "9", "10")


def cuda_exercises() -> list[tuple[str, str, str, list[str]]]:
    """(folder, exercise, %%cuda cell, [setup cell, check cell, speed-check cell]) of every CUDA exercise of
    chapters 7-10, in the solutions and in the exercises (the stubs)."""
    out = []
    for folder in ("solutions", "exercises"):
        notebooks = chapter_notebooks(REPO / folder)
        for chapter in NOTEBOOK_CHAPTERS:
            code = [cell_source(c) for c in read_notebook(notebooks[chapter])["cells"] if c["cell_type"] == "code"]
            for i, src in enumerate(code):
                if src.startswith("%%cuda"):  # its exercise: the next check cell's
                    check_cell = next(w for w in code[i:] if w.startswith("# Check exercise "))
                    ex = check_cell.split()[3]
                    speed = next(w for w in code[i:] if w.startswith(f"# The speed check of exercise {ex}:"))
                    out.append((folder, ex, src, [code[0], check_cell, speed]))
    return out


def prebuild_exercises(workers: int) -> None:
    """The %%cuda cells and the library kernels as the notebooks build them (same names, so the same cache
    entries), for the GPU, at once: the notebooks then compile nothing one by one."""
    jobs = []
    for folder, ex, cell, _ in cuda_exercises():
        head, _, body = cell.partition("\n")
        words = [w for w in head.split()[1:] if not w.startswith("-")]
        jobs.append((f"compiles for the gpu as %%cuda does: {folder} {ex}", words[0], body, words[1:] or words[:1],
                     {"target": "gpu", "first_line": 2, "cell_name": f"<cell {words[0]}>"}))
    jobs += [(f"compiles for the gpu as library_cuda does: {k}", f"library_{k}", src, [k], {"target": "gpu"})
             for k, src in LIBRARY_SOURCES.items()]
    compile_in_parallel(jobs, workers)


def exercise_on_the_gpu(folder: str, ex: str, cell: str, cells: list[str]) -> None:
    """Runs one CUDA exercise's cells in IPython, as a learner does; raises on anything unexpected."""
    from IPython.core.interactiveshell import InteractiveShell
    import contextlib
    import io
    setup, check_cell, speed_cell = cells
    InteractiveShell.clear_instance()
    sh = InteractiveShell.instance()
    try:
        said = io.StringIO()
        with contextlib.redirect_stdout(said):
            for src in (setup, "%load_ext aakaar.jit", cell):
                sh.run_cell(src, store_history=False).raise_error()
            assert "emulator" not in said.getvalue(), said.getvalue()
            checked = sh.run_cell(check_cell, store_history=False)
            speed = io.StringIO()
            with contextlib.redirect_stdout(speed):
                sh.run_cell(speed_cell, store_history=False, silent=True).raise_error()  # silent: no Out[] line
        if folder == "solutions":
            checked.raise_error()
            assert f"Exercise {ex} passed" in said.getvalue(), said.getvalue()
            assert f"Exercise {ex} speed: yours" in speed.getvalue(), speed.getvalue()
        else:
            assert isinstance(checked.error_in_exec, NotImplementedError), repr(checked.error_in_exec)
            assert str(checked.error_in_exec).startswith(f"Exercise {ex}:"), str(checked.error_in_exec)
            assert "speed not measured yet" in speed.getvalue(), speed.getvalue()
        print(f"  {folder} {ex}: {speed.getvalue().strip()}")
        if "device" in sh.user_ns:  # the device the check put the kernel's tensors on
            assert sh.user_ns["device"] == "cuda", sh.user_ns["device"]
    finally:
        InteractiveShell.clear_instance()
    # A kernel that read a host pointer would have left CUDA unusable for the process: it must still work.
    assert (ak.ones(1000).to("cuda") * 2).sum().item() == 2000.0, "CUDA no longer works after the exercise"


def magic_on_the_gpu() -> None:
    from IPython.core.interactiveshell import InteractiveShell
    import contextlib
    import io
    sh = InteractiveShell.instance()
    try:
        sh.run_line_magic("load_ext", "aakaar.jit")
        said = io.StringIO()
        with contextlib.redirect_stdout(said):
            sh.run_cell_magic("cuda", "magic_kernels scale_ sums", TEST_SOURCE)
        assert "for the GPU" in said.getvalue(), said.getvalue()
        scale_ = sh.user_ns["scale_"]
        x = ak.ones(10).to("cuda")
        scale_(x, 2.0, 32)
        assert x.sum().item() == 20.0
    finally:
        InteractiveShell.clear_instance()


def pageable_memory_access() -> str:
    """Whether this GPU reads pageable host memory (HMM): a GPU cell then works on CPU tensors too, slowly."""
    try:
        cu = ctypes.CDLL("libcuda.so.1")
        dev, v = ctypes.c_int(), ctypes.c_int()
        cu.cuInit(0)
        cu.cuDeviceGet(ctypes.byref(dev), 0)
        cu.cuDeviceGetAttribute(ctypes.byref(v), 88, dev)  # CU_DEVICE_ATTRIBUTE_PAGEABLE_MEMORY_ACCESS
        return str(bool(v.value))
    except OSError as e:
        return f"unknown ({e})"


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--compile-only", action="store_true", help="only compile every source for both targets")
    p.add_argument("--workers", type=int, default=os.cpu_count() or 2)
    args = p.parse_args()
    os.environ.setdefault("AAKAAR_JIT_CACHE", tempfile.mkdtemp(prefix="aakaar-jit-gpu-check-"))
    print(f"aakaar.cuda: built {ak.cuda.is_built()}, emulated {ak.cuda.is_emulated()}, "
          f"devices {ak.cuda.device_count()}; jit cache {os.environ['AAKAAR_JIT_CACHE']}")
    srcs = sources()
    if not args.compile_only:
        t = jit.cuda_target()
        print(f"cuda_target(): {t.name} ({t.describe()})")
        print(f"pageable host memory readable by the GPU: {pageable_memory_access()}")
        if t.name != "gpu":
            print(f"FAIL no GPU target here: {t.reason}")
            return 1
    build_all(srcs, ("gpu", "emulator"), args.workers)
    if not args.compile_only and not failures:
        run_all(srcs)
        try:
            import IPython  # noqa: F401
            check("%%cuda on the GPU: says so, runs on 'cuda' tensors", magic_on_the_gpu)
            prebuild_exercises(args.workers)
            for folder, ex, cell, cells in cuda_exercises():
                what = "passes" if folder == "solutions" else "stops at its stub"
                check(f"exercise {ex} ({folder}) on the GPU: its check {what}, then CUDA still works",
                      lambda f=folder, e=ex, c=cell, cs=cells: exercise_on_the_gpu(f, e, c, cs))
        except ImportError:
            print("SKIP %%cuda magic: IPython is not installed")
    print(f"{len(failures)} failed" + (": " + "; ".join(failures) if failures else ""))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
