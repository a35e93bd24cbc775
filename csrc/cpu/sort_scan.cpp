// Sorting, the scans beyond cumsum (cumprod, cummax, cummin, logcumsumexp) and scatter_reduce on
// the CPU: the backend entries sort, scan and scatter_reduce (core/backend.h).
#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <utility>
#include <type_traits>
#include <vector>

#include "core/py_arith.h"
#include "cpu/backend_cpu.h"
#include "cpu/iterator.h"

namespace aakaar::cpu {
namespace {

template <typename T>
bool is_nan(T v) {
  if constexpr (std::is_floating_point_v<T>) return std::isnan(v);
  else return false;
}

// Rows along dim run in parallel when each is short: about 8k elements of work per chunk.
int64_t row_grain(int64_t n) { return std::max<int64_t>(1, 8192 / std::max<int64_t>(n, 1)); }

template <typename T>
void sort_typed(const Tensor& values, const Tensor& indices, const Tensor& in, int64_t dim, bool descending,
                int64_t k) {
  const Tensor in0 = slice0(in, dim), v0 = slice0(values, dim), i0 = slice0(indices, dim);
  const int64_t n = in.shape[dim], si = in.strides[dim], sv = values.strides[dim], sx = indices.strides[dim];
  // NaN is greater than every number (PyTorch's order): last ascending, first descending. Equal
  // values are ordered by position, so the result is a stable sort's whatever the algorithm.
  auto lt = [](T a, T b) { return is_nan(b) ? !is_nan(a) : (!is_nan(a) && a < b); };
  using Item = std::pair<T, int64_t>;
  auto before = [&](const Item& a, const Item& b) {
    if (descending ? lt(b.first, a.first) : lt(a.first, b.first)) return true;
    if (descending ? lt(a.first, b.first) : lt(b.first, a.first)) return false;
    return a.second < b.second;
  };
  StridedLoop<3> loop(in0.shape, {&v0, &i0, &in0});
  loop.run([&](char** p, const int64_t* s, int64_t count) {
    std::vector<Item> row(n);  // values beside their positions: the sort moves them together
    for (int64_t r = 0; r < count; ++r) {
      const T* x = reinterpret_cast<const T*>(p[2] + r * s[2]);
      T* y = reinterpret_cast<T*>(p[0] + r * s[0]);
      int64_t* ix = reinterpret_cast<int64_t*>(p[1] + r * s[1]);
      for (int64_t j = 0; j < n; ++j) row[j] = {x[j * si], j};
      if (k < n) std::partial_sort(row.begin(), row.begin() + k, row.end(), before);
      else std::sort(row.begin(), row.end(), before);
      for (int64_t j = 0; j < k; ++j) {
        y[j * sv] = row[j].first;
        ix[j * sx] = row[j].second;
      }
    }
  }, row_grain(n * 8));
}

// log(exp(a) + exp(b)) without overflow; two equal infinities give themselves (PyTorch's rule).
template <typename T>
T log_add_exp(T a, T b) {
  if (std::isnan(a) || std::isnan(b)) return std::numeric_limits<T>::quiet_NaN();
  const T lo = std::min(a, b), hi = std::max(a, b);
  if (lo != hi || std::isfinite(lo)) return hi + std::log1p(std::exp(lo - hi));
  return a;
}

template <typename T>
void scan_typed(ScanOp op, const Tensor& out, const Tensor* indices, const Tensor& in, int64_t dim) {
  const Tensor in0 = slice0(in, dim), out0 = slice0(out, dim);
  const Tensor ix0 = indices ? slice0(*indices, dim) : out0;  // unused without indices
  const int64_t n = in.shape[dim], si = in.strides[dim], so = out.strides[dim];
  const int64_t sx = indices ? indices->strides[dim] : 0;
  StridedLoop<3> loop(out0.shape, {&out0, &ix0, &in0});
  loop.run([&](char** p, const int64_t* s, int64_t count) {
    for (int64_t r = 0; r < count; ++r) {
      const T* x = reinterpret_cast<const T*>(p[2] + r * s[2]);
      T* y = reinterpret_cast<T*>(p[0] + r * s[0]);
      if (n == 0) continue;
      switch (op) {
        case ScanOp::CumProd: {
          T acc = 1;
          for (int64_t k = 0; k < n; ++k) y[k * so] = acc = py_arith::wrap_mul(acc, x[k * si]);
          break;
        }
        case ScanOp::CumMax:
        case ScanOp::CumMin: {
          // PyTorch's rule: an equal value takes over (the index is the last of equals), and a NaN
          // takes over and stays (each later NaN takes the index again).
          int64_t* ix = reinterpret_cast<int64_t*>(p[1] + r * s[1]);
          T best = x[0];
          int64_t at = 0;
          const bool is_max = op == ScanOp::CumMax;
          for (int64_t k = 0; k < n; ++k) {
            const T v = x[k * si];
            if (is_nan(v) || (!is_nan(best) && (is_max ? v >= best : v <= best))) best = v, at = k;
            y[k * so] = best;
            ix[k * sx] = at;
          }
          break;
        }
        case ScanOp::LogCumSumExp: {
          if constexpr (std::is_floating_point_v<T>) {
            T acc = -std::numeric_limits<T>::infinity();
            for (int64_t k = 0; k < n; ++k) y[k * so] = acc = log_add_exp(acc, x[k * si]);
          } else {
            throw TypeError("logcumsumexp needs a floating tensor");
          }
          break;
        }
      }
    }
  }, row_grain(n));
}

template <typename T>
T combine(ScatterReduceOp op, T a, T b) {
  switch (op) {
    case ScatterReduceOp::Sum:
      if constexpr (std::is_same_v<T, bool>) return a || b;
      else return py_arith::wrap_add(a, b);
    case ScatterReduceOp::Prod:
      if constexpr (std::is_same_v<T, bool>) return a && b;
      else return py_arith::wrap_mul(a, b);
    case ScatterReduceOp::Amax: return (is_nan(a) || is_nan(b)) ? (is_nan(a) ? a : b) : std::max(a, b);
    case ScatterReduceOp::Amin: return (is_nan(a) || is_nan(b)) ? (is_nan(a) ? a : b) : std::min(a, b);
  }
  return a;
}

}  // namespace

void sort(const Tensor& values, const Tensor& indices, const Tensor& in, int64_t dim, bool descending, int64_t k) {
  AK_DISPATCH_ALL(in.dtype, "sort", [&](auto tag) { sort_typed<decltype(tag)>(values, indices, in, dim, descending, k); });
}

void scan(ScanOp op, const Tensor& out, const Tensor* indices, const Tensor& in, int64_t dim) {
  AK_DISPATCH_ALL(in.dtype, "scan", [&](auto tag) { scan_typed<decltype(tag)>(op, out, indices, in, dim); });
}

void scatter_reduce(ScatterReduceOp op, const Tensor& out, int64_t dim, const Tensor& index, const Tensor& src) {
  // As scatter: out viewed with index's shape and stride 0 along dim, the kernel adding index * stride.
  Shape strides = out.strides;
  strides[dim] = 0;
  const Tensor dst(out.storage, out.offset, index.shape, strides, out.dtype);
  const Tensor src_view(src.storage, src.offset, index.shape, src.strides, src.dtype);
  const int64_t step = out.strides[dim] * out.element_size();
  AK_DISPATCH_ALL(out.dtype, "scatter_reduce", [&](auto tag) {
    using T = decltype(tag);
    StridedLoop<3> loop(index.shape, {&dst, &index, &src_view});
    loop.run(
        [&](char** p, const int64_t* s, int64_t n) {
          for (int64_t i = 0; i < n; ++i) {
            const int64_t k = *reinterpret_cast<const int64_t*>(p[1] + i * s[1]);
            T* o = reinterpret_cast<T*>(p[0] + i * s[0] + k * step);
            *o = combine<T>(op, *o, *reinterpret_cast<const T*>(p[2] + i * s[2]));
          }
        },
        std::numeric_limits<int64_t>::max());  // one thread: indices may collide
  });
}

}  // namespace aakaar::cpu
