// The fused optimizer step on the device: the backend entries `optimizer_step`
// (core/backend.h), for every OptimizerKind, and `optimizer_step_capturable` (the
// elementwise kinds with their step counters on the device: PyTorch's capturable=True).
//
// Multi-tensor apply, as PyTorch's fused optimizers do it: one launch updates many
// parameters. The host lays a table of up to kTableTensors parameters (their p, g and
// state pointers and sizes) and of up to kTableBlocks blocks (which parameter and which
// chunk of kChunk elements each block takes) into the kernel's arguments, so a model of
// a hundred small tensors is a handful of launches, not a hundred, and a block never
// looks further than its own table row. Inside a chunk the threads stride as every
// elementwise kernel here does.
//
// The arithmetic of an element is core/optimizer_math.h, the CPU's own: the same lines
// in the same order, so the device agrees with the CPU bit for bit (nvcc builds this
// file with -fmad=false, CMakeLists.txt, so that no a * b + c is contracted that the
// CPU rounds twice; the emulator's host compiler contracts nothing without -mfma).
//
// LAMB and Adafactor look at a whole parameter before updating it. LAMB takes two
// launches over the same chunks: the first updates the moments and writes each chunk's
// sums of squares (in double), the second adds a parameter's sums in chunk order and
// applies the step, each element's update recomputed from the stored moments (no buffer
// of updates). Adafactor (row and column means of g^2, then norms) takes one block per
// parameter, which sweeps it several times with barriers between. No atomics: the sums
// come out the same on every run.
#include <algorithm>
#include <array>
#include <cmath>
#include <vector>

#include "core/error.h"
#include "cuda/allocator.h"
#include "cuda/backend_cuda.h"
#include "cuda/emu/cuda_emu.h"  // before optimizer_math.h: its AK_HD functions become device functions
#include "core/optimizer_math.h"
#include "cuda/row_reduce.cuh"

namespace aakaar::cuda {
namespace {

namespace om = optim_math;

constexpr int kTableTensors = 24;  // the table stays under 4 KB, the classic kernel-argument limit
constexpr int kTableBlocks = 320;
// Elements per block. The emulator build takes smaller chunks, so that its tests reach the
// table's limits (more chunks than kTableBlocks) with a tensor of modest size.
constexpr int64_t kChunk = AAKAAR_EMU ? 2048 : 65536;
constexpr int kStepThreads = 256;
constexpr int kLayerThreads = 256;

// [[book:cuda_tensor_table]]
// The kernel's view of up to kTableTensors parameters: slot 0 the parameter, 1 its
// gradient, 2..4 the state tensors (null where the kind does not use one), and for
// each of up to kTableBlocks blocks, its parameter and chunk.
template <typename T>
struct TensorTable {
  T* ptr[5][kTableTensors];
  int64_t numel[kTableTensors];
  int64_t first[kTableTensors];  // the number of the tensor's first chunk in the whole step
  int32_t param[kTableTensors];  // the tensor's place in the list plan_launches was given
  int16_t tensor_of[kTableBlocks];
  int32_t chunk_of[kTableBlocks];
};
// [[/book:cuda_tensor_table]]

// The flags of one step, as the CPU's loops (cpu/fused/optimizer_loops.h) turn them into
// template constants; here they are the same for every thread, so the branches on them
// never diverge.
struct Flags {
  OptimizerKind kind;
  bool wd, momentum, nesterov, first, amsgrad, centered, rectified, average;
};

Flags flags_of(const OptimizerStep& st) {
  Flags f{};
  f.kind = st.kind;
  f.wd = st.weight_decay != 0 && !st.decoupled_weight_decay;
  f.momentum = st.kind == OptimizerKind::RMSprop ? st.momentum > 0 : st.momentum != 0;
  f.nesterov = st.nesterov;
  f.first = st.first_step;
  f.amsgrad = st.amsgrad;
  f.centered = st.centered;
  f.rectified = st.rect != 0;
  f.average = st.mu != 1;
  return f;
}

// Which of the three state slots the kind reads and writes (ops/optimizer.cpp's needed_slots).
std::vector<bool> used_slots(const OptimizerStep& s) {
  switch (s.kind) {
    case OptimizerKind::SGD: return {s.momentum != 0, false, false};
    case OptimizerKind::Adam: return {true, true, s.amsgrad};
    case OptimizerKind::Adagrad: case OptimizerKind::ASGD: case OptimizerKind::Lion: return {true, false, false};
    case OptimizerKind::RMSprop: return {true, s.centered, s.momentum > 0};
    case OptimizerKind::Adafactor: return {true, false, false};  // col_var: only for matrices (see below)
    default: return {true, true, false};
  }
}

// [[book:cuda_step_element]]
// One element of one parameter: the CPU's per-element functions with runtime flags.
template <typename T>
__device__ __forceinline__ void step_element(const om::Coef<T>& c, const Flags& f, T& p, T g, T& s0, T& s1, T& s2) {
  switch (f.kind) {
    case OptimizerKind::SGD: om::sgd(c, f.wd, f.momentum, f.nesterov, f.first, p, g, s0); break;
    case OptimizerKind::Adam: om::adam(c, f.wd, f.amsgrad, p, g, s0, s1, s2); break;
    case OptimizerKind::Adagrad: om::adagrad(c, f.wd, p, g, s0); break;
    case OptimizerKind::RMSprop: om::rmsprop(c, f.wd, f.centered, f.momentum, p, g, s0, s1, s2); break;
    case OptimizerKind::Adamax: om::adamax(c, f.wd, p, g, s0, s1); break;
    case OptimizerKind::NAdam: om::nadam(c, f.wd, p, g, s0, s1); break;
    case OptimizerKind::RAdam: om::radam(c, f.wd, f.rectified, p, g, s0, s1); break;
    case OptimizerKind::Adadelta: om::adadelta(c, f.wd, p, g, s0, s1); break;
    case OptimizerKind::Rprop: om::rprop(c, p, g, s0, s1); break;
    case OptimizerKind::ASGD: om::asgd(c, f.wd, f.average, p, g, s0); break;
    case OptimizerKind::Lion: om::lion(c, p, g, s0); break;
    default: break;  // LAMB and Adafactor: lamb_*_kernel, adafactor_kernel
  }
}

// This block's chunk of its parameter.
template <typename T>
__device__ __forceinline__ void step_chunk(const TensorTable<T>& tab, const om::Coef<T>& c, const Flags& f) {
  const int k = tab.tensor_of[blockIdx.x];
  const int64_t lo = static_cast<int64_t>(tab.chunk_of[blockIdx.x]) * kChunk;
  const int64_t hi = lo + kChunk < tab.numel[k] ? lo + kChunk : tab.numel[k];
  T* p = tab.ptr[0][k];
  const T* g = tab.ptr[1][k];
  T *s0 = tab.ptr[2][k], *s1 = tab.ptr[3][k], *s2 = tab.ptr[4][k];
  for (int64_t i = lo + threadIdx.x; i < hi; i += blockDim.x) {
    T pi = p[i], a = s0 ? s0[i] : T(0), b = s1 ? s1[i] : T(0), d = s2 ? s2[i] : T(0);
    step_element(c, f, pi, g[i], a, b, d);
    p[i] = pi;
    if (s0) s0[i] = a;
    if (s1) s1[i] = b;
    if (s2) s2[i] = d;
  }
}

template <typename T>
__global__ void __launch_bounds__(kStepThreads) step_kernel(TensorTable<T> tab, om::Coef<T> c, Flags f) {
  step_chunk(tab, c, f);
}
// [[/book:cuda_step_element]]

// [[book:cuda_capturable]]
// capturable=True: the step counters live on the device (core/backend.h, OptimizerCounters).
// count_kernel, a thread per parameter, increments each counter, renews NAdam's mu_product
// and ASGD's eta and mu, and works out the parameter's numbers (core/optimizer_math.h, the
// host's own arithmetic) into a CountedCoef; then every block of counted_step_kernel reads
// its parameter's. Nothing goes back to the host, and parameters at different steps share
// a launch.
template <typename T>
struct CountedCoef {
  om::Coef<T> c;
  bool rectified, average;  // RAdam's rho_t > 5, ASGD's mu != 1: per parameter here
};

constexpr int kCounterTable = 64;  // parameters per count_kernel launch
struct CounterTable {
  void* step[kCounterTable];  // null for SGD and Lion
  void* aux0[kCounterTable];  // NAdam's mu_product, ASGD's eta
  void* aux1[kCounterTable];  // ASGD's mu
  uint8_t f64[kCounterTable];  // bit 1, 2, 4: step, aux0, aux1 is float64 (else float32)
  const void* lr;              // null: the OptimizerStep's lr
  bool lr_f64;
  int count, first;  // parameters first .. first + count - 1 of the step
};

__device__ __forceinline__ double load_counter(const void* p, bool f64) {
  return f64 ? *static_cast<const double*>(p) : static_cast<double>(*static_cast<const float*>(p));
}
// Stores v in the counter's dtype and returns what was stored, as the host path rounds it.
__device__ __forceinline__ double store_counter(void* p, bool f64, double v) {
  if (f64) *static_cast<double*>(p) = v;
  else *static_cast<float*>(p) = static_cast<float>(v);
  return load_counter(p, f64);
}

template <typename T>
__global__ void count_kernel(OptimizerStep st, CounterTable tab, CountedCoef<T>* out) {
  const int j = blockIdx.x * blockDim.x + threadIdx.x;
  if (j >= tab.count) return;
  if (tab.lr) st.lr = load_counter(tab.lr, tab.lr_f64);
  const bool f_step = tab.f64[j] & 1, f0 = tab.f64[j] & 2, f1 = tab.f64[j] & 4;
  double t = 0, product = 1;
  if (tab.step[j]) t = store_counter(tab.step[j], f_step, load_counter(tab.step[j], f_step) + 1);
  if (st.kind == OptimizerKind::NAdam) {
    const double renewed = om::next_mu_product(load_counter(tab.aux0[j], f0), om::nadam_mu(st, t), f0);
    product = store_counter(tab.aux0[j], f0, renewed);
  }
  if (st.kind == OptimizerKind::ASGD) {  // this step reads eta and mu; the next one their renewed values
    st.eta = load_counter(tab.aux0[j], f0);
    st.mu = load_counter(tab.aux1[j], f1);
    store_counter(tab.aux0[j], f0, om::asgd_eta(st, t));
    store_counter(tab.aux1[j], f1, om::asgd_mu(st, t));
  }
  om::fill_step_numbers(st, t, product);
  out[tab.first + j] = CountedCoef<T>{om::Coef<T>(st), st.rect != 0, st.mu != 1};
}

template <typename T>
__global__ void __launch_bounds__(kStepThreads) counted_step_kernel(TensorTable<T> tab, const CountedCoef<T>* coefs,
                                                                    Flags f) {
  const CountedCoef<T>& mine = coefs[tab.param[tab.tensor_of[blockIdx.x]]];
  f.rectified = mine.rectified;
  f.average = mine.average;
  const om::Coef<T> c = mine.c;
  step_chunk(tab, c, f);
}
// [[/book:cuda_capturable]]

struct SumD {
  __device__ __forceinline__ double identity() const { return 0.0; }
  __device__ __forceinline__ double combine(double a, double b) const { return a + b; }
};

// [[book:cuda_lamb]]
// LAMB in two launches over the same chunks. The first updates m and v and writes each
// chunk's sums of w^2 and u^2 (u the Adam-like direction) to partial[2 * chunk]; the
// second adds a tensor's partials in chunk order (every block of the tensor gets the same
// trust = ||w|| / ||u||, 1 when either is 0, as on the CPU), recomputes u from the new
// moments and takes the step lr * trust * u.
template <typename T>
__global__ void __launch_bounds__(kStepThreads) lamb_moments_kernel(TensorTable<T> tab, om::Coef<T> c,
                                                                    double* partial) {
  const int k = tab.tensor_of[blockIdx.x];
  const int64_t lo = static_cast<int64_t>(tab.chunk_of[blockIdx.x]) * kChunk;
  const int64_t hi = lo + kChunk < tab.numel[k] ? lo + kChunk : tab.numel[k];
  const T* p = tab.ptr[0][k];
  const T* g = tab.ptr[1][k];
  T *m = tab.ptr[2][k], *v = tab.ptr[3][k];
  double w2 = 0, u2 = 0;
  for (int64_t i = lo + threadIdx.x; i < hi; i += blockDim.x) {
    T mi = m[i], vi = v[i];
    const T pi = p[i];
    const T u = om::lamb_direction(c, true, pi, g[i], mi, vi);
    m[i] = mi;
    v[i] = vi;
    w2 += static_cast<double>(pi) * static_cast<double>(pi);
    u2 += static_cast<double>(u) * static_cast<double>(u);
  }
  w2 = block_reduce(w2, SumD{});
  u2 = block_reduce(u2, SumD{});
  if (threadIdx.x == 0) {
    double* out = partial + 2 * (tab.first[k] + tab.chunk_of[blockIdx.x]);
    out[0] = w2;
    out[1] = u2;
  }
}

template <typename T>
__global__ void __launch_bounds__(kStepThreads) lamb_apply_kernel(TensorTable<T> tab, om::Coef<T> c, double lr,
                                                                  const double* partial) {
  const int k = tab.tensor_of[blockIdx.x];
  const int64_t n = tab.numel[k];
  const int64_t lo = static_cast<int64_t>(tab.chunk_of[blockIdx.x]) * kChunk;
  const int64_t hi = lo + kChunk < n ? lo + kChunk : n;
  T* p = tab.ptr[0][k];
  const T* g = tab.ptr[1][k];
  const T *m = tab.ptr[2][k], *v = tab.ptr[3][k];
  __shared__ T neg_step;
  if (threadIdx.x == 0) {
    const double* part = partial + 2 * tab.first[k];
    double w2 = 0, u2 = 0;
    for (int64_t ch = 0; ch < (n + kChunk - 1) / kChunk; ++ch) {
      w2 += part[2 * ch];
      u2 += part[2 * ch + 1];
    }
    const double w_norm = std::sqrt(w2), u_norm = std::sqrt(u2);
    const double trust = (w_norm > 0 && u_norm > 0) ? w_norm / u_norm : 1.0;
    neg_step = T(-lr * trust);
  }
  __syncthreads();
  const T step = neg_step;
  for (int64_t i = lo + threadIdx.x; i < hi; i += blockDim.x) {
    T mi = m[i], vi = v[i];
    const T u = om::lamb_direction(c, false, p[i], g[i], mi, vi);
    p[i] = p[i] + step * u;
  }
}
// [[/book:cuda_lamb]]

// Adafactor's numbers, each rounded to T once as the CPU rounds them
// (cpu/fused/optimizer_layerwise.h, adafactor_one).
template <typename T>
struct AdafactorCoef {
  T sign, w, eps1, eps1_sq, decay;
  bool has_decay;
  double eps2, rho_t, d;
};

// The last two sizes of each parameter of a launch (0 for a vector).
struct MatrixSizes {
  int64_t rows[kTableTensors], cols[kTableTensors];
};

// torch.lerp_(a, b, w) with a scalar weight, in T (the CPU's Adafactor uses this form).
template <typename T>
__device__ __forceinline__ T lerp_plain(T a, T b, T w) {
  return w < T(0.5) ? a + w * (b - a) : b - (b - a) * (T(1) - w);
}

// The sum of squares of a row in double, in the CPU's order (eight running sums), so a
// row norm comes out the same bits as there: one thread per row, no reordering.
template <typename T>
__device__ __forceinline__ double row_sum_squares(const T* x, int64_t n) {
  double acc[8] = {0, 0, 0, 0, 0, 0, 0, 0};
  int64_t i = 0;
  for (; i + 8 <= n; i += 8)
    for (int q = 0; q < 8; ++q) acc[q] += static_cast<double>(x[i + q]) * static_cast<double>(x[i + q]);
  for (; i < n; ++i) acc[0] += static_cast<double>(x[i]) * static_cast<double>(x[i]);
  return ((acc[0] + acc[1]) + (acc[2] + acc[3])) + ((acc[4] + acc[5]) + (acc[6] + acc[7]));
}

// Thread 0 sums one matrix's row_var in order (as the CPU does) and shares
// max(mean, eps1); every thread must call it.
template <typename T>
__device__ __forceinline__ T shared_row_mean(const T* r, int64_t R, T eps1) {
  __shared__ T mean;
  __syncthreads();  // r is complete, and the previous matrix's mean is read by all
  if (threadIdx.x == 0) {
    double s = 0;
    for (int64_t i = 0; i < R; ++i) s += static_cast<double>(r[i]);
    const T m = T(s / static_cast<double>(R));
    mean = m < eps1 ? eps1 : m;
  }
  __syncthreads();
  return mean;
}

// The update of element (i, j) of a matrix: rsqrt(max(r_i c_j / row_mean, eps1^2)) * g.
template <typename T>
__device__ __forceinline__ T factored_update(const AdafactorCoef<T>& a, T ri, T cj, T row_mean, T g) {
  T var = (ri * cj) / row_mean;
  var = var < a.eps1_sq ? a.eps1_sq : var;
  return (T(1) / std::sqrt(var)) * (g * a.sign);
}

// [[book:cuda_adafactor]]
// Adafactor, one block per parameter (2-d and up: row_var (..., R, 1) and col_var
// (..., 1, C); a vector: the full variance in row_var). Sweeps: ||p|| (alpha), the
// decay of p, the row and column means of g^2 (a thread per row, a thread per column),
// ||update||, then the step, each update recomputed from the stored means.
template <typename T>
__global__ void __launch_bounds__(kLayerThreads) adafactor_kernel(TensorTable<T> tab, AdafactorCoef<T> a,
                                                                   MatrixSizes sz) {
  const int k = blockIdx.x;
  const int64_t n = tab.numel[k], R = sz.rows[k], C = sz.cols[k];
  T* p = tab.ptr[0][k];
  const T* g = tab.ptr[1][k];
  T* r = tab.ptr[2][k];
  T* col = tab.ptr[3][k];  // null for a vector
  double p2 = 0;
  for (int64_t i = threadIdx.x; i < n; i += blockDim.x) p2 += static_cast<double>(p[i]) * static_cast<double>(p[i]);
  p2 = block_reduce(p2, SumD{});
  __shared__ double alpha_sh;
  if (threadIdx.x == 0) {
    const double rms = static_cast<double>(T(std::sqrt(p2))) / std::sqrt(static_cast<double>(n));
    alpha_sh = (a.eps2 < rms ? rms : a.eps2) * a.rho_t;  // std::max(eps2, rms), NaN as there
  }
  if (a.has_decay)
    for (int64_t i = threadIdx.x; i < n; i += blockDim.x) p[i] = p[i] * a.decay;
  double u2 = 0;
  if (col) {
    for (int64_t b = 0; b < n / (R * C); ++b) {
      const T* gb = g + b * R * C;
      T *rb = r + b * R, *cb = col + b * C;
      for (int64_t i = threadIdx.x; i < R; i += blockDim.x) {
        const T norm = T(std::sqrt(row_sum_squares(gb + i * C, C)));
        rb[i] = lerp_plain(rb[i], (norm * norm) / T(C), a.w);
      }
      for (int64_t j = threadIdx.x; j < C; j += blockDim.x) {
        double s = 0;
        for (int64_t i = 0; i < R; ++i) s += static_cast<double>(gb[i * C + j]) * static_cast<double>(gb[i * C + j]);
        const T norm = T(std::sqrt(s));
        cb[j] = lerp_plain(cb[j], (norm * norm) / T(R), a.w);
      }
      const T mean = shared_row_mean(rb, R, a.eps1);
      for (int64_t e = threadIdx.x; e < R * C; e += blockDim.x) {
        const T u = factored_update(a, rb[e / C], cb[e % C], mean, gb[e]);
        u2 += static_cast<double>(u) * static_cast<double>(u);
      }
    }
  } else {
    for (int64_t i = threadIdx.x; i < n; i += blockDim.x) {
      const T gi = g[i] * a.sign;
      const T ri = lerp_plain(r[i], gi * gi, a.w);
      r[i] = ri;
      const T u = (T(1) / std::sqrt(ri < a.eps1_sq ? a.eps1_sq : ri)) * gi;
      u2 += static_cast<double>(u) * static_cast<double>(u);
    }
  }
  u2 = block_reduce(u2, SumD{});
  __shared__ T neg_step;
  if (threadIdx.x == 0) {
    // The step is clipped so that the update's RMS is at most d.
    const double u_norm = static_cast<double>(T(std::sqrt(u2)));
    const double q = u_norm / (std::sqrt(static_cast<double>(n)) * a.d);
    neg_step = T(-alpha_sh / (q > 1.0 ? q : 1.0));
  }
  __syncthreads();
  const T step = neg_step;
  if (col) {
    for (int64_t b = 0; b < n / (R * C); ++b) {
      const T* gb = g + b * R * C;
      const T *rb = r + b * R, *cb = col + b * C;
      T* pb = p + b * R * C;
      const T mean = shared_row_mean(rb, R, a.eps1);
      for (int64_t e = threadIdx.x; e < R * C; e += blockDim.x)
        pb[e] = pb[e] + step * factored_update(a, rb[e / C], cb[e % C], mean, gb[e]);
    }
  } else {
    for (int64_t i = threadIdx.x; i < n; i += blockDim.x) {
      const T ri = r[i];
      const T u = (T(1) / std::sqrt(ri < a.eps1_sq ? a.eps1_sq : ri)) * (g[i] * a.sign);
      p[i] = p[i] + step * u;
    }
  }
}
// [[/book:cuda_adafactor]]

// Tensors of one parameter as the kernels see them: contiguous. A strided parameter
// (a transposed view, a slice) or state gets a contiguous copy here, which is copied
// back after the launches (the op hands LAMB and Adafactor contiguous tensors already).
struct Staged {
  std::vector<TensorPtr> keep;  // the copies, alive until every launch that reads them
  std::vector<std::pair<const Tensor*, const Tensor*>> back;  // (original, copy) to write back

  const Tensor* dense(const Tensor* t, bool written) {
    if (t == nullptr || t->is_contiguous()) return t;
    TensorPtr c = Tensor::empty(t->shape, t->dtype, t->device());
    copy(*c, *t);
    keep.push_back(c);
    if (written) back.emplace_back(t, c.get());
    return c.get();
  }
  void write_back() {
    for (const auto& [orig, c] : back) copy(*orig, *c);
  }
};

// [[book:cuda_multi_tensor_apply]]
// The parameters laid into tables of at most kTableTensors tensors and kTableBlocks
// blocks: one launch each. A tensor with more chunks than a table has blocks continues
// in the next table (from slot 0). first[k] numbers a tensor's chunks across the whole
// step (LAMB's partial sums are indexed by it).
template <typename T>
struct Launch {
  TensorTable<T> tab;
  int blocks;
};

template <typename T>
std::vector<Launch<T>> plan_launches(const std::vector<std::array<T*, 5>>& ptrs, const std::vector<int64_t>& numel,
                                     int64_t* total_chunks = nullptr) {
  std::vector<Launch<T>> out;
  Launch<T> cur{};
  int nt = 0;  // tensors in cur
  int64_t first = 0;
  auto add_tensor = [&](size_t i, int slot) {
    for (int s = 0; s < 5; ++s) cur.tab.ptr[s][slot] = ptrs[i][s];
    cur.tab.numel[slot] = numel[i];
    cur.tab.first[slot] = first;
    cur.tab.param[slot] = static_cast<int32_t>(i);
  };
  for (size_t i = 0; i < ptrs.size(); ++i) {
    const int64_t n = numel[i];
    if (n == 0) continue;
    if (nt == kTableTensors) {
      out.push_back(cur);
      cur.blocks = nt = 0;
    }
    add_tensor(i, nt);
    const int64_t chunks = (n + kChunk - 1) / kChunk;
    for (int64_t ch = 0; ch < chunks; ++ch) {
      cur.tab.tensor_of[cur.blocks] = static_cast<int16_t>(nt);
      cur.tab.chunk_of[cur.blocks] = static_cast<int32_t>(ch);
      if (++cur.blocks < kTableBlocks) continue;
      out.push_back(cur);
      // The table's other tensors are done; this one goes on from slot 0 if it has chunks left.
      cur.blocks = 0;
      nt = ch + 1 < chunks ? 0 : -1;
      if (nt == 0) add_tensor(i, 0);
    }
    ++nt;
    first += chunks;
  }
  if (cur.blocks > 0) out.push_back(cur);
  if (total_chunks) *total_chunks = first;
  return out;
}

// The pointers of every parameter (contiguous: strided ones staged), in the order given
// (an empty parameter keeps its place, with no pointers, and plan_launches skips it).
template <typename T>
struct Elementwise {
  Staged staged;
  std::vector<std::array<T*, 5>> ptrs;
  std::vector<int64_t> numel;

  Elementwise(const OptimizerStep& st, const TensorList& params, const TensorList& grads,
              const std::vector<TensorList>& states) {
    const std::vector<bool> used = used_slots(st);
    for (size_t i = 0; i < params.size(); ++i) {
      std::array<T*, 5> p{};
      if (params[i]->numel() > 0) {
        p[0] = staged.dense(params[i].get(), true)->template data<T>();
        p[1] = staged.dense(grads[i].get(), false)->template data<T>();
        for (int s = 0; s < 3; ++s)
          p[2 + s] = used[s] ? staged.dense(states[s][i].get(), true)->template data<T>() : nullptr;
      }
      ptrs.push_back(p);
      numel.push_back(params[i]->numel());
    }
  }
};

template <typename T>
void step_elementwise(const OptimizerStep& st, const TensorList& params, const TensorList& grads,
                      const std::vector<TensorList>& states) {
  const om::Coef<T> c(st);
  const Flags f = flags_of(st);
  Elementwise<T> e(st, params, grads, states);
  for (const Launch<T>& l : plan_launches(e.ptrs, e.numel)) {
    AAKAAR_LAUNCH((step_kernel<T>), l.blocks, kStepThreads, 0, l.tab, c, f);
    AAKAAR_CHECK_LAUNCH();
  }
  e.staged.write_back();
}

void* counter_ptr(const Tensor& t) {
  return t.dtype == DType::Float64 ? static_cast<void*>(t.data<double>()) : static_cast<void*>(t.data<float>());
}

// capturable=True: count_kernel over kCounterTable parameters at a time, then the launches
// of step_elementwise with each block's numbers read from the device.
template <typename T>
void step_capturable(const OptimizerStep& st, const TensorList& params, const TensorList& grads,
                     const std::vector<TensorList>& states, const OptimizerCounters& counters) {
  const int n = static_cast<int>(params.size());
  ScratchBuffer coefs(sizeof(CountedCoef<T>) * static_cast<size_t>(n));
  const TensorList& aux0 = st.kind == OptimizerKind::NAdam ? counters.mu_products : counters.etas;
  for (int first = 0; first < n; first += kCounterTable) {
    CounterTable tab{};
    tab.first = first;
    tab.count = std::min(kCounterTable, n - first);
    if (counters.lr) {
      tab.lr = counter_ptr(*counters.lr);
      tab.lr_f64 = counters.lr->dtype == DType::Float64;
    }
    for (int j = 0; j < tab.count; ++j) {
      auto put = [&](void*& slot, const TensorList& list, uint8_t bit) {
        if (list.empty()) return;
        slot = counter_ptr(*list[first + j]);
        if (list[first + j]->dtype == DType::Float64) tab.f64[j] |= bit;
      };
      put(tab.step[j], counters.steps, 1);
      put(tab.aux0[j], aux0, 2);
      put(tab.aux1[j], counters.mus, 4);
    }
    AAKAAR_LAUNCH((count_kernel<T>), 1, kCounterTable, 0, st, tab, coefs.as<CountedCoef<T>>());
    AAKAAR_CHECK_LAUNCH();
  }
  const Flags f = flags_of(st);
  Elementwise<T> e(st, params, grads, states);
  for (const Launch<T>& l : plan_launches(e.ptrs, e.numel)) {
    AAKAAR_LAUNCH((counted_step_kernel<T>), l.blocks, kStepThreads, 0, l.tab, coefs.as<CountedCoef<T>>(), f);
    AAKAAR_CHECK_LAUNCH();
  }
  e.staged.write_back();
}
// [[/book:cuda_multi_tensor_apply]]

// LAMB: every first launch, then every second (a tensor may span two tables).
template <typename T>
void step_lamb(const OptimizerStep& st, const TensorList& params, const TensorList& grads,
               const std::vector<TensorList>& states) {
  const om::Coef<T> c(st);
  std::vector<std::array<T*, 5>> ptrs;
  std::vector<int64_t> numel;
  for (size_t i = 0; i < params.size(); ++i) {
    // (contiguous: the op hands LAMB contiguous copies of strided tensors)
    ptrs.push_back({params[i]->data<T>(), grads[i]->data<T>(), states[0][i]->data<T>(), states[1][i]->data<T>(),
                    nullptr});
    numel.push_back(params[i]->numel());
  }
  int64_t chunks = 0;
  const std::vector<Launch<T>> launches = plan_launches(ptrs, numel, &chunks);
  if (launches.empty()) return;
  ScratchBuffer partial(sizeof(double) * 2 * static_cast<size_t>(chunks));
  for (const Launch<T>& l : launches) {
    AAKAAR_LAUNCH((lamb_moments_kernel<T>), l.blocks, kStepThreads, 0, l.tab, c, partial.as<double>());
    AAKAAR_CHECK_LAUNCH();
  }
  for (const Launch<T>& l : launches) {
    AAKAAR_LAUNCH((lamb_apply_kernel<T>), l.blocks, kStepThreads, 0, l.tab, c, st.lr, partial.as<double>());
    AAKAAR_CHECK_LAUNCH();
  }
}

// Adafactor: a block per parameter, kTableTensors parameters per launch.
template <typename T>
void step_adafactor(const OptimizerStep& st, const TensorList& params, const TensorList& grads,
                    const std::vector<TensorList>& states) {
  AdafactorCoef<T> a{};
  a.sign = st.maximize ? T(-1) : T(1);
  a.w = T(st.one_minus_beta2_t);
  a.eps1 = T(st.eps);
  a.eps1_sq = T(st.eps * st.eps);
  a.has_decay = st.weight_decay != 0;
  a.decay = T(1 - st.lr * st.weight_decay);
  a.eps2 = st.eps2;
  a.rho_t = st.rho_t;
  a.d = st.d;
  MatrixSizes sizes{};
  TensorTable<T> tab{};
  int nt = 0;
  auto flush = [&] {
    if (nt == 0) return;
    AAKAAR_LAUNCH((adafactor_kernel<T>), nt, kLayerThreads, 0, tab, a, sizes);
    AAKAAR_CHECK_LAUNCH();
    nt = 0;
  };
  for (size_t i = 0; i < params.size(); ++i) {
    const Tensor& p = *params[i];
    if (p.numel() == 0) continue;
    tab.ptr[0][nt] = p.data<T>();
    tab.ptr[1][nt] = grads[i]->data<T>();
    tab.ptr[2][nt] = states[0][i]->data<T>();
    const bool matrix = p.ndim() > 1;
    tab.ptr[3][nt] = matrix ? states[1][i]->data<T>() : nullptr;
    tab.ptr[4][nt] = nullptr;
    tab.numel[nt] = p.numel();
    sizes.rows[nt] = matrix ? p.shape[p.ndim() - 2] : 0;
    sizes.cols[nt] = matrix ? p.shape[p.ndim() - 1] : 0;
    if (++nt == kTableTensors) flush();
  }
  flush();
}

}  // namespace

void optimizer_step_capturable(const OptimizerStep& st, const TensorList& params, const TensorList& grads,
                               const std::vector<TensorList>& states, const OptimizerCounters& counters) {
  if (params.empty()) return;
  AK_CHECK(st.kind != OptimizerKind::LAMB && st.kind != OptimizerKind::Adafactor, ValueError,
           "optimizer_step_capturable: the elementwise kinds only");
  AK_DISPATCH_FLOAT(params[0]->dtype, "optimizer_step_capturable", [&](auto tag) {
    step_capturable<decltype(tag)>(st, params, grads, states, counters);
  });
}

void optimizer_step(const OptimizerStep& st, const TensorList& params, const TensorList& grads,
                    const std::vector<TensorList>& states) {
  if (params.empty()) return;
  AK_DISPATCH_FLOAT(params[0]->dtype, "optimizer_step", [&](auto tag) {
    using T = decltype(tag);
    if (st.kind == OptimizerKind::LAMB) step_lamb<T>(st, params, grads, states);
    else if (st.kind == OptimizerKind::Adafactor) step_adafactor<T>(st, params, grads, states);
    else step_elementwise<T>(st, params, grads, states);
  });
}

}  // namespace aakaar::cuda
