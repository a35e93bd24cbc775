// gather and scatter along one dim. The op (csrc/ops/index.cpp) has already checked
// every index and wrapped negatives, and hands over an int64 index tensor.
//
// Both walk the index's shape with the data tensor viewed at stride 0 along `dim`
// (so the walk lands on row 0 of that dim), then step index * stride(dim) from there:
// the same trick as the CPU backend, so the kernels stay plain map functors.
#include <cstdint>
#include <type_traits>

#include "core/error.h"
#include "cuda/backend_cuda.h"
#include "cuda/map_kernel.cuh"

namespace aakaar::cuda {
namespace {

// Gather moves bytes: one instantiation per element size, not per dtype.
template <typename Word>
struct GatherF {
  Word* out;
  const int64_t* index;
  const Word* in;
  int64_t step;  // in elements
  __device__ __forceinline__ void operator()(const int64_t (&o)[3]) const {
    out[o[0]] = in[o[2] + index[o[1]] * step];
  }
};

// 8- and 16-bit integers have no atomicAdd on the GPU: add into them through a
// compare-and-swap on the aligned 32-bit word around them (two's complement: the
// unsigned sum's bits are the signed one's). Blocks are at least 512 bytes and
// 256-aligned (the allocator's size classes), so that word never leaves the allocation.
template <typename U>  // uint8_t or uint16_t
__device__ __forceinline__ void atomic_add_narrow(U* p, U v) {
  constexpr unsigned mask = sizeof(U) == 1 ? 0xFFu : 0xFFFFu;
  const uintptr_t addr = reinterpret_cast<uintptr_t>(p);
  unsigned* word = reinterpret_cast<unsigned*>(addr & ~uintptr_t(3));
  const unsigned shift = static_cast<unsigned>(addr & 3) * 8;
  unsigned old = *reinterpret_cast<volatile unsigned*>(word), assumed;
  do {
    assumed = old;
    const unsigned part = ((assumed >> shift) + v) & mask;
    old = atomicCAS(word, assumed, (assumed & ~(mask << shift)) | (part << shift));
  } while (old != assumed);
}

// Several index entries may name the same destination: plain scatter lets one of them
// win (unspecified which, as in PyTorch); scatter_add adds atomically, so every
// contribution counts -- in an order that varies, hence float sums may differ in the
// last bits from run to run.
template <typename T>
struct ScatterF {
  T* out;
  const int64_t* index;
  const T* src;
  int64_t step;
  bool add;
  __device__ __forceinline__ void operator()(const int64_t (&o)[3]) const {
    T* p = out + o[0] + index[o[1]] * step;
    const T v = src[o[2]];
    if (!add) {
      *p = v;
    } else if constexpr (std::is_same_v<T, bool>) {
      if (v) *p = true;  // "or": every writer writes the same value, so no atomic needed
    } else if constexpr (std::is_integral_v<T> && sizeof(T) <= 2) {  // uint8, int8, int16
      using U = std::make_unsigned_t<T>;
      atomic_add_narrow(reinterpret_cast<U*>(p), static_cast<U>(v));
    } else if constexpr (std::is_same_v<T, int64_t>) {
      // Two's complement: adding as unsigned 64-bit gives the signed sum (wrapping).
      atomicAdd(reinterpret_cast<unsigned long long*>(p), static_cast<unsigned long long>(v));
    } else {
      atomicAdd(p, v);
    }
  }
};

// t viewed with `shape` and stride 0 along dim.
Tensor along_dim_view(const Tensor& t, const Shape& shape, int64_t dim) {
  Shape strides = t.strides;
  strides[dim] = 0;
  return Tensor(t.storage, t.offset, shape, strides, t.dtype);
}

}  // namespace

void gather(const Tensor& out, const Tensor& in, int64_t dim, const Tensor& index) {
  const Tensor src = along_dim_view(in, index.shape, dim);
  const int64_t step = in.strides[dim];
  const std::array<const Tensor*, 3> ts{&out, &index, &src};
  switch (in.element_size()) {
    case 1: return launch_map<3>(out.shape, ts, GatherF<uint8_t>{out.data<uint8_t>(), index.data<int64_t>(), src.data<uint8_t>(), step});
    case 2: return launch_map<3>(out.shape, ts, GatherF<uint16_t>{out.data<uint16_t>(), index.data<int64_t>(), src.data<uint16_t>(), step});
    case 4: return launch_map<3>(out.shape, ts, GatherF<uint32_t>{out.data<uint32_t>(), index.data<int64_t>(), src.data<uint32_t>(), step});
    case 8: return launch_map<3>(out.shape, ts, GatherF<uint64_t>{out.data<uint64_t>(), index.data<int64_t>(), src.data<uint64_t>(), step});
  }
  throw RuntimeError(str("gather: unsupported element size ", in.element_size()));
}

void scatter(const Tensor& out, int64_t dim, const Tensor& index, const Tensor& src, bool add) {
  const Tensor dst = along_dim_view(out, index.shape, dim);
  const Tensor src_view(src.storage, src.offset, index.shape, src.strides, src.dtype);
  const int64_t step = out.strides[dim];
  AK_DISPATCH_ALL(out.dtype, "scatter", [&](auto tag) {
    using T = decltype(tag);
    launch_map<3>(index.shape, {&dst, &index, &src_view},
                  ScatterF<T>{dst.data<T>(), index.data<int64_t>(), src_view.data<T>(), step, add});
  });
}

}  // namespace aakaar::cuda
