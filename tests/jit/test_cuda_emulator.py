"""%%cuda / load_inline(cuda=True) without a GPU: the cell's kernels run on the CUDA emulator, over
aakaar tensors' memory, and the emulator's checks reach Python as RuntimeError, not a crash."""
from __future__ import annotations

import shutil

import numpy as np
import pytest

import aakaar as ak
import aakaar.jit as jit

pytestmark = pytest.mark.skipif(shutil.which("c++") is None, reason="no C++ compiler")

SOURCE = r"""
// One thread per element; a block sums its slice in shared memory (a barrier per step).
__global__ void scale_kernel(float* x, float a, int64_t n) {
  int64_t i = int64_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < n) x[i] *= a;
}

__global__ void block_sums(const float* x, float* out, int64_t n) {
  __shared__ float buf[256];
  int64_t i = int64_t(blockIdx.x) * blockDim.x + threadIdx.x;
  buf[threadIdx.x] = i < n ? x[i] : 0.0f;
  __syncthreads();
  for (unsigned s = blockDim.x / 2; s > 0; s /= 2) {
    if (threadIdx.x < s) buf[threadIdx.x] += buf[threadIdx.x + s];
    __syncthreads();
  }
  if (threadIdx.x == 0) out[blockIdx.x] = buf[0];
}

__global__ void bad_barrier(float* x) {
  if (threadIdx.x < 16) __syncthreads();  // not every thread of the block gets here
  x[threadIdx.x] = 1.0f;
}

void scale_(const aakaar::Tensor& x, double a, int threads) {
  AK_CHECK(x.is_contiguous() && x.dtype == aakaar::DType::Float32, ValueError, "scale_: contiguous float32");
  const int64_t n = x.numel();
  AAKAAR_LAUNCH(scale_kernel, dim3(unsigned((n + threads - 1) / threads)), dim3(unsigned(threads)), 0,
                x.data<float>(), float(a), n);
  AAKAAR_CHECK_LAUNCH();
}

aakaar::TensorPtr sums(const aakaar::Tensor& x) {
  const int64_t n = x.numel(), blocks = (n + 255) / 256;
  auto out = aakaar::Tensor::empty({blocks}, aakaar::DType::Float32, x.device());  // on the GPU under nvcc
  AAKAAR_LAUNCH(block_sums, dim3(unsigned(blocks)), dim3(256), 0, x.data<float>(), out->data<float>(), n);
  AAKAAR_CHECK_LAUNCH();
  return out;
}

void divergent(const aakaar::Tensor& x) {
  AAKAAR_LAUNCH(bad_barrier, dim3(1), dim3(32), 0, x.data<float>());
  AAKAAR_CHECK_LAUNCH();
}
"""


@pytest.fixture(scope="module")
def mod(jit_cache):
    import os
    os.environ["AAKAAR_JIT_CACHE"] = str(jit_cache)
    try:
        return jit.load_inline("emu_kernels", SOURCE, ["scale_", "sums", "divergent"], cuda=True)
    finally:
        del os.environ["AAKAAR_JIT_CACHE"]


def test_kernels_run_on_the_emulator_over_the_tensors_memory(mod):
    x = ak.arange(1000.0)
    ptr = x.data_ptr()
    mod.scale_(x, 0.5, 128)
    assert x.data_ptr() == ptr
    np.testing.assert_array_equal(x.numpy(), np.arange(1000.0, dtype=np.float32) * 0.5)
    s = mod.sums(ak.ones(1000))
    np.testing.assert_array_equal(s.numpy(), [256, 256, 256, 232])


def test_the_emulators_checks_are_python_errors(mod):
    with pytest.raises(RuntimeError, match="1024"):
        mod.scale_(ak.zeros(4096), 1.0, 2048)  # more threads per block than CUDA allows
    with pytest.raises(RuntimeError, match="__syncthreads"):
        mod.divergent(ak.zeros(32))
    x = ak.ones(64)
    mod.scale_(x, 3.0, 64)  # the emulator is still usable after an error
    assert x.sum().item() == 192.0


def test_the_cuda_magic(jit_cache):
    pytest.importorskip("IPython")
    from IPython.core.interactiveshell import InteractiveShell
    sh = InteractiveShell.instance()
    try:
        sh.run_line_magic("load_ext", "aakaar.jit")
        sh.run_cell_magic("cuda", "emu_kernels scale_ sums divergent", SOURCE)
        x = ak.ones(10)
        sh.user_ns["scale_"](x, 2.0, 32)
        assert x.sum().item() == 20.0
        with pytest.raises(jit.CompileError) as info:
            sh.run_cell_magic("cuda", "broken_kernel", "__global__ void k(float* x) {\n  x[threadIdx.x] = y;\n}\n")
        assert [line for line, _, _ in info.value.errors] == [3]
    finally:
        InteractiveShell.clear_instance()
