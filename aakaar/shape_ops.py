"""Sorting, scans, reshuffling and indexing ops with PyTorch's names and arguments.

``aakaar.sort``, ``aakaar.topk``, ``aakaar.flip``, ``aakaar.roll``, ``aakaar.tril``, ... and the same
names as Tensor methods. Three kernels are new (``sort``, the ``scan`` of cumprod / cummax / cummin /
logcumsumexp, ``scatter_reduce``: csrc/ops/sort_scan.cpp); everything else here is a composite of
differentiable ops (gather, index_select, cat, where, as_strided, scatter...), so gradients come
from those ops' own backward formulas.
"""

from __future__ import annotations

import builtins
from collections import namedtuple
from typing import Any, Sequence

import numpy as np

from . import _C
from ._C import Tensor

_I64 = _C.dtype.int64

# torch.return_types.*: named (values, indices) pairs.
sort_result = namedtuple("sort", ["values", "indices"])
topk_result = namedtuple("topk", ["values", "indices"])
kthvalue_result = namedtuple("kthvalue", ["values", "indices"])
median_result = namedtuple("median", ["values", "indices"])
nanmedian_result = namedtuple("nanmedian", ["values", "indices"])
mode_result = namedtuple("mode", ["values", "indices"])
cummax_result = namedtuple("cummax", ["values", "indices"])
cummin_result = namedtuple("cummin", ["values", "indices"])
aminmax_result = namedtuple("aminmax", ["min", "max"])


def _dims_arg(dims: Any, fn: str) -> list[int]:
    if isinstance(dims, bool):
        raise TypeError(f"{fn}(): dims must be an int or a tuple of ints, got bool")
    if isinstance(dims, int):
        return [dims]
    if isinstance(dims, (tuple, list)):
        return [int(d) for d in dims]
    raise TypeError(f"{fn}(): dims must be an int or a tuple of ints, got {type(dims).__name__}")


def _varargs(args: tuple, fn: str) -> Any:
    """``t.flip(0, 1)`` and ``t.flip((0, 1))`` alike (torch's methods take both)."""
    if len(args) == 1 and isinstance(args[0], (tuple, list)):
        return list(args[0])
    return list(args)


def _wrap(dim: int, ndim: int, fn: str = "") -> int:
    n = builtins.max(ndim, 1)
    if not -n <= dim < n:
        raise IndexError(f"Dimension out of range (expected to be in range of [{-n}, {n - 1}], but got {dim})")
    return dim % n


def _keep(t: Tensor, keepdim: bool, dim: int) -> Tensor:
    return t if keepdim else t.squeeze(dim)


# ---- sorting -------------------------------------------------------------------------------------

def sort(input: Tensor, dim: int = -1, descending: bool = False, stable: bool = False) -> sort_result:
    """(values, indices) of ``input`` sorted along ``dim``; NaN counts as the greatest value, and
    equal elements keep their order (the CPU sort is always stable, as PyTorch's is)."""
    return sort_result(*_C._sort(input, dim, bool(descending)))


def argsort(input: Tensor, dim: int = -1, descending: bool = False, stable: bool = False) -> Tensor:
    """The indices that sort ``input`` along ``dim``."""
    return _C._sort(input, dim, bool(descending))[1]


def msort(input: Tensor) -> Tensor:
    """``input`` sorted along its first dim."""
    return _C._sort(input, 0, False)[0]


def topk(input: Tensor, k: int, dim: int = -1, largest: bool = True, sorted: bool = True) -> topk_result:
    """The ``k`` largest (or smallest) elements along ``dim``, with their indices (NaN is largest)."""
    return topk_result(*_C._topk(input, k, dim, bool(largest)))


def kthvalue(input: Tensor, k: int, dim: int = -1, keepdim: bool = False) -> kthvalue_result:
    """The ``k``-th smallest element (1-based) along ``dim`` and its index."""
    d = _wrap(dim, input.ndim)
    size = input.shape[d] if input.ndim else 1
    if input.dtype == _C.dtype.bool:
        raise NotImplementedError('"kthvalue_cpu" not implemented for \'Bool\'')
    if size == 0:
        raise IndexError(f"kthvalue(): Expected reduction dim {d} to have non-zero size.")
    if not 1 <= k <= size:
        raise RuntimeError(f"kthvalue(): selected number k out of range for dimension {d}")
    values, indices = _C._topk(input, k, d, False)  # the k smallest: a partial sort
    if input.ndim == 0:
        return kthvalue_result(values, indices)
    v, i = values.narrow(d, k - 1, 1), indices.narrow(d, k - 1, 1)
    return kthvalue_result(_keep(v, keepdim, d), _keep(i, keepdim, d))


def _median_at(input: Tensor, dim: Any, keepdim: bool, ignore_nan: bool, result: type, fn: str) -> Any:
    if input.dtype == _C.dtype.bool:
        raise NotImplementedError(f'"{fn}_cpu" not implemented for \'Bool\'')
    if dim is None and input.numel() == 0 and input.dtype.is_floating_point:
        return _C.full([], float("nan"), dtype=input.dtype)._to_device(input.device)  # torch's empty median
    x = input.reshape(-1) if dim is None else input
    d = 0 if dim is None else _wrap(dim, input.ndim)
    if x.ndim == 0:
        x = x.reshape(1)
    if x.shape[d] == 0:
        if dim is None:  # the median of no values is NaN (torch), along an empty dim an error
            return _C.full([], float("nan"), dtype=input.dtype)._to_device(input.device)
        raise IndexError(f"{fn}(): Expected reduction dim {d} to have non-zero size.")
    values, indices = _C._sort(x, d, False)
    n = x.shape[d]
    nans = (x != x).sum(d, keepdim=True)  # NaNs are sorted last
    if ignore_nan:  # the lower median of the numbers; NaN only where a row holds nothing else
        pos = ((n - nans - 1).clamp(min=0)) // 2
    else:  # NaN wherever a row holds one (PyTorch's median propagates NaN)
        pos = (nans > 0).long() * (n - nans) + (nans == 0).long() * ((n - 1) // 2)
    v, i = values.gather(d, pos), indices.gather(d, pos)
    if dim is None:
        return v.reshape(())
    if input.ndim == 0:
        return result(v.reshape(()), i.reshape(()))
    return result(_keep(v, keepdim, d), _keep(i, keepdim, d))


def median(input: Tensor, dim: Any = None, keepdim: bool = False) -> Any:
    """The lower median (of all elements, or (values, indices) along ``dim``); NaN if any is NaN."""
    return _median_at(input, dim, keepdim, False, median_result, "median")


def nanmedian(input: Tensor, dim: Any = None, keepdim: bool = False) -> Any:
    """median ignoring NaNs."""
    return _median_at(input, dim, keepdim, True, nanmedian_result, "nanmedian")


def mode(input: Tensor, dim: int = -1, keepdim: bool = False) -> mode_result:
    """The most frequent value along ``dim`` (the smallest of equally frequent ones) and the index
    of its last occurrence."""
    x = input.reshape(1) if input.ndim == 0 else input
    d = _wrap(dim, input.ndim)
    if x.shape[d] == 0:
        raise IndexError(f"mode(): Expected reduction dim {d} to have non-zero size.")
    s, order = _C._sort(x.detach(), d, False)
    n = x.shape[d]
    new_run = s.narrow(d, 1, n - 1) != s.narrow(d, 0, n - 1)
    first = _C.full(list(s.shape[:d]) + [1] + list(s.shape[d + 1:]), True, dtype=_C.dtype.bool)
    run = _C.cat([first, new_run], d).long().cumsum(d) - 1  # the run each sorted element is in
    counts = _C.zeros(list(s.shape), dtype=_I64).scatter_add(d, run, _C.ones(list(s.shape), dtype=_I64))
    best_run = counts.argmax(d, keepdim=True)  # the first (smallest value) of the most frequent
    in_best = run == best_run
    index = _C.where(in_best, order, _C.full([], -1, dtype=_I64)).amax(d, keepdim=True)
    values = x.gather(d, index)
    if input.ndim == 0:
        return mode_result(values.reshape(()), index.reshape(()))
    return mode_result(_keep(values, keepdim, d), _keep(index, keepdim, d))


def _runs(flat: Tensor) -> tuple[Tensor, Tensor]:
    """The first element of each run of equal neighbours in a 1-D tensor, and each element's run number."""
    if flat.shape[0] == 0:
        return flat, _C.zeros([0], dtype=_I64)._to_device(flat.device)
    first = _C.full([1], True, dtype=_C.dtype.bool)._to_device(flat.device)
    new = _C.cat([first, flat[1:] != flat[:-1]], 0)
    return flat[new], new.long().cumsum(0) - 1


def unique(input: Tensor, sorted: bool = True, return_inverse: bool = False, return_counts: bool = False,
           dim: int | None = None) -> Any:
    """The distinct elements of ``input`` (sorted), with optionally the inverse map and the counts."""
    if dim is not None:
        return _unique_dim(input, _wrap(dim, input.ndim), return_inverse, return_counts)
    flat = input.detach().reshape(-1)
    s, order = _C._sort(flat, 0, False)
    n = flat.shape[0]
    values, run = _runs(s)
    inverse = _C.zeros([n], dtype=_I64)._to_device(flat.device).scatter(0, order, run) if return_inverse else None
    return _with_inverse_counts(values, run, inverse, list(input.shape), return_inverse, return_counts)


def _with_inverse_counts(values: Tensor, run: Tensor, inverse: Tensor | None, shape: list, return_inverse: bool,
                         return_counts: bool) -> Any:
    """unique's result: the values, then the inverse (input's shape) and the run lengths if asked for."""
    out = [values]
    if return_inverse:
        out.append(inverse.reshape(shape))
    if return_counts:
        ones = _C.ones([run.shape[0]], dtype=_I64)._to_device(run.device)
        out.append(_C.zeros([values.shape[0]], dtype=_I64)._to_device(run.device).scatter_add(0, run, ones))
    return out[0] if len(out) == 1 else tuple(out)


def _unique_dim(input: Tensor, d: int, return_inverse: bool, return_counts: bool) -> Any:
    # The slices along d, compared as rows of numbers (on the host: unique is not differentiable).
    arr = np.moveaxis(input.detach().cpu().numpy(), d, 0)
    rows = arr.reshape(arr.shape[0], -1)
    uniq, inverse, counts = np.unique(rows, axis=0, return_inverse=True, return_counts=True)
    values = _C.from_numpy(np.ascontiguousarray(np.moveaxis(uniq.reshape((-1,) + arr.shape[1:]), 0, d)))
    values = values._to_device(input.device)
    out = [values]
    if return_inverse:
        out.append(_C.from_numpy(inverse.reshape(-1).astype(np.int64))._to_device(input.device))
    if return_counts:
        out.append(_C.from_numpy(counts.astype(np.int64))._to_device(input.device))
    return out[0] if len(out) == 1 else tuple(out)


# ---- scans -----------------------------------------------------------------------------------------

def cumprod(input: Tensor, dim: int, *, dtype: Any = None) -> Tensor:
    """Cumulative product along ``dim`` (integers and bool in int64); the gradient handles zeros.

    ``dtype``: the input is converted first and the result has that dtype (an int32 result wraps
    at 32 bits: the low bits of the int64 product), as in PyTorch."""
    out = _C._cumprod(input if dtype is None else input.to(dtype), dim)
    return out if dtype is None or out.dtype == dtype else out.to(dtype)


def cummax(input: Tensor, dim: int) -> cummax_result:
    """(values, indices) of the running maximum along ``dim`` (a NaN, once met, stays)."""
    return cummax_result(*_C._cummax(input, dim, True))


def cummin(input: Tensor, dim: int) -> cummin_result:
    """(values, indices) of the running minimum along ``dim``."""
    return cummin_result(*_C._cummax(input, dim, False))


def logcumsumexp(input: Tensor, dim: int) -> Tensor:
    """log(cumsum(exp(input))) along ``dim``, without overflow."""
    return _C._logcumsumexp(input, dim)


# ---- reordering and repeating ---------------------------------------------------------------------

def flip(input: Tensor, dims: Any) -> Tensor:
    """A copy of ``input`` reversed along ``dims``."""
    return _C._flip(input, _dims_arg(dims, "flip"))


def fliplr(input: Tensor) -> Tensor:
    """Reversed along dim 1 (left-right)."""
    if input.ndim < 2:
        raise RuntimeError("Input must be >= 2-d.")
    return _C._flip(input, [1])


def flipud(input: Tensor) -> Tensor:
    """Reversed along dim 0 (up-down)."""
    if input.ndim < 1:
        raise RuntimeError("Input must be >= 1-d.")
    return _C._flip(input, [0])


def roll(input: Tensor, shifts: Any, dims: Any = None) -> Tensor:
    """Elements shifted cyclically by ``shifts`` along ``dims`` (all elements, flattened, when dims is None)."""
    shifts = _dims_arg(shifts, "roll")
    if dims is None:
        if len(shifts) != 1:
            raise RuntimeError(f"shifts and dimensions must align. shifts: {len(shifts)}, dims:0")
        return roll(input.reshape(-1), shifts, 0).reshape(list(input.shape))
    dims = _dims_arg(dims, "roll")
    if len(shifts) != len(dims):
        raise RuntimeError(f"shifts and dimensions must align. shifts: {len(shifts)}, dims:{len(dims)}")
    if input.ndim == 0:
        raise IndexError(f"Dimension specified as {dims[0]} but tensor has no dimensions")
    out = input
    for s, d in zip(shifts, dims):
        d = _wrap(d, input.ndim)
        n = input.shape[d] if input.ndim else 1
        if n == 0 or s % n == 0:
            continue
        s %= n
        out = _C.cat([out.narrow(d, n - s, s), out.narrow(d, 0, n - s)], d)
    return out.clone() if out is input else out


def repeat(input: Tensor, *sizes: Any) -> Tensor:
    """``input`` tiled ``sizes[k]`` times along each dim (leading sizes add dims)."""
    sizes = _varargs(sizes, "repeat")
    if len(sizes) < input.ndim:
        raise RuntimeError("Number of dimensions of repeat dims can not be smaller than number of dimensions of tensor")
    if any(s < 0 for s in sizes):
        raise RuntimeError(f"Trying to create tensor with negative dimension: {sizes}")
    shape = [1] * (len(sizes) - input.ndim) + list(input.shape)
    x = input.reshape(shape)
    # (s0, s1, ...) -> (1, s0, 1, s1, ...) expanded to (r0, s0, r1, s1, ...), then merged pairwise.
    paired, expanded = [], []
    for r, s in zip(sizes, shape):
        paired += [1, s]
        expanded += [r, s]
    return x.reshape(paired).expand(expanded).reshape([r * s for r, s in zip(sizes, shape)])


def tile(input: Tensor, dims: Any) -> Tensor:
    """repeat, with too few ``dims`` padded with 1s in front (numpy's tile)."""
    dims = _dims_arg(dims, "tile")
    return repeat(input, [1] * (input.ndim - len(dims)) + dims)


def repeat_interleave(input: Tensor, repeats: Any = None, dim: int | None = None, *,
                      output_size: int | None = None) -> Tensor:
    """Each element (or slice along ``dim``) repeated ``repeats`` times (a number, or one per element)."""
    if repeats is None:  # torch.repeat_interleave(repeats): arange(len) repeated
        counts = input
        return repeat_interleave(_C.arange(0, counts.shape[0], 1, dtype=_I64)._to_device(counts.device), counts, 0)
    x = input.reshape(-1) if dim is None else input
    d = 0 if dim is None else _wrap(dim, input.ndim)
    if x.ndim == 0:
        x = x.reshape(1)
    n = x.shape[d]
    if isinstance(repeats, Tensor):
        reps = repeats.cpu().numpy().reshape(-1).astype(np.int64)
        if reps.size == 1:
            reps = np.full(n, int(reps[0]))
        elif reps.size != n:
            raise RuntimeError("repeats must have the same size as input along dim, but got "
                               f"repeats.size(0) = {reps.size} and input.size({d}) = {n}")
    else:
        reps = np.full(n, int(repeats))
    if (reps < 0).any():
        raise RuntimeError("repeats can not be negative")
    index = np.repeat(np.arange(n, dtype=np.int64), reps)
    if output_size is not None and output_size != index.size:
        raise RuntimeError(f"repeat_interleave: output_size {output_size} does not match the total repeats {index.size}")
    return x.index_select(d, _C.from_numpy(index)._to_device(input.device))


def _tri_mask(input: Tensor, diagonal: int, lower: bool, fn: str) -> Tensor:
    if input.ndim < 2:
        raise RuntimeError(f"{fn}: input tensor must have at least 2 dimensions")
    rows, cols = input.shape[-2], input.shape[-1]
    r = _C.arange(0, rows, 1, dtype=_I64)._to_device(input.device).reshape([rows, 1])
    c = _C.arange(0, cols, 1, dtype=_I64)._to_device(input.device).reshape([1, cols])
    return (c - r > diagonal) if lower else (c - r < diagonal)  # the elements to zero


def tril(input: Tensor, diagonal: int = 0) -> Tensor:
    """The lower triangle (on and below ``diagonal``) of the last two dims; the rest zeroed."""
    return input.masked_fill(_tri_mask(input, diagonal, True, "tril"), 0)


def triu(input: Tensor, diagonal: int = 0) -> Tensor:
    """The upper triangle (on and above ``diagonal``) of the last two dims; the rest zeroed."""
    return input.masked_fill(_tri_mask(input, diagonal, False, "triu"), 0)


def diag_embed(input: Tensor, offset: int = 0, dim1: int = -2, dim2: int = -1) -> Tensor:
    """Matrices (in dims dim1, dim2 of the result) with the last dim of ``input`` on their ``offset`` diagonal."""
    m = input.shape[-1] if input.ndim else 1
    x = input.reshape(1) if input.ndim == 0 else input
    n = m + builtins.abs(offset)
    rows = np.arange(m) + builtins.max(-offset, 0)
    flat_pos = rows * n + rows + offset
    idx = _C.from_numpy(flat_pos.astype(np.int64))._to_device(input.device)
    lead = list(x.shape[:-1])
    idx = idx.reshape([1] * len(lead) + [m]).expand(lead + [m])
    out = _C.zeros(lead + [n * n], dtype=x.dtype)._to_device(input.device).scatter(-1, idx, x)
    out = out.reshape(lead + [n, n])
    nd = out.ndim
    d1, d2 = _wrap(dim1, nd), _wrap(dim2, nd)
    if d1 == d2:
        raise RuntimeError(f"diagonal dimensions cannot be identical {dim1}, {dim2}")
    if (d1, d2) == (nd - 2, nd - 1):
        return out
    # Place the two new dims at d1 and d2; the batch dims keep their order in the others.
    perm, rest = [0] * nd, iter(range(nd - 2))
    for k in range(nd):
        perm[k] = nd - 2 if k == d1 else nd - 1 if k == d2 else next(rest)
    return out.permute(perm)


def diag(input: Tensor, diagonal: int = 0) -> Tensor:
    """A 1-D input becomes a square matrix with it on the ``diagonal``; a 2-D input gives that diagonal."""
    if input.ndim == 1:
        return diag_embed(input, diagonal)
    if input.ndim == 2:
        return input.diagonal(diagonal).clone()
    raise RuntimeError(f"diag(): Supports 1D or 2D tensors. Got {input.ndim}D")


def trace(input: Tensor) -> Tensor:
    """The sum of the main diagonal of a matrix."""
    if input.ndim != 2:
        raise RuntimeError(f"trace: expected a matrix, but got tensor with dim {input.ndim}")
    d = input.diagonal()
    return d.sum()


def unfold(input: Tensor, dimension: int, size: int, step: int) -> Tensor:
    """Every slice of ``size`` elements along ``dimension``, ``step`` apart, as a new last dim (a view)."""
    d = _wrap(dimension, input.ndim)
    n = input.shape[d] if input.ndim else 1
    if size > n:
        raise RuntimeError(f"maximum size for tensor at dimension {d} is {n} but size is {size}")
    if step <= 0:
        raise RuntimeError(f"step is {step} but must be > 0")
    if size < 0:
        raise RuntimeError(f"size is {size} but must be >= 0")
    shape, strides = list(input.shape), list(input.stride())
    if input.ndim == 0:
        return input.as_strided([size], [1], input.storage_offset())
    stride_d = strides[d]
    shape[d] = (n - size) // step + 1
    strides[d] = stride_d * step
    return input.as_strided(shape + [size], strides + [stride_d], input.storage_offset())


# ---- masks and scatter ----------------------------------------------------------------------------

def masked_select(input: Tensor, mask: Tensor) -> Tensor:
    """The elements of ``input`` where ``mask`` (broadcast) is True, as a 1-D tensor."""
    if mask.dtype != _C.dtype.bool:
        raise RuntimeError(f"masked_select: expected BoolTensor for mask, got {mask.dtype}")
    shape = _C.broadcast_shapes(tuple(input.shape), tuple(mask.shape))
    return input.broadcast_to(shape)[mask.broadcast_to(shape)]


def masked_scatter(input: Tensor, mask: Tensor, source: Tensor) -> Tensor:
    """``input`` with the elements where ``mask`` is True replaced, in order, by those of ``source``."""
    if mask.dtype != _C.dtype.bool:
        raise RuntimeError(f"masked_scatter_ only supports boolean masks, but got mask with dtype {mask.dtype}")
    shape = _C.broadcast_shapes(tuple(input.shape), tuple(mask.shape))
    m = mask.broadcast_to(shape)
    count = int(m.sum().item())
    if count > source.numel():
        raise RuntimeError("masked_scatter: expected source to have at least as many elements as ones in mask")
    # The k-th True of the mask takes source's k-th element: gather by the running count of Trues.
    k = (m.reshape(-1).long().cumsum(0) - 1).clamp(min=0)
    taken = source.reshape(-1).index_select(0, k) if source.numel() else _C.zeros(list(shape), dtype=input.dtype)
    return _C.where(m, taken.reshape(list(shape)).to(input.dtype), input.broadcast_to(shape))


def scatter_reduce(input: Tensor, dim: int, index: Tensor, src: Tensor, reduce: str, *,
                   include_self: bool = True) -> Tensor:
    """``input`` with ``src`` combined into it at ``index`` along ``dim`` by ``reduce``
    ('sum', 'prod', 'mean', 'amax', 'amin'); include_self=False leaves the written elements' own values out."""
    return _C._scatter_reduce(input, dim, index, src, reduce, bool(include_self))


def _scatter_reduce_(self: Tensor, dim: int, index: Tensor, src: Tensor, reduce: str, *,
                     include_self: bool = True) -> Tensor:
    """In-place scatter_reduce: writes the result into self and returns self."""
    return self.copy_(_C._scatter_reduce(self, dim, index, src, reduce, bool(include_self)))


_native_scatter = Tensor.scatter
_native_scatter_ = Tensor.scatter_
_SCATTER_REDUCE = {"add": "sum", "multiply": "prod"}


def _scatter_src(self: Tensor, index: Tensor, src: Any) -> Tensor:
    if isinstance(src, Tensor):
        return src
    return _C.full(list(index.shape), src, dtype=self.dtype)._to_device(self.device)


def _reduce_name(reduce: str) -> str:
    if reduce not in _SCATTER_REDUCE:
        raise RuntimeError(f"reduce argument must be either add or multiply, got {reduce}")
    return _SCATTER_REDUCE[reduce]


def _scatter(self: Tensor, dim: int, index: Tensor, src: Any = None, reduce: str | None = None, *,
             value: Any = None) -> Tensor:
    """A copy of self with src (a tensor or number) written at ``index`` along dim, or combined
    into it by ``reduce`` ('add' or 'multiply')."""
    if src is None:
        src = value
    if reduce is None:
        return _native_scatter(self, dim, index, src)
    return _C._scatter_reduce(self, dim, index, _scatter_src(self, index, src), _reduce_name(reduce), True)


def _scatter_(self: Tensor, dim: int, index: Tensor, src: Any = None, reduce: str | None = None, *,
              value: Any = None) -> Tensor:
    """Writes src into self at ``index`` along dim (or combines it by ``reduce``); returns self."""
    if src is None:
        src = value
    if reduce is None:
        return _native_scatter_(self, dim, index, src)
    return self.copy_(_C._scatter_reduce(self, dim, index, _scatter_src(self, index, src), _reduce_name(reduce), True))


def take(input: Tensor, index: Tensor) -> Tensor:
    """The elements of ``input``, read as 1-D, at ``index`` (negative indices count from the end);
    the result has the index's shape."""
    if index.dtype != _I64:
        raise RuntimeError(f"take(): Expected a long tensor for index, but got {index.dtype.name}")
    n = input.numel()
    if n == 0 and index.numel():
        raise IndexError("take(): tried to take from an empty tensor")
    flat = index.reshape(-1)
    bad = _first_out_of_range(flat, -n, n)
    if bad is not None:
        raise IndexError(f"out of range: tried to access index {bad} on a tensor of {n} elements.")
    return input.reshape(-1)[flat].reshape(list(index.shape))


def take_along_dim(input: Tensor, indices: Tensor, dim: int | None = None) -> Tensor:
    """gather with ``indices`` broadcast against ``input`` (all dims but ``dim``); flattened when dim is None."""
    if dim is None:  # (torch refuses negative indices here, and gather does too)
        return input.reshape(-1).gather(0, indices.reshape(-1))
    if indices.dtype != _I64:
        raise RuntimeError(f"torch.take_along_dim(): dtype of indices should be int64 but got {indices.dtype.name}")
    if input.ndim != indices.ndim:
        raise RuntimeError("torch.take_along_dim(): input and indices should have the same number of dimensions, "
                           f"but got {input.ndim} dimensions for input, and {indices.ndim} dimensions for indices")
    if input.ndim == 0:
        raise IndexError(f"Dimension specified as {dim} but tensor has no dimensions")
    d = _wrap(dim, input.ndim)
    # Along a dim torch counts -1 as the last; past the ends it reads memory it should not (a
    # wrapped index), where aakaar raises gather's RuntimeError naming the index.
    bad = _first_out_of_range(indices.reshape(-1), -input.shape[d], input.shape[d])
    if bad is not None:
        raise RuntimeError(f"take_along_dim(): index {bad} is out of bounds for dimension {d} with size "
                           f"{input.shape[d]}")
    indices = _wrap_negative(indices, input.shape[d])
    a, b = list(input.shape), list(indices.shape)
    a[d] = b[d] = 1
    shape = list(_C.broadcast_shapes(tuple(a), tuple(b)))
    xs, ix = list(shape), list(shape)
    xs[d], ix[d] = input.shape[d], indices.shape[d]
    return input.broadcast_to(xs).gather(d, indices.broadcast_to(ix))


def _first_out_of_range(flat: Tensor, lo: int, hi: int) -> int | None:
    """The first value of the 1-D integer tensor ``flat`` outside [lo, hi), or None."""
    if flat.numel() == 0:
        return None
    bad = (flat < lo) | (flat >= hi)
    if not bool(bad.any().item()):
        return None
    return int(flat[bad][0].item())


def _wrap_negative(indices: Tensor, size: int) -> Tensor:
    """indices with each negative i read as size + i (out-of-range ones are left for gather to refuse)."""
    return _C.where(indices < 0, indices + size, indices)


def _along(index: Tensor, d: int, shape: Sequence[int]) -> Tensor:
    """A 1-D index along dim d expanded to ``shape`` (with len(index) at d), for scatter and gather."""
    view = [1] * len(shape)
    view[d] = -1
    full = list(shape)
    full[d] = index.numel()
    return index.reshape(view).expand(full)


def _index_args(self: Tensor, dim: int, index: Tensor, fn: str) -> int:
    if index.ndim > 1:
        raise IndexError(f"{fn}_(): Index is supposed to be a vector, but got dim: {index.ndim} with type: "
                         f"{index.dtype.name} and size: {list(index.shape)}")
    return _wrap(dim, self.ndim)


def _checked_index(index: Tensor, size: int, dim: int, fn: str, negative: bool, message: str | None = None) -> Tensor:
    """index as a 1-D int64 tensor, each value checked against the size of dim (torch's IndexError,
    naming the index and the size); negative values count from the end when ``negative``."""
    flat = index.reshape(-1).to(_I64)
    bad = _first_out_of_range(flat, -size if negative else 0, size)
    if bad is not None:
        raise IndexError(message or f"{fn}: index {bad} is out of bounds for dimension {dim} with size {size}")
    return _wrap_negative(flat, size) if negative else flat


def _slices_along(self: Tensor, d: int, index: Tensor, source: Tensor) -> tuple[Tensor, Tensor, Tensor]:
    """(self, index, source) as scatter takes them: 0-d ones as their 1-element views, and the 1-D
    index expanded over the source's other dims."""
    s1 = self.reshape(1) if self.ndim == 0 else self
    src = source.reshape(1) if source.ndim == 0 else source
    return s1, _along(index, d, src.shape), src


def _check_source(self: Tensor, d: int, n: int, source: Tensor, fn: str) -> None:
    """torch's checks of index_add's source: same dtype, same shape as self but along dim, n slices there."""
    if source.dtype != self.dtype:
        raise RuntimeError(f"{fn}_(): self ({self.dtype.name}) and source ({source.dtype.name}) must have the same "
                           "scalar type")
    if source.ndim > 0 and d >= source.ndim:
        raise RuntimeError(f"{fn}_(): Indexing dim {d} is out of bounds of the source tensor with dim {source.ndim}")
    along = source.shape[d] if source.ndim else 1
    if n != along:
        raise RuntimeError(f"{fn}_(): Number of indices ({n}) should be equal to source.size(dim): ({along}), "
                           f"for dim: {d}")
    a, b = list(self.shape), list(source.shape)
    if len(a) != len(b) or any(i != d and x != y for i, (x, y) in enumerate(zip(a, b))):
        raise RuntimeError("source tensor shape must match self tensor shape, excluding the specified dimension. "
                           f"Got self.shape = {a} source.shape = {b}")


def index_add(input: Tensor, dim: int, index: Tensor, source: Tensor, *, alpha: Any = 1) -> Tensor:
    """``input`` with ``alpha * source``'s slices added at ``index`` along ``dim``."""
    if index.dtype not in (_I64, _C.dtype.int32):
        raise RuntimeError(f"index_add_(): Expected dtype int32/int64 for index but got: {index.dtype.name}")
    d = _index_args(input, dim, index, "index_add")
    _check_source(input, d, index.numel(), source, "index_add")
    size = input.shape[d] if input.ndim else 1
    idx = _checked_index(index, size, d, "index_add(): index out of range in self", False)
    src = source if alpha == 1 else source * alpha
    s1, ix, src = _slices_along(input, d, idx, src)
    return s1.scatter_add(d, ix, src).reshape(list(input.shape))


def index_copy(input: Tensor, dim: int, index: Tensor, source: Tensor) -> Tensor:
    """``input`` with ``source``'s slices written at ``index`` along ``dim``."""
    if index.ndim > 1:
        raise IndexError(f"index_copy_(): Index should have dimension 1 or 0 (got {index.ndim})")
    if index.dtype != _I64:
        raise RuntimeError(f"index_copy_(): Expected a long tensor for index, but got {index.dtype.name}")
    if source.dtype != input.dtype:
        raise RuntimeError("index_copy_(): self and source expected to have the same dtype, but got (self) "
                           f"{input.dtype.name} and (source) {source.dtype.name}")
    d = _wrap(dim, input.ndim)
    n = index.numel()
    if source.ndim == 0:
        if n != 1:
            raise IndexError(f"index_copy_(): When source is scalar, index should have one element (got {n})")
    elif input.ndim == 0 or source.ndim == input.ndim:
        if input.ndim and any(i != d and x != y for i, (x, y) in enumerate(zip(input.shape, source.shape))):
            i = next(i for i, (x, y) in enumerate(zip(input.shape, source.shape)) if i != d and x != y)
            raise RuntimeError("index_copy_(): Source/destination tensor must have same slice shapes. Destination "
                               f"slice shape: {input.shape[i]} at dimension {i} and source slice shape: "
                               f"{source.shape[i]} at dimension {i}.")
        if input.ndim == 0 and source.ndim > 1:
            raise RuntimeError("index_copy_(): Source/destination tensor must have same slice shapes. Destination "
                               f"slice shape:  at dimension 0 and source slice shape: {source.shape[1]} at dimension 0.")
        if n != source.shape[d]:
            raise IndexError(f"index_copy_(): Number of indices ({n}) should be equal to source.size(dim) "
                             f"({source.shape[d]})")
    else:
        raise IndexError("index_copy_(): When source and destination are not scalars, their dimensionality must "
                         f"match. Source dimensionality ({source.ndim}), destination dimensionality ({input.ndim})")
    size = input.shape[d] if input.ndim else 1
    idx = _checked_index(index, size, d, "index_copy_()", False)
    s1, ix, src = _slices_along(input, d, idx, source)
    return _native_scatter(s1, d, ix, src).reshape(list(input.shape))


def index_fill(input: Tensor, dim: int, index: Tensor, value: Any) -> Tensor:
    """``input`` with its slices at ``index`` along ``dim`` set to ``value`` (negative indices count from the end)."""
    if index.ndim > 1:
        raise RuntimeError("Index has to be a vector/scalar")
    if index.dtype != _I64:
        raise IndexError("index_fill_(): Expected dtype int64 for index.")
    d = _wrap(dim, input.ndim)
    size = input.shape[d] if input.ndim else 1
    idx = _checked_index(index, size, d, "index_fill", True, None)
    s1 = input.reshape(1) if input.ndim == 0 else input
    ix = _along(idx, d, s1.shape)
    if isinstance(value, Tensor):
        if value.ndim != 0:
            raise RuntimeError(f"index_fill_ only supports a 0-dimensional value tensor, but got tensor with "
                               f"{value.ndim} dimension(s).")
        src = value.to(input.dtype).expand(list(ix.shape))
    else:
        src = _C.full(list(ix.shape), value, dtype=input.dtype)._to_device(input.device)
    return _native_scatter(s1, d, ix, src).reshape(list(input.shape))


def _inplace(fn: Any) -> Any:
    def method(self: Tensor, *args: Any, **kwargs: Any) -> Tensor:
        return self.copy_(fn(self, *args, **kwargs))

    method.__name__ = fn.__name__ + "_"
    method.__doc__ = f"In-place {fn.__name__}: writes the result into self and returns self."
    return method


# ---- reductions -------------------------------------------------------------------------------------

def std_mean(input: Tensor, dim: Any = None, unbiased: Any = None, keepdim: bool = False, *,
             correction: Any = None) -> tuple[Tensor, Tensor]:
    """(std, mean) over ``dim``; a bool in dim's place is torch's ``std_mean(input, unbiased)``."""
    if isinstance(dim, bool):
        dim, unbiased = None, dim
    kw = {} if unbiased is None else {"unbiased": unbiased}
    if correction is not None:
        kw["correction"] = correction
    return input.std(dim, keepdim=keepdim, **kw), input.mean(dim, keepdim=keepdim)


def var_mean(input: Tensor, dim: Any = None, unbiased: Any = None, keepdim: bool = False, *,
             correction: Any = None) -> tuple[Tensor, Tensor]:
    """(var, mean) over ``dim``; a bool in dim's place is torch's ``var_mean(input, unbiased)``."""
    if isinstance(dim, bool):
        dim, unbiased = None, dim
    kw = {} if unbiased is None else {"unbiased": unbiased}
    if correction is not None:
        kw["correction"] = correction
    return input.var(dim, keepdim=keepdim, **kw), input.mean(dim, keepdim=keepdim)


def aminmax(input: Tensor, *, dim: int | None = None, keepdim: bool = False) -> aminmax_result:
    """(min, max) over all elements or along ``dim``."""
    if dim is None:
        if input.numel() == 0:
            raise RuntimeError("aminmax(): cannot compute aminmax over an empty dimension as the operation has "
                               "no identity.")
        mn, mx = input.amin(), input.amax()
        if keepdim:
            mn, mx = mn.reshape([1] * input.ndim), mx.reshape([1] * input.ndim)
        return aminmax_result(mn, mx)
    return aminmax_result(input.amin(dim, keepdim=keepdim), input.amax(dim, keepdim=keepdim))


def count_nonzero(input: Tensor, dim: Any = None) -> Tensor:
    """The number of nonzero elements (over ``dim``, an int or a tuple)."""
    return (input != 0).sum(dim)


_native_nonzero = Tensor.nonzero


def nonzero(input: Tensor, *, as_tuple: bool = False) -> Any:
    """The indices of the nonzero elements: an (n, ndim) tensor, or one 1-D tensor per dim."""
    nz = _native_nonzero(input)
    if not as_tuple:
        return nz
    if input.ndim == 0:  # one index (0) per nonzero element, as torch: (tensor([0]),) or (tensor([]),)
        return (_C.zeros([nz.shape[0]], dtype=nz.dtype)._to_device(input.device),)
    return tuple(nz.select(1, k) for k in range(input.ndim))


def argwhere(input: Tensor) -> Tensor:
    """The indices of the nonzero elements, (n, ndim)."""
    return _native_nonzero(input)


# ---- installation -----------------------------------------------------------------------------------

_FUNCTIONS = [
    "sort", "argsort", "msort", "topk", "kthvalue", "median", "nanmedian", "mode", "unique",
    "cumprod", "cummax", "cummin", "logcumsumexp", "flip", "fliplr", "flipud", "roll", "repeat_interleave",
    "tile", "tril", "triu", "diag", "diag_embed", "trace", "masked_select", "masked_scatter", "scatter_reduce",
    "take", "take_along_dim", "index_add", "index_copy", "index_fill", "std_mean", "var_mean", "aminmax",
    "count_nonzero", "nonzero", "argwhere",
]
__all__ = list(_FUNCTIONS)

# Tensor methods whose signature differs from the function's (varargs, in place).
_METHODS_ONLY = {
    "repeat": repeat,
    "unfold": unfold,
    "scatter": _scatter,
    "scatter_": _scatter_,
    "scatter_reduce_": _scatter_reduce_,
    "index_add_": _inplace(index_add),
    "index_copy_": _inplace(index_copy),
    "index_fill_": _inplace(index_fill),
    "masked_scatter_": _inplace(masked_scatter),
    "tril_": _inplace(tril),
    "triu_": _inplace(triu),
}


def _flip_method(self: Tensor, *dims: Any) -> Tensor:
    """A copy reversed along ``dims`` (``t.flip(0, 1)`` or ``t.flip((0, 1))``)."""
    return flip(self, _varargs(dims, "flip"))


def _tile_method(self: Tensor, *dims: Any) -> Tensor:
    """``tile(self, dims)`` (``t.tile(2, 1)`` or ``t.tile((2, 1))``)."""
    return tile(self, _varargs(dims, "tile"))


def _cumprod_(self: Tensor, dim: int, *, dtype: Any = None) -> Tensor:
    """In-place cumprod along ``dim``."""
    return self.copy_(cumprod(self, dim, dtype=dtype))


def install() -> None:
    """Attaches the ops as Tensor methods (torch's method names)."""
    for name in _FUNCTIONS:
        setattr(Tensor, name, globals()[name])
    for name, fn in _METHODS_ONLY.items():
        setattr(Tensor, name, fn)
    Tensor.flip = _flip_method
    Tensor.tile = _tile_method
    Tensor.cumprod_ = _cumprod_
