// The CPU entry of the dispatch table, and the kernels small enough to live
// beside it (fill, where, gather/scatter, batched matmul, random numbers).
#include "cpu/backend_cpu.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <type_traits>

#include "core/philox.h"
#include "core/py_arith.h"
#include "cpu/gemm/gemm.h"
#include "cpu/isa.h"
#include "cpu/iterator.h"

namespace aakaar::cpu {
namespace {

StoragePtr allocate(size_t nbytes, Device) { return Storage::allocate_cpu(nbytes); }

void fill(const Tensor& dst, Scalar value) {
  AK_DISPATCH_STORAGE(dst.dtype, "fill", [&](auto tag) {
    using T = decltype(tag);
    // convert_value: the op refuses floats that do not fit (ops::check_fits); this keeps the cast defined regardless.
    const T v = value.kind == Scalar::Kind::Float ? py_arith::convert_value<T>(value.f)
                                                  : py_arith::convert_value<T>(value.i);
    StridedLoop<1> loop(dst.shape, {&dst});
    loop.run([&](char** p, const int64_t* s, int64_t n) {
      if (s[0] == sizeof(T)) {
        T* o = reinterpret_cast<T*>(p[0]);
        for (int64_t i = 0; i < n; ++i) o[i] = v;
      } else {
        for (int64_t i = 0; i < n; ++i) *reinterpret_cast<T*>(p[0] + i * s[0]) = v;
      }
    });
  });
}

void binary(BinaryOp op, const Tensor& out, const Tensor& a, const Tensor& b) { isa_kernels().binary(op, out, a, b); }
void unary(UnaryOp op, const Tensor& out, const Tensor& in, UnaryParams p) { isa_kernels().unary(op, out, in, p); }
void copy(const Tensor& dst, const Tensor& src) { isa_kernels().copy(dst, src); }

void where(const Tensor& out, const Tensor& cond, const Tensor& a, const Tensor& b) {
  AK_DISPATCH_STORAGE(out.dtype, "where", [&](auto tag) {
    using T = decltype(tag);
    StridedLoop<4> loop(out.shape, {&out, &cond, &a, &b});
    loop.run([&](char** p, const int64_t* s, int64_t n) {
      for (int64_t i = 0; i < n; ++i)
        *reinterpret_cast<T*>(p[0] + i * s[0]) = *reinterpret_cast<const bool*>(p[1] + i * s[1])
                                                     ? *reinterpret_cast<const T*>(p[2] + i * s[2])
                                                     : *reinterpret_cast<const T*>(p[3] + i * s[3]);
    });
  });
}

// `in` viewed with index's shape and stride 0 along dim: the kernel adds
// index * stride(dim) itself. Indices are checked by the op beforehand.
Tensor along_dim_view(const Tensor& t, const Shape& shape, int64_t dim) {
  Shape strides = t.strides;
  strides[dim] = 0;
  return Tensor(t.storage, t.offset, shape, strides, t.dtype);
}

void gather(const Tensor& out, const Tensor& in, int64_t dim, const Tensor& index) {
  const Tensor src = along_dim_view(in, index.shape, dim);
  const int64_t step = in.strides[dim] * in.element_size(), size = in.element_size();
  StridedLoop<3> loop(out.shape, {&out, &index, &src});
  loop.run([&](char** p, const int64_t* s, int64_t n) {
    for (int64_t i = 0; i < n; ++i) {
      const int64_t k = *reinterpret_cast<const int64_t*>(p[1] + i * s[1]);
      std::memcpy(p[0] + i * s[0], p[2] + i * s[2] + k * step, size);
    }
  });
}

void scatter(const Tensor& out, int64_t dim, const Tensor& index, const Tensor& src, bool add) {
  const Tensor dst = along_dim_view(out, index.shape, dim);
  const Tensor src_view(src.storage, src.offset, index.shape, src.strides, src.dtype);
  const int64_t step = out.strides[dim] * out.element_size();
  AK_DISPATCH_STORAGE(out.dtype, "scatter", [&](auto tag) {
    using T = decltype(tag);
    StridedLoop<3> loop(index.shape, {&dst, &index, &src_view});
    loop.run(
        [&](char** p, const int64_t* s, int64_t n) {
          for (int64_t i = 0; i < n; ++i) {
            const int64_t k = *reinterpret_cast<const int64_t*>(p[1] + i * s[1]);
            T* o = reinterpret_cast<T*>(p[0] + i * s[0] + k * step);
            const T v = *reinterpret_cast<const T*>(p[2] + i * s[2]);
            if constexpr (std::is_same_v<T, bool>) *o = add ? (*o || v) : v;
            else if constexpr (std::is_same_v<T, Half> || std::is_same_v<T, BFloat16>)
              *o = add ? T(static_cast<float>(*o) + static_cast<float>(v)) : v;  // in float32, rounded once
            else *o = add ? py_arith::wrap_add(*o, v) : v;  // integers wrap as in PyTorch, defined
          }
        },
        std::numeric_limits<int64_t>::max());  // one thread: indices may collide
  });
}

// Slices of `in` along dim, in the order `index` names them. With both tensors
// contiguous, each (outer, k) pair is one memcpy of the inner block; otherwise
// gather does it element by element, with index viewed as out's shape
// (stride 0 everywhere but dim).
void index_select(const Tensor& out, const Tensor& in, int64_t dim, const Tensor& index) {
  const int64_t m = index.numel();
  const int64_t* idx = index.data<int64_t>();
  if (in.is_contiguous() && out.is_contiguous()) {
    int64_t outer = 1, inner = 1;
    for (int64_t d = 0; d < dim; ++d) outer *= in.shape[d];
    for (int64_t d = dim + 1; d < in.ndim(); ++d) inner *= in.shape[d];
    const int64_t bytes = inner * in.element_size(), size = in.shape[dim];
    const char* src = in.data_ptr();
    char* dst = out.data_ptr();
    parallel_for(0, outer * m, std::max<int64_t>(1, (1 << 16) / std::max<int64_t>(bytes, 1)), [&](int64_t b, int64_t e) {
      for (int64_t r = b; r < e; ++r) {
        const int64_t o = r / m, k = r % m;
        std::memcpy(dst + r * bytes, src + (o * size + idx[k]) * bytes, bytes);
      }
    });
    return;
  }
  Shape strides(out.ndim(), 0);
  strides[dim] = index.strides[0];
  gather(out, in, dim, Tensor(index.storage, index.offset, out.shape, strides, index.dtype));
}

void bmm(const Tensor& out, const Tensor& a, const Tensor& b) {
  const int64_t batch = out.shape[0], M = out.shape[1], N = out.shape[2], K = a.shape[2];
  AK_DISPATCH_FLOAT(out.dtype, "matmul", [&](auto tag) {
    using T = decltype(tag);
    for (int64_t i = 0; i < batch; ++i)
      gemm<T>(M, N, K, T(1), a.data<T>() + i * a.strides[0], a.strides[1], a.strides[2],
              b.data<T>() + i * b.strides[0], b.strides[1], b.strides[2], T(0),
              out.data<T>() + i * out.strides[0], out.strides[1], out.strides[2]);
  });
}

// Element i of a random tensor always comes from Philox block offset + i/4,
// word i%4 (float32), or block offset + i/2, words 2(i%2) and 2(i%2)+1
// (float64) — the same layout the CUDA backend uses, so streams match.
// Calls fill(o + first, u, count) for every block, with the block's uniforms
// u[0..per_block) in [0, 1) and count <= per_block elements left to write.
template <typename T, typename Fill>
void for_each_philox_block(const Tensor& out, uint64_t seed, uint64_t offset, const Fill& fill) {
  constexpr int64_t per_block = std::is_same_v<T, float> ? 4 : 2;
  const int64_t n = out.numel();
  T* o = out.data<T>();
  parallel_for(0, (n + per_block - 1) / per_block, 4096, [&](int64_t b, int64_t e) {
    for (int64_t blk = b; blk < e; ++blk) {
      const auto r = philox4x32(offset + blk, seed);
      double u[per_block];
      for (int64_t k = 0; k < per_block; ++k)
        u[k] = std::is_same_v<T, float> ? uniform_float(r[k]) : uniform_double(r[2 * k], r[2 * k + 1]);
      fill(o + blk * per_block, u, std::min(per_block, n - blk * per_block));
    }
  });
}

void random_uniform(const Tensor& out, uint64_t seed, uint64_t offset, double low, double high) {
  AK_DISPATCH_FLOAT(out.dtype, "rand", [&](auto tag) {
    using T = decltype(tag);
    for_each_philox_block<T>(out, seed, offset, [&](T* o, const double* u, int64_t count) {
      for (int64_t k = 0; k < count; ++k) o[k] = static_cast<T>(low + (high - low) * u[k]);
    });
  });
}

// Box-Muller: two uniforms give two independent standard normals.
void random_normal(const Tensor& out, uint64_t seed, uint64_t offset, double mean, double std) {
  AK_DISPATCH_FLOAT(out.dtype, "randn", [&](auto tag) {
    using T = decltype(tag);
    for_each_philox_block<T>(out, seed, offset, [&](T* o, const double* u, int64_t count) {
      for (int64_t k = 0; k < count; k += 2) {
        const double radius = std::sqrt(-2.0 * std::log(1.0 - u[k]));  // 1-u is in (0, 1]
        const double theta = 2.0 * M_PI * u[k + 1];
        o[k] = static_cast<T>(mean + std * radius * std::cos(theta));
        if (k + 1 < count) o[k + 1] = static_cast<T>(mean + std * radius * std::sin(theta));
      }
    });
  });
}

// The one-pass a + alpha * b and lerp of the CPU's ISA build (elementwise_loops.h).
void add_scaled(const Tensor& out, const Tensor& a, const Tensor& b, double alpha) {
  isa_kernels().add_scaled(out, a, b, alpha);
}
void lerp_scalar(const Tensor& out, const Tensor& a, const Tensor& b, double w) {
  isa_kernels().lerp_scalar(out, a, b, w);
}

const Backend kCpuBackend{
    allocate, copy, fill, binary, unary, where, reduce, arg_reduce, softmax, cumsum, bmm, gather, scatter,
    random_uniform, random_normal,
    // fused kernels
    linear, linear_backward, cross_entropy, cross_entropy_backward, add_scaled, lerp_scalar, index_select,
    optimizer_step,
    nullptr,  // optimizer_step_capturable: PyTorch refuses capturable=True on the CPU
    // fused pointwise losses (losses branch)
    pointwise_loss, pointwise_loss_backward,
    // CTC loss (losses branch)
    ctc_loss, ctc_loss_backward,
    // 2-d convolution and pooling (conv branch)
    conv2d, conv2d_backward, max_pool2d, avg_pool2d, avg_pool2d_backward,
    // sorting, scans and scatter reductions (api-shape branch)
    sort, scan, scatter_reduce};

struct Registrar {
  Registrar() { register_backend(DeviceType::CPU, &kCpuBackend); }
} registrar;

}  // namespace
}  // namespace aakaar::cpu
