"""Automatic differentiation. The engine (graph, dependency counting, every
backward formula) is C++ (``csrc/autograd``); this package is its Python face:
``backward``, ``grad``, grad-mode switches, ``gradcheck``, and ``Function``
(custom ops with a backward written in Python: function.py).

Rules where the derivative is not defined or not obvious (all PyTorch's):

* **Ties.** ``amax``/``amin`` (and ``max()``/``min()`` without a dim) share the
  gradient evenly among tied extremes: each of k tied elements gets g / k.
  ``max(dim)``/``min(dim)`` return an index, and the whole gradient goes to
  that element. ``maximum``/``minimum`` split it in half on a tie; ``relu``,
  ``abs`` and ``clamp`` at their kinks give 0, 0 and 1 (inside the bounds).
* **In-place ops** on tensors in the graph are recorded like out-of-place ops
  and the tensor takes over the new history. A tensor that a node saved for
  backward may be modified, as in PyTorch: its version counter makes that
  node's backward raise ("one of the variables needed for gradient
  computation has been modified by an inplace operation"), naming the node,
  if the value is really needed. Refused at once: a leaf that requires grad,
  or a view of one (its value is what gradients are taken with respect to),
  and memory shared with another *live* tensor (a view or its base), whose
  history could not be updated: its gradient would be silently wrong.
"""

from __future__ import annotations

from typing import Any, Sequence

from .. import _C
from .._C import Tensor
from .grad_mode import enable_grad, inference_mode, is_grad_enabled, is_inference_mode_enabled, no_grad, set_grad_enabled
from .function import Function, FunctionCtx, once_differentiable
from .gradcheck import gradcheck
from . import functional  # noqa: E402  (torch.autograd.functional)

__all__ = ["backward", "grad", "gradcheck", "no_grad", "enable_grad", "set_grad_enabled", "is_grad_enabled",
           "inference_mode", "is_inference_mode_enabled", "Function", "FunctionCtx", "once_differentiable", "functional"]


def backward(
    tensors: Tensor | Sequence[Tensor],
    grad_tensors: Tensor | Sequence[Tensor | None] | None = None,
    retain_graph: bool | None = None,
    create_graph: bool = False,
) -> None:
    """Accumulates into ``.grad`` of the leaves the gradient of ``tensors``
    (weighted by ``grad_tensors``; a scalar needs none)."""
    retain = create_graph if retain_graph is None else retain_graph
    _C.autograd.backward(tensors, grad_tensors, retain, create_graph)


def grad(
    outputs: Tensor | Sequence[Tensor],
    inputs: Tensor | Sequence[Tensor],
    grad_outputs: Tensor | Sequence[Tensor | None] | None = None,
    retain_graph: bool | None = None,
    create_graph: bool = False,
    allow_unused: bool | None = None,
    is_grads_batched: bool = False,
    materialize_grads: bool = False,
) -> tuple[Tensor | None, ...]:
    """The gradients of ``outputs`` with respect to ``inputs``, returned (``.grad`` is untouched).

    With ``create_graph=True`` the returned gradients are themselves part of a
    graph and can be differentiated again. An input the outputs do not reach is an error unless
    ``allow_unused`` (then its gradient is None) or ``materialize_grads`` (then zeros).
    """
    if materialize_grads and allow_unused is False:
        raise ValueError("Expected allow_unused to be True or not passed when materialize_grads=True, "
                         "but got: allow_unused=False.")
    if is_grads_batched:
        raise NotImplementedError("autograd.grad(is_grads_batched=True): aakaar has no batched backward; "
                                  "call grad once per row of grad_outputs (aakaar.func.vmap does that loop)")
    retain = create_graph if retain_graph is None else retain_graph
    unused_ok = bool(allow_unused) or materialize_grads
    grads = _C.autograd.grad(outputs, inputs, grad_outputs, retain, create_graph, unused_ok)
    if not materialize_grads:
        return grads
    xs = [inputs] if isinstance(inputs, Tensor) else list(inputs)
    from ..creation import zeros_like  # late: aakaar.creation imports this package

    return tuple(zeros_like(x) if g is None else g for g, x in zip(grads, xs))


def _tensor_backward(
    self: Tensor,
    gradient: Tensor | None = None,
    retain_graph: bool | None = None,
    create_graph: bool = False,
    inputs: Sequence[Tensor] | None = None,
) -> None:
    """Computes the gradient of this tensor with respect to the graph's leaves."""
    retain = create_graph if retain_graph is None else retain_graph
    self._backward(gradient, retain, create_graph, inputs)


Tensor.backward = _tensor_backward
