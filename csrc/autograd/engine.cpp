// The backward engine: dependency counting over the recorded graph, then
// nodes run in an order where each one has received every gradient it will
// get. Iterative (a work list, never recursion), so a 100,000-node chain is
// fine.
#include <queue>
#include <unordered_map>

#include "autograd/function.h"
#include "core/error.h"
#include "ops/ops.h"

namespace aakaar::autograd {

namespace {
thread_local bool g_grad_enabled = true;
uint64_t g_next_sequence_nr = 0;

std::string describe(const TensorPtr& t) {
  return str("[", dtype_name(t->dtype), " ", shape_str(t->shape), "]");
}
}  // namespace

bool grad_enabled() { return g_grad_enabled; }
void set_grad_enabled(bool enabled) { g_grad_enabled = enabled; }

Node::Node() : sequence_nr(g_next_sequence_nr++) {}

// [[book:saved_tensor_unpack]]
SavedTensor::SavedTensor(const TensorPtr& t, const std::shared_ptr<Node>& output_of, uint32_t output_nr)
    : saved_(t != nullptr), grad_fn_(output_of), output_nr_(output_nr), is_output_(output_of != nullptr) {
  if (!t) return;
  tensor_ = std::make_shared<Tensor>(t->storage, t->offset, t->shape, t->strides, t->dtype);
  // An input keeps its history (create_graph differentiates through it); an
  // output gets it back from the weak grad_fn_ when unpacked. A non-leaf's
  // history is copied as it is now: an in-place op may later give the tensor
  // a new one, which may come from this very node (y.mul_(y)), and sharing it
  // would make a cycle. A leaf's state is shared (its .grad and accumulator).
  if (!is_output_ && t->autograd && t->autograd->grad_fn) {
    auto m = std::make_shared<AutogradMeta>();
    m->requires_grad = t->autograd->requires_grad;
    m->grad_fn = t->autograd->grad_fn;
    m->output_nr = t->autograd->output_nr;
    tensor_->autograd = std::move(m);
  } else if (!is_output_) {
    tensor_->autograd = t->autograd;
  }
  version_ = t->storage->version();
  t->storage->add_saved_ref();
}

TensorPtr SavedTensor::unpack(const char* node_name) const {
  if (!saved_) return nullptr;
  AK_CHECK(tensor_ != nullptr, RuntimeError,
           "Trying to backward through the graph a second time (or directly access saved tensors after they have "
           "already been freed). Saved intermediate values of the graph are freed when you call .backward() or "
           "autograd.grad(). Specify retain_graph=True if you need to backward through the graph a second time.");
  AK_CHECK(tensor_->storage->version() == version_, RuntimeError,
           "one of the variables needed for gradient computation has been modified by an inplace operation: ",
           describe(tensor_), ", which was saved by ", node_name, ", is at version ", tensor_->storage->version(),
           "; expected version ", version_, " instead. Hint: the tensor was changed in place after ", node_name,
           " saved it for backward; use the out-of-place op (x = x + 1, not x.add_(1)) or modify a .clone().");
  if (!is_output_) return tensor_;
  std::shared_ptr<Node> fn = grad_fn_.lock();  // alive: it is the node unpacking
  if (!fn) return tensor_;
  TensorPtr out = std::make_shared<Tensor>(tensor_->storage, tensor_->offset, tensor_->shape, tensor_->strides,
                                           tensor_->dtype);
  AutogradMeta& m = meta(out);
  m.requires_grad = true;
  m.grad_fn = std::move(fn);
  m.output_nr = output_nr_;
  return out;
}
// [[/book:saved_tensor_unpack]]

bool requires_grad(const TensorPtr& t) { return t && t->autograd && t->autograd->requires_grad; }

AutogradMeta& meta(const TensorPtr& t) {
  if (!t->autograd) t->autograd = std::make_shared<AutogradMeta>();
  return *t->autograd;
}

void set_requires_grad(const TensorPtr& t, bool value) {
  if (value)
    AK_CHECK(is_floating(t->dtype), RuntimeError, "Only Tensors of floating point dtype can require gradients (got ",
             dtype_name(t->dtype), ")");
  AK_CHECK(!(t->autograd && t->autograd->grad_fn), RuntimeError,
           "you can only change requires_grad flags of leaf tensors; this one was produced by ",
           t->autograd ? t->autograd->grad_fn->name() : std::string("?"),
           ". Use .detach() to get a leaf.");
  if (!value && !t->autograd) return;
  meta(t).requires_grad = value;
}

Edge gradient_edge(const TensorPtr& t) {
  AutogradMeta& m = meta(t);
  if (m.grad_fn) return Edge{m.grad_fn, m.output_nr};
  std::shared_ptr<Node> acc = m.grad_accumulator.lock();
  if (!acc) {
    acc = std::make_shared<AccumulateGrad>(t);
    m.grad_accumulator = acc;
  }
  return Edge{acc, 0};
}

// [[book:accumulate_grad]]
namespace {
// Whether g's memory is g's alone: no other tensor object, view or saved
// value refers to it, and it has no overlapping (stride 0) elements.
bool owns_memory(const TensorPtr& g) {
  return g.use_count() == 1 && g->storage.use_count() == 1 && g->is_contiguous();
}
}  // namespace

void accumulate_into_grad(AutogradMeta& m, TensorPtr g) {
  if (!m.grad) {
    // create_graph: keep g itself, history included, so it can be differentiated.
    m.grad = (grad_enabled() || owns_memory(g)) ? std::move(g) : ops::clone(g);
  } else if (grad_enabled() || requires_grad(m.grad) || !m.grad->is_contiguous()) {
    // Out of place: keeps the sum differentiable under create_graph, and
    // never writes into a .grad that is part of a graph or a strided view.
    m.grad = ops::binary(BinaryOp::Add, m.grad, g);
  } else {
    ops::binary_(BinaryOp::Add, m.grad, g);
  }
}

TensorList AccumulateGrad::apply(TensorList&& grads) {
  TensorPtr g = std::move(grads[0]);
  if (!g) return {};
  AutogradMeta& m = meta(variable);
  for (const auto& hook : m.hooks) {
    TensorPtr replaced = hook(g);
    if (replaced) g = replaced;
  }
  AK_CHECK(g->shape == variable->shape, RuntimeError, "gradient of shape ", shape_str(g->shape),
           " does not match the leaf tensor of shape ", shape_str(variable->shape));
  if (g->dtype != variable->dtype) g = ops::to_dtype(g, variable->dtype);
  accumulate_into_grad(m, std::move(g));
  // A copy: a hook may register another one (which runs from the next backward on).
  for (const auto& hook : std::vector<std::function<void()>>(m.post_accumulate_hooks)) hook();
  return {};
}
// [[/book:accumulate_grad]]

void delete_node(Node* node) {
  std::vector<std::shared_ptr<Node>> doomed;
  // Moves out of n every node reference that is the last one, so destroying
  // n no longer reaches them; they are destroyed from the work list instead.
  auto unlink = [&doomed](Node* n) {
    for (Edge& e : n->next_edges)
      if (e.fn && e.fn.use_count() == 1) doomed.push_back(std::move(e.fn));
    n->next_edges.clear();
    if (auto* f = dynamic_cast<FunctionNode*>(n)) {
      // A saved input holds its own grad_fn: the chain also runs through saved tensors.
      for (SavedTensor& s : f->saved) {
        TensorPtr t = s.take();
        if (t && t.use_count() == 1 && t->autograd && t->autograd.use_count() == 1 && t->autograd->grad_fn &&
            t->autograd->grad_fn.use_count() == 1)
          doomed.push_back(std::move(t->autograd->grad_fn));
      }
    }
    n->release_saved();
  };
  unlink(node);
  delete node;
  while (!doomed.empty()) {
    std::shared_ptr<Node> n = std::move(doomed.back());
    doomed.pop_back();
    unlink(n.get());
  }  // n is destroyed here with nothing left to cascade into
}

bool should_record(const std::vector<TensorPtr>& inputs) {
  if (!grad_enabled()) return false;
  for (const auto& t : inputs)
    if (requires_grad(t)) return true;
  return false;
}

TensorPtr detach(const TensorPtr& t) {
  return std::make_shared<Tensor>(t->storage, t->offset, t->shape, t->strides, t->dtype);
}

// [[book:record]]
void record(const char* name, const TensorList& inputs, const TensorList& outputs, const TensorList& to_save,
            Formula formula) {
  std::shared_ptr<FunctionNode> node(new FunctionNode(), [](FunctionNode* n) { delete_node(n); });
  node->op_name = name;
  node->num_outputs = static_cast<uint32_t>(outputs.size());
  node->next_edges.reserve(inputs.size());
  for (const auto& in : inputs) node->next_edges.push_back(requires_grad(in) ? gradient_edge(in) : Edge{});
  for (const auto& s : to_save) {
    // A saved (floating) output is kept without history and refers to the node
    // weakly: holding the output itself would make a cycle (output -> grad_fn ->
    // saved output). See SavedTensor.
    int64_t output_nr = -1;
    for (size_t i = 0; i < outputs.size(); ++i)
      if (s && s == outputs[i] && is_floating(s->dtype)) output_nr = static_cast<int64_t>(i);
    if (output_nr >= 0)
      node->saved.emplace_back(s, node, static_cast<uint32_t>(output_nr));
    else
      node->saved.emplace_back(s);
  }
  node->formula = std::move(formula);
  node->device = outputs.empty() ? Device{} : outputs[0]->device();
  for (size_t i = 0; i < outputs.size(); ++i) {
    const TensorPtr& out = outputs[i];
    node->output_shapes.push_back(out->shape);
    node->output_dtypes.push_back(out->dtype);
    if (!is_floating(out->dtype)) continue;  // integer outputs (indices) carry no gradient
    AutogradMeta& m = meta(out);
    m.requires_grad = true;
    m.grad_fn = node;
    m.output_nr = static_cast<uint32_t>(i);
  }
}
// [[/book:record]]

TensorList FunctionNode::apply(TensorList&& grads) {
  AK_CHECK(!released && formula, RuntimeError,
           "Trying to backward through the graph a second time (or directly access saved tensors after they have "
           "already been freed). Saved intermediate values of the graph are freed when you call .backward() or "
           "autograd.grad(). Specify retain_graph=True if you need to backward through the graph a second time. "
           "(node: ", op_name, ")");
  for (size_t i = 0; i < grads.size(); ++i) {
    if (!grads[i]) {
      grads[i] = ops::full(output_shapes[i], Scalar::from_int(0), output_dtypes[i], device);
    } else if (grads[i]->dtype != output_dtypes[i]) {
      // A gradient of another dtype (backward(gradient=float64) on a float32 output, or
      // a hook's result): formulas read their gradient as the output's dtype, as torch's do.
      grads[i] = ops::to_dtype(grads[i], output_dtypes[i]);
    }
  }
  TensorList unpacked;
  unpacked.reserve(saved.size());
  for (const auto& s : saved) unpacked.push_back(s.unpack(op_name.c_str()));
  Needs needs(next_edges.size());
  for (size_t i = 0; i < next_edges.size(); ++i) needs[i] = next_edges[i].valid();
  TensorList out = formula(grads, unpacked, needs);
  out.resize(next_edges.size());
  return out;
}

TensorList run_backward(const TensorList& roots, const TensorList& grad_roots, bool retain_graph, bool create_graph,
                        const TensorList& inputs, bool allow_unused) {
  AK_CHECK(grad_roots.size() == roots.size(), ValueError, "backward: got ", grad_roots.size(),
           " gradients for ", roots.size(), " tensors");
  // Root edges and their starting gradients.
  std::vector<std::pair<Edge, TensorPtr>> starts;
  for (size_t i = 0; i < roots.size(); ++i) {
    const TensorPtr& r = roots[i];
    AK_CHECK(requires_grad(r), RuntimeError, "element ", i,
             " of tensors does not require grad and does not have a grad_fn");
    TensorPtr g = grad_roots[i];
    if (!g) {
      AK_CHECK(r->numel() == 1, RuntimeError, "grad can be implicitly created only for scalar outputs; got a tensor "
               "of shape ", shape_str(r->shape), " (pass gradient=...)");
      g = ops::full(r->shape, Scalar::from_int(1), r->dtype, r->device());
    } else {
      AK_CHECK(g->shape == r->shape, RuntimeError, "backward: gradient of shape ", shape_str(g->shape),
               " does not match the tensor's shape ", shape_str(r->shape));
    }
    starts.push_back({gradient_edge(r), g});
  }
  // autograd.grad: capture the gradient flowing into each input's edge.
  struct Capture { Node* node; uint32_t nr; size_t index; };
  std::vector<Capture> captures;
  for (size_t i = 0; i < inputs.size(); ++i) {
    AK_CHECK(requires_grad(inputs[i]), RuntimeError, "autograd.grad: input ", i, " does not require grad");
    Edge e = gradient_edge(inputs[i]);
    captures.push_back({e.fn.get(), e.input_nr, i});
  }
  const bool capture_mode = !inputs.empty();
  TensorList captured(inputs.size());

  // [[book:dependency_count]]
  // Count, for every node reachable from the roots, how many edges lead into it.
  std::unordered_map<Node*, int> deps;
  std::unordered_map<Node*, std::shared_ptr<Node>> keep;  // nodes alive while we run
  std::vector<Node*> stack;
  for (auto& s : starts)
    if (!keep.count(s.first.fn.get())) {
      keep[s.first.fn.get()] = s.first.fn;
      stack.push_back(s.first.fn.get());
    }
  while (!stack.empty()) {
    Node* n = stack.back();
    stack.pop_back();
    for (const Edge& e : n->next_edges) {
      if (!e.valid()) continue;
      Node* next = e.fn.get();
      if (deps[next]++ == 0 && !keep.count(next)) {
        keep[next] = e.fn;
        stack.push_back(next);
      }
    }
  }
  // [[/book:dependency_count]]

  GradModeGuard mode(create_graph);
  std::unordered_map<Node*, TensorList> buffers;
  auto add_to_buffer = [&](Node* n, uint32_t nr, TensorPtr g) {
    TensorList& buf = buffers[n];
    if (buf.size() < n->num_outputs) buf.resize(n->num_outputs);
    buf[nr] = buf[nr] ? ops::binary(BinaryOp::Add, buf[nr], g) : std::move(g);
  };
  for (auto& s : starts) add_to_buffer(s.first.fn.get(), s.first.input_nr, s.second);

  // [[book:engine_loop]]
  auto later_first = [](Node* a, Node* b) { return a->sequence_nr < b->sequence_nr; };
  std::priority_queue<Node*, std::vector<Node*>, decltype(later_first)> ready(later_first);
  for (auto& kv : keep)
    if (deps[kv.first] == 0) ready.push(kv.first);

  while (!ready.empty()) {
    Node* n = ready.top();
    ready.pop();
    TensorList grads = std::move(buffers[n]);
    buffers.erase(n);
    grads.resize(n->num_outputs);
    for (auto* hooks : {&n->pre_hooks, &n->retain_grad_hooks})
      for (auto& [nr, hook] : *hooks)
        if (grads[nr]) {
          TensorPtr replaced = hook(grads[nr]);
          if (replaced) grads[nr] = replaced;
        }
    auto* leaf_acc = dynamic_cast<AccumulateGrad*>(n);
    const bool is_leaf_acc = leaf_acc != nullptr;
    for (const Capture& c : captures)
      if (c.node == n && grads[c.nr]) {
        // A leaf's hooks run on its gradient whether it is accumulated or
        // returned by autograd.grad (PyTorch's rule); a non-leaf's ran above.
        if (is_leaf_acc)
          for (const auto& hook : meta(leaf_acc->variable).hooks)
            if (TensorPtr replaced = hook(grads[c.nr])) grads[c.nr] = replaced;
        captured[c.index] = grads[c.nr];
      }
    TensorList outs;
    if (!(capture_mode && is_leaf_acc)) {
      bool any = false;
      for (auto& g : grads) any |= g != nullptr;
      if (any) outs = n->apply(std::move(grads));
      if (!retain_graph) {
        n->release_saved();
        if (!is_leaf_acc && !n->stateless) n->released = true;
      }
    }
    for (size_t i = 0; i < n->next_edges.size(); ++i) {
      const Edge& e = n->next_edges[i];
      if (!e.valid()) continue;
      if (i < outs.size() && outs[i]) add_to_buffer(e.fn.get(), e.input_nr, std::move(outs[i]));
      if (--deps[e.fn.get()] == 0) ready.push(e.fn.get());
    }
  }
  // [[/book:engine_loop]]
  if (capture_mode && !allow_unused)
    for (size_t i = 0; i < captured.size(); ++i)
      AK_CHECK(captured[i] != nullptr, RuntimeError, "autograd.grad: input ", i,
               " was not used in the graph of the outputs (pass allow_unused=True to get None for it)");
  return captured;
}

}  // namespace aakaar::autograd
