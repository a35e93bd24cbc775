// The one header a .cu file includes so that it compiles with BOTH nvcc (real GPU) and
// the host compiler (the CUDA emulator, `g++ -x c++`, linked with emu_runtime.cpp and
// fiber.cpp). Kernel code is written in plain CUDA, with two portable spellings:
//
//   AAKAAR_LAUNCH(kernel, grid, block, smem_bytes, args...)   instead of kernel<<<...>>>
//   AAKAAR_DYNAMIC_SHARED(T, name);                            instead of extern __shared__
//
// Template kernels go in parentheses: AAKAAR_LAUNCH((add<float>), g, b, 0, ...).
// After a launch, AAKAAR_CHECK_LAUNCH() turns a failed launch into a C++ exception in
// both modes (the emulator throws from the launch itself).
#pragma once
#include <stdexcept>
#include <string>

// [[book:emu_two_modes]]
#ifdef __CUDACC__

#include <cuda_runtime.h>
#define AAKAAR_EMU 0
#define AAKAAR_LAUNCH(kernel, grid, block, smem, ...) kernel<<<grid, block, smem>>>(__VA_ARGS__)
#define AAKAAR_DYNAMIC_SHARED(T, name)                           \
  extern __shared__ __align__(16) unsigned char name##_bytes_[]; \
  T* name = reinterpret_cast<T*>(name##_bytes_)

#else

#define AAKAAR_EMU 1
#include "emu_device.h"
#include "emu_host_api.h"
#include "emu_launch.h"

#endif
// [[/book:emu_two_modes]]

namespace aakaar_cuda_detail {
[[noreturn]] inline void fail(cudaError_t e, const char* what, const char* file, int line) {
  throw std::runtime_error(std::string("CUDA error: ") + what + " failed with '" +
                           cudaGetErrorString(e) + "' at " + file + ":" + std::to_string(line));
}
}  // namespace aakaar_cuda_detail

#define AAKAAR_CUDA_CHECK(expr)                                                         \
  do {                                                                                  \
    cudaError_t aakaar_err_ = (expr);                                                   \
    if (aakaar_err_ != cudaSuccess)                                                     \
      ::aakaar_cuda_detail::fail(aakaar_err_, #expr, __FILE__, __LINE__);               \
  } while (0)
#define AAKAAR_CHECK_LAUNCH() AAKAAR_CUDA_CHECK(cudaGetLastError())
