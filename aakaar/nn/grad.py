"""``torch.nn.grad``: the gradient of a convolution with respect to its input or its weight, given the
gradient of its output (for custom autograd functions that reuse a convolution's backward).

Each runs the library's own convolution backward: a convolution of a stand-in leaf of the asked-for
size is differentiated with ``autograd.grad``. A convolution is linear in each operand, so the stand-in's
values do not matter (zeros). With ``create_graph`` when an operand requires grad, the result is
itself differentiable, as PyTorch's ``convolution_backward`` is.
"""

from __future__ import annotations

from typing import Callable, Sequence, Union

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


def _conv_grad(n: int, wrt: str, first: object, second: object, grad_output: Tensor, stride: IntOrSeq,
               padding: IntOrSeq, dilation: IntOrSeq, groups: int) -> Tensor:
    """``wrt="input"``: (first, second) = (input_size, weight); ``"weight"``: (input, weight_size)."""
    fn = f"conv{n}d_{wrt}"
    conv = (F.conv1d, F.conv2d, F.conv3d)[n - 1]
    _check_tensor(grad_output, fn, "grad_output")
    size, other = (first, second) if wrt == "input" else (second, first)
    _check_tensor(other, fn, "weight" if wrt == "input" else "input")
    # The stand-in leaf: zeros of the asked-for size, the gradient's dtype and device.
    leaf = _C.zeros(_size(size, fn, f"{wrt}_size", n), dtype=grad_output.dtype, device=grad_output.device)
    differentiable = other.requires_grad or grad_output.requires_grad
    with autograd.enable_grad():
        leaf.requires_grad_()
        x, w = (leaf, other) if wrt == "input" else (other, leaf)
        out = conv(x, w, None, stride, padding, dilation, groups)
        if tuple(out.shape) != tuple(grad_output.shape):
            raise RuntimeError(f"{fn}(): grad_output has shape {list(grad_output.shape)}, but the convolution's output "
                               f"has shape {list(out.shape)}")
        return autograd.grad(out, leaf, grad_output, create_graph=differentiable)[0]


def _make(n: int, wrt: str) -> Callable[..., Tensor]:
    """``conv{n}d_input(input_size, weight, grad_output, ...)`` or ``conv{n}d_weight(input, weight_size, ...)``."""
    if wrt == "input":
        def f(input_size: Sequence[int], weight: Tensor, grad_output: Tensor, stride: IntOrSeq = 1,
              padding: IntOrSeq = 0, dilation: IntOrSeq = 1, groups: int = 1) -> Tensor:
            return _conv_grad(n, wrt, input_size, weight, grad_output, stride, padding, dilation, groups)
    else:
        def f(input: Tensor, weight_size: Sequence[int], grad_output: Tensor, stride: IntOrSeq = 1,  # type: ignore[misc]
              padding: IntOrSeq = 0, dilation: IntOrSeq = 1, groups: int = 1) -> Tensor:
            return _conv_grad(n, wrt, input, weight_size, grad_output, stride, padding, dilation, groups)
    f.__name__ = f.__qualname__ = f"conv{n}d_{wrt}"
    f.__doc__ = f"The gradient of ``conv{n}d`` with respect to its {wrt}, of shape ``{wrt}_size``."
    return f


conv1d_input, conv2d_input, conv3d_input = (_make(n, "input") for n in (1, 2, 3))
conv1d_weight, conv2d_weight, conv3d_weight = (_make(n, "weight") for n in (1, 2, 3))
