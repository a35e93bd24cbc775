"""``torch.func``'s everyday transforms on aakaar's tape-based autograd: ``grad``,
``grad_and_value``, ``vjp``, ``jvp``, ``jacrev``, ``jacfwd``, ``hessian``, ``vmap`` and
``functional_call``.

aakaar has no function transforms in its engine (no batching rules, no forward-mode AD): each
transform here runs the function with the library's reverse-mode autograd, and ``vmap`` calls it
once per batch element and stacks the results. The numbers are PyTorch's; the speed of ``vmap``
is a Python loop's, not a vectorised kernel's.
"""

from __future__ import annotations

import contextlib
from typing import Any, Callable, Iterator, Sequence

from . import _C
from ._C import Tensor
from .autograd import functional as _functional
from .autograd.grad_mode import enable_grad
from .creation import zeros_like as _zeros_like

__all__ = ["grad", "grad_and_value", "vjp", "jvp", "jacrev", "jacfwd", "hessian", "vmap", "functional_call"]


def _argnums_tuple(argnums: int | Sequence[int], n: int) -> tuple[int, ...]:
    nums = (argnums,) if isinstance(argnums, int) else tuple(argnums)
    if not nums:
        raise RuntimeError("argnums must be non-empty")
    for a in nums:
        if not isinstance(a, int):
            raise RuntimeError(f"argnums must be int or Tuple[int, ...], got: {type(a).__name__}")
        if not -n <= a < n:
            raise RuntimeError(f"Got argnums={a}, but only {n} positional inputs")
    return tuple(a % n for a in nums)


def grad_and_value(func: Callable[..., Any], argnums: int | Sequence[int] = 0,
                   has_aux: bool = False) -> Callable[..., Any]:
    """A function returning (gradient of func's scalar output w.r.t. the args in argnums, output)."""

    def wrapper(*args: Any, **kwargs: Any) -> Any:
        nums = _argnums_tuple(argnums, len(args))
        # Inside another transform (grad of grad, jacrev of grad) the arguments already require grad:
        # they are used as they are and the gradient keeps its graph, so the outer one can go on.
        nested = any(isinstance(args[a], Tensor) and args[a].requires_grad for a in nums)
        with enable_grad():
            args = list(args)
            for a in nums:
                if not isinstance(args[a], Tensor):
                    raise RuntimeError(f"grad: expected argument {a} to be a Tensor, got {type(args[a]).__name__}")
                if not args[a].requires_grad:
                    args[a] = args[a].detach().requires_grad_(True)
            result = func(*args, **kwargs)
            if has_aux:
                if not (isinstance(result, tuple) and len(result) == 2):
                    raise RuntimeError("grad_and_value(f)(*args): output of function f should be a tuple: "
                                       "(output, aux) if has_aux is True")
                out, aux = result
            else:
                out, aux = result, None
            if not isinstance(out, Tensor) or out.numel() != 1:
                raise RuntimeError("grad_and_value(f)(*args): Expected f(*args) to return a scalar Tensor, got "
                                   f"{'a Tensor of shape ' + str(list(out.shape)) if isinstance(out, Tensor) else type(out).__name__}")
            found = _C.autograd.grad([out], [args[a] for a in nums], None, nested, nested, True)
        grads = tuple((g if nested else g.detach()) if g is not None else _zeros_like(args[a])
                      for g, a in zip(found, nums))
        g_out = grads[0] if isinstance(argnums, int) else grads
        value = out if nested else out.detach()
        return (g_out, (value, aux)) if has_aux else (g_out, value)

    return wrapper


def grad(func: Callable[..., Any], argnums: int | Sequence[int] = 0, has_aux: bool = False) -> Callable[..., Any]:
    """A function returning the gradient of func's scalar output (and aux, if has_aux)."""
    gv = grad_and_value(func, argnums, has_aux)

    def wrapper(*args: Any, **kwargs: Any) -> Any:
        g, value = gv(*args, **kwargs)
        return (g, value[1]) if has_aux else g

    return wrapper


def vjp(func: Callable[..., Any], *primals: Tensor, has_aux: bool = False) -> tuple[Any, ...]:
    """(func(*primals), vjp_fn[, aux]); vjp_fn(v) returns a tuple with one gradient per primal."""
    with enable_grad():
        xs = tuple(p.detach().requires_grad_(True) for p in primals)
        result = func(*xs)
        out, aux = (result if has_aux else (result, None))
        outs = out if isinstance(out, (tuple, list)) else (out,)

    def vjp_fn(*cotangents: Any) -> tuple[Tensor, ...]:
        vs = cotangents[0] if len(cotangents) == 1 and isinstance(out, (tuple, list)) else cotangents
        found = _C.autograd.grad(list(outs), list(xs), list(vs), True, False, True)
        return tuple(g.detach() if g is not None else _zeros_like(x) for g, x in zip(found, xs))

    value = type(out)(o.detach() for o in out) if isinstance(out, (tuple, list)) else out.detach()
    return (value, vjp_fn, aux) if has_aux else (value, vjp_fn)


def jvp(func: Callable[..., Any], primals: Sequence[Tensor], tangents: Sequence[Tensor], *,
        has_aux: bool = False) -> tuple[Any, ...]:
    """(func(*primals), J tangents) — computed by the double-backward trick, not forward mode."""
    if not isinstance(primals, (tuple, list)) or not isinstance(tangents, (tuple, list)):
        raise RuntimeError("jvp(f, primals, tangents): Expected primals and tangents to be tuples")
    aux_box: list[Any] = []

    def f(*xs: Tensor) -> Any:
        result = func(*xs)
        if has_aux:
            aux_box.append(result[1])
            return result[0]
        return result

    out, tangent_out = _functional.jvp(f, tuple(primals), tuple(tangents))
    return (out, tangent_out, aux_box[0]) if has_aux else (out, tangent_out)


def jacrev(func: Callable[..., Any], argnums: int | Sequence[int] = 0, *, has_aux: bool = False,
           chunk_size: int | None = None) -> Callable[..., Any]:
    """A function returning the Jacobian of func w.r.t. the args in argnums (reverse mode)."""

    def wrapper(*args: Any, **kwargs: Any) -> Any:
        nums = _argnums_tuple(argnums, len(args))
        aux_box: list[Any] = []

        def f(*chosen: Tensor) -> Any:
            full = list(args)
            for a, x in zip(nums, chosen):
                full[a] = x
            result = func(*full, **kwargs)
            if has_aux:
                aux_box.append(result[1])
                return result[0]
            return result

        chosen = tuple(args[a] for a in nums)
        # The graph is kept when an outer transform differentiates this Jacobian again (its
        # arguments then require grad); otherwise the result is detached, as torch's.
        nested = any(isinstance(x, Tensor) and x.requires_grad for x in chosen)
        jac = _functional.jacobian(f, chosen if not isinstance(argnums, int) else chosen[0], create_graph=nested)
        return (jac, aux_box[0]) if has_aux else jac

    return wrapper


def jacfwd(func: Callable[..., Any], argnums: int | Sequence[int] = 0, has_aux: bool = False, *,
           randomness: str = "error") -> Callable[..., Any]:
    """The same Jacobian as :func:`jacrev` (aakaar has no forward mode: computed in reverse)."""
    return jacrev(func, argnums, has_aux=has_aux)


def hessian(func: Callable[..., Any], argnums: int | Sequence[int] = 0) -> Callable[..., Any]:
    """A function returning the Hessian of func's scalar output w.r.t. the args in argnums."""
    return jacfwd(jacrev(func, argnums), argnums)


def _slice_in(x: Any, dim: int | None, i: int) -> Any:
    if dim is None:
        return x
    if isinstance(x, (tuple, list)):
        return type(x)(_slice_in(v, dim, i) for v in x)
    if not isinstance(x, Tensor):
        raise ValueError(f"vmap: in_dim={dim} given for an input of type {type(x).__name__}: only Tensor inputs "
                         "can be mapped over (use None for the others)")
    return x.select(dim, i)


def _batch_size(args: Sequence[Any], in_dims: Sequence[Any]) -> int:
    sizes = set()
    for x, d in zip(args, in_dims):
        if d is None:
            continue
        for t in (x if isinstance(x, (tuple, list)) else (x,)):
            if isinstance(t, Tensor):
                if not -t.ndim <= d < max(t.ndim, 1) or t.ndim == 0:
                    raise ValueError(f"vmap: in_dim={d} is out of range for a Tensor of {t.ndim} dims")
                sizes.add(t.shape[d])
    if not sizes:
        raise ValueError("vmap: at least one input must be mapped over (an in_dim that is not None)")
    if len(sizes) > 1:
        raise ValueError(f"vmap: Expected all tensors to have the same size in the mapped dimension, got sizes "
                         f"{sorted(sizes)} for the mapped dimension")
    return sizes.pop()


def vmap(func: Callable[..., Any], in_dims: Any = 0, out_dims: Any = 0, randomness: str = "error", *,
         chunk_size: int | None = None) -> Callable[..., Any]:
    """func mapped over a batch dimension of its inputs: called once per element, results stacked
    along ``out_dims`` (a Python loop: PyTorch's batching rules are not implemented)."""

    def wrapper(*args: Any, **kwargs: Any) -> Any:
        dims = tuple(in_dims) if isinstance(in_dims, (tuple, list)) else (in_dims,) * len(args)
        if len(dims) != len(args):
            raise ValueError(f"vmap: in_dims has {len(dims)} entries but the function got {len(args)} positional "
                             "inputs")
        n = _batch_size(args, dims)
        results = [func(*(_slice_in(x, d, i) for x, d in zip(args, dims)), **kwargs) for i in range(n)]
        first = results[0]
        if isinstance(first, Tensor):
            return _C.stack(results, out_dims if isinstance(out_dims, int) else out_dims[0])
        if isinstance(first, (tuple, list)):
            odims = out_dims if isinstance(out_dims, (tuple, list)) else (out_dims,) * len(first)
            return type(first)(_C.stack([r[k] for r in results], odims[k]) for k in range(len(first)))
        raise ValueError(f"vmap: the function must return Tensors (or a tuple of them), got {type(first).__name__}")

    return wrapper


@contextlib.contextmanager
def _swapped(module: Any, values: dict[str, Tensor], strict: bool) -> Iterator[None]:
    """module's parameters and buffers named in values replaced by those tensors, restored after."""
    own = dict(module.named_parameters(remove_duplicate=False)) | dict(module.named_buffers(remove_duplicate=False))
    unknown = [k for k in values if k not in own]
    if unknown:
        raise RuntimeError(f"functional_call got unexpected keys {unknown}")
    if strict:
        missing = [k for k in own if k not in values]
        if missing:
            raise RuntimeError(f"functional_call got missing keys {missing} (strict=True)")
    saved = []
    try:
        for name, value in values.items():
            owner_name, _, leaf = name.rpartition(".")
            owner = module.get_submodule(owner_name) if owner_name else module
            table = owner._parameters if leaf in owner._parameters else owner._buffers
            saved.append((table, leaf, table[leaf]))
            table[leaf] = value
        yield
    finally:
        for table, leaf, old in reversed(saved):
            table[leaf] = old


def functional_call(module: Any, parameter_and_buffer_dicts: Any, args: Any = None, kwargs: dict | None = None, *,
                    tie_weights: bool = True, strict: bool = False) -> Any:
    """module(*args, **kwargs) with its parameters and buffers replaced by the given tensors (by
    their state_dict names), the module left as it was afterwards."""
    dicts = parameter_and_buffer_dicts
    if isinstance(dicts, (tuple, list)):
        merged: dict[str, Tensor] = {}
        for d in dicts:
            clash = set(merged) & set(d)
            if clash:
                raise ValueError(f"{sorted(clash)} appeared in multiple dictionaries; behavior of functional call is "
                                 "ambiguous")
            merged.update(d)
        dicts = merged
    args = () if args is None else (args if isinstance(args, tuple) else (args,))
    with _swapped(module, dict(dicts), strict):
        return module(*args, **(kwargs or {}))
