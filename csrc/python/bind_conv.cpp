// 2-d convolution and pooling, with their arguments already in tuples (aakaar/nn/functional_conv.py
// turns PyTorch's int | tuple | 'same' | 'valid' into them):
//
//   conv2d(input, weight, bias, stride (2), padding (top, bottom, left, right), dilation (2), groups)
//   max_pool2d(input, kernel_size (2), stride (2), padding (2), dilation (2), ceil_mode) -> (out, indices)
//   avg_pool2d(input, kernel_size (2), stride (2), padding (2), ceil_mode, count_include_pad, divisor_override)
//
// Bindings only: the ops are csrc/ops/conv.cpp.
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <array>

#include "core/error.h"
#include "ops/conv_grad.h"
#include "python/convert.h"

namespace py = pybind11;
using namespace aakaar;

namespace {

TensorPtr tensor_arg(py::handle h, const char* fn, const char* name, bool optional) {
  if (optional && h.is_none()) return nullptr;
  AK_CHECK(py::isinstance<Tensor>(h), TypeError, fn, "(): ", name, " must be an aakaar.Tensor",
           optional ? " or None" : "", ", got ", py::str(py::type::of(h).attr("__name__")).cast<std::string>());
  return h.cast<TensorPtr>();
}

Pool2dArgs pool_args(const std::array<int64_t, 2>& k, const std::array<int64_t, 2>& s, const std::array<int64_t, 2>& p,
                     const std::array<int64_t, 2>& d) {
  Pool2dArgs a;
  for (int i = 0; i < 2; ++i) a.kernel[i] = k[i], a.stride[i] = s[i], a.padding[i] = p[i], a.dilation[i] = d[i];
  return a;
}

Conv2dArgs conv_args(const std::array<int64_t, 2>& s, const std::array<int64_t, 2>& p,
                     const std::array<int64_t, 2>& d, int64_t groups) {
  Conv2dArgs a;
  for (int i = 0; i < 2; ++i) a.stride[i] = s[i], a.padding[i] = p[i], a.dilation[i] = d[i];
  a.groups = groups;
  return a;
}

}  // namespace

void bind_conv(py::module_& m) {
  m.def("conv2d", [](py::handle x, py::handle w, py::handle b, std::array<int64_t, 2> stride,
                     std::array<int64_t, 4> padding, std::array<int64_t, 2> dilation, int64_t groups) {
    ops::Conv2dGeometry c;
    for (int i = 0; i < 2; ++i) c.stride[i] = stride[i], c.dilation[i] = dilation[i];
    for (int i = 0; i < 4; ++i) c.padding[i] = padding[i];
    c.groups = groups;
    return ops::conv2d(tensor_arg(x, "conv2d", "input", false), tensor_arg(w, "conv2d", "weight", false),
                       tensor_arg(b, "conv2d", "bias", true), c);
  }, py::arg("input"), py::arg("weight"), py::arg("bias"), py::arg("stride"), py::arg("padding"),
     py::arg("dilation"), py::arg("groups"),
     "2-d convolution, NCHW: im2col and the library's GEMM, one autograd node. padding is (top, bottom, left, right).");
  m.def("conv2d_input_grad", [](py::handle g, py::handle w, std::array<int64_t, 4> input_size,
                                std::array<int64_t, 2> stride, std::array<int64_t, 2> padding,
                                std::array<int64_t, 2> dilation, int64_t groups) {
    const Conv2dArgs a = conv_args(stride, padding, dilation, groups);
    return ops::conv2d_input_grad(tensor_arg(g, "conv2d_input_grad", "grad_output", false),
                                  tensor_arg(w, "conv2d_input_grad", "weight", false),
                                  Shape(input_size.begin(), input_size.end()), a);
  }, py::arg("grad_output"), py::arg("weight"), py::arg("input_size"), py::arg("stride"), py::arg("padding"),
     py::arg("dilation"), py::arg("groups"),
     "conv2d's gradient for an input of input_size (N, C, H, W): the transposed convolution. padding is "
     "(top, left); differentiable (its backward is conv2d and conv2d_weight_grad).");
  m.def("conv2d_weight_grad", [](py::handle g, py::handle x, std::array<int64_t, 4> weight_size,
                                 std::array<int64_t, 2> stride, std::array<int64_t, 2> padding,
                                 std::array<int64_t, 2> dilation, int64_t groups) {
    const Conv2dArgs a = conv_args(stride, padding, dilation, groups);
    return ops::conv2d_weight_grad(tensor_arg(g, "conv2d_weight_grad", "grad_output", false),
                                   tensor_arg(x, "conv2d_weight_grad", "input", false),
                                   Shape(weight_size.begin(), weight_size.end()), a);
  }, py::arg("grad_output"), py::arg("input"), py::arg("weight_size"), py::arg("stride"), py::arg("padding"),
     py::arg("dilation"), py::arg("groups"),
     "conv2d's gradient for a weight of weight_size; differentiable (its backward is conv2d and conv2d_input_grad).");
  m.def("max_pool2d", [](py::handle x, std::array<int64_t, 2> k, std::array<int64_t, 2> s, std::array<int64_t, 2> p,
                         std::array<int64_t, 2> d, bool ceil_mode) {
    auto [out, idx] = ops::max_pool2d(tensor_arg(x, "max_pool2d", "input", false), pool_args(k, s, p, d), ceil_mode);
    return py::make_tuple(out, idx);
  }, py::arg("input"), py::arg("kernel_size"), py::arg("stride"), py::arg("padding"), py::arg("dilation"),
     py::arg("ceil_mode"), "2-d max pooling: (values, int64 indices into each H*W plane), PyTorch's tie and NaN rules.");
  m.def("avg_pool2d", [](py::handle x, std::array<int64_t, 2> k, std::array<int64_t, 2> s, std::array<int64_t, 2> p,
                         bool ceil_mode, bool count_include_pad, int64_t divisor_override) {
    Pool2dArgs a = pool_args(k, s, p, {1, 1});
    a.count_include_pad = count_include_pad;
    a.divisor_override = divisor_override;
    return ops::avg_pool2d(tensor_arg(x, "avg_pool2d", "input", false), a, ceil_mode);
  }, py::arg("input"), py::arg("kernel_size"), py::arg("stride"), py::arg("padding"), py::arg("ceil_mode"),
     py::arg("count_include_pad"), py::arg("divisor_override"),
     "2-d average pooling (divisor_override 0: none), PyTorch's divisor rules.");
}
