// Reductions on the CPU: sum/prod/max/min/all/any over any set of dims,
// arg-max/min, softmax and cumsum along one dim.
#include <cmath>
#include <limits>
#include <type_traits>

#include "core/py_arith.h"
#include "core/reduce_semantics.h"
#include "cpu/backend_cpu.h"
#include "cpu/isa.h"
#include "cpu/iterator.h"
#include "cpu/vec_math.h"

namespace aakaar::cpu {
namespace {

template <typename T>
struct Reducer {
  ReduceOp op;
  T identity() const { return reduce_semantics::identity<T>(op); }
  // acc <- acc (op) x (core/reduce_semantics.h, shared with the CUDA kernels).
  T combine(T acc, T x) const { return reduce_semantics::combine<T>(op, acc, x); }
  T reduce_run(const char* p, int64_t stride, int64_t n, T acc) const {
    if (stride == sizeof(T)) {  // contiguous: the vectorised loops
      if constexpr (std::is_same_v<T, float>) {
        const float* x = reinterpret_cast<const float*>(p);
        if (op == ReduceOp::Sum) return acc + isa_kernels().sum_f32(x, n);
        if (op == ReduceOp::Max) return isa_kernels().max_f32(x, n, acc);
        if (op == ReduceOp::Min) return isa_kernels().min_f32(x, n, acc);
      }
      if constexpr (std::is_same_v<T, double>) {
        const double* x = reinterpret_cast<const double*>(p);
        if (op == ReduceOp::Sum) return acc + isa_kernels().sum_f64(x, n);
        if (op == ReduceOp::Max) return isa_kernels().max_f64(x, n, acc);
        if (op == ReduceOp::Min) return isa_kernels().min_f64(x, n, acc);
      }
    }
    for (int64_t i = 0; i < n; ++i) acc = combine(acc, *reinterpret_cast<const T*>(p + i * stride));
    return acc;
  }
};

template <typename T>
void reduce_typed(ReduceOp op, const Tensor& out, const Tensor& in) {
  const Reducer<T> r{op};
  const int64_t nd = in.ndim();
  // Which dims are reduced, and is the input a plain row-major block?
  bool suffix = true, prefix = true;  // reduced dims form a suffix / a prefix of the dims
  bool seen_kept = false, seen_reduced = false;
  for (int64_t d = 0; d < nd; ++d) {
    const bool red = out.shape[d] == 1 && in.shape[d] != 1;
    if (!red && seen_reduced) suffix = false;
    if (red && seen_kept) prefix = false;
    seen_kept |= !red;
    seen_reduced |= red;
  }
  const int64_t rows = out.numel();
  const int64_t cols = rows == 0 ? 0 : in.numel() / rows;
  if (in.is_contiguous() && out.is_contiguous() && suffix) {
    // Each output element reduces one contiguous row: rows in parallel.
    const char* base = in.data_ptr();
    T* o = out.data<T>();
    if (rows == 1 && cols >= (1 << 16)) {
      // One long row: partial results per chunk, combined in a fixed order.
      const int64_t chunks = std::min<int64_t>(64, cols / (1 << 15));
      std::vector<T> part(chunks, r.identity());
      const int64_t step = (cols + chunks - 1) / chunks;
      parallel_for(0, chunks, 1, [&](int64_t b, int64_t e) {
        for (int64_t c = b; c < e; ++c) {
          const int64_t lo = c * step, hi = std::min(cols, lo + step);
          if (lo < hi) part[c] = r.reduce_run(base + lo * sizeof(T), sizeof(T), hi - lo, r.identity());
        }
      });
      T acc = r.identity();
      for (T v : part) acc = r.combine(acc, v);
      o[0] = acc;
      return;
    }
    parallel_for(0, rows, std::max<int64_t>(1, 32768 / std::max<int64_t>(cols, 1)), [&](int64_t b, int64_t e) {
      for (int64_t i = b; i < e; ++i) o[i] = r.reduce_run(base + i * cols * sizeof(T), sizeof(T), cols, r.identity());
    });
    return;
  }
  if (in.is_contiguous() && out.is_contiguous() && prefix) {
    // out[j] = reduce_i in[i, j]: whole rows combined elementwise, which
    // vectorises; columns split over threads.
    const int64_t inner = rows, outer = rows == 0 ? 0 : in.numel() / rows;
    const T* x = in.data<T>();
    T* o = out.data<T>();
    parallel_for(0, inner, 4096, [&](int64_t b, int64_t e) {
      for (int64_t j = b; j < e; ++j) o[j] = r.identity();
      for (int64_t i = 0; i < outer; ++i) {
        const T* row = x + i * inner;
        if (op == ReduceOp::Sum)  // (wrap_add: plain + for floats, defined wrapping for integers)
          for (int64_t j = b; j < e; ++j) o[j] = py_arith::wrap_add(o[j], row[j]);
        else
          for (int64_t j = b; j < e; ++j) o[j] = r.combine(o[j], row[j]);
      }
    });
    return;
  }
  // [[book:reduce_loop]]
  // The general case: view the output with stride 0 along every reduced dim,
  // so that it has the input's shape, and walk both together. Each input
  // element is combined into the output element it maps to. When the
  // innermost run is along a reduced dim, the output pointer does not move and
  // the run collapses into a single accumulator.
  Shape out_strides = out.strides;
  for (int64_t d = 0; d < nd; ++d)
    if (out.shape[d] == 1 && in.shape[d] != 1) out_strides[d] = 0;
  Tensor out_view(out.storage, out.offset, in.shape, out_strides, out.dtype);
  {
    StridedLoop<2> init(out.shape, {&out, &out});
    init.run([&](char** p, const int64_t* s, int64_t n) {
      for (int64_t i = 0; i < n; ++i) *reinterpret_cast<T*>(p[0] + i * s[0]) = r.identity();
    });
  }
  StridedLoop<2> loop(in.shape, {&out_view, &in});
  loop.run(
      [&](char** p, const int64_t* s, int64_t n) {
        if (s[0] == 0) {
          T* o = reinterpret_cast<T*>(p[0]);
          *o = r.reduce_run(p[1], s[1], n, *o);
        } else {
          for (int64_t i = 0; i < n; ++i) {
            T* o = reinterpret_cast<T*>(p[0] + i * s[0]);
            *o = r.combine(*o, *reinterpret_cast<const T*>(p[1] + i * s[1]));
          }
        }
      },
      std::numeric_limits<int64_t>::max());  // one thread: runs may share outputs
  // [[/book:reduce_loop]]
}

template <typename T>
void arg_reduce_typed(bool is_max, const Tensor& values, const Tensor& indices, const Tensor& in, int64_t dim) {
  const Tensor in0 = slice0(in, dim);
  const int64_t n = in.shape[dim], step = in.strides[dim] * sizeof(T);
  StridedLoop<3> loop(values.shape, {&values, &indices, &in0});
  loop.run([&](char** p, const int64_t* s, int64_t count) {
    for (int64_t i = 0; i < count; ++i) {
      const char* x = p[2] + i * s[2];
      T best = *reinterpret_cast<const T*>(x);
      int64_t best_k = 0;
      // Ties keep the first index; a NaN wins and stops the search (PyTorch's rule).
      if (!(best != best))
        for (int64_t k = 1; k < n; ++k) {
          const T v = *reinterpret_cast<const T*>(x + k * step);
          if (v != v) { best = v; best_k = k; break; }
          if (is_max ? v > best : v < best) { best = v; best_k = k; }
        }
      *reinterpret_cast<T*>(p[0] + i * s[0]) = best;
      *reinterpret_cast<int64_t*>(p[1] + i * s[1]) = best_k;
    }
  }, std::max<int64_t>(1, 32768 / std::max<int64_t>(n, 1)));
}

template <typename T>
inline T exp_any(T x) {
  if constexpr (std::is_same_v<T, float>) return exp_f32(x);  // vectorisable
  else return std::exp(x);
}

// [[book:softmax]]
// Softmax along one dim, stably: subtracting the row's max before exp makes
// every exponent <= 0, so nothing overflows, and the result is unchanged
// because the factor exp(-max) cancels between numerator and denominator.
template <typename T>
void softmax_typed(const Tensor& out, const Tensor& in, int64_t dim, bool log) {
  const Tensor in0 = slice0(in, dim), out0 = slice0(out, dim);
  const int64_t n = in.shape[dim];
  const int64_t si = in.strides[dim], so = out.strides[dim];
  StridedLoop<2> loop(out0.shape, {&out0, &in0});
  loop.run([&](char** p, const int64_t* s, int64_t count) {
    for (int64_t i = 0; i < count; ++i) {
      const T* x = reinterpret_cast<const T*>(p[1] + i * s[1]);
      T* y = reinterpret_cast<T*>(p[0] + i * s[0]);
      T m = -std::numeric_limits<T>::infinity();
      for (int64_t k = 0; k < n; ++k) m = std::max(m, x[k * si]);
      if (std::isinf(m) && m < 0) m = 0;  // a row of -inf: keep exp(x - m) defined
      T sum = 0;
      if (log) {
        for (int64_t k = 0; k < n; ++k) sum += exp_any(x[k * si] - m);
        const T lse = std::log(sum);
        for (int64_t k = 0; k < n; ++k) y[k * so] = x[k * si] - m - lse;
      } else {
        for (int64_t k = 0; k < n; ++k) sum += (y[k * so] = exp_any(x[k * si] - m));
        const T inv = T(1) / sum;
        for (int64_t k = 0; k < n; ++k) y[k * so] *= inv;
      }
    }
  }, std::max<int64_t>(1, 8192 / std::max<int64_t>(n, 1)));
}
// [[/book:softmax]]

template <typename T>
void cumsum_typed(const Tensor& out, const Tensor& in, int64_t dim) {
  const Tensor in0 = slice0(in, dim), out0 = slice0(out, dim);
  const int64_t n = in.shape[dim], si = in.strides[dim], so = out.strides[dim];
  StridedLoop<2> loop(out0.shape, {&out0, &in0});
  loop.run([&](char** p, const int64_t* s, int64_t count) {
    for (int64_t i = 0; i < count; ++i) {
      const T* x = reinterpret_cast<const T*>(p[1] + i * s[1]);
      T* y = reinterpret_cast<T*>(p[0] + i * s[0]);
      T acc = 0;
      // Integers wrap around as PyTorch's do, with defined arithmetic.
      for (int64_t k = 0; k < n; ++k) y[k * so] = acc = py_arith::wrap_add(acc, x[k * si]);
    }
  }, std::max<int64_t>(1, 8192 / std::max<int64_t>(n, 1)));
}

}  // namespace

void reduce(ReduceOp op, const Tensor& out, const Tensor& in) {
  AK_DISPATCH_ALL(in.dtype, "reduce", [&](auto tag) { reduce_typed<decltype(tag)>(op, out, in); });
}
void arg_reduce(bool is_max, const Tensor& values, const Tensor& indices, const Tensor& in, int64_t dim) {
  AK_DISPATCH_ALL(in.dtype, "argmax/argmin", [&](auto tag) {
    arg_reduce_typed<decltype(tag)>(is_max, values, indices, in, dim);
  });
}
void softmax(const Tensor& out, const Tensor& in, int64_t dim, bool log) {
  AK_DISPATCH_FLOAT(in.dtype, log ? "log_softmax" : "softmax", [&](auto tag) {
    softmax_typed<decltype(tag)>(out, in, dim, log);
  });
}
void cumsum(const Tensor& out, const Tensor& in, int64_t dim) {
  AK_DISPATCH_ALL(in.dtype, "cumsum", [&](auto tag) {
    using T = decltype(tag);
    if constexpr (std::is_same_v<T, bool>) throw TypeError("cumsum does not support bool; convert first");
    else cumsum_typed<T>(out, in, dim);
  });
}

}  // namespace aakaar::cpu
