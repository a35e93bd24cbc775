"""``torch.autograd.functional``: derivatives of a whole function at a point — ``vjp``, ``jvp``,
``jacobian``, ``hessian``, ``vhp``, ``hvp`` — built from :func:`aakaar.autograd.grad`.

Each call evaluates ``func`` on detached copies of ``inputs`` that require grad, so the caller's
tensors and graph are untouched. A Jacobian is taken one output element at a time (reverse mode,
one backward pass per row: the ``vectorize=True`` and forward-mode strategies of PyTorch compute
the same numbers faster and are accepted, with this loop). Forward-mode products (``jvp``,
``hvp``) use the double-backward trick: the derivative of a vector-Jacobian product with respect
to its vector. As in PyTorch, an input the outputs do not depend on gets zeros (``strict=True``
refuses instead).
"""

from __future__ import annotations

from typing import Any, Callable, Sequence

from .. import _C
from .._C import Tensor
from .grad_mode import enable_grad


def _zeros_like(t: Tensor) -> Tensor:
    from ..creation import zeros_like  # late: aakaar.creation imports the package this module is part of

    return zeros_like(t)


def _ones_like(t: Tensor) -> Tensor:
    from ..creation import ones_like

    return ones_like(t)

__all__ = ["vjp", "jvp", "jacobian", "hessian", "vhp", "hvp"]


def _as_tuple(x: Any, what: str, fn: str) -> tuple[bool, tuple[Tensor, ...]]:
    """(whether x was a tuple, x as a tuple of tensors), with torch's TypeError otherwise."""
    is_tuple = isinstance(x, (tuple, list))
    items = tuple(x) if is_tuple else (x,)
    for i, t in enumerate(items):
        if not isinstance(t, Tensor):
            raise TypeError(f"The {what} given to {fn} must be either a Tensor or a tuple of Tensors but the"
                            f" value at index {i} has type {type(t).__name__}.")
    return is_tuple, items


def _prepare(inputs: tuple[Tensor, ...], create_graph: bool) -> tuple[Tensor, ...]:
    """Copies of the inputs that require grad (views of the originals' graph when create_graph)."""
    if create_graph:
        return tuple(t if t.requires_grad else t.detach().requires_grad_(True) for t in inputs)
    return tuple(t.detach().requires_grad_(True) for t in inputs)


def _grads(outputs: Sequence[Tensor], inputs: tuple[Tensor, ...], grad_outputs: Sequence[Tensor] | None,
           create_graph: bool, strict: bool, fn: str) -> tuple[Tensor, ...]:
    """d(outputs . grad_outputs)/d inputs, zeros for inputs the outputs do not reach."""
    outs = [o for o in outputs if o.requires_grad]
    gos = None if grad_outputs is None else [g for o, g in zip(outputs, grad_outputs) if o.requires_grad]
    found = _C.autograd.grad(outs, list(inputs), gos, True, create_graph, True) if outs else [None] * len(inputs)
    result = []
    for i, (g, x) in enumerate(zip(found, inputs)):
        if g is None:
            if strict:
                raise RuntimeError(f"The output of the user-provided function is independent of input {i}. "
                                   f"This is not allowed in strict mode ({fn}).")
            g = _zeros_like(x)
        result.append(g if create_graph else g.detach())
    return tuple(result)


def _finish(values: tuple[Tensor, ...], was_tuple: bool, create_graph: bool) -> Any:
    values = values if create_graph else tuple(v.detach() for v in values)
    return values if was_tuple else values[0]


def vjp(func: Callable[..., Any], inputs: Any, v: Any = None, create_graph: bool = False,
        strict: bool = False) -> tuple[Any, Any]:
    """(func(inputs), v^T J): the vector-Jacobian product at ``inputs``; ``v`` may be omitted
    when the output is a single element."""
    in_tuple, xs = _as_tuple(inputs, "inputs", "vjp")
    with enable_grad():
        xs = _prepare(xs, create_graph)
        out = func(*xs)
        out_tuple, outs = _as_tuple(out, "outputs of the user-provided function", "vjp")
        if v is None:
            if len(outs) != 1 or outs[0].numel() != 1:
                raise RuntimeError("The vector v can only be None if the user-provided function returns a single"
                                   " Tensor with a single element.")
            vs: tuple[Tensor, ...] = (_ones_like(outs[0]),)
        else:
            _, vs = _as_tuple(v, "v", "vjp")
            _check_shapes(vs, outs, "v", "outputs of the user-provided function")
        grads = _grads(outs, xs, vs, create_graph, strict, "vjp")
    return _finish(outs, out_tuple, create_graph), _finish(grads, in_tuple, create_graph)


def jvp(func: Callable[..., Any], inputs: Any, v: Any = None, create_graph: bool = False,
        strict: bool = False) -> tuple[Any, Any]:
    """(func(inputs), J v): the Jacobian-vector product at ``inputs``, by differentiating the
    vector-Jacobian product u -> u^T J with respect to u (the double-backward trick)."""
    in_tuple, xs = _as_tuple(inputs, "inputs", "jvp")
    if v is None:
        if len(xs) != 1 or xs[0].numel() != 1:
            raise RuntimeError("The vector v can only be None if the input to the user-provided function is a single"
                               " Tensor with a single element.")
        vs: tuple[Tensor, ...] = (_ones_like(xs[0]),)
    else:
        _, vs = _as_tuple(v, "v", "jvp")
        _check_shapes(vs, xs, "v", "inputs")
    with enable_grad():
        xs = _prepare(xs, create_graph)
        out = func(*xs)
        out_tuple, outs = _as_tuple(out, "outputs of the user-provided function", "jvp")
        us = tuple(_zeros_like(o).requires_grad_(True) for o in outs)
        g = _grads(outs, xs, us, True, strict, "jvp")
        jv = _grads(g, us, vs, create_graph, strict, "jvp")
    return _finish(outs, out_tuple, create_graph), _finish(jv, out_tuple, create_graph)


def _check_shapes(given: tuple[Tensor, ...], expected: tuple[Tensor, ...], what: str, against: str) -> None:
    if len(given) != len(expected):
        raise RuntimeError(f"{what} is expected to have the same number of elements as the {against}: "
                           f"{len(given)} against {len(expected)}")
    for a, b in zip(given, expected):
        if tuple(a.shape) != tuple(b.shape):
            raise RuntimeError(f"Mismatch in shape: {what} has shape {list(a.shape)} but the {against} has shape "
                               f"{list(b.shape)}")


def jacobian(func: Callable[..., Any], inputs: Any, create_graph: bool = False, strict: bool = False,
             vectorize: bool = False, strategy: str = "reverse-mode") -> Any:
    """The Jacobian of ``func`` at ``inputs``: for one input and one output a tensor of shape
    ``output.shape + input.shape``; tuples of them give tuples (outputs outer, inputs inner)."""
    if strategy not in ("reverse-mode", "forward-mode"):
        raise ValueError('Expected strategy to be either "forward-mode" or "reverse-mode". Hint: If your '
                         'function has more outputs than inputs, "forward-mode" tends to be more performant. '
                         'Otherwise, prefer to use "reverse-mode".')
    in_tuple, xs = _as_tuple(inputs, "inputs", "jacobian")
    with enable_grad():
        xs = _prepare(xs, create_graph)
        out = func(*xs)
        out_tuple, outs = _as_tuple(out, "outputs of the user-provided function", "jacobian")
        per_output = []
        for o in outs:
            flat = o.reshape(-1)
            rows: list[list[Tensor]] = [[] for _ in xs]
            for k in range(flat.numel()):
                g = _grads([flat[k]], xs, None, create_graph, strict, "jacobian")
                for j, gj in enumerate(g):
                    rows[j].append(gj)
            blocks = []
            for j, x in enumerate(xs):
                stacked = _C.stack(rows[j], 0) if rows[j] else _C.zeros([0] + list(x.shape), dtype=x.dtype)
                blocks.append(stacked.reshape(list(o.shape) + list(x.shape)))
            per_output.append(tuple(blocks))
    if not create_graph:
        per_output = [tuple(b.detach() for b in blocks) for blocks in per_output]
    if out_tuple:
        return tuple(blocks if in_tuple else blocks[0] for blocks in per_output)
    return per_output[0] if in_tuple else per_output[0][0]


def hessian(func: Callable[..., Any], inputs: Any, create_graph: bool = False, strict: bool = False,
            vectorize: bool = False, outer_jacobian_strategy: str = "reverse-mode") -> Any:
    """The Hessian of a scalar function at ``inputs``: shape ``input.shape + input.shape`` (for a
    tuple of inputs, a tuple of tuples of blocks)."""
    in_tuple, xs = _as_tuple(inputs, "inputs", "hessian")

    def gradient(*args: Tensor) -> Any:
        out = func(*args)
        _, outs = _as_tuple(out, "outputs of the user-provided function", "hessian")
        if len(outs) != 1 or outs[0].numel() != 1:
            raise RuntimeError("The function given to hessian should return a single Tensor with a single element")
        g = _grads(outs, args, None, True, strict, "hessian")
        return g if in_tuple else g[0]

    return jacobian(gradient, xs if in_tuple else xs[0], create_graph, strict, vectorize, outer_jacobian_strategy)


def vhp(func: Callable[..., Any], inputs: Any, v: Any = None, create_graph: bool = False,
        strict: bool = False) -> tuple[Any, Any]:
    """(func(inputs), v^T H) for a scalar function."""
    return _hessian_product(func, inputs, v, create_graph, strict, "vhp")


def hvp(func: Callable[..., Any], inputs: Any, v: Any = None, create_graph: bool = False,
        strict: bool = False) -> tuple[Any, Any]:
    """(func(inputs), H v) for a scalar function (H is symmetric, so the same numbers as vhp)."""
    return _hessian_product(func, inputs, v, create_graph, strict, "hvp")


def _hessian_product(func: Callable[..., Any], inputs: Any, v: Any, create_graph: bool, strict: bool,
                     fn: str) -> tuple[Any, Any]:
    in_tuple, xs = _as_tuple(inputs, "inputs", fn)
    if v is None:
        if len(xs) != 1 or xs[0].numel() != 1:
            raise RuntimeError("The vector v can only be None if the input to the user-provided function is a single"
                               " Tensor with a single element.")
        vs: tuple[Tensor, ...] = (_ones_like(xs[0]),)
    else:
        _, vs = _as_tuple(v, "v", fn)
        _check_shapes(vs, xs, "v", "inputs")
    with enable_grad():
        xs = _prepare(xs, create_graph)
        out = func(*xs)
        _, outs = _as_tuple(out, "outputs of the user-provided function", fn)
        if len(outs) != 1 or outs[0].numel() != 1:
            raise RuntimeError(f"The function given to {fn} should return a single Tensor with a single element")
        g = _grads(outs, xs, None, True, strict, fn)
        hv = _grads(g, xs, vs, create_graph, strict, fn)
    return outs[0].detach() if not create_graph else outs[0], _finish(hv, in_tuple, create_graph)
