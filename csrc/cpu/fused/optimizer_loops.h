// The inner loop of the CPU's fused optimizer step over one contiguous run of
// elements, compiled once per instruction set (optimizer.cpp, optimizer_avx2.cpp,
// optimizer_avx512.cpp; cpu/isa.h chooses). The flags of each kind are turned
// into template constants here, so every combination is its own branch-free
// loop that the compiler vectorises; the arithmetic is core/optimizer_math.h.
#include <cstdint>
#include <type_traits>

#include "core/optimizer_math.h"

#ifndef AK_KERNEL_NS
#error "define AK_KERNEL_NS before including optimizer_loops.h"
#endif

namespace aakaar::cpu::AK_KERNEL_NS {

namespace {
using std::integral_constant;
template <bool B>
using Bool = integral_constant<bool, B>;

// f(Bool<a>{}) with a known at compile time.
template <typename F>
void with_flag(bool a, const F& f) {
  if (a) f(Bool<true>{});
  else f(Bool<false>{});
}

// [[book:optimizer_each]]
// The run [0, n) of one parameter: p, g, s0, s1, s2 (unused slots point anywhere: never read).
template <typename T, typename Elem>
void each(int64_t n, T* __restrict p, const T* __restrict g, T* __restrict s0, T* __restrict s1,
          T* __restrict s2, const Elem& elem) {
  for (int64_t i = 0; i < n; ++i) elem(p[i], g[i], s0[i], s1[i], s2[i]);
}
// [[/book:optimizer_each]]

template <typename T>
void step_run(const OptimizerStep& st, int64_t n, T* p, const T* g, T* s0, T* s1, T* s2) {
  namespace om = optim_math;
  const om::Coef<T> c(st);
  const bool wd = st.weight_decay != 0 && !st.decoupled_weight_decay;
  switch (st.kind) {
    case OptimizerKind::SGD:
      if (st.momentum == 0) {
        with_flag(wd, [&](auto W) {
          each(n, p, g, s0, s1, s2, [&](T& p, T g, T& b, T&, T&) { om::sgd(c, W(), false, false, false, p, g, b); });
        });
      } else {
        with_flag(wd, [&](auto W) {
          with_flag(st.nesterov, [&](auto N) {
            with_flag(st.first_step, [&](auto F) {
              each(n, p, g, s0, s1, s2, [&](T& p, T g, T& b, T&, T&) { om::sgd(c, W(), true, N(), F(), p, g, b); });
            });
          });
        });
      }
      return;
    case OptimizerKind::Adam:
      with_flag(wd, [&](auto W) {
        with_flag(st.amsgrad, [&](auto A) {
          each(n, p, g, s0, s1, s2, [&](T& p, T g, T& m, T& v, T& vm) { om::adam(c, W(), A(), p, g, m, v, vm); });
        });
      });
      return;
    case OptimizerKind::Adagrad:
      with_flag(wd, [&](auto W) {
        each(n, p, g, s0, s1, s2, [&](T& p, T g, T& s, T&, T&) { om::adagrad(c, W(), p, g, s); });
      });
      return;
    case OptimizerKind::RMSprop:
      with_flag(wd, [&](auto W) {
        with_flag(st.centered, [&](auto C) {
          with_flag(st.momentum > 0, [&](auto M) {
            each(n, p, g, s0, s1, s2,
                 [&](T& p, T g, T& sq, T& ga, T& b) { om::rmsprop(c, W(), C(), M(), p, g, sq, ga, b); });
          });
        });
      });
      return;
    case OptimizerKind::Adamax:
      with_flag(wd, [&](auto W) {
        each(n, p, g, s0, s1, s2, [&](T& p, T g, T& m, T& u, T&) { om::adamax(c, W(), p, g, m, u); });
      });
      return;
    case OptimizerKind::NAdam:
      with_flag(wd, [&](auto W) {
        each(n, p, g, s0, s1, s2, [&](T& p, T g, T& m, T& v, T&) { om::nadam(c, W(), p, g, m, v); });
      });
      return;
    case OptimizerKind::RAdam:
      with_flag(wd, [&](auto W) {
        with_flag(st.rect != 0, [&](auto R) {
          each(n, p, g, s0, s1, s2, [&](T& p, T g, T& m, T& v, T&) { om::radam(c, W(), R(), p, g, m, v); });
        });
      });
      return;
    case OptimizerKind::Adadelta:
      with_flag(wd, [&](auto W) {
        each(n, p, g, s0, s1, s2, [&](T& p, T g, T& sq, T& acc, T&) { om::adadelta(c, W(), p, g, sq, acc); });
      });
      return;
    case OptimizerKind::Rprop:
      each(n, p, g, s0, s1, s2, [&](T& p, T g, T& prev, T& size, T&) { om::rprop(c, p, g, prev, size); });
      return;
    case OptimizerKind::ASGD:
      with_flag(wd, [&](auto W) {
        with_flag(st.mu != 1, [&](auto A) {
          each(n, p, g, s0, s1, s2, [&](T& p, T g, T& ax, T&, T&) { om::asgd(c, W(), A(), p, g, ax); });
        });
      });
      return;
    case OptimizerKind::Lion:
      each(n, p, g, s0, s1, s2, [&](T& p, T g, T& m, T&, T&) { om::lion(c, p, g, m); });
      return;
    case OptimizerKind::LAMB:
    case OptimizerKind::Adafactor:
      return;  // two passes per parameter: optimizer_layerwise.cpp, never this loop
  }
}
}  // namespace

void optimizer_run_f32(const OptimizerStep& st, int64_t n, float* p, const float* g, float* s0, float* s1,
                       float* s2) {
  step_run<float>(st, n, p, g, s0, s1, s2);
}
void optimizer_run_f64(const OptimizerStep& st, int64_t n, double* p, const double* g, double* s0, double* s1,
                       double* s2) {
  step_run<double>(st, n, p, g, s0, s1, s2);
}

}  // namespace aakaar::cpu::AK_KERNEL_NS
