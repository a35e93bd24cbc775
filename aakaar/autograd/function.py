"""``aakaar.autograd.Function``: an op whose forward and backward you write yourself.

As in PyTorch::

    class Exp(Function):
        @staticmethod
        def forward(ctx, x):
            y = x.exp()
            ctx.save_for_backward(y)
            return y

        @staticmethod
        def backward(ctx, grad):
            (y,) = ctx.saved_tensors
            return grad * y

    y = Exp.apply(x)

``forward`` runs with the graph off (no_grad); ``apply`` then records *one* node
for the whole call (``y.grad_fn`` is ``<ExpBackward>``), exactly as a built-in op
records its own (chapter 11). Its edges go to the tensor arguments that require
grad; the tensors given to ``save_for_backward`` are saved as a built-in op saves
them, so changing one in place before backward is an error naming the node, and
they are freed after backward unless ``retain_graph=True``. ``backward`` gets one
gradient per output and returns one per argument of ``forward`` (None for
arguments that are not tensors or need no gradient); a gradient whose shape the
input broadcasts to is summed back to the input's shape, anything else is an
error. With ``create_graph=True`` the ops in ``backward`` are recorded, so a
backward written with differentiable ops can itself be differentiated;
``@once_differentiable`` runs it with the graph off instead.

The second style, ``forward(*args)`` without ctx plus ``setup_context(ctx, inputs,
output)``, works too. ``ctx.mark_dirty`` (an argument modified in place and
returned), ``ctx.mark_non_differentiable`` and ``ctx.set_materialize_grads`` are
PyTorch's. One difference: the engine gives a zero gradient to an output that got
none (as it does for every node), so ``set_materialize_grads(False)`` makes only
the gradients of non-differentiable outputs None, not those of unused ones; the
gradients computed are the same.
"""

from __future__ import annotations

import functools
from typing import Any, Callable

from .. import _C
from .._C import Tensor
from .grad_mode import is_grad_enabled, no_grad

__all__ = ["Function", "FunctionCtx", "once_differentiable"]


class FunctionCtx:
    """The ``ctx`` of a custom Function: what forward leaves for backward."""

    def __init__(self, needs_input_grad: tuple[bool, ...]) -> None:
        self.needs_input_grad = needs_input_grad
        self.materialize_grads = True
        self._to_save: tuple[Tensor | None, ...] = ()
        self._saved: tuple[Tensor | None, ...] | None = None
        self._recorded = False
        self._non_differentiable: set[int] = set()
        self._dirty: set[int] = set()

    def save_for_backward(self, *tensors: Tensor | None) -> None:
        """Keeps tensors for backward (``ctx.saved_tensors``), with the version check built-in ops have."""
        for i, t in enumerate(tensors):
            if t is not None and not isinstance(t, Tensor):
                raise TypeError(f"save_for_backward can only save tensors (or None), but argument {i} is of type "
                                f"{type(t).__name__}; keep other values as attributes of ctx")
        self._to_save = tensors

    @property
    def saved_tensors(self) -> tuple[Tensor | None, ...]:
        """The tensors given to ``save_for_backward``, checked against in-place changes (in backward)."""
        if self._saved is not None:
            return self._saved
        if self._recorded:
            raise RuntimeError("saved_tensors can be read only inside backward: after forward they belong to the "
                               "graph's node, which frees them after backward unless retain_graph=True")
        return self._to_save

    # PyTorch's alias (``ctx.saved_variables`` was the old name).
    @property
    def saved_variables(self) -> tuple[Tensor | None, ...]:
        return self.saved_tensors

    def mark_non_differentiable(self, *outputs: Tensor) -> None:
        """These outputs carry no gradient (indices, masks): they get no history."""
        self._non_differentiable.update(id(t) for t in outputs)

    def mark_dirty(self, *tensors: Tensor) -> None:
        """These arguments were modified in place by forward (and are returned): they take the new history."""
        self._dirty.update(id(t) for t in tensors)

    def set_materialize_grads(self, value: bool) -> None:
        """False: backward gets None, not zeros, for outputs that carry no gradient (see the module's note)."""
        self.materialize_grads = bool(value)


def once_differentiable(backward: Callable) -> Callable:
    """Decorates a ``backward`` that is not itself differentiable: it runs with the graph off, so
    ``create_graph=True`` gives gradients without history (a second derivative through it is refused)."""

    @functools.wraps(backward)
    def wrapper(ctx: FunctionCtx, *grads: Any) -> Any:
        with no_grad():
            return backward(ctx, *grads)

    return wrapper


def _overridden(cls: type, name: str) -> bool:
    return getattr(cls, name) is not getattr(Function, name)


class Function:
    """Base class of custom ops: subclass it with static ``forward`` and ``backward`` and call
    ``YourFunction.apply(*args)``; never instantiate it."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        raise RuntimeError(f"{type(self).__name__} is a custom autograd Function: call {type(self).__name__}.apply(...) "
                           "instead of instantiating it (as in PyTorch, forward and backward are static methods)")

    @staticmethod
    def forward(ctx: FunctionCtx, *args: Any, **kwargs: Any) -> Any:
        raise NotImplementedError("You must implement the forward function for custom autograd.Function.")

    @staticmethod
    def setup_context(ctx: FunctionCtx, inputs: tuple, output: Any) -> Any:
        raise NotImplementedError("setup_context is not overridden")

    @staticmethod
    def backward(ctx: FunctionCtx, *grad_outputs: Any) -> Any:
        raise NotImplementedError("You must implement either the backward or vjp method for your custom "
                                  "autograd.Function to use it with backward mode AD.")

    @staticmethod
    def jvp(ctx: FunctionCtx, *grad_inputs: Any) -> Any:
        raise NotImplementedError("forward-mode AD (jvp) is not supported by aakaar's autograd")

    @classmethod
    def apply(cls, *args: Any, **kwargs: Any) -> Any:
        if not _overridden(cls, "forward"):
            raise NotImplementedError(f"{cls.__name__}: You must implement the forward function for custom "
                                      "autograd.Function.")
        ctx = FunctionCtx(tuple(isinstance(a, Tensor) and a.requires_grad for a in args))
        with no_grad():
            if _overridden(cls, "setup_context"):
                output = cls.forward(*args, **kwargs)
                cls.setup_context(ctx, args, output)
            else:
                output = cls.forward(ctx, *args, **kwargs)
        if not (is_grad_enabled() and any(ctx.needs_input_grad)):
            return output
        return _record(cls, ctx, args, output)

    # PyTorch's alias.
    @classmethod
    def vjp(cls, ctx: FunctionCtx, *grad_outputs: Any) -> Any:
        return cls.backward(ctx, *grad_outputs)


def _record(cls: type, ctx: FunctionCtx, args: tuple, output: Any) -> Any:
    """Gives the tensor outputs of ``cls.apply`` one node whose backward calls ``cls.backward``."""
    single = not isinstance(output, tuple)
    outs = list((output,) if single else output)
    arg_ids = {id(a) for a in args if isinstance(a, Tensor)}
    recorded: list[int] = []  # positions in outs of the outputs that get the node
    for i, o in enumerate(outs):
        if not isinstance(o, Tensor) or id(o) in ctx._non_differentiable or not o.is_floating_point():
            continue
        if id(o) in ctx._dirty:
            if o.is_leaf and o.requires_grad:
                raise RuntimeError(f"{cls.__name__}: a leaf Variable that requires grad is being used in an in-place "
                                   "operation (marked dirty by ctx.mark_dirty)")
        elif id(o) in arg_ids or o.requires_grad:
            # An argument returned as it is (or a tensor with history of its own): the output is a new
            # tensor object sharing its memory, so the argument keeps its own history (PyTorch's rule).
            o = outs[i] = Tensor(o)
        recorded.append(i)
    for t in ctx._dirty:
        if t in arg_ids and not any(id(outs[i]) == t for i in recorded):
            raise RuntimeError(f"{cls.__name__}: some elements marked as dirty during the forward method were not "
                               "returned as output (an argument modified in place must be returned)")
    materialize = ctx.materialize_grads
    # Shapes of every tensor output, to hand zeros (or None) for outputs without a node.
    templates = [(o.shape, o.dtype, o.device) if isinstance(o, Tensor) else None for o in outs]
    tensor_args = [isinstance(a, Tensor) for a in args]

    def backward(grads: tuple, saved: tuple, needs: tuple) -> Any:
        full: list[Any] = [None] * len(outs)
        for position, g in zip(recorded, grads):
            full[position] = g
        if materialize:
            for i, t in enumerate(templates):
                if full[i] is None and t is not None:
                    full[i] = _C.zeros(t[0], dtype=t[1], device=t[2])
        ctx._saved = saved
        try:
            result = cls.backward(ctx, *full)
        finally:
            ctx._saved = None
        as_tuple = result if isinstance(result, tuple) else (result,)
        for i, g in enumerate(as_tuple[:len(args)]):
            if g is not None and not tensor_args[i]:
                raise RuntimeError(f"function {cls.__name__}Backward returned a gradient different than None at "
                                   f"position {i + 1}, but the corresponding forward input was not a Tensor")
        return as_tuple

    _C.autograd._record_function(f"{cls.__name__}Backward", [a if isinstance(a, Tensor) else None for a in args],
                                 [outs[i] for i in recorded], list(ctx._to_save), backward)
    ctx._to_save = ()  # the node holds them now (and frees them after backward)
    ctx._recorded = True
    return outs[0] if single else tuple(outs)
