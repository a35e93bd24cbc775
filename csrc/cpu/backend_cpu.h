// The CPU backend: kernels for every entry of the dispatch table.
#pragma once
#include "core/backend.h"

namespace aakaar::cpu {

void reduce(ReduceOp op, const Tensor& out, const Tensor& in);
void arg_reduce(bool is_max, const Tensor& values, const Tensor& indices, const Tensor& in, int64_t dim);
void softmax(const Tensor& out, const Tensor& in, int64_t dim, bool log);
void cumsum(const Tensor& out, const Tensor& in, int64_t dim);

// Fused kernels (cpu/fused/): the nullable entries of the table, as core/backend.h describes them.
void linear(const Tensor& out, const Tensor& x, const Tensor& w, const Tensor* b, LinearActivation act);
void linear_backward(const Tensor* grad_x, const Tensor* grad_w, const Tensor* grad_b, const Tensor& g,
                     const Tensor& x, const Tensor& w, const Tensor* y);
void cross_entropy(const Tensor& loss, const Tensor& e, const Tensor& inv, const Tensor& total, const Tensor& x,
                   const Tensor& t, Reduction r, const CrossEntropyOptions& o);
void cross_entropy_backward(const Tensor& grad, const Tensor& g, const Tensor& t, const Tensor& e,
                            const Tensor& inv, const Tensor& total, Reduction r, const CrossEntropyOptions& o);
void optimizer_step(const OptimizerStep& step, const TensorList& params, const TensorList& grads,
                    const std::vector<TensorList>& states);
// Fused pointwise losses (cpu/fused/pointwise_loss.cpp).
void pointwise_loss(PointwiseLoss kind, const Tensor& loss, const Tensor* aux, const Tensor& x, const Tensor& t,
                    const Tensor* weight, const Tensor* pos_weight, double param, Reduction r);
void pointwise_loss_backward(PointwiseLoss kind, const Tensor& grad_x, const Tensor& g, const Tensor* aux,
                             const Tensor& x, const Tensor& t, const Tensor* weight, const Tensor* pos_weight,
                             double param, Reduction r);
// out[k] = exp, log or log1p (which = 0, 1, 2) of x[k] by vec_math.h's float32 functions, in
// the build isa() chose (cpu/fused/pointwise_loss.cpp): for the tests of their accuracy.
void vec_math_f32(int which, int64_t n, const float* x, float* out);
// CTC loss, forward and backward (cpu/fused/ctc_loss.cpp).
void ctc_loss(const Tensor& nll, const Tensor& log_alpha, const Tensor& log_probs, const Tensor& targets,
              const CtcLossArgs& a);
void ctc_loss_backward(const Tensor& grad, const Tensor& g, const Tensor& log_probs, const Tensor& targets,
                       const Tensor& nll, const Tensor& log_alpha, const CtcLossArgs& a);
// 2-d convolution (cpu/fused/conv2d.cpp) and pooling (cpu/fused/conv2d_pool.cpp).
void conv2d(const Tensor& out, const Tensor& x, const Tensor& w, const Tensor* b, const Conv2dArgs& a);
void conv2d_backward(const Tensor* grad_x, const Tensor* grad_w, const Tensor* grad_b, const Tensor& g,
                     const Tensor& x, const Tensor& w, const Conv2dArgs& a);
void max_pool2d(const Tensor& out, const Tensor& indices, const Tensor& x, const Pool2dArgs& a);
void avg_pool2d(const Tensor& out, const Tensor& x, const Pool2dArgs& a);
void avg_pool2d_backward(const Tensor& grad_x, const Tensor& g, const Pool2dArgs& a);

// ---- api-shape branch: sorting, scans and scatter reductions (cpu/sort_scan.cpp) ----
void sort(const Tensor& values, const Tensor& indices, const Tensor& in, int64_t dim, bool descending, int64_t k);
void scan(ScanOp op, const Tensor& out, const Tensor* indices, const Tensor& in, int64_t dim);
void scatter_reduce(ScatterReduceOp op, const Tensor& out, int64_t dim, const Tensor& index, const Tensor& src);

}  // namespace aakaar::cpu
