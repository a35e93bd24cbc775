"""Tensor methods and properties a PyTorch user expects beyond the ops themselves: the in-place
view ops (``unsqueeze_``, ``t_``, ``transpose_``, ...), the in-place random fills (``uniform_``,
``normal_``, ``bernoulli_``, ...; drawn from aakaar's generators, so ``aakaar.manual_seed`` and
``generator=`` make them reproducible, though the numbers differ from torch's), ``data`` (get
and set), ``fill_diagonal_``, ``new``, ``new_empty_strided``, ``empty_strided``, the size and
device queries (``nbytes``, ``nelement``, ``get_device``, ...), ``mH``/``adjoint``, ``where``,
and the in-place forms of a few composites (``cumsum_``, ``addmm_``, ...).
"""

from __future__ import annotations

import math
from typing import Any

from . import _C
from ._C import Tensor

_F32 = _C.dtype.float32
_F64 = _C.dtype.float64
_I64 = _C.dtype.int64


# ---- in-place view ops -----------------------------------------------------------------------------

def _view_inplace(name: str, make):
    def method(self: Tensor, *args: Any, **kwargs: Any) -> Tensor:
        return self._set_geometry_(make(self, *args, **kwargs), name)
    method.__name__ = name
    method.__doc__ = f"In place: self takes the shape and strides of ``{name[:-1]}(...)`` (a view op); returns self."
    return method


def _t(self: Tensor) -> Tensor:
    if self.ndim > 2:
        raise RuntimeError(f"t_() expects a tensor with <= 2 dimensions, but self is {self.ndim}D")
    return self.transpose(0, 1) if self.ndim == 2 else self


_VIEW_INPLACE = {
    "unsqueeze_": lambda t, dim: t.unsqueeze(dim),
    "squeeze_": lambda t, dim=None: t.squeeze(dim),
    "t_": _t,
    "transpose_": lambda t, dim0, dim1: t.transpose(dim0, dim1),
    "swapaxes_": lambda t, axis0, axis1: t.transpose(axis0, axis1),
    "swapdims_": lambda t, dim0, dim1: t.transpose(dim0, dim1),
    "as_strided_": lambda t, size, stride, storage_offset=None: t.as_strided(size, stride, storage_offset),
}


# ---- random fills ----------------------------------------------------------------------------------

def _draw(self: Tensor, generator: Any, kind: str = "rand") -> Tensor:
    """Uniform [0, 1) (or standard normal) numbers of self's shape, in float64 for float64 tensors and
    float32 otherwise, on self's device."""
    dt = _F64 if self.dtype == _F64 else _F32
    fn = _C.rand if kind == "rand" else _C.randn
    return fn(*self.shape, generator=generator, dtype=dt)._to_device(self.device)


def _fill_from(self: Tensor, values: Tensor) -> Tensor:
    # copy_ keeps torch's rules: a leaf that requires grad is refused outside no_grad()
    return self.copy_(values)


def _check_float(self: Tensor, name: str) -> None:
    if not self.dtype.is_floating_point:
        raise RuntimeError(f"{name} expects a floating point tensor, got {self.dtype.name}")


def uniform_(self: Tensor, from_: float = 0.0, to: float = 1.0, *, generator: Any = None, **kwargs: Any) -> Tensor:
    """Fills self with U[from, to) samples."""
    from_ = kwargs.pop("from", from_)
    _check_float(self, "uniform_")
    if from_ > to:
        raise RuntimeError(f"uniform_ expects to return a [from, to) range, but found from={from_} > to={to}")
    return _fill_from(self, _draw(self, generator) * (to - from_) + from_)


def normal_(self: Tensor, mean: float = 0.0, std: float = 1.0, *, generator: Any = None) -> Tensor:
    """Fills self with N(mean, std) samples."""
    _check_float(self, "normal_")
    if std < 0:
        raise RuntimeError(f"normal expects std >= 0.0, but found std {std}")
    return _fill_from(self, _draw(self, generator, "randn") * std + mean)


def log_normal_(self: Tensor, mean: float = 1.0, std: float = 2.0, *, generator: Any = None) -> Tensor:
    """Fills self with exp(N(mean, std)) samples."""
    _check_float(self, "log_normal_")
    if std <= 0:
        raise RuntimeError(f"log_normal_ expects std > 0.0, but found std={std}")
    return _fill_from(self, (_draw(self, generator, "randn") * std + mean).exp())


def exponential_(self: Tensor, lambd: float = 1.0, *, generator: Any = None) -> Tensor:
    """Fills self with Exp(lambd) samples, -log(1 - u) / lambd."""
    _check_float(self, "exponential_")
    if not lambd > 0:
        raise RuntimeError(f"exponential_ expects lambda > 0.0, but found lambda={lambd}")
    return _fill_from(self, (-_draw(self, generator)).log1p() * (-1.0 / lambd))


def cauchy_(self: Tensor, median: float = 0.0, sigma: float = 1.0, *, generator: Any = None) -> Tensor:
    """Fills self with Cauchy(median, sigma) samples, median + sigma tan(pi (u - 1/2))."""
    _check_float(self, "cauchy_")
    if not sigma > 0:
        raise RuntimeError(f"cauchy_ expects sigma > 0.0, but found sigma={sigma}")
    return _fill_from(self, ((_draw(self, generator) - 0.5) * math.pi).tan() * sigma + median)


def geometric_(self: Tensor, p: float, *, generator: Any = None) -> Tensor:
    """Fills self with Geometric(p) samples (trials up to the first success, >= 1)."""
    if not 0 < p < 1:
        raise RuntimeError(f"geometric_ expects p to be in (0, 1), but got p={p}")
    k = ((-_draw(self, generator)).log1p() / math.log1p(-p)).ceil().clamp(min=1)
    return _fill_from(self, k)


def bernoulli_(self: Tensor, p: Any = 0.5, *, generator: Any = None) -> Tensor:
    """Fills self with 1 with probability ``p`` (a float or a tensor broadcastable to self), else 0."""
    if isinstance(p, Tensor):
        probs = p.to(_F64 if p.dtype == _F64 else _F32).expand(list(self.shape)).contiguous()
    else:
        if not 0 <= p <= 1:
            raise RuntimeError(f"bernoulli_ expects p to be in [0, 1], but got p={p}")
        probs = _C.full(list(self.shape), float(p), dtype=_F32, device=self.device)
    if isinstance(p, Tensor) and (bool((probs < 0).any()) or bool((probs > 1).any())):
        raise RuntimeError("bernoulli_ expects all elements of p to be in [0, 1]")
    return _fill_from(self, _C.bernoulli(probs, generator=generator))


def _bernoulli(self: Tensor, p: Any = None, *, generator: Any = None) -> Tensor:
    """1 with probability self (or ``p``), else 0, as a new tensor of self's dtype."""
    if p is None:
        return _C.bernoulli(self, generator=generator)
    return bernoulli_(self.new_empty(list(self.shape)), p, generator=generator)


def random_(self: Tensor, from_: int = 0, to: Any = None, *, generator: Any = None, **kwargs: Any) -> Tensor:
    """Fills self with integers uniform on [from, to - 1]; random_(to) is [0, to); random_() covers
    the dtype's integer range (for floats, [0, 2^mantissa bits])."""
    from_ = kwargs.pop("from", from_)
    if to is None and "from" not in kwargs and from_ != 0 and not kwargs:
        from_, to = 0, from_
    if to is None:
        limits = {"float32": 2 ** 24, "float64": 2 ** 53, "float16": 2 ** 11, "bfloat16": 2 ** 8, "bool": 1,
                  "uint8": 255, "int8": 127, "int16": 2 ** 15 - 1, "int32": 2 ** 31 - 1, "int64": 2 ** 63 - 1}
        to = limits[self.dtype.name] + 1
    if from_ >= to:
        raise RuntimeError(f"random_ expects 'from' to be less than 'to', but got from={from_} >= to={to}")
    draws = _C.randint(from_, to, list(self.shape), generator=generator)._to_device(self.device)
    return _fill_from(self, draws)


# ---- the rest --------------------------------------------------------------------------------------

def fill_diagonal_(self: Tensor, fill_value: Any, wrap: bool = False) -> Tensor:
    """Fills the main diagonal (all dims of one size when ndim > 2; ``wrap`` restarts a tall matrix's
    diagonal every ncols + 1 rows, as numpy and torch)."""
    if self.ndim < 2:
        raise RuntimeError("dimensions must larger than 1")
    if self.ndim > 2 and len(set(self.shape)) != 1:
        raise RuntimeError("all dimensions of input must be of equal length")
    n = min(self.shape)
    if self.ndim == 2:
        rows, cols = self.shape
        step = cols + 1
        limit = rows * cols if (wrap and rows > cols + 1) else n * cols
        flat = list(range(0, min(limit, rows * cols), step))
        idx = [(i // cols, i % cols) for i in flat]
    else:
        idx = [tuple([i] * self.ndim) for i in range(n)]
    if not idx:
        return self
    from .creation import tensor
    cols_ = [tensor([ix[d] for ix in idx], dtype=_I64, device=self.device) for d in range(self.ndim)]
    value = _C.full([len(idx)], fill_value, dtype=self.dtype, device=self.device)
    self.index_put_(tuple(cols_), value, False)
    return self


def _data_get(self: Tensor) -> Tensor:
    return self.detach()


def _data_set(self: Tensor, other: Tensor) -> None:
    if not isinstance(other, Tensor):
        raise TypeError(f"data must be a Tensor, not {type(other).__name__}")
    if other.device != self.device:
        raise RuntimeError("data set to a tensor on another device: move it first")
    self._set_data(other)


def get_device(self: Tensor) -> int:
    """-1 for a CPU tensor, else the CUDA device's index."""
    return -1 if self.device.type == "cpu" else (self.device.index or 0)


def empty_strided(size: Any, stride: Any, *, dtype: Any = None, device: Any = None,
                  requires_grad: bool = False) -> Tensor:
    """An uninitialised tensor with the given size and strides (over just enough storage)."""
    size, stride = list(size), list(stride)
    if len(size) != len(stride):
        raise RuntimeError(f"mismatch in length of strides and shape ({len(size)} vs {len(stride)})")
    if any(s < 0 for s in size) or any(s < 0 for s in stride):
        raise RuntimeError(f"empty_strided: negative sizes or strides are not allowed, got {size}, {stride}")
    extent = 0 if any(s == 0 for s in size) else 1 + sum((s - 1) * st for s, st in zip(size, stride))
    base = _C.empty(extent, dtype=dtype or _C._get_default_dtype(), device=device)
    out = base.as_strided(size, stride, 0).detach()
    return out.requires_grad_() if requires_grad else out


def _new_empty_strided(self: Tensor, size: Any, stride: Any, *, dtype: Any = None, device: Any = None,
                       requires_grad: bool = False) -> Tensor:
    """An uninitialised tensor of the given size and strides, with self's dtype and device unless told."""
    return empty_strided(size, stride, dtype=dtype or self.dtype,
                         device=device if device is not None else self.device, requires_grad=requires_grad)


def _new(self: Tensor, *args: Any, **kwargs: Any) -> Tensor:
    """torch's legacy constructor: ``x.new(2, 3)`` (uninitialised, self's dtype and device),
    ``x.new([1, 2])`` (data), ``x.new(tensor)`` (the same tensor's data), ``x.new()`` (empty)."""
    if len(args) == 1 and isinstance(args[0], Tensor):
        return args[0].detach()
    if len(args) == 1 and isinstance(args[0], (list, tuple)) and not all(isinstance(a, int) for a in args[0]) \
            or (len(args) == 1 and isinstance(args[0], (list, tuple)) and len(args[0]) and
                isinstance(args[0][0], (list, tuple, float))):
        return self.new_tensor(args[0], **kwargs)
    if len(args) == 1 and isinstance(args[0], (list, tuple)):
        return self.new_tensor(list(args[0]), **kwargs)
    if not args:
        return self.new_empty((0,), **kwargs)
    return self.new_empty(tuple(args), **kwargs)


def _where(self: Tensor, condition: Tensor, y: Any) -> Tensor:
    """``aakaar.where(condition, self, y)``."""
    return _C.where(condition, self, y)


def _mH(self: Tensor) -> Tensor:
    if self.ndim < 2:
        raise RuntimeError("tensor.mH is only supported on matrices or batches of matrices. Got 1-D tensor."
                           if self.ndim == 1 else "tensor.mH is only supported on matrices or batches of matrices.")
    return self.transpose(-2, -1)


def _H(self: Tensor) -> Tensor:
    if self.ndim not in (0, 2):
        raise RuntimeError(f"tensor.H is only supported on matrices (2-D tensors). Got {self.ndim}-D tensor.")
    return self.transpose(0, 1) if self.ndim == 2 else self


def _adjoint(self: Tensor) -> Tensor:
    """The conjugate transpose of the last two dims (the transpose: aakaar has real dtypes only)."""
    return _mH(self)


def _cumsum_(self: Tensor, dim: int, *, dtype: Any = None) -> Tensor:
    """In-place cumsum along dim; returns self."""
    return self.copy_(self.cumsum(dim) if dtype is None else self.cumsum(dim, dtype=dtype))


def _inplace_of(name: str):
    def method(self: Tensor, *args: Any, **kwargs: Any) -> Tensor:
        return self.copy_(getattr(self, name)(*args, **kwargs))
    method.__name__ = name + "_"
    method.__doc__ = f"In-place ``{name}``: the result is copied into self; returns self."
    return method


def _imag(self: Tensor) -> Tensor:
    raise RuntimeError("imag is not implemented for tensors with non-complex dtypes.")


def _apply_(self: Tensor, callable: Any) -> Tensor:
    """Replaces every element x by callable(x) (a Python function; CPU tensors only, as in torch)."""
    if self.device.type != "cpu":
        raise TypeError("apply_ is only implemented on CPU tensors")
    from .creation import tensor
    vals = [callable(v) for v in self.reshape(-1).tolist()]
    return self.copy_(tensor(vals, dtype=self.dtype).reshape(list(self.shape)))


def _map_(self: Tensor, other: Tensor, callable: Any) -> Tensor:
    """Replaces every x by callable(x, y), y the broadcast element of other (CPU tensors only)."""
    if self.device.type != "cpu":
        raise TypeError("map_ is only implemented on CPU tensors")
    from .creation import tensor
    ys = other.expand(list(self.shape)).reshape(-1).tolist()
    vals = [callable(x, y) for x, y in zip(self.reshape(-1).tolist(), ys)]
    return self.copy_(tensor(vals, dtype=self.dtype).reshape(list(self.shape)))


# Answers that hold for every aakaar tensor (dense, real, not quantized, no lazy conjugation).
_CONSTANT_FALSE = ["is_conj", "is_neg", "is_inference", "is_sparse", "is_sparse_csr", "is_quantized", "is_meta",
                   "is_nested", "is_mkldnn", "is_pinned", "is_shared"]
_SELF = ["conj", "resolve_conj", "resolve_neg", "conj_physical"]

_PROPERTIES = {
    "nbytes": (lambda self: self.numel() * self.element_size(), "The bytes the elements take (numel * element_size)."),
    "is_cpu": (lambda self: self.device.type == "cpu", "Whether the tensor is on the CPU."),
    "mH": (_mH, "The last two dims transposed (the conjugate transpose of a real tensor)."),
    "H": (_H, "The transpose of a matrix (the conjugate transpose of a real one)."),
}


def _removable_register_hook(register: Any) -> Any:
    """``Tensor.register_hook`` returning a handle, as torch's does: ``handle.remove()`` switches the
    hook off (the engine keeps a no-op in its place)."""

    def register_hook(self: Tensor, hook: Any) -> Any:
        from collections import OrderedDict

        from .utils.hooks import RemovableHandle

        if not callable(hook):
            raise TypeError(f"register_hook: the hook must be callable, got {type(hook).__name__}")
        live: OrderedDict[int, Any] = OrderedDict()  # (a plain dict cannot be weakly referenced by the handle)
        handle = RemovableHandle(live)
        live[handle.id] = hook

        def call(grad: Tensor) -> Any:
            active = live.get(handle.id)
            return None if active is None else active(grad)

        register(self, call)
        return handle

    register_hook.__doc__ = register.__doc__ + " Returns a handle whose remove() takes the hook off."
    return register_hook


def _documented(fn: Any, name: str, doc: str) -> Any:
    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = doc
    return fn


def install() -> None:
    """Attach the methods and properties to the Tensor class."""
    for name, make in _VIEW_INPLACE.items():
        setattr(Tensor, name, _view_inplace(name, make))
    for fn in (uniform_, normal_, log_normal_, exponential_, cauchy_, geometric_, bernoulli_, random_,
               fill_diagonal_, get_device):
        setattr(Tensor, fn.__name__, fn)
    Tensor.bernoulli = _bernoulli
    Tensor.data = property(_data_get, _data_set, doc="The same data, cut from the graph; assigning replaces "
                                                     "this tensor's memory, shape and dtype (torch's .data).")
    for name, (fn, doc) in _PROPERTIES.items():
        setattr(Tensor, name, property(fn, doc=doc))
    Tensor.nelement = _documented(lambda self: self.numel(), "nelement", "The number of elements (numel).")
    Tensor.ndimension = _documented(lambda self: self.ndim, "ndimension", "The number of dims (dim()).")
    Tensor.new = _new
    Tensor.new_empty_strided = _new_empty_strided
    Tensor.where = _where
    Tensor.adjoint = _adjoint
    Tensor.cumsum_ = _cumsum_
    for name in ("addmm", "addmv", "addr", "baddbmm", "addbmm", "cumprod"):
        if hasattr(Tensor, name) and not hasattr(Tensor, name + "_"):
            setattr(Tensor, name + "_", _inplace_of(name))
    Tensor.is_signed = _documented(lambda self: self.dtype.is_signed, "is_signed",
                                   "Whether the dtype holds negative values (False for bool and uint8).")
    Tensor.real = property(lambda self: self, doc="self (a real tensor is its own real part).")
    Tensor.imag = property(_imag, doc="Refused: aakaar's tensors are real (as torch refuses .imag of a real tensor).")
    Tensor.apply_ = _apply_
    if not hasattr(Tensor.register_hook, "__wrapped_register__"):
        Tensor.register_hook = _removable_register_hook(Tensor.register_hook)
        Tensor.register_hook.__wrapped_register__ = True
    Tensor.map_ = _map_
    for name in _CONSTANT_FALSE:
        setattr(Tensor, name, _documented(lambda self: False, name, "False for every aakaar tensor (dense, real, "
                                          "not quantized, in ordinary memory)."))
    for name in _SELF + ["conj_physical_"]:
        setattr(Tensor, name, _documented(lambda self: self, name, "self: aakaar's tensors are real, so the "
                                          "conjugate is the tensor itself."))
    from .contraction_ops import kron, outer
    Tensor.kron = kron
    Tensor.outer = outer
    Tensor.ger = outer
