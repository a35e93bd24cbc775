// Every tensor operation of the core. An op checks its arguments (raising
// errors that name shapes, dtypes and dims), works out the result's shape and
// dtype, allocates it, and hands the work to the backend of the tensors'
// device. Ops never touch memory themselves.
#pragma once
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "core/backend.h"
#include "core/tensor.h"

namespace aakaar::ops {

using DimList = std::vector<int64_t>;

// ---- creation (creation.cpp) ----
TensorPtr empty(const Shape& shape, DType dtype, Device device = {});
TensorPtr full(const Shape& shape, Scalar value, DType dtype, Device device = {});
TensorPtr scalar_tensor(Scalar value, DType dtype, Device device = {});
TensorPtr arange(double start, double end, double step, DType dtype, Device device = {});
// arange of int64 arguments, computed exactly (no double rounding, no overflow).
TensorPtr arange_int(int64_t start, int64_t end, int64_t step, DType dtype, Device device = {});
TensorPtr linspace(double start, double end, int64_t steps, DType dtype, Device device = {});
TensorPtr eye(int64_t n, int64_t m, DType dtype, Device device = {});

// ---- random numbers (creation.cpp) ----
struct Generator {
  uint64_t seed = 0;
  uint64_t offset = 0;  // Philox blocks consumed so far
};
Generator& default_generator();
TensorPtr rand(const Shape& shape, DType dtype, Generator& gen, Device device = {});
TensorPtr randn(const Shape& shape, DType dtype, Generator& gen, Device device = {});
TensorPtr randint(int64_t low, int64_t high, const Shape& shape, DType dtype, Generator& gen, Device device = {});
TensorPtr randperm(int64_t n, DType dtype, Generator& gen, Device device = {});
TensorPtr bernoulli(const TensorPtr& p, Generator& gen);

// ---- views (view.cpp): all share storage with their input ----
TensorPtr as_strided(const TensorPtr& t, const Shape& shape, const Shape& strides, std::optional<int64_t> offset);
TensorPtr view(const TensorPtr& t, Shape shape);
TensorPtr reshape(const TensorPtr& t, Shape shape);  // a view when possible, else a copy
std::optional<Shape> view_strides(const Shape& old_shape, const Shape& old_strides, const Shape& new_shape);
Shape infer_shape(Shape shape, int64_t numel);
TensorPtr transpose(const TensorPtr& t, int64_t d0, int64_t d1);
TensorPtr permute(const TensorPtr& t, DimList dims);
TensorPtr expand(const TensorPtr& t, const Shape& shape);
TensorPtr squeeze(const TensorPtr& t, std::optional<DimList> dims);
TensorPtr unsqueeze(const TensorPtr& t, int64_t dim);
TensorPtr flatten(const TensorPtr& t, int64_t start, int64_t end);
TensorPtr unflatten(const TensorPtr& t, int64_t dim, Shape sizes);
TensorPtr narrow(const TensorPtr& t, int64_t dim, int64_t start, int64_t length);
TensorPtr slice(const TensorPtr& t, int64_t dim, std::optional<int64_t> start, std::optional<int64_t> stop, int64_t step);
TensorPtr select(const TensorPtr& t, int64_t dim, int64_t index);
TensorPtr diagonal(const TensorPtr& t, int64_t offset, int64_t d0, int64_t d1);
std::vector<TensorPtr> split(const TensorPtr& t, int64_t size, int64_t dim);
std::vector<TensorPtr> split_sizes(const TensorPtr& t, const Shape& sizes, int64_t dim);
std::vector<TensorPtr> chunk(const TensorPtr& t, int64_t chunks, int64_t dim);
std::vector<TensorPtr> unbind(const TensorPtr& t, int64_t dim);
TensorPtr contiguous(const TensorPtr& t);
TensorPtr clone(const TensorPtr& t);
TensorPtr to_dtype(const TensorPtr& t, DType dtype, bool copy = false);
TensorPtr to_device(const TensorPtr& t, Device device);
void copy_(const TensorPtr& dst, const TensorPtr& src);  // src broadcast to dst, dtype converted
void fill_(const TensorPtr& dst, Scalar value);

// ---- elementwise (elementwise.cpp) ----
DType result_type(const TensorPtr& a, const TensorPtr& b);
TensorPtr binary(BinaryOp op, const TensorPtr& a, const TensorPtr& b);
TensorPtr binary_scalar(BinaryOp op, const TensorPtr& a, Scalar b, bool reverse);
// tensor OP number's refusals, as PyTorch's (a bool number in a subtraction, an integer tensor to
// a negative integer power): shared by the out-of-place and in-place roads.
void check_scalar_operand(BinaryOp op, DType a, const Scalar& b);
void binary_(BinaryOp op, const TensorPtr& self, const TensorPtr& other);  // self = self op other
// a + alpha * b or a - alpha * b (torch.add/sub's alpha; op is Add or Sub). Floating CPU
// tensors outside the autograd graph take one fused pass; everything else is the
// recorded composite a op (b * alpha), with binary()'s checks and messages.
TensorPtr binary_alpha(BinaryOp op, const TensorPtr& a, const TensorPtr& b, Scalar alpha);
void binary_alpha_(BinaryOp op, const TensorPtr& self, const TensorPtr& other, Scalar alpha);
// torch.lerp: self + weight * (end - self), floating dtypes only; end (and a
// tensor weight) must have self's dtype. `weight` null means the scalar w.
TensorPtr lerp(const TensorPtr& self, const TensorPtr& end, const TensorPtr& weight, double w);
void lerp_(const TensorPtr& self, const TensorPtr& end, const TensorPtr& weight, double w);
TensorPtr unary(UnaryOp op, const TensorPtr& t, UnaryParams p = {});
void unary_(UnaryOp op, const TensorPtr& t, UnaryParams p = {});
TensorPtr where(const TensorPtr& cond, const TensorPtr& a, const TensorPtr& b);
// clamp with tensor bounds (either may be null, not both): min(max(t, lo), hi), broadcast and
// promoted, with torch's gradients (t's passes where lo <= t <= hi, the bounds included).
TensorPtr clamp_tensor(const TensorPtr& t, const TensorPtr& lo, const TensorPtr& hi);
TensorPtr masked_fill(const TensorPtr& t, const TensorPtr& mask, Scalar value);
// Wraps a Python number as a 0-d tensor of the dtype it should compute in with `like`.
TensorPtr wrap_scalar(Scalar s, const TensorPtr& like);
// PyTorch's rule for writing a Python number into a tensor of `dtype` (full,
// fill_, index assignment, masked_fill): an ArgumentError when the value
// "cannot be converted without overflow" -- NaN or a value beyond the range
// into an integer dtype, a finite float beyond float32's range into float32.
// Integers into uint8 may be in [-255, 255] (negatives wrap, as in PyTorch).
// Binary ops with a number (uint8_tensor + 256) are not checked (they wrap,
// as in PyTorch).
void check_scalar_fits(Scalar s, DType dtype, const char* op);
// Whether v is a whole number (finite, no fraction): integer clamp bounds.
bool is_whole(double v);

// ---- reductions (reduce.cpp) ----
TensorPtr reduce(ReduceOp op, const TensorPtr& t, std::optional<DimList> dims, bool keepdim);
TensorPtr sum(const TensorPtr& t, std::optional<DimList> dims, bool keepdim, std::optional<DType> dtype);
TensorPtr mean(const TensorPtr& t, std::optional<DimList> dims, bool keepdim);
TensorPtr var(const TensorPtr& t, std::optional<DimList> dims, double correction, bool keepdim);
// sqrt(var), with a gradient of 0 (not NaN) where the deviation is 0, like PyTorch.
TensorPtr std_dev(const TensorPtr& t, std::optional<DimList> dims, double correction, bool keepdim);
std::pair<TensorPtr, TensorPtr> max_dim(const TensorPtr& t, int64_t dim, bool keepdim, bool is_max);
TensorPtr argmax(const TensorPtr& t, std::optional<int64_t> dim, bool keepdim, bool is_max);
TensorPtr logsumexp(const TensorPtr& t, DimList dims, bool keepdim);
TensorPtr softmax(const TensorPtr& t, int64_t dim, bool log);
TensorPtr cumsum(const TensorPtr& t, int64_t dim);

// ---- indexing and joining (index.cpp) ----
TensorPtr index_select(const TensorPtr& t, int64_t dim, const TensorPtr& index);
TensorPtr gather(const TensorPtr& t, int64_t dim, const TensorPtr& index);
TensorPtr scatter(const TensorPtr& t, int64_t dim, const TensorPtr& index, const TensorPtr& src, bool add);
void scatter_(const TensorPtr& t, int64_t dim, const TensorPtr& index, const TensorPtr& src, bool add);
// Advanced indexing: `indices[k]` (or null) indexes dim k of t; int64 tensors only
// (boolean masks are turned into int64 indices by the caller via nonzero).
TensorPtr index(const TensorPtr& t, const std::vector<TensorPtr>& indices);
void index_put_(const TensorPtr& t, const std::vector<TensorPtr>& indices, const TensorPtr& values, bool accumulate);
TensorPtr index_put(const TensorPtr& t, const std::vector<TensorPtr>& indices, const TensorPtr& values, bool accumulate);
TensorPtr nonzero(const TensorPtr& t);  // (n, ndim) int64
TensorPtr cat(const std::vector<TensorPtr>& ts, int64_t dim);
TensorPtr stack(const std::vector<TensorPtr>& ts, int64_t dim);

// ---- matmul (matmul.cpp) ----
TensorPtr matmul(const TensorPtr& a, const TensorPtr& b);
TensorPtr mm(const TensorPtr& a, const TensorPtr& b);
TensorPtr bmm(const TensorPtr& a, const TensorPtr& b);

// ---- the fused Linear layer (linear.cpp) ----
// act(x @ w^T + b): x (..., in), w (out, in), b (out,) or null. One GEMM call
// with the bias and activation fused into it, and one autograd node.
// (LinearActivation is in core/backend.h.)
TensorPtr linear(const TensorPtr& x, const TensorPtr& w, const TensorPtr& b, LinearActivation act);

// ---- the fused softmax cross-entropy loss (cross_entropy.cpp) ----
// -log softmax(logits)[i, target[i]] for logits (N, C) float and target (N,)
// int64 in [0, C), reduced over the batch (mean, sum or none): one op and one
// autograd node, where log_softmax, gather, squeeze, neg, mean are five.
// (Reduction is in core/backend.h.)
// With PyTorch's options: class weights (C,) (or null), ignore_index, label_smoothing.
TensorPtr cross_entropy(const TensorPtr& logits, const TensorPtr& target, Reduction r,
                        const TensorPtr& weight = nullptr, int64_t ignore_index = -100, double label_smoothing = 0);

// ---- the fused pointwise losses (pointwise_loss.cpp) ----
// MSE, L1, Huber (param = delta), SmoothL1 (param = beta), BCE, BCEWithLogits of x and t
// (same shape and dtype), times weight (x's shape, or null), BCEWithLogits' pos_weight (x's
// shape, or null): one op, one autograd node (the gradient goes to x only). RuntimeError on a
// device without the fused kernel.
TensorPtr pointwise_loss(PointwiseLoss kind, const TensorPtr& x, const TensorPtr& t, const TensorPtr& weight,
                         const TensorPtr& pos_weight, double param, Reduction r);

// ---- the CTC loss (ctc_loss.cpp) ----
// -log p(target_n | log_probs[:, n]) per sample, (N,), for log_probs (T, N, C) float and int64
// targets (N, S) padded or 1-D concatenated (sum of target_lengths); input_lengths and
// target_lengths hold N lengths each. zero_infinity replaces an infinite loss (no alignment
// exists) by 0 and its gradient by 0. One op and one autograd node (CtcLossBackward); the
// reduction is the caller's (F.ctc_loss). RuntimeError on a device without the fused kernel.
TensorPtr ctc_loss(const TensorPtr& log_probs, const TensorPtr& targets, const std::vector<int64_t>& input_lengths,
                   const std::vector<int64_t>& target_lengths, int64_t blank, bool zero_infinity);

// ---- 2-d convolution and pooling (conv.cpp), NCHW, PyTorch's checks and errors ----
// The arguments of conv2d: padding before and after each spatial dim (top, bottom, left, right).
struct Conv2dGeometry {
  int64_t stride[2] = {1, 1};
  int64_t padding[4] = {0, 0, 0, 0};
  int64_t dilation[2] = {1, 1};
  int64_t groups = 1;
  Conv2dArgs args() const {
    Conv2dArgs a;
    a.stride[0] = stride[0], a.stride[1] = stride[1];
    a.padding[0] = padding[0], a.padding[1] = padding[2];
    a.dilation[0] = dilation[0], a.dilation[1] = dilation[1];
    a.groups = groups;
    return a;
  }
};
// x (N, C, H, W) or (C, H, W), w (O, C / groups, kH, kW), b (O,) or null: one op, one autograd
// node (Conv2dBackward). RuntimeError on a device without the conv2d kernels.
TensorPtr conv2d(const TensorPtr& x, const TensorPtr& w, const TensorPtr& b, const Conv2dGeometry& c);
// Max pooling of x (N, C, H, W) or (C, H, W): (values, int64 indices into each H W plane).
std::pair<TensorPtr, TensorPtr> max_pool2d(const TensorPtr& x, const Pool2dArgs& a, bool ceil_mode);
// Average pooling of x (N, C, H, W) or (C, H, W) (a.dilation must be 1).
TensorPtr avg_pool2d(const TensorPtr& x, const Pool2dArgs& a, bool ceil_mode);
// Average pooling of planes xp (P, H, W) into (P, Ho, Wo), recorded (its backward's backward uses it).
TensorPtr avg_pool2d_planes(const TensorPtr& xp, int64_t Ho, int64_t Wo, const Pool2dArgs& a);

// Checks shared by ops.
void check_same_device(const TensorPtr& a, const TensorPtr& b, const char* op);
// IndexError for a 0-d tensor given to an op that needs at least one dim.
void check_has_dims(const TensorPtr& t, const char* op);
// Whether writing through t could write one memory location twice (an
// expanded dim: size > 1, stride 0). A tensor with no elements writes nothing.
bool has_internal_overlap(const Tensor& t);
// RuntimeError (PyTorch's message) when an in-place op would write through such a tensor.
void check_no_internal_overlap(const TensorPtr& t, const char* op);
// Whether a and b share bytes of memory (same storage, intersecting extents).
bool may_overlap(const Tensor& a, const Tensor& b);

// ---- api-shape branch: sorting, scans, scatter reductions ----
// The device's table, or NotImplementedError naming the device when it lacks the op's (nullable) entry.
const Backend& backend_with(Device device, bool has_entry, const char* op);
// (sort_scan.cpp) The values and int64 indices of t sorted along dim (NaN greatest; equal
// elements keep their order); NotImplementedError on a device without the kernel.
std::pair<TensorPtr, TensorPtr> sort(const TensorPtr& t, int64_t dim, bool descending);
// The k largest (or smallest) along dim, sorted, with their indices (a partial sort).
std::pair<TensorPtr, TensorPtr> topk(const TensorPtr& t, int64_t k, int64_t dim, bool largest);
// A copy of t reversed along each of dims (torch.flip).
TensorPtr flip(const TensorPtr& t, const DimList& dims);
TensorPtr cumprod(const TensorPtr& t, int64_t dim);
// (values, indices) of the running max (is_max) or min along dim (torch.cummax / cummin).
std::pair<TensorPtr, TensorPtr> cummax(const TensorPtr& t, int64_t dim, bool is_max);
TensorPtr logcumsumexp(const TensorPtr& t, int64_t dim);
// (index.cpp) torch.scatter_reduce: reduce is "sum", "prod", "mean", "amax" or "amin".
TensorPtr scatter_reduce(const TensorPtr& t, int64_t dim, const TensorPtr& index, const TensorPtr& src,
                         const std::string& reduce, bool include_self);

}  // namespace aakaar::ops
