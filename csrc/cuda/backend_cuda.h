// The CUDA backend: one function per entry of the dispatch table (core/backend.h),
// spread over the files beside this one by kind of kernel. backend_cuda.cu assembles
// them into the table and registers it when a device is usable.
//
// The same sources build for a real GPU (nvcc) and for the CUDA emulator (the host
// compiler, cuda/emu), where "device memory" is host memory and kernels run on the CPU.
#pragma once
#include "core/backend.h"

namespace aakaar::cuda {

// copy.cu. `copy` also moves bytes between the host and the device when exactly one
// of dst and src lives on the CPU (this is how ops::to_device crosses devices).
void copy(const Tensor& dst, const Tensor& src);
void fill(const Tensor& dst, Scalar value);
void where(const Tensor& out, const Tensor& cond, const Tensor& a, const Tensor& b);

// elementwise_ops.cu
void binary(BinaryOp op, const Tensor& out, const Tensor& a, const Tensor& b);
void unary(UnaryOp op, const Tensor& out, const Tensor& in, UnaryParams p);

// index_ops.cu
void gather(const Tensor& out, const Tensor& in, int64_t dim, const Tensor& index);
void scatter(const Tensor& out, int64_t dim, const Tensor& index, const Tensor& src, bool add);

// reduce_ops.cu
void reduce(ReduceOp op, const Tensor& out, const Tensor& in);
void arg_reduce(bool is_max, const Tensor& values, const Tensor& indices, const Tensor& in, int64_t dim);
void softmax(const Tensor& out, const Tensor& in, int64_t dim, bool log);
void cumsum(const Tensor& out, const Tensor& in, int64_t dim);

// random_ops.cu
void random_uniform(const Tensor& out, uint64_t seed, uint64_t offset, double low, double high);
void random_normal(const Tensor& out, uint64_t seed, uint64_t offset, double mean, double std);

// optimizer_ops.cu: every OptimizerKind, many parameters per launch.
void optimizer_step(const OptimizerStep& st, const TensorList& params, const TensorList& grads,
                    const std::vector<TensorList>& states);
void optimizer_step_capturable(const OptimizerStep& st, const TensorList& params, const TensorList& grads,
                               const std::vector<TensorList>& states, const OptimizerCounters& counters);

// loss_ops.cu
void cross_entropy(const Tensor& loss, const Tensor& e, const Tensor& inv, const Tensor& total, const Tensor& x,
                   const Tensor& t, Reduction r, const CrossEntropyOptions& o);
void cross_entropy_backward(const Tensor& grad, const Tensor& g, const Tensor& t, const Tensor& e, const Tensor& inv,
                            const Tensor& total, Reduction r, const CrossEntropyOptions& o);
void pointwise_loss(PointwiseLoss kind, const Tensor& loss, const Tensor* aux, const Tensor& x, const Tensor& t,
                    const Tensor* weight, const Tensor* pos_weight, double param, Reduction r);
void pointwise_loss_backward(PointwiseLoss kind, const Tensor& grad_x, const Tensor& g, const Tensor* aux,
                             const Tensor& x, const Tensor& t, const Tensor* weight, const Tensor* pos_weight,
                             double param, Reduction r);

// ctc_ops.cu
void ctc_loss(const Tensor& nll, const Tensor& log_alpha, const Tensor& log_probs, const Tensor& targets,
              const CtcLossArgs& a);
void ctc_loss_backward(const Tensor& grad, const Tensor& g, const Tensor& log_probs, const Tensor& targets,
                       const Tensor& nll, const Tensor& log_alpha, const CtcLossArgs& a);

// conv_ops.cu: implicit-GEMM convolution (conv1d, conv3d and the transposed ones reach it too).
void conv2d(const Tensor& out, const Tensor& x, const Tensor& w, const Tensor* b, const Conv2dArgs& a);
void conv2d_backward(const Tensor* grad_x, const Tensor* grad_w, const Tensor* grad_b, const Tensor& g,
                     const Tensor& x, const Tensor& w, const Conv2dArgs& a);

// pool_ops.cu
void max_pool2d(const Tensor& out, const Tensor& indices, const Tensor& x, const Pool2dArgs& a);
void avg_pool2d(const Tensor& out, const Tensor& x, const Pool2dArgs& a);
void avg_pool2d_backward(const Tensor& grad_x, const Tensor& g, const Pool2dArgs& a);

// sort_scan_ops.cu
void sort(const Tensor& values, const Tensor& indices, const Tensor& in, int64_t dim, bool descending, int64_t k);
void scan(ScanOp op, const Tensor& out, const Tensor* indices, const Tensor& in, int64_t dim);
void scatter_reduce(ScatterReduceOp op, const Tensor& out, int64_t dim, const Tensor& index, const Tensor& src);

// backend_cuda.cu
void bmm(const Tensor& out, const Tensor& a, const Tensor& b);

// runtime.cu
int device_count();

}  // namespace aakaar::cuda
