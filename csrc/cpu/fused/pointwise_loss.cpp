// The CPU's fused pointwise losses: the backend entries `pointwise_loss` and
// `pointwise_loss_backward` (core/backend.h) for MSE, L1, Huber, SmoothL1, BCE
// and BCEWithLogits.
//
// Written as ops, mse_loss(x, t) is a subtraction, a square and a mean: three
// passes, two temporaries the size of the input, three autograd nodes, and a
// backward of three more passes. Here the forward is one pass that sums each
// element's loss as it goes, and the backward one pass that writes
//
//   grad_x[k] = loss'(x[k], t[k]) * g_k * w[k],   g_k = g / n (mean), g (sum), g[k] (none)
//
// with the derivative of each loss in closed form (PyTorch's formulas, so the
// same values: BCE's denominator clamped at 1e-12, Huber's gradient clipped at
// +-delta). BCEWithLogits keeps exp(-|x|) from the forward, so its backward
// computes no exponential.
//
// Sums go by fixed blocks of kBlock elements, each summed in double, then the
// block sums in order: the result is the same for any thread count, and a
// float32 sum of a million elements loses no digits.
//
// The loops themselves (pointwise_loss_loops.h) are compiled once per
// instruction set, and the widest this CPU runs is chosen at run time
// (cpu/isa.h). In float32 their logs and exponentials are vec_math.h's
// vectorisable ones: BCEWithLogits with a std::log1p and a std::exp per element
// was a library call each, six times slower than PyTorch's vectorised loop.
#include <algorithm>
#include <type_traits>
#include <vector>

#include "core/error.h"
#include "cpu/backend_cpu.h"
#include "cpu/fused/pointwise_loss_kernels.h"
#include "cpu/isa.h"
#include "cpu/parallel.h"

// The baseline (SSE2) build of the loops.
#define AK_KERNEL_NS baseline
#include "cpu/fused/pointwise_loss_loops.h"
#undef AK_KERNEL_NS

namespace aakaar::cpu {
namespace {

constexpr int64_t kBlock = 4096;

// Blocks per task: a few hundred thousand cheap elements, fewer for those with a log or exp.
int64_t block_grain(PointwiseLoss kind) {
  return kind == PointwiseLoss::BCE || kind == PointwiseLoss::BCEWithLogits ? 4 : 16;
}

// The loops of the build isa() chose.
struct Loops {
  double (*forward_f32)(PointwiseLoss, const PointwiseData&, int64_t, int64_t, float*);
  double (*forward_f64)(PointwiseLoss, const PointwiseData&, int64_t, int64_t, double*);
  void (*backward_f32)(PointwiseLoss, const PointwiseData&, int64_t, int64_t, const float*, float, float*);
  void (*backward_f64)(PointwiseLoss, const PointwiseData&, int64_t, int64_t, const double*, double, double*);
  void (*vec_math_f32)(int, int64_t, const float*, float*);
};

#define AK_POINTWISE_LOOPS(ns) \
  Loops { ns::pointwise_forward_f32, ns::pointwise_forward_f64, ns::pointwise_backward_f32, \
          ns::pointwise_backward_f64, ns::vec_math_f32 }

const Loops& loops() {
  static const Loops table = [] {
#if defined(__x86_64__) || defined(_M_X64)
    if (isa() == Isa::Avx512) return AK_POINTWISE_LOOPS(avx512);
    if (isa() == Isa::Avx2) return AK_POINTWISE_LOOPS(avx2);
#endif
    return AK_POINTWISE_LOOPS(baseline);
  }();
  return table;
}
#undef AK_POINTWISE_LOOPS

template <typename T>
double forward_run(PointwiseLoss kind, const PointwiseData& d, int64_t lo, int64_t hi, T* out) {
  if constexpr (std::is_same_v<T, float>) return loops().forward_f32(kind, d, lo, hi, out);
  else return loops().forward_f64(kind, d, lo, hi, out);
}

template <typename T>
void backward_run(PointwiseLoss kind, const PointwiseData& d, int64_t lo, int64_t hi, const T* G, T g_all, T* out) {
  if constexpr (std::is_same_v<T, float>) loops().backward_f32(kind, d, lo, hi, G, g_all, out);
  else loops().backward_f64(kind, d, lo, hi, G, g_all, out);
}

template <typename T>
void forward_typed(PointwiseLoss kind, const Tensor& loss, const PointwiseData& d, Reduction r) {
  const int64_t n = d.n, blocks = (n + kBlock - 1) / kBlock;
  if (r == Reduction::None) {
    T* L = loss.data<T>();
    parallel_for(0, blocks, block_grain(kind), [&](int64_t b0, int64_t b1) {
      forward_run<T>(kind, d, b0 * kBlock, std::min(n, b1 * kBlock), L);
    });
    return;
  }
  std::vector<double> part(static_cast<size_t>(blocks));
  parallel_for(0, blocks, block_grain(kind), [&](int64_t b0, int64_t b1) {
    for (int64_t b = b0; b < b1; ++b)
      part[static_cast<size_t>(b)] = forward_run<T>(kind, d, b * kBlock, std::min(n, (b + 1) * kBlock), nullptr);
  });
  double total = 0;
  for (double s : part) total += s;
  // The mean of nothing is 0/0 = NaN, as in PyTorch.
  *loss.data<T>() = static_cast<T>(r == Reduction::Mean ? total / static_cast<double>(n) : total);
}

template <typename T>
void backward_typed(PointwiseLoss kind, const Tensor& grad, const Tensor& g, const PointwiseData& d, Reduction r) {
  const T* G = g.data<T>();
  const int64_t n = d.n, blocks = (n + kBlock - 1) / kBlock;
  const T g_all = r == Reduction::Mean ? static_cast<T>(static_cast<double>(G[0]) / static_cast<double>(n))
                  : r == Reduction::Sum ? G[0] : T(0);
  T* out = grad.data<T>();
  parallel_for(0, blocks, block_grain(kind), [&](int64_t b0, int64_t b1) {
    backward_run<T>(kind, d, b0 * kBlock, std::min(n, b1 * kBlock), r == Reduction::None ? G : nullptr, g_all, out);
  });
}

PointwiseData data_of(const Tensor* aux, const Tensor& x, const Tensor& t, const Tensor* weight,
                      const Tensor* pos_weight, double param) {
  return PointwiseData{x.numel(),
                       x.data_ptr(),
                       t.data_ptr(),
                       weight ? weight->data_ptr() : nullptr,
                       pos_weight ? pos_weight->data_ptr() : nullptr,
                       aux ? aux->data_ptr() : nullptr,
                       param};
}

}  // namespace

void pointwise_loss(PointwiseLoss kind, const Tensor& loss, const Tensor* aux, const Tensor& x, const Tensor& t,
                    const Tensor* weight, const Tensor* pos_weight, double param, Reduction r) {
  const PointwiseData d = data_of(aux, x, t, weight, pos_weight, param);
  AK_DISPATCH_FLOAT(x.dtype, "pointwise_loss", [&](auto tag) { forward_typed<decltype(tag)>(kind, loss, d, r); });
}

void pointwise_loss_backward(PointwiseLoss kind, const Tensor& grad_x, const Tensor& g, const Tensor* aux,
                             const Tensor& x, const Tensor& t, const Tensor* weight, const Tensor* pos_weight,
                             double param, Reduction r) {
  const PointwiseData d = data_of(aux, x, t, weight, pos_weight, param);
  AK_DISPATCH_FLOAT(x.dtype, "pointwise_loss backward",
                    [&](auto tag) { backward_typed<decltype(tag)>(kind, grad_x, g, d, r); });
}

void vec_math_f32(int which, int64_t n, const float* x, float* out) { loops().vec_math_f32(which, n, x, out); }

}  // namespace aakaar::cpu
