// A Tensor is a view of a Storage: element (i0, i1, ...) lives at
//   data + (offset + i0*stride[0] + i1*stride[1] + ...) * itemsize
// Views (transpose, slicing, expand, ...) make a new Tensor with other
// shape/strides/offset over the same Storage: nothing is copied.
#pragma once
#include <cstdint>
#include <memory>
#include <vector>

#include "core/dtype.h"
#include "core/storage.h"

namespace aakaar {

using Shape = std::vector<int64_t>;
class Tensor;
using TensorPtr = std::shared_ptr<Tensor>;
namespace autograd {
struct AutogradMeta;  // defined in csrc/autograd/node.h; null for tensors that need no gradient
}

class Tensor {
 public:
  // [[book:tensor_fields]]
  StoragePtr storage;   // shared by every view of the same memory
  int64_t offset = 0;   // in elements, from the start of storage
  Shape shape;          // size of each dimension
  Shape strides;        // elements to skip to move one step along each dimension
  DType dtype = DType::Float32;
  // [[/book:tensor_fields]]
  std::shared_ptr<autograd::AutogradMeta> autograd;
  // Made by view_as_strided (a view op) rather than owning its storage from
  // the start; detach_() refuses views, as PyTorch does.
  bool is_view = false;

  Tensor(StoragePtr s, int64_t off, Shape sh, Shape st, DType dt)
      : storage(std::move(s)), offset(off), shape(std::move(sh)), strides(std::move(st)), dtype(dt) {}

  // A new, uninitialised, row-major tensor on `device`.
  static TensorPtr empty(const Shape& shape, DType dtype, Device device = Device{});
  // A view of this tensor's storage with other geometry (no copy, no checks).
  TensorPtr view_as_strided(Shape shape, Shape strides, int64_t offset) const;

  int64_t ndim() const { return static_cast<int64_t>(shape.size()); }
  int64_t numel() const;
  Device device() const { return storage->device(); }
  int64_t element_size() const { return itemsize(dtype); }
  bool is_contiguous() const;
  // Address of element (0, 0, ...).
  char* data_ptr() const {
    return static_cast<char*>(storage->data()) + offset * itemsize(dtype);
  }
  template <typename T> T* data() const { return reinterpret_cast<T*>(data_ptr()); }

  // Normalises a possibly negative dim, raising IndexError naming the range.
  int64_t wrap_dim(int64_t dim) const;
};

Shape contiguous_strides(const Shape& shape);
int64_t shape_numel(const Shape& shape);
// shape_numel with checks: a ValueError for negative sizes or more than 2^63 elements.
int64_t checked_numel(const Shape& shape);
// Wraps dim into [0, ndim), raising IndexError if out of range.
int64_t wrap_dim(int64_t dim, int64_t ndim);

}  // namespace aakaar
