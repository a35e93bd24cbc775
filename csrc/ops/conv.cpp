// 2-d convolution and pooling (NCHW): the checks and shapes of PyTorch's
// conv2d, max_pool2d and avg_pool2d, then the backend entries of the same
// names. A device without the entry raises a RuntimeError naming the device
// (there is no composite: an im2col of ordinary ops would be a silent
// hundredfold slowdown). The autograd nodes are in autograd/derivatives_conv.cpp.
#include <string>

#include "autograd/derivatives_conv.h"
#include "autograd/function.h"
#include "core/error.h"
#include "ops/conv_grad.h"
#include "ops/ops.h"
#include "ops/reduced_float.h"

namespace aakaar::ops {
namespace {

std::string pair_str(int64_t a, int64_t b) { return str("(", a, " x ", b, ")"); }

void check_float_input(const TensorPtr& t, const char* op, const char* what) {
  AK_CHECK(is_floating(t->dtype), TypeError, op, ": ", what, " must be float32 or float64, got ",
           dtype_name(t->dtype));
}

const Backend& backend_with(const TensorPtr& x, bool has_entry_fn(const Backend&), const char* op) {
  const Backend& be = backend(x->device());
  AK_CHECK(has_entry_fn(be), RuntimeError, op, ": not implemented on the ", x->device().str(),
           " device (its backend has no ", op, " kernel); move the tensors to the CPU with .cpu()");
  return be;
}

void check_conv2d_args(const TensorPtr& x, const TensorPtr& w, const TensorPtr& b, const Conv2dGeometry& c) {
  AK_CHECK(x->ndim() == 4, ValueError, "conv2d: expected 3D (unbatched) or 4D (batched) input to conv2d, but got input "
           "of size: ", shape_str(x->shape));
  AK_CHECK(w->ndim() == 4, ValueError, "conv2d: expected a 4-d weight (out_channels, in_channels / groups, kH, kW), "
           "got weight of size ", shape_str(w->shape));
  check_same_device(x, w, "conv2d");
  check_float_input(x, "conv2d", "input");
  AK_CHECK(x->dtype == w->dtype, TypeError, "conv2d: input type (", dtype_name(x->dtype), ") and weight type (",
           dtype_name(w->dtype), ") should be the same");
  AK_CHECK(c.groups > 0, ValueError, "conv2d: non-positive groups is not supported, got groups=", c.groups);
  for (int i = 0; i < 2; ++i) {
    AK_CHECK(c.stride[i] > 0, ValueError, "conv2d: non-positive stride is not supported, got stride=",
             pair_str(c.stride[0], c.stride[1]));
    AK_CHECK(c.dilation[i] > 0, ValueError, "conv2d: dilation should be greater than zero, got dilation=",
             pair_str(c.dilation[0], c.dilation[1]));
  }
  for (int i = 0; i < 4; ++i)
    AK_CHECK(c.padding[i] >= 0, ValueError, "conv2d: negative padding is not supported, got padding (top, bottom, "
             "left, right) = (", c.padding[0], ", ", c.padding[1], ", ", c.padding[2], ", ", c.padding[3], ")");
  // PyTorch's two checks on sizes: an output channel at least, and a plane that is not empty
  // unless the batch or the channels are (then there is nothing to convolve at all).
  AK_CHECK(w->shape[2] > 0 && w->shape[3] > 0, ValueError, "conv2d: kernel size should be greater than zero, but got "
           "weight of size ", shape_str(w->shape));
  AK_CHECK(w->shape[0] > 0, ValueError, "conv2d: given groups=", c.groups, ", expected weight to be at least 1 at "
           "dimension 0, but got weight of size ", shape_str(w->shape), " instead");
  AK_CHECK(x->shape[0] == 0 || x->shape[1] == 0 || (x->shape[2] > 0 && x->shape[3] > 0), ValueError,
           "conv2d: only zero batch or zero channel inputs are supported, but got input shape: ", shape_str(x->shape));
  AK_CHECK(w->shape[0] % c.groups == 0, ValueError, "conv2d: given groups=", c.groups,
           ", expected weight to be divisible by ", c.groups, " at dimension 0, but got weight of size ",
           shape_str(w->shape), " instead");
  AK_CHECK(x->shape[1] == w->shape[1] * c.groups, ValueError, "conv2d: given groups=", c.groups, ", weight of size ",
           shape_str(w->shape), ", expected input", shape_str(x->shape), " to have ", w->shape[1] * c.groups,
           " channels, but got ", x->shape[1], " channels instead");
  if (b) {
    check_same_device(x, b, "conv2d");
    AK_CHECK(b->ndim() == 1 && b->shape[0] == w->shape[0], ValueError, "conv2d: given weight of size ",
             shape_str(w->shape), ", expected bias to be 1-dimensional with ", w->shape[0],
             " elements, but got bias of size ", shape_str(b->shape), " instead");
    AK_CHECK(b->dtype == x->dtype, TypeError, "conv2d: input type (", dtype_name(x->dtype), ") and bias type (",
             dtype_name(b->dtype), ") should be the same");
  }
  const int64_t ph = x->shape[2] + c.padding[0] + c.padding[1], pw = x->shape[3] + c.padding[2] + c.padding[3];
  const int64_t kh = c.dilation[0] * (w->shape[2] - 1) + 1, kw = c.dilation[1] * (w->shape[3] - 1) + 1;
  AK_CHECK(kh <= ph && kw <= pw, ValueError, "conv2d: calculated padded input size per channel: ", pair_str(ph, pw),
           ". Kernel size: ", pair_str(kh, kw), ". Kernel size can't be greater than actual input size");
}

// PyTorch's pooling_output_shape: with ceil_mode the last window may hang over the end, but
// must start inside the input or its left padding.
int64_t pool_out_size(int64_t in, int64_t k, int64_t pad, int64_t stride, int64_t dil, bool ceil_mode) {
  const int64_t span = in + 2 * pad - dil * (k - 1) - 1 + (ceil_mode ? stride - 1 : 0);
  // floor division, as PyTorch's div_rtn (span can be negative for a too-small input)
  int64_t out = (span >= 0 ? span / stride : -((-span + stride - 1) / stride)) + 1;
  if (ceil_mode && (out - 1) * stride >= in + pad) --out;
  return out;
}

// Checks a pooling call (PyTorch's pool2d_shape_check) and views x as (planes, H, W).
TensorPtr pool_planes(const TensorPtr& x, const Pool2dArgs& a, bool ceil_mode, const char* op, int64_t& Ho,
                      int64_t& Wo) {
  AK_CHECK(x->ndim() == 3 || x->ndim() == 4, ValueError, op, ": expected 3D or 4D (batch mode) tensor for input, "
           "got input of size ", shape_str(x->shape));
  for (int64_t d = x->ndim() - 3; d < x->ndim(); ++d)  // a 4-d input may have an empty batch
    AK_CHECK(x->shape[d] > 0, ValueError, op, ": expected input to have non-zero size "
             "for non-batch dimensions, but got input of size ", shape_str(x->shape));
  check_float_input(x, op, "input");
  for (int i = 0; i < 2; ++i) {
    AK_CHECK(a.kernel[i] > 0, ValueError, op, ": kernel size should be greater than zero, but got kernel_size=",
             pair_str(a.kernel[0], a.kernel[1]));
    AK_CHECK(a.stride[i] > 0, ValueError, op, ": stride should be greater than zero, but got stride=",
             pair_str(a.stride[0], a.stride[1]));
    AK_CHECK(a.dilation[i] > 0, ValueError, op, ": dilation should be greater than zero, but got dilation=",
             pair_str(a.dilation[0], a.dilation[1]));
    AK_CHECK(a.padding[i] >= 0 && a.padding[i] <= a.kernel[i] / 2, ValueError, op,
             ": pad should be at most half of effective kernel size, but got pad=",
             pair_str(a.padding[0], a.padding[1]), " and kernel_size=", pair_str(a.kernel[0], a.kernel[1]));
  }
  const int64_t H = x->shape[x->ndim() - 2], W = x->shape[x->ndim() - 1];
  Ho = pool_out_size(H, a.kernel[0], a.padding[0], a.stride[0], a.dilation[0], ceil_mode);
  Wo = pool_out_size(W, a.kernel[1], a.padding[1], a.stride[1], a.dilation[1], ceil_mode);
  AK_CHECK(Ho >= 1 && Wo >= 1, ValueError, op, ": given input size ", shape_str(x->shape),
           ", the calculated output size ", pair_str(Ho, Wo), " is too small");
  const int64_t planes = x->numel() / (H * W);
  return reshape(contiguous(x), {planes, H, W});
}

// The output of a pooling over planes, back in x's leading dims.
TensorPtr unplane(const TensorPtr& t, const TensorPtr& x, int64_t Ho, int64_t Wo) {
  Shape s(x->shape.begin(), x->shape.end() - 2);
  s.push_back(Ho);
  s.push_back(Wo);
  return reshape(t, s);
}

}  // namespace

TensorPtr conv2d(const TensorPtr& x, const TensorPtr& w, const TensorPtr& b, const Conv2dGeometry& c) {
  AK_CHECK(x && w, ValueError, "conv2d: input and weight must be tensors");
  if (x->ndim() == 3) return squeeze(conv2d(unsqueeze(x, 0), w, b, c), DimList{0});  // unbatched (C, H, W)
  check_conv2d_args(x, w, b, c);
  const int64_t N = x->shape[0], O = w->shape[0];
  const int64_t Ho = (x->shape[2] + c.padding[0] + c.padding[1] - c.dilation[0] * (w->shape[2] - 1) - 1) / c.stride[0] + 1;
  const int64_t Wo = (x->shape[3] + c.padding[2] + c.padding[3] - c.dilation[1] * (w->shape[3] - 1) - 1) / c.stride[1] + 1;
  return conv2d_checked(x, w, b, {N, O, Ho, Wo}, c.args());
}

TensorPtr conv2d_checked(const TensorPtr& x, const TensorPtr& w, const TensorPtr& b, const Shape& out_shape,
                         const Conv2dArgs& a) {
  if (is_reduced_float(x->dtype))
    return to_dtype(conv2d_checked(as_float32(x), as_float32(w), as_float32(b), out_shape, a), x->dtype);
  const Backend& be = backend_with(x, [](const Backend& be) { return be.conv2d && be.conv2d_backward; }, "conv2d");
  const TensorPtr xc = contiguous(x), wc = contiguous(w), bc = b ? contiguous(b) : nullptr;
  TensorPtr out = Tensor::empty(out_shape, x->dtype, x->device());
  if (out->numel() > 0) {
    if (xc->numel() > 0 && wc->numel() > 0) {
      be.conv2d(*out, *xc, *wc, bc.get(), a);
    } else {  // nothing to sum over (no channels): the bias alone, or zeros
      be.fill(*out, Scalar::from_double(0.0));
      if (bc) be.copy(*out, *expand(reshape(autograd::detach(bc), {1, out_shape[1], 1, 1}), out_shape));
    }
  }
  if (autograd::should_record({&xc, &wc, &bc})) autograd::record_conv2d(out, xc, wc, bc, a);
  return out;
}

namespace {

// Checks the operands of conv2d's input and weight gradients: g (N, O, Ho, Wo) against the
// other operand and the shape asked for, so the kernel never reads or writes out of bounds.
void check_conv_grad_args(const TensorPtr& g, const TensorPtr& t, const Shape& x_shape, const Shape& w_shape,
                          const Conv2dArgs& a, const char* op) {
  AK_CHECK(g->ndim() == 4 && t->ndim() == 4 && x_shape.size() == 4 && w_shape.size() == 4, ValueError, op,
           ": expected 4-d operands, got ", shape_str(g->shape), " and ", shape_str(t->shape));
  check_same_device(g, t, op);
  check_float_input(g, op, "input");
  AK_CHECK(g->dtype == t->dtype, TypeError, op, ": input type (", dtype_name(g->dtype), ") and weight type (",
           dtype_name(t->dtype), ") should be the same");
  AK_CHECK(a.groups > 0, ValueError, op, ": non-positive groups is not supported, got groups=", a.groups);
  for (int i = 0; i < 2; ++i) {
    AK_CHECK(a.stride[i] > 0 && a.dilation[i] > 0, ValueError, op, ": stride and dilation must be positive, got "
             "stride=", pair_str(a.stride[0], a.stride[1]), ", dilation=", pair_str(a.dilation[0], a.dilation[1]));
    AK_CHECK(a.padding[i] >= 0, ValueError, op, ": negative padding is not supported, got padding=",
             pair_str(a.padding[0], a.padding[1]));
  }
  for (int i = 0; i < 4; ++i)
    AK_CHECK(x_shape[i] >= 0 && w_shape[i] >= 0, ValueError, op, ": negative size in ", shape_str(x_shape), " or ",
             shape_str(w_shape));
  AK_CHECK(w_shape[0] == g->shape[1] && w_shape[0] % a.groups == 0 && x_shape[1] == w_shape[1] * a.groups &&
           x_shape[0] == g->shape[0], ValueError, op, ": given groups=", a.groups, ", weight of size ",
           shape_str(w_shape), ", expected input of size ", shape_str(g->shape), " to have ", w_shape[0],
           " channels and an image of ", x_shape[1], " = ", w_shape[1], " x ", a.groups, " channels");
}

}  // namespace

TensorPtr conv2d_input_grad(const TensorPtr& g, const TensorPtr& w, const Shape& x_shape, const Conv2dArgs& a) {
  AK_CHECK(g && w, ValueError, "conv2d_input_grad: input and weight must be tensors");
  check_conv_grad_args(g, w, x_shape, w->shape, a, "conv2d_input_grad");
  if (is_reduced_float(g->dtype)) return to_dtype(conv2d_input_grad(as_float32(g), as_float32(w), x_shape, a), g->dtype);
  const Backend& be = backend_with(g, [](const Backend& be) { return be.conv2d_backward != nullptr; }, "conv2d");
  const TensorPtr gc = contiguous(g), wc = contiguous(w);
  TensorPtr out = Tensor::empty(x_shape, g->dtype, g->device());
  if (out->numel() > 0) {
    if (gc->numel() > 0 && wc->numel() > 0) {
      // the kernel reads x for its shape only: a zero-stride view stands in for it
      const TensorPtr x_like = expand(full({}, Scalar::from_double(0.0), g->dtype, g->device()), x_shape);
      be.conv2d_backward(out.get(), nullptr, nullptr, *gc, *x_like, *wc, a);
    } else {
      be.fill(*out, Scalar::from_double(0.0));
    }
  }
  if (autograd::should_record({&gc, &wc})) autograd::record_conv2d_input_grad(out, gc, wc, a);
  return out;
}

TensorPtr conv2d_weight_grad(const TensorPtr& g, const TensorPtr& x, const Shape& w_shape, const Conv2dArgs& a) {
  AK_CHECK(g && x, ValueError, "conv2d_weight_grad: gradient and input must be tensors");
  check_conv_grad_args(g, x, x->shape, w_shape, a, "conv2d_weight_grad");
  if (is_reduced_float(g->dtype)) return to_dtype(conv2d_weight_grad(as_float32(g), as_float32(x), w_shape, a), g->dtype);
  const Backend& be = backend_with(g, [](const Backend& be) { return be.conv2d_backward != nullptr; }, "conv2d");
  const TensorPtr gc = contiguous(g), xc = contiguous(x);
  TensorPtr out = Tensor::empty(w_shape, g->dtype, g->device());
  if (out->numel() > 0) {
    if (gc->numel() > 0 && xc->numel() > 0) {
      // the kernel reads w for its shape only
      const TensorPtr w_like = expand(full({}, Scalar::from_double(0.0), g->dtype, g->device()), w_shape);
      be.conv2d_backward(nullptr, out.get(), nullptr, *gc, *xc, *w_like, a);
    } else {
      be.fill(*out, Scalar::from_double(0.0));
    }
  }
  if (autograd::should_record({&gc, &xc})) autograd::record_conv2d_weight_grad(out, gc, xc, a);
  return out;
}

std::pair<TensorPtr, TensorPtr> max_pool2d(const TensorPtr& x, const Pool2dArgs& a, bool ceil_mode) {
  if (x && is_reduced_float(x->dtype)) {  // float32 holds every 16-bit value: the same maxima, the same indices
    auto [out, idx] = max_pool2d(as_float32(x), a, ceil_mode);
    return {to_dtype(out, x->dtype), idx};
  }
  int64_t Ho = 0, Wo = 0;
  const TensorPtr xp = pool_planes(x, a, ceil_mode, "max_pool2d", Ho, Wo);
  const Backend& be = backend_with(x, [](const Backend& be) { return be.max_pool2d != nullptr; }, "max_pool2d");
  const int64_t P = xp->shape[0];
  TensorPtr out = Tensor::empty({P, Ho, Wo}, x->dtype, x->device());
  TensorPtr idx = Tensor::empty({P, Ho, Wo}, DType::Int64, x->device());
  if (P > 0) be.max_pool2d(*out, *idx, *xp, a);
  if (autograd::should_record({&xp})) autograd::record_max_pool2d(out, xp, idx);
  return {unplane(out, x, Ho, Wo), unplane(idx, x, Ho, Wo)};
}

TensorPtr avg_pool2d(const TensorPtr& x, const Pool2dArgs& a, bool ceil_mode) {
  AK_CHECK(a.dilation[0] == 1 && a.dilation[1] == 1, ValueError, "avg_pool2d: takes no dilation");
  int64_t Ho = 0, Wo = 0;
  const TensorPtr xp = pool_planes(x, a, ceil_mode, "avg_pool2d", Ho, Wo);
  return unplane(avg_pool2d_planes(xp, Ho, Wo, a), x, Ho, Wo);
}

TensorPtr avg_pool2d_planes(const TensorPtr& xp, int64_t Ho, int64_t Wo, const Pool2dArgs& a) {
  if (is_reduced_float(xp->dtype)) return to_dtype(avg_pool2d_planes(as_float32(xp), Ho, Wo, a), xp->dtype);
  const Backend& be = backend_with(
      xp, [](const Backend& be) { return be.avg_pool2d && be.avg_pool2d_backward; }, "avg_pool2d");
  const TensorPtr xc = contiguous(xp);
  TensorPtr out = Tensor::empty({xc->shape[0], Ho, Wo}, xc->dtype, xc->device());
  if (out->numel() > 0) be.avg_pool2d(*out, *xc, a);
  if (autograd::should_record({&xc})) autograd::record_avg_pool2d(out, xc, a);
  return out;
}

}  // namespace aakaar::ops
