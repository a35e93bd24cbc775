// The CPU's fused Linear layer: the backend entries `linear` and
// `linear_backward` (core/backend.h).
//
// Forward, out = act(x @ W^T + b). Written as three ops (matmul, add, relu) a
// layer makes three passes over its output and three temporaries. Here the
// GEMM adds the bias and applies the ReLU to each tile of the output while the
// tile is still in cache (cpu::gemm_bias_act). W^T is not copied: it is W read
// with its two strides swapped.
//
// Backward, with g the gradient of out and g' = g masked by the activation
// (for ReLU: 0 where out <= 0, as torch's threshold_backward does):
//
//   grad_x = g' @ W       (M, N) @ (N, K)
//   grad_W = g'^T @ x     (N, M) @ (M, K)
//   grad_b = sum(g', 0)
//
// The mask is taken from the saved *output* (out > 0 exactly where the
// pre-activation was > 0), so the pre-activation is never stored. One pass
// over g writes g' and sums its columns, then two GEMMs read g'^T and x, W in
// place through their strides: no transposed copy is ever made.
#include <type_traits>
#include <vector>

#include "core/error.h"
#include "cpu/backend_cpu.h"
#include "cpu/gemm/gemm.h"
#include "cpu/isa.h"

namespace aakaar::cpu {
namespace {

// [[book:linear_forward]]
template <typename T>
void linear_forward(const Tensor& out, const Tensor& x, const Tensor& w, const Tensor* b, LinearActivation act) {
  const int64_t M = x.shape[0], K = x.shape[1], N = w.shape[0];
  // B = W^T: element (k, j) of B is W[j, k], so B's row stride is W's column stride.
  gemm_bias_act<T>(M, N, K, T(1), x.data<T>(), x.strides[0], x.strides[1],
                   w.data<T>(), w.strides[1], w.strides[0], T(0),
                   out.data<T>(), out.strides[0], out.strides[1],
                   b ? b->data<T>() : nullptr, b ? b->strides[0] : 0,
                   act == LinearActivation::ReLU ? GemmActivation::ReLU : GemmActivation::None);
}
// [[/book:linear_forward]]

// [[book:linear_backward]]
// Row kernels written so that GCC vectorises them: restrict pointers (no
// aliasing to check) and g loaded unconditionally (a load only on one side of
// the select is control flow, which kept the loop scalar, a compare and a
// branch per element: slower than the three separate ops this replaces).
template <typename T>
void relu_mask_row(int64_t n, const T* __restrict y, const T* __restrict g, T* __restrict out) {
  for (int64_t j = 0; j < n; ++j) {
    const T gj = g[j];
    out[j] = y[j] <= T(0) ? T(0) : gj;
  }
}

template <typename T>
void add_row_to(int64_t n, const T* __restrict src, double* __restrict acc) {
  for (int64_t j = 0; j < n; ++j) acc[j] += static_cast<double>(src[j]);
}

// g' = mask(g) and grad_b = column sums of g', in one pass over g.
template <typename T>
void mask_and_column_sums(int64_t M, int64_t N, const T* g, int64_t rs_g, int64_t cs_g, const T* y, bool relu,
                          T* gm, T* gb, int64_t gb_stride) {
  // float32 column sums accumulate in double: M can be large (a big batch
  // or a sequence flattened into rows) and the result must match torch.
  std::vector<double> acc(gb ? N : 0, 0.0);
  auto store_sums = [&] {
    for (int64_t j = 0; j < (gb ? N : 0); ++j) gb[j * gb_stride] = static_cast<T>(acc[j]);
  };
  if constexpr (std::is_same_v<T, float>) {
    if (cs_g == 1) {  // the usual layout: the vectorised loop of the CPU's ISA build
      isa_kernels().linear_mask_colsum_f32(M, N, g, rs_g, relu ? y : nullptr, gm, gb ? acc.data() : nullptr);
      return store_sums();
    }
  }
  for (int64_t i = 0; i < M; ++i) {
    const T* src = g + i * rs_g;
    int64_t cs = cs_g;
    if (relu) {
      const T* yi = y + i * N;
      T* gmi = gm + i * N;
      if (cs_g == 1) {
        relu_mask_row(N, yi, src, gmi);
      } else {
        for (int64_t j = 0; j < N; ++j) gmi[j] = yi[j] <= T(0) ? T(0) : src[j * cs_g];
      }
      src = gmi;
      cs = 1;
    }
    if (gb) {
      if (cs == 1) {
        add_row_to(N, src, acc.data());
      } else {
        for (int64_t j = 0; j < N; ++j) acc[j] += src[j * cs];
      }
    }
  }
  store_sums();
}

template <typename T>
void linear_backward_impl(const Tensor* grad_x, const Tensor* grad_w, const Tensor* grad_b, const Tensor& g,
                          const Tensor& x, const Tensor& w, const Tensor* y) {
  const int64_t M = x.shape[0], K = x.shape[1], N = w.shape[0];
  const bool relu = y != nullptr;
  // Without ReLU g' is g itself, read through its strides; with it, g' is a
  // fresh contiguous (M, N) tensor.
  TensorPtr masked = relu ? Tensor::empty({M, N}, g.dtype) : nullptr;
  const Tensor& gm = relu ? *masked : g;
  if (relu || grad_b)
    mask_and_column_sums<T>(M, N, g.data<T>(), g.strides[0], g.strides[1], relu ? y->data<T>() : nullptr, relu,
                            relu ? masked->data<T>() : nullptr, grad_b ? grad_b->data<T>() : nullptr,
                            grad_b ? grad_b->strides[0] : 0);
  const T* G = gm.data<T>();
  const int64_t rs_gm = gm.strides[0], cs_gm = gm.strides[1];
  if (grad_x)  // grad_x = g' @ W
    gemm<T>(M, K, N, T(1), G, rs_gm, cs_gm, w.data<T>(), w.strides[0], w.strides[1], T(0),
            grad_x->data<T>(), grad_x->strides[0], grad_x->strides[1]);
  if (grad_w)  // grad_W = g'^T @ x: g'^T is g' with its strides swapped
    gemm<T>(N, K, M, T(1), G, cs_gm, rs_gm, x.data<T>(), x.strides[0], x.strides[1], T(0),
            grad_w->data<T>(), grad_w->strides[0], grad_w->strides[1]);
}
// [[/book:linear_backward]]

}  // namespace

void linear(const Tensor& out, const Tensor& x, const Tensor& w, const Tensor* b, LinearActivation act) {
  AK_DISPATCH_FLOAT(x.dtype, "linear", [&](auto tag) { linear_forward<decltype(tag)>(out, x, w, b, act); });
}

void linear_backward(const Tensor* grad_x, const Tensor* grad_w, const Tensor* grad_b, const Tensor& g,
                     const Tensor& x, const Tensor& w, const Tensor* y) {
  AK_DISPATCH_FLOAT(g.dtype, "linear backward", [&](auto tag) {
    linear_backward_impl<decltype(tag)>(grad_x, grad_w, grad_b, g, x, w, y);
  });
}

}  // namespace aakaar::cpu
