"""More of PyTorch's everyday shape API, each a composite of existing differentiable ops: moving,
stacking and splitting dims, grids and index helpers, scatter-into-a-view ops, searchsorted and
counting, and the small matrix products (dot, mv, addmm, ...) that go through matmul.
"""

from __future__ import annotations

import builtins
import math
from typing import Any, Sequence

import numpy as np

from . import _C
from ._C import Tensor
from .shape_ops import _dims_arg, _runs, _with_inverse_counts, _wrap, flip

_I64 = _C.dtype.int64


def _arange(n: int, device: Any) -> Tensor:
    return _C.arange(0, n, 1, dtype=_I64)._to_device(device)


# ---- moving dims -----------------------------------------------------------------------------------

def movedim(input: Tensor, source: Any, destination: Any) -> Tensor:
    """``input`` with the dims at ``source`` moved to ``destination`` (the rest keep their order)."""
    src, dst = _dims_arg(source, "movedim"), _dims_arg(destination, "movedim")
    if len(src) != len(dst):
        raise RuntimeError(f"movedim: Invalid source or destination dims: source ({src} dims) should contain the "
                           f"same number of dims as destination ({dst} dims)")
    n = input.ndim
    if n == 0:  # a 0-d tensor's only dims are 0 and -1 (torch's rule), and moving them changes nothing
        for d in src + dst:
            _wrap(d, 1)
        return input.view(())
    src = [_wrap(d, n) for d in src]
    dst = [_wrap(d, n) for d in dst]
    if len(set(src)) != len(src) or len(set(dst)) != len(dst):
        raise RuntimeError("movedim: repeated dim in `source` or `destination`")
    if n == 0:  # dims 0 and -1 of a 0-d tensor: nothing to move
        return input
    perm = [-1] * n
    for s, d in zip(src, dst):
        perm[d] = s
    rest = iter(d for d in range(n) if d not in src)
    perm = [p if p != -1 else next(rest) for p in perm]
    return input.permute(perm) if n else input


moveaxis = movedim


def swapdims(input: Tensor, dim0: int, dim1: int) -> Tensor:
    """dims dim0 and dim1 swapped (transpose; a view)."""
    return input.transpose(dim0, dim1)


def ravel(input: Tensor) -> Tensor:
    """The elements as one dim (a view when possible)."""
    return input.reshape(-1)


def narrow_copy(input: Tensor, dim: int, start: int, length: int) -> Tensor:
    """A copy of ``input.narrow(dim, start, length)``."""
    return input.narrow(dim, start, length).clone()


# ---- stacking and splitting ------------------------------------------------------------------------

def _atleast(nd: int, tensors: tuple) -> Any:
    single = len(tensors) == 1 and isinstance(tensors[0], Tensor)
    items = tensors[0] if len(tensors) == 1 and isinstance(tensors[0], (list, tuple)) else tensors
    out = []
    for t in items:
        if t.ndim >= nd:
            out.append(t)
        elif t.ndim == 0:
            out.append(t.reshape([1] * nd))
        elif nd == 2 or t.ndim == 2:  # (n,) -> (1, n); for 3 dims (m, n) -> (m, n, 1)
            out.append(t.unsqueeze(0) if nd == 2 else t.unsqueeze(-1))
        else:  # (n,) -> (1, n, 1)
            out.append(t.reshape([1, t.shape[0], 1]))
    return out[0] if single else tuple(out)


def atleast_1d(*tensors: Any) -> Any:
    """Each tensor with at least 1 dim (a 0-d one becomes (1,))."""
    return _atleast(1, tensors)


def atleast_2d(*tensors: Any) -> Any:
    """Each tensor with at least 2 dims ((n,) becomes (1, n))."""
    return _atleast(2, tensors)


def atleast_3d(*tensors: Any) -> Any:
    """Each tensor with at least 3 dims ((n,) becomes (1, n, 1), (m, n) becomes (m, n, 1))."""
    return _atleast(3, tensors)


def _seq(tensors: Any, fn: str) -> list:
    if isinstance(tensors, Tensor) or not isinstance(tensors, (list, tuple)):
        raise TypeError(f"{fn}(): argument 'tensors' must be tuple of Tensors, not {type(tensors).__name__}")
    if not tensors:
        raise RuntimeError(f"{fn} expects a non-empty TensorList")
    return list(tensors)


def hstack(tensors: Sequence[Tensor]) -> Tensor:
    """Concatenated along dim 1 (dim 0 for 1-D tensors)."""
    ts = [atleast_1d(t) for t in _seq(tensors, "hstack")]
    return _C.cat(ts, 0 if ts[0].ndim == 1 else 1)


def vstack(tensors: Sequence[Tensor]) -> Tensor:
    """Concatenated along dim 0, 1-D tensors as rows."""
    return _C.cat([atleast_2d(t) for t in _seq(tensors, "vstack")], 0)


row_stack = vstack


def dstack(tensors: Sequence[Tensor]) -> Tensor:
    """Concatenated along dim 2 (depth), after atleast_3d."""
    return _C.cat([atleast_3d(t) for t in _seq(tensors, "dstack")], 2)


def column_stack(tensors: Sequence[Tensor]) -> Tensor:
    """1-D tensors as columns (and 2-D ones as they are), concatenated along dim 1."""
    ts = [t.reshape([-1, 1]) if t.ndim <= 1 else t for t in _seq(tensors, "column_stack")]
    return _C.cat(ts, 1)


def tensor_split(input: Tensor, indices_or_sections: Any, dim: int = 0) -> tuple:
    """Splits into ``n`` near-equal parts (the first ``size % n`` one longer) or at the given indices."""
    if input.ndim == 0:
        raise RuntimeError("tensor_split expected at least a 1-dimensional tensor, but got a tensor with 0 dims")
    d = _wrap(dim, input.ndim)
    size = input.shape[d]
    ios = indices_or_sections
    if isinstance(ios, Tensor):
        ios = int(ios.item()) if ios.ndim == 0 else ios.tolist()
    if isinstance(ios, int):
        if ios <= 0:
            raise RuntimeError(f"number of sections must be larger than 0, got {ios}")
        q, r = divmod(size, ios)
        bounds, at = [], 0
        for k in range(ios - 1):
            at += q + (1 if k < r else 0)
            bounds.append(at)
    else:
        bounds = list(ios)
    out, start = [], 0
    for b in bounds + [size]:
        b = builtins.min(builtins.max(b + size if b < 0 else b, 0), size)
        stop = builtins.max(b, start)
        out.append(input.narrow(d, start, stop - start))
        start = stop
    return tuple(out)


def _split_dir(input: Tensor, ios: Any, dim: int, fn: str, min_dims: int) -> tuple:
    if input.ndim < min_dims:
        raise RuntimeError(f"torch.{fn} requires a tensor with at least {min_dims} dimension, but got a tensor with "
                           f"{input.ndim} dimensions!")
    if isinstance(ios, int) and (ios == 0 or input.shape[dim] % ios != 0):
        raise RuntimeError(f"torch.{fn} attempted to split along dimension {dim}, but the size of the dimension "
                           f"{input.shape[dim]} is not divisible by the split_size {ios}!")
    return tensor_split(input, ios, dim)


def hsplit(input: Tensor, indices_or_sections: Any) -> tuple:
    """tensor_split along dim 1 (dim 0 of a 1-D tensor); a number of sections must divide the dim."""
    return _split_dir(input, indices_or_sections, 0 if input.ndim == 1 else 1, "hsplit", 1)


def vsplit(input: Tensor, indices_or_sections: Any) -> tuple:
    """tensor_split along dim 0 of a tensor of at least 2 dims."""
    return _split_dir(input, indices_or_sections, 0, "vsplit", 2)


def dsplit(input: Tensor, indices_or_sections: Any) -> tuple:
    """tensor_split along dim 2 of a tensor of at least 3 dims."""
    return _split_dir(input, indices_or_sections, 2, "dsplit", 3)


def split_with_sizes(input: Tensor, split_sizes: Sequence[int], dim: int = 0) -> tuple:
    """Pieces of the given sizes along ``dim`` (they must add up to its size)."""
    if sum(split_sizes) != input.shape[_wrap(dim, input.ndim)]:
        raise RuntimeError(f"split_with_sizes expects split_sizes to sum exactly to {input.shape[dim]} (input "
                           f"tensor's size at dimension {dim}), but got split_sizes={list(split_sizes)}")
    return tuple(input.split(list(split_sizes), dim))


def rot90(input: Tensor, k: int = 1, dims: Sequence[int] = (0, 1)) -> Tensor:
    """Rotated by 90 degrees ``k`` times in the plane of ``dims`` (from the first towards the second)."""
    dims = list(dims)
    if len(dims) != 2:
        raise RuntimeError(f"expected total rotation dims == 2, but got dims = {len(dims)}")
    if input.ndim < 2:
        raise RuntimeError(f"expected total dims >= 2, but got total dims = {input.ndim}")
    d0, d1 = _wrap(dims[0], input.ndim), _wrap(dims[1], input.ndim)
    if d0 == d1:
        raise RuntimeError(f"expected rotation dims to be different, but got dim0 = {d0} and dim1 = {d1}")
    k %= 4
    if k == 1:
        return flip(input, [d1]).transpose(d0, d1)
    if k == 2:
        return flip(input, [d0, d1])
    if k == 3:
        return flip(input, [d0]).transpose(d0, d1)
    return input.clone()


# ---- grids and index helpers -----------------------------------------------------------------------

def broadcast_tensors(*tensors: Tensor) -> tuple:
    """The tensors expanded to their common broadcast shape (views)."""
    if len(tensors) == 1 and isinstance(tensors[0], (list, tuple)):
        tensors = tuple(tensors[0])
    shape = _C.broadcast_shapes(*(tuple(t.shape) for t in tensors))
    return tuple(t.expand(list(shape)) for t in tensors)


def meshgrid(*tensors: Tensor, indexing: str | None = None) -> tuple:
    """Coordinate grids of 1-D tensors: indexing 'ij' (matrix, the default) or 'xy' (Cartesian)."""
    if len(tensors) == 1 and isinstance(tensors[0], (list, tuple)):
        tensors = tuple(tensors[0])
    indexing = "ij" if indexing is None else indexing
    if indexing not in ("ij", "xy"):
        raise RuntimeError(f"torch.meshgrid: indexing must be one of \"xy\" or \"ij\", but received: {indexing}")
    for t in tensors:
        if t.ndim > 1:
            raise RuntimeError(f"torch.meshgrid: Expected 0D or 1D tensor in the tensor list but got: {t.ndim}D")
    ts = [t.reshape(-1) for t in tensors]
    swap = indexing == "xy" and len(ts) >= 2
    if swap:
        ts[0], ts[1] = ts[1], ts[0]
    shape = [t.shape[0] for t in ts]
    out = []
    for k, t in enumerate(ts):
        view = [1] * len(ts)
        view[k] = -1
        out.append(t.reshape(view).expand(shape))
    if swap:
        out[0], out[1] = out[1], out[0]
    return tuple(out)


def cartesian_prod(*tensors: Tensor) -> Tensor:
    """Every combination of the 1-D tensors' elements, as rows."""
    if len(tensors) == 1:
        return tensors[0]
    return _C.stack([g.reshape(-1) for g in meshgrid(*tensors, indexing="ij")], 1)


def _tri_indices(row: int, col: int, offset: int, lower: bool, dtype: Any, device: Any) -> Tensor:
    r, c = (np.tril_indices if lower else np.triu_indices)(row, offset, col)
    out = _C.from_numpy(np.stack([r, c]).astype(np.int64).reshape(2, -1))
    out = out if dtype is None else out.to(dtype)
    return out if device is None else out._to_device(device)


def tril_indices(row: int, col: int, offset: int = 0, *, dtype: Any = None, device: Any = None) -> Tensor:
    """The (2, N) row and column indices of the lower triangle of a row x col matrix."""
    return _tri_indices(row, col, offset, True, dtype, device)


def triu_indices(row: int, col: int, offset: int = 0, *, dtype: Any = None, device: Any = None) -> Tensor:
    """The (2, N) row and column indices of the upper triangle of a row x col matrix."""
    return _tri_indices(row, col, offset, False, dtype, device)


def block_diag(*tensors: Tensor) -> Tensor:
    """The tensors (0-d, 1-D as a row, 2-D) as the blocks of a block-diagonal matrix."""
    mats = [t.reshape([1, 1]) if t.ndim == 0 else t.reshape([1, -1]) if t.ndim == 1 else t for t in tensors]
    for t in mats:
        if t.ndim != 2:
            raise RuntimeError(f"torch.block_diag: Input tensors must have 2 or fewer dimensions. Input has {t.ndim} "
                               "dimensions")
    if not mats:
        return _C.zeros([1, 0])
    dtype = mats[0].dtype
    for t in mats[1:]:
        dtype = _C.promote_types(dtype, t.dtype)
    cols = sum(t.shape[1] for t in mats)
    rows, left = [], 0
    for t in mats:
        r, c = t.shape
        parts = [_C.zeros([r, left], dtype=dtype)._to_device(t.device), t.to(dtype),
                 _C.zeros([r, cols - left - c], dtype=dtype)._to_device(t.device)]
        rows.append(_C.cat(parts, 1))
        left += c
    return _C.cat(rows, 0)


# ---- writing into a view (out of place) --------------------------------------------------------------

def _scatter_into(input: Tensor, src: Tensor, view: Any) -> Tensor:
    """``input`` with ``src`` written where ``view(input)`` looks: the view applied to the element
    numbers picks the flat positions, and one scatter (differentiable in both) writes them."""
    pos = view(_arange(input.numel(), input.device).reshape(list(input.shape)))
    if tuple(src.shape) != tuple(pos.shape):
        raise RuntimeError(f"expected src to have a size equal to the slice of self. src size = {list(src.shape)}, "
                           f"slice size = {list(pos.shape)}")
    flat = input.reshape(-1).scatter(0, pos.reshape(-1), src.to(input.dtype).reshape(-1))
    return flat.reshape(list(input.shape))


def select_scatter(input: Tensor, src: Tensor, dim: int, index: int) -> Tensor:
    """A copy of ``input`` with ``src`` written into ``input.select(dim, index)``."""
    return _scatter_into(input, src, lambda t: t.select(dim, index))


def slice_scatter(input: Tensor, src: Tensor, dim: int = 0, start: int | None = None, end: int | None = None,
                  step: int = 1) -> Tensor:
    """A copy of ``input`` with ``src`` written into the slice start:end:step of ``dim``."""
    d = _wrap(dim, input.ndim)
    return _scatter_into(input, src, lambda t: t[(slice(None),) * d + (slice(start, end, step),)])


def diagonal_scatter(input: Tensor, src: Tensor, offset: int = 0, dim1: int = 0, dim2: int = 1) -> Tensor:
    """A copy of ``input`` with ``src`` written into ``input.diagonal(offset, dim1, dim2)``."""
    return _scatter_into(input, src, lambda t: t.diagonal(offset, dim1, dim2))


def index_put(input: Tensor, indices: Sequence[Tensor], values: Tensor, accumulate: bool = False) -> Tensor:
    """The out-of-place index_put_: a copy with ``values`` written (or added) at ``indices``."""
    return input.clone().index_put_(list(indices), values, accumulate)


# ---- searching and counting -----------------------------------------------------------------------

def searchsorted(sorted_sequence: Tensor, input: Any, *, out_int32: bool = False, right: bool = False,
                 side: str | None = None, sorter: Tensor | None = None) -> Tensor:
    """For each value, the index at which it would be inserted into the sorted last dim of
    ``sorted_sequence`` (before equal elements, or after them with right=True / side='right')."""
    if side is not None:
        if side not in ("left", "right"):
            raise RuntimeError(f"torch.searchsorted(): side can only be 'left' or 'right' but got {side}")
        if right and side == "left":
            raise RuntimeError("torch.searchsorted(): side and right can't be set to opposites, got side of left "
                               "while right was True")
        right = side == "right"
    seq = sorted_sequence if sorter is None else sorted_sequence.gather(-1, sorter)
    scalar = not isinstance(input, Tensor)
    values = _C.full([], input, dtype=seq.dtype) if scalar else input
    if seq.ndim > 1 and tuple(seq.shape[:-1]) != tuple(values.shape[:-1]):
        raise RuntimeError("torch.searchsorted(): boundaries tensor should be 1 dimension or the first N-1 dimensions "
                           "of boundaries tensor and input value tensor must match")
    if seq.ndim == 1:
        below = seq.reshape([1] * values.ndim + [-1]) <= values.unsqueeze(-1) if right else \
            seq.reshape([1] * values.ndim + [-1]) < values.unsqueeze(-1)
    else:
        s = seq.unsqueeze(-2)  # (..., 1, N) against values (..., M, 1)
        below = (s <= values.unsqueeze(-1)) if right else (s < values.unsqueeze(-1))
    if values.dtype.is_floating_point:
        below = below | values.isnan().unsqueeze(-1)  # a NaN value goes after every boundary, as torch's search
    out = below.sum(-1)
    return out.to(_C.dtype.int64) if not out_int32 else out


def bucketize(input: Any, boundaries: Tensor, *, out_int32: bool = False, right: bool = False) -> Tensor:
    """The bucket of each element among ``boundaries`` (1-D, sorted)."""
    if boundaries.ndim != 1:
        raise RuntimeError(f"boundaries tensor must be 1 dimension, but got dim({boundaries.ndim})")
    return searchsorted(boundaries, input, out_int32=out_int32, right=right)


def bincount(input: Tensor, weights: Tensor | None = None, minlength: int = 0) -> Tensor:
    """How often each value 0, 1, ... occurs in the 1-D non-negative integer ``input`` (or the sum of ``weights``)."""
    if input.ndim != 1:
        raise RuntimeError("bincount only supports 1-d non-negative integral inputs.")
    if input.dtype.is_floating_point or input.dtype == _C.dtype.bool:
        raise NotImplementedError(f"\"bincount\" not implemented for '{input.dtype}'")
    if minlength < 0:
        raise RuntimeError("minlength should be >= 0")
    idx = input.to(_I64)
    if idx.numel() and int(idx.amin().item()) < 0:
        raise RuntimeError("bincount only supports 1-d non-negative integral inputs.")
    n = builtins.max(minlength, int(idx.amax().item()) + 1 if idx.numel() else 0)
    if weights is None:
        return _C.zeros([n], dtype=_I64)._to_device(input.device).scatter_add(0, idx, _C.ones([idx.shape[0]], dtype=_I64)._to_device(input.device))
    w = weights if weights.dtype.is_floating_point else weights.to(_C.dtype.float64)
    return _C.zeros([n], dtype=w.dtype)._to_device(input.device).scatter_add(0, idx, w)


def histc(input: Tensor, bins: int = 100, min: float = 0, max: float = 0) -> Tensor:
    """A histogram of ``bins`` equal bins over [min, max] (the data's range when both are 0)."""
    if not input.dtype.is_floating_point:
        raise NotImplementedError(f"\"histogram_cpu\" not implemented for '{input.dtype.name}'")
    x = input.detach().reshape(-1)
    lo, hi = float(min), float(max)
    if lo == hi and x.numel():
        lo, hi = float(x.amin().item()), float(x.amax().item())
    if lo == hi:
        lo, hi = lo - 1, hi + 1
    if lo > hi:
        raise RuntimeError("torch.histc: max must be larger than min")
    if not (math.isfinite(lo) and math.isfinite(hi)):  # an infinite limit, given or from the data; or NaN data
        raise RuntimeError(f"torch.histc: range of [{lo:g}, {hi:g}] is not finite")
    inside = (x >= lo) & (x <= hi)
    b = ((x - lo) * (bins / (hi - lo))).floor().to(_I64).clamp(0, bins - 1)
    w = inside.to(input.dtype)
    return _C.zeros([bins], dtype=input.dtype)._to_device(input.device).scatter_add(0, b, w)


def isin(elements: Any, test_elements: Any, *, assume_unique: bool = False, invert: bool = False) -> Tensor:
    """Whether each element occurs in ``test_elements``."""
    e = elements if isinstance(elements, Tensor) else _C.full([], elements, dtype=test_elements.dtype)
    t = test_elements if isinstance(test_elements, Tensor) else _C.full([1], test_elements, dtype=e.dtype)
    hit = (e.unsqueeze(-1) == t.reshape(-1)).any(-1) if t.numel() else _C.zeros(list(e.shape), dtype=_C.dtype.bool)
    return hit.logical_not() if invert else hit


def unique_consecutive(input: Tensor, return_inverse: bool = False, return_counts: bool = False,
                       dim: int | None = None) -> Any:
    """Each run of equal consecutive elements once, with optionally the inverse map and run lengths."""
    if dim is not None:
        raise NotImplementedError("unique_consecutive with dim is not implemented in aakaar yet; flatten first")
    values, run = _runs(input.detach().reshape(-1))
    return _with_inverse_counts(values, run, run, list(input.shape), return_inverse, return_counts)


# ---- reductions ------------------------------------------------------------------------------------

def nansum(input: Tensor, dim: Any = None, keepdim: bool = False, *, dtype: Any = None) -> Tensor:
    """sum treating NaN as 0."""
    x = input.masked_fill(input != input, 0) if input.dtype.is_floating_point else input
    out = x.sum(dim, keepdim=keepdim)
    return out if dtype is None else out.to(dtype)


def nanmean(input: Tensor, dim: Any = None, keepdim: bool = False, *, dtype: Any = None) -> Tensor:
    """mean over the elements that are not NaN."""
    if not input.dtype.is_floating_point:
        raise RuntimeError(f"nanmean(): expected input to have floating point or complex dtype but got {input.dtype}")
    keep = input == input
    return nansum(input, dim, keepdim, dtype=dtype) / keep.sum(dim, keepdim=keepdim)


def sum_to_size(input: Tensor, *size: Any) -> Tensor:
    """The sum over the dims that ``size`` broadcasts (the inverse of expand)."""
    size = list(size[0]) if len(size) == 1 and isinstance(size[0], (list, tuple)) else list(size)
    lead = input.ndim - len(size)
    if lead < 0 or any(s not in (1, n) for s, n in zip(size, input.shape[lead:])):
        raise RuntimeError(f"size {{{', '.join(map(str, size))}}} is not expandable to size "
                           f"{{{', '.join(map(str, input.shape))}}}.")
    dims = list(range(lead)) + [lead + k for k, s in enumerate(size) if s == 1 and input.shape[lead + k] != 1]
    out = input.sum(dims, keepdim=True) if dims else input
    return out.reshape(size)


# ---- small products through matmul ---------------------------------------------------------------

def dot(input: Tensor, tensor: Tensor) -> Tensor:
    """The inner product of two 1-D tensors."""
    if input.ndim != 1 or tensor.ndim != 1:
        raise RuntimeError(f"1D tensors expected, but got {input.ndim}D and {tensor.ndim}D tensors")
    if input.shape[0] != tensor.shape[0]:
        raise RuntimeError(f"inconsistent tensor size, expected tensor [{input.shape[0]}] and src [{tensor.shape[0]}] "
                           f"to have the same number of elements, but got {input.shape[0]} and {tensor.shape[0]} "
                           "elements respectively")
    if input.dtype != tensor.dtype:
        raise RuntimeError(f"dot : expected both vectors to have same dtype, but found {input.dtype} and "
                           f"{tensor.dtype}")
    return input.matmul(tensor)


vdot = dot


def inner(input: Tensor, other: Tensor) -> Tensor:
    """Sums of products over the last dims (a product with a number when one is 0-d)."""
    if input.ndim == 0 or other.ndim == 0:
        return input * other
    from .contraction_ops import tensordot

    if input.shape[-1] != other.shape[-1]:
        raise RuntimeError(f"inner() the last dimension must match on both input tensors but got shapes "
                           f"{list(input.shape)} and {list(other.shape)}")
    return tensordot(input, other, ([input.ndim - 1], [other.ndim - 1]))


def mv(input: Tensor, vec: Tensor) -> Tensor:
    """Matrix times vector."""
    if input.ndim != 2 or vec.ndim != 1:
        raise RuntimeError(f"vector + matrix @ vector expected, got {input.ndim}, {vec.ndim}")
    return input.matmul(vec)


def _scaled_sum(input: Tensor, product: Tensor, beta: Any, alpha: Any) -> Tensor:
    # beta == 0 ignores input entirely (NaN and inf in it do not reach the result), as PyTorch.
    p = product if alpha == 1 else product * alpha
    if beta == 0:  # input still gets a gradient, of zeros
        return _C.where(_C.full([], True, dtype=_C.dtype.bool)._to_device(p.device), p, input)
    return (input if beta == 1 else input * beta) + p


def addmm(input: Tensor, mat1: Tensor, mat2: Tensor, *, beta: Any = 1, alpha: Any = 1) -> Tensor:
    """beta * input + alpha * (mat1 @ mat2)."""
    if mat1.ndim != 2 or mat2.ndim != 2:
        raise RuntimeError(f"mat1 must be a matrix, got {mat1.ndim}-D tensor" if mat1.ndim != 2 else
                           f"mat2 must be a matrix, got {mat2.ndim}-D tensor")
    return _scaled_sum(input, _C.mm(mat1, mat2), beta, alpha)


def addmv(input: Tensor, mat: Tensor, vec: Tensor, *, beta: Any = 1, alpha: Any = 1) -> Tensor:
    """beta * input + alpha * (mat @ vec)."""
    return _scaled_sum(input, mv(mat, vec), beta, alpha)


def addr(input: Tensor, vec1: Tensor, vec2: Tensor, *, beta: Any = 1, alpha: Any = 1) -> Tensor:
    """beta * input + alpha * outer(vec1, vec2)."""
    from .contraction_ops import outer

    return _scaled_sum(input, outer(vec1, vec2), beta, alpha)


def baddbmm(input: Tensor, batch1: Tensor, batch2: Tensor, *, beta: Any = 1, alpha: Any = 1) -> Tensor:
    """beta * input + alpha * bmm(batch1, batch2)."""
    return _scaled_sum(input, _C.bmm(batch1, batch2), beta, alpha)


def addbmm(input: Tensor, batch1: Tensor, batch2: Tensor, *, beta: Any = 1, alpha: Any = 1) -> Tensor:
    """beta * input + alpha * (the sum over the batch of bmm(batch1, batch2))."""
    return _scaled_sum(input, _C.bmm(batch1, batch2).sum(0), beta, alpha)


# ---- installation -----------------------------------------------------------------------------------

__all__ = [
    "movedim", "moveaxis", "swapdims", "ravel", "narrow_copy", "atleast_1d", "atleast_2d", "atleast_3d",
    "hstack", "vstack", "row_stack", "dstack", "column_stack", "tensor_split", "hsplit", "vsplit", "dsplit",
    "split_with_sizes", "rot90", "broadcast_tensors", "meshgrid", "cartesian_prod", "tril_indices",
    "triu_indices", "block_diag", "select_scatter", "slice_scatter", "diagonal_scatter", "index_put",
    "searchsorted", "bucketize", "bincount", "histc", "isin", "unique_consecutive", "nansum", "nanmean",
    "dot", "vdot", "inner", "mv", "addmm", "addmv", "addr", "baddbmm", "addbmm",
]
_METHODS = [
    "movedim", "moveaxis", "swapdims", "ravel", "narrow_copy", "tensor_split", "hsplit", "vsplit", "dsplit",
    "split_with_sizes", "rot90", "select_scatter", "slice_scatter", "diagonal_scatter", "index_put",
    "bincount", "histc", "unique_consecutive", "nansum", "nanmean", "sum_to_size", "dot", "vdot", "inner",
    "mv", "addmm", "addmv", "addr", "baddbmm", "addbmm",
]


def _new(fill: Any):
    def make(self: Tensor, *size: Any, dtype: Any = None, device: Any = None, requires_grad: bool = False,
             **kwargs: Any) -> Tensor:
        """A new tensor of the given size, filled, with self's dtype and device unless told otherwise."""
        args = list(size)
        value = args.pop() if fill == "full" else fill
        shape = list(args[0]) if len(args) == 1 and isinstance(args[0], (list, tuple)) else args
        out = _C.full(shape, value if value is not None else 0, dtype=dtype or self.dtype)
        out = out._to_device(device if device is not None else self.device)
        return out.requires_grad_() if requires_grad else out

    return make


def _new_tensor(self: Tensor, data: Any, *, dtype: Any = None, device: Any = None, requires_grad: bool = False) -> Tensor:
    """A new tensor of ``data`` with self's dtype and device unless told otherwise."""
    from .creation import tensor

    out = tensor(data.detach().cpu().numpy() if isinstance(data, Tensor) else data, dtype=dtype or self.dtype)
    out = out._to_device(device if device is not None else self.device)
    return out.requires_grad_() if requires_grad else out


def _view_as(self: Tensor, other: Tensor) -> Tensor:
    """``self.view(other.shape)``."""
    return self.view(list(other.shape))


def _reshape_as(self: Tensor, other: Tensor) -> Tensor:
    """``self.reshape(other.shape)``."""
    return self.reshape(list(other.shape))


def install() -> None:
    g = globals()
    for name in _METHODS:
        setattr(Tensor, name, g[name])
    Tensor.view_as = _view_as
    Tensor.reshape_as = _reshape_as
    Tensor.new_zeros = _new(0)
    Tensor.new_ones = _new(1)
    Tensor.new_empty = _new(None)
    Tensor.new_full = _new("full")
    Tensor.new_tensor = _new_tensor
