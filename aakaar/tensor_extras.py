"""More of torch's everyday functions and Tensor methods: ``angle``, ``histogram``, ``igamma``/
``igammac`` (and ``special.gammainc``/``gammaincc``), ``nonzero_static``, ``resize_``/
``resize_as_``, the ``unsafe_`` splits, ``Tensor.prelu``, ``pin_memory`` and ``share_memory_``.
"""

from __future__ import annotations

import builtins
import functools
import math
from typing import Any, Callable, NamedTuple, Sequence

import numpy as np

from . import _C
from ._C import Tensor
from .autograd.function import Function

_F64 = _C.dtype.float64
_I64 = _C.dtype.int64

__all__ = ["angle", "histogram", "histogramdd", "igamma", "igammac", "nonzero_static", "resize_as_", "unsafe_chunk",
           "unsafe_split", "unsafe_split_with_sizes", "prelu"]


def _host(t: Tensor) -> np.ndarray:
    return t.detach().cpu().numpy()


def _from_host(a: np.ndarray, dtype: Any, device: Any) -> Tensor:
    return _C.from_numpy(np.array(a, order="C"))._to_device(device).to(dtype)


# ---- angle -------------------------------------------------------------------------------------------

def angle(input: Tensor) -> Tensor:
    """The argument of each element as a complex number: for real input pi where x < 0, else 0
    (-0.0 and +inf give 0), NaN stays NaN; integers give the default floating dtype. Gradient 0, as torch."""
    x = input if input.dtype.is_floating_point else input.to(_C._get_default_dtype())
    xd = x.detach()
    pi = _C.full(list(x.shape), math.pi, dtype=x.dtype, device=x.device)
    zero = _C.full(list(x.shape), 0.0, dtype=x.dtype, device=x.device)
    out = _C.where(xd.isnan(), xd, _C.where(xd < 0, pi, zero))
    # in the graph with a zero gradient (as torch's AngleBackward), not detached
    return _C.where((xd == xd) | xd.isnan(), out, x) if x.requires_grad else out


# ---- histogram ---------------------------------------------------------------------------------------

class HistogramResult(NamedTuple):
    hist: Tensor
    bin_edges: Tensor


def _linspace(lo: float, hi: float, steps: int, dtype: np.dtype) -> np.ndarray:
    """torch.linspace's values (the first half counted up from lo, the rest down from hi)."""
    lo_, hi_ = dtype.type(lo), dtype.type(hi)
    step = (hi_ - lo_) / dtype.type(steps - 1)
    i = np.arange(steps)
    half = steps // 2
    return np.where(i < half, lo_ + step * i.astype(dtype), hi_ - step * (steps - 1 - i).astype(dtype)).astype(dtype)


def _edges(col: np.ndarray, bins: Any, rng: Any, input: Tensor, dt: np.dtype, fn: str, dim: int) -> np.ndarray:
    """One dim's bin edges: the given tensor, or ``bins`` equal bins over ``rng`` (default the
    data's min and max; [0, 1] for no data; widened by 0.5 each way when they are equal)."""
    if isinstance(bins, Tensor):
        if bins.ndim != 1 or bins.shape[0] < 1:
            raise RuntimeError(f"{fn}(): bins tensor should have one dimension and at least 1 element")
        if bins.dtype != input.dtype:
            raise RuntimeError(f"{fn}: input tensor and bins tensors should have the same dtype, but got input "
                               f"{input.dtype.name} and bins {bins.dtype.name}")
        if bins.shape[0] < 2:
            raise RuntimeError(f"torch.histogram(): bins must be > 0, but got {bins.shape[0] - 1} for dimension {dim}")
        # Edges that do not increase are taken as they are, as torch takes them: its binary search
        # (_upper_bound) then decides the bins, and values outside [first, last] are dropped.
        return _host(bins).astype(dt)
    if not isinstance(bins, int) or bins <= 0:
        raise RuntimeError(f"{fn}(): bins must be > 0, but got {bins} for dimension {dim}")
    if rng is not None:
        lo, hi = rng
        if lo > hi:
            raise RuntimeError(f"{fn}(): max must be larger than min, but got min {lo} max {hi}")
    else:
        lo, hi = (float(col.min()), float(col.max())) if col.size else (0.0, 1.0)
    if not (math.isfinite(lo) and math.isfinite(hi)):
        raise RuntimeError(f"{fn}(): range of [{lo}, {hi}] is not finite")
    if lo == hi:
        lo, hi = lo - 0.5, hi + 0.5
    return _linspace(lo, hi, bins + 1, dt)


def _upper_bound(edges: np.ndarray, values: np.ndarray) -> np.ndarray:
    """For each value, the first i with value < edges[i] found by std::upper_bound's halving steps, as
    torch's histogram kernel finds it (the same as searchsorted(side='right') for increasing edges;
    for edges that are not, or hold NaN, the same bins torch gives)."""
    first = np.zeros(values.shape, np.int64)
    count = np.full(values.shape, len(edges), np.int64)
    while np.any(count > 0):
        step = count // 2
        probe = np.minimum(first + step, len(edges) - 1)
        right = (count > 0) & ~(values < edges[probe])
        first = np.where(right, first + step + 1, first)
        count = np.where(right, count - step - 1, np.where(count > 0, step, 0))
    return first


def _histogramdd(input: Tensor, bins: Any, range: Any, weight: Any, density: bool,  # noqa: A002
                 fn: str) -> tuple[Tensor, list[Tensor]]:
    """The histogram of the rows of ``input`` (..., D) over D dims: each bin is [left, right) but
    the last, [left, right]; points outside any dim's edges are dropped."""
    if not isinstance(input, Tensor):
        raise TypeError(f"{fn}(): argument 'input' must be Tensor, not {type(input).__name__}")
    if not input.dtype.is_floating_point:
        raise NotImplementedError(f"\"histogramdd\" not implemented for '{input.dtype.name}'")
    if input.ndim < 2:
        raise RuntimeError("torch.histogramdd: input tensor should have at least 2 dimensions")
    D = input.shape[-1]
    dt = np.dtype(np.float64 if input.dtype == _F64 else np.float32)
    pts = _host(input).astype(dt).reshape(-1, D)
    per_dim = list(bins) if isinstance(bins, (list, tuple)) else [bins] * D
    if len(per_dim) != D:
        raise RuntimeError("histogramdd: The size of bins must be equal to the innermost dimension of the input.")
    if range is not None and len(range) != 2 * D:
        raise RuntimeError(f"torch.histogramdd: for a {D}-dimensional histogram range should have {2 * D} elements, "
                           f"but got {len(range)}")
    edges = [_edges(pts[:, d], per_dim[d], None if range is None else (float(range[2 * d]), float(range[2 * d + 1])),
                    input, dt, fn, d) for d in builtins.range(D)]
    w = None
    if weight is not None:
        if tuple(weight.shape) != tuple(input.shape[:-1]):
            raise RuntimeError("torch.histogramdd: if weight tensor is provided it should have the same shape as the "
                               "input tensor excluding its innermost dimension, but got input with shape "
                               f"{list(input.shape)} and weight with shape {list(weight.shape)}")
        w = _host(weight).astype(dt).reshape(-1)
    counts = [len(e) - 1 for e in edges]
    inside = np.ones(len(pts), bool)
    for d, e in enumerate(edges):
        inside &= (pts[:, d] >= e[0]) & (pts[:, d] <= e[-1])
    idx = [np.minimum(_upper_bound(e, pts[inside, d]) - 1, counts[d] - 1) for d, e in enumerate(edges)]
    total = math.prod(counts)
    if total:
        flat = np.ravel_multi_index(idx, counts) if D else np.zeros(0, np.int64)
        hist = np.bincount(flat, weights=None if w is None else w[inside], minlength=total).astype(dt)
    else:
        hist = np.zeros(0, dt)
    hist = hist.reshape(counts)
    if density:
        volume = np.ones(counts, dt)
        for d, e in enumerate(edges):
            shape = [1] * D
            shape[d] = counts[d]
            volume = volume * np.diff(e).reshape(shape)
        with np.errstate(divide="ignore", invalid="ignore"):  # empty or reversed bins: NaN/inf as torch, silently
            hist = (hist / hist.sum() / volume).astype(dt)
    return (_from_host(hist, input.dtype, input.device),
            [_from_host(e, input.dtype, input.device) for e in edges])



def histogram(input: Tensor, bins: Any = 100, *, range: Sequence[float] | None = None,  # noqa: A002
              weight: Tensor | None = None, density: bool = False) -> HistogramResult:
    """(hist, bin_edges): ``bins`` equal bins over ``range`` (default the data's min and max, [0, 1]
    for empty input; widened by 0.5 each way when they are equal) or the given increasing edges;
    each bin is [left, right) except the last, [left, right]; values outside are dropped.
    ``weight`` sums weights instead of counting; ``density`` divides by the total and the bin widths."""
    if not isinstance(input, Tensor):
        raise TypeError(f"histogram(): argument 'input' must be Tensor, not {type(input).__name__}")
    if weight is not None and tuple(weight.shape) != tuple(input.shape):
        raise RuntimeError("torch.histogram(): if weight tensor is provided it should have the same shape as the "
                           "input tensor")
    hist, edges = _histogramdd(input.reshape(-1, 1), [bins], range, None if weight is None else weight.reshape(-1),
                               density, "torch.histogram")
    return HistogramResult(hist, edges[0])


class HistogramddResult(NamedTuple):
    hist: Tensor
    bin_edges: tuple


def histogramdd(input: Tensor, bins: Any = 10, *, range: Sequence[float] | None = None,  # noqa: A002
                weight: Tensor | None = None, density: bool = False) -> HistogramddResult:
    """(hist, bin_edges) of the points in ``input``'s rows (its last dim is D): ``bins`` an int for
    every dim, a list of ints, or a list of edge tensors; ``range`` a flat [min0, max0, min1, ...]."""
    hist, edges = _histogramdd(input, bins, range, weight, density, "torch.histogramdd")
    return HistogramddResult(hist, tuple(edges))


# ---- igamma / igammac --------------------------------------------------------------------------------

_MACHEP = 1.11022302462515654042e-16
_BIG, _BIGINV = 4.503599627370496e15, 2.22044604925031308085e-16


def _igam_series(a: np.ndarray, x: np.ndarray) -> np.ndarray:
    """P(a, x) by the power series (Cephes igam), for x <= max(1, a)."""
    ax = np.exp(a * np.log(x) - x - _lgamma(a))
    r, c, ans = a.copy(), np.ones_like(a), np.ones_like(a)
    active = np.ones(a.shape, bool)
    for _ in range(100000):
        r = r + 1
        c = np.where(active, c * x / r, c)
        ans = np.where(active, ans + c, ans)
        active &= c / ans > _MACHEP
        if not active.any():
            break
    return ans * ax / a


def _igamc_fraction(a: np.ndarray, x: np.ndarray) -> np.ndarray:
    """Q(a, x) by the continued fraction (Cephes igamc), for x > max(1, a)."""
    ax = np.exp(a * np.log(x) - x - _lgamma(a))
    y, z, c = 1 - a, x + 2 - a, np.zeros_like(a)
    pkm2, qkm2, pkm1, qkm1 = np.ones_like(a), x, x + 1, z * x
    ans = pkm1 / qkm1
    active = np.ones(a.shape, bool)
    for _ in range(100000):
        c, y, z = c + 1, y + 1, z + 2
        yc = y * c
        pk, qk = pkm1 * z - pkm2 * yc, qkm1 * z - qkm2 * yc
        ok = qk != 0
        r = np.where(ok, pk / np.where(ok, qk, 1), ans)
        t = np.where(ok, np.abs((ans - r) / np.where(r != 0, r, 1)), 1.0)
        ans = np.where(active & ok, r, ans)
        pkm2, pkm1, qkm2, qkm1 = (np.where(active, pkm1, pkm2), np.where(active, pk, pkm1),
                                  np.where(active, qkm1, qkm2), np.where(active, qk, qkm1))
        big = active & (np.abs(pk) > _BIG)
        pkm2, pkm1 = np.where(big, pkm2 * _BIGINV, pkm2), np.where(big, pkm1 * _BIGINV, pkm1)
        qkm2, qkm1 = np.where(big, qkm2 * _BIGINV, qkm2), np.where(big, qkm1 * _BIGINV, qkm1)
        active &= t > _MACHEP
        if not active.any():
            break
    return ans * ax


_lgamma = np.vectorize(math.lgamma, otypes=[np.float64])


def _igamma_np(a: np.ndarray, x: np.ndarray, upper: bool) -> np.ndarray:
    """The regularised lower (upper) incomplete gamma function, with torch's edge values."""
    a, x = np.broadcast_arrays(a.astype(np.float64), x.astype(np.float64))
    out = np.full(a.shape, np.nan)
    lower_val, upper_val = (0.0, 1.0) if not upper else (1.0, 0.0)   # P = 0 / Q = 1 ...
    with np.errstate(all="ignore"):
        bad = np.isnan(a) | np.isnan(x) | (a < 0) | (x < 0) | ((a == 0) & (x == 0))
        out[~bad & (a == 0)] = upper_val                  # a = 0 (x > 0): P = 1
        out[~bad & (x == 0) & (a > 0)] = lower_val        # x = 0: P = 0
        out[~bad & np.isinf(a) & (a > 0) & ~np.isinf(x)] = lower_val
        out[~bad & np.isinf(x) & (a > 0) & ~np.isinf(a)] = upper_val  # inf against inf stays NaN
        out[np.isnan(a) & (x == 0)] = lower_val           # torch tests x = 0 before a NaN a
        rest = ~bad & (a > 0) & (x > 0) & np.isfinite(a) & np.isfinite(x)
        series = rest & ((x <= 1) | (x <= a))
        frac = rest & ~series
        if series.any():
            p = _igam_series(a[series], x[series])
            out[series] = 1 - p if upper else p
        if frac.any():
            q = _igamc_fraction(a[frac], x[frac])
            out[frac] = q if upper else 1 - q
    return out


class _IGamma(Function):
    """P(a, x) or Q(a, x): values on the host, the gradient in x (d/dx P = x^(a-1) e^-x / Gamma(a))
    with aakaar's ops; torch has no gradient in a, and says so at backward."""

    @staticmethod
    def forward(ctx: Any, a: Tensor, x: Tensor, upper: bool) -> Tensor:
        dt = _C.promote_types(a.dtype, x.dtype)
        ctx.save_for_backward(a, x)
        ctx.upper = upper
        # numpy has no bfloat16: the host computes in float64 whatever the dtype, then rounds once.
        ha, hx = (_host(t.double()) for t in (a, x))
        value = _igamma_np(ha, hx, upper)
        return _from_host(value, dt, x.device)

    @staticmethod
    def backward(ctx: Any, grad: Tensor) -> tuple:
        a, x = ctx.saved_tensors
        if ctx.needs_input_grad[0]:
            raise NotImplementedError(f"the derivative for '{'igammac' if ctx.upper else 'igamma'}: input' is not "
                                      "implemented.")
        d = ((a - 1) * x.log() - x - a.lgamma()).exp()
        return None, grad * (-d if ctx.upper else d), None


def _igamma_args(input: Any, other: Any, fn: str) -> tuple[Tensor, Tensor]:
    for name, v in (("input", input), ("other", other)):
        if not isinstance(v, Tensor):
            raise TypeError(f"{fn}(): argument '{name}' must be Tensor, not {type(v).__name__}")
    # torch promotes the pair (a 0-d tensor by category) and computes in a floating result dtype only.
    _C.broadcast_shapes(input.shape, other.shape)  # torch's error (a RuntimeError) for shapes that do not broadcast
    dt = _C.result_type(input, other)
    if not dt.is_floating_point:
        raise NotImplementedError(f"\"{fn}_cpu\" not implemented for '{dt.name}'")
    return input.to(dt), other.to(dt)


def igamma(input: Tensor, other: Tensor) -> Tensor:
    """The regularised lower incomplete gamma function P(input, other) (Cephes' series and
    continued fraction in float64; torch's values at a = 0, x = 0, infinities and negative
    arguments). Gradient in ``other`` only, as torch."""
    a, x = _igamma_args(input, other, "igamma")
    return _IGamma.apply(a, x, False)


def igammac(input: Tensor, other: Tensor) -> Tensor:
    """The regularised upper incomplete gamma function Q(input, other) = 1 - P(input, other)."""
    a, x = _igamma_args(input, other, "igammac")
    return _IGamma.apply(a, x, True)


# ---- nonzero_static, resize_, unsafe splits, prelu ---------------------------------------------------

def nonzero_static(input: Tensor, *, size: int, fill_value: int = -1) -> Tensor:
    """The (size, ndim) int64 indices of the non-zeros: the first ``size`` of them, padded with
    rows of ``fill_value`` when there are fewer (a fixed shape, unlike nonzero)."""
    if not isinstance(size, int) or size < 0:
        raise RuntimeError(f"nonzero_static: 'size' must be an non-negative integer, but got {size}")
    idx = input.nonzero()
    n = idx.shape[0]
    if n >= size:
        return idx[:size]
    pad = _C.full([size - n, input.ndim], fill_value, dtype=_I64, device=input.device)
    return _C.cat([idx, pad], 0)


def _sizes(args: tuple) -> list[int]:
    if len(args) == 1 and isinstance(args[0], (list, tuple)):
        args = tuple(args[0])
    sizes = [int(s) for s in args]
    if any(s < 0 for s in sizes):
        raise RuntimeError(f"Trying to create tensor with negative dimension {min(sizes)}: {sizes}")
    return sizes


def resize_(self: Tensor, *sizes: Any, memory_format: Any = None) -> Tensor:
    """In place: self becomes contiguous of shape ``sizes`` over its storage from its storage
    offset (the elements keep their places in memory, new ones are uninitialised). When the
    storage is too small a larger one is allocated and the old bytes copied (other views of the
    old storage do not see it, unlike torch, which grows the storage object). Refused on a
    tensor that requires grad, even under no_grad(), as torch."""
    if self.requires_grad:   # even under no_grad(), as torch
        raise RuntimeError("cannot resize variables that require grad")
    shape = _sizes(sizes)
    strides = [1] * len(shape)
    for i in range(len(shape) - 2, -1, -1):
        strides[i] = strides[i + 1] * max(shape[i + 1], 1)
    need = self.storage_offset() + math.prod(shape)
    have = self.storage_nbytes() // self.element_size()
    if need <= have:
        return self._set_geometry_(self.as_strided(shape, strides, self.storage_offset()), "resize_")
    grown = _C.empty(need, dtype=self.dtype, device=self.device)
    if have:
        grown[:have].copy_(self.as_strided([have], [1], 0).detach())
    self._set_data(grown.as_strided(shape, strides, self.storage_offset()))
    return self



def resize_as_(self: Tensor, the_template: Tensor, *, memory_format: Any = None) -> Tensor:
    """``self.resize_(the_template.shape)``."""
    return resize_(self, list(the_template.shape))


def unsafe_chunk(input: Tensor, chunks: int, dim: int = 0) -> tuple:
    """chunk (torch's unsafe_ form skips its view checks; aakaar's views need none, so it is chunk)."""
    return tuple(input.chunk(chunks, dim))


def unsafe_split(input: Tensor, split_size: Any, dim: int = 0) -> tuple:
    """split (see unsafe_chunk)."""
    return tuple(input.split(split_size, dim))


def unsafe_split_with_sizes(input: Tensor, split_sizes: Sequence[int], dim: int = 0) -> tuple:
    """split with a list of sizes, which must add up to the dim's size (see unsafe_chunk)."""
    if sum(split_sizes) != input.shape[dim]:
        raise RuntimeError(f"split_with_sizes expects split_sizes to sum exactly to {input.shape[dim]} (input "
                           f"tensor's size at dimension {dim}), but got split_sizes={list(split_sizes)}")
    return tuple(input.split(list(split_sizes), dim))


def prelu(input: Tensor, weight: Tensor) -> Tensor:
    """x where x >= 0, weight * x elsewhere (weight one value or one per channel, dim 1)."""
    from .nn.functional import prelu as _prelu
    return _prelu(input, weight)


# ---- pin_memory, share_memory_ -----------------------------------------------------------------------

def pin_memory(self: Tensor, device: Any = None) -> Tensor:
    """self, unchanged (is_pinned() stays False): aakaar does not page-lock tensors. It needs
    not: a copy to a CUDA device is staged through one page-locked buffer that aakaar keeps
    and reuses (csrc/cuda/copy.cu), so a pageable tensor already gets DMA-speed copies. A CUDA
    tensor is refused, as torch refuses to pin one."""
    if self.device.type != "cpu":
        raise RuntimeError(f"cannot pin '{self.device}' memory: only dense CPU tensors can be pinned")
    return self


def share_memory_(self: Tensor) -> Tensor:
    """Refused: aakaar cannot move a tensor's storage into shared memory. Its storages are ordinary
    process memory, and the Go server (chapter 18, aakaar/serving.py) shares buffers between Go and
    Python inside one process, not between processes. What does work: ``aakaar.from_numpy`` of a
    numpy array over a ``multiprocessing.shared_memory`` block makes a tensor that uses that block."""
    raise NotImplementedError(
        "share_memory_(): aakaar has no shared-memory storage for tensors, so a tensor's memory cannot be moved "
        "to memory shared between processes. Create the tensor over shared memory instead: "
        "shm = multiprocessing.shared_memory.SharedMemory(create=True, size=nbytes); "
        "t = aakaar.from_numpy(numpy.ndarray(shape, dtype, buffer=shm.buf)) (t uses shm's memory)")


_round_to_integer = Tensor.round


def round(self: Tensor, *, decimals: int = 0) -> Tensor:  # noqa: A001
    """Rounds half to even, to ``decimals`` decimal places (negative: to tens, hundreds...), as
    torch computes it: ``round(x * 10**d) / 10**d``, or ``round(x / 10**-d) * 10**-d`` when d < 0."""
    if not isinstance(decimals, int) or isinstance(decimals, bool):
        raise TypeError(f"round(): argument 'decimals' must be int, not {type(decimals).__name__}")
    if decimals == 0:
        return _round_to_integer(self)
    if not self.dtype.is_floating_point:
        raise NotImplementedError(f'"round_cpu" not implemented for \'{_torch_dtype_name(self.dtype)}\'')
    if decimals > 0:
        scale = 10.0 ** decimals
        return _round_to_integer(self * scale) / scale
    scale = 10.0 ** -decimals
    return _round_to_integer(self / scale) * scale


def _torch_dtype_name(dtype: object) -> str:
    """PyTorch's name of a dtype in its kernels' messages: 'Long', 'Int', 'Bool'..."""
    names = {"int64": "Long", "int32": "Int", "int16": "Short", "int8": "Char", "uint8": "Byte", "bool": "Bool"}
    short = str(dtype).rsplit(".", 1)[-1]
    return names.get(short, short)


def __format__(self: Tensor, format_spec: str) -> str:
    """A 0-d tensor formats as its number (``f"{loss:.4f}"``), as torch's; others as objects do."""
    if self.dim() == 0:
        return self.item().__format__(format_spec)
    return object.__format__(self, format_spec)


def _with_dtype(method: Callable[..., Tensor]) -> Callable[..., Tensor]:
    """``method`` with torch's keyword ``dtype``: the input is cast to it first (so an integer
    tensor's mean or a float32 product in float64 are taken in that type)."""

    @functools.wraps(method)  # keeps its name, docstring and marks (e.g. that it takes numpy's axis=)
    def with_dtype(self: Tensor, *args: Any, dtype: Any = None, **kwargs: Any) -> Tensor:
        return method(self if dtype is None else self.to(dtype), *args, **kwargs)

    return with_dtype


_view_as_shape = Tensor.view


def view(self: Tensor, *shape: Any, dtype: Any = None) -> Tensor:
    """A view with another shape (``view(2, 3)``), or of the same memory read as another dtype
    (``view(aakaar.int32)``: torch's bitcast view; between item sizes the last dim, which must have
    stride 1, grows or shrinks by their ratio: float32 as uint8 has 4x as many columns)."""
    if dtype is None and len(shape) == 1 and isinstance(shape[0], _C.dtype):
        dtype, shape = shape[0], ()
    if dtype is None:
        return _view_as_shape(self, *shape)
    if shape:
        raise TypeError("view(): takes either a shape or a dtype, not both")
    return self._bitcast(dtype)


def _masked_fill_value(self: Tensor, value: Any, fn: str) -> Any:
    """value as the masked fill takes it: numbers as they are; a 0-d tensor in self's dtype (torch
    accepts one, and its gradient flows to it); a tensor with dims is torch's RuntimeError."""
    if not isinstance(value, Tensor):
        return value
    if value.ndim != 0:
        raise RuntimeError(f"{fn} only supports a 0-dimensional value tensor, but got tensor with {value.ndim} "
                           "dimension(s).")
    return value.to(self.dtype)


_masked_fill_number, _masked_fill_number_ = Tensor.masked_fill, Tensor.masked_fill_


def masked_fill(self: Tensor, mask: Tensor, value: Any) -> Tensor:
    """self with value where mask is True (value: a number or a 0-d tensor)."""
    v = _masked_fill_value(self, value, "masked_fill_")
    if isinstance(v, Tensor):
        return _C.where(mask, v, self)
    return _masked_fill_number(self, mask, v)


def masked_fill_(self: Tensor, mask: Tensor, value: Any) -> Tensor:
    """In place: value where mask is True (value: a number or a 0-d tensor)."""
    v = _masked_fill_value(self, value, "masked_fill_")
    if isinstance(v, Tensor):
        return self.copy_(_C.where(mask, v, self))
    return _masked_fill_number_(self, mask, v)


def install() -> None:
    """Tensor methods: angle, histogram, igamma(c)(_), nonzero_static, resize_, resize_as_, the unsafe
    splits, prelu, pin_memory, share_memory_."""
    for fn in (angle, histogram, igamma, igammac, nonzero_static, resize_, resize_as_, unsafe_chunk, unsafe_split,
               unsafe_split_with_sizes, prelu, pin_memory, share_memory_, round):
        setattr(Tensor, fn.__name__, fn)
    Tensor.__format__ = __format__
    Tensor.view = view
    Tensor.masked_fill, Tensor.masked_fill_ = masked_fill, masked_fill_
    for name in ("prod", "mean", "softmax", "log_softmax"):  # functools.wraps keeps their axis= marks
        setattr(Tensor, name, _with_dtype(getattr(Tensor, name)))
    Tensor.igamma_ = lambda self, other: self.copy_(igamma(self, other))
    Tensor.igammac_ = lambda self, other: self.copy_(igammac(self, other))
    Tensor.igamma_.__doc__ = "In-place igamma; returns self."
    Tensor.igammac_.__doc__ = "In-place igammac; returns self."
