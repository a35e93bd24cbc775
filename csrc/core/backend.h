// The per-device dispatch table. Op code (csrc/ops) checks arguments, works
// out shapes and dtypes, allocates outputs, and then calls backend(device).X:
// a CUDA backend registers its own table and no op needs to change.
#pragma once
#include <cstddef>
#include <cstdint>

#include "core/device.h"
#include "core/storage.h"
#include "core/tensor.h"

namespace aakaar {

// A Python number carried into C++ without losing int64 precision.
struct Scalar {
  enum class Kind : int8_t { Bool, Int, Float } kind = Kind::Float;
  double f = 0;
  int64_t i = 0;
  static Scalar from_double(double v) { return {Kind::Float, v, static_cast<int64_t>(v)}; }
  static Scalar from_int(int64_t v) { return {Kind::Int, static_cast<double>(v), v}; }
  static Scalar from_bool(bool v) { return {Kind::Bool, v ? 1.0 : 0.0, v ? 1 : 0}; }
  double to_double() const { return kind == Kind::Float ? f : static_cast<double>(i); }
};

enum class BinaryOp : int8_t {
  Add, Sub, Mul, Div, FloorDiv, Mod, Pow, Maximum, Minimum,
  Eq, Ne, Lt, Le, Gt, Ge, LogicalAnd, LogicalOr, LogicalXor,
};
enum class UnaryOp : int8_t {
  Neg, Abs, Sign, Exp, Log, Log1p, Expm1, Sqrt, Rsqrt, Sin, Cos, Tanh, Sigmoid, Relu, Gelu, GeluTanh,
  Silu, Softplus, LogicalNot, Floor, Ceil, Round, Reciprocal, Square, LeakyRelu, Elu, Clamp, Erf,
};
// Extra numbers some unary ops take (clamp bounds, slopes, softplus beta/threshold).
struct UnaryParams {
  double a = 0, b = 0;
  bool has_a = false, has_b = false;
};
enum class ReduceOp : int8_t { Sum, Prod, Max, Min, All, Any };

struct Backend {
  StoragePtr (*allocate)(size_t nbytes, Device device);
  // dst and src have the same shape (src may have 0 strides); converts dtype.
  void (*copy)(const Tensor& dst, const Tensor& src);
  void (*fill)(const Tensor& dst, Scalar value);
  // out, a, b have out's shape (inputs already broadcast); a and b share one dtype.
  void (*binary)(BinaryOp op, const Tensor& out, const Tensor& a, const Tensor& b);
  void (*unary)(UnaryOp op, const Tensor& out, const Tensor& in, UnaryParams p);
  // out = cond ? a : b, all with out's shape.
  void (*where)(const Tensor& out, const Tensor& cond, const Tensor& a, const Tensor& b);
  // out has in's shape with size 1 in every reduced dim (keepdim form).
  void (*reduce)(ReduceOp op, const Tensor& out, const Tensor& in);
  // Values and int64 indices of the max (or min) along dim; out shapes keep dim as size 1.
  void (*arg_reduce)(bool is_max, const Tensor& values, const Tensor& indices, const Tensor& in, int64_t dim);
  void (*softmax)(const Tensor& out, const Tensor& in, int64_t dim, bool log);
  void (*cumsum)(const Tensor& out, const Tensor& in, int64_t dim);
  // out[b] = a[b] @ b[b] for 3-D operands (batch, rows, cols), any strides.
  void (*bmm)(const Tensor& out, const Tensor& a, const Tensor& b);
  // out (shape of index) = in gathered along dim; scatter writes src into out.
  void (*gather)(const Tensor& out, const Tensor& in, int64_t dim, const Tensor& index);
  void (*scatter)(const Tensor& out, int64_t dim, const Tensor& index, const Tensor& src, bool add);
  // Philox random numbers into a contiguous tensor.
  void (*random_uniform)(const Tensor& out, uint64_t seed, uint64_t offset, double low, double high);
  void (*random_normal)(const Tensor& out, uint64_t seed, uint64_t offset, double mean, double std);
};

void register_backend(DeviceType type, const Backend* table);
// The table for device, or a RuntimeError saying the device is not available.
const Backend& backend(Device device);
bool has_backend(DeviceType type);

}  // namespace aakaar
