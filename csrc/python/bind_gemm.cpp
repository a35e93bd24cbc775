// Python access to the GEMM ladder (csrc/ladders/cpu_gemm) and the library's GEMM (csrc/cpu/gemm): aakaar._C.gemm.
//
//   versions()                        -> names of the versions this CPU runs
//   run(version, a, b, *, alpha=1, beta=0, out=None, bias=None, relu=False, mc=0, kc=0, nc=0)
//   matmul(a, b, *, alpha=1, beta=0, out=None, bias=None, relu=False)
//                                     the library's gemm / gemm_bias_act (gemm.h)
//   has_avx2_fma(), has_avx512()     which micro-kernels run (cpu/isa.h)
//   clock_ghz(), fma_peak_gflops()     the ceiling, measured (see probe.h)
//
// a and b are 2-D numpy arrays of float32 or float64 with any strides
// (transposed and sliced views are passed as they are, not copied). With
// `out`, the product is written into it: out = alpha * a @ b + beta * out.
// bias (1-D, one value per column) and relu give the fused Linear forward:
// act(alpha * a @ b + beta * out + bias).
// mc/kc/nc override the cache blocking of the packed versions (0: default).
// Bindings only: the arithmetic lives in csrc/cpu/gemm.
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <cstdint>
#include <sstream>
#include <string>

#include "cpu/gemm/gemm.h"
#include "ladders/cpu_gemm/ladder.h"
#include "cpu/gemm/probe.h"
#include "cpu/isa.h"

namespace py = pybind11;
using namespace aakaar::cpu;

namespace {

std::string shape_str(const py::array& x) {
  std::ostringstream s;
  s << "(";
  for (py::ssize_t d = 0; d < x.ndim(); ++d) s << (d ? ", " : "") << x.shape(d);
  s << (x.ndim() == 1 ? ",)" : ")");
  return s.str();
}

std::string dtype_str(const py::array& x) { return py::str(x.dtype()).cast<std::string>(); }

py::array as_matrix(const py::object& obj, const char* name) {
  if (!py::isinstance<py::array>(obj))
    throw py::type_error(std::string("gemm: ") + name + " must be a numpy.ndarray, got " +
                         py::str(py::type::of(obj).attr("__name__")).cast<std::string>());
  py::array x = py::reinterpret_borrow<py::array>(obj);
  if (x.ndim() != 2)
    throw py::value_error(std::string("gemm: ") + name + " must be 2-D, got shape " +
                          shape_str(x));
  for (int d = 0; d < 2; ++d)
    if (x.strides(d) % static_cast<py::ssize_t>(x.itemsize()) != 0)
      throw py::value_error(std::string("gemm: ") + name +
                            " has strides that are not a multiple of its item size; "
                            "call numpy.ascontiguousarray first");
  return x;
}

// [lowest, highest] byte addresses an array touches, to reject an `out` that
// overlaps an input (the kernels read A and B while writing C).
std::pair<intptr_t, intptr_t> byte_range(const py::array& x) {
  intptr_t lo = reinterpret_cast<intptr_t>(x.data()), hi = lo;
  for (int d = 0; d < 2; ++d) {
    const intptr_t span = (x.shape(d) - 1) * x.strides(d);
    (span < 0 ? lo : hi) += span;
  }
  return {lo, hi + static_cast<intptr_t>(x.itemsize()) - 1};
}

bool overlaps(const py::array& x, const py::array& y) {
  if (x.size() == 0 || y.size() == 0) return false;
  auto [xl, xh] = byte_range(x);
  auto [yl, yh] = byte_range(y);
  return xl <= yh && yl <= xh;
}

template <typename T>
py::array run_typed(const std::string& version, const py::array& a, const py::array& b, double alpha,
                    double beta, py::object out_obj, const py::object& bias_obj, bool relu,
                    gemm_ladder::Blocking blk) {
  const int64_t M = a.shape(0), K = a.shape(1), N = b.shape(1);
  const int64_t s = sizeof(T);
  py::array bias;  // (a default py::array is an empty array, not "none": test has_bias)
  const bool has_bias = !bias_obj.is_none();
  if (has_bias) {
    if (!py::isinstance<py::array>(bias_obj))
      throw py::type_error("gemm: bias must be a numpy.ndarray or None");
    bias = py::reinterpret_borrow<py::array>(bias_obj);
    if (bias.ndim() != 1 || bias.shape(0) != N)
      throw py::value_error("gemm: bias must have shape (" + std::to_string(N) + ",), got " +
                            shape_str(bias));
    if (bias.dtype().not_equal(a.dtype()))
      throw py::type_error("gemm: bias has dtype " + dtype_str(bias) + " but a and b are " +
                           dtype_str(a));
    if (bias.strides(0) % s != 0)
      throw py::value_error("gemm: bias has a stride that is not a multiple of its item size");
  }
  py::array out;
  if (out_obj.is_none()) {
    out = py::array_t<T>({M, N});
    beta = 0.0;  // a fresh output holds garbage: never read it
  } else {
    out = as_matrix(out_obj, "out");
    if (out.dtype().not_equal(a.dtype()))
      throw py::type_error("gemm: out has dtype " + dtype_str(out) + " but a and b are " +
                           dtype_str(a));
    if (out.shape(0) != M || out.shape(1) != N)
      throw py::value_error("gemm: out has shape " + shape_str(out) + ", expected (" +
                            std::to_string(M) + ", " + std::to_string(N) + ")");
    if (!out.writeable()) throw py::value_error("gemm: out is read-only");
    if (overlaps(out, a) || overlaps(out, b))
      throw py::value_error("gemm: out overlaps an input; pass a separate array");
  }
  gemm_ladder::GemmArgs<T> g{M, N, K, static_cast<T>(alpha),
                             static_cast<const T*>(a.data()), a.strides(0) / s, a.strides(1) / s,
                             static_cast<const T*>(b.data()), b.strides(0) / s, b.strides(1) / s,
                             static_cast<T>(beta),
                             static_cast<T*>(out.mutable_data()), out.strides(0) / s,
                             out.strides(1) / s};
  if (has_bias) {
    g.bias = static_cast<const T*>(bias.data());
    g.cs_bias = bias.strides(0) / s;
  }
  g.relu = relu;
  bool ok = true;
  {
    py::gil_scoped_release nogil;
    if (version.empty() && g.bias == nullptr && !g.relu) {
      gemm<T>(g.M, g.N, g.K, g.alpha, g.A, g.rs_a, g.cs_a, g.B, g.rs_b, g.cs_b, g.beta, g.C,
              g.rs_c, g.cs_c);
    } else if (version.empty()) {
      gemm_bias_act<T>(g.M, g.N, g.K, g.alpha, g.A, g.rs_a, g.cs_a, g.B, g.rs_b, g.cs_b, g.beta,
                       g.C, g.rs_c, g.cs_c, g.bias, g.cs_bias,
                       g.relu ? GemmActivation::ReLU : GemmActivation::None);
    } else {
      ok = gemm_ladder::run_version<T>(version, g, blk);
    }
  }
  if (!ok) {
    std::string names;
    for (const auto& v : gemm_ladder::versions()) names += (names.empty() ? "" : ", ") + v;
    throw py::value_error("gemm: unknown version '" + version + "'; this CPU runs: " + names);
  }
  return out;
}

py::array run(const std::string& version, const py::object& a_obj, const py::object& b_obj,
              double alpha, double beta, const py::object& out, const py::object& bias, bool relu,
              int64_t mc, int64_t kc, int64_t nc) {
  py::array a = as_matrix(a_obj, "a"), b = as_matrix(b_obj, "b");
  if (a.dtype().not_equal(b.dtype()))
    throw py::type_error("gemm: a and b must have the same dtype, got " + dtype_str(a) + " and " +
                         dtype_str(b));
  if (a.shape(1) != b.shape(0))
    throw py::value_error("gemm: shapes " + shape_str(a) + " and " + shape_str(b) +
                          " cannot be multiplied (" + std::to_string(a.shape(1)) +
                          " != " + std::to_string(b.shape(0)) + ")");
  if (mc < 0 || kc < 0 || nc < 0)
    throw py::value_error("gemm: mc, kc and nc must be >= 0 (0 means the default)");
  const gemm_ladder::Blocking blk{mc, kc, nc};
  if (a.dtype().is(py::dtype::of<float>()))
    return run_typed<float>(version, a, b, alpha, beta, out, bias, relu, blk);
  if (a.dtype().is(py::dtype::of<double>()))
    return run_typed<double>(version, a, b, alpha, beta, out, bias, relu, blk);
  throw py::type_error("gemm: dtype " + dtype_str(a) + " is not supported (float32 or float64)");
}

}  // namespace

void bind_gemm(py::module_& m) {
  py::module_ g = m.def_submodule("gemm", "The CPU GEMM ladder (csrc/cpu/gemm).");
  g.def("versions", &gemm_ladder::versions,
        "Names of the ladder's versions this CPU can run, in order.");
  g.def("has_avx2_fma", [] { return isa_at_least(Isa::Avx2); },
        "Whether the AVX2/FMA micro-kernels run (this CPU has them and AAKAAR_CPU_ISA does not cap them).");
  g.def("has_avx512", [] { return isa_at_least(Isa::Avx512); },
        "Whether the AVX-512 micro-kernels run (this CPU has them and AAKAAR_CPU_ISA does not cap them).");
  g.def("clock_ghz", &gemm_impl::measure_clock_ghz,
        "The core clock in GHz, measured with dependent adds (0 if not measurable).");
  g.def("fma_peak_gflops", &gemm_impl::measure_fma_gflops,
        "Single-core float32 GFLOP/s of independent FMAs of the widest vector width the kernels use "
        "(AVX-512 where they run it, else AVX2), measured (0 without AVX2).");
  g.def(
      "run",
      [](const std::string& version, const py::object& a, const py::object& b, double alpha,
         double beta, const py::object& out, const py::object& bias, bool relu, int64_t mc,
         int64_t kc, int64_t nc) {
        if (version.empty()) throw py::value_error("gemm: version must not be empty");
        return run(version, a, b, alpha, beta, out, bias, relu, mc, kc, nc);
      },
      py::arg("version"), py::arg("a"), py::arg("b"), py::kw_only(), py::arg("alpha") = 1.0,
      py::arg("beta") = 0.0, py::arg("out") = py::none(), py::arg("bias") = py::none(),
      py::arg("relu") = false, py::arg("mc") = 0, py::arg("kc") = 0, py::arg("nc") = 0,
      "alpha * a @ b (+ beta * out) with one version of the ladder; returns the result.");
  g.def(
      "matmul",
      [](const py::object& a, const py::object& b, double alpha, double beta,
         const py::object& out, const py::object& bias, bool relu) {
        return run("", a, b, alpha, beta, out, bias, relu, 0, 0, 0);
      },
      py::arg("a"), py::arg("b"), py::kw_only(), py::arg("alpha") = 1.0, py::arg("beta") = 0.0,
      py::arg("out") = py::none(), py::arg("bias") = py::none(), py::arg("relu") = false,
      "alpha * a @ b (+ beta * out) with the library's gemm, as the matmul op calls it.");
}
