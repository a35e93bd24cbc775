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
// After device_math.cuh (which includes cuda_emu.h first): AK_HD functions become device functions.
#include "core/elementwise_math.h"
#include "core/special_math.h"
#include "cuda/map_kernel.cuh"

namespace aakaar::cuda {
namespace {

using namespace dmath;

// ---- maths API (binary): the ops after LogicalXor (formulas in core/elementwise_math.h). ----
template <typename T>
__device__ __forceinline__ T arith_math(BinaryOp op, T x, T y) {
  if constexpr (std::is_floating_point_v<T>) {
    switch (op) {
      case BinaryOp::Atan2: return emath::atan2_(x, y);
      case BinaryOp::Copysign: return emath::copysign_(x, y);
      case BinaryOp::Hypot: return emath::hypot_(x, y);
      case BinaryOp::LogAddExp: return emath::logaddexp(x, y);
      default:
        if (emath::is_special_binary(op)) return emath::special_binary(op, x, y);
        break;
    }
  } else {
    switch (op) {
      case BinaryOp::BitwiseAnd: return static_cast<T>(x & y);
      case BinaryOp::BitwiseOr: return static_cast<T>(x | y);
      case BinaryOp::BitwiseXor: return static_cast<T>(x ^ y);
      case BinaryOp::LeftShift: return emath::left_shift(x, y);
      case BinaryOp::RightShift: return emath::right_shift(x, y);
      default: break;
    }
  }
  switch (op) {
    case BinaryOp::Fmod: return emath::fmod_any(x, y);
    case BinaryOp::DivTrunc: return emath::div_trunc(x, y);
    case BinaryOp::Fmax: return emath::fmax_any(x, y);
    case BinaryOp::Fmin: return emath::fmin_any(x, y);
    default: return T(0);  // refused by the op before any launch
  }
}

template <typename T>
__device__ __forceinline__ T arith(BinaryOp op, T x, T y) {
  if constexpr (std::is_same_v<T, bool>) {
    switch (op) {
      case BinaryOp::Add: return x || y;
      case BinaryOp::Mul: return x && y;
      case BinaryOp::Maximum: return x || y;
      case BinaryOp::Minimum: return x && y;
      case BinaryOp::BitwiseAnd: return x && y;
      case BinaryOp::BitwiseOr: return x || y;
      case BinaryOp::BitwiseXor: return x != y;
      case BinaryOp::Fmax: return x || y;
      case BinaryOp::Fmin: return x && y;
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
      default: return arith_math(op, x, y);
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

bool returns_bool(BinaryOp op) { return op >= BinaryOp::Eq && op <= BinaryOp::LogicalXor; }

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

// ---- maths API (unary, floating): the ops after Erf (formulas in core/elementwise_math.h). ----
template <typename T>
__device__ __forceinline__ T unary_float_math(UnaryOp op, T x, T pa, T pb, T pc) {
  switch (op) {
    case UnaryOp::Tan: return emath::tan_(x);
    case UnaryOp::Asin: return emath::asin_(x);
    case UnaryOp::Acos: return emath::acos_(x);
    case UnaryOp::Atan: return emath::atan_(x);
    case UnaryOp::Sinh: return emath::sinh_(x);
    case UnaryOp::Cosh: return emath::cosh_(x);
    case UnaryOp::Asinh: return emath::asinh_(x);
    case UnaryOp::Acosh: return emath::acosh_(x);
    case UnaryOp::Atanh: return emath::atanh_(x);
    case UnaryOp::Log2: return emath::log2_(x);
    case UnaryOp::Log10: return emath::log10_(x);
    case UnaryOp::Exp2: return emath::exp2_(x);
    case UnaryOp::Trunc: return emath::trunc_(x);
    case UnaryOp::Frac: return emath::frac(x);
    case UnaryOp::NanToNum: return emath::nan_to_num(x, pa, pb, pc);
    case UnaryOp::Hardsigmoid: return emath::hardsigmoid(x);
    case UnaryOp::Hardswish: return emath::hardswish(x);
    case UnaryOp::Hardtanh: return emath::clamp_nan(x, pa, pb);
    case UnaryOp::Mish: return emath::mish(x);
    case UnaryOp::Selu: return emath::selu(x);
    case UnaryOp::Celu: return emath::celu(x, pa);
    case UnaryOp::LogSigmoid: return emath::log_sigmoid(x);
    case UnaryOp::Softshrink: return emath::softshrink(x, pa);
    case UnaryOp::Hardshrink: return emath::hardshrink(x, pa);
    case UnaryOp::Threshold: return emath::threshold(x, pa, pb);
    case UnaryOp::Erfc: return emath::erfc_(x);
    case UnaryOp::Erfinv: return emath::erfinv(x);
    case UnaryOp::Lgamma: return emath::lgamma_(x);
    case UnaryOp::Digamma: return emath::digamma(x);
    case UnaryOp::Polygamma: return emath::polygamma(x, static_cast<int>(pa));
    case UnaryOp::I0: return emath::bessel_i(x, 0);
    case UnaryOp::I1: return emath::bessel_i(x, 1);
    default: return emath::is_special_unary(op) ? emath::special_unary(op, x) : x;
  }
}

// The unary ops with a bool result.
template <typename T>
__device__ __forceinline__ bool unary_predicate(UnaryOp op, T x) {
  constexpr T inf = std::numeric_limits<T>::has_infinity ? std::numeric_limits<T>::infinity() : T(0);
  switch (op) {
    case UnaryOp::IsNan: return x != x;
    case UnaryOp::IsInf: return std::numeric_limits<T>::has_infinity && (x == inf || x == -inf);
    case UnaryOp::IsPosInf: return std::numeric_limits<T>::has_infinity && x == inf;
    case UnaryOp::IsNegInf: return std::numeric_limits<T>::has_infinity && x == -inf;
    case UnaryOp::IsFinite: return x - x == T(0);
    default: return x == T(0);  // LogicalNot
  }
}

bool returns_bool(UnaryOp op) {
  return op == UnaryOp::LogicalNot || op == UnaryOp::IsNan || op == UnaryOp::IsInf || op == UnaryOp::IsPosInf ||
         op == UnaryOp::IsNegInf || op == UnaryOp::IsFinite;
}

template <typename T>
__device__ __forceinline__ T unary_float(UnaryOp op, T x, T pa, T pb, T pc, bool has_a, bool has_b) {
  switch (op) {
    case UnaryOp::Neg: return -x;
    case UnaryOp::Abs: return fabs_(x);
    case UnaryOp::Sign: return T((x > 0) - (x < 0));  // torch: sign(NaN) is 0, sign(inf) 1
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
    default: return unary_float_math(op, x, pa, pb, pc);  // LogicalNot is handled by the caller
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
    case UnaryOp::BitwiseNot: return static_cast<T>(~x);
    case UnaryOp::Clamp:
      if (has_a && x < pa) x = pa;
      if (has_b && x > pb) x = pb;
      return x;
    default: return x;  // Floor, Ceil, Round, Trunc: the identity on integers
  }
}

template <typename T>
struct UnaryF {
  void* out;  // T*, or bool* for LogicalNot and the predicates (isnan, ...)
  const T* in;
  UnaryOp op;
  T pa, pb, pc;
  bool has_a, has_b, to_bool;
  __device__ __forceinline__ void put(int64_t i, T x) const {
    if (to_bool) {
      static_cast<bool*>(out)[i] = unary_predicate(op, x);
    } else if constexpr (std::is_same_v<T, bool>) {
      // abs, relu, floor, ceil, round, trunc, sign of a bool: itself; bitwise_not: logical not
      static_cast<T*>(out)[i] = op == UnaryOp::BitwiseNot ? !x : x;
    } else if constexpr (std::is_floating_point_v<T>) {
      static_cast<T*>(out)[i] = unary_float(op, x, pa, pb, pc, has_a, has_b);
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
  if (op == UnaryOp::BitwiseNot) return !is_floating(dt);
  if (is_floating(dt) || op == UnaryOp::LogicalNot) return true;
  switch (op) {
    case UnaryOp::Abs: case UnaryOp::Relu: case UnaryOp::Floor: case UnaryOp::Ceil: case UnaryOp::Round:
    case UnaryOp::Sign: case UnaryOp::Trunc:
      return true;
    case UnaryOp::Neg: case UnaryOp::Square: case UnaryOp::Clamp: return dt != DType::Bool;
    default: return false;
  }
}

}  // namespace

void binary(BinaryOp op, const Tensor& out, const Tensor& a, const Tensor& b) {
  const bool to_bool = returns_bool(op);
  if (a.dtype == DType::Bool && !to_bool)
    AK_CHECK(op == BinaryOp::Add || op == BinaryOp::Mul || op == BinaryOp::Maximum || op == BinaryOp::Minimum ||
             op == BinaryOp::BitwiseAnd || op == BinaryOp::BitwiseOr || op == BinaryOp::BitwiseXor ||
             op == BinaryOp::Fmax || op == BinaryOp::Fmin,
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
                  UnaryF<T>{out.data_ptr(), in.data<T>(), op, py_arith::saturate_bound<T>(p.a),
                            py_arith::saturate_bound<T>(p.b), py_arith::saturate_bound<T>(p.c), p.has_a, p.has_b,
                            returns_bool(op)});
  });
}

}  // namespace aakaar::cuda
