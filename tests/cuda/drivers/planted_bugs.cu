// Kernels with deliberate, common CUDA bugs. Each must make the emulator raise a clear
// error (or, for a missing barrier, produce results that validation rejects).
//
//   planted_bugs <bug>      prints "caught: <message>" and exits 0 when the bug was
//                           reported; exits 3 when it went unnoticed.
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "device_buffer.h"

// A barrier inside a branch that only some threads take.
__global__ void divergent_barrier_kernel(float* x) {
  if (threadIdx.x < 16) {
    x[threadIdx.x] *= 2.f;
    __syncthreads();
  }
}

// The classic early return for out-of-range threads, before a barrier.
__global__ void return_before_barrier_kernel(float* x, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  __shared__ float s[64];
  s[threadIdx.x] = x[i];
  __syncthreads();
  x[i] = s[(threadIdx.x + 1) % 64];
}

// Two different barriers in the two sides of a branch.
__global__ void different_barriers_kernel(float* x) {
  if (threadIdx.x % 2) {
    x[threadIdx.x] += 1.f;
    __syncthreads();
  } else {
    __syncthreads();
  }
}

// A warp shuffle that only half of the lanes named in the mask execute.
__global__ void warp_missing_lanes_kernel(float* x) {
  float v = x[threadIdx.x];
  if (threadIdx.x % 32 < 16) v += __shfl_down_sync(0xffffffffu, v, 1);
  __syncthreads();
  x[threadIdx.x] = v;
}

// A lane calling a shuffle with a mask that leaves it out.
__global__ void lane_not_in_mask_kernel(float* x) {
  x[threadIdx.x] = __shfl_sync(0x0000ffffu, x[threadIdx.x], 0);
}

// Writing one element past the end of dynamic shared memory (off by one).
__global__ void shared_overflow_kernel(float* x) {
  AAKAAR_DYNAMIC_SHARED(float, buf);
  buf[threadIdx.x + 1] = x[threadIdx.x];  // thread 255 writes buf[256]
  __syncthreads();
  x[threadIdx.x] = buf[threadIdx.x];
}

// Reversing an array through shared memory without the barrier between write and read.
__global__ void missing_barrier_kernel(const float* in, float* out) {
  __shared__ float s[128];
  s[threadIdx.x] = in[threadIdx.x];
  // __syncthreads();  <- the planted bug
  out[threadIdx.x] = s[127 - threadIdx.x];
}

int run(const std::string& bug) {
  DeviceBuffer<float> x(std::vector<float>(1024, 1.0f));
  if (bug == "divergent_barrier") {
    AAKAAR_LAUNCH(divergent_barrier_kernel, 1, 64, 0, x.ptr);
  } else if (bug == "return_before_barrier") {
    AAKAAR_LAUNCH(return_before_barrier_kernel, 2, 64, 0, x.ptr, 100);
  } else if (bug == "different_barriers") {
    AAKAAR_LAUNCH(different_barriers_kernel, 1, 64, 0, x.ptr);
  } else if (bug == "warp_missing_lanes") {
    AAKAAR_LAUNCH(warp_missing_lanes_kernel, 1, 64, 0, x.ptr);
  } else if (bug == "lane_not_in_mask") {
    AAKAAR_LAUNCH(lane_not_in_mask_kernel, 1, 32, 0, x.ptr);
  } else if (bug == "shared_overflow") {
    AAKAAR_LAUNCH(shared_overflow_kernel, 1, 256, 256 * sizeof(float), x.ptr);
  } else if (bug == "block_too_large") {
    AAKAAR_LAUNCH(divergent_barrier_kernel, 1, dim3(32, 33), 0, x.ptr);
  } else if (bug == "missing_barrier") {
    std::vector<float> in(128);
    for (int i = 0; i < 128; ++i) in[i] = static_cast<float>(i);
    DeviceBuffer<float> d_in(in), d_out(128);
    AAKAAR_LAUNCH(missing_barrier_kernel, 1, 128, 0, d_in.ptr, d_out.ptr);
    std::vector<float> out = d_out.download();
    int wrong = 0;
    for (int i = 0; i < 128; ++i) wrong += out[i] != in[127 - i];
    if (wrong) {
      std::printf("caught: validation found %d of 128 elements wrong (a missing __syncthreads()?)\n", wrong);
      return 0;
    }
  } else {
    std::fprintf(stderr, "unknown bug '%s'\n", bug.c_str());
    return 2;
  }
  std::printf("not caught: %s ran without an error\n", bug.c_str());
  return 3;
}

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: planted_bugs <bug>\n");
    return 2;
  }
  try {
    return run(argv[1]);
  } catch (const std::exception& e) {
    std::printf("caught: %s\n", e.what());
    return 0;
  }
}
