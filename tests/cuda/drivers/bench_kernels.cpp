// Times the kernel ladders: median of several runs, after one warm-up run. On the
// emulator the numbers say how long the CUDA test suite takes, not how fast a GPU is;
// compiled with nvcc -x cu they are GPU timings (cudaEvent based in both cases).
//
//   bench_kernels [--reps R] [--gemm N] [--n N]     (defaults: 5 reps, N=128, n=1000000)
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <stdexcept>
#include <vector>

#include "ladders/cuda/elementwise.h"
#include "ladders/cuda/gemm.h"
#include "ladders/cuda/reduce.h"
#include "device_buffer.h"

namespace ak = aakaar::cuda;

static double median_ms(int reps, const std::function<void()>& fn) {
  fn();  // warm-up: first-touch of memory, worker threads, fiber stacks
  cudaEvent_t start, stop;
  AAKAAR_CUDA_CHECK(cudaEventCreate(&start));
  AAKAAR_CUDA_CHECK(cudaEventCreate(&stop));
  std::vector<float> ms(reps);
  for (float& t : ms) {
    AAKAAR_CUDA_CHECK(cudaEventRecord(start));
    fn();
    AAKAAR_CUDA_CHECK(cudaEventRecord(stop));
    AAKAAR_CUDA_CHECK(cudaEventSynchronize(stop));
    AAKAAR_CUDA_CHECK(cudaEventElapsedTime(&t, start, stop));
  }
  cudaEventDestroy(start);
  cudaEventDestroy(stop);
  std::sort(ms.begin(), ms.end());
  return ms[reps / 2];
}

static int bench(int argc, char** argv) {
  int reps = 5;
  int64_t g = 128, n = 1000000;
  for (int i = 1; i + 1 < argc; i += 2) {
    if (!std::strcmp(argv[i], "--reps")) reps = std::max(1, std::atoi(argv[i + 1]));
    else if (!std::strcmp(argv[i], "--gemm")) g = std::atoll(argv[i + 1]);
    else if (!std::strcmp(argv[i], "--n")) n = std::atoll(argv[i + 1]);
  }
#if AAKAAR_EMU
  std::printf("backend: CUDA emulator, %d OS thread(s)\n", aakaar_emu::get_num_threads());
#else
  std::printf("backend: GPU\n");
#endif
  std::mt19937_64 rng(7);
  DeviceBuffer<float> A(random_vector<float>(g * g, rng)), B(random_vector<float>(g * g, rng)), C(g * g);
  const char* names[] = {"", "naive", "coalesced", "shared tiles", "1-D block tiling", "2-D block tiling",
                         "vectorised loads", "double buffered"};
  for (int v = 1; v <= ak::kGemmVersions; ++v) {
    const double ms = median_ms(reps, [&] {
      ak::gemm<float>(static_cast<ak::GemmVersion>(v), g, g, g, 1.f, A.ptr, g, 1, B.ptr, g, 1, 0.f, C.ptr, g, 1);
    });
    std::printf("sgemm %lld^3 v%d %-17s %9.3f ms  %8.2f GFLOP/s\n", static_cast<long long>(g), v, names[v], ms,
                2.0 * g * g * g / (ms * 1e6));
  }
  DeviceBuffer<float> x(random_vector<float>(n, rng)), y(random_vector<float>(n, rng)), out(n), s(1);
  const int64_t one = 1;
  for (int v = 1; v <= 2; ++v) {
    const double ms = median_ms(reps, [&] { ak::sum_all<float>(1, &n, x.ptr, &one, s.ptr, static_cast<ak::SumVersion>(v)); });
    std::printf("sum %lld floats v%d %-12s %9.3f ms  %8.2f GB/s\n", static_cast<long long>(n), v,
                v == 1 ? "shared tree" : "warp shuffle", ms, n * 4.0 / (ms * 1e6));
  }
  const double ms = median_ms(reps, [&] { ak::ewise_add<float>(1, &n, out.ptr, &one, x.ptr, &one, y.ptr, &one); });
  std::printf("add %lld floats contiguous    %9.3f ms  %8.2f GB/s\n", static_cast<long long>(n), ms, n * 12.0 / (ms * 1e6));
  return 0;
}

int main(int argc, char** argv) {
  try {
    return bench(argc, argv);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "bench_kernels: %s\n", e.what());
    return 1;
  }
}
