// The backward formula of every primitive op, recorded by the op itself
// (csrc/ops calls these after computing its result when should_record(...)).
// Composite ops (mean, var, logsumexp, matmul, stack, ...) need none: they are
// built from these, so their graph is recorded piece by piece.
#pragma once
#include <functional>
#include <optional>

#include "autograd/function.h"
#include "core/backend.h"

namespace aakaar::autograd {

void record_binary(BinaryOp op, const TensorPtr& out, const TensorPtr& a, const TensorPtr& b);
// out = a + w (b - a) for a number w (torch.lerp with a float weight): the node keeps w itself,
// not a tensor, so a second backward through it needs no retain_graph (PyTorch's LerpBackward0).
void record_lerp_scalar(const TensorPtr& out, const TensorPtr& a, const TensorPtr& b, double w);
void record_unary(UnaryOp op, const TensorPtr& out, const TensorPtr& in, UnaryParams p);
// The maths API's ops (the UnaryOp entries after Erf, the BinaryOp ones after LogicalXor):
// derivatives_math.cpp; record_binary and record_unary hand them on.
void record_binary_math(BinaryOp op, const TensorPtr& out, const TensorPtr& a, const TensorPtr& b);
void record_unary_math(UnaryOp op, const TensorPtr& out, const TensorPtr& in, UnaryParams p);
// clamp with tensor bounds (lo or hi may be null): all of out's shape.
void record_clamp_tensor(const TensorPtr& out, const TensorPtr& x, const TensorPtr& lo, const TensorPtr& hi);
void record_where(const TensorPtr& out, const TensorPtr& cond, const TensorPtr& a, const TensorPtr& b);
// out: the result as returned (reduced dims dropped or kept); keep: the same values with the reduced
// dims kept as size 1 (out itself under keepdim). One node, as PyTorch's SumBackward0, whatever keepdim.
// along_dims: the reduction was asked along dims (PyTorch's second overload: SumBackward1, not SumBackward0).
void record_reduce(ReduceOp op, const TensorPtr& out, const TensorPtr& in, const TensorPtr& keep, bool along_dims);
// mean over the dims that are size 1 in keep_shape (n elements each).
void record_mean(const TensorPtr& out, const TensorPtr& in, const Shape& keep_shape, double n, bool along_dims);
// values: as returned (dim dropped or kept); indices_keep: the indices with dim kept as size 1.
void record_max_dim(const TensorPtr& values, const TensorPtr& indices_keep, const TensorPtr& in, int64_t dim, bool is_max);
void record_softmax(const TensorPtr& out, const TensorPtr& in, int64_t dim, bool log);
void record_cumsum(const TensorPtr& out, const TensorPtr& in, int64_t dim);
void record_bmm(const TensorPtr& out, const TensorPtr& a, const TensorPtr& b);
void record_mm(const TensorPtr& out, const TensorPtr& a, const TensorPtr& b);  // 2-d a @ b
void record_cast(const TensorPtr& out, const TensorPtr& in);    // to_dtype, clone, contiguous copies
void record_gather(const TensorPtr& out, const TensorPtr& in, int64_t dim, const TensorPtr& index);
void record_scatter(const TensorPtr& out, const TensorPtr& self, int64_t dim, const TensorPtr& index,
                    const TensorPtr& src, bool add);
void record_index(const TensorPtr& out, const TensorPtr& in, const std::vector<TensorPtr>& indices);
void record_index_put(const TensorPtr& out, const TensorPtr& self, const std::vector<TensorPtr>& indices,
                      const TensorPtr& values, bool accumulate);
void record_cat(const TensorPtr& out, const std::vector<TensorPtr>& inputs, int64_t dim);

// Views whose backward is "put the gradient back where the view came from":
// `reapply` applies the same view to a fresh tensor of the input's shape.
void record_view(const char* name, const TensorPtr& out, const TensorPtr& in,
                 std::function<TensorPtr(const TensorPtr&)> reapply);
// Views whose backward is another view (transpose, permute, reshape, expand...).
void record_view_with(const char* name, const TensorPtr& out, const TensorPtr& in,
                      std::function<TensorPtr(const TensorPtr&)> backward);
void record_as_strided(const TensorPtr& out, const TensorPtr& in);

// In-place ops on tensors in the graph: `compute` produces the new value
// out of place (recording it); the value is written into `self`, which takes
// over the new history. Refuses leaves that require grad and views of
// tensors that require grad (their base's history could not be updated).
void inplace_with_history(const TensorPtr& self, const char* op_name, const std::function<TensorPtr()>& compute);
bool inplace_needs_history(const TensorPtr& self, std::initializer_list<const TensorPtr*> others);

// Sums a broadcast gradient back to `shape`.
TensorPtr sum_to(const TensorPtr& g, const Shape& shape);

}  // namespace aakaar::autograd
