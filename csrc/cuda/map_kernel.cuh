// The one elementwise kernel behind copy, fill, binary and unary ops, where, gather and
// scatter: visit every position of an output shape once, with one element offset per
// operand, and hand those offsets to a small functor that does the op's work.
//
// The walk is the kernels/elementwise.cu pattern -- a grid-stride loop over linear
// indices, StridedIter turning an index into per-tensor offsets -- made generic, so
// each op only writes its functor (a struct with a __device__ operator(); nvcc's device
// lambdas would need --extended-lambda and do not exist on the emulator). When every
// operand is plainly contiguous the offsets are the index itself: no divmods at all, and
// a functor that splits its work into load(i) and store(i, loaded) gets the unrolled
// kernel, which keeps several loads in flight per thread.
#pragma once
#include <array>
#include <cstdint>
#include <type_traits>

#include "core/error.h"
#include "core/tensor.h"
#include "cuda/emu/cuda_emu.h"
#include "cuda/launch_config.cuh"
#include "cuda/strided_iter.cuh"

namespace aakaar::cuda {

constexpr int kMapThreads = 256;
constexpr int kMapBlocksPerSM = 8;  // 8 x 256 threads: a full multiprocessor

template <int N, typename F, bool kContiguous>
__global__ void __launch_bounds__(kMapThreads) map_kernel(int64_t n, StridedIter<N> it, F f) {
  const int64_t grid_stride = static_cast<int64_t>(blockDim.x) * gridDim.x;
  for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += grid_stride) {
    int64_t off[N];
    if constexpr (kContiguous) {
      for (int t = 0; t < N; ++t) off[t] = i;
    } else {
      it.offsets(i, off);
    }
    f(off);
  }
}

// [[book:map_unrolled]]
// Contiguous operands, for a functor with load(i) and store(i, loaded): each thread first
// loads kMapUnroll elements a block's width apart (so a warp's loads stay coalesced), then
// computes and stores them. Memory is far away -- several hundred nanoseconds -- and a
// GPU hides that only with enough requests in flight: with one element per step a thread
// waits for each load before its next, because a store through one pointer may change
// what the next load through another reads, so the compiler keeps loads behind stores.
constexpr int kMapUnroll = 4;

template <typename F>
__global__ void __launch_bounds__(kMapThreads) map_unrolled_kernel(int64_t n, F f) {
  const int64_t tile = static_cast<int64_t>(blockDim.x) * kMapUnroll;
  const int64_t grid_tile = tile * gridDim.x;
  for (int64_t base = blockIdx.x * tile + threadIdx.x; base < n; base += grid_tile) {
    typename F::Loaded v[kMapUnroll];
    for (int u = 0; u < kMapUnroll; ++u)
      if (base + u * blockDim.x < n) v[u] = f.load(base + u * blockDim.x);
    for (int u = 0; u < kMapUnroll; ++u)
      if (base + u * blockDim.x < n) f.store(base + u * blockDim.x, v[u]);
  }
}
// [[/book:map_unrolled]]

template <typename F, typename = void>
struct splits_load_store : std::false_type {};
template <typename F>
struct splits_load_store<F, std::void_t<typename F::Loaded>> : std::true_type {};

// The iterator over `shape` for N tensors' strides (each tensor already has that shape,
// or is a view of it with 0 strides). Size-1 dims are dropped before the 8-dim limit
// of StridedIter applies, so only tensors with more than 8 real dims are refused.
template <int N>
int64_t make_iter(const Shape& shape, const std::array<const Shape*, N>& strides, StridedIter<N>* it,
                  bool* contiguous) {
  Shape sizes;
  std::array<Shape, N> kept;
  for (size_t d = 0; d < shape.size(); ++d) {
    if (shape[d] == 1) continue;
    sizes.push_back(shape[d]);
    for (int t = 0; t < N; ++t) kept[t].push_back((*strides[t])[d]);
  }
  AK_CHECK(sizes.size() <= static_cast<size_t>(kMaxDims), RuntimeError, "cuda kernels support tensors of at most ",
           kMaxDims, " dims of size > 1, got shape ", shape_str(shape));
  const int64_t* ptrs[N];
  for (int t = 0; t < N; ++t) ptrs[t] = kept[t].data();
  const int64_t* const(&cptrs)[N] = ptrs;
  return make_strided_iter<N>(static_cast<int>(sizes.size()), sizes.data(), cptrs, it, contiguous);
}

// Runs f(offsets) for every position of `shape`; tensors[t]'s strides give offsets[t].
template <int N, typename F>
void launch_map(const Shape& shape, const std::array<const Tensor*, N>& tensors, const F& f) {
  std::array<const Shape*, N> strides;
  for (int t = 0; t < N; ++t) strides[t] = &tensors[t]->strides;
  StridedIter<N> it;
  bool contiguous;
  const int64_t n = make_iter<N>(shape, strides, &it, &contiguous);
  if (n == 0) return;  // a launch needs at least one block
  if constexpr (splits_load_store<F>::value) {
    if (contiguous) {
      const int blocks = grid_stride_blocks((n + kMapUnroll - 1) / kMapUnroll, kMapThreads, kMapBlocksPerSM);
      AAKAAR_LAUNCH((map_unrolled_kernel<F>), blocks, kMapThreads, 0, n, f);
      AAKAAR_CHECK_LAUNCH();
      return;
    }
  }
  const int blocks = grid_stride_blocks(n, kMapThreads, kMapBlocksPerSM);
  if (contiguous)
    AAKAAR_LAUNCH((map_kernel<N, F, true>), blocks, kMapThreads, 0, n, it, f);
  else
    AAKAAR_LAUNCH((map_kernel<N, F, false>), blocks, kMapThreads, 0, n, it, f);
  AAKAAR_CHECK_LAUNCH();
}

}  // namespace aakaar::cuda
