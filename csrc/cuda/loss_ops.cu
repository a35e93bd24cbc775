// The fused losses on the device: the backend entries cross_entropy,
// cross_entropy_backward, pointwise_loss and pointwise_loss_backward (core/backend.h),
// with the CPU's formulas (cpu/fused/cross_entropy.cpp, cpu/fused/pointwise_loss_loops.h).
//
// Cross-entropy: a block per row. The row's max (block_reduce), then e = exp(x - max)
// stored for the backward and summed, then the row's loss from log(sum): every
// exponent is <= 0, so no logit is too large. Label smoothing and probability targets
// add sums of non-negative terms in double, as on the CPU. The backward is one pass per
// row: softmax = e / sum with no exp left to compute.
//
// Pointwise losses: a grid-stride pass; reduced ones write one double partial per
// block, which a one-block kernel adds in block order, so the result is the same on
// every run (no atomics).
#include <cmath>
#include <limits>

#include "core/error.h"
#include "cuda/allocator.h"
#include "cuda/backend_cuda.h"
#include "cuda/device_math.cuh"
#include "cuda/launch_config.cuh"
#include "cuda/row_reduce.cuh"

namespace aakaar::cuda {
namespace {

template <typename T>
struct MaxR {
  __device__ __forceinline__ T identity() const { return -std::numeric_limits<T>::infinity(); }
  __device__ __forceinline__ T combine(T a, T b) const { return (a != a || a > b) ? a : b; }  // NaN wins
};
template <typename T>
struct SumR {
  __device__ __forceinline__ T identity() const { return T(0); }
  __device__ __forceinline__ T combine(T a, T b) const { return a + b; }
};

// Everything a cross-entropy row kernel reads.
template <typename T>
struct CeArgs {
  int64_t N, C, rs, cs, ts, ls;
  const T* x;
  const int64_t* t;
  const T* w;  // null: all 1
  const T* q;  // probability targets (N, C) contiguous, or null
  int64_t ignore;
  T eps;
};

// sum_c w_c in double, rounded to T (the CPU's Wsum), for every thread; C when there are
// no weights. Every thread must call it (it has barriers).
template <typename T>
__device__ __forceinline__ T weight_sum(const T* w, int64_t C) {
  if (!w) return static_cast<T>(C);
  double s = 0;
  for (int64_t j = threadIdx.x; j < C; j += blockDim.x) s += static_cast<double>(w[j]);
  s = block_reduce(s, SumR<double>{});
  __shared__ T total;
  if (threadIdx.x == 0) total = static_cast<T>(s);
  __syncthreads();
  return total;
}

// [[book:cuda_cross_entropy_forward]]
// Row i: e[i] = exp(x_i - m_i), inv[i] = 1 / sum_j e_ij, L[i * ls] = the row's loss.
template <typename T>
__global__ void ce_forward_kernel(CeArgs<T> a, T* e, T* inv, T* L) {
  const int64_t C = a.C;
  const T Wsum = a.eps > T(0) && !a.q ? weight_sum(a.w, C) : T(0);
  __shared__ T shared_c[2];  // the row's max and sum, for every thread
  for (int64_t i = blockIdx.x; i < a.N; i += gridDim.x) {
    const T* x = a.x + i * a.rs;
    T m = MaxR<T>{}.identity();
    for (int64_t j = threadIdx.x; j < C; j += blockDim.x) m = MaxR<T>{}.combine(m, x[j * a.cs]);
    m = block_reduce(m, MaxR<T>{});
    if (threadIdx.x == 0) shared_c[0] = (m == -std::numeric_limits<T>::infinity()) ? T(0) : m;  // a row of -inf
    __syncthreads();
    m = shared_c[0];
    T* er = e + i * C;
    T s = 0;
    for (int64_t j = threadIdx.x; j < C; j += blockDim.x) {
      const T v = dmath::exp_(x[j * a.cs] - m);
      er[j] = v;
      s += v;
    }
    s = block_reduce(s, SumR<T>{});
    if (threadIdx.x == 0) shared_c[1] = s;
    __syncthreads();
    s = shared_c[1];
    const T lse = dmath::log_(s);  // logsumexp(x_i) - m
    T li = 0;
    if (a.q) {
      // sum_c w_c q'_c (lse - (x_c - m)) = lse S + sum_c w_c q'_c (m - x_c): non-negative terms.
      const T qa = T(1) - a.eps, qb = a.eps / static_cast<T>(C);
      const T* q = a.q + i * C;
      double S = 0, A = 0;
      for (int64_t j = threadIdx.x; j < C; j += blockDim.x) {
        const double wq = static_cast<double>((a.w ? a.w[j] : T(1)) * (qa * q[j] + qb));
        S += wq;
        A += wq * static_cast<double>(m - x[j * a.cs]);
      }
      S = block_reduce(S, SumR<double>{});
      A = block_reduce(A, SumR<double>{});
      li = static_cast<T>(static_cast<double>(lse) * S + A);
    } else {
      const int64_t c = a.t[i * a.ts];
      // The row's smoothing sum: taken by every thread (it has barriers), used on a kept row.
      double acc = 0;
      if (a.eps > T(0)) {
        for (int64_t j = threadIdx.x; j < C; j += blockDim.x)
          acc += static_cast<double>(a.w ? a.w[j] : T(1)) * static_cast<double>(x[j * a.cs] - m);
        acc = block_reduce(acc, SumR<double>{});
      }
      if (c != a.ignore) {
        li = lse - (x[c * a.cs] - m);  // log-sum-exp minus the target logit
        if (a.w) li *= a.w[c];
        if (a.eps > T(0))
          li = (T(1) - a.eps) * li +
               a.eps / static_cast<T>(C) * static_cast<T>(static_cast<double>(Wsum * lse) - acc);
      }
    }
    if (threadIdx.x == 0) {
      L[i * a.ls] = li;
      inv[i] = T(1) / s;
    }
    __syncthreads();  // shared_c is reused by the next row
  }
}
// [[/book:cuda_cross_entropy_forward]]

// One block: total = the mean's divisor (N with probabilities, else sum_i w[t_i] over
// the rows kept), and, when reduced, loss = the rows' sum (over total for the mean).
template <typename T>
__global__ void ce_finish_kernel(CeArgs<T> a, const T* rows, bool reduce, bool mean, T* loss, T* total) {
  double kept = 0, acc = 0;
  for (int64_t i = threadIdx.x; i < a.N; i += blockDim.x) {
    if (reduce) acc += static_cast<double>(rows[i]);
    if (a.q) continue;
    const int64_t c = a.t[i * a.ts];
    if (c != a.ignore) kept += a.w ? static_cast<double>(a.w[c]) : 1.0;
  }
  kept = block_reduce(kept, SumR<double>{});
  acc = block_reduce(acc, SumR<double>{});
  if (threadIdx.x != 0) return;
  if (a.q) kept = static_cast<double>(a.N);
  *total = static_cast<T>(kept);
  // Mean of an empty batch, or of one whose rows are all ignored: 0/0 = NaN, as in PyTorch.
  if (reduce) *loss = static_cast<T>(mean ? acc / kept : acc);
}

template <typename T>
CeArgs<T> ce_args(const Tensor& x, const Tensor& t, const CrossEntropyOptions& o) {
  CeArgs<T> a{};
  a.N = x.shape[0];
  a.C = x.shape[1];
  a.rs = x.strides[0];
  a.cs = x.strides[1];
  a.x = x.data<T>();
  a.q = o.target_probs ? o.target_probs->data<T>() : nullptr;
  a.t = a.q ? nullptr : t.data<int64_t>();
  a.ts = a.q ? 0 : t.strides[0];
  a.w = o.weight ? o.weight->data<T>() : nullptr;
  a.ignore = o.ignore_index;
  a.eps = static_cast<T>(o.label_smoothing);
  return a;
}

int row_blocks(int64_t N) { return static_cast<int>(std::max<int64_t>(1, std::min<int64_t>(N, multiprocessor_count() * 8))); }

template <typename T>
void ce_forward(const Tensor& loss, const Tensor& e, const Tensor& inv, const Tensor& total, const Tensor& x,
                const Tensor& t, Reduction r, const CrossEntropyOptions& o) {
  CeArgs<T> a = ce_args<T>(x, t, o);
  const bool reduce = r != Reduction::None;
  ScratchBuffer rows(sizeof(T) * static_cast<size_t>(std::max<int64_t>(a.N, 1)));
  a.ls = reduce ? 1 : loss.strides[0];
  T* L = reduce ? rows.as<T>() : loss.data<T>();
  if (a.N > 0 && a.C > 0) {
    AAKAAR_LAUNCH((ce_forward_kernel<T>), row_blocks(a.N), row_block_threads(a.C), 0, a, e.data<T>(), inv.data<T>(), L);
    AAKAAR_CHECK_LAUNCH();
  }
  AAKAAR_LAUNCH((ce_finish_kernel<T>), 1, 256, 0, a, rows.as<T>(), reduce, r == Reduction::Mean, loss.data<T>(),
                total.data<T>());
  AAKAAR_CHECK_LAUNCH();
}

// [[book:cuda_cross_entropy_backward]]
// grad[i, j] = g_i (p_ij a_i - eps w_j / C) - g_i (1 - eps) w[t_i] [j == t_i], p = e * inv
// (a_i = (1 - eps) w[t_i] + eps W / C); with probabilities g_i (p_ij S_i - w_j q'_ij).
template <typename T>
__global__ void ce_backward_kernel(CeArgs<T> a, const T* e, const T* inv, const T* G, bool per_row, int64_t gs,
                                   bool mean, const T* total, T* out) {
  const int64_t C = a.C;
  const T Wsum = a.eps > T(0) && !a.q ? weight_sum(a.w, C) : T(0);
  // The gradient of the mean or sum is one number; with reduction "none" one per row.
  const T g_all = per_row ? T(0) : mean ? static_cast<T>(static_cast<double>(G[0]) / static_cast<double>(*total)) : G[0];
  const T qa = T(1) - a.eps, qb = a.eps / static_cast<T>(C);
  for (int64_t i = blockIdx.x; i < a.N; i += gridDim.x) {
    const T* er = e + i * C;
    T* row = out + i * C;
    const T gi = per_row ? G[i * gs] : g_all;
    if (a.q) {
      const T* q = a.q + i * C;
      T S = 0;
      for (int64_t j = threadIdx.x; j < C; j += blockDim.x) S += (a.w ? a.w[j] : T(1)) * (qa * q[j] + qb);
      S = block_reduce(S, SumR<T>{});
      __shared__ T shared_s;
      if (threadIdx.x == 0) shared_s = S;
      __syncthreads();
      const T scale = inv[i] * gi * shared_s;
      for (int64_t j = threadIdx.x; j < C; j += blockDim.x)
        row[j] = er[j] * scale - gi * (a.w ? a.w[j] : T(1)) * (qa * q[j] + qb);
      __syncthreads();  // shared_s is reused by the next row
      continue;
    }
    const int64_t c = a.t[i * a.ts];
    if (c == a.ignore) {
      for (int64_t j = threadIdx.x; j < C; j += blockDim.x) row[j] = T(0);
      continue;
    }
    if (!a.w && a.eps == T(0)) {
      const T scale = inv[i] * gi;
      for (int64_t j = threadIdx.x; j < C; j += blockDim.x) row[j] = j == c ? er[j] * scale - gi : er[j] * scale;
      continue;
    }
    const T wt = a.w ? a.w[c] : T(1);
    const T scale = inv[i] * gi * ((T(1) - a.eps) * wt + a.eps * Wsum / static_cast<T>(C));
    const T off = gi * a.eps / static_cast<T>(C);
    const T hit = gi * (T(1) - a.eps) * wt;
    for (int64_t j = threadIdx.x; j < C; j += blockDim.x) {
      const T v = er[j] * scale - (a.w ? off * a.w[j] : off);
      row[j] = j == c ? v - hit : v;
    }
  }
}
// [[/book:cuda_cross_entropy_backward]]

template <typename T>
void ce_backward(const Tensor& grad, const Tensor& g, const Tensor& t, const Tensor& e, const Tensor& inv,
                 const Tensor& total, Reduction r, const CrossEntropyOptions& o) {
  CeArgs<T> a{};
  a.N = e.shape[0];
  a.C = e.shape[1];
  a.q = o.target_probs ? o.target_probs->data<T>() : nullptr;
  a.t = a.q ? nullptr : t.data<int64_t>();
  a.ts = a.q ? 0 : t.strides[0];
  a.w = o.weight ? o.weight->data<T>() : nullptr;
  a.ignore = o.ignore_index;
  a.eps = static_cast<T>(o.label_smoothing);
  if (a.N == 0 || a.C == 0) return;
  const bool per_row = r == Reduction::None;
  AAKAAR_LAUNCH((ce_backward_kernel<T>), row_blocks(a.N), row_block_threads(a.C), 0, a, e.data<T>(), inv.data<T>(),
                g.data<T>(), per_row, per_row ? g.strides[0] : 0, r == Reduction::Mean, total.data<T>(),
                grad.data<T>());
  AAKAAR_CHECK_LAUNCH();
}

// ---------------------------------------------------------------- pointwise losses

template <typename T>
struct PwArgs {
  int64_t n;
  PointwiseLoss kind;
  const T *x, *t, *w, *pw;  // w, pw: null when absent
  T* aux;                   // BCEWithLogits' exp(-|x|) for the backward, or null
  T p;                      // Huber's delta, SmoothL1's beta
};

// [[book:cuda_pointwise_loss_value]]
// One element's loss (unweighted), the CPU's formulas; e = exp(-|x|) for BCEWithLogits.
template <typename T>
__device__ __forceinline__ T loss_value(PointwiseLoss k, T x, T t, const T* pw, int64_t i, T p, T& e) {
  switch (k) {
    case PointwiseLoss::MSE: {
      const T d = x - t;
      return d * d;
    }
    case PointwiseLoss::L1: return dmath::fabs_(x - t);
    case PointwiseLoss::Huber: {
      const T z = dmath::fabs_(x - t);
      return z < p ? T(0.5) * z * z : p * (z - T(0.5) * p);
    }
    case PointwiseLoss::SmoothL1: {
      const T z = dmath::fabs_(x - t);
      return z < p ? T(0.5) * z * z / p : z - T(0.5) * p;
    }
    case PointwiseLoss::BCE: {
      // Each log clamped at -100, so x = 0 or 1 gives a finite loss (PyTorch's rule).
      const T l1 = dmath::log1p_(-x), l0 = dmath::log_(x);
      return (t - T(1)) * (l1 < T(-100) ? T(-100) : l1) - t * (l0 < T(-100) ? T(-100) : l0);
    }
    case PointwiseLoss::BCEWithLogits: break;
  }
  // log sigmoid(x) = min(x, 0) - log1p(exp(-|x|)): exp never overflows.
  e = dmath::exp_(-dmath::fabs_(x));
  const T log_sig = (T(0) < x ? T(0) : x) - dmath::log1p_(e);  // std::min(x, 0), NaN as there
  if (pw) return (T(1) - t) * x - ((pw[i] - T(1)) * t + T(1)) * log_sig;
  return (T(1) - t) * x - log_sig;
}

// d loss / d x of one element (unweighted).
template <typename T>
__device__ __forceinline__ T loss_derivative(PointwiseLoss k, T x, T t, const T* pw, int64_t i, T p, T e) {
  const T d = x - t;
  switch (k) {
    case PointwiseLoss::MSE: return T(2) * d;
    case PointwiseLoss::L1: return T((d > 0) - (d < 0));  // 0 at d = 0 and at NaN, as PyTorch's sgn
    case PointwiseLoss::Huber: return d < -p ? -p : (d > p ? p : d);
    case PointwiseLoss::SmoothL1: return d < -p ? T(-1) : (d > p ? T(1) : d / p);
    case PointwiseLoss::BCE: {
      const T den = (T(1) - x) * x;
      return d / (den < T(1e-12f) ? T(1e-12f) : den);  // PyTorch's EPSILON is the float 1e-12
    }
    case PointwiseLoss::BCEWithLogits: break;
  }
  const T s = x >= 0 ? T(1) / (T(1) + e) : e / (T(1) + e);  // sigmoid(x), stable both sides
  if (!pw) return s - t;
  const T tp = pw[i] * t;
  return (tp + T(1) - t) * s - tp;
}
// [[/book:cuda_pointwise_loss_value]]

constexpr int kLossThreads = 256;

// Reduction none: out[i] = the weighted loss. Reduced: partial[block] = the block's sum in double.
template <typename T>
__global__ void __launch_bounds__(kLossThreads) pw_forward_kernel(PwArgs<T> a, T* out, double* partial) {
  double s = 0;
  const int64_t stride = static_cast<int64_t>(blockDim.x) * gridDim.x;
  for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < a.n; i += stride) {
    T e = T(0);
    T v = loss_value(a.kind, a.x[i], a.t[i], a.pw, i, a.p, e);
    if (a.aux) a.aux[i] = e;
    if (a.w) v = v * a.w[i];
    if (out) out[i] = v;
    else s += static_cast<double>(v);
  }
  if (partial == nullptr) return;
  s = block_reduce(s, SumR<double>{});
  if (threadIdx.x == 0) partial[blockIdx.x] = s;
}

// One block adds the partials in block order: loss = their sum (or over n, the mean).
template <typename T>
__global__ void pw_finish_kernel(const double* partial, int blocks, int64_t n, bool mean, T* loss) {
  double s = 0;
  for (int b = threadIdx.x; b < blocks; b += blockDim.x) s += partial[b];
  s = block_reduce(s, SumR<double>{});
  if (threadIdx.x == 0) *loss = static_cast<T>(mean ? s / static_cast<double>(n) : s);  // mean of nothing: NaN
}

template <typename T>
__global__ void __launch_bounds__(kLossThreads) pw_backward_kernel(PwArgs<T> a, const T* G, bool per_element,
                                                                  bool mean, T* out) {
  const T g_all = per_element ? T(0) : mean ? static_cast<T>(static_cast<double>(G[0]) / static_cast<double>(a.n)) : G[0];
  const int64_t stride = static_cast<int64_t>(blockDim.x) * gridDim.x;
  for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < a.n; i += stride) {
    const T x = a.x[i];
    T e = T(0);
    if (a.kind == PointwiseLoss::BCEWithLogits) e = a.aux ? a.aux[i] : dmath::exp_(-dmath::fabs_(x));
    const T dv = loss_derivative(a.kind, x, a.t[i], a.pw, i, a.p, e) * (per_element ? G[i] : g_all);
    out[i] = a.w ? dv * a.w[i] : dv;
  }
}

template <typename T>
PwArgs<T> pw_args(PointwiseLoss kind, const Tensor* aux, const Tensor& x, const Tensor& t, const Tensor* weight,
                  const Tensor* pos_weight, double param) {
  return PwArgs<T>{x.numel(),
                   kind,
                   x.data<T>(),
                   t.data<T>(),
                   weight ? weight->data<T>() : nullptr,
                   pos_weight ? pos_weight->data<T>() : nullptr,
                   aux ? aux->data<T>() : nullptr,
                   static_cast<T>(param)};
}

template <typename T>
void pw_forward(PointwiseLoss kind, const Tensor& loss, const Tensor* aux, const Tensor& x, const Tensor& t,
                const Tensor* weight, const Tensor* pos_weight, double param, Reduction r) {
  const PwArgs<T> a = pw_args<T>(kind, aux, x, t, weight, pos_weight, param);
  const int blocks = grid_stride_blocks(a.n, kLossThreads, 4);
  if (r == Reduction::None) {
    if (a.n == 0) return;
    AAKAAR_LAUNCH((pw_forward_kernel<T>), blocks, kLossThreads, 0, a, loss.data<T>(), nullptr);
    AAKAAR_CHECK_LAUNCH();
    return;
  }
  ScratchBuffer partial(sizeof(double) * static_cast<size_t>(blocks));
  AAKAAR_LAUNCH((pw_forward_kernel<T>), blocks, kLossThreads, 0, a, nullptr, partial.as<double>());
  AAKAAR_CHECK_LAUNCH();
  AAKAAR_LAUNCH((pw_finish_kernel<T>), 1, kLossThreads, 0, partial.as<double>(), blocks, a.n, r == Reduction::Mean,
                loss.data<T>());
  AAKAAR_CHECK_LAUNCH();
}

template <typename T>
void pw_backward(PointwiseLoss kind, const Tensor& grad_x, const Tensor& g, const Tensor* aux, const Tensor& x,
                 const Tensor& t, const Tensor* weight, const Tensor* pos_weight, double param, Reduction r) {
  const PwArgs<T> a = pw_args<T>(kind, aux, x, t, weight, pos_weight, param);
  if (a.n == 0) return;
  AAKAAR_LAUNCH((pw_backward_kernel<T>), grid_stride_blocks(a.n, kLossThreads, 4), kLossThreads, 0, a, g.data<T>(),
                r == Reduction::None, r == Reduction::Mean, grad_x.data<T>());
  AAKAAR_CHECK_LAUNCH();
}

}  // namespace

void cross_entropy(const Tensor& loss, const Tensor& e, const Tensor& inv, const Tensor& total, const Tensor& x,
                   const Tensor& t, Reduction r, const CrossEntropyOptions& o) {
  AK_DISPATCH_FLOAT(x.dtype, "cross_entropy", [&](auto tag) { ce_forward<decltype(tag)>(loss, e, inv, total, x, t, r, o); });
}

void cross_entropy_backward(const Tensor& grad, const Tensor& g, const Tensor& t, const Tensor& e, const Tensor& inv,
                            const Tensor& total, Reduction r, const CrossEntropyOptions& o) {
  AK_DISPATCH_FLOAT(grad.dtype, "cross_entropy backward",
                    [&](auto tag) { ce_backward<decltype(tag)>(grad, g, t, e, inv, total, r, o); });
}

void pointwise_loss(PointwiseLoss kind, const Tensor& loss, const Tensor* aux, const Tensor& x, const Tensor& t,
                    const Tensor* weight, const Tensor* pos_weight, double param, Reduction r) {
  AK_DISPATCH_FLOAT(x.dtype, "pointwise_loss",
                    [&](auto tag) { pw_forward<decltype(tag)>(kind, loss, aux, x, t, weight, pos_weight, param, r); });
}

void pointwise_loss_backward(PointwiseLoss kind, const Tensor& grad_x, const Tensor& g, const Tensor* aux,
                             const Tensor& x, const Tensor& t, const Tensor* weight, const Tensor* pos_weight,
                             double param, Reduction r) {
  AK_DISPATCH_FLOAT(x.dtype, "pointwise_loss backward", [&](auto tag) {
    pw_backward<decltype(tag)>(kind, grad_x, g, aux, x, t, weight, pos_weight, param, r);
  });
}

}  // namespace aakaar::cuda
