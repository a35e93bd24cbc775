// The element types of a tensor, their sizes, and the promotion table that
// decides the result type of an operation on mixed types.
#pragma once
#include <cstdint>
#include <string>

#include "core/error.h"
#include "core/half.h"

namespace aakaar {

// The numbers are stable: saved files (aakaar.save) and the Python enum
// store them, so a new dtype is appended at the end, never inserted.
enum class DType : int8_t {
  Bool = 0, UInt8 = 1, Int64 = 2, Float32 = 3, Float64 = 4,
  Int32 = 5, Int16 = 6, Int8 = 7, Float16 = 8, BFloat16 = 9,
};
constexpr int kNumDTypes = 10;

inline int64_t itemsize(DType t) {
  switch (t) {
    case DType::Bool: case DType::UInt8: case DType::Int8: return 1;
    case DType::Int16: case DType::Float16: case DType::BFloat16: return 2;
    case DType::Int32: case DType::Float32: return 4;
    case DType::Int64: case DType::Float64: return 8;
  }
  return 0;
}

inline const char* dtype_name(DType t) {
  switch (t) {
    case DType::Bool: return "bool";
    case DType::UInt8: return "uint8";
    case DType::Int8: return "int8";
    case DType::Int16: return "int16";
    case DType::Int32: return "int32";
    case DType::Int64: return "int64";
    case DType::Float16: return "float16";
    case DType::BFloat16: return "bfloat16";
    case DType::Float32: return "float32";
    case DType::Float64: return "float64";
  }
  return "?";
}

// float16 and bfloat16: stored in 16 bits, computed in float32 (core/half.h).
inline bool is_reduced_float(DType t) { return t == DType::Float16 || t == DType::BFloat16; }
inline bool is_floating(DType t) { return t == DType::Float32 || t == DType::Float64 || is_reduced_float(t); }
inline bool is_integral(DType t, bool include_bool) {
  return t == DType::UInt8 || t == DType::Int8 || t == DType::Int16 || t == DType::Int32 || t == DType::Int64 ||
         (include_bool && t == DType::Bool);
}
// The type an op computes in for a tensor of type t: float32 for the 16-bit floats.
inline DType compute_type(DType t) { return is_reduced_float(t) ? DType::Float32 : t; }

// The promotion table: PyTorch's (torch.promote_types) for these ten types.
//            bool  uint8 int8  int16 int32 int64 f16   bf16  f32   f64
//   bool     bool  uint8 int8  int16 int32 int64 f16   bf16  f32   f64
//   uint8    uint8 uint8 int16 int16 int32 int64 f16   bf16  f32   f64
//   int8     int8  int16 int8  int16 int32 int64 f16   bf16  f32   f64
//   int16    int16 int16 int16 int16 int32 int64 f16   bf16  f32   f64
//   int32    int32 int32 int32 int32 int32 int64 f16   bf16  f32   f64
//   int64    int64 int64 int64 int64 int64 int64 f16   bf16  f32   f64
//   f16      f16   f16   f16   f16   f16   f16   f16   f32   f32   f64
//   bf16     bf16  bf16  bf16  bf16  bf16  bf16  f32   bf16  f32   f64
//   f32      f32   f32   f32   f32   f32   f32   f32   f32   f32   f64
//   f64      f64   f64   f64   f64   f64   f64   f64   f64   f64   f64
// In words: a floating type beats any integer one; uint8 with a signed type
// needs the next signed width that holds both (int8 with uint8 is int16);
// float16 with bfloat16 is float32 (neither holds the other). A Python number
// only changes the type when it is of a higher kind (bool < int < float):
// int tensor + 2.5 is float32 (the default float), int8 tensor + 1000 stays int8.
inline DType promote_types(DType a, DType b) {
  if (a == b) return a;
  if (a == DType::Bool) return b;
  if (b == DType::Bool) return a;
  const bool fa = is_floating(a), fb = is_floating(b);
  if (fa != fb) return fa ? a : b;
  if (fa) {  // two different floating types
    if (a == DType::Float64 || b == DType::Float64) return DType::Float64;
    return DType::Float32;  // float32 with a 16-bit one, or float16 with bfloat16
  }
  // Two different integer types.
  if (a == DType::UInt8 || b == DType::UInt8) {
    const DType s = a == DType::UInt8 ? b : a;
    return s == DType::Int8 ? DType::Int16 : s;
  }
  return itemsize(a) >= itemsize(b) ? a : b;
}

// Types of the C++ scalars behind each dtype.
template <DType D> struct CppType;
template <> struct CppType<DType::Bool> { using type = bool; };
template <> struct CppType<DType::UInt8> { using type = uint8_t; };
template <> struct CppType<DType::Int64> { using type = int64_t; };
template <> struct CppType<DType::Float32> { using type = float; };
template <> struct CppType<DType::Float64> { using type = double; };
template <> struct CppType<DType::Int32> { using type = int32_t; };
template <> struct CppType<DType::Int16> { using type = int16_t; };
template <> struct CppType<DType::Int8> { using type = int8_t; };
template <> struct CppType<DType::Float16> { using type = Half; };
template <> struct CppType<DType::BFloat16> { using type = BFloat16; };

}  // namespace aakaar

// The dispatch macros: the one place where a dtype becomes a C++ type.
//
// AK_DISPATCH_ALL(dtype, "op", [&](auto tag){ using T = decltype(tag); ... })
// calls the lambda with a value of the C++ type matching dtype, for every type
// kernels compute in: bool, the five integer types and float32/float64. The
// 16-bit floats are not among them: ops compute those in float32 (compute_type)
// and only the kernels that move values (copy, fill, where) take them, through
// AK_DISPATCH_STORAGE. An op that adds an integer dtype's kernel (bitwise ops)
// gets int8/int16/int32 from AK_DISPATCH_ALL with no change here.
#define AK_DISPATCH_CASE(D, ...) \
  case D: return __VA_ARGS__(typename ::aakaar::CppType<D>::type{});

// The types the CPU's AVX2/AVX-512 builds of the elementwise loops compile
// for (cpu/elementwise_loops.h): the narrow integers run in the baseline build
// only, so they cost one set of instantiations, not three.
#define AK_DISPATCH_CASES_WIDE(...)                            \
  AK_DISPATCH_CASE(::aakaar::DType::Bool, __VA_ARGS__)         \
  AK_DISPATCH_CASE(::aakaar::DType::UInt8, __VA_ARGS__)        \
  AK_DISPATCH_CASE(::aakaar::DType::Int64, __VA_ARGS__)        \
  AK_DISPATCH_CASE(::aakaar::DType::Float32, __VA_ARGS__)      \
  AK_DISPATCH_CASE(::aakaar::DType::Float64, __VA_ARGS__)
#define AK_DISPATCH_CASES_NARROW_INT(...)                      \
  AK_DISPATCH_CASE(::aakaar::DType::Int32, __VA_ARGS__)        \
  AK_DISPATCH_CASE(::aakaar::DType::Int16, __VA_ARGS__)        \
  AK_DISPATCH_CASE(::aakaar::DType::Int8, __VA_ARGS__)
#define AK_DISPATCH_CASES_HALF(...)                            \
  AK_DISPATCH_CASE(::aakaar::DType::Float16, __VA_ARGS__)      \
  AK_DISPATCH_CASE(::aakaar::DType::BFloat16, __VA_ARGS__)

#define AK_DISPATCH_UNSUPPORTED(dtype, opname) \
  throw ::aakaar::TypeError(::aakaar::str(opname, ": unsupported dtype ", ::aakaar::dtype_name(dtype)))

#define AK_DISPATCH_ALL(dtype, opname, ...)        \
  [&] {                                            \
    switch (dtype) {                               \
      AK_DISPATCH_CASES_WIDE(__VA_ARGS__)          \
      AK_DISPATCH_CASES_NARROW_INT(__VA_ARGS__)    \
      default: break;                              \
    }                                              \
    AK_DISPATCH_UNSUPPORTED(dtype, opname);        \
  }()

#define AK_DISPATCH_WIDE(dtype, opname, ...)       \
  [&] {                                            \
    switch (dtype) {                               \
      AK_DISPATCH_CASES_WIDE(__VA_ARGS__)          \
      default: break;                              \
    }                                              \
    AK_DISPATCH_UNSUPPORTED(dtype, opname);        \
  }()

// Every dtype, the 16-bit floats included: for kernels that only move values.
#define AK_DISPATCH_STORAGE(dtype, opname, ...)    \
  [&] {                                            \
    switch (dtype) {                               \
      AK_DISPATCH_CASES_WIDE(__VA_ARGS__)          \
      AK_DISPATCH_CASES_NARROW_INT(__VA_ARGS__)    \
      AK_DISPATCH_CASES_HALF(__VA_ARGS__)          \
    }                                              \
    AK_DISPATCH_UNSUPPORTED(dtype, opname);        \
  }()

#define AK_DISPATCH_FLOAT(dtype, opname, ...)                                             \
  [&] {                                                                                   \
    switch (dtype) {                                                                      \
      AK_DISPATCH_CASE(::aakaar::DType::Float32, __VA_ARGS__)                             \
      AK_DISPATCH_CASE(::aakaar::DType::Float64, __VA_ARGS__)                             \
      default: break;                                                                     \
    }                                                                                     \
    throw ::aakaar::TypeError(::aakaar::str(opname, " supports float32 and float64, got ", \
                                            ::aakaar::dtype_name(dtype)));                \
  }()
