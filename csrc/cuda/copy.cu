// Copies on the device (any strides, any pair of dtypes), copies between the host and
// the device, fill and where: the elementwise kernels with no arithmetic in them.
#include <algorithm>
#include <atomic>
#include <mutex>
#include <type_traits>

#include "core/error.h"
#include "cuda/backend_cuda.h"
#include "cuda/map_kernel.cuh"
#include "cuda/device_math.cuh"

namespace aakaar::cuda {
namespace {

// dst[i] = (D) src[i]; to bool means "is nonzero", as on the CPU.
template <typename D, typename S>
struct CopyF {
  D* dst;
  const S* src;
  __device__ __forceinline__ void put(int64_t i, S x) const {
    dst[i] = py_arith::convert_value<D>(x);  // defined for NaN and out-of-range floats too
  }
  __device__ __forceinline__ void operator()(const int64_t (&o)[2]) const { put(o[0], src[o[1]]); }
  using Loaded = S;  // the split form for contiguous operands (map_unrolled_kernel)
  __device__ __forceinline__ S load(int64_t i) const { return src[i]; }
  __device__ __forceinline__ void store(int64_t i, S x) const { put(i, x); }
};

template <typename T>
struct FillF {
  T* dst;
  T value;
  __device__ __forceinline__ void operator()(const int64_t (&o)[1]) const { dst[o[0]] = value; }
  struct Loaded {};  // nothing to load: the split form only unrolls the stores
  __device__ __forceinline__ Loaded load(int64_t) const { return {}; }
  __device__ __forceinline__ void store(int64_t i, Loaded) const { dst[i] = value; }
};

template <typename T>
struct WhereF {
  T* out;
  const bool* cond;
  const T* a;
  const T* b;
  __device__ __forceinline__ void operator()(const int64_t (&o)[4]) const {
    out[o[0]] = cond[o[1]] ? a[o[2]] : b[o[3]];
  }
};

void device_copy(const Tensor& dst, const Tensor& src) {
  AK_DISPATCH_STORAGE(dst.dtype, "copy", [&](auto dtag) {
    using D = decltype(dtag);
    AK_DISPATCH_STORAGE(src.dtype, "copy", [&](auto stag) {
      using S = decltype(stag);
      launch_map<2>(dst.shape, {&dst, &src}, CopyF<D, S>{dst.data<D>(), src.data<S>()});
    });
  });
}

// A fresh contiguous tensor on `device` with t's shape and dtype.
Tensor empty_like(const Tensor& t, Device device) { return *Tensor::empty(t.shape, t.dtype, device); }

// Page-locked ("pinned") host memory for the host side of a staged copy. The GPU copies
// by DMA, which needs pages the OS cannot move: from ordinary pageable memory the driver
// first copies into a pinned bounce buffer of its own, chunk by chunk; from pinned memory
// the DMA engine reads directly. Pinning is slow (the OS locks every page), so one buffer
// is kept and reused by every copy, grown to the largest copy staged so far. It is never
// freed: a static destructor would run after the CUDA runtime has shut down.
class PinnedStaging {
 public:
  // A contiguous CPU tensor of t's shape and dtype over the buffer, valid while `lock`
  // is held (copies from several threads take turns).
  Tensor view_like(const Tensor& t, std::unique_lock<std::mutex>& lock) {
    lock = std::unique_lock<std::mutex>(mutex_);
    const size_t nbytes = static_cast<size_t>(t.numel() * t.element_size());
    if (nbytes > capacity_) {
      const size_t grown = std::max(nbytes, 2 * capacity_);  // doubling: few regrowths
      if (data_) AAKAAR_CUDA_CHECK(cudaFreeHost(data_));
      data_ = nullptr, capacity_ = 0;  // consistent even if the allocation below fails
      AAKAAR_CUDA_CHECK(cudaMallocHost(&data_, grown));
      capacity_ = grown;
    }
    // The view does not own the memory: releasing it is a no-op.
    StoragePtr storage = Storage::wrap(data_, capacity_, Device{}, [] {});
    return Tensor(storage, 0, t.shape, contiguous_strides(t.shape), t.dtype);
  }

 private:
  std::mutex mutex_;
  void* data_ = nullptr;
  size_t capacity_ = 0;
};

PinnedStaging& pinned_staging() {
  static PinnedStaging* staging = new PinnedStaging;  // leaked on purpose, see above
  return *staging;
}

// Host <-> device. cudaMemcpy moves one contiguous block of bytes, so a strided or
// dtype-converting copy goes through a contiguous staging tensor on whichever side
// can do the conversion itself (the CPU backend on the host, the kernels on the device).
// On the host that staging tensor lives in the pinned buffer above.
// Every copy from the device to the host is counted (copies_to_host): tests show with it that a
// step meant never to wait on the host (capturable=True optimizers) reads nothing back.
std::atomic<uint64_t> g_copies_to_host{0};

// [[book:cross_device_copy]]
void cross_device_copy(const Tensor& dst, const Tensor& src) {
  AK_CHECK(dst.shape == src.shape, RuntimeError, "copy between devices: shapes ", shape_str(dst.shape), " and ",
           shape_str(src.shape), " differ");
  const bool to_device = src.device().type == DeviceType::CPU;
  const cudaMemcpyKind kind = to_device ? cudaMemcpyHostToDevice : cudaMemcpyDeviceToHost;
  if (!to_device) g_copies_to_host.fetch_add(1, std::memory_order_relaxed);
  std::unique_lock<std::mutex> pinned_lock;  // held while a pinned view below is in use
  // The source as one contiguous block, still in its own dtype and place: a strided CPU
  // tensor is packed into pinned memory, a strided device tensor by the copy kernel.
  Tensor s = src;
  if (!src.is_contiguous()) {
    s = to_device ? pinned_staging().view_like(src, pinned_lock) : empty_like(src, src.device());
    backend(src.device()).copy(s, src);
  }
  const size_t nbytes = static_cast<size_t>(s.numel() * s.element_size());
  if (dst.is_contiguous() && dst.dtype == s.dtype) {
    if (nbytes) AAKAAR_CUDA_CHECK(cudaMemcpy(dst.data_ptr(), s.data_ptr(), nbytes, kind));
    return;
  }
  // Strided or converting destination: land the bytes contiguously on its side first
  // (in pinned memory on the host), then let that side's copy scatter and convert them.
  Tensor staged = to_device ? empty_like(s, dst.device()) : pinned_staging().view_like(s, pinned_lock);
  if (nbytes) AAKAAR_CUDA_CHECK(cudaMemcpy(staged.data_ptr(), s.data_ptr(), nbytes, kind));
  backend(dst.device()).copy(dst, staged);
}
// [[/book:cross_device_copy]]

}  // namespace

uint64_t copies_to_host() { return g_copies_to_host.load(std::memory_order_relaxed); }

void copy(const Tensor& dst, const Tensor& src) {
  if (dst.device().type != src.device().type) return cross_device_copy(dst, src);
  AK_CHECK(dst.device() == src.device(), RuntimeError, "copy: tensors on ", dst.device().str(), " and ",
           src.device().str());
  device_copy(dst, src);
}

void fill(const Tensor& dst, Scalar value) {
  AK_DISPATCH_STORAGE(dst.dtype, "fill", [&](auto tag) {
    using T = decltype(tag);
    const T v = value.kind == Scalar::Kind::Float ? py_arith::convert_value<T>(value.f) : py_arith::convert_value<T>(value.i);
    launch_map<1>(dst.shape, {&dst}, FillF<T>{dst.data<T>(), v});
  });
}

void where(const Tensor& out, const Tensor& cond, const Tensor& a, const Tensor& b) {
  AK_DISPATCH_STORAGE(out.dtype, "where", [&](auto tag) {
    using T = decltype(tag);
    launch_map<4>(out.shape, {&out, &cond, &a, &b}, WhereF<T>{out.data<T>(), cond.data<bool>(), a.data<T>(), b.data<T>()});
  });
}

}  // namespace aakaar::cuda
