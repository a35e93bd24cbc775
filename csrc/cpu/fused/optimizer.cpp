// The CPU's fused optimizer step: the backend entry `optimizer_step`
// (core/backend.h). One call updates every parameter of a group.
//
// The parameters are laid end to end as one long range of elements, and the
// thread pool splits that range (parallel_for's grain keeps a small model on one
// thread): a 47-element bias and a 200 000-element weight are then one loop,
// not one Python call each. Each piece of the range is a run of one parameter,
// handed to the vectorised loop of the instruction set this CPU has
// (optimizer_loops.h). A parameter whose tensors are not all contiguous (a
// transposed view, a slice) is walked by the strided iterator instead, with
// the same per-element arithmetic (core/optimizer_math.h).
#include <algorithm>
#include <array>

#include "core/error.h"
#include "core/optimizer_math.h"
#include "cpu/backend_cpu.h"
#include "cpu/isa.h"
#include "cpu/iterator.h"
#include "cpu/parallel.h"

// The baseline (SSE2) build of the loops.
#define AK_KERNEL_NS baseline
#include "cpu/fused/optimizer_loops.h"
#undef AK_KERNEL_NS

namespace aakaar::cpu {

// LAMB and Adafactor (optimizer_layerwise.cpp).
void optimizer_step_layerwise(const OptimizerStep& st, const TensorList& params, const TensorList& grads,
                              const std::vector<TensorList>& states);

#define AK_OPTIMIZER_DECLS                                                                                      \
  void optimizer_run_f32(const OptimizerStep&, int64_t, float*, const float*, float*, float*, float*);       \
  void optimizer_run_f64(const OptimizerStep&, int64_t, double*, const double*, double*, double*, double*);
namespace avx2 { AK_OPTIMIZER_DECLS }
namespace avx512 { AK_OPTIMIZER_DECLS }
#undef AK_OPTIMIZER_DECLS

namespace {

template <typename T>
using RunFn = void (*)(const OptimizerStep&, int64_t, T*, const T*, T*, T*, T*);

template <typename T>
RunFn<T> run_for_isa() {
  constexpr bool f32 = std::is_same_v<T, float>;
#if defined(__x86_64__) || defined(_M_X64)
  if (isa() == Isa::Avx512) {
    if constexpr (f32) return avx512::optimizer_run_f32; else return avx512::optimizer_run_f64;
  }
  if (isa() == Isa::Avx2) {
    if constexpr (f32) return avx2::optimizer_run_f32; else return avx2::optimizer_run_f64;
  }
#endif
  if constexpr (f32) return baseline::optimizer_run_f32; else return baseline::optimizer_run_f64;
}

// The tensors of parameter i: p, g, s0, s1, s2 (a missing state slot repeats p; never touched).
std::array<const Tensor*, 5> slots(const TensorList& params, const TensorList& grads,
                                   const std::vector<TensorList>& states, size_t i) {
  std::array<const Tensor*, 5> t{params[i].get(), grads[i].get(), params[i].get(), params[i].get(), params[i].get()};
  for (size_t k = 0; k < states.size() && k < 3; ++k)
    if (!states[k].empty()) t[2 + k] = states[k][i].get();
  return t;
}

// The same step over tensors with any strides, one element at a time.
template <typename T>
void strided_step(const OptimizerStep& st, const std::array<const Tensor*, 5>& t) {
  StridedLoop<5> loop(t[0]->shape, {t[0], t[1], t[2], t[3], t[4]});
  loop.run([&](char** ptr, const int64_t* s, int64_t n) {
    for (int64_t i = 0; i < n; ++i) {
      auto at = [&](int k) -> T& { return *reinterpret_cast<T*>(ptr[k] + i * s[k]); };
      run_for_isa<T>()(st, 1, &at(0), &at(1), &at(2), &at(3), &at(4));
    }
  });
}

template <typename T>
void step_typed(const OptimizerStep& st, const TensorList& params, const TensorList& grads,
                const std::vector<TensorList>& states) {
  const size_t count = params.size();
  // [[book:optimizer_flat_loop]]
  // Contiguous parameters end to end: starts[j] is where the j-th of them begins.
  std::vector<size_t> flat;
  std::vector<int64_t> starts{0};
  for (size_t i = 0; i < count; ++i) {
    const auto t = slots(params, grads, states, i);
    const bool contiguous = std::all_of(t.begin(), t.end(), [](const Tensor* x) { return x->is_contiguous(); });
    if (!contiguous) {
      strided_step<T>(st, t);
      continue;
    }
    if (params[i]->numel() == 0) continue;
    flat.push_back(i);
    starts.push_back(starts.back() + params[i]->numel());
  }
  const RunFn<T> run = run_for_isa<T>();
  // Memory-bound: a thread pays for itself above ~64k elements (about 1 MB of traffic).
  parallel_for(0, starts.back(), int64_t(1) << 16, [&](int64_t begin, int64_t end) {
    size_t j = std::upper_bound(starts.begin(), starts.end(), begin) - starts.begin() - 1;
    for (int64_t at = begin; at < end; ++j) {
      const int64_t lo = at - starts[j], hi = std::min(end, starts[j + 1]) - starts[j];
      const auto t = slots(params, grads, states, flat[j]);
      T* base[5];
      for (int k = 0; k < 5; ++k) base[k] = t[k]->data<T>() + lo;
      run(st, hi - lo, base[0], base[1], base[2], base[3], base[4]);
      at = starts[j] + hi;
    }
  });
  // [[/book:optimizer_flat_loop]]
}

}  // namespace

// [[book:optimizer_step_cpu]]
void optimizer_step(const OptimizerStep& st, const TensorList& params, const TensorList& grads,
                    const std::vector<TensorList>& states) {
  if (params.empty()) return;
  if (st.kind == OptimizerKind::LAMB || st.kind == OptimizerKind::Adafactor)
    return optimizer_step_layerwise(st, params, grads, states);
  if (params[0]->dtype == DType::Float32) step_typed<float>(st, params, grads, states);
  else step_typed<double>(st, params, grads, states);
}
// [[/book:optimizer_step_cpu]]

}  // namespace aakaar::cpu
