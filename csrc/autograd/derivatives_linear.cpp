// Backward of out = act(x @ W^T + b), x (M, K), W (N, K), b (N).
//
// With g the gradient of out and g' = g masked by the activation
// (for ReLU: 0 where out <= 0, as torch's threshold_backward does):
//
//   grad_x = g' @ W       (M, N) @ (N, K)
//   grad_W = g'^T @ x     (N, M) @ (M, K)
//   grad_b = sum(g', 0)
//
// The mask is taken from the saved *output* (out > 0 exactly where the
// pre-activation was > 0), so the pre-activation is never stored. The fast
// path makes one pass over g that writes g' and sums its columns, then two
// GEMMs that read g'^T and x, W in place through their strides: no
// transposed copy is ever made. Under create_graph (double backward) the
// same formulas are written with ordinary ops so they are recorded too.
#include "autograd/derivatives_linear.h"

#include <type_traits>
#include <vector>

#include "autograd/derivatives.h"
#include "autograd/function.h"
#include "core/error.h"
#include "cpu/gemm/gemm.h"
#include "cpu/isa.h"

namespace aakaar::autograd {
namespace {

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
                          T* gm, T* gb) {
  // float32 column sums accumulate in double: M can be large (a big batch
  // or a sequence flattened into rows) and the result must match torch.
  std::vector<double> acc(gb ? N : 0, 0.0);
  if constexpr (std::is_same_v<T, float>) {
    if (cs_g == 1) {  // the usual layout: the vectorised loop of the CPU's ISA build
      cpu::kernels().linear_mask_colsum_f32(M, N, g, rs_g, relu ? y : nullptr, gm, gb ? acc.data() : nullptr);
      for (int64_t j = 0; j < (gb ? N : 0); ++j) gb[j] = static_cast<T>(acc[j]);
      return;
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
  for (int64_t j = 0; j < (gb ? N : 0); ++j) gb[j] = static_cast<T>(acc[j]);
}

template <typename T>
TensorList linear_backward_cpu(const TensorPtr& g, const TensorPtr& x, const TensorPtr& w, const TensorPtr& y,
                               bool relu, const Needs& needs) {
  const int64_t M = x->shape[0], K = x->shape[1], N = w->shape[0];
  const DType dt = g->dtype;
  TensorList grads(3);
  if (needs[2]) grads[2] = Tensor::empty({N}, dt);
  // Without ReLU g' is g itself, read through its strides; with it, g' is a
  // fresh contiguous (M, N) tensor.
  TensorPtr gm = relu ? Tensor::empty({M, N}, dt) : g;
  if (relu || needs[2])
    mask_and_column_sums<T>(M, N, g->data<T>(), g->strides[0], g->strides[1], relu ? y->data<T>() : nullptr, relu,
                            relu ? gm->data<T>() : nullptr, needs[2] ? grads[2]->data<T>() : nullptr);
  const T* G = gm->data<T>();
  const int64_t rs_gm = gm->strides[0], cs_gm = gm->strides[1];
  if (needs[0]) {  // grad_x = g' @ W
    grads[0] = Tensor::empty({M, K}, dt);
    cpu::gemm<T>(M, K, N, T(1), G, rs_gm, cs_gm, w->data<T>(), w->strides[0], w->strides[1], T(0),
                 grads[0]->data<T>(), K, 1);
  }
  if (needs[1]) {  // grad_W = g'^T @ x: g'^T is g' with its strides swapped
    grads[1] = Tensor::empty({N, K}, dt);
    cpu::gemm<T>(N, K, M, T(1), G, cs_gm, rs_gm, x->data<T>(), x->strides[0], x->strides[1], T(0),
                 grads[1]->data<T>(), K, 1);
  }
  return grads;
}
// [[/book:linear_backward]]

// The same formulas with recorded ops, for create_graph.
TensorList linear_backward_ops(const TensorPtr& g, const TensorPtr& x, const TensorPtr& w, const TensorPtr& y,
                               bool relu, const Needs& needs) {
  TensorPtr gm = g;
  if (relu) {
    TensorPtr keep = ops::binary_scalar(BinaryOp::Gt, y, Scalar::from_double(0.0), false);
    gm = ops::binary(BinaryOp::Mul, g, ops::to_dtype(keep, g->dtype));
  }
  TensorList grads(3);
  if (needs[0]) grads[0] = ops::mm(gm, w);
  if (needs[1]) grads[1] = ops::mm(ops::transpose(gm, 0, 1), x);
  if (needs[2]) grads[2] = ops::sum(gm, ops::DimList{0}, false, std::nullopt);
  return grads;
}

}  // namespace

void record_linear(const TensorPtr& out, const TensorPtr& x, const TensorPtr& w, const TensorPtr& b,
                   ops::LinearActivation act) {
  const bool relu = act == ops::LinearActivation::ReLU;
  TensorList to_save{x, w};
  if (relu) to_save.push_back(out);
  record(relu ? "LinearReluBackward" : "LinearBackward", {x, w, b}, out, to_save,
         [relu](const TensorList& g, const TensorList& s, const Needs& needs) {
           const TensorPtr y = relu ? s[2] : nullptr;
           if (grad_enabled() || g[0]->device().type != DeviceType::CPU)
             return linear_backward_ops(g[0], s[0], s[1], y, relu, needs);
           return AK_DISPATCH_FLOAT(g[0]->dtype, "linear backward", [&](auto tag) {
             return linear_backward_cpu<decltype(tag)>(g[0], s[0], s[1], y, relu, needs);
           });
         });
}

}  // namespace aakaar::autograd
