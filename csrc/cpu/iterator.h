// Walking N-d strided tensors on the CPU.
//
// Every elementwise op (add, exp, copy, where, ...) has the same outer shape:
// visit each position of the output once, reading the inputs at the same
// position. StridedLoop does the visiting; the op only supplies an inner loop
// over one contiguous-or-strided run of elements, which is where the time goes
// and where the compiler can vectorise.
#pragma once
#include <algorithm>
#include <array>
#include <cstdint>
#include <vector>

#include "core/error.h"
#include "core/tensor.h"
#include "cpu/parallel.h"

namespace aakaar::cpu {

// N operands (operand 0 is the output), all of one shape, strides in bytes.
template <int N>
class StridedLoop {
 public:
  StridedLoop(const Shape& shape, const std::array<const Tensor*, N>& ops) : shape_(shape) {
    for (int k = 0; k < N; ++k) {
      strides_[k].resize(shape.size());
      base_[k] = ops[k]->data_ptr();
      // A dim of size 1 is never stepped along, and its stride may be anything
      // (as_strided allows 2^62): 0 keeps stride x itemsize from overflowing.
      // Any other stride x itemsize is below the storage's size in bytes.
      for (size_t d = 0; d < shape.size(); ++d)
        strides_[k][d] = shape[d] <= 1 ? 0 : ops[k]->strides[d] * ops[k]->element_size();
    }
    coalesce();
  }

  int64_t numel() const { return shape_numel(shape_); }  // checked: raises rather than wrapping

  // Calls inner(char* ptrs[N], const int64_t strides[N], int64_t n) over every
  // run of the innermost dimension, in chunks spread over threads.
  template <typename Inner>
  // The grain keeps small tensors on one thread: waking a sleeping thread costs
  // more than a memory-bound loop over fewer than ~100k elements saves. A
  // thread that is already awake costs far less: below the grain, a loop is
  // still split among the awake workers, at an 8 times smaller grain.
  void run(const Inner& inner, int64_t grain = 1 << 17) const {
    const int64_t total = numel();
    if (total == 0) return;
    int64_t max_chunks = INT64_MAX;
    if (total / 2 < grain && get_num_threads() > 1 && split_among_awake()) {
      const int awake = awake_workers();
      if (awake > 0) {
        grain = std::max<int64_t>(1, grain / 8);
        max_chunks = int64_t(awake) + 1;  // them and this thread
      }
    }
    parallel_for(0, total, grain, [&](int64_t begin, int64_t end) { run_range(begin, end, inner); }, max_chunks);
  }

 private:
  // [[book:coalesce]]
  // Two neighbouring dims d, d+1 can be walked as one when, for every operand,
  // stepping once along d is the same as stepping shape[d+1] times along d+1.
  // A contiguous tensor of any rank collapses to a single dimension, so the
  // inner loop runs over all of it at once.
  void coalesce() {
    Shape shape;
    std::array<Shape, N> strides;
    for (size_t d = 0; d < shape_.size(); ++d) {
      if (shape_[d] == 1) continue;  // size-1 dims are never stepped along
      bool merge = !shape.empty();
      for (int k = 0; k < N && merge; ++k)
        merge = strides[k].back() == strides_[k][d] * shape_[d];
      if (merge) {
        shape.back() *= shape_[d];
        for (int k = 0; k < N; ++k) strides[k].back() = strides_[k][d];
      } else {
        shape.push_back(shape_[d]);
        for (int k = 0; k < N; ++k) strides[k].push_back(strides_[k][d]);
      }
    }
    if (shape.empty()) {  // a single element
      shape.push_back(1);
      for (int k = 0; k < N; ++k) strides[k].push_back(0);
    }
    shape_ = shape;
    strides_ = strides;
  }
  // [[/book:coalesce]]

  // [[book:strided_loop]]
  // Visits elements [begin, end) in row-major order: the innermost dimension
  // is handed to `inner` as one run; an odometer over the outer dimensions
  // moves each operand's pointer by its stride.
  template <typename Inner>
  void run_range(int64_t begin, int64_t end, const Inner& inner) const {
    const int64_t nd = static_cast<int64_t>(shape_.size());
    const int64_t inner_size = shape_[nd - 1];
    std::vector<int64_t> index(nd, 0);
    int64_t rem = begin;
    for (int64_t d = nd - 1; d >= 0; --d) {
      index[d] = rem % shape_[d];
      rem /= shape_[d];
    }
    std::array<char*, N> ptrs;
    std::array<int64_t, N> inner_strides;
    for (int k = 0; k < N; ++k) {
      ptrs[k] = base_[k];
      for (int64_t d = 0; d < nd; ++d) ptrs[k] += index[d] * strides_[k][d];
      inner_strides[k] = strides_[k][nd - 1];
    }
    int64_t pos = begin;
    while (pos < end) {
      const int64_t n = std::min(inner_size - index[nd - 1], end - pos);
      inner(ptrs.data(), inner_strides.data(), n);
      pos += n;
      if (pos >= end) break;
      // Advance the odometer: the inner dim wrapped, carry into outer dims.
      // The run ended at the end of its row: rewind to the row start, then carry.
      for (int k = 0; k < N; ++k) ptrs[k] -= index[nd - 1] * inner_strides[k];
      index[nd - 1] = 0;
      for (int64_t d = nd - 2; d >= 0; --d) {
        ++index[d];
        for (int k = 0; k < N; ++k) ptrs[k] += strides_[k][d];
        if (index[d] < shape_[d]) break;
        for (int k = 0; k < N; ++k) ptrs[k] -= index[d] * strides_[k][d];
        index[d] = 0;
      }
    }
  }
  // [[/book:strided_loop]]

  Shape shape_;
  std::array<Shape, N> strides_;
  std::array<char*, N> base_;
};

// The view of `t` at index 0 along `dim` with that dim squeezed to size 1: the starts of the
// rows a kernel along one dim walks (reductions, scans, sort).
inline Tensor slice0(const Tensor& t, int64_t dim) {
  Shape shape = t.shape;
  shape[dim] = 1;
  return Tensor(t.storage, t.offset, shape, t.strides, t.dtype);
}

}  // namespace aakaar::cpu
