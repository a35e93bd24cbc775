"""What ``Module.__call__`` runs around ``forward`` once a hook is registered, in PyTorch's order:
forward pre-hooks, (backward hooks set up on the inputs), forward, forward hooks, (backward
hooks set up on the outputs).

Backward hooks need the gradients *at the module's boundary*, which no single node of the graph
has: the module may be many ops. So, as PyTorch does, the tensors entering and leaving the module
pass through an identity op (an ``autograd.Function``) whose backward sees exactly those
gradients: the one on the outputs runs first (``grad_output``, and the backward pre-hooks), the
one on the inputs last (``grad_input``, and the full backward hooks, which may replace it).
"""

from __future__ import annotations

import warnings
from typing import Any, Callable

from .._C import Tensor
from ..autograd import is_grad_enabled
from ..autograd.function import Function

__all__ = ["call_with_hooks"]


# [[book:boundary_identity]]
class _BoundaryIdentity(Function):
    """Returns its tensors unchanged; in backward, hands their gradients to ``on_grads``, whose
    result replaces them."""

    @staticmethod
    def forward(ctx, on_grads: Callable, *tensors: Tensor) -> tuple[Tensor, ...]:
        ctx.on_grads = on_grads
        return tensors

    @staticmethod
    def backward(ctx, *grads: Tensor) -> tuple:
        return (None, *ctx.on_grads(grads))
# [[/book:boundary_identity]]


def _spread(values: tuple, positions: list[int], size: int) -> tuple:
    """``values`` put at ``positions`` of a tuple of ``size`` Nones."""
    out: list[Any] = [None] * size
    for p, v in zip(positions, values):
        out[p] = v
    return tuple(out)


class _BackwardHook:
    """The state of one forward call whose module has full backward (pre-)hooks."""

    def __init__(self, module: Any, hooks: dict, pre_hooks: dict) -> None:
        self.module, self.hooks, self.pre_hooks = module, hooks, pre_hooks
        self.grad_outputs: tuple | None = None
        self.n_inputs = 0
        self.input_positions: list[int] = []

    def _wrap(self, values: tuple, on_grads: Callable) -> tuple[tuple, list[int]]:
        positions = [i for i, v in enumerate(values) if isinstance(v, Tensor) and v.requires_grad]
        if not positions or not is_grad_enabled():
            return values, []
        wrapped = _BoundaryIdentity.apply(on_grads, *[values[i] for i in positions])
        out = list(values)
        for p, w in zip(positions, wrapped):
            out[p] = w
        return tuple(out), positions

    def setup_input_hook(self, args: tuple) -> tuple:
        self.n_inputs = len(args)
        if not self.hooks:
            return args
        args, self.input_positions = self._wrap(args, self._on_input_grads)
        return args

    def setup_output_hook(self, result: Any) -> Any:
        single = not isinstance(result, tuple)
        values = (result,) if single else result
        n_outputs = len(values)

        def on_output_grads(grads: tuple) -> tuple:
            grad_outputs = _spread(grads, positions, n_outputs)
            for hook in list(self.pre_hooks.values()):
                replaced = hook(self.module, grad_outputs)
                if replaced is not None:
                    replaced = replaced if isinstance(replaced, tuple) else (replaced,)
                    if len(replaced) != n_outputs:
                        raise RuntimeError(f"Backward pre hook returned an invalid number of grad_output, got "
                                           f"{len(replaced)}, but expected {n_outputs}")
                    grad_outputs = replaced
            self.grad_outputs = grad_outputs
            if self.hooks and not self.input_positions:
                # No input needs a gradient: the hooks run now, with grad_input all None.
                none_inputs = (None,) * self.n_inputs
                for hook in list(self.hooks.values()):
                    answer = hook(self.module, none_inputs, grad_outputs)
                    if answer is not None and not all(a is None for a in answer):
                        raise RuntimeError("Backward hook for Modules where no input requires gradient should "
                                           "always return None or None for all gradients.")
            return tuple(grad_outputs[p] for p in positions)

        wrapped, positions = self._wrap(values, on_output_grads)
        return wrapped[0] if single else wrapped

    def _on_input_grads(self, grads: tuple) -> tuple:
        grad_inputs = _spread(grads, self.input_positions, self.n_inputs)
        for hook in list(self.hooks.values()):
            replaced = hook(self.module, grad_inputs, self.grad_outputs)
            if replaced is not None:
                replaced = replaced if isinstance(replaced, tuple) else (replaced,)
                if len(replaced) != self.n_inputs:
                    raise RuntimeError(f"Backward hook returned an invalid number of grad_input, got {len(replaced)}, "
                                       f"but expected {self.n_inputs}")
                grad_inputs = replaced
        self.grad_outputs = None  # freed: the hooks of this call have run
        return tuple(grad_inputs[p] for p in self.input_positions)


def call_with_hooks(module: Any, args: tuple, kwargs: dict) -> Any:
    """``module(*args, **kwargs)`` with its hooks (see the module docstring)."""
    d = module.__dict__
    pre_hooks, pre_kwargs = d.get("_forward_pre_hooks", {}), d.get("_forward_pre_hooks_with_kwargs", {})
    for hook_id, hook in list(pre_hooks.items()):
        if pre_kwargs.get(hook_id):
            answer = hook(module, args, kwargs)
            if answer is not None:
                if not (isinstance(answer, tuple) and len(answer) == 2):
                    raise RuntimeError("forward pre-hook must return None or a tuple of (new_args, new_kwargs), "
                                       f"but got {answer}.")
                args, kwargs = answer
        else:
            answer = hook(module, args)
            if answer is not None:
                args = answer if isinstance(answer, tuple) else (answer,)
    backward_hooks, backward_pre_hooks = d.get("_backward_hooks", {}), d.get("_backward_pre_hooks", {})
    bw = _BackwardHook(module, backward_hooks, backward_pre_hooks) if backward_hooks or backward_pre_hooks else None
    if bw is not None:
        args = bw.setup_input_hook(args)
    forward_hooks = d.get("_forward_hooks", {})
    with_kwargs, always = d.get("_forward_hooks_with_kwargs", {}), d.get("_forward_hooks_always_called", {})
    try:
        result = module.forward(*args, **kwargs)
    except BaseException:
        for hook_id, hook in list(forward_hooks.items()):
            if always.get(hook_id):
                try:
                    hook(module, args, kwargs, None) if with_kwargs.get(hook_id) else hook(module, args, None)
                except Exception as hook_error:  # the forward's own error is the one raised (PyTorch's rule)
                    warnings.warn(f"forward hook with always_call=True raised while handling the forward's "
                                  f"exception: {hook_error!r}", stacklevel=3)
        raise
    for hook_id, hook in list(forward_hooks.items()):
        answer = hook(module, args, kwargs, result) if with_kwargs.get(hook_id) else hook(module, args, result)
        if answer is not None:
            result = answer
    if bw is not None:
        result = bw.setup_output_hook(result)
    return result
