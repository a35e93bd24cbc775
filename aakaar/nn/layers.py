"""Layers: modules that hold parameters (or just a mode) and call ``nn.functional``.

Each layer's constructor creates its parameters and initialises them exactly
as PyTorch does (same formulas, aakaar's own random stream), its ``forward``
is one call into :mod:`aakaar.nn.functional`, and ``extra_repr`` prints the
arguments the way ``torch.nn`` does, so printed models read the same.
"""

from __future__ import annotations

import math
from typing import Sequence

from .. import _C
from .._C import Tensor
from ..autograd import no_grad
from . import functional as F
from . import init
from .module import Module
from .parameter import Parameter

__all__ = [
    "Linear", "Identity", "Flatten", "ReLU", "LeakyReLU", "ELU", "GELU", "SiLU", "Sigmoid", "Tanh",
    "Softmax", "LogSoftmax", "Dropout", "LayerNorm", "BatchNorm1d", "Embedding",
]


def _dtype(dtype: _C.dtype | None) -> _C.dtype:
    dtype = _C._get_default_dtype() if dtype is None else dtype
    if not isinstance(dtype, _C.dtype) or not dtype.is_floating_point:
        raise TypeError(f"layer parameters must be floating point, got dtype={dtype!r}")
    return dtype


def _positive(value: object, what: str, layer: str, allow_zero: bool = False) -> int:
    if not isinstance(value, int) or isinstance(value, bool) or value < (0 if allow_zero else 1):
        bound = "non-negative" if allow_zero else "positive"
        raise ValueError(f"{layer}: {what} must be a {bound} int, got {value!r}")
    return value


class Linear(Module):
    """``y = x @ weight.T + bias``; weight (out_features, in_features).

    Initialised like PyTorch: ``kaiming_uniform_(weight, a=sqrt(5))``, which is
    U(±1/sqrt(in_features)), and the bias U(±1/sqrt(in_features)).
    """

    def __init__(self, in_features: int, out_features: int, bias: bool = True, dtype: _C.dtype | None = None) -> None:
        super().__init__()
        self.in_features = _positive(in_features, "in_features", "Linear", allow_zero=True)
        self.out_features = _positive(out_features, "out_features", "Linear", allow_zero=True)
        dt = _dtype(dtype)
        self.weight = Parameter(_C.empty(out_features, in_features, dtype=dt))
        if bias:
            self.bias = Parameter(_C.empty(out_features, dtype=dt))
        else:
            self.register_parameter("bias", None)
        self.reset_parameters()

    def reset_parameters(self) -> None:
        if self.in_features == 0:
            init.zeros_(self.weight)
        else:
            init.kaiming_uniform_(self.weight, a=math.sqrt(5))
        if self.bias is not None:
            bound = 1.0 / math.sqrt(self.in_features) if self.in_features > 0 else 0.0
            init.uniform_(self.bias, -bound, bound)

    def forward(self, input: Tensor) -> Tensor:
        # _param is self.weight without the miss of the ordinary attribute lookup that
        # Module.__getattr__ follows (about a microsecond a step, per read).
        return F.linear(input, self._param("weight"), self._param("bias"))

    def extra_repr(self) -> str:
        return f"in_features={self.in_features}, out_features={self.out_features}, bias={self.bias is not None}"


class Identity(Module):
    """Returns its input (a placeholder, e.g. to switch a block off)."""

    def __init__(self, *args: object, **kwargs: object) -> None:
        super().__init__()

    def forward(self, input: Tensor) -> Tensor:
        return input


class Flatten(Module):
    """Flattens dims ``start_dim..end_dim`` (by default all but the batch dim)."""

    def __init__(self, start_dim: int = 1, end_dim: int = -1) -> None:
        super().__init__()
        self.start_dim, self.end_dim = start_dim, end_dim

    def forward(self, input: Tensor) -> Tensor:
        return input.flatten(self.start_dim, self.end_dim)

    def extra_repr(self) -> str:
        return f"start_dim={self.start_dim}, end_dim={self.end_dim}"


class _Activation(Module):
    """A parameter-free elementwise layer: forward is ``fn(input)``."""

    def forward(self, input: Tensor) -> Tensor:
        return self.fn(input)


class _InplaceActivation(Module):
    """``fn(input, inplace=self.inplace)``, PyTorch's ``inplace=`` argument; prints ``inplace=True`` when set."""

    def __init__(self, inplace: bool = False) -> None:
        super().__init__()
        self.inplace = inplace

    def forward(self, input: Tensor) -> Tensor:
        return type(self).fn(input, inplace=self.inplace)

    def extra_repr(self) -> str:
        return "inplace=True" if self.inplace else ""


class ReLU(_InplaceActivation):
    fn = staticmethod(F.relu)


class SiLU(_InplaceActivation):
    fn = staticmethod(F.silu)


class Sigmoid(_Activation):
    fn = staticmethod(F.sigmoid)


class Tanh(_Activation):
    fn = staticmethod(F.tanh)


class LeakyReLU(Module):
    def __init__(self, negative_slope: float = 0.01, inplace: bool = False) -> None:
        super().__init__()
        self.negative_slope = negative_slope
        self.inplace = inplace

    def forward(self, input: Tensor) -> Tensor:
        return F.leaky_relu(input, self.negative_slope, self.inplace)

    def extra_repr(self) -> str:
        return f"negative_slope={self.negative_slope}" + (", inplace=True" if self.inplace else "")


class ELU(Module):
    def __init__(self, alpha: float = 1.0, inplace: bool = False) -> None:
        super().__init__()
        self.alpha = alpha
        self.inplace = inplace

    def forward(self, input: Tensor) -> Tensor:
        return F.elu(input, self.alpha, self.inplace)

    def extra_repr(self) -> str:
        return f"alpha={self.alpha}" + (", inplace=True" if self.inplace else "")


class GELU(Module):
    def __init__(self, approximate: str = "none") -> None:
        super().__init__()
        if approximate not in ("none", "tanh"):
            raise ValueError(f"GELU: approximate must be 'none' or 'tanh', got {approximate!r}")
        self.approximate = approximate

    def forward(self, input: Tensor) -> Tensor:
        return F.gelu(input, self.approximate)

    def extra_repr(self) -> str:
        return f"approximate={self.approximate!r}"


class Softmax(Module):
    def __init__(self, dim: int = -1) -> None:
        super().__init__()
        self.dim = dim

    def forward(self, input: Tensor) -> Tensor:
        return F.softmax(input, self.dim)

    def extra_repr(self) -> str:
        return f"dim={self.dim}"


class LogSoftmax(Softmax):
    def forward(self, input: Tensor) -> Tensor:
        return F.log_softmax(input, self.dim)


class Dropout(Module):
    """Zeroes elements with probability ``p`` in training mode; the identity in eval mode."""

    def __init__(self, p: float = 0.5, inplace: bool = False) -> None:
        super().__init__()
        if not 0.0 <= p <= 1.0:
            raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")
        self.p, self.inplace = p, inplace

    def forward(self, input: Tensor) -> Tensor:
        return F.dropout(input, self.p, self.training, self.inplace)

    def extra_repr(self) -> str:
        return f"p={self.p}, inplace={self.inplace}"


class LayerNorm(Module):
    """Normalises over the last dims given by ``normalized_shape``, then scales and shifts."""

    def __init__(
        self, normalized_shape: int | Sequence[int], eps: float = 1e-5, elementwise_affine: bool = True,
        bias: bool = True, dtype: _C.dtype | None = None,
    ) -> None:
        super().__init__()
        shape = (normalized_shape,) if isinstance(normalized_shape, int) else tuple(normalized_shape)
        for s in shape:
            _positive(s, "normalized_shape entries", "LayerNorm")
        self.normalized_shape, self.eps, self.elementwise_affine = shape, eps, elementwise_affine
        dt = _dtype(dtype)
        if elementwise_affine:
            self.weight = Parameter(_C.ones(*shape, dtype=dt))
            if bias:
                self.bias = Parameter(_C.zeros(*shape, dtype=dt))
            else:
                self.register_parameter("bias", None)
        else:
            self.register_parameter("weight", None)
            self.register_parameter("bias", None)

    def forward(self, input: Tensor) -> Tensor:
        return F.layer_norm(input, self.normalized_shape, self.weight, self.bias, self.eps)

    def extra_repr(self) -> str:
        return (f"{self.normalized_shape}, eps={self.eps}, elementwise_affine={self.elementwise_affine}, "
                f"bias={self.bias is not None}")


class _BatchNorm(Module):
    """Per-channel normalisation (dim 1) with running statistics; the subclasses say which input
    ranks they take (BatchNorm1d: (N, C) or (N, C, L); BatchNorm2d: (N, C, H, W); ...).

    Training uses the batch's mean and biased variance and updates
    ``running_mean``/``running_var`` (with the unbiased variance) by
    exponential averaging with ``momentum`` — or, with ``momentum=None``, by a
    cumulative average over ``num_batches_tracked``. Eval uses the running values.
    """

    def __init__(
        self, num_features: int, eps: float = 1e-5, momentum: float | None = 0.1, affine: bool = True,
        track_running_stats: bool = True, dtype: _C.dtype | None = None, *, bias: bool = True,
    ) -> None:
        super().__init__()
        self.num_features = _positive(num_features, "num_features", type(self).__name__)
        self.eps, self.momentum, self.affine, self.track_running_stats = eps, momentum, affine, track_running_stats
        dt = _dtype(dtype)
        if affine:
            self.weight = Parameter(_C.ones(num_features, dtype=dt))
            if bias:
                self.bias = Parameter(_C.zeros(num_features, dtype=dt))
            else:
                self.register_parameter("bias", None)
        else:
            self.register_parameter("weight", None)
            self.register_parameter("bias", None)
        if track_running_stats:
            self.register_buffer("running_mean", _C.zeros(num_features, dtype=dt))
            self.register_buffer("running_var", _C.ones(num_features, dtype=dt))
            self.register_buffer("num_batches_tracked", _C.zeros((), dtype=_C.dtype.int64))
        else:
            self.register_buffer("running_mean", None)
            self.register_buffer("running_var", None)
            self.register_buffer("num_batches_tracked", None)

    def reset_running_stats(self) -> None:
        if self.track_running_stats:
            with no_grad():
                self.running_mean.zero_()
                self.running_var.fill_(1)
                self.num_batches_tracked.zero_()

    _ranks: tuple[int, ...] = (2, 3)
    _shapes = "(N, C) or (N, C, L)"

    def forward(self, input: Tensor) -> Tensor:
        if input.ndim not in self._ranks or input.shape[1] != self.num_features:
            shapes = self._shapes.replace("C", str(self.num_features))
            raise ValueError(
                f"{type(self).__name__}({self.num_features}): expected input of shape {shapes}, got "
                f"{tuple(input.shape)}"
            )
        momentum = 0.0 if self.momentum is None else self.momentum
        if self.training and self.track_running_stats:
            with no_grad():
                self.num_batches_tracked.add_(1)
            if self.momentum is None:
                momentum = 1.0 / int(self.num_batches_tracked.item())
        # Batch statistics in training, or whenever there are no running ones to use.
        use_batch = self.training or not self.track_running_stats
        running = self.track_running_stats and self.training
        return F.batch_norm(
            input,
            self.running_mean if running or not use_batch else None,
            self.running_var if running or not use_batch else None,
            self.weight, self.bias, use_batch, momentum, self.eps,
        )

    def extra_repr(self) -> str:
        return (f"{self.num_features}, eps={self.eps}, momentum={self.momentum}, affine={self.affine}, "
                f"bias={self.bias is not None}, track_running_stats={self.track_running_stats}")


class BatchNorm1d(_BatchNorm):
    """Per-channel normalisation of (N, C) or (N, C, L) inputs with running statistics.

    Training uses the batch's mean and biased variance and updates
    ``running_mean``/``running_var`` (with the unbiased variance) by
    exponential averaging with ``momentum`` — or, with ``momentum=None``, by a
    cumulative average over ``num_batches_tracked``. Eval uses the running values.
    """


class Embedding(Module):
    """A lookup table of ``num_embeddings`` vectors of size ``embedding_dim``, initialised N(0, 1);
    the ``padding_idx`` row starts at zero and receives no gradient. PyTorch's arguments:
    ``max_norm`` renormalises the rows used, ``_weight`` supplies the table (``from_pretrained``)."""

    def __init__(
        self, num_embeddings: int, embedding_dim: int, padding_idx: int | None = None, max_norm: float | None = None,
        norm_type: float = 2.0, scale_grad_by_freq: bool = False, sparse: bool = False, _weight: Tensor | None = None,
        _freeze: bool = False, device: object = None, dtype: _C.dtype | None = None,
    ) -> None:
        super().__init__()
        if isinstance(max_norm, _C.dtype):  # the old aakaar signature had dtype fourth
            max_norm, dtype = None, max_norm
        self.num_embeddings = _positive(num_embeddings, "num_embeddings", "Embedding")
        self.embedding_dim = _positive(embedding_dim, "embedding_dim", "Embedding")
        if padding_idx is not None:
            if not -num_embeddings <= padding_idx < num_embeddings:
                raise ValueError(f"Embedding: padding_idx {padding_idx} must be within num_embeddings={num_embeddings}")
            padding_idx %= num_embeddings
        self.padding_idx = padding_idx
        self.max_norm, self.norm_type, self.scale_grad_by_freq, self.sparse = max_norm, norm_type, scale_grad_by_freq, sparse
        if _weight is None:
            self.weight = Parameter(_C.empty(num_embeddings, embedding_dim, dtype=_dtype(dtype)),
                                    requires_grad=not _freeze)
            self.reset_parameters()
        else:
            if list(_weight.shape) != [num_embeddings, embedding_dim]:
                raise AssertionError("Shape of weight does not match num_embeddings and embedding_dim")
            self.weight = Parameter(_weight, requires_grad=not _freeze)

    @classmethod
    def from_pretrained(cls, embeddings: Tensor, freeze: bool = True, padding_idx: int | None = None,
                        max_norm: float | None = None, norm_type: float = 2.0, scale_grad_by_freq: bool = False,
                        sparse: bool = False) -> "Embedding":
        """An Embedding whose table is ``embeddings`` (2-d), frozen unless ``freeze=False``."""
        if embeddings.ndim != 2:
            raise AssertionError("Embeddings parameter is expected to be 2-dimensional")
        rows, cols = embeddings.shape
        return cls(rows, cols, padding_idx, max_norm, norm_type, scale_grad_by_freq, sparse, _weight=embeddings,
                   _freeze=freeze)

    def reset_parameters(self) -> None:
        init.normal_(self.weight)
        if self.padding_idx is not None:
            with no_grad():
                self.weight[self.padding_idx].fill_(0)

    def forward(self, input: Tensor) -> Tensor:
        return F.embedding(input, self.weight, self.padding_idx, self.max_norm, self.norm_type,
                           self.scale_grad_by_freq, self.sparse)

    def extra_repr(self) -> str:
        s = f"{self.num_embeddings}, {self.embedding_dim}"
        s += f", padding_idx={self.padding_idx}" if self.padding_idx is not None else ""
        s += f", max_norm={self.max_norm}" if self.max_norm is not None else ""
        s += f", norm_type={self.norm_type}" if self.norm_type != 2 else ""
        s += ", scale_grad_by_freq=True" if self.scale_grad_by_freq else ""
        return s + (", sparse=True" if self.sparse else "")
