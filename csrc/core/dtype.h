// The element types of a tensor, their sizes, and the promotion table that
// decides the result type of an operation on mixed types.
#pragma once
#include <cstdint>
#include <string>

#include "core/error.h"

namespace aakaar {

// Ordered by promotion rank: a mix of two types promotes to the larger rank.
enum class DType : int8_t { Bool = 0, UInt8 = 1, Int64 = 2, Float32 = 3, Float64 = 4 };
constexpr int kNumDTypes = 5;

inline int64_t itemsize(DType t) {
  switch (t) {
    case DType::Bool: case DType::UInt8: return 1;
    case DType::Float32: return 4;
    case DType::Int64: case DType::Float64: return 8;
  }
  return 0;
}

inline const char* dtype_name(DType t) {
  switch (t) {
    case DType::Bool: return "bool";
    case DType::UInt8: return "uint8";
    case DType::Int64: return "int64";
    case DType::Float32: return "float32";
    case DType::Float64: return "float64";
  }
  return "?";
}

inline bool is_floating(DType t) { return t == DType::Float32 || t == DType::Float64; }
inline bool is_integral(DType t, bool include_bool) {
  return t == DType::UInt8 || t == DType::Int64 || (include_bool && t == DType::Bool);
}

// The promotion table (same as PyTorch's for these five types):
//            bool     uint8    int64    float32  float64
//   bool     bool     uint8    int64    float32  float64
//   uint8    uint8    uint8    int64    float32  float64
//   int64    int64    int64    int64    float32  float64
//   float32  float32  float32  float32  float32  float64
//   float64  float64  float64  float64  float64  float64
inline DType promote_types(DType a, DType b) {
  return static_cast<int8_t>(a) >= static_cast<int8_t>(b) ? a : b;
}

// Types of the C++ scalars behind each dtype.
template <DType D> struct CppType;
template <> struct CppType<DType::Bool> { using type = bool; };
template <> struct CppType<DType::UInt8> { using type = uint8_t; };
template <> struct CppType<DType::Int64> { using type = int64_t; };
template <> struct CppType<DType::Float32> { using type = float; };
template <> struct CppType<DType::Float64> { using type = double; };

}  // namespace aakaar

// AK_DISPATCH_ALL(dtype, "op", [&](auto tag){ using T = decltype(tag); ... })
// calls the lambda with a value of the C++ type matching dtype.
#define AK_DISPATCH_CASE(D, ...) \
  case D: return __VA_ARGS__(typename ::aakaar::CppType<D>::type{});

#define AK_DISPATCH_ALL(dtype, opname, ...)                                   \
  [&] {                                                                       \
    switch (dtype) {                                                          \
      AK_DISPATCH_CASE(::aakaar::DType::Bool, __VA_ARGS__)                    \
      AK_DISPATCH_CASE(::aakaar::DType::UInt8, __VA_ARGS__)                   \
      AK_DISPATCH_CASE(::aakaar::DType::Int64, __VA_ARGS__)                   \
      AK_DISPATCH_CASE(::aakaar::DType::Float32, __VA_ARGS__)                 \
      AK_DISPATCH_CASE(::aakaar::DType::Float64, __VA_ARGS__)                 \
    }                                                                         \
    throw ::aakaar::TypeError(::aakaar::str(opname, ": unsupported dtype"));  \
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
