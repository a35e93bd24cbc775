"""The %%cpp cell magic in a real IPython shell: it binds the cell's functions, and a compile error
names the cell's own line (the %%cpp line is line 1)."""
from __future__ import annotations

import shutil

import numpy as np
import pytest

pytestmark = pytest.mark.skipif(shutil.which("c++") is None, reason="no C++ compiler")
IPython = pytest.importorskip("IPython")

import aakaar as ak  # noqa: E402
import aakaar.jit as jit  # noqa: E402


@pytest.fixture(scope="module")
def shell():
    from IPython.core.interactiveshell import InteractiveShell
    sh = InteractiveShell.instance()
    sh.run_line_magic("load_ext", "aakaar.jit")
    yield sh
    InteractiveShell.clear_instance()


RELU = """\
void relu_(const aakaar::Tensor& x) {
  AK_DISPATCH_FLOAT(x.dtype, "relu_", [&](auto tag) {
    using T = decltype(tag);
    T* p = x.data<T>();
    for (int64_t i = 0; i < x.shape[0]; ++i)
      for (int64_t j = 0; j < x.shape[1]; ++j) {
        T& v = p[i * x.strides[0] + j * x.strides[1]];
        v = v > T(0) ? v : T(0);
      }
  });
}
int twice(int k) { return 2 * k; }
"""


def test_the_magic_binds_the_cells_functions(shell):
    shell.run_cell_magic("cpp", "relu_ relu_ twice", RELU)
    relu_, twice = shell.user_ns["relu_"], shell.user_ns["twice"]
    assert twice(21) == 42
    x = ak.tensor([[-1.0, 2.0, -3.0], [4.0, -5.0, 6.0]], dtype=ak.float64)
    ptr = x.data_ptr()
    relu_(x.T)  # strided, in place, without a copy
    assert x.data_ptr() == ptr
    np.testing.assert_array_equal(x.numpy(), [[0, 2, 0], [4, 0, 6]])
    # The same cell again: the cache, no second module.
    shell.run_cell_magic("cpp", "relu_ relu_ twice", RELU)
    assert shell.user_ns["relu_"] is not None and shell.user_ns["twice"](1) == 2


def test_a_compile_error_is_reported_by_the_cells_line(shell):
    cell = "int f(int k) {\n  return k;\n}\nint g() { return f(1) + missing; }\n"
    with pytest.raises(jit.CompileError) as info:
        shell.run_cell_magic("cpp", "g", cell)
    # the cell as Jupyter numbers it: line 1 is "%%cpp g", so `missing` is on line 5
    assert [line for line, _, _ in info.value.errors] == [5]
    assert "line 5:" in str(info.value) and "int g() { return f(1) + missing; }" in str(info.value)


def test_a_name_that_is_not_an_identifier(shell):
    from IPython.core.error import UsageError
    with pytest.raises(UsageError, match="must be a Python identifier"):
        shell.run_cell_magic("cpp", "2bad", "int f() { return 1; }")


CRASHY = """\
#include <csignal>
void crash(int how) {
  if (how == 1) std::raise(SIGSEGV);            // what a wild pointer does
  if (how == 2) { volatile bool forever = true; while (forever) {} }  // an endless loop
}
"""


def test_a_crash_in_the_cell_is_an_error_not_a_dead_kernel(shell):
    shell.run_cell_magic("cpp", "crash", CRASHY)
    crash = shell.user_ns["crash"]
    with pytest.raises(jit.CrashError, match="crash\\(...\\) crashed with SIGSEGV.*the notebook is unharmed"):
        crash(1)
    crash(0)  # still alive, and a harmless call goes through


def test_an_endless_loop_can_be_interrupted(shell):
    import os
    import signal
    import threading
    shell.run_cell_magic("cpp", "crash", CRASHY)
    timer = threading.Timer(1.0, os.kill, (os.getpid(), signal.SIGINT))
    timer.start()
    try:
        with pytest.raises(KeyboardInterrupt):
            shell.user_ns["crash"](2)
    finally:
        timer.cancel()
