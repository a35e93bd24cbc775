// Loss functions fused into one op each.
//
//   cross_entropy(input, target, reduction="mean" | "sum" | "none", *, weight=None, ignore_index=-100,
//                 label_smoothing=0.0)
//   pointwise_loss(kind, input, target, reduction, param=0.0, weight=None, pos_weight=None)
//   ctc_loss(log_probs, targets, input_lengths, target_lengths, blank=0, zero_infinity=False)
//
// Bindings only: the ops are csrc/ops/cross_entropy.cpp, csrc/ops/pointwise_loss.cpp and
// csrc/ops/ctc_loss.cpp.
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include "core/error.h"
#include "cpu/backend_cpu.h"
#include "ops/ops.h"
#include "python/convert.h"

namespace py = pybind11;
using namespace aakaar;

namespace {

TensorPtr tensor_arg(py::handle h, const char* fn, const char* name) {
  AK_CHECK(py::isinstance<Tensor>(h), TypeError, fn, "(): ", name, " must be an aakaar.Tensor, got ",
           py::str(py::type::of(h).attr("__name__")).cast<std::string>());
  return h.cast<TensorPtr>();
}

TensorPtr optional_tensor_arg(py::handle h, const char* fn, const char* name) {
  return h.is_none() ? nullptr : tensor_arg(h, fn, name);
}

Reduction reduction_arg(py::handle h, const char* fn) {
  const std::string r = py::isinstance<py::str>(h) ? h.cast<std::string>() : std::string();
  if (r == "mean") return Reduction::Mean;
  if (r == "sum") return Reduction::Sum;
  if (r == "none") return Reduction::None;
  throw ValueError(str(fn, "(): reduction must be 'mean', 'sum' or 'none', got ",
                       py::repr(h).cast<std::string>()));
}

PointwiseLoss kind_arg(const std::string& k) {
  if (k == "mse") return PointwiseLoss::MSE;
  if (k == "l1") return PointwiseLoss::L1;
  if (k == "huber") return PointwiseLoss::Huber;
  if (k == "smooth_l1") return PointwiseLoss::SmoothL1;
  if (k == "bce") return PointwiseLoss::BCE;
  if (k == "bce_with_logits") return PointwiseLoss::BCEWithLogits;
  throw ValueError(str("pointwise_loss(): kind must be 'mse', 'l1', 'huber', 'smooth_l1', 'bce' or "
                       "'bce_with_logits', got '", k, "'"));
}

}  // namespace

void bind_loss(py::module_& m) {
  m.def("cross_entropy", [](py::handle x, py::handle t, py::handle reduction, py::handle weight,
                            int64_t ignore_index, double label_smoothing) {
    return ops::cross_entropy(tensor_arg(x, "cross_entropy", "input"), tensor_arg(t, "cross_entropy", "target"),
                              reduction_arg(reduction, "cross_entropy"),
                              optional_tensor_arg(weight, "cross_entropy", "weight"), ignore_index, label_smoothing);
  }, py::arg("input"), py::arg("target"), py::arg("reduction") = "mean", py::kw_only(), py::arg("weight") = py::none(),
     py::arg("ignore_index") = -100, py::arg("label_smoothing") = 0.0,
     "Softmax cross-entropy of logits (N, C) against int64 class indices (N,) in [0, C) (or ignore_index), "
     "or against probabilities (N, C) of the logits' dtype (soft labels; no gradient to them, the mean over "
     "rows), with optional class weights (C,) and label smoothing: one fused op and one autograd node "
     "(CrossEntropyBackward).");
  m.def("pointwise_loss", [](const std::string& kind, py::handle x, py::handle t, py::handle reduction,
                             double param, py::handle weight, py::handle pos_weight) {
    const PointwiseLoss k = kind_arg(kind);
    return ops::pointwise_loss(k, tensor_arg(x, "pointwise_loss", "input"),
                               tensor_arg(t, "pointwise_loss", "target"),
                               optional_tensor_arg(weight, "pointwise_loss", "weight"),
                               optional_tensor_arg(pos_weight, "pointwise_loss", "pos_weight"), param,
                               reduction_arg(reduction, "pointwise_loss"));
  }, py::arg("kind"), py::arg("input"), py::arg("target"), py::arg("reduction") = "mean", py::arg("param") = 0.0,
     py::arg("weight") = py::none(), py::arg("pos_weight") = py::none(),
     "A pointwise loss ('mse', 'l1', 'huber', 'smooth_l1', 'bce', 'bce_with_logits') of input and target (same "
     "shape and dtype) as one fused op with one autograd node; param is Huber's delta or SmoothL1's beta.");
  m.def("ctc_loss", [](py::handle log_probs, py::handle targets, const std::vector<int64_t>& input_lengths,
                       const std::vector<int64_t>& target_lengths, int64_t blank, bool zero_infinity) {
    return ops::ctc_loss(tensor_arg(log_probs, "ctc_loss", "log_probs"), tensor_arg(targets, "ctc_loss", "targets"),
                         input_lengths, target_lengths, blank, zero_infinity);
  }, py::arg("log_probs"), py::arg("targets"), py::arg("input_lengths"), py::arg("target_lengths"),
     py::arg("blank") = 0, py::arg("zero_infinity") = false,
     "Per-sample CTC losses (N,) of log_probs (T, N, C) and int64 targets (N, S) padded or 1-D concatenated, "
     "with N input and N target lengths: one fused op (the alpha recursion in log space) and one autograd "
     "node (CtcLossBackward, the beta recursion). The reduction is F.ctc_loss's.");
  m.def("_vec_math_f32", [](const std::string& name, py::handle x) {
    const int which = name == "exp" ? 0 : name == "log" ? 1 : name == "log1p" ? 2 : -1;
    AK_CHECK(which >= 0, ValueError, "_vec_math_f32(): name must be 'exp', 'log' or 'log1p', got '", name, "'");
    const TensorPtr t = tensor_arg(x, "_vec_math_f32", "x");
    AK_CHECK(t->dtype == DType::Float32 && t->device() == Device{}, TypeError,
             "_vec_math_f32(): x must be a float32 CPU tensor");
    const TensorPtr in = ops::contiguous(t);
    TensorPtr out = Tensor::empty(in->shape, DType::Float32);
    cpu::vec_math_f32(which, in->numel(), in->data<float>(), out->data<float>());
    return out;
  }, py::arg("name"), py::arg("x"),
     "exp, log or log1p of a float32 CPU tensor by the library's vectorised float32 functions (cpu/vec_math.h), "
     "in the CPU build that runs (cpu_isa()): for the tests of their accuracy.");
}
