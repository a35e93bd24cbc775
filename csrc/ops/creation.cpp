// Making new tensors: empty/full/arange/linspace/eye and the Philox-backed
// random functions.
#include <algorithm>
#include <cmath>
#include <limits>

#include "core/error.h"
#include "ops/ops.h"

namespace aakaar::ops {

TensorPtr empty(const Shape& shape, DType dtype, Device device) { return Tensor::empty(shape, dtype, device); }

TensorPtr full(const Shape& shape, Scalar value, DType dtype, Device device) {
  // (Not checked here: wrap_scalar makes the operand of uint8_tensor + 256
  // through this, and that wraps as in PyTorch; aakaar.full checks.)
  TensorPtr t = Tensor::empty(shape, dtype, device);
  backend(device).fill(*t, value);
  return t;
}

TensorPtr scalar_tensor(Scalar value, DType dtype, Device device) { return full({}, value, dtype, device); }

TensorPtr arange(double start, double end, double step, DType dtype, Device device) {
  AK_CHECK(step != 0, ValueError, "arange: step must be nonzero");
  AK_CHECK(std::isfinite(start) && std::isfinite(end), ValueError, "arange: start and end must be finite");
  AK_CHECK((step > 0 && end >= start) || (step < 0 && end <= start), ValueError,
           "arange: upper bound and step sign are inconsistent (start=", start, ", end=", end, ", step=", step, ")");
  const double count = std::ceil((end - start) / step);
  AK_CHECK(count < 9.2e18, ValueError, "arange: start=", start, ", end=", end, ", step=", step,
           " would give more than 2^63 elements");
  const int64_t n = static_cast<int64_t>(count);
  TensorPtr t = Tensor::empty({n}, DType::Float64);
  double* p = t->data<double>();
  for (int64_t i = 0; i < n; ++i) p[i] = start + i * step;
  return to_device(to_dtype(t, dtype), device);
}

// arange over int64 arguments, exactly: the double path above cannot tell
// 2^62 from 2^62 + 1. The span |end - start| and |step| are computed as
// unsigned 64-bit numbers, where every difference of two int64 fits and
// nothing overflows, so arange(-2**63, 2**63 - 1, 2**62) has its four values.
// (PyTorch computes end - start + step in int64, which overflows there: it
// returns an empty tensor for that call and refuses arange(0, 2**63 - 1, 2**62)
// as "invalid size"; we give the mathematically right answer instead.)
TensorPtr arange_int(int64_t start, int64_t end, int64_t step, DType dtype, Device device) {
  AK_CHECK(step != 0, ValueError, "arange: step must be nonzero");
  AK_CHECK((step > 0 && end >= start) || (step < 0 && end <= start), ValueError,
           "arange: upper bound and step sign are inconsistent (start=", start, ", end=", end, ", step=", step, ")");
  const uint64_t span = step > 0 ? static_cast<uint64_t>(end) - static_cast<uint64_t>(start)
                                 : static_cast<uint64_t>(start) - static_cast<uint64_t>(end);
  const uint64_t mag = step > 0 ? static_cast<uint64_t>(step) : uint64_t(0) - static_cast<uint64_t>(step);
  const uint64_t count = span / mag + (span % mag != 0 ? 1 : 0);
  AK_CHECK(count <= static_cast<uint64_t>(std::numeric_limits<int64_t>::max()), ValueError, "arange: start=", start,
           ", end=", end, ", step=", step, " would give more than 2^63 - 1 elements");
  const int64_t n = static_cast<int64_t>(count);
  TensorPtr t = Tensor::empty({n}, DType::Int64);
  int64_t* p = t->data<int64_t>();
  // start + i * step stays within [start, end) for every i < n; computed in
  // uint64 (defined wrapping) and converted back, it is that exact value.
  for (int64_t i = 0; i < n; ++i)
    p[i] = static_cast<int64_t>(static_cast<uint64_t>(start) + static_cast<uint64_t>(i) * static_cast<uint64_t>(step));
  return to_device(dtype == DType::Int64 ? t : to_dtype(t, dtype), device);
}

TensorPtr linspace(double start, double end, int64_t steps, DType dtype, Device device) {
  AK_CHECK(steps >= 0, ValueError, "linspace: number of steps must be non-negative, got ", steps);
  TensorPtr t = Tensor::empty({steps}, DType::Float64);
  double* p = t->data<double>();
  const double step = steps > 1 ? (end - start) / (steps - 1) : 0;
  // Fill from both ends (as PyTorch does) so the last element is exactly `end`.
  // (steps == 1 gives just `start`, as in PyTorch and numpy.)
  for (int64_t i = 0; i < steps; ++i)
    p[i] = i < steps / 2 || steps == 1 ? start + i * step : end - (steps - 1 - i) * step;
  return to_device(to_dtype(t, dtype), device);
}

TensorPtr eye(int64_t n, int64_t m, DType dtype, Device device) {
  AK_CHECK(n >= 0 && m >= 0, ValueError, "eye: sizes must be non-negative, got ", n, " x ", m);
  TensorPtr t = full({n, m}, Scalar::from_int(0), dtype, device);
  TensorPtr d = diagonal(t, 0, 0, 1);
  fill_(d, Scalar::from_int(1));
  return t;
}

Generator& default_generator() {
  static Generator g;
  return g;
}

namespace {
// Reserves `blocks` Philox blocks of the generator's stream.
uint64_t take_blocks(Generator& gen, int64_t blocks) {
  const uint64_t start = gen.offset;
  gen.offset += static_cast<uint64_t>(blocks);
  return start;
}
// One Philox block yields four float32 or two float64 numbers.
int64_t blocks_for(DType dtype, int64_t n) { return dtype == DType::Float32 ? (n + 3) / 4 : (n + 1) / 2; }
}  // namespace

TensorPtr rand(const Shape& shape, DType dtype, Generator& gen, Device device) {
  if (is_reduced_float(dtype)) return to_dtype(rand(shape, DType::Float32, gen, device), dtype);  // drawn in float32
  TensorPtr t = Tensor::empty(shape, dtype, device);
  AK_CHECK(is_floating(dtype), TypeError, "rand: dtype must be float32 or float64, got ", dtype_name(dtype));
  backend(device).random_uniform(*t, gen.seed, take_blocks(gen, blocks_for(dtype, t->numel())), 0.0, 1.0);
  return t;
}

TensorPtr randn(const Shape& shape, DType dtype, Generator& gen, Device device) {
  if (is_reduced_float(dtype)) return to_dtype(randn(shape, DType::Float32, gen, device), dtype);
  TensorPtr t = Tensor::empty(shape, dtype, device);
  AK_CHECK(is_floating(dtype), TypeError, "randn: dtype must be float32 or float64, got ", dtype_name(dtype));
  backend(device).random_normal(*t, gen.seed, take_blocks(gen, blocks_for(dtype, t->numel())), 0.0, 1.0);
  return t;
}

TensorPtr randint(int64_t low, int64_t high, const Shape& shape, DType dtype, Generator& gen, Device device) {
  AK_CHECK(high > low, ValueError, "randint: expected low < high, got low=", low, ", high=", high);
  // Values outside the dtype would be converted silently (randint(0, 10, dtype=bool) all but all True);
  // PyTorch refuses bounds out of range for bool and uint8 too.
  AK_CHECK(dtype != DType::Bool || (low >= 0 && high <= 2), ValueError, "randint: [", low, ", ", high,
           ") is out of bounds for bool (only randint(0, 2) or narrower)");
  if (is_integral(dtype, false) && dtype != DType::Int64) {
    // [lo, hi + 1): the values the dtype holds.
    const int64_t bits = 8 * itemsize(dtype), hi = dtype == DType::UInt8 ? 255 : (int64_t(1) << (bits - 1)) - 1,
                  lo = dtype == DType::UInt8 ? 0 : -hi - 1;
    AK_CHECK(low >= lo && high <= hi + 1, ValueError, "randint: [", low, ", ", high, ") is out of bounds for ",
             dtype_name(dtype), " ([", lo, ", ", hi + 1, "))");
  }
  // Draw uniform doubles (53 bits) and scale: exact for ranges below 2^53.
  // The range high - low can exceed int64 (randint(-2**63, 2**63-1)): it is
  // computed in uint64, where the difference is exact and defined, and the
  // offset added back modulo 2^64 (two's complement gives the signed value).
  TensorPtr u = Tensor::empty(shape, DType::Float64, Device{});
  backend(Device{}).random_uniform(*u, gen.seed, take_blocks(gen, (u->numel() + 1) / 2), 0.0, 1.0);
  TensorPtr out = Tensor::empty(shape, DType::Int64, Device{});
  const uint64_t range = static_cast<uint64_t>(high) - static_cast<uint64_t>(low);
  const double range_d = static_cast<double>(range);
  const double* up = u->data<double>();
  int64_t* op = out->data<int64_t>();
  for (int64_t i = 0, n = out->numel(); i < n; ++i) {
    const double x = up[i] * range_d;  // in [0, range_d]; 2^64 itself only by rounding
    const uint64_t k = x >= 18446744073709551616.0 ? range - 1 : std::min(static_cast<uint64_t>(x), range - 1);
    op[i] = static_cast<int64_t>(static_cast<uint64_t>(low) + k);
  }
  return to_device(to_dtype(out, dtype), device);
}

TensorPtr randperm(int64_t n, DType dtype, Generator& gen, Device device) {
  AK_CHECK(n >= 0, ValueError, "randperm: n must be non-negative, got ", n);
  // Fisher-Yates driven by one uniform double per step.
  TensorPtr u = Tensor::empty({n}, DType::Float64, Device{});
  backend(Device{}).random_uniform(*u, gen.seed, take_blocks(gen, (n + 1) / 2), 0.0, 1.0);
  TensorPtr out = arange(0, static_cast<double>(n), 1, DType::Int64);
  int64_t* p = out->data<int64_t>();
  const double* up = u->data<double>();
  for (int64_t i = n - 1; i > 0; --i) {
    const int64_t j = std::min(static_cast<int64_t>(up[i] * (i + 1)), i);
    std::swap(p[i], p[j]);
  }
  return to_device(to_dtype(out, dtype), device);
}

TensorPtr bernoulli(const TensorPtr& p, Generator& gen) {
  AK_CHECK(is_floating(p->dtype), TypeError, "bernoulli: probabilities must be float32 or float64, got ",
           dtype_name(p->dtype));
  // Probabilities outside [0, 1] (or NaN) have no meaning; PyTorch refuses them too.
  if (p->numel() > 0) {
    TensorPtr bad = binary(BinaryOp::LogicalOr, binary_scalar(BinaryOp::Lt, p, Scalar::from_int(0), false),
                           binary_scalar(BinaryOp::Gt, p, Scalar::from_int(1), false));
    bad = binary(BinaryOp::LogicalOr, bad, binary(BinaryOp::Ne, p, p));  // NaN
    TensorPtr any = reduce(ReduceOp::Any, bad, std::nullopt, false);
    if (any->device().type != DeviceType::CPU) any = to_device(any, Device{});
    AK_CHECK(!any->data<bool>()[0], ValueError, "bernoulli: every probability must be in [0, 1] (and not NaN)");
  }
  TensorPtr u = rand(p->shape, p->dtype, gen, p->device());
  return to_dtype(binary(BinaryOp::Lt, u, p), p->dtype);
}

}  // namespace aakaar::ops
