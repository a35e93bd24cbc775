// Checks the emulator's model of CUDA against hand-computed expectations: built-in
// indices, warp shuffles and votes, block-wide barriers with predicates, atomics from
// blocks running in parallel, per-block shared memory, dynamic shared memory contents,
// and errors raised inside kernels reaching the launching thread.
// Emulator only (it calls aakaar_emu::set_num_threads). Exit status = number of failures.
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "device_buffer.h"

static int g_failures = 0;
static void report(bool ok, const char* name, const std::string& detail = "") {
  if (!ok) ++g_failures;
  std::printf("%s %s%s%s\n", ok ? "ok  " : "FAIL", name, ok ? "" : ": ", ok ? "" : detail.c_str());
}

// ---- built-in indices -------------------------------------------------------------------
__global__ void indices_kernel(int* out) {
  const int block = blockIdx.x + gridDim.x * (blockIdx.y + gridDim.y * blockIdx.z);
  const int thread = threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z);
  const int per_block = blockDim.x * blockDim.y * blockDim.z;
  out[block * per_block + thread] = 1000000 * blockIdx.z + 100000 * blockIdx.y + 10000 * blockIdx.x +
                                    100 * threadIdx.z + 10 * threadIdx.y + threadIdx.x;
}

static void check_indices() {
  const dim3 grid(3, 2, 2), block(4, 3, 2);
  DeviceBuffer<int> out(12 * 24);
  AAKAAR_LAUNCH(indices_kernel, grid, block, 0, out.ptr);
  std::vector<int> got = out.download();
  int bad = 0, i = 0;
  for (unsigned bz = 0; bz < 2; ++bz)
    for (unsigned by = 0; by < 2; ++by)
      for (unsigned bx = 0; bx < 3; ++bx)
        for (unsigned tz = 0; tz < 2; ++tz)
          for (unsigned ty = 0; ty < 3; ++ty)
            for (unsigned tx = 0; tx < 4; ++tx)
              bad += got[i++] != int(1000000 * bz + 100000 * by + 10000 * bx + 100 * tz + 10 * ty + tx);
  report(bad == 0, "threadIdx/blockIdx/blockDim/gridDim in a 3-D grid of 3-D blocks", std::to_string(bad) + " wrong");
}

// ---- warp shuffles and votes --------------------------------------------------------------
constexpr int kShflResults = 11;
__global__ void shuffle_kernel(int* out, double* dout) {
  const int t = threadIdx.x, lane = t % 32;
  int* o = out + t * kShflResults;
  const int v = 1000 + t;
  o[0] = __shfl_sync(0xffffffffu, v, (lane * 7) % 32);
  o[1] = __shfl_up_sync(0xffffffffu, v, 3);
  o[2] = __shfl_down_sync(0xffffffffu, v, 5);
  o[3] = __shfl_xor_sync(0xffffffffu, v, 6);
  o[4] = __shfl_sync(0xffffffffu, v, 3, 8);       // lane 3 of each group of 8
  o[5] = __shfl_up_sync(0xffffffffu, v, 2, 8);
  o[6] = __shfl_down_sync(0xffffffffu, v, 2, 8);
  __syncwarp();
  __syncwarp(0xffffffffu);
  o[7] = static_cast<int>(__ballot_sync(0xffffffffu, lane % 3 == 0));
  o[8] = __any_sync(0xffffffffu, t == 40);         // true in warp 1 only
  o[9] = __all_sync(0xffffffffu, lane < 32);
  o[10] = __all_sync(0xffffffffu, lane != 7);
  dout[t] = __shfl_xor_sync(0xffffffffu, 0.5 + t, 1);  // 8-byte values travel whole
}

static void check_shuffles() {
  const int n = 64;
  DeviceBuffer<int> out(n * kShflResults);
  DeviceBuffer<double> dout(n);
  AAKAAR_LAUNCH(shuffle_kernel, 1, n, 0, out.ptr, dout.ptr);
  std::vector<int> got = out.download();
  std::vector<double> dgot = dout.download();
  int bad = 0;
  for (int t = 0; t < n; ++t) {
    const int lane = t % 32, base = t - lane, g8 = lane & ~7;
    const int* o = &got[t * kShflResults];
    unsigned ballot = 0;
    for (int l = 0; l < 32; l += 3) ballot |= 1u << l;
    const int want[kShflResults] = {
        1000 + base + (lane * 7) % 32,
        1000 + (lane >= 3 ? t - 3 : t),
        1000 + (lane + 5 < 32 ? t + 5 : t),
        1000 + base + (lane ^ 6),
        1000 + base + g8 + 3,
        1000 + (lane - g8 >= 2 ? t - 2 : t),
        1000 + (lane - g8 + 2 < 8 ? t + 2 : t),
        static_cast<int>(ballot),
        t >= 32,
        1,
        0};
    for (int k = 0; k < kShflResults; ++k)
      if (o[k] != want[k]) {
        if (bad++ < 5) std::printf("  thread %d result %d: got %d want %d\n", t, k, o[k], want[k]);
      }
    if (dgot[t] != 0.5 + (t ^ 1)) ++bad;
  }
  report(bad == 0, "__shfl*_sync (with widths), __ballot_sync, __any_sync, __all_sync", std::to_string(bad) + " wrong");
}

// In a partial warp (48 threads: warp 1 has lanes 0..15), reading a lane that does not
// exist is undefined on a GPU; the emulator returns a NaN-like poison value.
__global__ void partial_warp_kernel(float* out) {
  out[threadIdx.x] = __shfl_down_sync(0xffffffffu, 1.0f, 16);
}
static void check_partial_warp() {
  DeviceBuffer<float> out(48);
  AAKAAR_LAUNCH(partial_warp_kernel, 1, 48, 0, out.ptr);
  std::vector<float> got = out.download();
  // Warp 0 is full: lanes 0..15 read lanes 16..31, lanes 16..31 keep their own value.
  // Warp 1 has lanes 0..15 only, and they read lanes 16..31, which do not exist.
  bool ok = true;
  for (int t = 0; t < 32; ++t) ok = ok && got[t] == 1.0f;
  for (int t = 32; t < 48; ++t) ok = ok && std::isnan(got[t]);
  report(ok, "shuffle from a lane past the end of the block gives NaN poison");
}

// ---- barriers -----------------------------------------------------------------------------
__global__ void barrier_predicates_kernel(int* out) {
  const int t = threadIdx.x;
  const int c = __syncthreads_count(t % 5 == 0);
  const int a = __syncthreads_and(t < 1000);
  const int b = __syncthreads_and(t != 77);
  const int o = __syncthreads_or(t == 99);
  const int z = __syncthreads_or(false);
  if (t == 0) {
    out[0] = c;
    out[1] = a;
    out[2] = b;
    out[3] = o;
    out[4] = z;
  }
}
static void check_barrier_predicates() {
  DeviceBuffer<int> out(5);
  AAKAAR_LAUNCH(barrier_predicates_kernel, 1, 200, 0, out.ptr);
  std::vector<int> g = out.download();
  report(g[0] == 40 && g[1] == 1 && g[2] == 0 && g[3] == 1 && g[4] == 0,
         "__syncthreads_count/_and/_or",
         std::to_string(g[0]) + " " + std::to_string(g[1]) + " " + std::to_string(g[2]) + " " +
             std::to_string(g[3]) + " " + std::to_string(g[4]));
}

// Each block stages its own number in static shared memory; with several OS threads
// running blocks at once, a block must never see another block's copy.
__global__ void shared_isolation_kernel(int* mismatches) {
  __shared__ int tag[256];
  tag[threadIdx.x] = blockIdx.x;
  __syncthreads();
  const int other = tag[(threadIdx.x + 97) % blockDim.x];
  __syncthreads();
  if (other != static_cast<int>(blockIdx.x)) atomicAdd(mismatches, 1);
}
static void check_shared_isolation() {
  DeviceBuffer<int> mism(std::vector<int>{0});
  AAKAAR_LAUNCH(shared_isolation_kernel, 400, 256, 0, mism.ptr);
  const int m = mism.download()[0];
  report(m == 0, "static __shared__ is private to each block (blocks on several OS threads)", std::to_string(m));
}

// Dynamic shared memory is not zeroed on a GPU; the emulator fills it with NaN bytes.
__global__ void dynamic_shared_kernel(float* out) {
  AAKAAR_DYNAMIC_SHARED(float, buf);
  out[threadIdx.x] = buf[threadIdx.x];  // read before any write: garbage
  __syncthreads();
  buf[threadIdx.x] = static_cast<float>(threadIdx.x);
  __syncthreads();
  out[blockDim.x + threadIdx.x] = buf[blockDim.x - 1 - threadIdx.x];
}
static void check_dynamic_shared() {
  const int n = 100;
  DeviceBuffer<float> out(2 * n);
  AAKAAR_LAUNCH(dynamic_shared_kernel, 3, n, n * sizeof(float), out.ptr);
  std::vector<float> g = out.download();
  bool ok = true;
  for (int t = 0; t < n; ++t) ok = ok && std::isnan(g[t]) && g[n + t] == static_cast<float>(n - 1 - t);
  report(ok, "dynamic shared memory: NaN-filled before each block, then shared by its threads");
}

// ---- atomics ------------------------------------------------------------------------------
struct AtomicCounters {
  int i;
  unsigned u;
  unsigned long long ull;
  float f;
  double d;
  int max;
  int min;
  int cas_sum;
};
__global__ void atomics_kernel(AtomicCounters* c) {
  const int g = blockIdx.x * blockDim.x + threadIdx.x;
  atomicAdd(&c->i, 1);
  atomicAdd(&c->u, 2u);
  atomicAdd(&c->ull, 3ull);
  atomicAdd(&c->f, 1.0f);  // exact while the count stays below 2^24
  atomicAdd(&c->d, 0.5);
  atomicMax(&c->max, (g * 7919) % 100003);
  atomicMin(&c->min, (g * 7919) % 100003 - 50000);
  int old = c->cas_sum, assumed;  // an add built from atomicCAS, the classic retry loop
  do {
    assumed = old;
    old = atomicCAS(&c->cas_sum, assumed, assumed + g);
  } while (old != assumed);
}
static void check_atomics() {
  const int blocks = 64, threads = 256, n = blocks * threads;
  DeviceBuffer<AtomicCounters> c(std::vector<AtomicCounters>{{0, 0, 0, 0.f, 0.0, -1, 1 << 30, 0}});
  AAKAAR_LAUNCH(atomics_kernel, blocks, threads, 0, c.ptr);
  const AtomicCounters r = c.download()[0];
  int want_max = -1, want_min = 1 << 30;
  long long want_cas = 0;
  for (int g = 0; g < n; ++g) {
    want_max = std::max(want_max, (g * 7919) % 100003);
    want_min = std::min(want_min, (g * 7919) % 100003 - 50000);
    want_cas += g;
  }
  const bool ok = r.i == n && r.u == 2u * n && r.ull == 3ull * n && r.f == static_cast<float>(n) &&
                  r.d == 0.5 * n && r.max == want_max && r.min == want_min && r.cas_sum == static_cast<int>(want_cas);
  report(ok, "atomicAdd (int, unsigned, ull, float, double), atomicMax/Min, atomicCAS loop from parallel blocks");
}

// ---- errors raised in kernels ---------------------------------------------------------------
__global__ void trap_kernel() {
  if (blockIdx.x == 3 && threadIdx.x == 5) __trap();
}
__global__ void nested_child() {}
__global__ void nested_launch_kernel() { AAKAAR_LAUNCH(nested_child, 1, 1, 0); }

template <typename F>
static void expect_error(const char* name, F fn, const std::vector<std::string>& needles) {
  try {
    fn();
  } catch (const std::exception& e) {
    const std::string msg = e.what();
    bool ok = true;
    for (const std::string& s : needles) ok = ok && msg.find(s) != std::string::npos;
    report(ok, name, ok ? "" : "message was: " + msg);
    return;
  }
  report(false, name, "no error was raised");
}

static void check_errors() {
  expect_error("an error in one thread reaches the launching thread", [] { AAKAAR_LAUNCH(trap_kernel, 8, 32, 0); },
               {"trap_kernel", "block (3,0,0)", "thread (5,0,0)", "__trap()"});
  expect_error("a launch with a zero dimension is rejected", [] { AAKAAR_LAUNCH(trap_kernel, 0, 32, 0); },
               {"gridDim (0,1,1)", "invalid launch configuration"});
  expect_error("more than 48 KiB of dynamic shared memory is rejected",
               [] { AAKAAR_LAUNCH(dynamic_shared_kernel, 1, 32, 50000, nullptr); }, {"50000 bytes", "49152"});
  expect_error("a launch from inside a kernel is rejected", [] { AAKAAR_LAUNCH(nested_launch_kernel, 1, 1, 0); },
               {"dynamic parallelism"});
  // The emulator is usable again after errors: the next launch runs normally.
  check_indices();
}

int main() {
  aakaar_emu::set_num_threads(4);  // several OS threads even on a 2-core machine
  check_indices();
  check_shuffles();
  check_partial_warp();
  check_barrier_predicates();
  check_shared_isolation();
  check_dynamic_shared();
  check_atomics();
  check_errors();
  std::printf("%d failed\n", g_failures);
  return g_failures;
}
