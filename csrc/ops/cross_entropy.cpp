// Softmax cross-entropy as one op: loss_i = logsumexp(x_i) - x[i, t_i].
//
// Written as ops (log_softmax, gather, squeeze, neg, mean) the loss makes
// five passes, writes an (N, C) log-probability tensor of which it reads N
// values, and records five autograd nodes. Here it is three passes and one
// node: the rows shifted by their max, their exponentials (the elementwise
// exp kernel, built for AVX2 and AVX-512 and chosen at run time: this file is
// compiled for the baseline ISA, where the exponentials were most of the
// op's time), then per row the sum and the loss. The exponentials are kept
// for the backward (autograd/derivatives_cross_entropy.cpp), which is then a
// single multiply per element: softmax = exp(x - m) / sum, with no exp left to
// compute. They take the memory that the composite's log_softmax output took.
#include <algorithm>
#include <cmath>
#include <limits>

#include "autograd/derivatives_cross_entropy.h"
#include "autograd/function.h"
#include "core/error.h"
#include "cpu/isa.h"
#include "cpu/parallel.h"
#include "ops/ops.h"

namespace aakaar::ops {
namespace {

void check_cross_entropy_args(const TensorPtr& x, const TensorPtr& t) {
  AK_CHECK(x && t, ValueError, "cross_entropy(): input and target must be tensors");
  AK_CHECK(x->ndim() == 2, ValueError, "cross_entropy(): input must be (N, C) logits, got shape ",
           shape_str(x->shape));
  AK_CHECK(is_floating(x->dtype), TypeError, "cross_entropy(): input must be float32 or float64 logits, got ",
           dtype_name(x->dtype));
  AK_CHECK(t->dtype == DType::Int64, TypeError, "cross_entropy(): target must be int64 class indices, got ",
           dtype_name(t->dtype));
  AK_CHECK(t->ndim() == 1 && t->shape[0] == x->shape[0], ValueError, "cross_entropy(): target shape ",
           shape_str(t->shape), " does not match input batch size ", x->shape[0]);
  check_same_device(x, t, "cross_entropy");
}

// Every target must name a class: an index outside [0, C) would read (and in
// the backward, write) outside the row. Checked before any work, so the error
// names the first bad row whatever the thread count.
void check_targets(const int64_t* t, int64_t ts, int64_t N, int64_t C) {
  for (int64_t i = 0; i < N; ++i) {
    const int64_t c = t[i * ts];
    AK_CHECK(c >= 0 && c < C, IndexError, "cross_entropy(): target ", c, " out of range for ", C,
             " classes (at batch index ", i, "; class indices must be in [0, ", C, "))");
  }
}

// Devices without a fused kernel get the same function from ordinary ops,
// each of which records its own backward.
TensorPtr cross_entropy_composite(const TensorPtr& x, const TensorPtr& t, Reduction r) {
  TensorPtr picked = gather(softmax(x, 1, true), 1, unsqueeze(t, 1));
  TensorPtr loss = unary(UnaryOp::Neg, squeeze(picked, DimList{1}));
  if (r == Reduction::Mean) return mean(loss, std::nullopt, false);
  if (r == Reduction::Sum) return sum(loss, std::nullopt, false, std::nullopt);
  return loss;
}

// The vectorised max and sum of the reductions (a scalar loop over a row is a
// chain of dependent compares or adds, one per element).
float row_max(const float* x, int64_t n, float init) { return cpu::kernels().max_f32(x, n, init); }
double row_max(const double* x, int64_t n, double init) { return cpu::kernels().max_f64(x, n, init); }
float row_sum(const float* x, int64_t n) { return cpu::kernels().sum_f32(x, n); }
double row_sum(const double* x, int64_t n) { return cpu::kernels().sum_f64(x, n); }

template <typename T>
void sub_row(int64_t n, const T* __restrict x, T m, T* __restrict out) {
  for (int64_t j = 0; j < n; ++j) out[j] = x[j] - m;
}

// out[j] = x[j] - max(x): every exponent <= 0, so exp cannot overflow however
// large the logits. Returns the max.
template <typename T>
T shift_row(int64_t C, const T* x, int64_t cs, T* out) {
  T m = -std::numeric_limits<T>::infinity();
  if (cs == 1) {
    m = row_max(x, C, m);
  } else {
    for (int64_t j = 0; j < C; ++j) m = std::max(m, x[j * cs]);
  }
  if (std::isinf(m) && m < 0) m = 0;  // a row of -inf: keep x - m defined
  if (cs == 1) {
    sub_row(C, x, m, out);
  } else {
    for (int64_t j = 0; j < C; ++j) out[j] = x[j * cs] - m;
  }
  return m;
}

// e (N, C) gets exp(x_i - m_i), inv (N) gets 1 / sum_j e_ij: the backward's
// softmax is e * inv. loss is (N,) for Reduction::None, else a 1-element
// tensor that gets the sum or the mean.
template <typename T>
void cross_entropy_cpu(const Tensor& loss, const Tensor& e, const Tensor& inv, const Tensor& x, const Tensor& t,
                       Reduction r) {
  const int64_t N = x.shape[0], C = x.shape[1];
  const T* X = x.data<T>();
  const int64_t rs = x.strides[0], cs = x.strides[1];
  const int64_t* tp = t.data<int64_t>();
  const int64_t ts = t.strides[0];
  check_targets(tp, ts, N, C);
  T* E = e.data<T>();
  T* M = inv.data<T>();  // the row maxima, until the last pass replaces them by 1 / sum
  const int64_t grain = std::max<int64_t>(1, 8192 / std::max<int64_t>(C, 1));
  parallel_for(0, N, grain, [&](int64_t b, int64_t end) {
    for (int64_t i = b; i < end; ++i) M[i] = shift_row(C, X + i * rs, cs, E + i * C);
  });
  if (e.numel() > 0) cpu::kernels().unary(UnaryOp::Exp, e, e, {});
  // Per-row losses go to the output itself (none) or to a scratch row that is
  // then summed serially in double: the sum of a float32 batch must not lose
  // digits, and a fixed order keeps it the same for any thread count.
  TensorPtr rows = r == Reduction::None ? nullptr : Tensor::empty({N}, x.dtype);
  T* L = r == Reduction::None ? loss.data<T>() : rows->data<T>();
  const int64_t ls = r == Reduction::None ? loss.strides[0] : 1;
  parallel_for(0, N, grain, [&](int64_t b, int64_t end) {
    for (int64_t i = b; i < end; ++i) {
      const T sum = row_sum(E + i * C, C);
      L[i * ls] = std::log(sum) - (X[i * rs + tp[i * ts] * cs] - M[i]);  // log-sum-exp minus the target logit
      M[i] = T(1) / sum;
    }
  });
  if (r == Reduction::None) return;
  double acc = 0;
  for (int64_t i = 0; i < N; ++i) acc += static_cast<double>(L[i]);
  // Mean of an empty batch: 0/0 = NaN, as in PyTorch.
  *loss.data<T>() = static_cast<T>(r == Reduction::Mean ? acc / static_cast<double>(N) : acc);
}

}  // namespace

TensorPtr cross_entropy(const TensorPtr& x, const TensorPtr& t, Reduction r) {
  check_cross_entropy_args(x, t);
  const int64_t N = x->shape[0], C = x->shape[1];
  if (x->device().type != DeviceType::CPU) {
    // Same message as on the CPU (gather would raise its own, less specific one);
    // the indices are read on the host, as gather does anyway.
    TensorPtr th = contiguous(to_device(t, Device{}));
    check_targets(th->data<int64_t>(), 1, N, C);
    return cross_entropy_composite(x, t, r);
  }
  TensorPtr loss = Tensor::empty(r == Reduction::None ? Shape{N} : Shape{}, x->dtype);
  TensorPtr e = Tensor::empty({N, C}, x->dtype), inv = Tensor::empty({N}, x->dtype);
  AK_DISPATCH_FLOAT(x->dtype, "cross_entropy", [&](auto tag) {
    cross_entropy_cpu<decltype(tag)>(*loss, *e, *inv, *x, *t, r);
  });
  if (autograd::should_record({&x})) autograd::record_cross_entropy(loss, x, t, e, inv, r);
  return loss;
}

}  // namespace aakaar::ops
