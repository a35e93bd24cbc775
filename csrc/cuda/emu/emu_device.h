// Device-side half of the CUDA emulator: what kernel code sees when a .cu file is
// compiled by the host compiler (g++ -x c++) instead of nvcc.
//
//  - qualifiers become nothing, except __shared__, which becomes thread_local: inside a
//    function that also means static, so every OS thread -- hence every block running
//    at the same time -- has its own copy, shared by that block's fibers.
//  - threadIdx/blockIdx/blockDim/gridDim are per-OS-thread values that the scheduler
//    rewrites before resuming each fiber.
//  - barriers and warp operations are calls into the runtime (emu_runtime.cpp), which
//    suspends the calling fiber until its partners arrive. They are macros so that the
//    call site (__FILE__:__LINE__) identifies the barrier: a return-address scheme breaks
//    when the optimiser duplicates a call site.
// Include cuda_emu.h, not this file.
#pragma once
#include <cmath>
#include <cstdint>
#include <cstring>
#include <type_traits>

#define __global__
#define __device__
#define __host__
#define __constant__
#define __shared__ thread_local
#define __forceinline__ inline __attribute__((always_inline))
#define __noinline__ __attribute__((noinline))
#define __launch_bounds__(...)
#define __align__(n) alignas(n)

struct uint3 { unsigned x, y, z; };

struct dim3 {
  unsigned x, y, z;
  constexpr dim3(unsigned x_ = 1, unsigned y_ = 1, unsigned z_ = 1) : x(x_), y(y_), z(z_) {}
  constexpr dim3(uint3 v) : x(v.x), y(v.y), z(v.z) {}
  constexpr operator uint3() const { return uint3{x, y, z}; }
};

// Vector types used for wide (vectorised) loads; same sizes and alignment as CUDA's.
struct alignas(8) float2 { float x, y; };
struct alignas(16) float4 { float x, y, z, w; };
struct alignas(8) int2 { int x, y; };
struct alignas(16) int4 { int x, y, z, w; };
struct alignas(16) double2 { double x, y; };
inline float2 make_float2(float x, float y) { return {x, y}; }
inline float4 make_float4(float x, float y, float z, float w) { return {x, y, z, w}; }
inline int2 make_int2(int x, int y) { return {x, y}; }
inline int4 make_int4(int x, int y, int z, int w) { return {x, y, z, w}; }
inline uint3 make_uint3(unsigned x, unsigned y, unsigned z) { return {x, y, z}; }

// __thread, not thread_local: trivially initialised, so every access is one
// fs-relative load with no TLS-wrapper call.
// [[book:emu_thread_coords]]
extern __thread uint3 threadIdx;
extern __thread uint3 blockIdx;
extern __thread uint3 blockDim;
extern __thread uint3 gridDim;
constexpr int warpSize = 32;
// [[/book:emu_thread_coords]]

namespace aakaar_emu {

enum class WarpOp : int { Sync, ShflIdx, ShflUp, ShflDown, ShflXor, Ballot, Any, All };

// Runtime entry points (emu_runtime.cpp). Each may suspend the calling fiber.
int block_barrier(const char* file, int line, const char* name, int mode, int pred);
uint64_t warp_exchange(const char* file, int line, WarpOp op, unsigned mask, uint64_t value,
                       int param, int width);
unsigned char* dynamic_shared_memory();
[[noreturn]] void trap(const char* file, int line);

// Shuffles move up to 8 bytes, as on the GPU; the bits travel as a uint64_t.
template <typename T>
inline uint64_t to_bits(T v) {
  static_assert(sizeof(T) <= 8 && std::is_trivially_copyable<T>::value,
                "warp shuffles move values of at most 8 bytes");
  uint64_t b = 0;
  std::memcpy(&b, &v, sizeof(T));
  return b;
}
template <typename T>
inline T from_bits(uint64_t b) {
  T v;
  std::memcpy(&v, &b, sizeof(T));
  return v;
}
template <typename T>
inline T shfl(const char* f, int l, WarpOp op, unsigned mask, T v, int param, int width) {
  return from_bits<T>(warp_exchange(f, l, op, mask, to_bits(v), param, width));
}

// barrier modes
constexpr int kBarrierPlain = 0, kBarrierCount = 1, kBarrierAnd = 2, kBarrierOr = 3;

}  // namespace aakaar_emu

// [[book:emu_syncthreads]]
#define __syncthreads() \
  ((void)::aakaar_emu::block_barrier(__FILE__, __LINE__, "__syncthreads()", 0, 0))
// [[/book:emu_syncthreads]]
#define __syncthreads_count(p) \
  ::aakaar_emu::block_barrier(__FILE__, __LINE__, "__syncthreads_count()", 1, (p) ? 1 : 0)
#define __syncthreads_and(p) \
  ::aakaar_emu::block_barrier(__FILE__, __LINE__, "__syncthreads_and()", 2, (p) ? 1 : 0)
#define __syncthreads_or(p) \
  ::aakaar_emu::block_barrier(__FILE__, __LINE__, "__syncthreads_or()", 3, (p) ? 1 : 0)

// Helpers so the macros below can take CUDA's optional width argument.
#define AAKAAR_EMU_SHFL3(op, mask, v, p) \
  ::aakaar_emu::shfl(__FILE__, __LINE__, ::aakaar_emu::WarpOp::op, (mask), (v), (p), 32)
#define AAKAAR_EMU_SHFL4(op, mask, v, p, w) \
  ::aakaar_emu::shfl(__FILE__, __LINE__, ::aakaar_emu::WarpOp::op, (mask), (v), (p), (w))
#define AAKAAR_EMU_PICK(_1, _2, _3, _4, NAME, ...) NAME
#define __shfl_sync(...) \
  AAKAAR_EMU_PICK(__VA_ARGS__, AAKAAR_EMU_SHFL4, AAKAAR_EMU_SHFL3, )(ShflIdx, __VA_ARGS__)
#define __shfl_up_sync(...) \
  AAKAAR_EMU_PICK(__VA_ARGS__, AAKAAR_EMU_SHFL4, AAKAAR_EMU_SHFL3, )(ShflUp, __VA_ARGS__)
#define __shfl_down_sync(...) \
  AAKAAR_EMU_PICK(__VA_ARGS__, AAKAAR_EMU_SHFL4, AAKAAR_EMU_SHFL3, )(ShflDown, __VA_ARGS__)
#define __shfl_xor_sync(...) \
  AAKAAR_EMU_PICK(__VA_ARGS__, AAKAAR_EMU_SHFL4, AAKAAR_EMU_SHFL3, )(ShflXor, __VA_ARGS__)

#define __syncwarp(...) ((void)::aakaar_emu::warp_exchange( \
    __FILE__, __LINE__, ::aakaar_emu::WarpOp::Sync, ::aakaar_emu::detail_mask(__VA_ARGS__), 0, 0, 32))
#define __ballot_sync(mask, p) static_cast<unsigned>(::aakaar_emu::warp_exchange( \
    __FILE__, __LINE__, ::aakaar_emu::WarpOp::Ballot, (mask), (p) ? 1 : 0, 0, 32))
#define __any_sync(mask, p) static_cast<int>(::aakaar_emu::warp_exchange( \
    __FILE__, __LINE__, ::aakaar_emu::WarpOp::Any, (mask), (p) ? 1 : 0, 0, 32))
#define __all_sync(mask, p) static_cast<int>(::aakaar_emu::warp_exchange( \
    __FILE__, __LINE__, ::aakaar_emu::WarpOp::All, (mask), (p) ? 1 : 0, 0, 32))
#define __trap() ::aakaar_emu::trap(__FILE__, __LINE__)

namespace aakaar_emu {
inline unsigned detail_mask() { return 0xffffffffu; }
inline unsigned detail_mask(unsigned m) { return m; }
}  // namespace aakaar_emu

// ---- atomics ----------------------------------------------------------------------
// Blocks run in parallel on several OS threads, so device atomics are real hardware
// atomics. CUDA's atomics are relaxed; ordering comes from __threadfence().
inline void __threadfence() { __atomic_thread_fence(__ATOMIC_SEQ_CST); }
inline void __threadfence_block() { __atomic_signal_fence(__ATOMIC_SEQ_CST); }

#define AAKAAR_EMU_INT_ATOMICS(T)                                                         \
  inline T atomicAdd(T* p, T v) { return __atomic_fetch_add(p, v, __ATOMIC_RELAXED); }   \
  inline T atomicSub(T* p, T v) { return __atomic_fetch_sub(p, v, __ATOMIC_RELAXED); }   \
  inline T atomicAnd(T* p, T v) { return __atomic_fetch_and(p, v, __ATOMIC_RELAXED); }   \
  inline T atomicOr(T* p, T v) { return __atomic_fetch_or(p, v, __ATOMIC_RELAXED); }     \
  inline T atomicXor(T* p, T v) { return __atomic_fetch_xor(p, v, __ATOMIC_RELAXED); }   \
  inline T atomicExch(T* p, T v) { return __atomic_exchange_n(p, v, __ATOMIC_RELAXED); } \
  inline T atomicCAS(T* p, T expected, T desired) {                                      \
    __atomic_compare_exchange_n(p, &expected, desired, false, __ATOMIC_RELAXED,          \
                                __ATOMIC_RELAXED);                                       \
    return expected; /* the old value, whether or not the swap happened */               \
  }                                                                                      \
  inline T atomicMax(T* p, T v) {                                                        \
    T old = __atomic_load_n(p, __ATOMIC_RELAXED);                                        \
    while (old < v && !__atomic_compare_exchange_n(p, &old, v, true, __ATOMIC_RELAXED,   \
                                                   __ATOMIC_RELAXED)) {                  \
    }                                                                                    \
    return old;                                                                          \
  }                                                                                      \
  inline T atomicMin(T* p, T v) {                                                        \
    T old = __atomic_load_n(p, __ATOMIC_RELAXED);                                        \
    while (v < old && !__atomic_compare_exchange_n(p, &old, v, true, __ATOMIC_RELAXED,   \
                                                   __ATOMIC_RELAXED)) {                  \
    }                                                                                    \
    return old;                                                                          \
  }
AAKAAR_EMU_INT_ATOMICS(int)
AAKAAR_EMU_INT_ATOMICS(unsigned)
AAKAAR_EMU_INT_ATOMICS(unsigned long long)
AAKAAR_EMU_INT_ATOMICS(long long)  // CUDA has only some of these for long long; harmless
#undef AAKAAR_EMU_INT_ATOMICS

// Floating-point atomicAdd: a compare-and-swap loop on the bit pattern.
template <typename F, typename Bits>
inline F aakaar_emu_atomic_add_float(F* p, F v) {
  Bits* bp = reinterpret_cast<Bits*>(p);
  Bits old = __atomic_load_n(bp, __ATOMIC_RELAXED), desired;
  do {
    F f;
    std::memcpy(&f, &old, sizeof f);
    f += v;
    std::memcpy(&desired, &f, sizeof f);
  } while (!__atomic_compare_exchange_n(bp, &old, desired, true, __ATOMIC_RELAXED,
                                        __ATOMIC_RELAXED));
  F prev;
  std::memcpy(&prev, &old, sizeof prev);
  return prev;
}
inline float atomicAdd(float* p, float v) { return aakaar_emu_atomic_add_float<float, uint32_t>(p, v); }
inline double atomicAdd(double* p, double v) { return aakaar_emu_atomic_add_float<double, uint64_t>(p, v); }

// ---- math and other intrinsics -----------------------------------------------------
// Device code calls min/max unqualified on ints and floats.
#define AAKAAR_EMU_MINMAX(T)                           \
  inline T min(T a, T b) { return b < a ? b : a; }     \
  inline T max(T a, T b) { return a < b ? b : a; }
AAKAAR_EMU_MINMAX(int)
AAKAAR_EMU_MINMAX(unsigned)
AAKAAR_EMU_MINMAX(long)
AAKAAR_EMU_MINMAX(unsigned long)
AAKAAR_EMU_MINMAX(long long)
AAKAAR_EMU_MINMAX(unsigned long long)
inline float min(float a, float b) { return std::fmin(a, b); }
inline float max(float a, float b) { return std::fmax(a, b); }
inline double min(double a, double b) { return std::fmin(a, b); }
inline double max(double a, double b) { return std::fmax(a, b); }
#undef AAKAAR_EMU_MINMAX

inline float rsqrtf(float x) { return 1.0f / std::sqrt(x); }
inline double rsqrt(double x) { return 1.0 / std::sqrt(x); }
inline float __expf(float x) { return std::exp(x); }
inline float __logf(float x) { return std::log(x); }
inline float __fdividef(float a, float b) { return a / b; }
inline float __saturatef(float x) { return x < 0.f ? 0.f : (x > 1.f ? 1.f : x); }
template <typename T>
inline T __ldg(const T* p) { return *p; }
