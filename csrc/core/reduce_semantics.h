// What each reduction means, element by element: its identity (the result over
// no elements) and how one more element joins the accumulator. One definition
// for the CPU (csrc/cpu/reduce.cpp) and the CUDA kernels (csrc/cuda/reduce_ops.cu),
// so both devices give the same answers: max/min propagate NaN like PyTorch
// (once the accumulator is NaN nothing replaces it), all/any are logical,
// and integer sums and products wrap around as PyTorch's do (two's
// complement) with defined arithmetic (py_arith::wrap_add / wrap_mul): a
// signed overflow is undefined behaviour in C++.
// Internal linkage, as in py_arith.h.
#pragma once
#include <limits>
#include <type_traits>

#include "core/backend.h"
#include "core/host_device.h"
#include "core/py_arith.h"

namespace aakaar::reduce_semantics {
namespace {

template <typename T>
AK_HD T identity(ReduceOp op) {
  switch (op) {
    case ReduceOp::Sum: case ReduceOp::Any: return T(0);
    case ReduceOp::Prod: case ReduceOp::All: return T(1);
    case ReduceOp::Max:
      if constexpr (std::is_floating_point_v<T>) return -std::numeric_limits<T>::infinity();
      else return std::numeric_limits<T>::lowest();
    case ReduceOp::Min:
      if constexpr (std::is_floating_point_v<T>) return std::numeric_limits<T>::infinity();
      else return std::numeric_limits<T>::max();
  }
  return T(0);
}

template <typename T>
AK_HD T combine(ReduceOp op, T acc, T x) {
  switch (op) {
    case ReduceOp::Sum:
      if constexpr (std::is_same_v<T, bool>) return acc || x;
      else return py_arith::wrap_add(acc, x);
    case ReduceOp::Prod:
      if constexpr (std::is_same_v<T, bool>) return acc && x;
      else return py_arith::wrap_mul(acc, x);
    case ReduceOp::Max: return (x > acc || x != x) ? x : acc;
    case ReduceOp::Min: return (x < acc || x != x) ? x : acc;
    case ReduceOp::All: return static_cast<T>(acc != T(0) && x != T(0));
    case ReduceOp::Any: return static_cast<T>(acc != T(0) || x != T(0));
  }
  return acc;
}

}  // namespace
}  // namespace aakaar::reduce_semantics
