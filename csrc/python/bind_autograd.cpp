// Autograd on the Python side: Tensor.requires_grad/grad/grad_fn/backward,
// grad mode, autograd.grad, and graph nodes as read-only objects.
#include <cstdint>
#include <deque>
#include <string>
#include <unordered_map>

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

// ---- grad_fn as PyTorch shows it -------------------------------------------------------------
// PyTorch names a node's class after its formula, with an overload number (MulBackward0,
// SumBackward1, ...), and t.grad_fn.name() is that name; leaves are reached through
// AccumulateGrad nodes whose name() is "torch::autograd::AccumulateGrad". aakaar's C++ nodes keep
// their short names (error messages and the book use them); Python sees PyTorch's.
// Nodes recorded by aakaar.autograd.Function keep their own name ("MyFnBackward"), as in PyTorch.
std::string torch_node_name(const Node& n) {
  if (dynamic_cast<const autograd::AccumulateGrad*>(&n)) return "torch::autograd::AccumulateGrad";
  const auto* fn = dynamic_cast<const autograd::FunctionNode*>(&n);
  std::string name = n.name();
  if (fn && fn->user_defined) return name;
  // Where aakaar's node covers what PyTorch names differently; the others take PyTorch's first
  // overload number (a name that already ends in one, such as SumBackward1, is kept).
  static const std::unordered_map<std::string, std::string> renamed = {
      {"Log1pBackward", "Log1PBackward0"}, {"ToDeviceBackward", "ToCopyBackward0"},
      {"SquareBackward", "PowBackward0"},  {"ClampBackward", "ClampBackward1"},
  };
  if (auto it = renamed.find(name); it != renamed.end()) return it->second;
  if (!name.empty() && (name.back() < '0' || name.back() > '9')) name += '0';
  return name;
}

// The Python class named `name` (a subclass of _C.autograd.Node with the same layout, so an
// existing node object can be switched to it), made once per name and kept for the process.
PyObject* node_class(const std::string& name) {
  static std::unordered_map<std::string, PyObject*> classes;
  static std::deque<std::string> type_names;  // a type's tp_name must outlive it (Python < 3.12 keeps the pointer)
  if (auto it = classes.find(name); it != classes.end()) return it->second;
  PyObject* base = py::type::of<Node>().ptr();
  type_names.push_back("aakaar._C.autograd." + name);  // the module of Node itself
  PyType_Slot slots[] = {{0, nullptr}};
  // No Py_TPFLAGS_HAVE_GC and no slots of its own: the same allocator, deallocator and size as
  // the base, which is what __class__ assignment requires.
  PyType_Spec spec{type_names.back().c_str(), 0, 0, Py_TPFLAGS_DEFAULT, slots};
  py::tuple bases = py::make_tuple(py::handle(base));
#if PY_VERSION_HEX >= 0x030C0000
  PyObject* cls = PyType_FromMetaclass(Py_TYPE(base), nullptr, &spec, bases.ptr());
#else
  PyObject* cls = PyType_FromSpecWithBases(&spec, bases.ptr());
#endif
  if (!cls) throw py::error_already_set();
  classes.emplace(name, cls);
  return cls;
}

// grad_fn and next_functions hand out nodes through this: the object's class is the node's
// PyTorch name, so type(t.grad_fn).__name__ == "MulBackward0".
py::object node_object(const std::shared_ptr<Node>& n) {
  if (!n) return py::none();
  py::object obj = py::cast(n);
  const std::string name = torch_node_name(*n);
  PyObject* cls = node_class(dynamic_cast<const autograd::AccumulateGrad*>(n.get()) ? "AccumulateGrad" : name);
  if (reinterpret_cast<PyObject*>(Py_TYPE(obj.ptr())) != cls &&
      PyObject_SetAttrString(obj.ptr(), "__class__", cls) != 0)
    throw py::error_already_set();
  return obj;
}

}  // namespace

void bind_custom_function(py::module_& ag);  // bind_custom_function.cpp

void bind_autograd(py::module_& m) {
  auto cls = py::reinterpret_borrow<py::class_<Tensor, TensorPtr>>(m.attr("Tensor"));
  py::module_ ag = m.def_submodule("autograd", "The C++ autograd engine.");

  py::class_<Node, std::shared_ptr<Node>>(ag, "Node", "A recorded operation in the graph (tensor.grad_fn).")
      .def("name", [](const Node& n) { return torch_node_name(n); }, "PyTorch's name of this node (MulBackward0).")
      .def("_aakaar_name", &Node::name, "aakaar's own name of this node (as in its error messages).")
      .def_property_readonly("next_functions", [](const Node& n) {
        py::list out;
        for (const auto& e : n.next_edges) out.append(py::make_tuple(node_object(e.fn), e.input_nr));
        return py::tuple(out);
      }, "(node, input_nr) for each input: where this node sends gradients.")
      .def_property_readonly("variable", [](const Node& n) -> TensorPtr {
        const auto* acc = dynamic_cast<const autograd::AccumulateGrad*>(&n);
        if (!acc) throw py::attribute_error("'" + torch_node_name(n) + "' object has no attribute 'variable'");
        return acc->variable;
      }, "AccumulateGrad nodes: the leaf tensor they accumulate into.")
      .def("__repr__", [](py::handle self) {
        return py::str("<{} object at {}>").format(py::type::handle_of(self).attr("__name__"),
                                                   py::str("0x{:x}").format(reinterpret_cast<std::uintptr_t>(self.ptr())));
      });

  bind_custom_function(ag);
  ag.def("_rename_node", [](const TensorPtr& t, const std::string& from, const std::string& to) {
    autograd::rename_node(t, from.c_str(), to.c_str());
  }, py::arg("tensor"), py::arg("from_name"), py::arg("to_name"),
     "Python composites (t(), max()): names the fresh node that made `tensor` as PyTorch names the op.");
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
        return node_object(t->autograd->grad_fn);
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
