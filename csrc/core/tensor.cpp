#include "core/tensor.h"

#include "core/backend.h"
#include "core/error.h"

namespace aakaar {

// [[book:contiguous_strides]]
// Row-major ("C order") strides: the last dimension moves fastest, and each
// stride is the product of the sizes of the dimensions to its right.
Shape contiguous_strides(const Shape& shape) {
  Shape strides(shape.size());
  int64_t step = 1;
  for (int64_t d = static_cast<int64_t>(shape.size()) - 1; d >= 0; --d) {
    strides[d] = step;
    // Saturate instead of overflowing: only an empty shape (checked_numel
    // bounds every other) can get here with a product beyond int64, and an
    // empty tensor's strides are never stepped along.
    if (__builtin_mul_overflow(step, shape[d] > 0 ? shape[d] : 1, &step)) step = INT64_MAX;
  }
  return strides;
}
// [[/book:contiguous_strides]]

int64_t shape_numel(const Shape& shape) {
  int64_t n = 1;
  for (int64_t s : shape)
    // Every tensor's shape passed checked_numel when it was made; a product
    // that still overflows is a bug, reported instead of wrapping to 0.
    AK_CHECK(!__builtin_mul_overflow(n, s, &n), RuntimeError, "shape ", shape_str(shape),
             " has too many elements (more than 2^63)");
  return n;
}

int64_t Tensor::numel() const { return shape_numel(shape); }

// [[book:is_contiguous]]
// Contiguous means "laid out exactly as a fresh row-major tensor would be".
// Dimensions of size 1 may have any stride: they are never stepped along.
bool Tensor::is_contiguous() const {
  // An empty tensor has no layout to break, whatever its strides (numpy gives
  // empty arrays strides such as (0, 0)).
  for (int64_t s : shape)
    if (s == 0) return true;
  int64_t expected = 1;
  for (int64_t d = ndim() - 1; d >= 0; --d) {
    if (shape[d] != 1 && strides[d] != expected) return false;
    expected *= shape[d];  // at most numel: no overflow
  }
  return true;
}
// [[/book:is_contiguous]]

int64_t checked_numel(const Shape& shape) {
  int64_t n = 1;
  for (int64_t s : shape) {
    AK_CHECK(s >= 0, ValueError, "negative dimension in shape ", shape_str(shape));
    // An overflowing product would wrap to a small (even zero) size and every
    // kernel would then read far outside the allocation.
    AK_CHECK(!__builtin_mul_overflow(n, s, &n), ValueError, "shape ", shape_str(shape),
             " has too many elements (more than 2^63)");
  }
  return n;
}

TensorPtr Tensor::empty(const Shape& shape, DType dtype, Device device) {
  int64_t nbytes_signed = 0;
  AK_CHECK(!__builtin_mul_overflow(checked_numel(shape), itemsize(dtype), &nbytes_signed), ValueError, "shape ",
           shape_str(shape), " of ", dtype_name(dtype), " needs more than 2^63 bytes");
  const size_t nbytes = static_cast<size_t>(nbytes_signed);
  StoragePtr storage = backend(device).allocate(nbytes, device);
  return std::make_shared<Tensor>(std::move(storage), 0, shape, contiguous_strides(shape), dtype);
}

TensorPtr Tensor::view_as_strided(Shape new_shape, Shape new_strides, int64_t new_offset) const {
  auto v = std::make_shared<Tensor>(storage, new_offset, std::move(new_shape), std::move(new_strides), dtype);
  v->is_view = true;
  return v;
}

int64_t wrap_dim(int64_t dim, int64_t ndim) {
  const int64_t n = ndim == 0 ? 1 : ndim;  // a 0-d tensor accepts dim 0 and -1, like PyTorch
  AK_CHECK(dim >= -n && dim < n, IndexError, "dimension out of range (expected to be in range of [",
           -n, ", ", n - 1, "], but got ", dim, ")");
  return dim < 0 ? dim + n : dim;
}

int64_t Tensor::wrap_dim(int64_t dim) const { return aakaar::wrap_dim(dim, ndim()); }

}  // namespace aakaar
