// aakaar.autograd.Function: a node whose backward is a Python function.
//
// The Python class (aakaar/autograd/function.py) runs the user's forward under
// no_grad, then calls _record_function here to put one node in the graph: its
// edges go to the tensor inputs that require grad, the tensors the user saved are
// SavedTensors (so an in-place change to one is caught by its version counter,
// as for every built-in op), and its formula calls back into Python. The node is
// an ordinary FunctionNode made by autograd::record: the engine does not know
// that its formula is Python.
#include "autograd/derivatives.h"
#include "autograd/function.h"
#include "core/error.h"
#include "python/convert.h"

namespace py = pybind11;
using namespace aakaar;

namespace {

// A Python callable kept by a C++ lambda. Nodes are released by the engine (after
// backward) and by the last tensor of a graph going away: the reference is dropped
// with the GIL held, whoever drops it.
struct PyCallable {
  py::object fn;
  explicit PyCallable(py::object f) : fn(std::move(f)) {}
  PyCallable(const PyCallable&) = delete;
  PyCallable& operator=(const PyCallable&) = delete;
  ~PyCallable() {
    py::gil_scoped_acquire gil;
    fn = py::object();
  }
};

autograd::TensorList optional_tensors(const py::sequence& items) {
  autograd::TensorList out;
  out.reserve(items.size());
  for (py::handle item : items) out.push_back(item.is_none() ? nullptr : item.cast<TensorPtr>());
  return out;
}

// The gradients a Python backward returned, checked as PyTorch checks them: one per
// input (extra ones must be None), each a tensor of the input's shape, or of a shape
// the input broadcasts to (then summed back to the input's shape).
autograd::TensorList checked_gradients(const std::string& name, py::handle result,
                                       const std::vector<Shape>& input_shapes) {
  py::tuple grads = py::isinstance<py::tuple>(result) ? py::reinterpret_borrow<py::tuple>(result)
                                                      : py::make_tuple(result);
  const size_t n = input_shapes.size();
  AK_CHECK(grads.size() >= n, RuntimeError, "function ", name, " returned an incorrect number of gradients (expected ",
           n, ", got ", grads.size(), ")");
  for (size_t i = n; i < grads.size(); ++i)
    AK_CHECK(grads[i].is_none(), RuntimeError, "function ", name,
             " returned an incorrect number of gradients (expected ", n, ", got ", grads.size(), ")");
  autograd::TensorList out(n);
  for (size_t i = 0; i < n; ++i) {
    py::handle g = grads[i];
    if (g.is_none()) continue;
    AK_CHECK(py::isinstance<Tensor>(g), TypeError, "function ", name, " returned a ",
             py::str(py::type::handle_of(g).attr("__name__")).cast<std::string>(), " as gradient ", i,
             "; expected a Tensor or None");
    TensorPtr t = g.cast<TensorPtr>();
    if (t->shape != input_shapes[i]) {
      bool expandable = input_shapes[i].size() <= t->shape.size();
      for (size_t d = 0; expandable && d < input_shapes[i].size(); ++d) {
        const int64_t want = input_shapes[i][input_shapes[i].size() - 1 - d], got = t->shape[t->shape.size() - 1 - d];
        expandable = want == got || want == 1;
      }
      AK_CHECK(expandable, RuntimeError, "function ", name, " returned an invalid gradient at index ", i, " - got ",
               shape_str(t->shape), " but expected shape compatible with ", shape_str(input_shapes[i]));
      t = autograd::sum_to(t, input_shapes[i]);
    }
    out[i] = t;
  }
  return out;
}

}  // namespace

void bind_custom_function(py::module_& ag) {
  ag.def("_record_function", [](const std::string& name, py::sequence inputs, py::sequence outputs,
                                py::sequence saved, py::object backward) {
    const autograd::TensorList ins = optional_tensors(inputs), outs = optional_tensors(outputs);
    std::vector<Shape> shapes;
    for (const TensorPtr& t : ins) shapes.push_back(t ? t->shape : Shape{});
    auto callable = std::make_shared<PyCallable>(std::move(backward));
    // The node's name outlives this call: record keeps a std::string copy.
    autograd::record(name.c_str(), ins, outs, optional_tensors(saved),
                     [callable, name, shapes](const autograd::TensorList& grads, const autograd::TensorList& saved,
                                              const autograd::Needs& needs) {
                       py::gil_scoped_acquire gil;
                       py::tuple g(grads.size()), s(saved.size()), n(needs.size());
                       for (size_t i = 0; i < grads.size(); ++i) g[i] = py::cast(grads[i]);
                       for (size_t i = 0; i < saved.size(); ++i) s[i] = saved[i] ? py::cast(saved[i]) : py::none();
                       for (size_t i = 0; i < needs.size(); ++i) n[i] = py::bool_(needs[i]);
                       py::object result = callable->fn(g, s, n);
                       return checked_gradients(name, result, shapes);
                     });
    for (const TensorPtr& t : outs)  // PyTorch names a custom Function's node as the user did
      if (t && t->autograd && t->autograd->grad_fn)
        if (auto* fn = dynamic_cast<autograd::FunctionNode*>(t->autograd->grad_fn.get())) fn->user_defined = true;
  }, py::arg("name"), py::arg("inputs"), py::arg("outputs"), py::arg("saved"), py::arg("backward"),
     "Records one node for aakaar.autograd.Function: `outputs` (fresh tensors) get it as grad_fn; in backward it "
     "calls backward(grads, saved, needs_input_grad) and checks what comes back.");
}
