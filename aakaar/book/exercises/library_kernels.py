"""The library's own CUDA kernels (and its caching allocator), for the speed checks of the ``%%cuda``
exercises, compiled for the target the cells are built for (:func:`aakaar.jit.cuda_target`: the GPU
where aakaar runs on one, else the CUDA emulator): a learner's code and the library's run on the same
target in the same process, so their ratio compares code, not machines. Their kernels read tensors on
``cuda_target().device``; ``allocator_replay`` is host code and reads a CPU tensor.

Each source includes one of the ladder's ``.cu`` files (csrc/ladders/cuda: the kernels the
chapters explain, whose top rungs are the backend's) and binds a host function over aakaar
tensors. They are compiled by :func:`aakaar.jit.load_inline` (cached like a cell) on first use.
"""
from __future__ import annotations

import functools
from types import ModuleType

_SOURCES = {
    # The GEMM ladder; `version` picks the rung (3: shared-memory tiles, 7: the backend's kernel).
    "gemm": r'''
#include "ladders/cuda/gemm.cu"
void gemm(const aakaar::Tensor& A, const aakaar::Tensor& B, const aakaar::Tensor& C, int version) {
  aakaar::cuda::gemm<float>(static_cast<aakaar::cuda::GemmVersion>(version), A.shape[0], B.shape[1], A.shape[1],
                            1.0f, A.data<float>(), A.strides[0], A.strides[1], B.data<float>(), B.strides[0],
                            B.strides[1], 0.0f, C.data<float>(), C.strides[0], C.strides[1]);
}''',
    # The reduction ladder's warp-shuffle rung: the sum of every element into out[0].
    "sum": r'''
#include "ladders/cuda/reduce.cu"
void sum(const aakaar::Tensor& x, const aakaar::Tensor& out) {
  aakaar::cuda::sum_all<float>(int(x.ndim()), x.shape.data(), x.data<float>(), x.strides.data(),
                               out.data<float>(), aakaar::cuda::SumVersion::WarpShuffle);
}''',
    # The library's first CUDA kernel, the strided elementwise add: out = x + 0 over any views of
    # one shape, which makes it a strided copy (out = x.T reads x with a stride: a transpose).
    "strided_copy": r'''
#include <map>
#include <utility>
#include "ladders/cuda/elementwise.cu"
// The zero lives on out's device, since the kernel reads it there (a host variable's address is an illegal
// address on a GPU): one per device, made on first use and never freed (a static freed at exit could
// outlive CUDA).
const float* zero_on(const aakaar::Device& device) {
  static auto* zeros = new std::map<std::pair<int, int>, aakaar::TensorPtr>();
  aakaar::TensorPtr& z = (*zeros)[{int(device.type), device.index}];
  if (!z) {
    z = aakaar::Tensor::empty({1}, aakaar::DType::Float32, device);
    const float zero = 0.0f;
    AAKAAR_CUDA_CHECK(cudaMemcpy(z->data<float>(), &zero, sizeof zero, cudaMemcpyHostToDevice));
  }
  return z->data<float>();
}
void strided_copy(const aakaar::Tensor& x, const aakaar::Tensor& out) {
  const std::vector<int64_t> none(out.ndim(), 0);  // the zero, broadcast: stride 0 everywhere
  aakaar::cuda::ewise_add<float>(int(out.ndim()), out.shape.data(), out.data<float>(), out.strides.data(),
                                 x.data<float>(), x.strides.data(), zero_on(out.device()), none.data());
}''',
    # The same kernel over any three views of one shape: out = a + b (b.expand(...) broadcasts it, stride 0).
    "add": r'''
#include "ladders/cuda/elementwise.cu"
void add(const aakaar::Tensor& a, const aakaar::Tensor& b, const aakaar::Tensor& out) {
  aakaar::cuda::ewise_add<float>(int(out.ndim()), out.shape.data(), out.data<float>(), out.strides.data(),
                                 a.data<float>(), a.strides.data(), b.data<float>(), b.strides.data());
}''',
    # The caching allocator (csrc/cuda/allocator.cu) replaying an allocation trace: rows (slot, nbytes), nbytes -1
    # freeing the slot's block; then its cache goes back to CUDA. Returns the cudaMalloc calls it made.
    "allocator_replay": r'''
#include <vector>
#include "cuda/allocator.cu"
int64_t allocator_replay(const aakaar::Tensor& trace, int64_t slots) {
  const int64_t before = aakaar::cuda::memory_stats().num_device_mallocs;
  const int64_t* events = trace.data<int64_t>();
  std::vector<void*> slot(slots, nullptr);
  for (int64_t k = 0; k < trace.shape[0]; ++k) {
    const int64_t s = events[2 * k], nbytes = events[2 * k + 1];
    if (nbytes >= 0) slot[s] = aakaar::cuda::raw_alloc(size_t(nbytes));
    else aakaar::cuda::raw_free(slot[s]);
  }
  aakaar::cuda::empty_cache();
  return aakaar::cuda::memory_stats().num_device_mallocs - before;
}''',
}


@functools.lru_cache(maxsize=None)
def library_cuda(name: str) -> ModuleType:
    """The compiled module ``name`` ("gemm", "sum", "strided_copy", "add", "allocator_replay"); its function has
    the same name."""
    from aakaar.jit import load_inline
    if name not in _SOURCES:
        raise ValueError(f"no library kernel {name!r}; there are {sorted(_SOURCES)}")
    return load_inline(f"library_{name}", _SOURCES[name], [name], cuda=True)
