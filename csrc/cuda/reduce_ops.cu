// Reductions on the device: sum/prod/max/min/all/any over any set of dims, arg-max/min
// along one dim, softmax/log-softmax and cumsum along one dim.
//
// Each output element reduces one "row": the input elements that differ only in the
// reduced dims. Short rows get one thread each (a plain loop, like the CPU's); long
// rows get a block each -- threads stride through the row, then warp shuffles and
// shared memory combine their partial results (row_reduce.cuh). When there are too few
// rows to fill the GPU (a full reduction has one), each row is split over several
// blocks that write partials, and a second pass combines those: no atomics, so every
// run adds in the same order and gives the same bits.
#include <algorithm>
#include <limits>
#include <type_traits>

#include "core/error.h"
#include "cuda/allocator.h"
#include "cuda/backend_cuda.h"
#include "cuda/device_math.cuh"  // before core/reduce_semantics.h: it brings the CUDA (or emulator) headers
#include "core/reduce_semantics.h"
#include "cuda/map_kernel.cuh"
#include "cuda/row_reduce.cuh"
#include "cuda/rows_along.cuh"

namespace aakaar::cuda {
namespace {

template <typename T>
struct Reducer {
  ReduceOp op;
  __device__ __forceinline__ T identity() const { return reduce_semantics::identity<T>(op); }
  // The same semantics as the CPU's (core/reduce_semantics.h).
  __device__ __forceinline__ T combine(T acc, T x) const { return reduce_semantics::combine<T>(op, acc, x); }
};

// The input as rows x cols: `outer` walks the kept dims (offsets in out and in),
// `inner` walks the reduced dims (offsets in in).
struct RowPlan {
  int64_t rows = 0, cols = 0;
  StridedIter<2> outer;
  StridedIter<1> inner;
  bool inner_unit = false;  // the reduced elements of a row are contiguous
};

RowPlan make_plan(const Shape& kept, const Shape& kept_out_strides, const Shape& kept_in_strides, const Shape& reduced,
                  const Shape& reduced_in_strides) {
  RowPlan p;
  bool contiguous;
  p.rows = make_iter<2>(kept, {&kept_out_strides, &kept_in_strides}, &p.outer, &contiguous);
  p.cols = make_iter<1>(reduced, {&reduced_in_strides}, &p.inner, &contiguous);
  p.inner_unit = contiguous;
  return p;
}

template <typename T>
__global__ void reduce_thread_per_row(RowPlan p, const T* in, T* out, Reducer<T> r) {
  const int64_t stride = static_cast<int64_t>(blockDim.x) * gridDim.x;
  for (int64_t row = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; row < p.rows; row += stride) {
    int64_t o[2], k[1];
    offsets_of(p.outer, row, o);
    T acc = r.identity();
    for (int64_t j = 0; j < p.cols; ++j) {
      offsets_of(p.inner, j, k);
      acc = r.combine(acc, in[o[1] + k[0]]);
    }
    out[o[0]] = acc;
  }
}

// One thread's share of a contiguous row: elements j, j + stride, j + 2 * stride, ... of
// the n, combined into acc. Eight independent loads per step, into four accumulators,
// give a thread eight requests in flight rather than one (32 bytes of float: at four
// blocks of 256 threads per multiprocessor, what the memory system needs to run at full
// bandwidth); the combine order is fixed, so every run gives the same bits.
template <typename T, typename Combine>
__device__ __forceinline__ T sweep(const T* row, int64_t j, int64_t stride, int64_t n, T acc, Combine combine) {
  T a1 = acc, a2 = acc, a3 = acc;
  for (; j + 7 * stride < n; j += 8 * stride) {
    T x[8];
    for (int q = 0; q < 8; ++q) x[q] = row[j + q * stride];
    acc = combine(acc, combine(x[0], x[4]));
    a1 = combine(a1, combine(x[1], x[5]));
    a2 = combine(a2, combine(x[2], x[6]));
    a3 = combine(a3, combine(x[3], x[7]));
  }
  for (; j < n; j += stride) acc = combine(acc, row[j]);
  return combine(combine(acc, a1), combine(a2, a3));
}

// Block b reduces rows b, b + gridDim.x, ...; blockIdx.y picks which of `chunks` parts
// of each row (interleaved in a contiguous row, slices otherwise). With one chunk the
// result goes to out, else to partials[row][chunk].
template <typename T>
__global__ void reduce_block_per_row(RowPlan p, const T* in, T* out, Reducer<T> r, int64_t chunks, T* partials) {
  const int64_t chunk_len = (p.cols + chunks - 1) / chunks;
  const int64_t c0 = blockIdx.y * chunk_len, c1 = c0 + chunk_len < p.cols ? c0 + chunk_len : p.cols;
  // The row loop is the same for every thread of the block, so all reach the barriers.
  for (int64_t row = blockIdx.x; row < p.rows; row += gridDim.x) {
    int64_t o[2], k[1];
    offsets_of(p.outer, row, o);
    T acc = r.identity();
    if (p.inner_unit) {
      // A contiguous row. Its `chunks` blocks sweep it together, interleaved rather than
      // each in a slice of its own, so that at any moment the whole grid reads one
      // window of memory, as a grid-stride loop does. On an H200, summing 0.5 GiB: a
      // thousand slices read at once, one load in flight per thread, ran at 32% of the
      // copy bandwidth; the sweep with eight loads in flight, in one wave, at 97%.
      const T* row = in + o[1];
      const int64_t stride = static_cast<int64_t>(blockDim.x) * chunks;
      const int64_t j = static_cast<int64_t>(blockIdx.y) * blockDim.x + threadIdx.x;
      // The op is the same for the whole grid; a sum gets a loop of plain additions
      // rather than the switch over ops in every combine (wrap_add: a float's +, an
      // integer's wrapping + with defined arithmetic -- int64 a + b may overflow).
      bool plain_sum = false;  // (a sum of bools is an "or": it keeps the general combine)
      if constexpr (!std::is_same_v<T, bool>) plain_sum = r.op == ReduceOp::Sum;
      acc = plain_sum ? sweep(row, j, stride, p.cols, acc, [](T a, T b) { return py_arith::wrap_add(a, b); })
                      : sweep(row, j, stride, p.cols, acc, [&r](T a, T b) { return r.combine(a, b); });
    } else {
      for (int64_t j = c0 + threadIdx.x; j < c1; j += blockDim.x) {
        offsets_of(p.inner, j, k);
        acc = r.combine(acc, in[o[1] + k[0]]);
      }
    }
    acc = block_reduce(acc, r);
    if (threadIdx.x == 0) {
      if (chunks == 1) out[o[0]] = acc;
      else partials[row * chunks + blockIdx.y] = acc;
    }
  }
}

template <typename T>
void launch_rows(const RowPlan& p, const T* in, T* out, Reducer<T> r) {
  if (p.rows == 0) return;
  const int sms = multiprocessor_count();
  if (p.cols <= kThreadPerRowCols || (!p.inner_unit && p.rows >= 512)) {
    // Consecutive threads take consecutive rows: coalesced when the rows are interleaved
    // in memory (a reduction over a leading dim), and no barrier for short rows.
    const int blocks = grid_stride_blocks(p.rows, 128, 8);
    AAKAAR_LAUNCH((reduce_thread_per_row<T>), blocks, 128, 0, p, in, out, r);
    AAKAAR_CHECK_LAUNCH();
    return;
  }
  const int threads = row_block_threads(p.cols);
  const int64_t grid_x = std::min<int64_t>(p.rows, int64_t(sms) * 8);
  // Split rows only when there are too few of them to give every multiprocessor work,
  // and only into slices of at least 4 elements per thread.
  // Four blocks per multiprocessor: as many as fit at once (the kernel takes up to 64
  // registers a thread), so the grid runs in one wave, each thread with eight loads in flight.
  int64_t chunks = std::max<int64_t>(1, std::min<int64_t>((int64_t(sms) * 4) / p.rows, p.cols / (threads * 8)));
  chunks = std::min<int64_t>(chunks, 1024);
  if (chunks == 1) {
    AAKAAR_LAUNCH((reduce_block_per_row<T>), dim3(static_cast<unsigned>(grid_x)), threads, 0, p, in, out, r,
                  int64_t(1), static_cast<T*>(nullptr));
    AAKAAR_CHECK_LAUNCH();
    return;
  }
  ScratchBuffer partials(static_cast<size_t>(p.rows * chunks) * sizeof(T));
  AAKAAR_LAUNCH((reduce_block_per_row<T>), dim3(static_cast<unsigned>(grid_x), static_cast<unsigned>(chunks)), threads,
                0, p, in, out, r, chunks, partials.as<T>());
  AAKAAR_CHECK_LAUNCH();
  // Second pass: rows of `chunks` partials, contiguous, written to the same outputs.
  RowPlan q = p;
  q.cols = chunks;
  q.inner_unit = true;
  const int64_t one = 1;
  bool unused;
  make_strided_iter<1>(1, &chunks, {&one}, &q.inner, &unused);
  for (int d = 0; d < q.outer.ndim; ++d) q.outer.strides[d][1] = 0;
  // Row i of the partials starts at i * chunks: rebuild the in-offsets of the outer walk
  // as the row-major strides of the kept shape, times chunks.
  int64_t step = chunks;
  for (int d = q.outer.ndim - 1; d >= 0; --d) {
    q.outer.strides[d][1] = step;
    step *= q.outer.sizes[d];
  }
  launch_rows<T>(q, partials.as<T>(), out, r);
}

template <typename T>
void reduce_typed(ReduceOp op, const Tensor& out, const Tensor& in) {
  Shape kept, kept_out, kept_in, reduced, reduced_in;
  for (int64_t d = 0; d < in.ndim(); ++d) {
    if (out.shape[d] == 1 && in.shape[d] != 1) {
      reduced.push_back(in.shape[d]);
      reduced_in.push_back(in.strides[d]);
    } else {
      kept.push_back(in.shape[d]);
      kept_out.push_back(out.strides[d]);
      kept_in.push_back(in.strides[d]);
    }
  }
  const RowPlan p = make_plan(kept, kept_out, kept_in, reduced, reduced_in);
  launch_rows<T>(p, in.data<T>(), out.data<T>(), Reducer<T>{op});
}

// ---- arg-max / arg-min -------------------------------------------------------------

// Is (v, k) a better candidate than (best, bk)? Ties keep the smaller index; a NaN beats
// everything, and the first NaN wins (PyTorch's rule). k < 0 means "no candidate".
template <typename T>
__device__ __forceinline__ bool better(bool is_max, T v, int64_t k, T best, int64_t bk) {
  if (k < 0) return false;
  if (bk < 0) return true;
  const bool vn = dmath::is_nan(v), bn = dmath::is_nan(best);
  if (vn || bn) return vn && bn ? k < bk : vn;
  if (v == best) return k < bk;
  return is_max ? v > best : v < best;
}

// One row of n elements at `x` (stride sx), scanned by this thread from `begin` in steps of `step`.
template <typename T>
__device__ __forceinline__ void arg_scan(bool is_max, const T* x, int64_t sx, int64_t begin, int64_t n, int64_t step,
                                         T* best, int64_t* bk) {
  for (int64_t k = begin; k < n; k += step) {
    const T v = x[k * sx];
    if (better(is_max, v, k, *best, *bk)) {
      *best = v;
      *bk = k;
    }
  }
}

template <typename T>
__global__ void arg_thread_per_row(StridedIter<3> outer, int64_t rows, int64_t n, int64_t sx, bool is_max, T* values,
                                   int64_t* indices, const T* in) {
  const int64_t stride = static_cast<int64_t>(blockDim.x) * gridDim.x;
  for (int64_t row = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; row < rows; row += stride) {
    int64_t o[3];
    offsets_of(outer, row, o);
    T best = T(0);
    int64_t bk = -1;
    arg_scan(is_max, in + o[2], sx, 0, n, 1, &best, &bk);
    values[o[0]] = best;
    indices[o[1]] = bk;
  }
}

template <typename T>
__global__ void arg_block_per_row(StridedIter<3> outer, int64_t rows, int64_t n, int64_t sx, bool is_max, T* values,
                                  int64_t* indices, const T* in) {
  __shared__ T warp_best[32];
  __shared__ int64_t warp_k[32];
  const int lane = threadIdx.x % 32, warp = threadIdx.x / 32, nwarps = blockDim.x / 32;
  for (int64_t row = blockIdx.x; row < rows; row += gridDim.x) {
    int64_t o[3];
    offsets_of(outer, row, o);
    T best = T(0);
    int64_t bk = -1;
    arg_scan(is_max, in + o[2], sx, threadIdx.x, n, blockDim.x, &best, &bk);
    for (int round = 0; round < 2; ++round) {  // within warps, then across warp 0
      for (int d = 16; d > 0; d /= 2) {
        const T v = shfl_down(best, d);
        const int64_t k = __shfl_down_sync(kFullMask, bk, d);
        if (better(is_max, v, k, best, bk)) {
          best = v;
          bk = k;
        }
      }
      if (round == 1) break;
      if (lane == 0) {
        warp_best[warp] = best;
        warp_k[warp] = bk;
      }
      __syncthreads();
      best = lane < nwarps ? warp_best[lane] : T(0);
      bk = lane < nwarps ? warp_k[lane] : -1;
      __syncthreads();  // the slots are free again for the next row
    }
    if (threadIdx.x == 0) {
      values[o[0]] = best;
      indices[o[1]] = bk;
    }
  }
}

// ---- softmax -------------------------------------------------------------------------

template <typename T>
struct MaxR {
  __device__ __forceinline__ T identity() const { return -std::numeric_limits<T>::infinity(); }
  __device__ __forceinline__ T combine(T a, T b) const { return a < b ? b : a; }
};
template <typename T>
struct SumR {
  __device__ __forceinline__ T identity() const { return T(0); }
  __device__ __forceinline__ T combine(T a, T b) const { return a + b; }
};

// Stable softmax of one row: subtract the row max so every exponent is <= 0. `tid` and
// `nthreads` split the row between the threads of a block (0 and 1 for one thread).
template <typename T, bool kBlock>
__device__ __forceinline__ void softmax_row(const T* x, int64_t sx, T* y, int64_t sy, int64_t n, bool log, int tid,
                                            int nthreads) {
  T m = MaxR<T>().identity();
  for (int64_t k = tid; k < n; k += nthreads) m = MaxR<T>().combine(m, x[k * sx]);
  if constexpr (kBlock) m = block_reduce(m, MaxR<T>());
  if constexpr (kBlock) {
    __shared__ T shared_m;
    if (tid == 0) shared_m = m;
    __syncthreads();
    m = shared_m;
    __syncthreads();
  }
  if (m == -std::numeric_limits<T>::infinity()) m = 0;  // a row of -inf: keep exp(x - m) defined
  T sum = 0;
  for (int64_t k = tid; k < n; k += nthreads) sum += dmath::exp_(x[k * sx] - m);
  if constexpr (kBlock) {
    __shared__ T shared_sum;
    sum = block_reduce(sum, SumR<T>());
    if (tid == 0) shared_sum = sum;
    __syncthreads();
    sum = shared_sum;
    __syncthreads();
  }
  if (log) {
    const T lse = dmath::log_(sum);
    for (int64_t k = tid; k < n; k += nthreads) y[k * sy] = x[k * sx] - m - lse;
  } else {
    const T inv = T(1) / sum;
    for (int64_t k = tid; k < n; k += nthreads) y[k * sy] = dmath::exp_(x[k * sx] - m) * inv;
  }
}

template <typename T>
__global__ void softmax_thread_per_row(StridedIter<2> outer, int64_t rows, int64_t n, int64_t sx, int64_t sy, bool log,
                                       const T* in, T* out) {
  const int64_t stride = static_cast<int64_t>(blockDim.x) * gridDim.x;
  for (int64_t row = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; row < rows; row += stride) {
    int64_t o[2];
    offsets_of(outer, row, o);
    softmax_row<T, false>(in + o[1], sx, out + o[0], sy, n, log, 0, 1);
  }
}

template <typename T>
__global__ void softmax_block_per_row(StridedIter<2> outer, int64_t rows, int64_t n, int64_t sx, int64_t sy, bool log,
                                      const T* in, T* out) {
  for (int64_t row = blockIdx.x; row < rows; row += gridDim.x) {
    int64_t o[2];
    offsets_of(outer, row, o);
    softmax_row<T, true>(in + o[1], sx, out + o[0], sy, n, log, threadIdx.x, blockDim.x);
  }
}

// ---- cumsum --------------------------------------------------------------------------

// One thread per row, adding in index order: the same order (and bits) as the CPU.
template <typename T>
__global__ void cumsum_thread_per_row(StridedIter<2> outer, int64_t rows, int64_t n, int64_t sx, int64_t sy,
                                      const T* in, T* out) {
  const int64_t stride = static_cast<int64_t>(blockDim.x) * gridDim.x;
  for (int64_t row = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; row < rows; row += stride) {
    int64_t o[2];
    offsets_of(outer, row, o);
    T acc = 0;
    for (int64_t k = 0; k < n; ++k) out[o[0] + k * sy] = acc = py_arith::wrap_add(acc, in[o[1] + k * sx]);  // integers wrap, defined
  }
}

}  // namespace

void reduce(ReduceOp op, const Tensor& out, const Tensor& in) {
  AK_DISPATCH_ALL(in.dtype, "reduce", [&](auto tag) { reduce_typed<decltype(tag)>(op, out, in); });
}

void arg_reduce(bool is_max, const Tensor& values, const Tensor& indices, const Tensor& in, int64_t dim) {
  AK_DISPATCH_ALL(in.dtype, "argmax/argmin", [&](auto tag) {
    using T = decltype(tag);
    StridedIter<3> outer;
    const int64_t rows = rows_except<3>(in.shape, dim, {&values, &indices, &in}, &outer);
    const int64_t n = in.shape[dim], sx = in.strides[dim];
    if (rows == 0 || n == 0) return;
    if (n <= kThreadPerRowCols || (sx != 1 && rows >= 512)) {
      AAKAAR_LAUNCH((arg_thread_per_row<T>), grid_stride_blocks(rows, 128, 8), 128, 0, outer, rows, n, sx, is_max,
                    values.data<T>(), indices.data<int64_t>(), in.data<T>());
    } else {
      const int blocks = static_cast<int>(std::min<int64_t>(rows, int64_t(multiprocessor_count()) * 8));
      AAKAAR_LAUNCH((arg_block_per_row<T>), blocks, row_block_threads(n), 0, outer, rows, n, sx, is_max,
                    values.data<T>(), indices.data<int64_t>(), in.data<T>());
    }
    AAKAAR_CHECK_LAUNCH();
  });
}

void softmax(const Tensor& out, const Tensor& in, int64_t dim, bool log) {
  AK_DISPATCH_FLOAT(in.dtype, log ? "log_softmax" : "softmax", [&](auto tag) {
    using T = decltype(tag);
    StridedIter<2> outer;
    const int64_t rows = rows_except<2>(in.shape, dim, {&out, &in}, &outer);
    const int64_t n = in.shape[dim], sx = in.strides[dim], sy = out.strides[dim];
    if (rows == 0 || n == 0) return;
    if (n <= kThreadPerRowCols) {
      AAKAAR_LAUNCH((softmax_thread_per_row<T>), grid_stride_blocks(rows, 128, 8), 128, 0, outer, rows, n, sx, sy, log,
                    in.data<T>(), out.data<T>());
    } else {
      const int blocks = static_cast<int>(std::min<int64_t>(rows, int64_t(multiprocessor_count()) * 8));
      AAKAAR_LAUNCH((softmax_block_per_row<T>), blocks, row_block_threads(n), 0, outer, rows, n, sx, sy, log,
                    in.data<T>(), out.data<T>());
    }
    AAKAAR_CHECK_LAUNCH();
  });
}

void cumsum(const Tensor& out, const Tensor& in, int64_t dim) {
  AK_DISPATCH_ALL(in.dtype, "cumsum", [&](auto tag) {
    using T = decltype(tag);
    if constexpr (std::is_same_v<T, bool>) {
      throw TypeError("cumsum does not support bool; convert first");
    } else {
      StridedIter<2> outer;
      const int64_t rows = rows_except<2>(in.shape, dim, {&out, &in}, &outer);
      const int64_t n = in.shape[dim];
      if (rows == 0 || n == 0) return;
      AAKAAR_LAUNCH((cumsum_thread_per_row<T>), grid_stride_blocks(rows, 128, 8), 128, 0, outer, rows, n,
                    in.strides[dim], out.strides[dim], in.data<T>(), out.data<T>());
      AAKAAR_CHECK_LAUNCH();
    }
  });
}

}  // namespace aakaar::cuda
