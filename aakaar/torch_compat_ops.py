"""torch's remaining everyday top-level functions, composed of aakaar's own ops: the conjugate and
negation views of real tensors, ``asarray``/``frombuffer``, the deprecated ``range``, ``gradient``,
``binomial``, the window functions, ``nuclear_norm``/``frobenius_norm``, the ``*_copy`` forms of
the view ops, ``as_strided_scatter``, ``empty_permuted``, and LAPACK's ``geqrf``/``orgqr``/``ormqr``.
"""

from __future__ import annotations

import builtins
import math
import os
import warnings
from typing import Any, Callable, Sequence

import numpy as np

from . import _C
from ._arg_aliases import accept_numpy_names
from ._C import Tensor
from .creation import tensor as _tensor

__all__ = [
    "conj", "conj_physical", "conj_physical_", "resolve_conj", "resolve_neg", "is_conj", "is_neg", "real", "imag",
    "asarray", "frombuffer", "range", "gradient", "binomial", "hann_window", "hamming_window", "blackman_window",
    "bartlett_window", "kaiser_window", "nuclear_norm", "frobenius_norm", "as_strided_scatter", "empty_permuted",
    "geqrf", "orgqr", "ormqr",
]

_F32, _F64 = _C.dtype.float32, _C.dtype.float64


# ---- conjugation of real tensors: the tensor itself (torch's rule for non-complex dtypes) --------------

def conj(input: Tensor) -> Tensor:
    """The tensor itself: aakaar's dtypes are real (torch's conj of a real tensor)."""
    return input.conj()


def conj_physical(input: Tensor) -> Tensor:
    """A copy of the tensor (the conjugate of real values is themselves)."""
    return input.conj_physical()


def conj_physical_(input: Tensor) -> Tensor:
    """In place: nothing to change for real values; returns input."""
    return input.conj_physical_()


def resolve_conj(input: Tensor) -> Tensor:
    """The tensor itself (no conjugate bit on real tensors)."""
    return input.resolve_conj()


def resolve_neg(input: Tensor) -> Tensor:
    """The tensor itself (aakaar has no lazy negation bit)."""
    return input.resolve_neg()


def is_conj(input: Tensor) -> bool:
    """False: aakaar's tensors are real."""
    return input.is_conj()


def is_neg(input: Tensor) -> bool:
    """False: aakaar has no lazy negation bit."""
    return input.is_neg()


def real(input: Tensor) -> Tensor:
    """The tensor itself (aakaar's dtypes are real)."""
    return input.real


def imag(input: Tensor) -> Tensor:
    """A RuntimeError, as torch's for a real tensor."""
    return input.imag


# ---- construction ------------------------------------------------------------------------------------

_NP_DTYPES = {"bool": np.bool_, "uint8": np.uint8, "int8": np.int8, "int16": np.int16, "int32": np.int32,
              "int64": np.int64, "float16": np.float16, "float32": np.float32, "float64": np.float64}


def asarray(obj: Any, *, dtype: Any = None, device: Any = None, copy: bool | None = None,
            requires_grad: bool = False) -> Tensor:
    """A tensor from ``obj``, sharing its memory where it can (a tensor, or a numpy array of an
    aakaar dtype, with no dtype or device change) unless ``copy=True``; ``copy=False`` refuses a copy."""
    if isinstance(obj, Tensor) or isinstance(obj, np.ndarray) and obj.dtype.name in _NP_DTYPES:
        t = obj if isinstance(obj, Tensor) else _C.from_numpy(obj)
        same = (dtype is None or dtype == t.dtype) and (device is None or _C.device(device) == t.device)
        if copy is False and not same:
            raise ValueError("can't alias tensor from a different dtype or device with copy=False")
        out = t.to(dtype=dtype, device=device) if not same else t
        if copy and out is t:
            out = t.clone()
    else:
        if copy is False:
            raise ValueError(f"can't alias Python object of type {type(obj).__name__} with copy=False")
        out = _tensor(obj, dtype=dtype, device=device)
    return out.requires_grad_() if requires_grad else out


def frombuffer(buffer: Any, *, dtype: Any, count: int = -1, offset: int = 0, requires_grad: bool = False) -> Tensor:
    """A 1-d tensor viewing the bytes of a buffer-protocol object (shared memory, as torch's)."""
    if dtype.name not in _NP_DTYPES:
        raise TypeError(f"frombuffer(): aakaar cannot read {dtype.name} from a buffer (numpy has no such type)")
    item = np.dtype(_NP_DTYPES[dtype.name]).itemsize
    length = memoryview(buffer).nbytes
    if length <= 0 and count == -1 or count == 0:
        raise ValueError(f"both buffer length ({length}) and count ({count}) must not be 0")
    if not 0 <= offset < length:
        raise ValueError(f"offset ({offset} bytes) must be non-negative and no greater than buffer length "
                         f"({length} bytes) minus 1")
    if count < 0:
        if (length - offset) % item:
            raise ValueError(f"buffer length ({length - offset} bytes) after offset ({offset} bytes) must be a "
                             f"multiple of element size ({item})")
    elif count * item > length - offset:
        raise ValueError(f"requested buffer length ({count} * {item} bytes) after offset ({offset} bytes) must not "
                         f"be greater than actual buffer length ({length} bytes)")
    arr = np.frombuffer(buffer, dtype=_NP_DTYPES[dtype.name], count=count, offset=offset)
    if not arr.flags.writeable:
        # torch shares a read-only buffer anyway (and warns that writes reach it); aakaar's tensors
        # are always writable, so it copies instead, and says so.
        warnings.warn("The given buffer is not writable: aakaar copies its bytes (the tensor does not share "
                      "the buffer's memory)", UserWarning, stacklevel=2)
        arr = arr.copy()
    out = _C.from_numpy(arr)
    return out.requires_grad_() if requires_grad else out


def range(start: float, end: float, step: float = 1, *, dtype: Any = None, device: Any = None,
          requires_grad: bool = False) -> Tensor:  # noqa: A001  (torch's name)
    """Deprecated in torch (warns, as torch): ``start, start + step, ..., end`` with ``end`` included;
    float32 unless told (even for integer arguments)."""
    warnings.warn("torch.range is deprecated and will be removed in a future release because its behavior is "
                  "inconsistent with Python's range builtin. Instead, use torch.arange, which produces values in "
                  "[start, end).", UserWarning, stacklevel=2)
    if step == 0:
        raise RuntimeError("step must be nonzero")
    if (step > 0 and end < start) or (step < 0 and end > start):
        raise RuntimeError("upper bound and lower bound inconsistent with step sign")
    n = int(math.floor((end - start) / step)) + 1
    vals = start + step * np.arange(n, dtype=np.float64)
    out = _tensor(vals.tolist(), dtype=_F64).to(dtype or _F32)
    if device is not None:
        out = out.to(device=device)
    return out.requires_grad_() if requires_grad else out


# ---- gradient ---------------------------------------------------------------------------------------

def _narrow(x: Tensor, dim: int, start: int, length: int) -> Tensor:
    return x.narrow(dim, start, length)


def _along(values: Tensor, dim: int, ndim: int) -> Tensor:
    shape = [1] * ndim
    shape[dim] = -1
    return values.reshape(shape)


def _gradient_1d(x: Tensor, dim: int, coords: Tensor | float, edge_order: int) -> Tensor:
    """numpy's second-order-accurate differences: interior from both neighbours (spacing hl, hr),
    edges one-sided of order ``edge_order``."""
    n = x.shape[dim]
    if isinstance(coords, Tensor):
        h = coords[1:] - coords[:-1]
        hl, hr = _along(h[:-1], dim, x.ndim), _along(h[1:], dim, x.ndim)
        h0, h1 = h[0], h[1] if n > 2 else h[0]
        he, hp = h[-1], h[-2] if n > 2 else h[-1]
    else:
        hl = hr = h0 = h1 = he = hp = coords
    left, mid, right = _narrow(x, dim, 0, n - 2), _narrow(x, dim, 1, n - 2), _narrow(x, dim, 2, n - 2)
    inner = (hl * hl * right - hr * hr * left + (hr * hr - hl * hl) * mid) / (hl * hr * (hl + hr))
    f = [_narrow(x, dim, i, 1) for i in (0, 1, 2)] if edge_order == 2 else [_narrow(x, dim, i, 1) for i in (0, 1)]
    b = [_narrow(x, dim, n - 1 - i, 1) for i in (0, 1, 2)] if edge_order == 2 else [
        _narrow(x, dim, n - 1 - i, 1) for i in (0, 1)]
    if edge_order == 1:
        first = (f[1] - f[0]) / h0
        last = (b[0] - b[1]) / he
    else:
        first = (-(2 * h0 + h1) / (h0 * (h0 + h1)) * f[0] + (h0 + h1) / (h0 * h1) * f[1]
                 - h0 / (h1 * (h0 + h1)) * f[2])
        last = (he / (hp * (hp + he)) * b[2] - (he + hp) / (hp * he) * b[1]
                + (2 * he + hp) / (he * (he + hp)) * b[0])
    return _C.cat([first, inner, last], dim)


def gradient(input: Tensor, *, spacing: Any = 1, dim: Any = None, edge_order: int = 1) -> tuple[Tensor, ...]:
    """The derivative estimate along each dim in ``dim`` (all by default), as numpy.gradient:
    ``spacing`` a scalar, one scalar per dim, or one coordinate tensor per dim."""
    if spacing is None:
        spacing = 1
    if edge_order not in (1, 2):
        raise RuntimeError(f"torch.gradient only supports edge_order=1 and edge_order=2.")
    dims = list(builtins.range(input.ndim)) if dim is None else ([dim] if isinstance(dim, int) else list(dim))
    dims = [d % input.ndim if input.ndim else d for d in dims]
    if isinstance(spacing, (list, tuple)):
        if len(spacing) != len(dims):
            raise RuntimeError(f"torch.gradient expected spacing to be unspecified, a scalar or it's spacing and dim "
                               f"arguments to have the same length, but got a spacing argument of length "
                               f"{len(spacing)} and a dim argument of length {len(dims)}.")
        spacings = list(spacing)
    else:
        spacings = [spacing] * len(dims)
    for d in dims:
        if input.shape[d] < edge_order + 1:
            raise RuntimeError("torch.gradient expected each dimension size to be at least edge_order+1")
    x = input if input.dtype.is_floating_point else input.to(_F32)
    out = []
    for d, s in zip(dims, spacings):
        if isinstance(s, Tensor):
            if s.ndim != 1 or s.shape[0] != input.shape[d]:
                raise RuntimeError(f"torch.gradient expected each tensor to be on the same device and of size "
                                   f"{input.shape[d]} along dim {d}")
            s = s.to(x.dtype)
        out.append(_gradient_1d(x, d, s, edge_order))
    return tuple(out)


# ---- binomial ------------------------------------------------------------------------------------------

def binomial(count: Tensor, prob: Tensor, generator: _C.Generator | None = None) -> Tensor:
    """Draws from Binomial(count, prob) elementwise. numpy's sampler, seeded from aakaar's generator
    (so aakaar.manual_seed makes it repeatable); the result has count's dtype."""
    if not count.dtype.is_floating_point:
        raise ValueError(f"binomial only supports floating-point dtypes for count, got: {count.dtype.name}")
    seed = _C.randint(0, 2 ** 62, [1], generator=generator) if generator is not None else _C.randint(0, 2 ** 62, [1])
    rng = np.random.default_rng(int(seed.item()))
    c, p = np.broadcast_arrays(count.detach().cpu().numpy().astype(np.float64),
                               prob.detach().cpu().numpy().astype(np.float64))
    if np.any((p < 0) | (p > 1) | np.isnan(p)):
        raise RuntimeError("binomial: prob must be in [0, 1]")
    draws = rng.binomial(c.astype(np.int64), p).astype(np.float64)
    return _tensor(draws.tolist() if draws.ndim else float(draws), dtype=_F64).to(count.dtype).to(
        device=count.device)


# ---- windows --------------------------------------------------------------------------------------------

def _window(name: str, window_length: int, periodic: bool, dtype: Any, device: Any, requires_grad: bool,
            shape: Callable[[Tensor, int], Tensor]) -> Tensor:
    dtype = dtype or _F32
    if not dtype.is_floating_point:
        raise RuntimeError(f"{name} expects floating point dtypes, got: {dtype.name}")
    if window_length < 0:
        raise RuntimeError(f"{name} requires non-negative window_length, got window_length={window_length}")
    if window_length <= 1:
        out = _C.ones([window_length], dtype=dtype)
    else:
        n = window_length + 1 if periodic else window_length
        k = _C.arange(0, window_length, dtype=_F64)
        out = shape(k, n).to(dtype)
    if device is not None:
        out = out.to(device=device)
    return out.requires_grad_() if requires_grad else out


def hann_window(window_length: int, periodic: bool = True, *, dtype: Any = None, layout: Any = None,
                device: Any = None, requires_grad: bool = False) -> Tensor:
    """0.5 - 0.5 cos(2 pi k / (N - 1)); periodic: computed for window_length + 1 and the last dropped."""
    return _window("hann_window", window_length, periodic, dtype, device, requires_grad,
                   lambda k, n: 0.5 - 0.5 * (k * (2 * math.pi / (n - 1))).cos())


def hamming_window(window_length: int, periodic: bool = True, alpha: float = 0.54, beta: float = 0.46, *,
                   dtype: Any = None, layout: Any = None, device: Any = None, requires_grad: bool = False) -> Tensor:
    """alpha - beta cos(2 pi k / (N - 1)); periodic as hann_window."""
    return _window("hamming_window", window_length, periodic, dtype, device, requires_grad,
                   lambda k, n: alpha - beta * (k * (2 * math.pi / (n - 1))).cos())


def blackman_window(window_length: int, periodic: bool = True, *, dtype: Any = None, layout: Any = None,
                    device: Any = None, requires_grad: bool = False) -> Tensor:
    """0.42 - 0.5 cos(2 pi k / (N - 1)) + 0.08 cos(4 pi k / (N - 1)); periodic as hann_window."""
    def shape(k: Tensor, n: int) -> Tensor:
        a = k * (2 * math.pi / (n - 1))
        return 0.42 - 0.5 * a.cos() + 0.08 * (a * 2).cos()
    return _window("blackman_window", window_length, periodic, dtype, device, requires_grad, shape)


def bartlett_window(window_length: int, periodic: bool = True, *, dtype: Any = None, layout: Any = None,
                    device: Any = None, requires_grad: bool = False) -> Tensor:
    """The triangular window 1 - |2k / (N - 1) - 1|; periodic as hann_window."""
    return _window("bartlett_window", window_length, periodic, dtype, device, requires_grad,
                   lambda k, n: 1 - (k * (2.0 / (n - 1)) - 1).abs())


def kaiser_window(window_length: int, periodic: bool = True, beta: float = 12.0, *, dtype: Any = None,
                  layout: Any = None, device: Any = None, requires_grad: bool = False) -> Tensor:
    """I0(beta sqrt(1 - (2k / (N - 1) - 1) ** 2)) / I0(beta); periodic as hann_window."""
    def shape(k: Tensor, n: int) -> Tensor:
        r = k * (2.0 / (n - 1)) - 1
        return (((1 - r * r).clamp(min=0.0)).sqrt() * beta).i0() / float(np.i0(beta))
    return _window("kaiser_window", window_length, periodic, dtype, device, requires_grad, shape)


# ---- norms -----------------------------------------------------------------------------------------

def nuclear_norm(input: Tensor, dim: Sequence[int] | None = None, keepdim: bool = False) -> Tensor:
    """The sum of singular values over the two dims ``dim`` (the last two by default)."""
    from . import linalg

    if dim is None:
        dim = (-2, -1)
    return linalg.matrix_norm(input, "nuc", tuple(dim), keepdim)


def frobenius_norm(input: Tensor, dim: Sequence[int], keepdim: bool = False) -> Tensor:
    """The 2-norm of the elements over ``dim`` (at most two dims)."""
    from . import linalg

    dims = [dim] if isinstance(dim, int) else list(dim)
    if len(dims) > 2:
        raise RuntimeError(f"Expected at most 2 dimensions, but got {len(dims)} dimensions instead.")
    return linalg.vector_norm(input, 2, dims, keepdim)


# ---- scatter into a strided view, permuted empty --------------------------------------------------------

def as_strided_scatter(input: Tensor, src: Tensor, size: Sequence[int], stride: Sequence[int],
                       storage_offset: int | None = None) -> Tensor:
    """A copy of ``input`` with ``src`` written where ``input.as_strided(size, stride, storage_offset)``
    looks (input read as contiguous); differentiable in both."""
    from .shape_extras import _scatter_into

    return _scatter_into(input.contiguous(), src, lambda t: t.as_strided(list(size), list(stride), storage_offset))


def empty_permuted(size: Sequence[int], physical_layout: Sequence[int], *, dtype: Any = None, layout: Any = None,
                   device: Any = None, requires_grad: bool = False, pin_memory: bool = False) -> Tensor:
    """An uninitialised tensor of ``size`` whose memory is laid out in the dim order ``physical_layout``
    (outermost first): empty(sizes in that order).permute(inverse)."""
    size, order = list(size), list(physical_layout)
    if len(size) != len(order):
        raise RuntimeError(f"Number of dimensions in size does not match the length of the physical_layout; i.e. "
                           f"len(size) = {len(size)} is not equal to len(physical_layout) = {len(order)}")
    if sorted(order) != list(builtins.range(len(order))):
        raise RuntimeError(f"Dimension out of range or repeated in physical_layout {order}")
    inverse = [0] * len(order)
    for i, d in enumerate(order):
        inverse[d] = i
    out = _C.empty([size[d] for d in order], dtype=dtype or _F32, device=device).permute(inverse)
    return out.requires_grad_() if requires_grad else out


# ---- LAPACK's Householder QR -----------------------------------------------------------------------------

def geqrf(input: Tensor) -> tuple[Tensor, Tensor]:
    """(a, tau): LAPACK's compact QR, R on and above the diagonal of a, the Householder vectors
    below it. numpy's ``qr(mode='raw')`` is LAPACK's geqrf (its result transposed). No gradient,
    as torch's."""
    if input.ndim < 2:
        raise RuntimeError(f"torch.geqrf: The input tensor A must have at least 2 dimensions.")
    if not input.dtype.is_floating_point or input.dtype not in (_F32, _F64):
        raise RuntimeError(f"geqrf: Expected a floating point tensor (float32 or float64), got {input.dtype.name}")
    a = input.detach().cpu().numpy()
    lead, (m, n) = a.shape[:-2], a.shape[-2:]
    if a.size == 0:  # nothing to factor (numpy's qr refuses empty matrices)
        return input.detach().clone(), _C.zeros(list(lead) + [min(m, n)], dtype=input.dtype, device=input.device)
    flat = a.reshape((-1, m, n))
    outs, taus = [], []
    for mat in flat:
        h, tau = np.linalg.qr(mat.astype(np.float64), mode="raw")
        outs.append(h.T)
        taus.append(tau)
    dt = input.dtype
    out = _C.from_numpy(np.stack(outs).reshape(a.shape).astype(a.dtype)).to(device=input.device)
    tau = _C.from_numpy(np.stack(taus).reshape(lead + (min(m, n),)).astype(a.dtype)).to(device=input.device)
    return out.to(dt), tau.to(dt)


def orgqr(input: Tensor, tau: Tensor) -> Tensor:
    """linalg.householder_product (torch's older name)."""
    from . import linalg

    return linalg.householder_product(input, tau)


def ormqr(input: Tensor, tau: Tensor, other: Tensor, left: bool = True, transpose: bool = False) -> Tensor:
    """``op(Q) @ other`` (left) or ``other @ op(Q)``, Q the full m-by-m product of geqrf's Householder
    reflectors (op: transpose or not). Builds Q with householder_product on input padded to m
    columns (reflectors with tau 0 are the identity)."""
    from . import linalg

    m = input.shape[-2]
    k = tau.shape[-1]
    if k > input.shape[-1]:
        raise RuntimeError(f"torch.ormqr: tau.shape[-1] must be less than or equal to input.shape[-1]")
    need = other.shape[-2] if left else other.shape[-1]
    if need != m:
        raise RuntimeError(f"torch.ormqr: other.shape[{-2 if left else -1}] must be equal to input.shape[-2]")
    v = input.narrow(-1, 0, k)
    t = tau
    if k < m:
        v = _C.cat([v, _C.zeros(list(v.shape[:-1]) + [m - k], dtype=v.dtype, device=v.device)], -1)
        t = _C.cat([t, _C.zeros(list(t.shape[:-1]) + [m - k], dtype=t.dtype, device=t.device)], -1)
    q = linalg.householder_product(v, t)
    if transpose:
        q = q.transpose(-2, -1)
    return q.matmul(other) if left else other.matmul(q)


# ---- the *_copy forms of the view ops: the view's values in new, contiguous memory -------------------------

def _copy_of(view: str) -> Callable[..., Any]:
    def fn(input: Tensor, *args: Any, **kwargs: Any) -> Any:
        out = getattr(input, view)(*args, **kwargs)
        if isinstance(out, (list, tuple)):
            return type(out)(o.clone().contiguous() for o in out)
        return out.clone().contiguous()
    fn.__name__ = fn.__qualname__ = f"{view}_copy"
    fn.__doc__ = f"``input.{view}(...)`` copied into new memory (torch's {view}_copy)."
    return fn


_VIEWS = ["view", "permute", "transpose", "t", "squeeze", "unsqueeze", "select", "diagonal", "as_strided",
          "detach", "unfold"]
for _v in _VIEWS:
    globals()[f"{_v}_copy"] = _copy_of(_v)
__all__ += [f"{_v}_copy" for _v in _VIEWS]


def alias_copy(input: Tensor) -> Tensor:
    """A copy of input in new memory (torch's alias_copy)."""
    return input.clone()


def expand_copy(input: Tensor, size: Sequence[int], *, implicit: bool = False) -> Tensor:
    """input.expand(size) copied into new, contiguous memory."""
    return input.expand(list(size)).clone().contiguous()


def slice_copy(input: Tensor, dim: int = 0, start: int | None = None, end: int | None = None,
               step: int = 1) -> Tensor:
    """input[start:end:step] along dim, copied into new memory."""
    d = dim % input.ndim if input.ndim else 0
    return input[(slice(None),) * d + (slice(start, end, step),)].clone().contiguous()


def unbind_copy(input: Tensor, dim: int = 0) -> tuple[Tensor, ...]:
    """The slices of unbind(dim), each copied into new memory."""
    return tuple(t.clone() for t in input.unbind(dim))


def split_copy(input: Tensor, split_size: int | Sequence[int], dim: int = 0) -> list[Tensor]:
    """The pieces of split(split_size, dim), each copied into new memory."""
    return [t.clone().contiguous() for t in input.split(split_size, dim)]


def split_with_sizes_copy(input: Tensor, split_sizes: Sequence[int], dim: int = 0) -> list[Tensor]:
    """The pieces of split(split_sizes, dim), each copied into new memory."""
    if isinstance(split_sizes, int):
        raise TypeError("split_with_sizes_copy(): argument 'split_sizes' must be tuple of ints, not int")
    return split_copy(input, list(split_sizes), dim)


__all__ += ["alias_copy", "expand_copy", "slice_copy", "unbind_copy", "split_copy", "split_with_sizes_copy"]


# ---- segment_reduce, low-rank SVD/PCA, to_dlpack ---------------------------------------------------------

_SEGMENT_REDUCE = {"sum": "sum", "mean": "mean", "max": "amax", "amax": "amax", "min": "amin", "amin": "amin",
                   "prod": "prod"}
_SEGMENT_EMPTY = {"sum": 0.0, "mean": math.nan, "amax": -math.inf, "amin": math.inf, "prod": 1.0}


def segment_reduce(data: Tensor, reduce: str, *, lengths: Tensor | None = None, indices: Tensor | None = None,
                   offsets: Tensor | None = None, axis: int = 0, unsafe: bool = False,
                   initial: float | None = None) -> Tensor:
    """Reduces consecutive segments of ``data`` along ``axis`` (segment lengths given by 1-d ``lengths``
    or ``offsets``): 'sum', 'mean', 'max'/'amax', 'min'/'amin' or 'prod'. An empty segment gives
    ``initial`` (else 0, NaN, -inf, inf, 1); ``initial`` also joins every segment's reduction.
    Batched (2-d or more) lengths are not supported."""
    if reduce not in _SEGMENT_REDUCE:
        raise RuntimeError(f"reduce argument must be either sum, prod, mean, amax or amin, got {reduce}")
    op = _SEGMENT_REDUCE[reduce]
    if lengths is None and offsets is None:
        raise RuntimeError("segment_reduce(): Either lengths or offsets must be defined.")
    if indices is not None:
        raise NotImplementedError("segment_reduce(): indices are not supported (torch's neither)")
    if lengths is not None:
        spec = [int(v) for v in lengths.reshape(-1).tolist()] if lengths.ndim == 1 else None
        starts = [0] + list(np.cumsum(spec)[:-1]) if spec else []
    else:
        offs = [int(v) for v in offsets.reshape(-1).tolist()] if offsets.ndim == 1 else None
        spec = [b - a for a, b in zip(offs, offs[1:])] if offs is not None else None
        starts = offs[:-1] if offs is not None else []
    if spec is None:
        raise NotImplementedError("segment_reduce(): aakaar supports 1-d lengths/offsets only (no batched segments)")
    axis = axis % data.ndim if data.ndim else 0
    if axis != 0:
        raise RuntimeError(f"segment_reduce(): Expected axis to be the last dimension of lengths but got {axis}.")
    if not unsafe:
        if any(n < 0 for n in spec):
            raise RuntimeError("lengths contains negative value!")
        if sum(spec) != data.shape[axis]:
            raise RuntimeError("segment_reduce(): Expected all rows of lengths along axis to sum to "
                               "data.size(lengths.dim()-1) when !unsafe.")
    rows = []
    empty_value = _SEGMENT_EMPTY[op] if initial is None else float(initial)
    row_shape = list(data.shape[1:])
    for start, n in zip(starts, spec):
        if n == 0:
            rows.append(_C.full(row_shape, empty_value, dtype=data.dtype, device=data.device))
            continue
        seg = data.narrow(0, int(start), n)
        r = seg.sum([0]) if op == "mean" else getattr(seg, op)(0)
        if initial is not None:
            init = float(initial)
            r = {"sum": lambda: r + init, "mean": lambda: r + init, "prod": lambda: r * init,
                 "amax": lambda: r.clamp(min=init), "amin": lambda: r.clamp(max=init)}[op]()
        if op == "mean":
            r = r / n
        rows.append(r)
    if not rows:
        return _C.empty([0] + row_shape, dtype=data.dtype, device=data.device)
    return _C.stack(rows, 0)


def _approximate_basis(A: Tensor, q: int, niter: int, M: Tensor | None) -> Tensor:
    """An orthonormal basis Q (n x q) of A's range by randomized subspace iteration (Halko et al.,
    torch's get_approximate_basis); R is drawn from aakaar's default generator."""
    from . import linalg

    R = _C.randn(list(A.shape[:-2]) + [A.shape[-1], q], dtype=A.dtype, device=A.device)
    X = A.matmul(R) if M is None else A.matmul(R) - M.matmul(R)
    Q = linalg.qr(X).Q
    At = A.transpose(-2, -1)
    Mt = M.transpose(-2, -1) if M is not None else None
    for _ in builtins.range(niter):
        X = At.matmul(Q) if Mt is None else At.matmul(Q) - Mt.matmul(Q)
        Q = linalg.qr(X).Q
        X = A.matmul(Q) if M is None else A.matmul(Q) - M.matmul(Q)
        Q = linalg.qr(X).Q
    return Q


def svd_lowrank(A: Tensor, q: int | None = 6, niter: int = 2, M: Tensor | None = None) -> tuple[Tensor, ...]:
    """(U, S, V) of a rank-``q`` approximation of ``A - M`` by randomized SVD (torch's algorithm;
    exact when q >= rank). Random: results agree with torch's up to the basis drawn."""
    from . import linalg

    q = 6 if q is None else q
    m, n = A.shape[-2], A.shape[-1]
    if M is not None:
        M = M.broadcast_to(list(A.shape))
    if m < n:  # work on the transpose (tall), as torch does
        U, S, V = svd_lowrank(A.transpose(-2, -1), q, niter, None if M is None else M.transpose(-2, -1))
        return V, S, U
    Q = _approximate_basis(A, q, niter, M)
    B = Q.transpose(-2, -1).matmul(A if M is None else A - M)
    U, S, Vh = linalg.svd(B, full_matrices=False)
    return Q.matmul(U), S, Vh.transpose(-2, -1)


def pca_lowrank(A: Tensor, q: int | None = None, center: bool = True, niter: int = 2) -> tuple[Tensor, ...]:
    """(U, S, V) of a PCA of ``A`` (columns centred when ``center``) by svd_lowrank; q defaults to
    min(6, m, n)."""
    m, n = A.shape[-2], A.shape[-1]
    if q is None:
        q = min(6, m, n)
    elif not (q >= 0 and q <= min(m, n)):
        raise ValueError(f"q(={q}) must be non-negative integer and not greater than min(m, n)={min(m, n)}")
    if niter < 0:
        raise ValueError(f"niter(={niter}) must be non-negative integer")
    if not center:
        return svd_lowrank(A, q, niter)
    return svd_lowrank(A - A.mean([-2], keepdim=True), q, niter)


def to_dlpack(tensor: Tensor) -> Any:
    """A DLPack capsule of the tensor (``tensor.__dlpack__()``), for from_dlpack."""
    return tensor.__dlpack__()


__all__ += ["segment_reduce", "svd_lowrank", "pca_lowrank", "to_dlpack"]


# ---- norm_except_dim, from_file --------------------------------------------------------------------------

def norm_except_dim(v: Tensor, pow: float = 2, dim: int = 0) -> Tensor:
    """The ``pow``-norm over every dim but ``dim`` (kept, the others size 1); dim -1: over all
    (weight_norm's g)."""
    from . import linalg

    if dim == -1:
        return linalg.vector_norm(v, pow)
    d = dim % v.ndim
    return linalg.vector_norm(v, pow, [i for i in builtins.range(v.ndim) if i != d], keepdim=True)


def from_file(filename: str, shared: bool | None = None, size: int = 0, *, dtype: Any = None, layout: Any = None,
              device: Any = None, pin_memory: bool = False) -> Tensor:
    """``size`` elements of ``dtype`` read from the start of a file; with ``shared=True`` the tensor
    maps the file, so writes to it reach the file."""
    dtype = dtype or _F32
    if dtype.name not in _NP_DTYPES:
        raise TypeError(f"from_file(): aakaar cannot read {dtype.name} from a file (numpy has no such type)")
    npt = np.dtype(_NP_DTYPES[dtype.name])
    mode = "read-write" if shared else "read-only"
    try:
        file_size = os.path.getsize(filename)
    except OSError as e:
        raise RuntimeError(f"unable to open file <{filename}> in {mode} mode: {e.strerror} ({e.errno})") from None
    if size * npt.itemsize > file_size:
        raise RuntimeError(f"file <{filename}> size <{file_size}> is smaller than the required mapping size "
                           f"<{size * npt.itemsize}>")
    if size == 0:
        out = _C.empty([0], dtype=dtype)
    elif shared:
        out = _C.from_numpy(np.memmap(filename, dtype=npt, mode="r+", shape=(size,)))
    else:
        out = _C.from_numpy(np.fromfile(filename, dtype=npt, count=size))
    return out if device is None else out.to(device=device)


__all__ += ["norm_except_dim", "from_file"]


# ---- torch's top-level signatures of functions aakaar had with fewer arguments ---------------------------

@accept_numpy_names
def softmax(input: Tensor, dim: int, dtype: Any = None) -> Tensor:
    """exp(x) / sum(exp(x)) along dim, computed in ``dtype`` when given (torch.softmax: dtype may be
    passed positionally)."""
    return input.softmax(dim, dtype=dtype)


@accept_numpy_names
def log_softmax(input: Tensor, dim: int, dtype: Any = None) -> Tensor:
    """log(softmax(x)) along dim, computed in ``dtype`` when given (torch.log_softmax)."""
    return input.log_softmax(dim, dtype=dtype)


__all__ += ["softmax", "log_softmax"]
