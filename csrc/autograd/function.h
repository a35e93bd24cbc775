// Recording ops into the graph. An op computes its result without autograd,
// then calls record(...) with the inputs it actually used, the tensors its
// backward needs, and the backward formula as a lambda. Formulas are written
// with the same ops, so with create_graph they are themselves recorded and
// can be differentiated again.
#pragma once
#include <initializer_list>
#include <string>
#include <utility>

#include "autograd/grad_mode.h"
#include "autograd/node.h"

namespace aakaar::autograd {

// grads: one per output (zeros where no gradient arrived); saved: the
// unpacked saved tensors; needs[i]: whether input i wants a gradient (skip
// the work otherwise). Returns one gradient per input (null = none).
using Needs = std::vector<bool>;
using Formula = std::function<TensorList(const TensorList& grads, const TensorList& saved, const Needs& needs)>;

struct FunctionNode : Node {
  std::string op_name;
  bool user_defined = false;  // recorded by aakaar.autograd.Function: Python shows op_name as it is
  std::vector<SavedTensor> saved;
  Formula formula;
  // Shape/dtype of each output, to make zeros for outputs that got no gradient.
  std::vector<Shape> output_shapes;
  std::vector<DType> output_dtypes;
  Device device;

  std::string name() const override { return op_name; }
  TensorList apply(TensorList&& grads) override;
  void release_saved() override {
    if (stateless) return;
    for (auto& s : saved) s.release();
    formula = nullptr;  // lambdas may capture tensors too
  }
};

// Whether an op on these inputs must be recorded.
inline bool should_record(std::initializer_list<const TensorPtr*> inputs) {
  if (!grad_enabled()) return false;
  for (const TensorPtr* t : inputs)
    if (*t && (*t)->autograd && (*t)->autograd->requires_grad) return true;
  return false;
}
bool should_record(const std::vector<TensorPtr>& inputs);

// Records `outputs` as produced from `inputs` by op `name`.
void record(const char* name, const TensorList& inputs, const TensorList& outputs, const TensorList& to_save,
            Formula formula);
inline void record(const char* name, const TensorList& inputs, const TensorPtr& output, const TensorList& to_save,
                   Formula formula) {
  record(name, inputs, TensorList{output}, to_save, std::move(formula));
}

// Runs backward from `roots`. With `inputs` given (autograd.grad), returns the
// gradients of the roots with respect to them instead of accumulating .grad.
TensorList run_backward(const TensorList& roots, const TensorList& grad_roots, bool retain_graph, bool create_graph,
                        const TensorList& inputs = {}, bool allow_unused = false);

// A new tensor sharing t's data with no history (t.detach()).
TensorPtr detach(const TensorPtr& t);

// An op that records through another one (sort through gather, stack through cat) gives the
// fresh node that made `out` PyTorch's name for itself, when that node is still named `from`.
inline void rename_node(const TensorPtr& out, const char* from, const char* to) {
  if (!out || !out->autograd) return;
  if (auto* fn = dynamic_cast<FunctionNode*>(out->autograd->grad_fn.get()); fn && fn->op_name == from) fn->op_name = to;
}

}  // namespace aakaar::autograd
