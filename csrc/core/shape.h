// Shape arithmetic shared by every layer: ops use it to work out the shape
// of a result before they allocate it; kernels never need it.
#pragma once
#include <algorithm>
#include <vector>

#include "core/error.h"
#include "core/tensor.h"

namespace aakaar {

// [[book:broadcast_shapes]]
// Shapes are aligned at their last dimension; each pair of sizes must be equal
// or one of them 1 (which is stretched). Missing leading dims count as 1.
inline Shape broadcast_shapes(const Shape& a, const Shape& b) {
  const size_t n = std::max(a.size(), b.size());
  Shape out(n);
  for (size_t i = 0; i < n; ++i) {
    const int64_t da = i < n - a.size() ? 1 : a[i - (n - a.size())];
    const int64_t db = i < n - b.size() ? 1 : b[i - (n - b.size())];
    AK_CHECK(da == db || da == 1 || db == 1, ValueError, "shapes ", shape_str(a), " and ", shape_str(b),
             " cannot be broadcast together (dimension ", i, ": ", da, " vs ", db, ")");
    out[i] = da == 1 ? db : da;
  }
  return out;
}
// [[/book:broadcast_shapes]]

// The shape all of `shapes` broadcast to (torch.broadcast_shapes).
inline Shape broadcast_shapes(const std::vector<Shape>& shapes) {
  Shape out;
  for (const Shape& s : shapes) out = broadcast_shapes(out, s);
  return out;
}

}  // namespace aakaar
