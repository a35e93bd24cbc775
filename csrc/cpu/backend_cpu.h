// The CPU backend: kernels for every entry of the dispatch table.
#pragma once
#include "core/backend.h"

namespace aakaar::cpu {

void reduce(ReduceOp op, const Tensor& out, const Tensor& in);
void arg_reduce(bool is_max, const Tensor& values, const Tensor& indices, const Tensor& in, int64_t dim);
void softmax(const Tensor& out, const Tensor& in, int64_t dim, bool log);
void cumsum(const Tensor& out, const Tensor& in, int64_t dim);

}  // namespace aakaar::cpu
