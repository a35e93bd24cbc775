// The computational graph. Every differentiable op that sees an input which
// requires grad records a Node: it knows where its inputs' gradients must
// flow (next_edges) and how to turn the gradient of its outputs into those
// (apply). Leaves that require grad end in an AccumulateGrad node that adds
// into tensor.grad.
#pragma once
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "core/tensor.h"

namespace aakaar::autograd {

struct Node;

// [[book:edge]]
// "The gradient for input `input_nr` of node `fn`."
struct Edge {
  std::shared_ptr<Node> fn;
  uint32_t input_nr = 0;
  bool valid() const { return fn != nullptr; }
};
// [[/book:edge]]

using TensorList = std::vector<TensorPtr>;  // null entries mean "no gradient" (zero)
using GradHook = std::function<TensorPtr(const TensorPtr&)>;

// A tensor kept for backward, with the storage version it had when saved:
// if an in-place op changed it since, unpacking raises instead of silently
// computing a wrong gradient (PyTorch's rule: in-place ops on saved tensors
// are allowed, and caught at backward only if the value is really needed).
// The slot holds an alias of its own (same storage, view and autograd state),
// counted on the storage, so in-place ops can tell autograd's holders from a
// user's live views. A null tensor (an input whose value the formula will not
// need) is saved as "nothing" and unpacks to null.
// An output of the saving node itself is kept without history, and the node
// only weakly (holding it would make a cycle: output -> grad_fn -> saved
// output); it unpacks with its history restored, so formulas may use it under
// create_graph (PyTorch does the same).
class SavedTensor {
 public:
  SavedTensor() = default;
  explicit SavedTensor(const TensorPtr& t, const std::shared_ptr<Node>& output_of = nullptr, uint32_t output_nr = 0);
  SavedTensor(SavedTensor&& o) noexcept
      : tensor_(std::move(o.tensor_)), version_(o.version_), saved_(o.saved_), grad_fn_(std::move(o.grad_fn_)),
        output_nr_(o.output_nr_), is_output_(o.is_output_) {}
  SavedTensor& operator=(SavedTensor&& o) noexcept {
    if (this != &o) {
      release();
      tensor_ = std::move(o.tensor_);
      version_ = o.version_;
      saved_ = o.saved_;
      grad_fn_ = std::move(o.grad_fn_);
      output_nr_ = o.output_nr_;
      is_output_ = o.is_output_;
    }
    return *this;
  }
  SavedTensor(const SavedTensor&) = delete;
  SavedTensor& operator=(const SavedTensor&) = delete;
  ~SavedTensor() { release(); }

  TensorPtr unpack(const char* node_name) const;
  void release() {
    if (tensor_) tensor_->storage->remove_saved_ref();
    tensor_.reset();
  }
  TensorPtr take() {  // for tearing a graph down (delete_node)
    if (tensor_) tensor_->storage->remove_saved_ref();
    return std::move(tensor_);
  }
  bool defined() const { return saved_; }

 private:
  TensorPtr tensor_;
  uint64_t version_ = 0;
  bool saved_ = false;
  std::weak_ptr<Node> grad_fn_;  // outputs only
  uint32_t output_nr_ = 0;
  bool is_output_ = false;
};

// [[book:node]]
struct Node {
  std::vector<Edge> next_edges;   // one per input of the forward op
  uint32_t num_outputs = 1;       // gradients this node receives
  uint64_t sequence_nr = 0;       // creation order: later nodes run first
  bool released = false;          // saved tensors freed by a backward without retain_graph
  // The formula holds no tensors (neg's): nothing is freed, so a second
  // backward through the node works without retain_graph, as in PyTorch.
  bool stateless = false;
  // Hooks on the gradient of one output (register_hook of non-leaves), in
  // registration order; then the retain_grad hooks, which always run last so
  // .grad holds what the other hooks made of the gradient (PyTorch's order).
  std::vector<std::pair<uint32_t, GradHook>> pre_hooks;
  std::vector<std::pair<uint32_t, GradHook>> retain_grad_hooks;

  Node();
  virtual ~Node() = default;
  virtual std::string name() const = 0;
  virtual TensorList apply(TensorList&& grads) = 0;
  virtual void release_saved() {}
};
// [[/book:node]]

// The per-tensor autograd state (Tensor::autograd). Absent (null) on tensors
// that neither require grad nor came out of a recorded op.
struct AutogradMeta {
  bool requires_grad = false;
  TensorPtr grad;
  std::shared_ptr<Node> grad_fn;          // null for leaves
  uint32_t output_nr = 0;                 // which output of grad_fn this tensor is
  std::weak_ptr<Node> grad_accumulator;   // leaves: their AccumulateGrad, kept weakly (no cycle)
  std::vector<GradHook> hooks;            // leaves: run on the gradient before accumulation
  // Leaves: run after the gradient is added into .grad (register_post_accumulate_grad_hook; an
  // optimizer step inside backward reads .grad there and may free it).
  std::vector<std::function<void()>> post_accumulate_hooks;
  bool retains_grad = false;
  // A view (sharing memory) of a leaf that requires grad, directly or through
  // other views: in-place ops on it are refused, as on the leaf itself.
  bool view_of_leaf = false;
};

// Adds gradients into a leaf's .grad.
struct AccumulateGrad : Node {
  explicit AccumulateGrad(TensorPtr variable) : variable(std::move(variable)) { num_outputs = 1; }
  std::string name() const override { return "AccumulateGrad"; }
  TensorList apply(TensorList&& grads) override;
  TensorPtr variable;
};

// Destroys a node without recursion: dropping the last reference to a node
// drops its edges, which may destroy the next node, and so on down a chain;
// done by nested destructors that would overflow the stack on a long graph
// (about 10^6 nodes). This deleter unlinks the nodes that would die with it
// and destroys them one by one from a work list. Every node is owned through it.
void delete_node(Node* node);

// Adds g into a leaf's (or retain_grad tensor's) .grad. The first gradient is
// kept as is only when nothing else can see its memory; otherwise it is
// copied, so a later in-place accumulation can never write into a user's
// gradient argument, a broadcast (stride 0) view or a sibling's gradient.
void accumulate_into_grad(AutogradMeta& m, TensorPtr g);

bool requires_grad(const TensorPtr& t);
AutogradMeta& meta(const TensorPtr& t);  // creates it on first use
// The edge through which t's gradient flows: its grad_fn, or the leaf's accumulator.
Edge gradient_edge(const TensorPtr& t);
void set_requires_grad(const TensorPtr& t, bool value);

}  // namespace aakaar::autograd
