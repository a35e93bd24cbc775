// Test-driver helpers shared by the check and bench programs: an RAII device buffer and
// random fills. Compiles under nvcc (-x cu) and under the emulator (g++ -x c++).
#pragma once
#include <cstdint>
#include <random>
#include <type_traits>
#include <vector>

#include "cuda/emu/cuda_emu.h"

template <typename T>
struct DeviceBuffer {
  T* ptr = nullptr;
  size_t n = 0;
  explicit DeviceBuffer(size_t count) : n(count) { AAKAAR_CUDA_CHECK(cudaMalloc(&ptr, count * sizeof(T))); }
  explicit DeviceBuffer(const std::vector<T>& host) : DeviceBuffer(host.size()) { upload(host); }
  ~DeviceBuffer() { cudaFree(ptr); }
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
  void upload(const std::vector<T>& host) {
    AAKAAR_CUDA_CHECK(cudaMemcpy(ptr, host.data(), n * sizeof(T), cudaMemcpyHostToDevice));
  }
  std::vector<T> download() const {
    std::vector<T> host(n);
    AAKAAR_CUDA_CHECK(cudaMemcpy(host.data(), ptr, n * sizeof(T), cudaMemcpyDeviceToHost));
    return host;
  }
};

template <typename T>
std::vector<T> random_vector(size_t n, std::mt19937_64& rng) {
  std::vector<T> v(n);
  if constexpr (std::is_floating_point<T>::value) {
    std::uniform_real_distribution<double> d(-1.0, 1.0);
    for (T& x : v) x = static_cast<T>(d(rng));
  } else {
    std::uniform_int_distribution<int64_t> d(-1000000, 1000000);
    for (T& x : v) x = static_cast<T>(d(rng));
  }
  return v;
}
