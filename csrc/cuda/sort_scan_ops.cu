// Sorting, the scans beyond cumsum and scatter_reduce on the device: the backend entries
// sort, scan and scatter_reduce (core/backend.h), with the CPU's order and NaN rules
// (cpu/sort_scan.cpp).
//
//  * sort: a block per row. Rows of up to kSharedSortMax elements are sorted in shared
//    memory by a bitonic network; longer ones by rank (each element counts the elements
//    that come before it: quadratic, but simple and exact). Both compare (value, position)
//    pairs -- a total order -- so the result is the stable sort's, the CPU's bits.
//  * scan: a thread per row, combining in index order as the CPU does (the same bits).
//  * scatter_reduce: a thread per row of the index along dim. Two rows never share a
//    destination (they differ in another dim), so no atomics, and each destination takes
//    its sources in the CPU's order.
#include <algorithm>
#include <cstdint>
#include <limits>
#include <type_traits>

#include "core/error.h"
#include "cuda/backend_cuda.h"
#include "cuda/device_math.cuh"
#include "cuda/launch_config.cuh"
#include "cuda/row_reduce.cuh"
#include "cuda/rows_along.cuh"

namespace aakaar::cuda {
namespace {

template <typename T>
__device__ __forceinline__ bool is_nan(T v) {
  if constexpr (std::is_floating_point_v<T>) return v != v;
  else return false;
}

// ---- sort ----------------------------------------------------------------------------------

// PyTorch's order: NaN is greater than every number.
template <typename T>
__device__ __forceinline__ bool less_nan_last(T a, T b) {
  return is_nan(b) ? !is_nan(a) : (!is_nan(a) && a < b);
}

// Whether (a, ia) comes before (b, ib): by value, then by position. Positions past n are the
// padding of a bitonic network and come after everything.
template <typename T>
__device__ __forceinline__ bool before(T a, int64_t ia, T b, int64_t ib, int64_t n, bool descending) {
  if (ia >= n || ib >= n) return ia < ib;
  if (descending ? less_nan_last(b, a) : less_nan_last(a, b)) return true;
  if (descending ? less_nan_last(a, b) : less_nan_last(b, a)) return false;
  return ia < ib;
}

constexpr int64_t kSharedSortMax = 2048;  // 2048 (value, position) pairs of 16 bytes: 32 KiB

struct SortArgs {
  StridedIter<3> outer;  // offsets of values, indices, in
  int64_t rows, n, k, s_val, s_idx, s_in;
  bool descending;
};

template <typename T>
__global__ void bitonic_sort_kernel(SortArgs a, int64_t padded, const T* in, T* values, int64_t* indices) {
  AAKAAR_DYNAMIC_SHARED(unsigned char, smem);
  int64_t* pos = reinterpret_cast<int64_t*>(smem);
  T* val = reinterpret_cast<T*>(smem + padded * sizeof(int64_t));
  for (int64_t row = blockIdx.x; row < a.rows; row += gridDim.x) {
    int64_t o[3];
    offsets_of(a.outer, row, o);
    for (int64_t i = threadIdx.x; i < padded; i += blockDim.x) {
      pos[i] = i;
      val[i] = i < a.n ? in[o[2] + i * a.s_in] : T(0);
    }
    __syncthreads();
    for (int64_t size = 2; size <= padded; size <<= 1) {
      for (int64_t j = size >> 1; j > 0; j >>= 1) {
        for (int64_t i = threadIdx.x; i < padded; i += blockDim.x) {
          const int64_t l = i ^ j;
          if (l <= i) continue;
          // ascending runs where (i & size) == 0: i must come before l there, after it elsewhere
          const bool l_first = before(val[l], pos[l], val[i], pos[i], a.n, a.descending);
          if (((i & size) == 0) == l_first) {
            const T tv = val[i];
            const int64_t tp = pos[i];
            val[i] = val[l], pos[i] = pos[l];
            val[l] = tv, pos[l] = tp;
          }
        }
        __syncthreads();
      }
    }
    for (int64_t i = threadIdx.x; i < a.k; i += blockDim.x) {
      values[o[0] + i * a.s_val] = val[i];
      indices[o[1] + i * a.s_idx] = pos[i];
    }
    __syncthreads();  // the shared arrays hold the next row next
  }
}

// Rows longer than shared memory: element i of its row goes to its rank.
template <typename T>
__global__ void rank_sort_kernel(SortArgs a, const T* in, T* values, int64_t* indices) {
  const int64_t total = a.rows * a.n;
  for (int64_t e = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; e < total; e += int64_t(gridDim.x) * blockDim.x) {
    const int64_t row = e / a.n, i = e % a.n;
    int64_t o[3];
    offsets_of(a.outer, row, o);
    const T* x = in + o[2];
    const T v = x[i * a.s_in];
    int64_t rank = 0;
    for (int64_t j = 0; j < a.n; ++j) rank += before(x[j * a.s_in], j, v, i, a.n, a.descending);
    if (rank < a.k) {
      values[o[0] + rank * a.s_val] = v;
      indices[o[1] + rank * a.s_idx] = i;
    }
  }
}

// ---- scans ---------------------------------------------------------------------------------

// log(exp(a) + exp(b)) without overflow; two equal infinities give themselves (the CPU's rule).
template <typename T>
__device__ __forceinline__ T log_add_exp(T a, T b) {
  if (a != a || b != b) return std::numeric_limits<T>::quiet_NaN();
  const T lo = b < a ? b : a, hi = a < b ? b : a;
  if (lo != hi || lo - lo == T(0)) return hi + dmath::log1p_(dmath::exp_(lo - hi));
  return a;
}

template <typename T>
__global__ void scan_kernel(ScanOp op, StridedIter<3> outer, int64_t rows, int64_t n, int64_t sy, int64_t sx,
                            int64_t si, T* out, int64_t* idx, const T* in) {
  const int64_t stride = static_cast<int64_t>(blockDim.x) * gridDim.x;
  for (int64_t row = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; row < rows; row += stride) {
    int64_t o[3];
    offsets_of(outer, row, o);
    T* y = out + o[0];
    const T* x = in + o[2];
    if (op == ScanOp::CumProd) {
      T acc = 1;
      for (int64_t k = 0; k < n; ++k) y[k * sy] = acc = py_arith::wrap_mul(acc, x[k * sx]);
    } else if (op == ScanOp::CumMax || op == ScanOp::CumMin) {
      // An equal value takes over (the last of equals), and a NaN takes over and stays.
      int64_t* ix = idx + o[1];
      const bool is_max = op == ScanOp::CumMax;
      T best = x[0];
      int64_t at = 0;
      for (int64_t k = 0; k < n; ++k) {
        const T v = x[k * sx];
        if (is_nan(v) || (!is_nan(best) && (is_max ? v >= best : v <= best))) best = v, at = k;
        y[k * sy] = best;
        ix[k * si] = at;
      }
    } else if constexpr (std::is_floating_point_v<T>) {  // LogCumSumExp (the op refuses other dtypes)
      T acc = -std::numeric_limits<T>::infinity();
      for (int64_t k = 0; k < n; ++k) y[k * sy] = acc = log_add_exp(acc, x[k * sx]);
    }
  }
}

// ---- scatter_reduce ------------------------------------------------------------------------

template <typename T>
__device__ __forceinline__ T combine(ScatterReduceOp op, T a, T b) {
  switch (op) {
    case ScatterReduceOp::Sum:
      if constexpr (std::is_same_v<T, bool>) return a || b;
      else return py_arith::wrap_add(a, b);
    case ScatterReduceOp::Prod:
      if constexpr (std::is_same_v<T, bool>) return a && b;
      else return py_arith::wrap_mul(a, b);
    case ScatterReduceOp::Amax: return (is_nan(a) || is_nan(b)) ? (is_nan(a) ? a : b) : (a < b ? b : a);
    case ScatterReduceOp::Amin: return (is_nan(a) || is_nan(b)) ? (is_nan(a) ? a : b) : (b < a ? b : a);
  }
  return a;
}

template <typename T>
__global__ void scatter_reduce_kernel(ScatterReduceOp op, StridedIter<3> outer, int64_t rows, int64_t n,
                                      int64_t step, int64_t s_idx, int64_t s_src, T* out, const int64_t* index,
                                      const T* src) {
  const int64_t stride = static_cast<int64_t>(blockDim.x) * gridDim.x;
  for (int64_t row = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; row < rows; row += stride) {
    int64_t o[3];
    offsets_of(outer, row, o);
    for (int64_t j = 0; j < n; ++j) {
      T* p = out + o[0] + index[o[1] + j * s_idx] * step;
      *p = combine<T>(op, *p, src[o[2] + j * s_src]);
    }
  }
}

int row_blocks(int64_t rows) {
  return static_cast<int>(std::max<int64_t>(1, std::min<int64_t>(rows, int64_t(multiprocessor_count()) * 8)));
}

}  // namespace

void sort(const Tensor& values, const Tensor& indices, const Tensor& in, int64_t dim, bool descending, int64_t k) {
  AK_DISPATCH_ALL(in.dtype, "sort", [&](auto tag) {
    using T = decltype(tag);
    SortArgs a{};
    a.rows = rows_except<3>(in.shape, dim, {&values, &indices, &in}, &a.outer);
    a.n = in.shape[dim], a.k = k, a.descending = descending;
    a.s_val = values.strides[dim], a.s_idx = indices.strides[dim], a.s_in = in.strides[dim];
    if (a.rows == 0 || a.n == 0 || k == 0) return;
    if (a.n <= kSharedSortMax) {
      int64_t padded = 1;
      while (padded < a.n) padded <<= 1;
      const int threads = static_cast<int>(std::min<int64_t>(256, std::max<int64_t>(32, padded / 2)));
      const size_t smem = static_cast<size_t>(padded) * (sizeof(int64_t) + sizeof(T));
      AAKAAR_LAUNCH((bitonic_sort_kernel<T>), row_blocks(a.rows), threads, smem, a, padded, in.data<T>(),
                    values.data<T>(), indices.data<int64_t>());
    } else {
      AAKAAR_LAUNCH((rank_sort_kernel<T>), grid_stride_blocks(a.rows * a.n, 256, 8), 256, 0, a, in.data<T>(),
                    values.data<T>(), indices.data<int64_t>());
    }
    AAKAAR_CHECK_LAUNCH();
  });
}

void scan(ScanOp op, const Tensor& out, const Tensor* indices, const Tensor& in, int64_t dim) {
  AK_DISPATCH_ALL(in.dtype, "scan", [&](auto tag) {
    using T = decltype(tag);
    AK_CHECK(op != ScanOp::LogCumSumExp || std::is_floating_point_v<T>, TypeError,
             "logcumsumexp needs a floating tensor");
    const Tensor& ix = indices ? *indices : out;  // a stand-in for the walk without indices
    StridedIter<3> outer;
    const int64_t rows = rows_except<3>(in.shape, dim, {&out, &ix, &in}, &outer);
    const int64_t n = in.shape[dim];
    if (rows == 0 || n == 0) return;
    AAKAAR_LAUNCH((scan_kernel<T>), grid_stride_blocks(rows, 128, 8), 128, 0, op, outer, rows, n, out.strides[dim],
                  in.strides[dim], indices ? indices->strides[dim] : 0, out.data<T>(),
                  indices ? indices->data<int64_t>() : nullptr, in.data<T>());
    AAKAAR_CHECK_LAUNCH();
  });
}

void scatter_reduce(ScatterReduceOp op, const Tensor& out, int64_t dim, const Tensor& index, const Tensor& src) {
  // out viewed with index's shape and stride 0 along dim (as scatter): the kernel adds index * stride.
  Shape strides = out.strides;
  strides[dim] = 0;
  const Tensor dst(out.storage, out.offset, index.shape, strides, out.dtype);
  const Tensor src_view(src.storage, src.offset, index.shape, src.strides, src.dtype);
  AK_DISPATCH_ALL(out.dtype, "scatter_reduce", [&](auto tag) {
    using T = decltype(tag);
    StridedIter<3> outer;
    const int64_t rows = rows_except<3>(index.shape, dim, {&dst, &index, &src_view}, &outer);
    const int64_t n = index.shape[dim];
    if (rows == 0 || n == 0) return;
    AAKAAR_LAUNCH((scatter_reduce_kernel<T>), grid_stride_blocks(rows, 128, 8), 128, 0, op, outer, rows, n,
                  out.strides[dim], index.strides[dim], src.strides[dim], out.data<T>(), index.data<int64_t>(),
                  src.data<T>());
    AAKAAR_CHECK_LAUNCH();
  });
}

}  // namespace aakaar::cuda
