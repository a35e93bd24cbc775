// Autograd on the Python side: Tensor.requires_grad/grad/grad_fn/backward,
// grad mode, autograd.grad, and graph nodes as read-only objects.
#include "autograd/function.h"
#include "core/error.h"
#include "ops/ops.h"
#include "python/convert.h"

namespace py = pybind11;
using namespace aakaar;
using autograd::AutogradMeta;
using autograd::Node;

namespace {

autograd::GradHook wrap_hook(py::function fn) {
  return [fn](const TensorPtr& g) -> TensorPtr {
    py::object r = fn(g);
    if (r.is_none()) return nullptr;
    if (!py::isinstance<Tensor>(r)) throw TypeError("a gradient hook must return a Tensor or None");
    return r.cast<TensorPtr>();
  };
}

autograd::TensorList optional_list(py::handle h, size_t n) {
  autograd::TensorList out(n);
  if (h.is_none()) return out;
  if (py::isinstance<Tensor>(h)) {
    out[0] = h.cast<TensorPtr>();
    return out;
  }
  size_t i = 0;
  for (py::handle item : h) {
    AK_CHECK(i < n, ValueError, "got more gradients than tensors");
    out[i++] = item.is_none() ? nullptr : item.cast<TensorPtr>();
  }
  AK_CHECK(i == n, ValueError, "got ", i, " gradients for ", n, " tensors");
  return out;
}

autograd::TensorList tensor_list(py::handle h) {
  if (py::isinstance<Tensor>(h)) return {h.cast<TensorPtr>()};
  autograd::TensorList out;
  for (py::handle item : h) out.push_back(item.cast<TensorPtr>());
  return out;
}

}  // namespace

void bind_custom_function(py::module_& ag);  // bind_custom_function.cpp

void bind_autograd(py::module_& m) {
  auto cls = py::reinterpret_borrow<py::class_<Tensor, TensorPtr>>(m.attr("Tensor"));
  py::module_ ag = m.def_submodule("autograd", "The C++ autograd engine.");

  py::class_<Node, std::shared_ptr<Node>>(ag, "Node", "A recorded operation in the graph (tensor.grad_fn).")
      .def("name", &Node::name)
      .def_property_readonly("next_functions", [](const Node& n) {
        py::list out;
        for (const auto& e : n.next_edges) out.append(py::make_tuple(e.fn ? py::cast(e.fn) : py::none(), e.input_nr));
        return py::tuple(out);
      }, "(node, input_nr) for each input: where this node sends gradients.")
      .def("__repr__", [](const Node& n) { return "<" + n.name() + ">"; });

  bind_custom_function(ag);
  ag.def("is_grad_enabled", &autograd::grad_enabled, "Whether ops record the graph.");
  ag.def("set_grad_enabled", &autograd::set_grad_enabled, py::arg("mode"), "Turns graph recording on or off.");
  ag.def("backward", [](py::object tensors, py::object grads, bool retain_graph, bool create_graph) {
    auto roots = tensor_list(tensors);
    autograd::run_backward(roots, optional_list(grads, roots.size()), retain_graph, create_graph);
  }, py::arg("tensors"), py::arg("grad_tensors") = py::none(), py::arg("retain_graph") = false,
     py::arg("create_graph") = false, "Accumulates gradients of `tensors` into the .grad of the leaves.");
  ag.def("grad", [](py::object outputs, py::object inputs, py::object grads, bool retain_graph, bool create_graph,
                    bool allow_unused) {
    auto outs = tensor_list(outputs);
    auto res = autograd::run_backward(outs, optional_list(grads, outs.size()), retain_graph, create_graph,
                                      tensor_list(inputs), allow_unused);
    py::tuple t(res.size());
    for (size_t i = 0; i < res.size(); ++i) t[i] = res[i] ? py::cast(res[i]) : py::none();
    return t;
  }, py::arg("outputs"), py::arg("inputs"), py::arg("grad_outputs") = py::none(), py::arg("retain_graph") = false,
     py::arg("create_graph") = false, py::arg("allow_unused") = false,
     "Gradients of `outputs` with respect to `inputs`, returned instead of accumulated.");

  // Tensor(t): a new tensor object sharing t's memory, with no history. This
  // is what Python subclasses (nn.Parameter) call from their __init__.
  cls.def(py::init([](const TensorPtr& t) { return autograd::detach(t); }), py::arg("data"));
  cls.def_property("requires_grad", [](const TensorPtr& t) { return autograd::requires_grad(t); },
                   [](const TensorPtr& t, bool v) { autograd::set_requires_grad(t, v); },
                   "Whether gradients are computed for this tensor.")
      .def("requires_grad_", [](const TensorPtr& t, bool v) { autograd::set_requires_grad(t, v); return t; },
           py::arg("requires_grad") = true)
      .def_property("grad", [](const TensorPtr& t) -> py::object {
        if (!t->autograd || !t->autograd->grad) return py::none();
        return py::cast(t->autograd->grad);
      }, [](const TensorPtr& t, py::object g) {
        if (g.is_none()) {
          if (t->autograd) t->autograd->grad = nullptr;
          return;
        }
        TensorPtr gt = g.cast<TensorPtr>();
        AK_CHECK(gt->shape == t->shape, RuntimeError, "assigned grad has shape ", shape_str(gt->shape),
                 " but the tensor has shape ", shape_str(t->shape));
        autograd::meta(t).grad = gt;
      }, "The accumulated gradient (leaves, and non-leaves after retain_grad()).")
      .def_property_readonly("grad_fn", [](const TensorPtr& t) -> py::object {
        if (!t->autograd || !t->autograd->grad_fn) return py::none();
        return py::cast(t->autograd->grad_fn);
      }, "The node that produced this tensor (None for leaves).")
      .def_property_readonly("is_leaf", [](const TensorPtr& t) { return !(t->autograd && t->autograd->grad_fn); })
      .def_property_readonly("output_nr", [](const TensorPtr& t) -> uint32_t {
        return t->autograd && t->autograd->grad_fn ? t->autograd->output_nr : 0;
      }, "Which output of grad_fn this tensor is (0 for leaves).")
      .def_property_readonly("retains_grad", [](const TensorPtr& t) { return t->autograd && t->autograd->retains_grad; })
      .def("retain_grad", [](const TensorPtr& t) {
        AK_CHECK(autograd::requires_grad(t), RuntimeError, "can't retain_grad on a tensor that has requires_grad=False");
        AutogradMeta& m = autograd::meta(t);
        if (!m.grad_fn || m.retains_grad) return;  // leaves keep .grad anyway
        m.retains_grad = true;
        std::weak_ptr<Tensor> weak = t;
        m.grad_fn->retain_grad_hooks.push_back({m.output_nr, [weak](const TensorPtr& g) -> TensorPtr {
          if (auto self = weak.lock()) {
            AutogradMeta& sm = autograd::meta(self);
            sm.grad = sm.grad ? ops::binary(BinaryOp::Add, sm.grad, g) : ops::clone(g);
          }
          return nullptr;
        }});
      }, "Keeps .grad for this non-leaf tensor after backward.")
      .def("register_hook", [](const TensorPtr& t, py::function fn) {
        AK_CHECK(autograd::requires_grad(t), RuntimeError,
                 "cannot register a hook on a tensor that doesn't require gradient");
        AutogradMeta& m = autograd::meta(t);
        if (m.grad_fn) m.grad_fn->pre_hooks.push_back({m.output_nr, wrap_hook(fn)});
        else m.hooks.push_back(wrap_hook(fn));
      }, py::arg("hook"), "Calls hook(grad) when this tensor's gradient is computed; a returned tensor replaces it.")
      .def("_register_post_accumulate_grad_hook", [](const TensorPtr& t, py::function fn) {
        AK_CHECK(autograd::requires_grad(t), RuntimeError,
                 "cannot register a hook on a tensor that doesn't require gradient");
        AutogradMeta& m = autograd::meta(t);
        AK_CHECK(!m.grad_fn, RuntimeError, "post accumulate grad hooks cannot be registered on non-leaf tensors");
        std::weak_ptr<Tensor> weak = t;  // the tensor owns its meta: no cycle
        m.post_accumulate_hooks.push_back([weak, fn]() {
          if (auto self = weak.lock()) fn(self);
        });
      }, py::arg("hook"), "Calls hook(tensor) after a backward has added into this leaf's .grad.")
      .def("detach", &autograd::detach, "The same data, cut from the graph.")
      .def("detach_", [](const TensorPtr& t) {
        // PyTorch's rule: detaching a view in place would cut it from its base's graph
        // while the base still shares its memory (and version counter).
        AK_CHECK(!t->is_view, RuntimeError, "Can't detach views in-place. Use detach() instead.");
        if (t->autograd) {
          t->autograd->grad_fn = nullptr;
          t->autograd->requires_grad = false;
        }
        return t;
      })
      // The in-place view ops (unsqueeze_, t_, transpose_, ...; aakaar/tensor_api.py): this
      // tensor takes the geometry of `view`, a view of it made by the out-of-place op.
      // A tensor in a graph keeps its old shape there, so one requiring grad is refused.
      .def("_set_geometry_", [](const TensorPtr& t, const TensorPtr& view, const char* op) {
        AK_CHECK(view->storage == t->storage, ValueError, op, ": internal error, not a view of self");
        AK_CHECK(!(autograd::requires_grad(t) && autograd::grad_enabled()), RuntimeError, op,
                 ": in-place change of shape of a tensor that requires grad is not supported; use the "
                 "out-of-place form (", op, " without the underscore) or call it under no_grad()");
        t->shape = view->shape;
        t->strides = view->strides;
        t->offset = view->offset;
        return t;
      }, py::arg("view"), py::arg("op"))
      // tensor.data = other (as torch): this tensor now shows other's memory, shape and dtype,
      // keeping its own autograd state (requires_grad, .grad).
      .def("_set_data", [](const TensorPtr& t, const TensorPtr& other) {
        t->storage = other->storage;
        t->shape = other->shape;
        t->strides = other->strides;
        t->offset = other->offset;
        t->dtype = other->dtype;
      }, py::arg("other"))
      .def("_backward", [](const TensorPtr& t, py::object gradient, bool retain_graph, bool create_graph,
                           py::object inputs) {
        autograd::TensorList grads{gradient.is_none() ? nullptr : gradient.cast<TensorPtr>()};
        if (inputs.is_none()) {
          autograd::run_backward({t}, grads, retain_graph, create_graph);
          return;
        }
        // backward(inputs=...): accumulate only into the given leaves.
        auto ins = tensor_list(inputs);
        auto res = autograd::run_backward({t}, grads, retain_graph, create_graph, ins, true);
        for (size_t i = 0; i < ins.size(); ++i)
          if (res[i]) {
            autograd::GradModeGuard mode(create_graph);
            autograd::accumulate_into_grad(autograd::meta(ins[i]), res[i]);
          }
      }, py::arg("gradient") = py::none(), py::arg("retain_graph") = false, py::arg("create_graph") = false,
         py::arg("inputs") = py::none());
}
