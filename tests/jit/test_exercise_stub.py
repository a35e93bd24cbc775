"""C++ exercises: aakaar.book.exercises stubs a solution region of a %%cpp cell with a throw that
compiles and reaches Python as NotImplementedError, like the Python exercises' stubs."""
from __future__ import annotations

import shutil

import pytest

from aakaar.book.exercises.notebooks import ExerciseError, exercise_ids, stub_solutions

CELL = """%%cpp double_
void double_(const aakaar::Tensor& x) {
  // BEGIN SOLUTION 9.1: double every element of the "contiguous" float32 tensor
  float* p = x.data<float>();
  for (int64_t i = 0; i < x.numel(); ++i) p[i] *= 2;
  // END SOLUTION
}"""


def test_the_stub_of_a_cpp_cell_is_a_throw():
    stub, ids = stub_solutions(CELL, "cell")
    assert ids == ["9.1"]
    assert stub.split("\n")[2] == ('  throw aakaar::jit::NotImplementedError("Exercise 9.1: double every element of '
                                   'the \\"contiguous\\" float32 tensor");')
    assert "p[i] *= 2" not in stub and "SOLUTION" not in stub
    assert exercise_ids({"cells": [{"cell_type": "code", "source": CELL}]}) == ["9.1"]


def test_marker_style_must_match_the_cell():
    with pytest.raises(ExerciseError, match="C\\+\\+ cell marks its solution with // comments, not #"):
        stub_solutions("%%cpp f\n# BEGIN SOLUTION 1.1: a\nint f();\n# END SOLUTION\n", "cell")
    with pytest.raises(ExerciseError, match="Python cell marks its solution with # comments, not //"):
        stub_solutions("x = 1\n// BEGIN SOLUTION 1.1: a\n// END SOLUTION\n", "cell")


@pytest.mark.skipif(shutil.which("c++") is None, reason="no C++ compiler")
def test_the_stub_compiles_and_raises_not_implemented():
    pytest.importorskip("IPython")
    from IPython.core.interactiveshell import InteractiveShell

    import aakaar as ak
    sh = InteractiveShell.instance()
    try:
        sh.run_line_magic("load_ext", "aakaar.jit")
        stub, _ = stub_solutions(CELL, "cell")
        line, body = stub.split("\n", 1)
        sh.run_cell_magic("cpp", line.removeprefix("%%cpp "), body)
        with pytest.raises(NotImplementedError, match="^Exercise 9.1: double every element"):
            sh.user_ns["double_"](ak.ones(3))
    finally:
        InteractiveShell.clear_instance()


def test_a_cuda_cell_is_stubbed_the_same_way():
    # The region is host code: a throw inside a kernel reaches Python as the emulator's RuntimeError.
    cell = ("%%cuda fill\n__global__ void k(float* x) { x[threadIdx.x] = 0; }\nvoid fill(const aakaar::Tensor& x) {\n"
            "  // BEGIN SOLUTION 8.1: launch one thread per element\n  AAKAAR_LAUNCH(k, dim3(1), dim3(32), 0, x.data<float>());\n"
            "  // END SOLUTION\n}")
    stub, ids = stub_solutions(cell, "cell")
    assert ids == ["8.1"]
    # A function, not a throw: the same stub compiles inside a kernel under nvcc (aakaar/jit/cuda_prelude.h).
    assert stub.split("\n")[3] == '  aakaar::jit::not_implemented("Exercise 8.1: launch one thread per element");'


@pytest.mark.skipif(shutil.which("c++") is None, reason="no C++ compiler")
def test_a_stub_inside_a_cuda_kernel_raises_not_implemented():
    # The emulator reports a kernel thread's exception as a RuntimeError naming the block and the
    # thread; the stub's text in that report makes it a NotImplementedError again.
    import aakaar as ak
    import aakaar.jit as jit
    cell = ("__global__ void k(float* x) {\n  // BEGIN SOLUTION 8.9: zero the element of this thread\n"
            "  x[blockIdx.x * 32 + threadIdx.x] = 0;\n  // END SOLUTION\n}\nvoid fill(const aakaar::Tensor& x) {\n"
            "  AAKAAR_LAUNCH(k, dim3(2), dim3(32), 0, x.data<float>());\n  AAKAAR_CHECK_LAUNCH();\n}\n"
            "void other_error(const aakaar::Tensor& x) { throw std::runtime_error(\"not a stub\"); }\n")
    stub, _ = stub_solutions("%%cuda fill\n" + cell, "cell")
    mod = jit.load_inline("kernel_stub", stub.split("\n", 1)[1], ["fill", "other_error"], cuda=True)
    with pytest.raises(NotImplementedError) as info:
        mod.fill(ak.ones(64))
    assert str(info.value) == "Exercise 8.9: zero the element of this thread"
    with pytest.raises(RuntimeError, match="^not a stub$"):  # other errors are left as they were
        mod.other_error(ak.ones(1))
    solved = jit.load_inline("kernel_solved", cell, ["fill"], cuda=True)
    x = ak.ones(64)
    solved.fill(x)
    assert x.sum().item() == 0
