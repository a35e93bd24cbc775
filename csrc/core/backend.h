// The per-device dispatch table: the only road from ops to kernels.
//
// Op code (csrc/ops) and the backward formulas (csrc/autograd) check
// arguments, work out shapes and dtypes, allocate outputs, and then call
// backend(device).X. They never include a header of csrc/cpu or csrc/cuda
// (tests/core/test_one_road.py fails if they do): each device registers its
// own table (cpu/backend_cpu.cpp, cuda/backend_cuda.cu), and no op needs to
// change when a device is added.
#pragma once
#include <cstddef>
#include <cstdint>
#include <vector>

#include "core/device.h"
#include "core/storage.h"
#include "core/tensor.h"

namespace aakaar {

// A Python number carried into C++ without losing int64 precision.
struct Scalar {
  enum class Kind : int8_t { Bool, Int, Float } kind = Kind::Float;
  double f = 0;
  int64_t i = 0;
  // i of a float is only a convenience; a NaN or out-of-range v (a C++ cast of
  // which is undefined) gives INT64_MIN, the answer of x86's conversion.
  static Scalar from_double(double v) {
    const bool fits = v >= -9223372036854775808.0 && v < 9223372036854775808.0;
    return {Kind::Float, v, fits ? static_cast<int64_t>(v) : INT64_MIN};
  }
  static Scalar from_int(int64_t v) { return {Kind::Int, static_cast<double>(v), v}; }
  static Scalar from_bool(bool v) { return {Kind::Bool, v ? 1.0 : 0.0, v ? 1 : 0}; }
  double to_double() const { return kind == Kind::Float ? f : static_cast<double>(i); }
  // A Python int beyond int64, carried as a float: only a floating tensor takes it.
  bool big_int = false;
};

enum class BinaryOp : int8_t {
  Add, Sub, Mul, Div, FloorDiv, Mod, Pow, Maximum, Minimum,
  Eq, Ne, Lt, Le, Gt, Ge, LogicalAnd, LogicalOr, LogicalXor,
  // ---- maths API (core/elementwise_math.h: one definition for every device) ----
  // DivTrunc: a / b rounded towards zero (div(rounding_mode='trunc')); Fmod: C's fmod
  // (the dividend's sign); Fmax/Fmin ignore a NaN operand; shifts as torch defines them.
  Atan2, Fmod, Copysign, Hypot, DivTrunc, Fmax, Fmin, LogAddExp,
  BitwiseAnd, BitwiseOr, BitwiseXor, LeftShift, RightShift,
  // Special functions of two arguments (core/special_math.h): the Hurwitz zeta(x, q) and the
  // orthogonal polynomials P_n(x), x first and the degree n second (torch's argument order).
  Zeta, ChebyshevT, ChebyshevU, ChebyshevV, ChebyshevW, ShiftedChebyshevT, ShiftedChebyshevU,
  ShiftedChebyshevV, ShiftedChebyshevW, HermiteH, HermiteHe, LaguerreL, LegendreP,
};
enum class UnaryOp : int8_t {
  Neg, Abs, Sign, Exp, Log, Log1p, Expm1, Sqrt, Rsqrt, Sin, Cos, Tanh, Sigmoid, Relu, Gelu, GeluTanh,
  Silu, Softplus, LogicalNot, Floor, Ceil, Round, Reciprocal, Square, LeakyRelu, Elu, Clamp, Erf,
  // ---- maths API (core/elementwise_math.h: one definition for every device) ----
  Tan, Asin, Acos, Atan, Sinh, Cosh, Asinh, Acosh, Atanh, Log2, Log10, Exp2, Trunc, Frac,
  IsNan, IsInf, IsPosInf, IsNegInf, IsFinite,  // bool results
  NanToNum,    // a: for NaN, b: for +inf, c: for -inf
  BitwiseNot,  // integers and bool
  // Activations (torch.nn.functional): Hardtanh's bounds a, b; Celu's alpha a;
  // Softshrink's and Hardshrink's lambd a; Threshold's threshold a and value b.
  Hardsigmoid, Hardswish, Hardtanh, Mish, Selu, Celu, LogSigmoid, Softshrink, Hardshrink, Threshold,
  // Special functions (torch.special): Polygamma's order n in a; I0/I1 are the modified
  // Bessel functions of the first kind.
  Erfc, Erfinv, Lgamma, Digamma, Polygamma, I0, I1,
  // Bessel and Airy functions, exp-scaled I and K, and erfcx (core/special_math.h).
  AiryAi, BesselJ0, BesselJ1, BesselY0, BesselY1, ModifiedBesselI0, ModifiedBesselI1, ModifiedBesselK0,
  ModifiedBesselK1, ScaledModifiedBesselK0, ScaledModifiedBesselK1, SphericalBesselJ0, I0e, I1e, Erfcx,
};
// Extra numbers some unary ops take (clamp bounds, slopes, softplus beta/threshold).
struct UnaryParams {
  double a = 0, b = 0;
  bool has_a = false, has_b = false;
  double c = 0;  // NanToNum's -inf replacement
};
enum class ReduceOp : int8_t { Sum, Prod, Max, Min, All, Any };
// How a loss is reduced over the batch (PyTorch's reduction='none'|'mean'|'sum').
enum class Reduction : int8_t { None, Mean, Sum };
// PyTorch's options of the softmax cross-entropy with class indices.
struct CrossEntropyOptions {
  const Tensor* weight = nullptr;  // (C,) contiguous class weights of the logits' dtype, or null (all 1)
  int64_t ignore_index = -100;     // rows whose target equals it count for nothing
  double label_smoothing = 0;      // eps: the target is (1 - eps) onehot + eps / C
  // Probability targets ("soft labels"): (N, C) contiguous, of the logits' dtype. When given, t is
  // not read and row i's target is (1 - eps) q_i + eps / C instead of the smoothed one-hot:
  //   loss_i = sum_c w_c q'_ic (lse_i - x_ic),  q' = (1 - eps) q + eps / C,
  // total gets N (PyTorch's mean over rows, whatever the weights), and the backward is
  //   grad[i, j] = g_i (p_ij sum_c w_c q'_ic - w_j q'_ij).
  const Tensor* target_probs = nullptr;
};
// The losses of one element each (backend entries pointwise_loss and pointwise_loss_backward).
enum class PointwiseLoss : int8_t { MSE, L1, Huber, SmoothL1, BCE, BCEWithLogits };
// The lengths and options of a batch of CTC losses (backend entries ctc_loss and
// ctc_loss_backward). Every tensor is int64, (N,), contiguous, on the loss's device;
// the op has checked 0 <= input_lengths[n] <= T, 0 <= target_lengths[n], and that
// every label sample n reads, targets[target_offsets[n] + s] for s < target_lengths[n], exists.
struct CtcLossArgs {
  const Tensor* input_lengths = nullptr;
  const Tensor* target_lengths = nullptr;
  const Tensor* target_offsets = nullptr;  // where sample n's labels start in the flat targets
  int64_t blank = 0;
  bool zero_infinity = false;  // backward: a sample whose loss is +inf gets a zero gradient
};
// ---- api-shape branch: scans and scatter reductions along one dim ----
// The cumulative ops beyond cumsum (backend entry scan). CumMax and CumMin also write int64 indices.
enum class ScanOp : int8_t { CumProd, CumMax, CumMin, LogCumSumExp };
// How scatter_reduce combines the values that land on one element (backend entry scatter_reduce).
enum class ScatterReduceOp : int8_t { Sum, Prod, Amax, Amin };
// The activation a fused Linear applies to its output.
enum class LinearActivation : int8_t { None, ReLU };

// One step of an optimizer over many tensors (see OptimizerStep below).
using TensorList = std::vector<TensorPtr>;
// The optimizers whose update is one elementwise pass (csrc/core/optimizer_math.h).
// Rprop, ASGD and Lion are elementwise too; LAMB and Adafactor need a norm (or row and
// column means) of each parameter first, so their kernels make two passes per parameter.
enum class OptimizerKind : int8_t { SGD, Adam, Adagrad, RMSprop, Adamax, NAdam, RAdam, Adadelta, Rprop, ASGD, Lion,
                                   LAMB, Adafactor };
// [[book:optimizer_step_struct]]
// Everything one fused optimizer step needs besides the tensors: the user's
// hyper-parameters (PyTorch's names) and the numbers that depend on the step
// count, which the op works out (ops/optimizer.cpp) so that a kernel only
// does arithmetic. Fields a kind does not use are ignored.
struct OptimizerStep {
  OptimizerKind kind = OptimizerKind::SGD;
  double lr = 0, weight_decay = 0;
  bool maximize = false;
  bool decoupled_weight_decay = false;  // p *= 1 - lr * weight_decay first (AdamW), not g += wd * p
  // SGD; RMSprop's momentum too.
  double momentum = 0, dampening = 0;
  bool nesterov = false;
  bool first_step = false;  // SGD: the momentum buffer is set to the gradient, not decayed
  // Adam family; Adagrad, RMSprop and Adadelta use eps too.
  double beta1 = 0, beta2 = 0, eps = 0;
  bool amsgrad = false;
  double alpha = 0;     // RMSprop's smoothing constant
  bool centered = false;
  double rho = 0;       // Adadelta
  double lr_decay = 0;        // Adagrad
  double momentum_decay = 0;  // NAdam
  // Filled by the op from the step count: Adam's lr / (1 - beta1^t) and
  // sqrt(1 - beta2^t); Adagrad's and Adamax's effective lr; NAdam's two
  // coefficients and 1 - beta2^t; RAdam's 1 - beta1^t, rectification
  // (0: none this step) and sqrt(1 - beta2^t).
  double step_size = 0, bias_correction1 = 1, bias_correction2 = 1, bias_correction2_sqrt = 1;
  double grad_coef = 0, avg_coef = 0, rect = 0;
  // Rprop: the step-size multipliers (etas) and bounds (step_sizes).
  double etaminus = 0.5, etaplus = 1.2, step_size_min = 1e-6, step_size_max = 50;
  // ASGD: lambd and t0 (alpha above); eta and mu are each parameter's state, which the op
  // reads before the step (parameters with equal values share a call) and renews after it.
  double lambd = 0, t0 = 0, eta = 0, mu = 1;
  // Adafactor: beta2_decay, d and eps2 (eps above is eps1, already resolved from None);
  // the op fills one_minus_beta2_t = t^beta2_decay and rho_t = min(lr, 1 / sqrt(t)).
  double beta2_decay = -0.8, d = 1, eps2 = 1e-3;
  double one_minus_beta2_t = 0, rho_t = 0;
};
// [[/book:optimizer_step_struct]]

// The counters of a capturable step (PyTorch's capturable=True; backend entry
// optimizer_step_capturable): one-element float32 or float64 tensors on the parameters'
// device, one per parameter, which the device itself reads and renews, so that the step
// never waits on the host (and can be captured in a CUDA graph).
struct OptimizerCounters {
  TensorList steps;        // incremented by the step (every kind but SGD and Lion)
  TensorList mu_products;  // NAdam: multiplied by this step's mu
  TensorList etas, mus;    // ASGD: read for the step, renewed after it
  TensorPtr lr;            // null: OptimizerStep::lr; else a one-element tensor on the device
};

// The geometry of a 2-d convolution (backend entries conv2d and conv2d_backward). The op has
// worked out the output size (the output tensor's shape) from the input, the kernel, and the
// padding before (top, left) and after (bottom, right) the input, which may differ ('same'
// with an even kernel); a kernel reads only the padding before, the output size says the rest.
struct Conv2dArgs {
  int64_t stride[2] = {1, 1};
  int64_t padding[2] = {0, 0};  // top, left: zeros read before row 0 and column 0
  int64_t dilation[2] = {1, 1};
  int64_t groups = 1;
};
// The geometry of a 2-d pooling window (backend entries max_pool2d, avg_pool2d and
// avg_pool2d_backward), PyTorch's arguments; the output size is the output tensor's shape.
struct Pool2dArgs {
  int64_t kernel[2] = {1, 1};
  int64_t stride[2] = {1, 1};
  int64_t padding[2] = {0, 0};
  int64_t dilation[2] = {1, 1};   // max pooling only
  bool count_include_pad = true;  // average pooling: padded zeros count in the divisor
  int64_t divisor_override = 0;   // average pooling: the divisor, when not 0
};

// [[book:backend_table]]
struct Backend {
  StoragePtr (*allocate)(size_t nbytes, Device device);
  // dst and src have the same shape (src may have 0 strides); converts dtype.
  void (*copy)(const Tensor& dst, const Tensor& src);
  void (*fill)(const Tensor& dst, Scalar value);
  // out, a, b have out's shape (inputs already broadcast); a and b share one dtype.
  void (*binary)(BinaryOp op, const Tensor& out, const Tensor& a, const Tensor& b);
  void (*unary)(UnaryOp op, const Tensor& out, const Tensor& in, UnaryParams p);
  // out = cond ? a : b, all with out's shape.
  void (*where)(const Tensor& out, const Tensor& cond, const Tensor& a, const Tensor& b);
  // out has in's shape with size 1 in every reduced dim (keepdim form).
  void (*reduce)(ReduceOp op, const Tensor& out, const Tensor& in);
  // Values and int64 indices of the max (or min) along dim; out shapes keep dim as size 1.
  void (*arg_reduce)(bool is_max, const Tensor& values, const Tensor& indices, const Tensor& in, int64_t dim);
  void (*softmax)(const Tensor& out, const Tensor& in, int64_t dim, bool log);
  void (*cumsum)(const Tensor& out, const Tensor& in, int64_t dim);
  // out[b] = a[b] @ b[b] for 3-D operands (batch, rows, cols), any strides.
  void (*bmm)(const Tensor& out, const Tensor& a, const Tensor& b);
  // out (shape of index) = in gathered along dim; scatter writes src into out.
  void (*gather)(const Tensor& out, const Tensor& in, int64_t dim, const Tensor& index);
  void (*scatter)(const Tensor& out, int64_t dim, const Tensor& index, const Tensor& src, bool add);
  // Philox random numbers into a contiguous tensor.
  void (*random_uniform)(const Tensor& out, uint64_t seed, uint64_t offset, double low, double high);
  void (*random_normal)(const Tensor& out, uint64_t seed, uint64_t offset, double mean, double std);

  // ---- Fused kernels: one pass where the primitives above would take several. ----
  // Nullable: a device without one leaves it null, and the op composes the
  // primitives instead (each recording its own backward), as PyTorch falls back
  // to a composite. Ops allocate every output (fresh, contiguous) before the call.

  // out (M, N) = act(x @ w^T + b): x (M, K), w (N, K), b (N,) or null; any strides.
  void (*linear)(const Tensor& out, const Tensor& x, const Tensor& w, const Tensor* b,
                 LinearActivation act) = nullptr;
  // Linear's backward from g (M, N), with g' = g where y > 0 and 0 elsewhere when
  // y (the saved ReLU output) is given, else g' = g: grad_x (M, K) = g' @ w,
  // grad_w (N, K) = g'^T @ x, grad_b (N,) = column sums of g'. Null outputs are skipped.
  void (*linear_backward)(const Tensor* grad_x, const Tensor* grad_w, const Tensor* grad_b, const Tensor& g,
                          const Tensor& x, const Tensor& w, const Tensor* y) = nullptr;
  // Softmax cross-entropy of logits x (N, C) and int64 targets t (N,) that the
  // op has checked are in [0, C) or equal o.ignore_index: per row
  //   loss_i = (1 - eps) w[t_i] (lse_i - x[i, t_i]) + eps / C sum_c w_c (lse_i - x[i, c])
  // (0 for an ignored row), lse_i = logsumexp(x_i). loss is (N,) for Reduction::None,
  // else 0-d: the sum, or the sum divided by total. total (0-d) gets sum_i w[t_i] over the
  // rows not ignored (the mean's divisor, as PyTorch's); e (N, C) gets exp(x_i - max x_i)
  // and inv (N,) 1 / sum_j e_ij, for the backward.
  void (*cross_entropy)(const Tensor& loss, const Tensor& e, const Tensor& inv, const Tensor& total, const Tensor& x,
                        const Tensor& t, Reduction r, const CrossEntropyOptions& o) = nullptr;
  // grad (N, C) = g_i (p_ij ((1 - eps) w[t_i] + eps W / C) - eps w_j / C - (1 - eps) w[t_i] [j == t_i]),
  // p = e * inv, W = sum_c w_c, g_i = g / total (mean), g (sum) or g[i] (none); 0 on ignored rows.
  void (*cross_entropy_backward)(const Tensor& grad, const Tensor& g, const Tensor& t, const Tensor& e,
                                 const Tensor& inv, const Tensor& total, Reduction r,
                                 const CrossEntropyOptions& o) = nullptr;
  // out = a + alpha * b (torch.add's alpha) in one pass: float32 or float64, one
  // dtype, b already broadcast to out's shape; out may be a itself (add_).
  void (*add_scaled)(const Tensor& out, const Tensor& a, const Tensor& b, double alpha) = nullptr;
  // out = a + w * (b - a) (torch.lerp with a number as weight), same conditions.
  void (*lerp_scalar)(const Tensor& out, const Tensor& a, const Tensor& b, double w) = nullptr;
  // out = in.index_select(dim, index): whole slices copied at once where gather would copy
  // element by element. index is contiguous int64, checked in [0, in.shape[dim]); out has
  // in's shape with index.numel() at dim.
  void (*index_select)(const Tensor& out, const Tensor& in, int64_t dim, const Tensor& index) = nullptr;
  // One optimizer step over every tensor of a parameter group, in one call:
  // params[i] -= update(grads[i], states[k][i], ...) (csrc/core/optimizer_math.h).
  // The op has checked that each grads[i] and states[k][i] has params[i]'s shape,
  // dtype (float32 or float64: the op hands float16/bfloat16 tensors over as float32
  // copies and rounds the results back once) and device; any strides; states holds the lists
  // the kind needs, in the order optimizer_math.h gives. Updates params and states in place.
  void (*optimizer_step)(const OptimizerStep& step, const TensorList& params, const TensorList& grads,
                         const std::vector<TensorList>& states) = nullptr;
  // The same step with capturable=True: the step counts and everything that depends on
  // them (bias corrections, NAdam's mu_product, ASGD's eta and mu) and the lr, when it is a
  // tensor, stay on the device (OptimizerCounters), which works them out per parameter
  // (core/optimizer_math.h's fill_step_numbers) and never reads a value back to the host.
  // The elementwise kinds (not LAMB or Adafactor); the op has checked the counters. Null on
  // the CPU, which PyTorch refuses capturable=True on.
  void (*optimizer_step_capturable)(const OptimizerStep& step, const TensorList& params, const TensorList& grads,
                                    const std::vector<TensorList>& states,
                                    const OptimizerCounters& counters) = nullptr;

  // ---- Fused pointwise losses (MSE, L1, Huber, SmoothL1, BCE, BCEWithLogits): one pass each way. ----
  // x and t: same shape, contiguous, one float dtype; weight and pos_weight: null or contiguous
  // with x's shape and dtype (pos_weight for BCEWithLogits only); param: Huber's delta or
  // SmoothL1's beta (> 0). loss: x's shape (Reduction::None) or 0-d (sum, or sum / numel).
  // aux: null, or x's shape, receiving what the backward reuses (BCEWithLogits: exp(-|x|)).
  void (*pointwise_loss)(PointwiseLoss kind, const Tensor& loss, const Tensor* aux, const Tensor& x, const Tensor& t,
                         const Tensor* weight, const Tensor* pos_weight, double param, Reduction r) = nullptr;
  // grad_x (x's shape, contiguous) = d loss_k / d x_k * g_k, g_k = g / numel (mean), g (sum) or
  // g[k] (none, g contiguous); aux as the forward filled it, or null (then recomputed).
  void (*pointwise_loss_backward)(PointwiseLoss kind, const Tensor& grad_x, const Tensor& g, const Tensor* aux,
                                  const Tensor& x, const Tensor& t, const Tensor* weight, const Tensor* pos_weight,
                                  double param, Reduction r) = nullptr;

  // ---- CTC loss (Graves et al. 2006): the forward-backward recursion in log space. ----
  // log_probs (T, N, C) contiguous float32/float64; targets a contiguous 1-D int64 tensor of
  // labels (padded rows flattened, or PyTorch's concatenated layout), read through a.target_offsets.
  // nll (N,) gets -log p(target_n | x_n) (+inf where no alignment exists, 0 for an empty
  // input and target); log_alpha (N, T, 2 S + 1), S the largest target length, gets the
  // forward variables, log alpha_t(s) over the extended target (blank, l1, blank, ..., blank);
  // entries past sample n's input length or 2 L_n + 1 are left unset.
  void (*ctc_loss)(const Tensor& nll, const Tensor& log_alpha, const Tensor& log_probs, const Tensor& targets,
                   const CtcLossArgs& a) = nullptr;
  // grad (T, N, C) = g[n] (exp(lp[t, n, c]) - exp(log sum_{s: l'(s) = c} alpha_t(s) beta_t(s) + nll[n] - lp))
  // for t < input_lengths[n] (PyTorch's formula: the gradient to the logits of a log_softmax that
  // produced lp), 0 beyond, and 0 for the whole sample where a.zero_infinity and nll[n] is +inf.
  // g (N,) contiguous; nll and log_alpha as the forward filled them; the betas are computed here.
  void (*ctc_loss_backward)(const Tensor& grad, const Tensor& g, const Tensor& log_probs, const Tensor& targets,
                            const Tensor& nll, const Tensor& log_alpha, const CtcLossArgs& a) = nullptr;

  // ---- 2-d convolution and pooling (NCHW). ----
  // out (N, O, Ho, Wo) = conv(x (N, C, H, W), w (O, C / groups, kH, kW)) + b (O,) or null:
  // out[n, o, i, j] = b[o] + sum_{c, p, q} w[o, c, p, q] x[n, g C/G + c, i s0 - pad0 + p d0, j s1 - pad1 + q d1]
  // (x read as 0 outside it), g = o / (O / groups). x, w, b contiguous, one float dtype.
  void (*conv2d)(const Tensor& out, const Tensor& x, const Tensor& w, const Tensor* b, const Conv2dArgs& a) = nullptr;
  // The three gradients of conv2d from g (out's shape, contiguous): grad_x (x's shape), grad_w (w's),
  // grad_b (O,), each fresh and contiguous, or null (skipped).
  void (*conv2d_backward)(const Tensor* grad_x, const Tensor* grad_w, const Tensor* grad_b, const Tensor& g,
                          const Tensor& x, const Tensor& w, const Conv2dArgs& a) = nullptr;
  // Max pooling of x (P, H, W) contiguous (P = batch times channels) into out (P, Ho, Wo), and
  // indices (P, Ho, Wo) int64: the flat position h W + w of each maximum in its plane. PyTorch's
  // rule: the first maximum in row-major window order wins a tie, and a NaN is a maximum (the last
  // NaN of the window wins); a window of -inf gives its first element's index.
  void (*max_pool2d)(const Tensor& out, const Tensor& indices, const Tensor& x, const Pool2dArgs& a) = nullptr;
  // Average pooling of x (P, H, W) contiguous into out (P, Ho, Wo), PyTorch's divisor rules; and its
  // backward: grad_x (P, H, W) = each g (P, Ho, Wo) shared out over its window by the same divisor.
  void (*avg_pool2d)(const Tensor& out, const Tensor& x, const Pool2dArgs& a) = nullptr;
  void (*avg_pool2d_backward)(const Tensor& grad_x, const Tensor& g, const Pool2dArgs& a) = nullptr;

  // ---- Sorting, scans and scatter reductions (api-shape branch). ----
  // Nullable: a device without them raises NotImplementedError naming the device.
  // values and indices (int64) get the first k of in sorted along dim (their shape is in's with k at
  // dim, any strides): ascending, or descending; NaN counts as greater than every number (PyTorch's
  // order), and equal elements keep their order (a stable sort). k == in.shape[dim] is a full sort;
  // a smaller k (topk) needs only a partial one.
  void (*sort)(const Tensor& values, const Tensor& indices, const Tensor& in, int64_t dim, bool descending,
               int64_t k) = nullptr;
  // out (in's shape) = the inclusive scan of in along dim: product, running max / min (indices, int64,
  // gets the position of the running extreme: the last one of equal values, a NaN once seen, as
  // PyTorch's cummax), or log(cumsum(exp(in))) computed without overflow. indices is null otherwise.
  void (*scan)(ScanOp op, const Tensor& out, const Tensor* indices, const Tensor& in, int64_t dim) = nullptr;
  // out[... index[i, j] ...] (op)= src[i, j] along dim, as scatter with add but with op; out already
  // holds the starting values (the op has put the identity where self is not included). index and
  // src have one shape (no larger than out's except along dim); index checked in [0, out.shape[dim]).
  void (*scatter_reduce)(ScatterReduceOp op, const Tensor& out, int64_t dim, const Tensor& index,
                         const Tensor& src) = nullptr;
};
// [[/book:backend_table]]

void register_backend(DeviceType type, const Backend* table);
// The table for device, or a RuntimeError saying the device is not available.
const Backend& backend(Device device);
bool has_backend(DeviceType type);

}  // namespace aakaar
