"""``torch.utils.checkpoint``: activation checkpointing, memory for compute.

``checkpoint(function, *args)`` runs ``function`` without recording a graph, so none of its
intermediate activations are kept; in the backward pass it runs ``function`` again, this time
recording, on the saved inputs, and backpropagates through that recomputation. The random
generator's state at the forward is restored for the recomputation, so dropout drops the same
elements twice and the gradients equal those of the plain function.

This is torch's *reentrant* variant (``CheckpointFunction``): a custom ``autograd.Function`` whose
backward runs an inner ``autograd.backward``. That inner backward accumulates the gradients of the
tensors the function closes over (a module's parameters) into their ``.grad``, as torch's reentrant
variant does; the gradients of the inputs flow back through the node as usual.
"""

from __future__ import annotations

import functools
import warnings
from typing import Any, Callable

from .. import _C, random
from .._C import Tensor
from ..autograd import Function, backward, enable_grad, is_grad_enabled, no_grad

__all__ = ["checkpoint", "checkpoint_sequential"]


class CheckpointFunction(Function):
    """Forward without a graph; backward recomputes with one and backpropagates through it."""

    @staticmethod
    def forward(ctx: Any, run_function: Callable, preserve_rng_state: bool, *args: Any) -> Any:
        ctx.run_function = run_function
        ctx.preserve_rng_state = preserve_rng_state
        if preserve_rng_state:
            ctx.fwd_rng_state = random.get_rng_state()
        # Tensors go through save_for_backward (the node owns them); everything else as it is.
        ctx.inputs = [None if isinstance(a, Tensor) else a for a in args]
        ctx.tensor_indices = [i for i, a in enumerate(args) if isinstance(a, Tensor)]
        ctx.save_for_backward(*[a for a in args if isinstance(a, Tensor)])
        with no_grad():
            return run_function(*args)

    @staticmethod
    def backward(ctx: Any, *grad_outputs: Any) -> Any:
        inputs = list(ctx.inputs)
        for i, t in zip(ctx.tensor_indices, ctx.saved_tensors):
            inputs[i] = t
        # fork_rng: the recomputation's draws must not advance the generator the rest of the program sees.
        with random.fork_rng(enabled=ctx.preserve_rng_state):
            if ctx.preserve_rng_state:
                random.set_rng_state(ctx.fwd_rng_state)
            detached = [_detach(a) for a in inputs]
            with enable_grad():
                outputs = ctx.run_function(*detached)
        if isinstance(outputs, Tensor):
            outputs = (outputs,)
        with_grad = [(o, g) for o, g in zip(outputs, grad_outputs) if isinstance(o, Tensor) and o.requires_grad]
        if not with_grad:
            raise RuntimeError("none of output has requires_grad=True, this checkpoint() is not necessary")
        backward([o for o, _ in with_grad], [g for _, g in with_grad])
        return (None, None) + tuple(a.grad if isinstance(a, Tensor) else None for a in detached)


def _detach(a: Any) -> Any:
    """A tensor input cut from the outer graph (a leaf that requires grad as the input did)."""
    if not isinstance(a, Tensor):
        return a
    leaf = a.detach()
    leaf.requires_grad_(a.requires_grad)
    return leaf


def checkpoint(function: Callable, *args: Any, use_reentrant: bool | None = None, context_fn: Any = None,
               determinism_check: str = "default", debug: bool = False, early_stop: bool = True,
               **kwargs: Any) -> Any:
    """``function(*args, **kwargs)``, its activations recomputed in the backward pass instead of kept.

    ``preserve_rng_state`` (keyword, default True): restore the random generator's state for the
    recomputation, so random ops (dropout) draw as in the forward (only the default generator's
    state is saved: aakaar keeps no per-device generator state to save).

    Differences from torch 2.13, said plainly:

    - torch warns when ``use_reentrant`` is not passed and then uses the reentrant variant; aakaar
      uses the same variant without the warning.
    - Both values of ``use_reentrant`` run the reentrant variant (the non-reentrant one needs
      saved-tensor hooks, which aakaar's autograd does not have). ``use_reentrant=False`` keeps its
      torch interface: keyword arguments pass to ``function``, and the output is part of the graph
      even when no input requires grad (a module's parameters still get gradients). Its gradients
      reach closed-over tensors through ``.grad`` (not through ``autograd.grad(..., inputs=...)``).
    - ``context_fn``, ``determinism_check`` and ``debug`` are accepted for ``use_reentrant=False``
      (a ``context_fn`` other than None is a NotImplementedError) and ignored otherwise, as torch.
    """
    preserve = kwargs.pop("preserve_rng_state", True)
    if use_reentrant is None:
        use_reentrant = True  # torch's default (torch also warns here; aakaar does not)
    if kwargs and use_reentrant:
        raise ValueError("Unexpected keyword arguments: " + ",".join(arg for arg in kwargs))
    if use_reentrant:
        if context_fn is not None or debug is not False:
            raise ValueError("Passing `context_fn` or `debug` is only supported when use_reentrant=False.")
        if not any(isinstance(a, Tensor) and a.requires_grad for a in args):
            warnings.warn("None of the inputs have requires_grad=True. Gradients will be None", stacklevel=2)
        return CheckpointFunction.apply(function, preserve, *args)
    if context_fn is not None:
        raise NotImplementedError("checkpoint: context_fn needs the non-reentrant variant, which aakaar does not have")
    if kwargs:
        function = functools.partial(function, **kwargs)
    if not is_grad_enabled():
        return function(*args)  # nothing will be recorded: nothing to recompute
    # A leaf that requires grad gives the node an input that wants a gradient, so the output is recorded even
    # when no argument requires grad: the parameters inside still get theirs (torch's non-reentrant behaviour).
    anchor = _C.zeros([], requires_grad=True)
    return CheckpointFunction.apply(lambda _anchor, *a: function(*a), preserve, anchor, *args)


def checkpoint_sequential(functions: Any, segments: int, input: Any, use_reentrant: bool | None = None,
                          **kwargs: Any) -> Any:
    """Runs ``functions`` (an ``nn.Sequential`` or a list of modules/functions) on ``input`` in
    ``segments`` chunks, checkpointing every chunk but the last (torch's split: ``len // segments``
    functions per chunk, the remainder in the last)."""
    preserve = kwargs.pop("preserve_rng_state", True)
    if kwargs:
        raise ValueError("Unexpected keyword arguments: " + ",".join(arg for arg in kwargs))
    from ..nn import Sequential
    if isinstance(functions, Sequential):
        functions = list(functions.children())
    functions = list(functions) if not isinstance(functions, list) else functions

    def run(start: int, end: int, fns: list) -> Callable:
        def forward(x: Any) -> Any:
            for j in range(start, end + 1):
                x = fns[j](x)
            return x
        return forward

    segment_size = len(functions) // segments
    end = -1
    for start in range(0, segment_size * (segments - 1), segment_size):
        end = start + segment_size - 1
        input = checkpoint(run(start, end, functions), input, use_reentrant=use_reentrant,
                           preserve_rng_state=preserve)
    return run(end + 1, len(functions) - 1, functions)(input)
