// What a CUDA cell (%%cuda, load_inline(cuda=True)) sees after prelude.h: the
// header that compiles both ways (cuda/emu/cuda_emu.h: the CUDA emulator under
// the host compiler, cuda_runtime.h under nvcc), and the stub of a CUDA
// exercise, aakaar::jit::not_implemented("Exercise N.M: ..."), which may sit in
// host code, in a kernel or in a __device__ function.
//
// On the host and on the emulator the stub throws NotImplementedError (a
// kernel thread's exception reaches Python through the emulator's report). GPU
// code cannot throw, so there the first thread to reach a stub records its text
// and every thread that reaches one ends (PTX `exit`: no trap, which would
// leave the process's CUDA context unusable); the next AAKAAR_CHECK_LAUNCH()
// on the host waits for the kernel, finds the text and throws the same
// NotImplementedError.
#pragma once
#include "cuda/emu/cuda_emu.h"

namespace aakaar::jit {

#if defined(__CUDACC__)
inline constexpr int kDeviceStubChars = 512;
__device__ int device_stub_hit = 0;
__device__ char device_stub_text[kDeviceStubChars];

[[noreturn]] __host__ __device__ inline void not_implemented(const char* what) {
#ifdef __CUDA_ARCH__
  if (atomicCAS(&device_stub_hit, 0, 1) == 0) {
    int i = 0;
    for (; i < kDeviceStubChars - 1 && what[i]; ++i) device_stub_text[i] = what[i];
    device_stub_text[i] = '\0';
    __threadfence();
    atomicExch(&device_stub_hit, 2);  // the text is complete
  }
  asm volatile("exit;");
  __builtin_unreachable();
#else
  throw NotImplementedError(what);
#endif
}

// After a launch: a stub reached in a kernel becomes the host's NotImplementedError.
inline void raise_device_stub() {
  int hit = 0;
  AAKAAR_CUDA_CHECK(cudaMemcpyFromSymbol(&hit, device_stub_hit, sizeof hit));  // waits for the kernel
  if (hit == 0) return;
  char text[kDeviceStubChars] = {};
  AAKAAR_CUDA_CHECK(cudaMemcpyFromSymbol(text, device_stub_text, sizeof text));
  const int zero = 0;
  AAKAAR_CUDA_CHECK(cudaMemcpyToSymbol(device_stub_hit, &zero, sizeof zero));
  throw NotImplementedError(text);
}

#undef AAKAAR_CHECK_LAUNCH
#define AAKAAR_CHECK_LAUNCH()                         \
  do {                                                \
    AAKAAR_CUDA_CHECK(cudaGetLastError());            \
    ::aakaar::jit::raise_device_stub();               \
  } while (0)
#else
[[noreturn]] inline void not_implemented(const char* what) { throw NotImplementedError(what); }
#endif

}  // namespace aakaar::jit
