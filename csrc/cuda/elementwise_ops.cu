// Binary and unary elementwise ops on the device.
//
// One kernel per dtype, with the op chosen by a switch inside the loop, rather than one
// kernel per (op, dtype): the switch is on a value every thread of the grid shares, so
// a warp never diverges on it and the branch costs a few instructions per element of a
// memory-bound loop -- while compiling 18 binary x 5 dtypes (and 28 unary) kernels for
// five GPU architectures would multiply the build time of the library.
#include <limits>
#include <type_traits>

#include "core/error.h"
#include "cuda/backend_cuda.h"
#include "cuda/device_math.cuh"
#include "cuda/map_kernel.cuh"

namespace aakaar::cuda {
namespace {

using namespace dmath;

template <typename T>
__device__ __forceinline__ T arith(BinaryOp op, T x, T y) {
  if constexpr (std::is_same_v<T, bool>) {
    switch (op) {
      case BinaryOp::Add: return x || y;
      case BinaryOp::Mul: return x && y;
      case BinaryOp::Maximum: return x || y;
      case BinaryOp::Minimum: return x && y;
      default: return false;  // refused by the op before any launch
    }
  } else {
    switch (op) {
      case BinaryOp::Add: return py_arith::wrap_add(x, y);  // integers wrap, with defined arithmetic
      case BinaryOp::Sub: return py_arith::wrap_sub(x, y);
      case BinaryOp::Mul: return py_arith::wrap_mul(x, y);
      case BinaryOp::Div:
        if constexpr (std::is_floating_point_v<T>) return x / y;
        else return y == 0 ? T(0) : static_cast<T>(x / y);  // integer division is never launched; keep it safe
      case BinaryOp::FloorDiv: return floor_div(x, y);
      case BinaryOp::Mod: return py_mod(x, y);
      case BinaryOp::Pow:
        if constexpr (std::is_floating_point_v<T>) return pow_(x, y);
        else return int_pow(x, y);
      case BinaryOp::Maximum:
        if (is_nan(x) || is_nan(y)) return x + y;  // NaN (either NaN plus anything)
        return x > y ? x : y;
      case BinaryOp::Minimum:
        if (is_nan(x) || is_nan(y)) return x + y;
        return x < y ? x : y;
      default: return T(0);
    }
  }
}

template <typename T>
__device__ __forceinline__ bool compare(BinaryOp op, T x, T y) {
  switch (op) {
    case BinaryOp::Eq: return x == y;
    case BinaryOp::Ne: return x != y;
    case BinaryOp::Lt: return x < y;
    case BinaryOp::Le: return x <= y;
    case BinaryOp::Gt: return x > y;
    case BinaryOp::Ge: return x >= y;
    case BinaryOp::LogicalAnd: return x != T(0) && y != T(0);
    case BinaryOp::LogicalOr: return x != T(0) || y != T(0);
    case BinaryOp::LogicalXor: return (x != T(0)) != (y != T(0));
    default: return false;
  }
}

bool returns_bool(BinaryOp op) { return op >= BinaryOp::Eq; }

template <typename T>
struct BinaryF {
  void* out;  // T*, or bool* for comparisons and logical ops
  const T* a;
  const T* b;
  BinaryOp op;
  bool to_bool;
  __device__ __forceinline__ void put(int64_t i, T x, T y) const {
    if (to_bool) static_cast<bool*>(out)[i] = compare(op, x, y);
    else static_cast<T*>(out)[i] = arith(op, x, y);
  }
  __device__ __forceinline__ void operator()(const int64_t (&o)[3]) const { put(o[0], a[o[1]], b[o[2]]); }
  // The split form for contiguous operands (map_unrolled_kernel).
  struct Loaded {
    T x, y;
  };
  __device__ __forceinline__ Loaded load(int64_t i) const { return {a[i], b[i]}; }
  __device__ __forceinline__ void store(int64_t i, const Loaded& v) const { put(i, v.x, v.y); }
};

// ---- unary ---------------------------------------------------------------------------

template <typename T>
__device__ __forceinline__ T unary_float(UnaryOp op, T x, T pa, T pb, bool has_a, bool has_b) {
  switch (op) {
    case UnaryOp::Neg: return -x;
    case UnaryOp::Abs: return fabs_(x);
    case UnaryOp::Sign: return T((x > 0) - (x < 0)) + x * 0;  // x * 0 keeps NaN
    case UnaryOp::Exp: return exp_(x);
    case UnaryOp::Log: return log_(x);
    case UnaryOp::Log1p: return log1p_(x);
    case UnaryOp::Expm1: return expm1_(x);
    case UnaryOp::Sqrt: return sqrt_(x);
    case UnaryOp::Rsqrt: return T(1) / sqrt_(x);
    case UnaryOp::Sin: return sin_(x);
    case UnaryOp::Cos: return cos_(x);
    case UnaryOp::Tanh: return tanh_(x);
    case UnaryOp::Sigmoid: return sigmoid(x);
    case UnaryOp::Relu: return x > 0 ? x : (x != x ? x : T(0));
    case UnaryOp::Gelu: return T(0.5) * x * (T(1) + erf_(x * T(0.70710678118654752440)));
    case UnaryOp::GeluTanh: {
      const T k = T(0.7978845608028654);  // sqrt(2/pi)
      return T(0.5) * x * (T(1) + tanh_(k * (x + T(0.044715) * x * x * x)));
    }
    case UnaryOp::Silu: return x * sigmoid(x);
    case UnaryOp::Softplus: return x * pa > pb ? x : log1p_(exp_(x * pa)) / pa;  // a = beta, b = threshold
    case UnaryOp::Floor: return floor_(x);
    case UnaryOp::Ceil: return ceil_(x);
    case UnaryOp::Round: return rint_(x);
    case UnaryOp::Reciprocal: return T(1) / x;
    case UnaryOp::Square: return x * x;
    case UnaryOp::LeakyRelu: return x > 0 ? x : x * pa;
    case UnaryOp::Elu: return x > 0 ? x : pa * expm1_(x);
    case UnaryOp::Erf: return erf_(x);
    case UnaryOp::Clamp:  // a NaN bound gives NaN, as in PyTorch
      if (has_a && (x < pa || pa != pa)) x = pa;
      if (has_b && (x > pb || pb != pb)) x = pb;
      return x;
    default: return x;  // LogicalNot is handled by the caller
  }
}

// The integer ops the CPU backend supports (unary_integral in elementwise_loops.h).
template <typename T>
__device__ __forceinline__ T unary_int(UnaryOp op, T x, T pa, T pb, bool has_a, bool has_b) {
  switch (op) {
    case UnaryOp::Neg: return py_arith::wrap_sub(T(0), x);
    case UnaryOp::Abs:
      if constexpr (std::is_signed_v<T>) return x < 0 ? py_arith::wrap_sub(T(0), x) : x;
      else return x;
    case UnaryOp::Sign:
      if constexpr (std::is_signed_v<T>) return static_cast<T>((x > 0) - (x < 0));
      else return static_cast<T>(x > 0);
    case UnaryOp::Relu: return x > 0 ? x : T(0);
    case UnaryOp::Square: return py_arith::wrap_mul(x, x);
    case UnaryOp::Clamp:
      if (has_a && x < pa) x = pa;
      if (has_b && x > pb) x = pb;
      return x;
    default: return x;  // Floor, Ceil, Round: the identity on integers
  }
}

template <typename T>
struct UnaryF {
  void* out;  // T*, or bool* for LogicalNot
  const T* in;
  UnaryOp op;
  T pa, pb;
  bool has_a, has_b;
  __device__ __forceinline__ void put(int64_t i, T x) const {
    if (op == UnaryOp::LogicalNot) {
      static_cast<bool*>(out)[i] = x == T(0);
    } else if constexpr (std::is_same_v<T, bool>) {
      static_cast<T*>(out)[i] = x;  // abs, relu, floor, ceil, round, sign of a bool
    } else if constexpr (std::is_floating_point_v<T>) {
      static_cast<T*>(out)[i] = unary_float(op, x, pa, pb, has_a, has_b);
    } else {
      static_cast<T*>(out)[i] = unary_int(op, x, pa, pb, has_a, has_b);
    }
  }
  __device__ __forceinline__ void operator()(const int64_t (&o)[2]) const { put(o[0], in[o[1]]); }
  using Loaded = T;  // the split form for contiguous operands (map_unrolled_kernel)
  __device__ __forceinline__ T load(int64_t i) const { return in[i]; }
  __device__ __forceinline__ void store(int64_t i, T x) const { put(i, x); }
};

// The same dtype rules as the CPU backend, checked before any launch.
bool unary_supported(UnaryOp op, DType dt) {
  if (is_floating(dt) || op == UnaryOp::LogicalNot) return true;
  switch (op) {
    case UnaryOp::Abs: case UnaryOp::Relu: case UnaryOp::Floor: case UnaryOp::Ceil: case UnaryOp::Round:
    case UnaryOp::Sign:
      return true;
    case UnaryOp::Neg: case UnaryOp::Square: case UnaryOp::Clamp: return dt != DType::Bool;
    default: return false;
  }
}

}  // namespace

void binary(BinaryOp op, const Tensor& out, const Tensor& a, const Tensor& b) {
  const bool to_bool = returns_bool(op);
  if (a.dtype == DType::Bool && !to_bool)
    AK_CHECK(op == BinaryOp::Add || op == BinaryOp::Mul || op == BinaryOp::Maximum || op == BinaryOp::Minimum,
             TypeError, "binary op not supported for dtype bool");
  AK_DISPATCH_ALL(a.dtype, "binary op", [&](auto tag) {
    using T = decltype(tag);
    launch_map<3>(out.shape, {&out, &a, &b}, BinaryF<T>{out.data_ptr(), a.data<T>(), b.data<T>(), op, to_bool});
  });
}

void unary(UnaryOp op, const Tensor& out, const Tensor& in, UnaryParams p) {
  AK_CHECK(unary_supported(op, in.dtype), TypeError, "this unary op does not support dtype ", dtype_name(in.dtype));
  AK_DISPATCH_ALL(in.dtype, "unary op", [&](auto tag) {
    using T = decltype(tag);
    launch_map<2>(out.shape, {&out, &in},
                  UnaryF<T>{out.data_ptr(), in.data<T>(), op, py_arith::saturate_bound<T>(p.a), py_arith::saturate_bound<T>(p.b), p.has_a, p.has_b});
  });
}

}  // namespace aakaar::cuda
