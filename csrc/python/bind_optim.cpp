// The fused optimizer step, for aakaar.optim:
//
//   _C.OptimizerKind, _C.OptimizerStep (the hyper-parameters, PyTorch's names),
//   _C._optimizer_step(step, params, grads, states, steps, mu_products, scalars=[])
//   _C._optimizer_step_capturable(..., scalars=[], lr=None)  (capturable=True, on "cuda")
//
// Bindings only: the op is csrc/ops/optimizer.cpp, the CPU kernel csrc/cpu/fused/optimizer.cpp.
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include "ops/optimizer.h"
#include "python/convert.h"

namespace py = pybind11;
using namespace aakaar;

void bind_optim(py::module_& m) {
  py::enum_<OptimizerKind>(m, "OptimizerKind", "The optimizers whose step is one fused elementwise pass.")
      .value("SGD", OptimizerKind::SGD)
      .value("Adam", OptimizerKind::Adam)
      .value("Adagrad", OptimizerKind::Adagrad)
      .value("RMSprop", OptimizerKind::RMSprop)
      .value("Adamax", OptimizerKind::Adamax)
      .value("NAdam", OptimizerKind::NAdam)
      .value("RAdam", OptimizerKind::RAdam)
      .value("Adadelta", OptimizerKind::Adadelta)
      .value("Rprop", OptimizerKind::Rprop)
      .value("ASGD", OptimizerKind::ASGD)
      .value("Lion", OptimizerKind::Lion)
      .value("LAMB", OptimizerKind::LAMB)
      .value("Adafactor", OptimizerKind::Adafactor);
  py::class_<OptimizerStep>(m, "OptimizerStep",
                            "Hyper-parameters of one fused optimizer step (core/backend.h lists which kind reads which).")
      .def(py::init<>())
      .def_readwrite("kind", &OptimizerStep::kind)
      .def_readwrite("lr", &OptimizerStep::lr)
      .def_readwrite("weight_decay", &OptimizerStep::weight_decay)
      .def_readwrite("maximize", &OptimizerStep::maximize)
      .def_readwrite("decoupled_weight_decay", &OptimizerStep::decoupled_weight_decay)
      .def_readwrite("momentum", &OptimizerStep::momentum)
      .def_readwrite("dampening", &OptimizerStep::dampening)
      .def_readwrite("nesterov", &OptimizerStep::nesterov)
      .def_readwrite("first_step", &OptimizerStep::first_step)
      .def_readwrite("beta1", &OptimizerStep::beta1)
      .def_readwrite("beta2", &OptimizerStep::beta2)
      .def_readwrite("eps", &OptimizerStep::eps)
      .def_readwrite("amsgrad", &OptimizerStep::amsgrad)
      .def_readwrite("alpha", &OptimizerStep::alpha)
      .def_readwrite("centered", &OptimizerStep::centered)
      .def_readwrite("rho", &OptimizerStep::rho)
      .def_readwrite("lr_decay", &OptimizerStep::lr_decay)
      .def_readwrite("momentum_decay", &OptimizerStep::momentum_decay)
      .def_readwrite("etaminus", &OptimizerStep::etaminus)
      .def_readwrite("etaplus", &OptimizerStep::etaplus)
      .def_readwrite("step_size_min", &OptimizerStep::step_size_min)
      .def_readwrite("step_size_max", &OptimizerStep::step_size_max)
      .def_readwrite("lambd", &OptimizerStep::lambd)
      .def_readwrite("t0", &OptimizerStep::t0)
      .def_readwrite("beta2_decay", &OptimizerStep::beta2_decay)
      .def_readwrite("d", &OptimizerStep::d)
      .def_readwrite("eps2", &OptimizerStep::eps2);
  m.def("_optimizer_step", &ops::optimizer_step, py::arg("step"), py::arg("params"), py::arg("grads"),
        py::arg("states"), py::arg("steps"), py::arg("mu_products"),
        py::arg("scalars") = std::vector<TensorList>{},
        "One fused optimizer step over a parameter group (ops/optimizer.h): updates params, states and the step "
        "counters in place.");
  m.def("_optimizer_step_capturable", &ops::optimizer_step_capturable, py::arg("step"), py::arg("params"),
        py::arg("grads"), py::arg("states"), py::arg("steps"), py::arg("mu_products"),
        py::arg("scalars") = std::vector<TensorList>{}, py::arg("lr") = TensorPtr{},
        "The fused step with capturable=True (ops/optimizer.h): the counters (and lr, when a tensor there) live on "
        "the parameters' device, which renews them without reading a value back to the host.");
}
