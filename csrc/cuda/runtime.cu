// Device discovery and synchronisation through the CUDA runtime (linked statically),
// or through the emulator's stand-in for it (AAKAAR_CUDA_EMULATOR builds). On a
// machine without a GPU or driver every call reports "no device" instead of failing,
// so the same module imports and runs on the CPU everywhere.
#include <string>

#include "cuda/backend_cuda.h"
#include "cuda/emu/cuda_emu.h"

namespace aakaar::cuda {

int device_count() {
  int n = 0;
  if (cudaGetDeviceCount(&n) != cudaSuccess) {
    cudaGetLastError();  // clear the sticky "no driver"/"no device" error
    return 0;
  }
  return n;
}

std::string device_name(int index) {
  cudaDeviceProp prop;
  if (cudaGetDeviceProperties(&prop, index) != cudaSuccess) {
    cudaGetLastError();
    return "";
  }
  return prop.name;
}

int runtime_version() {
  int v = 0;
  cudaRuntimeGetVersion(&v);
  return v;
}

// Kernels run asynchronously on a GPU; this waits for all of them and reports the
// first error one of them hit (under the emulator every launch already finished).
void synchronize() { AAKAAR_CUDA_CHECK(cudaDeviceSynchronize()); }

bool is_emulated() { return AAKAAR_EMU != 0; }

// cudaMemcpy device to device: the bandwidth ceiling the elementwise and reduction
// kernels are measured against (benchmarks only).
void memcpy_device(void* dst, const void* src, size_t nbytes) {
  AAKAAR_CUDA_CHECK(cudaMemcpy(dst, src, nbytes, cudaMemcpyDeviceToDevice));
}

}  // namespace aakaar::cuda
