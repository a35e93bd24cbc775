"""%%cuda / load_inline(cuda=True): built with nvcc for the GPU, or for the CUDA emulator, and saying which.

The nvcc tests compile for the GPU whether or not one is present (compiling needs no GPU); they are
skipped where nvcc is missing (CI installs no CUDA toolkit). Running the GPU build is checked on a
machine with a GPU by tests/jit/gpu_check_jit.sh.
"""
from __future__ import annotations

import os
import pathlib
import shutil
import subprocess

import pytest

import aakaar as ak
import aakaar.jit as jit
from aakaar.jit import _target
from aakaar.jit._build import map_errors

pytestmark = pytest.mark.skipif(shutil.which("c++") is None, reason="no C++ compiler")


def _nvcc() -> str | None:
    try:
        return _target.nvcc_command()[0]
    except jit.CompilerNotFoundError:
        return None


needs_nvcc = pytest.mark.skipif(_nvcc() is None, reason="no nvcc (CUDA toolkit): the GPU build is not checked here")
real_gpu = ak.cuda.is_available() and not ak.cuda.is_emulated()
without_gpu = pytest.mark.skipif(real_gpu, reason="this machine runs aakaar on a GPU")

SOURCE = r"""
__global__ void scale_kernel(float* x, float a, int64_t n) {
  int64_t i = int64_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < n) x[i] *= a;
}

void scale_(const aakaar::Tensor& x, double a) {
  const int64_t n = x.numel();
  if (n == 0) return;
  AAKAAR_LAUNCH(scale_kernel, dim3(unsigned((n + 255) / 256)), dim3(256), 0, x.data<float>(), float(a), n);
  AAKAAR_CHECK_LAUNCH();
}

// An exercise's stub in device code: it must compile under nvcc too (GPU code cannot throw).
__device__ float todo(float v) {
  aakaar::jit::not_implemented("Exercise 0.1: not yet");
}

__global__ void todo_kernel(float* x) { x[threadIdx.x] = todo(x[threadIdx.x]); }

void todo_(const aakaar::Tensor& x) {
  AAKAAR_LAUNCH(todo_kernel, dim3(1), dim3(32), 0, x.data<float>());
  AAKAAR_CHECK_LAUNCH();
}
"""
FUNCTIONS = ["scale_", "todo_"]
BROKEN = "__global__ void k(float* x) {\n  x[threadIdx.x] = y;\n}\n"


@pytest.fixture
def gpu_here(monkeypatch):
    """aakaar as it is on a machine whose CUDA backend runs on a GPU (only the answers of aakaar.cuda)."""
    monkeypatch.setattr(ak.cuda, "is_built", lambda: True)
    monkeypatch.setattr(ak.cuda, "is_emulated", lambda: False)
    monkeypatch.setattr(ak.cuda, "is_available", lambda: True)
    monkeypatch.setattr(_target, "device_compute_capability", lambda index=0: None)
    monkeypatch.delenv("AAKAAR_JIT_CUDA_ARCH", raising=False)
    monkeypatch.delenv("AAKAAR_JIT_CUDA_TARGET", raising=False)


@pytest.fixture
def no_nvcc(monkeypatch, tmp_path):
    """No nvcc anywhere jit looks: an empty PATH, no CUDA_HOME, no AAKAAR_JIT_NVCC."""
    monkeypatch.setenv("PATH", str(tmp_path))
    for var in ("CUDA_HOME", "CUDA_PATH", "AAKAAR_JIT_NVCC"):
        monkeypatch.delenv(var, raising=False)


# ---- choosing the target (no compiling) ----------------------------------------

@without_gpu
def test_auto_takes_the_emulator_here_and_gives_the_reason(monkeypatch):
    monkeypatch.delenv("AAKAAR_JIT_CUDA_TARGET", raising=False)
    t = jit.cuda_target()
    assert (t.name, t.device, t.arch) == ("emulator", "cpu", None)
    assert t.reason == _target.gpu_unavailable_reason()
    assert "CUDA emulator" in t.describe() and t.reason in t.describe()


@without_gpu
def test_gpu_where_aakaar_has_no_gpu_is_a_clear_error(monkeypatch):
    monkeypatch.delenv("AAKAAR_JIT_CUDA_TARGET", raising=False)
    with pytest.raises(jit.TargetUnavailableError, match="target='gpu' is not possible here") as info:
        jit.load_inline("never_built", SOURCE, FUNCTIONS, cuda=True, target="gpu")
    assert _target.gpu_unavailable_reason() in str(info.value)


@needs_nvcc
def test_auto_takes_the_gpu_when_aakaar_runs_on_one(gpu_here):
    t = jit.cuda_target("auto")
    assert (t.name, t.device, t.arch) == ("gpu", "cuda", "sm_90")
    assert "default" in t.reason and "nvcc" in t.describe()
    assert jit.cuda_target("emulator").name == "emulator"


def test_without_nvcc_gpu_is_an_error_and_auto_says_why(gpu_here, no_nvcc):
    with pytest.raises(jit.TargetUnavailableError, match="needs nvcc"):
        jit.cuda_target("gpu")
    t = jit.cuda_target("auto")
    assert t.name == "emulator" and "nvcc" in t.reason


def test_a_missing_nvcc_named_by_the_environment(monkeypatch):
    monkeypatch.setenv("AAKAAR_JIT_NVCC", "/nonexistent/bin/nvcc")
    with pytest.raises(jit.CompilerNotFoundError, match="AAKAAR_JIT_NVCC"):
        jit.build("never_built", SOURCE, FUNCTIONS, cuda=True, target="gpu")


def test_the_environment_chooses_the_target(gpu_here, monkeypatch):
    monkeypatch.setenv("AAKAAR_JIT_CUDA_TARGET", "emulator")
    assert jit.cuda_target().name == "emulator"
    monkeypatch.setenv("AAKAAR_JIT_CUDA_TARGET", "tpu")
    with pytest.raises(ValueError, match="'auto', 'gpu', 'emulator'"):
        jit.cuda_target()


def test_bad_targets_and_options():
    with pytest.raises(ValueError, match="target must be"):
        jit.cuda_target("cuda")
    with pytest.raises(ValueError, match="for CUDA sources"):
        jit.build("never_built", "int f() { return 1; }", ["f"], target="gpu")


@pytest.mark.parametrize("given, arch", [("sm_90", "sm_90"), ("90", "sm_90"), ("9.0", "sm_90"), ("8.6", "sm_86"),
                                         ("sm_90a", "sm_90a"), ("compute_80", "compute_80")])
def test_architectures(given, arch):
    assert _target.normalise_arch(given) == arch


def test_the_architecture_comes_from_the_argument_the_environment_or_the_gpu(gpu_here, monkeypatch):
    assert _target.cuda_arch("8.0") == ("sm_80", "asked for")
    monkeypatch.setenv("AAKAAR_JIT_CUDA_ARCH", "89")
    assert _target.cuda_arch()[0] == "sm_89"
    monkeypatch.delenv("AAKAAR_JIT_CUDA_ARCH")
    monkeypatch.setattr(_target, "device_compute_capability", lambda index=0: (10, 0))
    assert _target.cuda_arch() == ("sm_100", "the GPU's compute capability")
    with pytest.raises(ValueError, match="not a CUDA architecture"):
        _target.cuda_arch("hopper")


def test_nvcc_errors_map_to_the_cells_lines():
    log = ('<cell k>(3): error: identifier "y" is undefined\n'
           "    x[threadIdx.x] = y;\n"
           "                     ^\n\n"
           '<cell k>(5): catastrophic error: cannot open source file "nope.h"\n'
           "<cell k>:7:3: error: from the host compiler\n"
           '<cell other>(2): error: not this cell\n')
    assert map_errors(log, "<cell k>") == [(3, 20, 'identifier "y" is undefined'),
                                           (5, 0, 'cannot open source file "nope.h"'),
                                           (7, 3, "from the host compiler")]


# ---- saying which target was used -------------------------------------------------

@without_gpu
def test_auto_says_once_that_it_used_the_emulator(monkeypatch, capsys):
    monkeypatch.delenv("AAKAAR_JIT_CUDA_TARGET", raising=False)
    monkeypatch.setattr(_target, "_announced", set())
    m = jit.load_inline("auto_scale", SOURCE, FUNCTIONS, cuda=True)
    assert m.__aakaar_jit_target__ == "emulator" and m.__aakaar_jit_arch__ is None
    assert m.__aakaar_jit_target_reason__ == _target.gpu_unavailable_reason()
    out = capsys.readouterr().out
    assert out.count("\n") == 1 and "auto_scale: built for the CUDA emulator" in out and m.__aakaar_jit_target_reason__ in out
    x = ak.ones(300)
    m.scale_(x, 2.0)
    assert x.sum().item() == 600.0
    with pytest.raises(NotImplementedError, match="^Exercise 0.1: not yet$"):  # the stub, from a kernel thread
        m.todo_(ak.ones(32))
    jit.load_inline("auto_scale", SOURCE, FUNCTIONS, cuda=True)
    jit.load_inline("auto_scale", SOURCE, FUNCTIONS, cuda=True, target="emulator")
    assert capsys.readouterr().out == ""  # once per process; an explicit target needs no notice


# ---- nvcc --------------------------------------------------------------------------

@needs_nvcc
def test_nvcc_builds_the_same_source_for_the_gpu():
    b = jit.build("gpu_scale", SOURCE, FUNCTIONS, cuda=True, target="gpu", cuda_arch="sm_90")
    assert (b.target, b.arch, b.cached) == ("gpu", "sm_90", False) and b.path.stat().st_size > 0
    assert b.path.suffix == ".so" and b.path.with_name(f"{b.module_name}.cu").exists()
    cuobjdump = shutil.which("cuobjdump") or os.path.join(os.environ.get("CUDA_HOME", "-"), "bin", "cuobjdump")
    if pathlib.Path(cuobjdump).is_file():  # the toolkit's own look inside the module: a cubin for sm_90
        listed = subprocess.run([cuobjdump, "--list-elf", str(b.path)], capture_output=True, text=True).stdout
        assert "sm_90" in listed
    # Cached by target and architecture: again is a cache hit, the emulator's is another module.
    again = jit.build("gpu_scale", SOURCE, FUNCTIONS, cuda=True, target="gpu", cuda_arch="9.0")
    assert again.cached and again.module_name == b.module_name
    other = jit.build("gpu_scale", SOURCE, FUNCTIONS, cuda=True, target="gpu", cuda_arch="sm_80")
    assert other.module_name != b.module_name and other.arch == "sm_80"

    # Importing needs no driver: the CUDA runtime is linked statically and starts on first use.
    m = jit.load(b)
    assert m.__aakaar_jit_target__ == "gpu" and m.__aakaar_jit_arch__ == "sm_90"
    if not real_gpu:
        # Without a GPU the launch fails, and says so as a RuntimeError (not a crash).
        with pytest.raises(RuntimeError, match="CUDA error"):
            m.scale_(ak.ones(4), 2.0)


@needs_nvcc
def test_nvcc_errors_are_reported_by_the_cells_lines():
    with pytest.raises(jit.CompileError) as info:
        jit.build("broken_kernel", BROKEN, ["k"], cuda=True, target="gpu", first_line=2,
                  cell_name="<cell broken_kernel>")
    assert [(line, col) for line, col, _ in info.value.errors] == [(3, 20)]
    assert "line 3:20" in str(info.value) and "x[threadIdx.x] = y;" in str(info.value)


@needs_nvcc
def test_the_compile_time_limit_stops_nvcc():
    with pytest.raises(jit.CompileTimeoutError, match="longer than 0.5 s"):
        jit.build("slow_kernel", SOURCE + "// slow\n", FUNCTIONS, cuda=True, target="gpu", timeout=0.5)


@without_gpu
def test_the_cuda_magic_chooses_and_says(monkeypatch, capsys):
    pytest.importorskip("IPython")
    from IPython.core.interactiveshell import InteractiveShell
    monkeypatch.delenv("AAKAAR_JIT_CUDA_TARGET", raising=False)
    monkeypatch.setattr(_target, "_announced", set())
    sh = InteractiveShell.instance()
    try:
        sh.run_line_magic("load_ext", "aakaar.jit")
        with pytest.raises(jit.TargetUnavailableError, match="not possible here"):
            sh.run_cell_magic("cuda", "auto_scale scale_ --target gpu", SOURCE)
        sh.run_cell_magic("cuda", "auto_scale scale_ todo_", SOURCE)
        assert "built for the CUDA emulator" in capsys.readouterr().out
        x = ak.ones(10)
        sh.user_ns["scale_"](x, 3.0)  # the emulator's build takes CPU tensors
        assert x.sum().item() == 30.0
    finally:
        InteractiveShell.clear_instance()
