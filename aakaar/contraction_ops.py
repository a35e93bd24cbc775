"""einsum and its relatives (tensordot, outer, kron, cross, cdist), with PyTorch's names and errors.

einsum parses the equation, takes repeated subscripts of one operand as diagonals, sums away
subscripts no one else needs, and contracts the operands pairwise, left to right, as one batched
matrix product each (``bmm``): the contraction runs in the GEMM, not in a loop over elements.
"""

from __future__ import annotations

import builtins
import string
from typing import Any, Sequence

from . import _C
from ._C import Tensor

__all__ = ["einsum", "tensordot", "outer", "ger", "kron", "cross", "cdist"]

_LETTERS = string.ascii_letters


def _parse_term(term: str, offset: int, fn: str = "einsum") -> list[Any]:
    """Subscripts of one operand: letters, and at most one '...' (returned as the string '...')."""
    out: list[Any] = []
    i = 0
    while i < len(term):
        c = term[i]
        if c == ".":
            if term[i:i + 3] != "..." or "..." in out:
                raise RuntimeError(f"{fn}(): found '.' for operand {offset} that is not part of any ellipsis")
            out.append("...")
            i += 3
            continue
        if c not in _LETTERS:
            raise RuntimeError(f"{fn}(): invalid subscript given at index {i} in the equation string, subscripts "
                               "must be in [a-zA-Z]")
        out.append(c)
        i += 1
    return out


def _expand_ellipsis(labels: list[Any], ndim: int, k: int, n_ell: int | None) -> list[Any]:
    """Replaces '...' by one label per broadcast dim: ('...', j) for the j-th from the right."""
    if "..." not in labels:
        if len(labels) != ndim:
            raise RuntimeError(f"einsum(): the number of subscripts in the equation ({len(labels)}) does not match "
                               f"the number of dimensions ({ndim}) for operand {k} and no ellipsis was given")
        return labels
    named = len(labels) - 1
    if named > ndim:
        raise RuntimeError(f"einsum(): the number of subscripts in the equation ({named}) is more than the number "
                           f"of dimensions ({ndim}) for operand {k}")
    e = ndim - named
    at = labels.index("...")
    return labels[:at] + [("...", e - 1 - j) for j in range(e)] + labels[at + 1:]


def _take_diagonals(x: Tensor, labels: list[Any]) -> tuple[Tensor, list[Any]]:
    """A subscript repeated within one operand (``ii``) selects the diagonal of those dims."""
    while True:
        seen: dict[Any, int] = {}
        for d, lab in enumerate(labels):
            if lab in seen:
                first = seen[lab]
                if x.shape[first] != x.shape[d]:
                    raise RuntimeError(f"einsum(): subscript {lab} is repeated for operand but the sizes don't "
                                       f"match, {x.shape[first]} != {x.shape[d]}")
                x = x.diagonal(0, first, d)  # the diagonal becomes the last dim
                labels = [lb for j, lb in enumerate(labels) if j not in (first, d)] + [lab]
                break
            seen[lab] = d
        else:
            return x, labels


def _sum_labels(x: Tensor, labels: list[Any], drop: set) -> tuple[Tensor, list[Any]]:
    dims = [d for d, lab in enumerate(labels) if lab in drop]
    if not dims:
        return x, labels
    return x.sum(dims), [lab for lab in labels if lab not in drop]


def _contract(a: Tensor, la: list[Any], b: Tensor, lb: list[Any], keep: set) -> tuple[Tensor, list[Any]]:
    """a and b contracted over their shared labels not in keep; shared kept labels are batch dims."""
    size = {}
    for x, ls in ((a, la), (b, lb)):
        for d, lab in enumerate(ls):
            n = x.shape[d]
            if lab in size and size[lab] != n and 1 not in (size[lab], n):
                raise RuntimeError(f"einsum(): operands do not broadcast with remapped shapes (original->remapped): "
                                   f"subscript {lab if isinstance(lab, str) else '...'} has sizes {size[lab]} and {n}")
            size[lab] = builtins.max(size.get(lab, 1), n)
    batch = [lab for lab in la if lab in lb and lab in keep]
    summed = [lab for lab in la if lab in lb and lab not in keep]
    only_a = [lab for lab in la if lab not in lb]
    only_b = [lab for lab in lb if lab not in la]
    # A size-1 dim against a larger one broadcasts: expand it (the reshape below copies it).
    a = a.expand([size[lab] for lab in la])
    b = b.expand([size[lab] for lab in lb])
    prod = lambda labs: int(__import__("math").prod(size[lab] for lab in labs))  # noqa: E731
    am = a.permute([la.index(lab) for lab in batch + only_a + summed]).reshape(
        [prod(batch), prod(only_a), prod(summed)])
    # b as (batch, only_b, summed) transposed: for the usual layouts ('jk', 'bkd') every step is a
    # view, and bmm reads the strides as they are (no copy).
    bm = b.permute([lb.index(lab) for lab in batch + only_b + summed]).reshape(
        [prod(batch), prod(only_b), prod(summed)]).transpose(1, 2)
    out = _C.bmm(am, bm).reshape([size[lab] for lab in batch + only_a + only_b])
    return out, batch + only_a + only_b


def einsum(equation: str, *operands: Any) -> Tensor:
    """Sums of products of the operands' elements, as ``equation`` says (PyTorch's / numpy's notation):
    ``'ij,jk->ik'`` is a matrix product, ``'ii->'`` a trace, ``'...ij->...ji'`` a batched transpose."""
    if len(operands) == 1 and isinstance(operands[0], (list, tuple)):
        operands = tuple(operands[0])
    if not isinstance(equation, str):
        raise TypeError(f"einsum(): equation must be a string, got {type(equation).__name__}")
    for op in operands:
        if not isinstance(op, Tensor):
            raise TypeError(f"einsum(): expected a Tensor operand, got {type(op).__name__}")
    eq = equation.replace(" ", "")
    lhs, arrow, rhs = eq.partition("->")
    terms = lhs.split(",")
    if len(operands) == 0:
        raise RuntimeError("einsum(): must provide at least one operand")
    if len(terms) < len(operands):
        raise RuntimeError("einsum(): more operands were provided than specified in the equation")
    if len(terms) > len(operands):
        raise RuntimeError("einsum(): fewer operands were provided than specified in the equation")
    parsed = [_parse_term(t, k) for k, t in enumerate(terms)]
    n_ell = builtins.max((op.ndim - (len(p) - 1) for p, op in zip(parsed, operands) if "..." in p), default=0)
    labels = [_expand_ellipsis(p, op.ndim, k, n_ell) for k, (p, op) in enumerate(zip(parsed, operands))]
    ell = [("...", j) for j in range(n_ell - 1, -1, -1)]
    if arrow:
        out_terms = _parse_term(rhs, 0)
        for lab in out_terms:
            if lab != "..." and out_terms.count(lab) > 1:
                raise RuntimeError(f"einsum(): output subscript {lab} appears more than once in the output")
            if lab != "..." and not any(lab in p for p in parsed):
                raise RuntimeError(f"einsum(): output subscript {lab} does not appear in the equation for any "
                                   "input operand")
        if "..." in out_terms:
            at = out_terms.index("...")
            out = out_terms[:at] + ell + out_terms[at + 1:]
        else:
            out = out_terms
    else:  # implicit output: broadcast dims, then the subscripts used once, alphabetically
        counts: dict[str, int] = {}
        for p in parsed:
            for lab in p:
                if lab != "...":
                    counts[lab] = counts.get(lab, 0) + 1
        out = ell + sorted((lab for lab, c in counts.items() if c == 1), key=lambda c: (c.islower(), c))
    xs = []
    for k, op in enumerate(operands):
        x, ls = _take_diagonals(op, labels[k])
        xs.append((x, ls))
    # Sum every label only one operand holds and the output drops, before any product.
    for k in range(len(xs)):
        x, ls = xs[k]
        others = set(out).union(*(set(l2) for j, (_, l2) in enumerate(xs) if j != k))
        xs[k] = _sum_labels(x, ls, {lab for lab in ls if lab not in others})
    x, ls = xs[0]
    for k in range(1, len(xs)):
        keep = set(out).union(*(set(l2) for _, l2 in xs[k + 1:]))
        x, ls = _contract(x, ls, xs[k][0], xs[k][1], keep)
    x, ls = _sum_labels(x, ls, {lab for lab in ls if lab not in out})
    # Output labels of broadcast dims that no operand kept (an ellipsis of size 1) need a dim.
    for lab in out:
        if lab not in ls:
            x, ls = x.unsqueeze(-1), ls + [lab]
    return x.permute([ls.index(lab) for lab in out]) if out else x


def tensordot(a: Tensor, b: Tensor, dims: Any = 2) -> Tensor:
    """Contracts the last ``dims`` dims of a with the first of b, or the listed dim pairs."""
    if isinstance(dims, int):
        if dims < 0:
            raise RuntimeError(f"tensordot expects dims >= 0, but got dims={dims}")
        da, db = list(range(a.ndim - dims, a.ndim)), list(range(dims))
    elif isinstance(dims, Tensor):
        return tensordot(a, b, dims.tolist())
    else:
        da, db = dims
        da = [da] if isinstance(da, int) else list(da)
        db = [db] if isinstance(db, int) else list(db)
    if len(da) != len(db):
        raise RuntimeError("both dimension lists should have same length")
    da = [d % builtins.max(a.ndim, 1) for d in da]
    db = [d % builtins.max(b.ndim, 1) for d in db]
    for x, y in zip(da, db):
        if a.shape[x] != b.shape[y]:
            raise RuntimeError(f"contracted dimensions need to match, but first has size {a.shape[x]} in dim {x} and "
                               f"second has size {b.shape[y]} in dim {y}")
    ra = [d for d in range(a.ndim) if d not in da]
    rb = [d for d in range(b.ndim) if d not in db]
    k = 1
    for d in da:
        k *= a.shape[d]
    am = a.permute(ra + da).reshape([-1, k])
    bm = b.permute(db + rb).reshape([k, -1])
    return (am @ bm).reshape([a.shape[d] for d in ra] + [b.shape[d] for d in rb])


def outer(input: Tensor, vec2: Tensor) -> Tensor:
    """The outer product of two vectors."""
    if input.ndim != 1 or vec2.ndim != 1:
        raise RuntimeError(f"outer: expected 1-D tensors, got {input.ndim}-D and {vec2.ndim}-D")
    return input.reshape([-1, 1]) * vec2.reshape([1, -1])


ger = outer


def kron(input: Tensor, other: Tensor) -> Tensor:
    """The Kronecker product: every element of input times all of other, in blocks."""
    nd = builtins.max(input.ndim, other.ndim)
    a = input.reshape([1] * (nd - input.ndim) + list(input.shape))
    b = other.reshape([1] * (nd - other.ndim) + list(other.shape))
    ai = [s for n in a.shape for s in (n, 1)]
    bi = [s for n in b.shape for s in (1, n)]
    return (a.reshape(ai) * b.reshape(bi)).reshape([x * y for x, y in zip(a.shape, b.shape)])


def cross(input: Tensor, other: Tensor, dim: int | None = None) -> Tensor:
    """The 3-d cross product along ``dim`` (the first dim of size 3 when None)."""
    shape = list(_C.broadcast_shapes(tuple(input.shape), tuple(other.shape)))
    a, b = input.broadcast_to(shape), other.broadcast_to(shape)
    if dim is None:
        dims = [d for d, n in enumerate(shape) if n == 3]
        if not dims:
            raise RuntimeError("no dimension of size 3 in input")
        dim = dims[0]
    d = dim % builtins.max(len(shape), 1)
    if shape[d] != 3:
        raise RuntimeError(f"linalg.cross: inputs dimension {dim} must have length 3. Got {input.shape[d] if input.ndim else 0} "
                           f"and {other.shape[d] if other.ndim else 0}")
    a0, a1, a2 = (a.narrow(d, k, 1) for k in range(3))
    b0, b1, b2 = (b.narrow(d, k, 1) for k in range(3))
    return _C.cat([a1 * b2 - a2 * b1, a2 * b0 - a0 * b2, a0 * b1 - a1 * b0], d)


def cdist(x1: Tensor, x2: Tensor, p: float = 2.0, compute_mode: str = "use_mm_for_euclid_dist_if_necessary") -> Tensor:
    """The p-norm distance between every row of x1 (..., P, M) and every row of x2 (..., R, M): (..., P, R)."""
    if x1.ndim < 2 or x2.ndim < 2:
        raise RuntimeError(f"cdist only supports at least 2D tensors, X1 got: {x1.ndim}D")
    if x1.shape[-1] != x2.shape[-1]:
        raise RuntimeError(f"X1 and X2 must have the same number of columns. X1: {x1.shape[-1]} X2: {x2.shape[-1]}")
    if p < 0:
        raise RuntimeError(f"cdist only supports non-negative p values, got {p}")
    diff = (x1.unsqueeze(-2) - x2.unsqueeze(-3)).abs()
    if p == 0:
        return (diff != 0).to(x1.dtype).sum(-1)
    if p == float("inf"):
        return diff.amax(-1)
    if p == 1:
        return diff.sum(-1)
    s = diff.pow(p).sum(-1) if p != 2 else (diff * diff).sum(-1)
    # The root's gradient at distance 0 is 0, as PyTorch's cdist gives (not inf * 0 = NaN).
    pos = s > 0
    safe = _C.where(pos, s, _C.ones([], dtype=s.dtype))
    root = safe.sqrt() if p == 2 else safe.pow(1.0 / p)
    return _C.where(pos, root, _C.zeros([], dtype=s.dtype))
