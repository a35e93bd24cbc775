// torch.special's Bessel and Airy functions, erfcx, zeta and the orthogonal polynomials,
// bound as private functions of aakaar._C (_special_<name>): aakaar/special_functions.py
// gives them torch's names and argument names.
//
// Bindings only: the ops are ops::unary / ops::binary with the UnaryOp and BinaryOp entries
// of core/special_math.h.
#include <string>

#include <pybind11/pybind11.h>

#include "core/error.h"
#include "ops/ops.h"
#include "python/convert.h"

namespace py = pybind11;
using namespace aakaar;

namespace aakaar::python {
// a op other with other a tensor or a Python number (bind_tensor.cpp).
TensorPtr binary_any(BinaryOp op, const TensorPtr& a, py::handle other, const char* what);
}  // namespace aakaar::python

namespace {

struct UnaryEntry {
  const char* name;
  UnaryOp op;
};
struct BinaryEntry {
  const char* name;
  BinaryOp op;
};

// torch's variants: (Tensor, Tensor), (Tensor, Number) and (Number, Tensor); two numbers are refused.
TensorPtr special_binary(BinaryOp op, py::handle x, py::handle n, const std::string& name) {
  if (py::isinstance<Tensor>(x)) return python::binary_any(op, x.cast<TensorPtr>(), n, name.c_str());
  const auto s = python::as_scalar(x);
  const auto type_name = [](py::handle h) { return std::string(py::str(h.get_type().attr("__name__"))); };
  AK_CHECK(py::isinstance<Tensor>(n) && s, TypeError, name, "(): expected a Tensor and a Tensor or a number, got (",
           type_name(x), ", ", type_name(n), ")");
  return ops::binary_scalar(op, n.cast<TensorPtr>(), *s, true);
}

}  // namespace

void bind_special(py::module_& m) {
  static const UnaryEntry unary_ops[] = {
      {"airy_ai", UnaryOp::AiryAi},
      {"bessel_j0", UnaryOp::BesselJ0},
      {"bessel_j1", UnaryOp::BesselJ1},
      {"bessel_y0", UnaryOp::BesselY0},
      {"bessel_y1", UnaryOp::BesselY1},
      {"modified_bessel_i0", UnaryOp::ModifiedBesselI0},
      {"modified_bessel_i1", UnaryOp::ModifiedBesselI1},
      {"modified_bessel_k0", UnaryOp::ModifiedBesselK0},
      {"modified_bessel_k1", UnaryOp::ModifiedBesselK1},
      {"scaled_modified_bessel_k0", UnaryOp::ScaledModifiedBesselK0},
      {"scaled_modified_bessel_k1", UnaryOp::ScaledModifiedBesselK1},
      {"spherical_bessel_j0", UnaryOp::SphericalBesselJ0},
      {"i0e", UnaryOp::I0e},
      {"i1e", UnaryOp::I1e},
      {"erfcx", UnaryOp::Erfcx},
  };
  for (const UnaryEntry& e : unary_ops) {
    const UnaryOp op = e.op;
    m.def((std::string("_special_") + e.name).c_str(), [op](const TensorPtr& t) { return ops::unary(op, t); },
          py::arg("input"), (std::string("torch.special.") + e.name + " (elementwise).").c_str());
  }
  static const BinaryEntry binary_ops[] = {
      {"zeta", BinaryOp::Zeta},
      {"chebyshev_polynomial_t", BinaryOp::ChebyshevT},
      {"chebyshev_polynomial_u", BinaryOp::ChebyshevU},
      {"chebyshev_polynomial_v", BinaryOp::ChebyshevV},
      {"chebyshev_polynomial_w", BinaryOp::ChebyshevW},
      {"shifted_chebyshev_polynomial_t", BinaryOp::ShiftedChebyshevT},
      {"shifted_chebyshev_polynomial_u", BinaryOp::ShiftedChebyshevU},
      {"shifted_chebyshev_polynomial_v", BinaryOp::ShiftedChebyshevV},
      {"shifted_chebyshev_polynomial_w", BinaryOp::ShiftedChebyshevW},
      {"hermite_polynomial_h", BinaryOp::HermiteH},
      {"hermite_polynomial_he", BinaryOp::HermiteHe},
      {"laguerre_polynomial_l", BinaryOp::LaguerreL},
      {"legendre_polynomial_p", BinaryOp::LegendreP},
  };
  for (const BinaryEntry& e : binary_ops) {
    const BinaryOp op = e.op;
    const std::string name = e.name;
    m.def(("_special_" + name).c_str(),
          [op, name](py::handle x, py::handle n) { return special_binary(op, x, n, name); }, py::arg("x"), py::arg("n"),
          ("torch.special." + name + "(x, n): x and n tensors, or one of them a number.").c_str());
  }
}
