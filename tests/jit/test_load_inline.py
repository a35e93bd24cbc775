"""load_inline: aakaar tensors in and out without copies, the library's headers, errors by the
source's line numbers, the cache, reloading, and the missing compiler."""
from __future__ import annotations

import os
import shutil
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import aakaar as ak
import aakaar.jit as jit
from aakaar.jit import _build

SOURCE = r"""
#include <cmath>

// In place, any float dtype (the library's dispatch), any strides, on the library's thread pool.
void scale_(const aakaar::Tensor& x, double a) {
  AK_CHECK(x.ndim() == 2, ValueError, "scale_: expected a 2-D tensor, got ", x.ndim(), "-D");
  AK_DISPATCH_FLOAT(x.dtype, "scale_", [&](auto tag) {
    using T = decltype(tag);
    T* p = x.data<T>();
    aakaar::parallel_for(0, x.shape[0], 1, [&](int64_t begin, int64_t end) {
      for (int64_t i = begin; i < end; ++i)
        for (int64_t j = 0; j < x.shape[1]; ++j) p[i * x.strides[0] + j * x.strides[1]] *= T(a);
    });
  });
}

// A new tensor from the library's allocator, filled with its vector math.
aakaar::TensorPtr sigmoid(const aakaar::TensorPtr& x) {
  AK_CHECK(x->dtype == aakaar::DType::Float32 && x->is_contiguous(), ValueError,
           "sigmoid: a contiguous float32 tensor, got ", aakaar::dtype_name(x->dtype));
  auto out = aakaar::Tensor::empty(x->shape, x->dtype);
  const float* src = x->data<float>();
  float* dst = out->data<float>();
  for (int64_t i = 0, n = x->numel(); i < n; ++i) dst[i] = aakaar::cpu::sigmoid_f32(src[i]);
  return out;
}

aakaar::TensorPtr same(aakaar::TensorPtr x) { return x; }

int todo() { throw aakaar::jit::NotImplementedError("Exercise 0.0: not yet"); }
"""
FUNCTIONS = ["scale_", "sigmoid", "same", "todo"]

pytestmark = pytest.mark.skipif(shutil.which("c++") is None, reason="no C++ compiler")


@pytest.fixture(scope="module")
def mod(jit_cache):
    os.environ["AAKAAR_JIT_CACHE"] = str(jit_cache)
    try:
        return jit.load_inline("tensors", SOURCE, FUNCTIONS)
    finally:
        del os.environ["AAKAAR_JIT_CACHE"]


def test_writes_in_place_without_a_copy_on_any_strides_and_dtype(mod):
    for dtype in (ak.float32, ak.float64):
        base = ak.arange(12.0, dtype=dtype).reshape(3, 4)
        views = [base, base.T, base[:, 1::2]]
        for v in views:
            before = v.numpy().copy()
            ptr = v.data_ptr()
            mod.scale_(v, 3.0)
            assert v.data_ptr() == ptr
            np.testing.assert_array_equal(v.numpy(), before * 3)
    # the library's dtype dispatch names the op and the dtype
    with pytest.raises(TypeError, match="scale_ supports float32 and float64, got int64"):
        mod.scale_(ak.zeros(2, 2, dtype=ak.int64), 2.0)
    with pytest.raises(ValueError, match="expected a 2-D tensor, got 1-D"):
        mod.scale_(ak.zeros(3), 2.0)


def test_returns_library_tensors_and_the_same_object(mod):
    x = ak.tensor([-3.0, 0.0, 0.5, 4.0])
    y = mod.sigmoid(x)
    assert isinstance(y, ak.Tensor) and y.shape == x.shape and y.dtype == ak.float32
    np.testing.assert_allclose(y.numpy(), ak.sigmoid(x).numpy(), rtol=1e-6)
    assert (y + 1).sum().item() == pytest.approx(float((ak.sigmoid(x) + 1).sum().item()), rel=1e-6)
    assert mod.same(x) is x  # the Python object itself: one pybind11 type shared with aakaar._C
    with pytest.raises(TypeError):
        mod.sigmoid(np.zeros(3, np.float32))  # not an aakaar tensor: pybind11's argument error


def test_a_stub_raises_not_implemented(mod):
    with pytest.raises(NotImplementedError, match="Exercise 0.0: not yet"):
        mod.todo()


def test_a_compile_error_names_the_source_line(tmp_path):
    src = "int f(int x) {\n  int y = x;\n  return y + undeclared;\n}\n"
    with pytest.raises(jit.CompileError) as info:
        jit.load_inline("broken", src, ["f"])
    e = info.value
    assert [line for line, _, _ in e.errors] == [3]
    assert "'undeclared' was not declared" in e.errors[0][2]
    assert "line 3:" in str(e) and "return y + undeclared;" in str(e)
    assert isinstance(e, RuntimeError) and "error" in e.log


def test_the_cache_compiles_nothing_the_second_time(mod, tmp_path):
    """A fresh process loads the same source from the cache: the compiler is never run (it is made
    to fail) and the cached file is not rewritten."""
    cache = os.path.dirname(mod.__file__)
    so = mod.__file__
    mtime = os.stat(so).st_mtime_ns
    (tmp_path / "source.cpp").write_text(SOURCE)
    script = textwrap.dedent(f"""
        import aakaar as ak, aakaar.jit as jit
        from aakaar.jit import _build
        def no_compiler(*a, **k):
            raise AssertionError("the compiler ran")
        _build._run_compiler = no_compiler
        source = open({str(tmp_path / "source.cpp")!r}).read()
        m = jit.load_inline("tensors", source, {FUNCTIONS!r})
        x = ak.ones(2, 2); m.scale_(x, 5.0)
        print(m.__aakaar_jit_cached__, m.__file__ == {so!r}, x.sum().item())
    """)
    r = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=300,
                       env={**os.environ, "AAKAAR_JIT_CACHE": cache})
    assert r.returncode == 0, r.stderr[-3000:]
    assert r.stdout.split() == ["True", "True", "20.0"]
    assert os.stat(so).st_mtime_ns == mtime
    # in the same process a second load is the module already loaded
    assert jit.load_inline("tensors", SOURCE, FUNCTIONS) is mod


def test_a_changed_name_loads_as_a_fresh_module(tmp_path):
    one = jit.load_inline("versioned", "int version() { return 1; }", ["version"])
    two = jit.load_inline("versioned", "int version() { return 2; }", ["version"])
    assert one.__name__ != two.__name__ and one.__name__.startswith("aakaar_jit_versioned_")
    assert one.__aakaar_jit_cached__ is False and two.__aakaar_jit_cached__ is False
    assert (one.version(), two.version()) == (1, 2)  # the old version keeps working


def test_without_a_compiler_it_says_so(tmp_path):
    with pytest.raises(jit.CompilerNotFoundError, match="needs a C\\+\\+17 compiler.*'no-such-cxx' was not found"):
        jit.load_inline("nocompiler", "int f() { return 1; }", ["f"], compiler="no-such-cxx")
    os.environ["AAKAAR_JIT_CXX"] = "/nonexistent/g++"
    try:
        with pytest.raises(jit.CompilerNotFoundError, match="/nonexistent/g\\+\\+"):
            jit.load_inline("nocompiler", "int f() { return 1; }", ["f"])
    finally:
        del os.environ["AAKAAR_JIT_CXX"]


def test_bad_names_and_the_time_limit():
    with pytest.raises(ValueError, match="must be a Python identifier"):
        jit.load_inline("not a name", "int f() { return 1; }", ["f"])
    with pytest.raises(ValueError, match="not a C\\+\\+ function name"):
        jit.load_inline("ok", "int f() { return 1; }", ["f(1)"])
    with pytest.raises(jit.CompileTimeoutError, match="took longer than 0.01 s"):
        jit.load_inline("slow", "int f() { return 1; }", ["f"], timeout=0.01)


def test_compiles_with_the_library_flags():
    cmd = _build.compile_command(["c++"], _build.PRELUDE, _build.PRELUDE, _build.source_dir(),
                                 _build._library_module(), [], [])
    assert "-std=c++17" in cmd and "-O3" in cmd and "-fPIC" in cmd
    assert not any("march" in c for c in cmd)
    assert any(c.endswith("csrc") for c in cmd if c.startswith("-I"))


def test_a_missing_source_tree_is_a_clear_error(tmp_path, monkeypatch):
    monkeypatch.setenv("AAKAAR_CSRC", str(tmp_path))
    with pytest.raises(jit.SourceTreeNotFoundError, match="source tree.*pip install -e"):
        jit.load_inline("nosrc", "int f() { return 1; }", ["f"])


def test_a_function_the_library_does_not_define_is_named():
    src = "namespace aakaar { int not_in_the_library(int); }\nint f() { return aakaar::not_in_the_library(1); }\n"
    with pytest.raises(jit.JitError, match="calls aakaar::not_in_the_library\\(int\\), which the loaded aakaar._C "
                                           "does not export"):
        jit.load_inline("undefined", src, ["f"])
