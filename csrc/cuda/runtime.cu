// Device discovery through the CUDA runtime (linked statically). On a
// machine without a GPU or driver every call reports "no device" instead of
// failing, so the same module imports and runs on the CPU everywhere.
#include <cuda_runtime.h>

#include <string>

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

}  // namespace aakaar::cuda
