// The program chapters 7-9 run: the library's real CUDA kernels (csrc/ladders/cuda),
// compiled by the host compiler against the CUDA emulator (or by nvcc for a GPU), each
// checked against a plain CPU reference. Prints one JSON object on stdout.
//
//   book_kernels whoami GRID BLOCK        which thread each launch index lands on
//   book_kernels add N                    ewise_add, contiguous and transposed, vs reference
//   book_kernels sum N REPS               the reduction ladder: value, error, median time
//   book_kernels gemm M N K REPS          the GEMM ladder: error, median time, GFLOP/s
//   book_kernels barrier_bug              a __syncthreads() in divergent code: the error
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include "cuda/emu/cuda_emu.h"
#include "ladders/cuda/elementwise.h"
#include "ladders/cuda/gemm.h"
#include "ladders/cuda/reduce.h"
#include "ladders/cuda/reference.h"

namespace ak = aakaar::cuda;

namespace {

template <typename T>
struct DeviceBuffer {  // cudaMalloc'd memory that frees itself
  T* ptr = nullptr;
  size_t n = 0;
  explicit DeviceBuffer(size_t count) : n(count) { AAKAAR_CUDA_CHECK(cudaMalloc(&ptr, std::max<size_t>(count, 1) * sizeof(T))); }
  explicit DeviceBuffer(const std::vector<T>& host) : DeviceBuffer(host.size()) {
    AAKAAR_CUDA_CHECK(cudaMemcpy(ptr, host.data(), n * sizeof(T), cudaMemcpyHostToDevice));
  }
  ~DeviceBuffer() { cudaFree(ptr); }
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
  std::vector<T> download() const {
    std::vector<T> host(n);
    AAKAAR_CUDA_CHECK(cudaMemcpy(host.data(), ptr, n * sizeof(T), cudaMemcpyDeviceToHost));
    return host;
  }
};

std::vector<float> random_floats(size_t n, unsigned seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<float> d(-1.f, 1.f);
  std::vector<float> v(n);
  for (float& x : v) x = d(rng);
  return v;
}

// Median milliseconds of `reps` runs after one warm-up, timed with CUDA events (on the
// emulator a launch is synchronous, so this is simply the CPU time of the launch).
double median_ms(int reps, const std::function<void()>& fn) {
  fn();
  cudaEvent_t start, stop;
  AAKAAR_CUDA_CHECK(cudaEventCreate(&start));
  AAKAAR_CUDA_CHECK(cudaEventCreate(&stop));
  std::vector<float> ms(std::max(reps, 1));
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
  return ms[ms.size() / 2];
}

void print_backend() {
#if AAKAAR_EMU
  std::printf("\"backend\": \"emulator\", \"os_threads\": %d", aakaar_emu::get_num_threads());
#else
  cudaDeviceProp prop;
  AAKAAR_CUDA_CHECK(cudaGetDeviceProperties(&prop, 0));
  std::printf("\"backend\": \"gpu\", \"device\": \"%s\"", prop.name);
#endif
}

// [[book:whoami_kernel]]
// Every thread records who it is: its global index and the coordinates it was given.
__global__ void whoami_kernel(int n, int* global, int* block, int* thread, int* warp, int* lane) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;  // the launch index arithmetic
  if (i >= n) return;                                    // the last block may be partly idle
  global[i] = i;
  block[i] = blockIdx.x;
  thread[i] = threadIdx.x;
  warp[i] = threadIdx.x / 32;                            // warps are consecutive threads of a block
  lane[i] = threadIdx.x % 32;
}
// [[/book:whoami_kernel]]

void print_ints(const char* name, const std::vector<int>& v) {
  std::printf("\"%s\": [", name);
  for (size_t i = 0; i < v.size(); ++i) std::printf("%s%d", i ? ", " : "", v[i]);
  std::printf("]");
}

int whoami(int grid, int block) {
  const int n = grid * block - block / 2;  // not a multiple of the block: the tail idles
  DeviceBuffer<int> g(n), b(n), t(n), w(n), l(n);
  AAKAAR_LAUNCH(whoami_kernel, grid, block, 0, n, g.ptr, b.ptr, t.ptr, w.ptr, l.ptr);
  AAKAAR_CHECK_LAUNCH();
  AAKAAR_CUDA_CHECK(cudaDeviceSynchronize());
  std::printf("{\"n\": %d, ", n);
  print_ints("global", g.download()); std::printf(", ");
  print_ints("block", b.download()); std::printf(", ");
  print_ints("thread", t.download()); std::printf(", ");
  print_ints("warp", w.download()); std::printf(", ");
  print_ints("lane", l.download()); std::printf("}\n");
  return 0;
}

int add(int64_t n) {
  // A contiguous (n, 3) pair, and the same data read through a transposed (3, n) view.
  const auto ha = random_floats(n * 3, 1), hb = random_floats(n * 3, 2);
  DeviceBuffer<float> a(ha), b(hb), out(n * 3);
  std::vector<float> want(n * 3);
  std::printf("{");
  print_backend();
  const struct { const char* name; int64_t sizes[2], in_strides[2]; } cases[] = {
      {"contiguous", {n, 3}, {3, 1}}, {"transposed", {3, n}, {1, 3}}};
  for (const auto& c : cases) {
    const int64_t out_strides[2] = {c.sizes[1], 1};
    ak::ewise_add<float>(2, c.sizes, out.ptr, out_strides, a.ptr, c.in_strides, b.ptr, c.in_strides);
    ak::reference::ewise_add<float>(2, c.sizes, want.data(), out_strides, ha.data(), c.in_strides, hb.data(),
                                    c.in_strides);
    const auto got = out.download();
    double err = 0;
    for (int64_t i = 0; i < n * 3; ++i) err = std::max(err, std::fabs(double(got[i]) - want[i]));
    std::printf(", \"%s_max_abs_err\": %g", c.name, err);
  }
  std::printf(", \"n\": %lld}\n", static_cast<long long>(n * 3));
  return 0;
}

int sum(int64_t n, int reps) {
  const auto hx = random_floats(n, 3);
  DeviceBuffer<float> x(hx), s(1);
  const int64_t one = 1;
  long double want, mag;
  ak::reference::sum_all<float>(1, &n, hx.data(), &one, &want, &mag);
  std::printf("{");
  print_backend();
  std::printf(", \"n\": %lld, \"reference\": %.9Lg, \"versions\": [", static_cast<long long>(n), want);
  const char* names[] = {"", "shared_tree", "warp_shuffle"};
  for (int v = 1; v <= 2; ++v) {
    const auto version = static_cast<ak::SumVersion>(v);
    const double ms = median_ms(reps, [&] { ak::sum_all<float>(1, &n, x.ptr, &one, s.ptr, version); });
    const float got = s.download()[0];
    std::printf("%s{\"version\": %d, \"name\": \"%s\", \"value\": %.9g, \"abs_err\": %.3g, \"ms\": %.4f, "
                "\"gb_per_s\": %.4f}", v > 1 ? ", " : "", v, names[v], got, std::fabs(double(got - want)), ms,
                n * 4.0 / (ms * 1e6));
  }
  std::printf("]}\n");
  return 0;
}

int gemm(int64_t M, int64_t N, int64_t K, int reps) {
  const auto ha = random_floats(M * K, 4), hb = random_floats(K * N, 5);
  DeviceBuffer<float> A(ha), B(hb), C(M * N);
  // The CPU reference (long double, one product at a time) for every row of a small C,
  // but for at most 64 rows, spread from the first to the last, of a large one: all of
  // 4096^3 would keep the CPU busy for minutes.
  std::vector<int64_t> rows;
  const int64_t step = std::max<int64_t>(1, (M + 63) / 64);
  for (int64_t i = 0; i < M; i += step) rows.push_back(i);
  if (M > 0 && rows.back() != M - 1) rows.push_back(M - 1);
  std::vector<float> want(rows.size() * N);
  std::vector<double> bound(rows.size() * N), row_bound;
  for (size_t r = 0; r < rows.size(); ++r) {
    ak::reference::gemm<float>(1, N, K, 1.f, ha.data() + rows[r] * K, K, 1, hb.data(), N, 1, 0.f, want.data() + r * N,
                               N, 1, &row_bound);
    std::copy(row_bound.begin(), row_bound.end(), bound.begin() + r * N);
  }
  std::printf("{");
  print_backend();
  std::printf(", \"m\": %lld, \"n\": %lld, \"k\": %lld, \"checked_rows\": %zu, \"versions\": [",
              static_cast<long long>(M), static_cast<long long>(N), static_cast<long long>(K), rows.size());
  const char* names[] = {"", "naive", "coalesced", "shared_tiles", "blocktiling_1d", "blocktiling_2d",
                         "vectorized", "double_buffered"};
  for (int v = 1; v <= ak::kGemmVersions; ++v) {
    const auto version = static_cast<ak::GemmVersion>(v);
    const double ms = median_ms(reps, [&] {
      ak::gemm<float>(version, M, N, K, 1.f, A.ptr, K, 1, B.ptr, N, 1, 0.f, C.ptr, N, 1);
    });
    const auto got = C.download();
    double err = 0;  // error relative to the size any order of summation may make
    for (size_t r = 0; r < rows.size(); ++r)
      for (int64_t j = 0; j < N; ++j) {
        const size_t w = r * N + j;
        err = std::max(err, std::fabs(double(got[rows[r] * N + j]) - want[w]) / (bound[w] + 1e-30));
      }
    std::printf("%s{\"version\": %d, \"name\": \"%s\", \"ms\": %.4f, \"gflops\": %.4f, \"max_rel_err\": %.3g}",
                v > 1 ? ", " : "", v, names[v], ms, 2.0 * M * N * K / (ms * 1e6), err);
  }
  std::printf("]}\n");
  return 0;
}

// [[book:barrier_bug]]
// A classic bug: the barrier sits inside a branch that only some threads take.
__global__ void barrier_bug_kernel(float* x) {
  __shared__ float tile[64];
  tile[threadIdx.x] = x[threadIdx.x];
  if (threadIdx.x < 32) {
    __syncthreads();  // threads 32..63 never arrive here
    x[threadIdx.x] = tile[63 - threadIdx.x];
  }
}
// [[/book:barrier_bug]]

int barrier_bug() {
  DeviceBuffer<float> x(random_floats(64, 6));
  try {
    AAKAAR_LAUNCH(barrier_bug_kernel, 1, 64, 0, x.ptr);
    AAKAAR_CHECK_LAUNCH();
    AAKAAR_CUDA_CHECK(cudaDeviceSynchronize());
  } catch (const std::exception& e) {
    std::string msg = e.what(), escaped;
    for (char ch : msg) {
      if (ch == '"' || ch == '\\') escaped += '\\';
      if (ch == '\n') { escaped += "\\n"; continue; }
      escaped += ch;
    }
    std::printf("{\"error\": \"%s\"}\n", escaped.c_str());
    return 0;
  }
  std::printf("{\"error\": null}\n");  // a GPU may hang or silently misbehave instead
  return 0;
}

int usage() {
  std::fprintf(stderr, "usage: book_kernels whoami GRID BLOCK | add N | sum N REPS | gemm M N K REPS | barrier_bug\n");
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    if (argc < 2) return usage();
    const std::string cmd = argv[1];
    auto arg = [&](int i) { return i < argc ? std::atoll(argv[i]) : 0LL; };
    if (cmd == "whoami" && argc == 4) return whoami(int(arg(2)), int(arg(3)));
    if (cmd == "add" && argc == 3) return add(arg(2));
    if (cmd == "sum" && argc == 4) return sum(arg(2), int(arg(3)));
    if (cmd == "gemm" && argc == 6) return gemm(arg(2), arg(3), arg(4), int(arg(5)));
    if (cmd == "barrier_bug" && argc == 2) return barrier_bug();
    return usage();
  } catch (const std::exception& e) {
    std::fprintf(stderr, "book_kernels: %s\n", e.what());
    return 1;
  }
}
