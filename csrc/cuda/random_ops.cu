// Philox random numbers on the device, element for element the CPU's stream: element i
// of a tensor comes from Philox block offset + i / per_block, word i % per_block, where
// a block gives 4 float32 values or 2 float64 values (random_uniform in
// cpu/backend_cpu.cpp). One thread per Philox block; the counter-based generator needs
// no state, so threads never wait on each other.
#include <cmath>
#include <type_traits>

#include "core/philox.h"
#include "cuda/backend_cuda.h"
#include "cuda/device_math.cuh"
#include "cuda/map_kernel.cuh"

namespace aakaar::cuda {
namespace {

constexpr int kThreads = 256;

template <typename T>
__global__ void random_kernel(T* out, int64_t n, uint64_t seed, uint64_t offset, double a, double b, bool normal) {
  constexpr int64_t per_block = std::is_same_v<T, float> ? 4 : 2;
  const int64_t blocks = (n + per_block - 1) / per_block;
  const int64_t grid_stride = static_cast<int64_t>(blockDim.x) * gridDim.x;
  for (int64_t blk = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; blk < blocks; blk += grid_stride) {
    const auto r = philox4x32(offset + blk, seed);
    double u[4];
    if constexpr (std::is_same_v<T, float>) {
      for (int k = 0; k < 4; ++k) u[k] = uniform_float(r[k]);
    } else {
      u[0] = uniform_double(r[0], r[1]);
      u[1] = uniform_double(r[2], r[3]);
    }
    const int64_t i0 = blk * per_block;
    if (!normal) {  // uniform in [a, b)
      for (int64_t k = 0; k < per_block && i0 + k < n; ++k) out[i0 + k] = static_cast<T>(a + (b - a) * u[k]);
    } else {  // Box-Muller: each pair of uniforms gives two normals (mean a, std b)
      for (int64_t k = 0; k < per_block; k += 2) {
        const double radius = sqrt(-2.0 * log(1.0 - u[k]));  // 1 - u is in (0, 1]
        const double theta = 2.0 * M_PI * u[k + 1];
        if (i0 + k < n) out[i0 + k] = static_cast<T>(a + b * radius * cos(theta));
        if (i0 + k + 1 < n) out[i0 + k + 1] = static_cast<T>(a + b * radius * sin(theta));
      }
    }
  }
}

void launch_random(const Tensor& out, uint64_t seed, uint64_t offset, double a, double b, bool normal) {
  const int64_t n = out.numel();
  AK_CHECK(out.is_contiguous(), RuntimeError, "random numbers are written into contiguous tensors only");
  if (n == 0) return;
  AK_DISPATCH_FLOAT(out.dtype, normal ? "randn" : "rand", [&](auto tag) {
    using T = decltype(tag);
    constexpr int64_t per_block = std::is_same_v<T, float> ? 4 : 2;
    const int blocks = grid_stride_blocks((n + per_block - 1) / per_block, kThreads, 8);
    AAKAAR_LAUNCH((random_kernel<T>), blocks, kThreads, 0, out.data<T>(), n, seed, offset, a, b, normal);
    AAKAAR_CHECK_LAUNCH();
  });
}

}  // namespace

void random_uniform(const Tensor& out, uint64_t seed, uint64_t offset, double low, double high) {
  launch_random(out, seed, offset, low, high, false);
}
void random_normal(const Tensor& out, uint64_t seed, uint64_t offset, double mean, double std) {
  launch_random(out, seed, offset, mean, std, true);
}

}  // namespace aakaar::cuda
