"""``torch.nn.grad``: the gradient of a convolution with respect to its input or its weight, given the
gradient of its output (for custom autograd functions that reuse a convolution's backward).

Each runs the library's own convolution backward: a convolution of a stand-in leaf of the asked-for
size is differentiated with ``autograd.grad``. A convolution is linear in each operand, so the stand-in's
values do not matter (zeros). With ``create_graph`` when an operand requires grad, the result is
itself differentiable, as PyTorch's ``convolution_backward`` is.
"""

from __future__ import annotations

from typing import Sequence, Union

from .. import _C
from .._C import Tensor
from .. import autograd
from . import functional as F
from .functional_conv import _check_tensor

__all__ = ["conv1d_input", "conv1d_weight", "conv2d_input", "conv2d_weight", "conv3d_input", "conv3d_weight"]

IntOrSeq = Union[int, Sequence[int]]


def _size(size: object, fn: str, what: str, n: int) -> list[int]:
    if isinstance(size, Tensor) or not isinstance(size, Sequence) or not all(isinstance(s, int) for s in size):
        raise TypeError(f"{fn}(): {what} must be a sequence of ints, got {size!r}")
    if len(size) != n + 2:
        raise RuntimeError(f"{fn}(): {what} must have {n + 2} entries (N, C, spatial...), got {list(size)}")
    return list(size)


def _conv_grad(n: int, wrt: str, input: Tensor, weight: Tensor, grad_output: Tensor, stride: IntOrSeq,
               padding: IntOrSeq, dilation: IntOrSeq, groups: int) -> Tensor:
    fn = f"conv{n}d_{wrt}"
    conv = (F.conv1d, F.conv2d, F.conv3d)[n - 1]
    _check_tensor(grad_output, fn, "grad_output")
    other = weight if wrt == "input" else input
    _check_tensor(other, fn, "weight" if wrt == "input" else "input")
    differentiable = other.requires_grad or grad_output.requires_grad
    with autograd.enable_grad():
        leaf = (input if wrt == "input" else weight).requires_grad_()
        out = conv(leaf if wrt == "input" else input, leaf if wrt == "weight" else weight, None, stride, padding,
                   dilation, groups)
        if tuple(out.shape) != tuple(grad_output.shape):
            raise RuntimeError(f"{fn}(): grad_output has shape {list(grad_output.shape)}, but the convolution's output "
                               f"has shape {list(out.shape)}")
        return autograd.grad(out, leaf, grad_output, create_graph=differentiable)[0]


def _stand_in(size: object, grad_output: Tensor, fn: str, what: str, n: int) -> Tensor:
    """Zeros of the asked-for size (checked), the gradient's dtype and device."""
    _check_tensor(grad_output, fn, "grad_output")
    return _C.zeros(_size(size, fn, what, n), dtype=grad_output.dtype, device=grad_output.device)


def conv1d_input(input_size: Sequence[int], weight: Tensor, grad_output: Tensor, stride: IntOrSeq = 1,
                 padding: IntOrSeq = 0, dilation: IntOrSeq = 1, groups: int = 1) -> Tensor:
    """The gradient of ``conv1d`` with respect to an input of shape ``input_size``."""
    x = _stand_in(input_size, grad_output, "conv1d_input", "input_size", 1)
    return _conv_grad(1, "input", x, weight, grad_output, stride, padding, dilation, groups)


def conv1d_weight(input: Tensor, weight_size: Sequence[int], grad_output: Tensor, stride: IntOrSeq = 1,
                  padding: IntOrSeq = 0, dilation: IntOrSeq = 1, groups: int = 1) -> Tensor:
    """The gradient of ``conv1d`` with respect to a weight of shape ``weight_size``."""
    w = _stand_in(weight_size, grad_output, "conv1d_weight", "weight_size", 1)
    return _conv_grad(1, "weight", input, w, grad_output, stride, padding, dilation, groups)


def conv2d_input(input_size: Sequence[int], weight: Tensor, grad_output: Tensor, stride: IntOrSeq = 1,
                 padding: IntOrSeq = 0, dilation: IntOrSeq = 1, groups: int = 1) -> Tensor:
    """The gradient of ``conv2d`` with respect to an input of shape ``input_size``."""
    x = _stand_in(input_size, grad_output, "conv2d_input", "input_size", 2)
    return _conv_grad(2, "input", x, weight, grad_output, stride, padding, dilation, groups)


def conv2d_weight(input: Tensor, weight_size: Sequence[int], grad_output: Tensor, stride: IntOrSeq = 1,
                  padding: IntOrSeq = 0, dilation: IntOrSeq = 1, groups: int = 1) -> Tensor:
    """The gradient of ``conv2d`` with respect to a weight of shape ``weight_size``."""
    w = _stand_in(weight_size, grad_output, "conv2d_weight", "weight_size", 2)
    return _conv_grad(2, "weight", input, w, grad_output, stride, padding, dilation, groups)


def conv3d_input(input_size: Sequence[int], weight: Tensor, grad_output: Tensor, stride: IntOrSeq = 1,
                 padding: IntOrSeq = 0, dilation: IntOrSeq = 1, groups: int = 1) -> Tensor:
    """The gradient of ``conv3d`` with respect to an input of shape ``input_size``."""
    x = _stand_in(input_size, grad_output, "conv3d_input", "input_size", 3)
    return _conv_grad(3, "input", x, weight, grad_output, stride, padding, dilation, groups)


def conv3d_weight(input: Tensor, weight_size: Sequence[int], grad_output: Tensor, stride: IntOrSeq = 1,
                  padding: IntOrSeq = 0, dilation: IntOrSeq = 1, groups: int = 1) -> Tensor:
    """The gradient of ``conv3d`` with respect to a weight of shape ``weight_size``."""
    w = _stand_in(weight_size, grad_output, "conv3d_weight", "weight_size", 3)
    return _conv_grad(3, "weight", input, w, grad_output, stride, padding, dilation, groups)
