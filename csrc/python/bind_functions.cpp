// Module-level functions: creation, random numbers, joining, broadcasting.
#include "autograd/node.h"
#include "core/error.h"
#include "core/shape.h"
#include "ops/ops.h"
#include "python/convert.h"

namespace aakaar::python {
namespace {

ops::Generator& gen_or_default(py::handle g) {
  if (g.is_none()) return ops::default_generator();
  return g.cast<ops::Generator&>();
}

Device device_or_cpu(py::handle d) { return d.is_none() ? Device{} : to_device(d); }

DType dtype_or(py::handle d, DType fallback) { return to_optional_dtype(d).value_or(fallback); }

// requires_grad= of the factories, as in PyTorch: the new tensor is a leaf that
// requires grad (a RuntimeError for a non-floating dtype).
TensorPtr leaf(TensorPtr t, bool requires_grad) {
  if (requires_grad) autograd::set_requires_grad(t, true);
  return t;
}

}  // namespace

void bind_functions(py::module_& m) {
  py::class_<ops::Generator>(m, "Generator",
                             "A Philox random stream: a seed and how many blocks of it have been used.")
      .def(py::init([](py::object device) {
        // The stream is the same on every device (Philox), but the device must be
        // one this build can use, as in PyTorch: Generator('cuda') without CUDA and
        // Generator(5) are errors, not silently CPU generators.
        if (!device.is_none()) (void)backend(to_device(device));
        return ops::Generator{};
      }), py::arg("device") = py::none())
      .def("manual_seed", [](ops::Generator& g, int64_t seed) -> ops::Generator& {
        g.seed = static_cast<uint64_t>(seed);
        g.offset = 0;
        return g;
      }, py::arg("seed"), py::return_value_policy::reference_internal, "Seeds this generator and restarts its stream; returns the generator.")
      .def("initial_seed", [](const ops::Generator& g) { return g.seed; }, "The seed this generator was last seeded with.")
      .def("get_state", [](const ops::Generator& g) { return py::make_tuple(g.seed, g.offset); }, "(seed, offset): enough to restart the stream from here with set_state.")
      .def("set_state", [](ops::Generator& g, py::tuple s) {
        AK_CHECK(s.size() == 2, ValueError, "Generator.set_state expects (seed, offset)");
        g.seed = s[0].cast<uint64_t>();
        g.offset = s[1].cast<uint64_t>();
      }, "Restores a state returned by get_state.");
  m.def("default_generator", &ops::default_generator, py::return_value_policy::reference, "The generator used when no generator= is given.");
  m.def("manual_seed", [](int64_t seed) {
    ops::default_generator() = ops::Generator{static_cast<uint64_t>(seed), 0};
  }, py::arg("seed"), "Seeds the default generator (resets its stream to the start).");

  m.def("empty", [](py::args shape, py::object dtype, py::object device, bool requires_grad) {
    return leaf(ops::empty(shape_from_args(shape, "empty"), dtype_or(dtype, DType::Float32), device_or_cpu(device)), requires_grad);
  }, py::kw_only(), py::arg("dtype") = py::none(), py::arg("device") = py::none(), py::arg("requires_grad") = false, "An uninitialised tensor.");
  m.def("zeros", [](py::args shape, py::object dtype, py::object device, bool requires_grad) {
    return leaf(ops::full(shape_from_args(shape, "zeros"), Scalar::from_int(0), dtype_or(dtype, DType::Float32), device_or_cpu(device)), requires_grad);
  }, py::kw_only(), py::arg("dtype") = py::none(), py::arg("device") = py::none(), py::arg("requires_grad") = false, "A tensor of zeros.");
  m.def("ones", [](py::args shape, py::object dtype, py::object device, bool requires_grad) {
    return leaf(ops::full(shape_from_args(shape, "ones"), Scalar::from_int(1), dtype_or(dtype, DType::Float32), device_or_cpu(device)), requires_grad);
  }, py::kw_only(), py::arg("dtype") = py::none(), py::arg("device") = py::none(), py::arg("requires_grad") = false, "A tensor of ones.");
  m.def("full", [](py::object shape, py::handle value, py::object dtype, py::object device, bool requires_grad) {
    Scalar v = to_scalar(value, "full");
    DType fallback = v.kind == Scalar::Kind::Float ? DType::Float32 : v.kind == Scalar::Kind::Int ? DType::Int64 : DType::Bool;
    const DType dt = dtype_or(dtype, fallback);
    ops::check_scalar_fits(v, dt, "full");  // full((3,), 1e308, dtype=uint8) is an error, as in PyTorch
    return leaf(ops::full(to_shape(shape, "full"), v, dt, device_or_cpu(device)), requires_grad);
  }, py::arg("size"), py::arg("fill_value"), py::kw_only(), py::arg("dtype") = py::none(), py::arg("device") = py::none(), py::arg("requires_grad") = false,
     "A tensor filled with one value.");
  m.def("arange", [](py::handle a, py::handle b, py::handle step, py::object dtype, py::object device, bool requires_grad) {
    Scalar start = to_scalar(a, "arange"), st = to_scalar(step, "arange");
    Scalar end = start;
    if (b.is_none()) start = Scalar::from_int(0);
    else end = to_scalar(b, "arange");
    const bool any_float = start.kind == Scalar::Kind::Float || end.kind == Scalar::Kind::Float || st.kind == Scalar::Kind::Float;
    const DType dt = dtype_or(dtype, any_float ? DType::Float32 : DType::Int64);
    if (!any_float && is_integral(dt, false))  // integers in, integers out: exact
      return leaf(ops::arange_int(start.i, end.i, st.i, dt, device_or_cpu(device)), requires_grad);
    return leaf(ops::arange(start.to_double(), end.to_double(), st.to_double(), dt, device_or_cpu(device)), requires_grad);
  }, py::arg("start"), py::arg("end") = py::none(), py::arg("step") = 1, py::kw_only(), py::arg("dtype") = py::none(),
     py::arg("device") = py::none(), py::arg("requires_grad") = false, "Values from start (inclusive) to end (exclusive) by step.");
  m.def("linspace", [](double start, double end, int64_t steps, py::object dtype, py::object device, bool requires_grad) {
    return leaf(ops::linspace(start, end, steps, dtype_or(dtype, DType::Float32), device_or_cpu(device)), requires_grad);
  }, py::arg("start"), py::arg("end"), py::arg("steps"), py::kw_only(), py::arg("dtype") = py::none(),
     py::arg("device") = py::none(), py::arg("requires_grad") = false, "`steps` evenly spaced values from start to end, both included.");
  m.def("eye", [](int64_t n, py::object mcols, py::object dtype, py::object device, bool requires_grad) {
    return leaf(ops::eye(n, mcols.is_none() ? n : mcols.cast<int64_t>(), dtype_or(dtype, DType::Float32), device_or_cpu(device)), requires_grad);
  }, py::arg("n"), py::arg("m") = py::none(), py::kw_only(), py::arg("dtype") = py::none(), py::arg("device") = py::none(), py::arg("requires_grad") = false,
     "The identity matrix.");

  m.def("rand", [](py::args shape, py::object generator, py::object dtype, py::object device, bool requires_grad) {
    return leaf(ops::rand(shape_from_args(shape, "rand"), dtype_or(dtype, DType::Float32), gen_or_default(generator), device_or_cpu(device)), requires_grad);
  }, py::kw_only(), py::arg("generator") = py::none(), py::arg("dtype") = py::none(), py::arg("device") = py::none(), py::arg("requires_grad") = false,
     "Uniform random numbers in [0, 1).");
  m.def("randn", [](py::args shape, py::object generator, py::object dtype, py::object device, bool requires_grad) {
    return leaf(ops::randn(shape_from_args(shape, "randn"), dtype_or(dtype, DType::Float32), gen_or_default(generator), device_or_cpu(device)), requires_grad);
  }, py::kw_only(), py::arg("generator") = py::none(), py::arg("dtype") = py::none(), py::arg("device") = py::none(), py::arg("requires_grad") = false,
     "Standard normal random numbers.");
  m.def("randint", [](int64_t low, py::object high, py::object size, py::object generator, py::object dtype, py::object device, bool requires_grad) {
    // randint(high, size) or randint(low, high, size), as in PyTorch.
    if (size.is_none()) {
      AK_CHECK(!high.is_none(), TypeError, "randint: expected randint(high, size) or randint(low, high, size)");
      size = high;
      high = py::int_(low);
      low = 0;
    }
    return leaf(ops::randint(low, high.cast<int64_t>(), to_shape(size, "randint"), dtype_or(dtype, DType::Int64),
                        gen_or_default(generator), device_or_cpu(device)), requires_grad);
  }, py::arg("low"), py::arg("high"), py::arg("size") = py::none(), py::kw_only(), py::arg("generator") = py::none(),
     py::arg("dtype") = py::none(), py::arg("device") = py::none(), py::arg("requires_grad") = false, "Random integers in [low, high).");
  m.def("randperm", [](int64_t n, py::object generator, py::object dtype, py::object device, bool requires_grad) {
    return leaf(ops::randperm(n, dtype_or(dtype, DType::Int64), gen_or_default(generator), device_or_cpu(device)), requires_grad);
  }, py::arg("n"), py::kw_only(), py::arg("generator") = py::none(), py::arg("dtype") = py::none(),
     py::arg("device") = py::none(), py::arg("requires_grad") = false, "A random permutation of 0..n-1.");
  m.def("bernoulli", [](const TensorPtr& p, py::object generator) { return ops::bernoulli(p, gen_or_default(generator)); },
        py::arg("input"), py::kw_only(), py::arg("generator") = py::none(), "1 with probability p, else 0.");

  m.def("where", [](const TensorPtr& cond, py::handle a, py::handle b) {
    TensorPtr ta = py::isinstance<Tensor>(a) ? a.cast<TensorPtr>() : nullptr;
    TensorPtr tb = py::isinstance<Tensor>(b) ? b.cast<TensorPtr>() : nullptr;
    TensorPtr like = ta ? ta : tb;
    if (!ta) ta = like ? as_tensor(a, like, "where") : as_tensor(a, nullptr, "where");
    if (!tb) tb = as_tensor(b, ta, "where");
    return ops::where(cond, ta, tb);
  }, py::arg("condition"), py::arg("input"), py::arg("other"), "Elementwise condition ? input : other.");
  m.def("cat", &ops::cat, py::arg("tensors"), py::arg("dim") = 0, "Joins tensors along an existing dim.");
  m.def("stack", &ops::stack, py::arg("tensors"), py::arg("dim") = 0, "Joins tensors along a new dim.");
  m.def("broadcast_shapes", [](py::args shapes) {
    std::vector<Shape> ss;
    for (py::handle s : shapes) ss.push_back(to_shape(s, "broadcast_shapes"));
    return size_object(broadcast_shapes(ss));
  }, "The shape that the given shapes broadcast to.");
  m.def("result_type", [](const TensorPtr& a, const TensorPtr& b) { return ops::result_type(a, b); }, "The dtype an operation on the two tensors computes in (the promotion table).");
  // With a Python number: the number changes the dtype only when it is of a higher kind (bool < int < float).
  m.def("result_type", [](const TensorPtr& a, py::handle b) {
    return ops::wrap_scalar(to_scalar(b, "result_type"), a)->dtype;
  }, "The dtype an operation on the tensor and the number computes in.");
  m.def("result_type", [](py::handle a, const TensorPtr& b) {
    return ops::wrap_scalar(to_scalar(a, "result_type"), b)->dtype;
  }, "The dtype an operation on the number and the tensor computes in.");
  m.def("matmul", &ops::matmul, py::arg("input"), py::arg("other"), "Matrix product: 1-D operands are vectors, more dims are batches that broadcast.");
  m.def("mm", &ops::mm, py::arg("input"), py::arg("mat2"), "Product of two matrices.");
  m.def("bmm", &ops::bmm, py::arg("input"), py::arg("mat2"), "Batched product of two 3-D tensors (batch, n, m) @ (batch, m, p).");
}

}  // namespace aakaar::python
