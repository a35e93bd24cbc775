// Inner loops of the CPU elementwise kernels.
//
// This header is compiled three times: by elementwise.cpp for any x86-64
// (SSE2), by elementwise_avx2.cpp with -mavx2 -mfma and by
// elementwise_avx512.cpp with AVX-512; the library picks one at run time
// (cpu/isa.h). AK_KERNEL_NS names the namespace of each copy.
#include <cmath>
#ifdef __AVX2__
#include <immintrin.h>
#endif
#include <cstdint>
#include <cstring>
#include <limits>
#include <type_traits>

#include "core/backend.h"
#include "core/elementwise_math.h"
#include "core/special_math.h"
#include "core/py_arith.h"
#include "cpu/isa.h"
#include "cpu/iterator.h"
#include "cpu/vec_math.h"

#ifndef AK_KERNEL_NS
#error "define AK_KERNEL_NS before including elementwise_loops.h"
#endif

namespace aakaar::cpu::AK_KERNEL_NS {

// [[book:binary_run]]
// One run of `n` elements: out = f(a, b). The first branches are the cases
// the compiler vectorises (all contiguous, or one operand a broadcast scalar).
template <typename Out, typename In, typename F>
inline void binary_run(char** p, const int64_t* s, int64_t n, F f) {
  constexpr int64_t so = sizeof(Out), si = sizeof(In);
  if (s[0] == so && s[1] == si && s[2] == si) {
    Out* o = reinterpret_cast<Out*>(p[0]);
    const In* a = reinterpret_cast<const In*>(p[1]);
    const In* b = reinterpret_cast<const In*>(p[2]);
    for (int64_t i = 0; i < n; ++i) o[i] = f(a[i], b[i]);
  } else if (s[0] == so && s[1] == si && s[2] == 0) {
    Out* o = reinterpret_cast<Out*>(p[0]);
    const In* a = reinterpret_cast<const In*>(p[1]);
    const In b = *reinterpret_cast<const In*>(p[2]);
    for (int64_t i = 0; i < n; ++i) o[i] = f(a[i], b);
  } else if (s[0] == so && s[1] == 0 && s[2] == si) {
    Out* o = reinterpret_cast<Out*>(p[0]);
    const In a = *reinterpret_cast<const In*>(p[1]);
    const In* b = reinterpret_cast<const In*>(p[2]);
    for (int64_t i = 0; i < n; ++i) o[i] = f(a, b[i]);
  } else {
    for (int64_t i = 0; i < n; ++i)
      *reinterpret_cast<Out*>(p[0] + i * s[0]) =
          f(*reinterpret_cast<const In*>(p[1] + i * s[1]), *reinterpret_cast<const In*>(p[2] + i * s[2]));
  }
}
// [[/book:binary_run]]

template <typename Out, typename In, typename F>
inline void unary_run(char** p, const int64_t* s, int64_t n, F f) {
  if (s[0] == sizeof(Out) && s[1] == sizeof(In)) {
    Out* o = reinterpret_cast<Out*>(p[0]);
    const In* a = reinterpret_cast<const In*>(p[1]);
    for (int64_t i = 0; i < n; ++i) o[i] = f(a[i]);
  } else {
    for (int64_t i = 0; i < n; ++i)
      *reinterpret_cast<Out*>(p[0] + i * s[0]) = f(*reinterpret_cast<const In*>(p[1] + i * s[1]));
  }
}

template <typename Out, typename In, typename F>
void binary_apply(const Tensor& out, const Tensor& a, const Tensor& b, F f) {
  StridedLoop<3> loop(out.shape, {&out, &a, &b});
  loop.run([&](char** p, const int64_t* s, int64_t n) { binary_run<Out, In>(p, s, n, f); });
}

template <typename Out, typename In, typename F>
void unary_apply(const Tensor& out, const Tensor& in, F f) {
  StridedLoop<2> loop(out.shape, {&out, &in});
  loop.run([&](char** p, const int64_t* s, int64_t n) { unary_run<Out, In>(p, s, n, f); });
}

// Python's floor division, modulo and integer powers: shared with the CUDA kernels.
using py_arith::convert_value;
using py_arith::floor_div;
using py_arith::int_pow;
using py_arith::py_mod;
using py_arith::saturate_bound;
using py_arith::wrap_add;
using py_arith::wrap_mul;
using py_arith::wrap_sub;

// ---- maths API (binary): the ops after LogicalXor in BinaryOp. The formulas are in
// core/elementwise_math.h, shared with the CUDA kernels. ----
template <typename T>
void binary_math(BinaryOp op, const Tensor& out, const Tensor& a, const Tensor& b) {
  if constexpr (std::is_floating_point_v<T>) {
    switch (op) {
      case BinaryOp::Atan2: return binary_apply<T, T>(out, a, b, [](T x, T y) { return emath::atan2_(x, y); });
      case BinaryOp::Copysign: return binary_apply<T, T>(out, a, b, [](T x, T y) { return emath::copysign_(x, y); });
      case BinaryOp::Hypot: return binary_apply<T, T>(out, a, b, [](T x, T y) { return emath::hypot_(x, y); });
      case BinaryOp::LogAddExp: return binary_apply<T, T>(out, a, b, emath::logaddexp<T>);
      default:
        if (emath::is_special_binary(op))
          return binary_apply<T, T>(out, a, b, [op](T x, T n) { return emath::special_binary(op, x, n); });
        break;
    }
  }
  if (op == BinaryOp::Fmax) return binary_apply<T, T>(out, a, b, emath::fmax_any<T>);
  if (op == BinaryOp::Fmin) return binary_apply<T, T>(out, a, b, emath::fmin_any<T>);
  if constexpr (!std::is_same_v<T, bool>) {
    if (op == BinaryOp::Fmod) return binary_apply<T, T>(out, a, b, emath::fmod_any<T>);
    if (op == BinaryOp::DivTrunc) return binary_apply<T, T>(out, a, b, emath::div_trunc<T>);
  }
  if constexpr (std::is_integral_v<T>) {
    switch (op) {
      case BinaryOp::BitwiseAnd: return binary_apply<T, T>(out, a, b, [](T x, T y) { return static_cast<T>(x & y); });
      case BinaryOp::BitwiseOr: return binary_apply<T, T>(out, a, b, [](T x, T y) { return static_cast<T>(x | y); });
      case BinaryOp::BitwiseXor: return binary_apply<T, T>(out, a, b, [](T x, T y) { return static_cast<T>(x ^ y); });
      default: break;
    }
    if constexpr (!std::is_same_v<T, bool>) {
      if (op == BinaryOp::LeftShift) return binary_apply<T, T>(out, a, b, emath::left_shift<T>);
      if (op == BinaryOp::RightShift) return binary_apply<T, T>(out, a, b, emath::right_shift<T>);
    }
  }
  throw TypeError(str("binary op not supported for dtype ", dtype_name(a.dtype)));
}

template <typename T>
void binary_typed(BinaryOp op, const Tensor& out, const Tensor& a, const Tensor& b) {
  switch (op) {
    case BinaryOp::Add:
      if constexpr (std::is_same_v<T, bool>) return binary_apply<T, T>(out, a, b, [](T x, T y) { return x || y; });
      // Integers wrap around as in PyTorch, with defined (unsigned) arithmetic.
      else return binary_apply<T, T>(out, a, b, [](T x, T y) { return wrap_add(x, y); });
    case BinaryOp::Sub: return binary_apply<T, T>(out, a, b, [](T x, T y) { return wrap_sub(x, y); });
    case BinaryOp::Mul:
      if constexpr (std::is_same_v<T, bool>) return binary_apply<T, T>(out, a, b, [](T x, T y) { return x && y; });
      else return binary_apply<T, T>(out, a, b, [](T x, T y) { return wrap_mul(x, y); });
    case BinaryOp::Div: return binary_apply<T, T>(out, a, b, [](T x, T y) { return static_cast<T>(x / y); });
    case BinaryOp::FloorDiv:
      if constexpr (!std::is_same_v<T, bool>) return binary_apply<T, T>(out, a, b, floor_div<T>);
      break;
    case BinaryOp::Mod:
      if constexpr (!std::is_same_v<T, bool>) return binary_apply<T, T>(out, a, b, py_mod<T>);
      break;
    case BinaryOp::Pow:
      if constexpr (std::is_floating_point_v<T>)
        return binary_apply<T, T>(out, a, b, [](T x, T y) { return static_cast<T>(std::pow(x, y)); });
      else if constexpr (!std::is_same_v<T, bool>)
        return binary_apply<T, T>(out, a, b, int_pow<T>);
      break;
    case BinaryOp::Maximum:
      return binary_apply<T, T>(out, a, b, [](T x, T y) {
        if constexpr (std::is_floating_point_v<T>) if (x != x || y != y) return std::numeric_limits<T>::quiet_NaN();
        return x > y ? x : y;
      });
    case BinaryOp::Minimum:
      return binary_apply<T, T>(out, a, b, [](T x, T y) {
        if constexpr (std::is_floating_point_v<T>) if (x != x || y != y) return std::numeric_limits<T>::quiet_NaN();
        return x < y ? x : y;
      });
    case BinaryOp::Eq: return binary_apply<bool, T>(out, a, b, [](T x, T y) { return x == y; });
    case BinaryOp::Ne: return binary_apply<bool, T>(out, a, b, [](T x, T y) { return x != y; });
    case BinaryOp::Lt: return binary_apply<bool, T>(out, a, b, [](T x, T y) { return x < y; });
    case BinaryOp::Le: return binary_apply<bool, T>(out, a, b, [](T x, T y) { return x <= y; });
    case BinaryOp::Gt: return binary_apply<bool, T>(out, a, b, [](T x, T y) { return x > y; });
    case BinaryOp::Ge: return binary_apply<bool, T>(out, a, b, [](T x, T y) { return x >= y; });
    case BinaryOp::LogicalAnd: return binary_apply<bool, T>(out, a, b, [](T x, T y) { return x != T(0) && y != T(0); });
    case BinaryOp::LogicalOr: return binary_apply<bool, T>(out, a, b, [](T x, T y) { return x != T(0) || y != T(0); });
    case BinaryOp::LogicalXor: return binary_apply<bool, T>(out, a, b, [](T x, T y) { return (x != T(0)) != (y != T(0)); });
    default: return binary_math<T>(op, out, a, b);
  }
  throw TypeError(str("binary op not supported for dtype ", dtype_name(a.dtype)));
}

// Which dtypes this build compiles the loops for. The baseline build takes
// every dtype; the AVX2 and AVX-512 builds take the five that carry the
// library's real work (float32 above all) and hand int8/int16/int32 and the
// 16-bit floats' conversions to the baseline build: one set of template
// instantiations for them instead of three (SSE2 vectorises their loops too).
#ifdef AK_KERNEL_EVERY_DTYPE
#define AK_KERNEL_DISPATCH AK_DISPATCH_ALL
constexpr bool handled_here(DType) { return true; }
#else
#define AK_KERNEL_DISPATCH AK_DISPATCH_WIDE
inline bool handled_here(DType t) {
  return t == DType::Bool || t == DType::UInt8 || t == DType::Int64 || t == DType::Float32 || t == DType::Float64;
}
#endif

void binary(BinaryOp op, const Tensor& out, const Tensor& a, const Tensor& b) {
  if (!handled_here(a.dtype)) return baseline::binary(op, out, a, b);
  AK_KERNEL_DISPATCH(a.dtype, "binary op", [&](auto tag) {
    using T = decltype(tag);
    binary_typed<T>(op, out, a, b);
  });
}

template <typename T>
inline T sigmoid(T x) { return T(1) / (T(1) + std::exp(-x)); }

// ---- maths API (unary, floating dtypes): the ops after Erf in UnaryOp. The formulas
// are in core/elementwise_math.h, shared with the CUDA kernels. ----
template <typename T>
void unary_float_math(UnaryOp op, const Tensor& out, const Tensor& in, UnaryParams p) {
  const T pa = static_cast<T>(p.a), pb = static_cast<T>(p.b), pc = static_cast<T>(p.c);
  switch (op) {
    case UnaryOp::Tan: return unary_apply<T, T>(out, in, [](T x) { return emath::tan_(x); });
    case UnaryOp::Asin: return unary_apply<T, T>(out, in, [](T x) { return emath::asin_(x); });
    case UnaryOp::Acos: return unary_apply<T, T>(out, in, [](T x) { return emath::acos_(x); });
    case UnaryOp::Atan: return unary_apply<T, T>(out, in, [](T x) { return emath::atan_(x); });
    case UnaryOp::Sinh: return unary_apply<T, T>(out, in, [](T x) { return emath::sinh_(x); });
    case UnaryOp::Cosh: return unary_apply<T, T>(out, in, [](T x) { return emath::cosh_(x); });
    case UnaryOp::Asinh: return unary_apply<T, T>(out, in, [](T x) { return emath::asinh_(x); });
    case UnaryOp::Acosh: return unary_apply<T, T>(out, in, [](T x) { return emath::acosh_(x); });
    case UnaryOp::Atanh: return unary_apply<T, T>(out, in, [](T x) { return emath::atanh_(x); });
    case UnaryOp::Log2: return unary_apply<T, T>(out, in, [](T x) { return emath::log2_(x); });
    case UnaryOp::Log10: return unary_apply<T, T>(out, in, [](T x) { return emath::log10_(x); });
    case UnaryOp::Exp2: return unary_apply<T, T>(out, in, [](T x) { return emath::exp2_(x); });
    case UnaryOp::Trunc: return unary_apply<T, T>(out, in, [](T x) { return emath::trunc_(x); });
    case UnaryOp::Frac: return unary_apply<T, T>(out, in, emath::frac<T>);
    case UnaryOp::IsNan: return unary_apply<bool, T>(out, in, [](T x) { return x != x; });
    case UnaryOp::IsInf: return unary_apply<bool, T>(out, in, [](T x) { return emath::fabs_(x) == std::numeric_limits<T>::infinity(); });
    case UnaryOp::IsPosInf: return unary_apply<bool, T>(out, in, [](T x) { return x == std::numeric_limits<T>::infinity(); });
    case UnaryOp::IsNegInf: return unary_apply<bool, T>(out, in, [](T x) { return x == -std::numeric_limits<T>::infinity(); });
    case UnaryOp::IsFinite: return unary_apply<bool, T>(out, in, [](T x) { return x - x == T(0); });  // NaN for inf and NaN
    case UnaryOp::NanToNum: return unary_apply<T, T>(out, in, [=](T x) { return emath::nan_to_num(x, pa, pb, pc); });
    case UnaryOp::Hardsigmoid: return unary_apply<T, T>(out, in, emath::hardsigmoid<T>);
    case UnaryOp::Hardswish: return unary_apply<T, T>(out, in, emath::hardswish<T>);
    case UnaryOp::Hardtanh: return unary_apply<T, T>(out, in, [=](T x) { return emath::clamp_nan(x, pa, pb); });
    case UnaryOp::Mish: return unary_apply<T, T>(out, in, emath::mish<T>);
    case UnaryOp::Selu: return unary_apply<T, T>(out, in, emath::selu<T>);
    case UnaryOp::Celu: return unary_apply<T, T>(out, in, [=](T x) { return emath::celu(x, pa); });
    case UnaryOp::LogSigmoid: return unary_apply<T, T>(out, in, emath::log_sigmoid<T>);
    case UnaryOp::Softshrink: return unary_apply<T, T>(out, in, [=](T x) { return emath::softshrink(x, pa); });
    case UnaryOp::Hardshrink: return unary_apply<T, T>(out, in, [=](T x) { return emath::hardshrink(x, pa); });
    case UnaryOp::Threshold: return unary_apply<T, T>(out, in, [=](T x) { return emath::threshold(x, pa, pb); });
    case UnaryOp::Erfc: return unary_apply<T, T>(out, in, [](T x) { return emath::erfc_(x); });
    case UnaryOp::Erfinv: return unary_apply<T, T>(out, in, emath::erfinv<T>);
    case UnaryOp::Lgamma: return unary_apply<T, T>(out, in, [](T x) { return emath::lgamma_(x); });
    case UnaryOp::Digamma: return unary_apply<T, T>(out, in, emath::digamma<T>);
    case UnaryOp::Polygamma: {
      const int n = static_cast<int>(p.a);
      return unary_apply<T, T>(out, in, [n](T x) { return emath::polygamma(x, n); });
    }
    case UnaryOp::I0: return unary_apply<T, T>(out, in, [](T x) { return emath::bessel_i(x, 0); });
    case UnaryOp::I1: return unary_apply<T, T>(out, in, [](T x) { return emath::bessel_i(x, 1); });
    default:
      if (emath::is_special_unary(op)) return unary_apply<T, T>(out, in, [op](T x) { return emath::special_unary(op, x); });
      break;
  }
  throw TypeError(str("this unary op does not support dtype ", dtype_name(in.dtype)));
}

template <typename T>
void unary_float(UnaryOp op, const Tensor& out, const Tensor& in, UnaryParams p) {
  const T pa = static_cast<T>(p.a), pb = static_cast<T>(p.b);
  switch (op) {
    case UnaryOp::Neg: return unary_apply<T, T>(out, in, [](T x) { return -x; });
    case UnaryOp::Abs: return unary_apply<T, T>(out, in, [](T x) { return std::abs(x); });
    case UnaryOp::Sign: return unary_apply<T, T>(out, in, [](T x) { return T((x > 0) - (x < 0)); });  // torch: sign(NaN) is 0
    case UnaryOp::Exp:
      if constexpr (std::is_same_v<T, float>) return unary_apply<T, T>(out, in, [](T x) AK_VEC_LAMBDA { return exp_f32(x); });
      else return unary_apply<T, T>(out, in, [](T x) { return std::exp(x); });
    case UnaryOp::Log: return unary_apply<T, T>(out, in, [](T x) { return std::log(x); });
    case UnaryOp::Log1p: return unary_apply<T, T>(out, in, [](T x) { return std::log1p(x); });
    case UnaryOp::Expm1: return unary_apply<T, T>(out, in, [](T x) { return std::expm1(x); });
    case UnaryOp::Sqrt: return unary_apply<T, T>(out, in, [](T x) { return std::sqrt(x); });
    case UnaryOp::Rsqrt: return unary_apply<T, T>(out, in, [](T x) { return T(1) / std::sqrt(x); });
    case UnaryOp::Sin: return unary_apply<T, T>(out, in, [](T x) { return std::sin(x); });
    case UnaryOp::Cos: return unary_apply<T, T>(out, in, [](T x) { return std::cos(x); });
    case UnaryOp::Tanh:
      if constexpr (std::is_same_v<T, float>) return unary_apply<T, T>(out, in, [](T x) AK_VEC_LAMBDA { return tanh_f32(x); });
      else return unary_apply<T, T>(out, in, [](T x) { return std::tanh(x); });
    case UnaryOp::Sigmoid:
      if constexpr (std::is_same_v<T, float>) return unary_apply<T, T>(out, in, [](T x) AK_VEC_LAMBDA { return sigmoid_f32(x); });
      else return unary_apply<T, T>(out, in, [](T x) { return sigmoid(x); });
    case UnaryOp::Relu: return unary_apply<T, T>(out, in, [](T x) { return x > 0 ? x : (x != x ? x : T(0)); });
    case UnaryOp::Gelu:
      return unary_apply<T, T>(out, in, [](T x) { return T(0.5) * x * (T(1) + std::erf(x * T(M_SQRT1_2))); });
    case UnaryOp::GeluTanh:
      return unary_apply<T, T>(out, in, [](T x) {
        const T k = T(0.7978845608028654);  // sqrt(2/pi)
        return T(0.5) * x * (T(1) + std::tanh(k * (x + T(0.044715) * x * x * x)));
      });
    case UnaryOp::Silu:
      if constexpr (std::is_same_v<T, float>) return unary_apply<T, T>(out, in, [](T x) AK_VEC_LAMBDA { return x * sigmoid_f32(x); });
      else return unary_apply<T, T>(out, in, [](T x) { return x * sigmoid(x); });
    case UnaryOp::Softplus:  // a = beta, b = threshold: above it softplus(x) == x to working precision
      return unary_apply<T, T>(out, in, [pa, pb](T x) { return x * pa > pb ? x : std::log1p(std::exp(x * pa)) / pa; });
    case UnaryOp::Floor: return unary_apply<T, T>(out, in, [](T x) { return std::floor(x); });
    case UnaryOp::Erf: return unary_apply<T, T>(out, in, [](T x) { return std::erf(x); });
    case UnaryOp::Ceil: return unary_apply<T, T>(out, in, [](T x) { return std::ceil(x); });
    case UnaryOp::Round: return unary_apply<T, T>(out, in, [](T x) { return std::nearbyint(x); });
    case UnaryOp::Reciprocal: return unary_apply<T, T>(out, in, [](T x) { return T(1) / x; });
    case UnaryOp::Square: return unary_apply<T, T>(out, in, [](T x) { return x * x; });
    case UnaryOp::LeakyRelu: return unary_apply<T, T>(out, in, [pa](T x) { return x > 0 ? x : x * pa; });
    case UnaryOp::Elu: return unary_apply<T, T>(out, in, [pa](T x) { return x > 0 ? x : pa * std::expm1(x); });
    case UnaryOp::Clamp: {
      // A NaN bound gives NaN (PyTorch's rule): `pa != pa` is the NaN test.
      const bool lo = p.has_a, hi = p.has_b;
      return unary_apply<T, T>(out, in, [=](T x) {
        if (lo && (x < pa || pa != pa)) x = pa;
        if (hi && (x > pb || pb != pb)) x = pb;
        return x;
      });
    }
    case UnaryOp::LogicalNot: return unary_apply<bool, T>(out, in, [](T x) { return x == T(0); });
    default: return unary_float_math<T>(op, out, in, p);
  }
}

template <typename T>
void unary_integral(UnaryOp op, const Tensor& out, const Tensor& in, UnaryParams p) {
  const T pa = saturate_bound<T>(p.a), pb = saturate_bound<T>(p.b);
  switch (op) {
    case UnaryOp::LogicalNot: return unary_apply<bool, T>(out, in, [](T x) { return x == T(0); });
    case UnaryOp::Neg: return unary_apply<T, T>(out, in, [](T x) { return wrap_sub(T(0), x); });
    case UnaryOp::Abs:
      return unary_apply<T, T>(out, in, [](T x) {
        if constexpr (std::is_signed_v<T>) return x < 0 ? wrap_sub(T(0), x) : x;
        else return x;
      });
    case UnaryOp::Sign: return unary_apply<T, T>(out, in, [](T x) { return static_cast<T>((x > 0) - (x < 0)); });
    case UnaryOp::Relu: return unary_apply<T, T>(out, in, [](T x) { return x > 0 ? x : T(0); });
    case UnaryOp::Square: return unary_apply<T, T>(out, in, [](T x) { return wrap_mul(x, x); });
    case UnaryOp::Floor: case UnaryOp::Ceil: case UnaryOp::Round: case UnaryOp::Trunc:
      return unary_apply<T, T>(out, in, [](T x) { return x; });
    case UnaryOp::BitwiseNot: return unary_apply<T, T>(out, in, [](T x) { return static_cast<T>(~x); });
    case UnaryOp::Clamp: {
      const bool lo = p.has_a, hi = p.has_b;
      return unary_apply<T, T>(out, in, [=](T x) {
        if (lo && x < pa) x = pa;
        if (hi && x > pb) x = pb;
        return x;
      });
    }
    default: break;
  }
  throw TypeError(str("this unary op does not support dtype ", dtype_name(in.dtype)));
}

void unary(UnaryOp op, const Tensor& out, const Tensor& in, UnaryParams p) {
  if (!handled_here(in.dtype)) return baseline::unary(op, out, in, p);
  switch (in.dtype) {
    case DType::Float32: return unary_float<float>(op, out, in, p);
    case DType::Float64: return unary_float<double>(op, out, in, p);
    case DType::Int64: return unary_integral<int64_t>(op, out, in, p);
    case DType::UInt8: return unary_integral<uint8_t>(op, out, in, p);
    case DType::Bool:
      if (op == UnaryOp::LogicalNot || op == UnaryOp::BitwiseNot)
        return unary_apply<bool, bool>(out, in, [](bool x) { return !x; });
      if (op == UnaryOp::Abs || op == UnaryOp::Relu || op == UnaryOp::Floor || op == UnaryOp::Ceil ||
          op == UnaryOp::Round || op == UnaryOp::Sign || op == UnaryOp::Trunc)
        return unary_apply<bool, bool>(out, in, [](bool x) { return x; });
      break;
#ifdef AK_KERNEL_EVERY_DTYPE
    case DType::Int32: return unary_integral<int32_t>(op, out, in, p);
    case DType::Int16: return unary_integral<int16_t>(op, out, in, p);
    case DType::Int8: return unary_integral<int8_t>(op, out, in, p);
#endif
    default: break;
  }
  throw TypeError(str("this unary op does not support dtype ", dtype_name(in.dtype)));
}

// Converting copy: dst[i] = (Dst) src[i].
// Every pair of dtypes in the baseline build (the 16-bit floats included),
// the five wide ones in the others.
#ifdef AK_KERNEL_EVERY_DTYPE
#define AK_COPY_DISPATCH AK_DISPATCH_STORAGE
#else
#define AK_COPY_DISPATCH AK_DISPATCH_WIDE
#endif
void copy(const Tensor& dst, const Tensor& src) {
  if (!handled_here(dst.dtype) || !handled_here(src.dtype)) return baseline::copy(dst, src);
  AK_COPY_DISPATCH(dst.dtype, "copy", [&](auto dtag) {
    using D = decltype(dtag);
    AK_COPY_DISPATCH(src.dtype, "copy", [&](auto stag) {
      using S = decltype(stag);
      // convert_value: defined for every value (NaN or 1e300 into an integer included).
      unary_apply<D, S>(dst, src, [](S x) { return convert_value<D>(x); });
    });
  });
}

// Sum of a contiguous run with 32 independent accumulators: the compiler
// keeps them in four vector registers, so four vector adds are in flight at
// once (one accumulator would wait on the add latency every step), and
// splitting the sum also shortens each chain of rounding errors.
template <typename T, typename Acc>
Acc sum_contiguous(const T* x, int64_t n) {
  constexpr int K = 32;
  Acc acc[K] = {};
  int64_t i = 0;
  for (; i + K <= n; i += K)
    for (int k = 0; k < K; ++k) acc[k] += static_cast<Acc>(x[i + k]);
  Acc total = 0;
  for (; i < n; ++i) total += static_cast<Acc>(x[i]);
  for (int w = K / 2; w > 0; w /= 2)  // pairwise combine
    for (int k = 0; k < w; ++k) acc[k] += acc[k + w];
  return total + acc[0];
}

// Max (or min) of a contiguous run; NaN anywhere gives NaN (PyTorch's rule).
// GCC does not vectorise a float max reduction with NaN semantics on its own,
// so the AVX2 build spells it out: four vector accumulators, and an "any NaN"
// mask kept apart from the comparison.
template <typename T, bool IsMax>
T extreme_contiguous(const T* x, int64_t n, T init) {
  T best = init;
  bool any_nan = init != init;
  int64_t i = 0;
#ifdef __AVX2__
  if constexpr (std::is_same_v<T, float>) {
    __m256 acc[4], nan = _mm256_setzero_ps();
    for (auto& a : acc) a = _mm256_set1_ps(init);
    for (; i + 32 <= n; i += 32)
      for (int k = 0; k < 4; ++k) {
        const __m256 v = _mm256_loadu_ps(x + i + 8 * k);
        nan = _mm256_or_ps(nan, _mm256_cmp_ps(v, v, _CMP_UNORD_Q));
        acc[k] = IsMax ? _mm256_max_ps(acc[k], v) : _mm256_min_ps(acc[k], v);
      }
    any_nan |= _mm256_movemask_ps(nan) != 0;
    alignas(32) float lanes[8];
    for (auto& a : acc) {
      _mm256_store_ps(lanes, a);
      for (float v : lanes) best = IsMax ? (v > best ? v : best) : (v < best ? v : best);
    }
  } else if constexpr (std::is_same_v<T, double>) {
    __m256d acc[4], nan = _mm256_setzero_pd();
    for (auto& a : acc) a = _mm256_set1_pd(init);
    for (; i + 16 <= n; i += 16)
      for (int k = 0; k < 4; ++k) {
        const __m256d v = _mm256_loadu_pd(x + i + 4 * k);
        nan = _mm256_or_pd(nan, _mm256_cmp_pd(v, v, _CMP_UNORD_Q));
        acc[k] = IsMax ? _mm256_max_pd(acc[k], v) : _mm256_min_pd(acc[k], v);
      }
    any_nan |= _mm256_movemask_pd(nan) != 0;
    alignas(32) double lanes[4];
    for (auto& a : acc) {
      _mm256_store_pd(lanes, a);
      for (double v : lanes) best = IsMax ? (v > best ? v : best) : (v < best ? v : best);
    }
  }
#endif
  for (; i < n; ++i) {
    any_nan |= x[i] != x[i];
    best = IsMax ? (x[i] > best ? x[i] : best) : (x[i] < best ? x[i] : best);
  }
  return any_nan ? std::numeric_limits<T>::quiet_NaN() : best;
}
float max_contiguous_f32(const float* x, int64_t n, float init) { return extreme_contiguous<float, true>(x, n, init); }
float min_contiguous_f32(const float* x, int64_t n, float init) { return extreme_contiguous<float, false>(x, n, init); }
double max_contiguous_f64(const double* x, int64_t n, double init) { return extreme_contiguous<double, true>(x, n, init); }
double min_contiguous_f64(const double* x, int64_t n, double init) { return extreme_contiguous<double, false>(x, n, init); }

float sum_contiguous_f32(const float* x, int64_t n) {
  // Blocks of 256 summed in float, blocks combined in double: float speed,
  // with the error of a short sum per accumulator (256 / its accumulators) rather than an n-term one.
  // (With 4096-element blocks, 10^6 copies of 0.1f summed 4e-6 off: rounding
  // of a constant addend errs the same way every time, so it adds up linearly.)
  double total = 0;
  for (int64_t i = 0; i < n; i += 256) total += sum_contiguous<float, float>(x + i, std::min<int64_t>(256, n - i));
  return static_cast<float>(total);
}
double sum_contiguous_f64(const double* x, int64_t n) { return sum_contiguous<double, double>(x, n); }

// [[book:add_scaled]]
// out = a + alpha * b for floating tensors (torch.add's alpha): one pass where
// a multiply and an add would be two. An optimizer's p.add_(v, alpha=-lr)
// reads v and p once and writes p once, with no temporary for alpha * v.
void add_scaled(const Tensor& out, const Tensor& a, const Tensor& b, double alpha) {
  if (out.dtype == DType::Float32) {
    const float al = static_cast<float>(alpha);
    binary_apply<float, float>(out, a, b, [al](float x, float y) { return x + al * y; });
  } else {
    binary_apply<double, double>(out, a, b, [alpha](double x, double y) { return x + alpha * y; });
  }
}
// [[/book:add_scaled]]

// [[book:lerp_scalar]]
// out = lerp(a, b, w) = a + w * (b - a) for floating tensors, computed from
// the end nearer to w as torch does (exact at w = 0 and at w = 1), so the
// two libraries agree to the bit. One pass: an exponential moving average
// (Adam's moments, momentum written as one) reads a and b once, writes once.
void lerp_scalar(const Tensor& out, const Tensor& a, const Tensor& b, double w) {
  const bool from_a = std::abs(w) < 0.5;
  if (out.dtype == DType::Float32) {
    const float wf = static_cast<float>(w), rest = 1.0f - wf;
    if (from_a) binary_apply<float, float>(out, a, b, [wf](float x, float y) { return x + wf * (y - x); });
    else binary_apply<float, float>(out, a, b, [rest](float x, float y) { return y - (y - x) * rest; });
  } else {
    const double rest = 1.0 - w;
    if (from_a) binary_apply<double, double>(out, a, b, [w](double x, double y) { return x + w * (y - x); });
    else binary_apply<double, double>(out, a, b, [rest](double x, double y) { return y - (y - x) * rest; });
  }
}
// [[/book:lerp_scalar]]

// Linear backward's one pass over the gradient g (M rows of N contiguous
// floats, row stride rs_g; see autograd/derivatives_linear.cpp): with y (the
// saved ReLU output), g' = (y <= 0 ? 0 : g) is written to gm and read back
// from there; with acc, acc[j] += g'(i, j) in double, the bias gradient.
// Here, not in derivatives_linear.cpp, so that it is built for AVX2/AVX-512 too.
void linear_mask_colsum_f32(int64_t M, int64_t N, const float* g, int64_t rs_g, const float* y, float* gm,
                            double* acc) {
  for (int64_t i = 0; i < M; ++i) {
    const float* __restrict src = g + i * rs_g;
    if (y != nullptr) {
      const float* __restrict yi = y + i * N;
      float* __restrict gi = gm + i * N;
      for (int64_t j = 0; j < N; ++j) {
        const float v = src[j];  // loaded on both sides of the select: the loop vectorises
        gi[j] = yi[j] <= 0.0f ? 0.0f : v;
      }
      src = gi;
    }
    if (acc != nullptr) {
      double* __restrict a = acc;
      for (int64_t j = 0; j < N; ++j) a[j] += static_cast<double>(src[j]);
    }
  }
}

}  // namespace aakaar::cpu::AK_KERNEL_NS
