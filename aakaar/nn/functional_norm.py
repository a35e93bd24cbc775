"""Normalisations and distances of ``torch.nn.functional`` beyond layer/batch norm: ``normalize``,
``cosine_similarity``, ``pairwise_distance``, ``pdist``, ``group_norm``, ``instance_norm``,
``rms_norm``, ``local_response_norm``.

All are compositions of differentiable tensor ops. The vector norm they share (``_vector_norm``)
gives a zero vector the gradient 0, as PyTorch's norm backward does, instead of the NaN of a
plain ``sqrt(sum(x * x))`` at 0.
"""

from __future__ import annotations

import math
from typing import Sequence

from .. import _C
from .._C import Tensor
from .functional_conv import _check_tensor as _check
from ..autograd import no_grad
from ..creation import tensor

__all__ = [
    "normalize", "cosine_similarity", "pairwise_distance", "pdist", "group_norm", "instance_norm", "rms_norm",
    "local_response_norm",
]


def _safe_root(s: Tensor, p: float) -> Tensor:
    """s ** (1/p) for s >= 0, with the gradient at s == 0 taken as 0 (PyTorch's norm at a zero vector)."""
    zero = s == 0
    safe = s.masked_fill(zero, 1.0)  # a root's derivative is infinite at 0: never evaluate it there
    root = safe.sqrt() if p == 2 else safe.pow(1.0 / p)
    return root.masked_fill(zero, 0.0)


def _vector_norm(x: Tensor, p: float, dim: int | Sequence[int], keepdim: bool = False) -> Tensor:
    """The p-norm of x over dim (p = inf, -inf, 0 or any positive number)."""
    dims = [dim] if isinstance(dim, int) else list(dim)
    if p == math.inf:
        return x.abs().amax(dims, keepdim=keepdim)
    if p == -math.inf:
        return x.abs().amin(dims, keepdim=keepdim)
    if p == 0:
        return (x != 0).to(x.dtype).sum(dims, keepdim=keepdim)
    if p == 1:
        return x.abs().sum(dims, keepdim=keepdim)
    if p == 2:
        return _safe_root((x * x).sum(dims, keepdim=keepdim), 2)
    return _safe_root(x.abs().pow(p).sum(dims, keepdim=keepdim), p)


def normalize(input: Tensor, p: float = 2.0, dim: int = 1, eps: float = 1e-12, out: Tensor | None = None) -> Tensor:
    """``input / max(||input||_p, eps)`` along ``dim``."""
    _check(input, "normalize")
    denom = _vector_norm(input, p, dim, keepdim=True).clamp(min=eps)
    result = input / denom
    return out.copy_(result) if out is not None else result


def cosine_similarity(x1: Tensor, x2: Tensor, dim: int = 1, eps: float = 1e-8) -> Tensor:
    """``sum(x1 * x2) / (max(||x1||, eps) * max(||x2||, eps))`` along ``dim`` (inputs broadcast).

    Each input is divided by its own norm first (PyTorch's order, which keeps the result in
    [-1, 1]); the clamp to eps is outside autograd there, so here it is added as a detached
    correction and the gradient is that of the unclamped norm, as in PyTorch.
    """
    _check(x1, "cosine_similarity", "x1")
    _check(x2, "cosine_similarity", "x2")
    shape = _C.broadcast_shapes(list(x1.shape), list(x2.shape))
    x1, x2 = x1.expand(list(shape)), x2.expand(list(shape))

    def unit(x: Tensor) -> Tensor:
        n = _vector_norm(x, 2, dim, keepdim=True)
        return x / (n + (n.clamp(min=eps) - n).detach())

    return (unit(x1) * unit(x2)).sum([dim])


def pairwise_distance(x1: Tensor, x2: Tensor, p: float = 2.0, eps: float = 1e-6, keepdim: bool = False) -> Tensor:
    """``||x1 - x2 + eps||_p`` over the last dim (inputs broadcast)."""
    _check(x1, "pairwise_distance", "x1")
    _check(x2, "pairwise_distance", "x2")
    nd = max(x1.ndim, x2.ndim)
    if nd == 0:
        raise RuntimeError("pairwise_distance: inputs must have at least one dimension")
    return _vector_norm(x1 - x2 + eps, p, nd - 1, keepdim=keepdim)


def pdist(input: Tensor, p: float = 2.0) -> Tensor:
    """The p-norm distance between every pair of rows i < j of an (N, M) input, in row-major
    order of (i, j): N (N - 1) / 2 values."""
    _check(input, "pdist")
    if input.ndim != 2:
        raise RuntimeError(f"pdist only supports 2D tensors, got: {input.ndim}D")
    if p < 0:
        raise RuntimeError("pdist only supports non-negative p values")
    n = input.shape[0]
    rows = [i for i in range(n) for _ in range(i + 1, n)]
    cols = [j for i in range(n) for j in range(i + 1, n)]
    if not rows:
        return _C.zeros([0], dtype=input.dtype)._to_device(input.device)
    ri = tensor(rows, dtype=_C.dtype.int64)._to_device(input.device)
    ci = tensor(cols, dtype=_C.dtype.int64)._to_device(input.device)
    return _vector_norm(input.index_select(0, ri) - input.index_select(0, ci), p, 1)


def _affine(out: Tensor, weight: Tensor | None, bias: Tensor | None, ndim: int) -> Tensor:
    """out * weight + bias, per channel (dim 1) of an (N, C, *) output."""
    if weight is None and bias is None:
        return out
    shape = [1, -1] + [1] * (ndim - 2)
    if weight is not None:
        out = out * weight.reshape(shape)
    if bias is not None:
        out = out + bias.reshape(shape)
    return out


def group_norm(input: Tensor, num_groups: int, weight: Tensor | None = None, bias: Tensor | None = None,
               eps: float = 1e-5) -> Tensor:
    """Normalises each group of ``C / num_groups`` channels of an (N, C, *) input over its channels
    and spatial positions (biased variance), then scales and shifts per channel."""
    _check(input, "group_norm")
    if input.ndim < 2:
        raise RuntimeError(f"Expected at least 2 dimensions for input tensor but received {input.ndim}")
    n, c = input.shape[0], input.shape[1]
    if num_groups <= 0 or c % num_groups != 0:
        raise RuntimeError(f"Expected number of channels in input to be divisible by num_groups, but got input of "
                           f"shape {list(input.shape)} and num_groups={num_groups}")
    for name, t in (("weight", weight), ("bias", bias)):
        if t is not None and (t.ndim != 1 or t.shape[0] != c):
            raise RuntimeError(f"Expected {name} to be a vector of size equal to the number of channels in input, "
                               f"but got {name} of shape {list(t.shape)} and input of shape {list(input.shape)}")
    x = input.reshape([n, num_groups, -1])
    mean = x.mean([2], keepdim=True)
    centered = x - mean
    var = (centered * centered).mean([2], keepdim=True)
    out = (centered * (var + eps).rsqrt()).reshape(list(input.shape))
    return _affine(out, weight, bias, input.ndim)


def instance_norm(input: Tensor, running_mean: Tensor | None = None, running_var: Tensor | None = None,
                  weight: Tensor | None = None, bias: Tensor | None = None, use_input_stats: bool = True,
                  momentum: float = 0.1, eps: float = 1e-5) -> Tensor:
    """Normalises each channel of each sample of an (N, C, *) input over its spatial positions.

    With ``use_input_stats`` the running buffers (when given) are updated with the batch's
    statistics averaged over N (unbiased variance), as PyTorch; without, they are used instead."""
    _check(input, "instance_norm")
    if input.ndim < 3:
        raise ValueError(f"instance_norm: expected an input of 3 or more dims (N, C, *), got {list(input.shape)}")
    if use_input_stats:
        size = 1
        for s in input.shape[2:]:
            size *= s
        if size == 1:
            raise ValueError(f"Expected more than 1 spatial element when training, got input size {list(input.shape)}")
    n, c = input.shape[0], input.shape[1]
    dims = list(range(2, input.ndim))
    stat = [n, c] + [1] * (input.ndim - 2)
    if use_input_stats:
        mean = input.mean(dims, keepdim=True)
        centered = input - mean
        var = (centered * centered).mean(dims, keepdim=True)
        if running_mean is not None and running_var is not None:
            count = input.numel() // (n * c)
            with no_grad():
                running_mean.mul_(1.0 - momentum).add_(mean.detach().reshape([n, c]).mean([0]) * momentum)
                unbiased = var.detach().reshape([n, c]) * (count / (count - 1))
                running_var.mul_(1.0 - momentum).add_(unbiased.mean([0]) * momentum)
    else:
        if running_mean is None or running_var is None:
            raise RuntimeError("Expected running_mean and running_var to be defined when use_input_stats is false")
        mean = running_mean.reshape([1, c] + stat[2:])
        var = running_var.reshape([1, c] + stat[2:])
        centered = input - mean
    return _affine(centered * (var + eps).rsqrt(), weight, bias, input.ndim)


def rms_norm(input: Tensor, normalized_shape: int | Sequence[int], weight: Tensor | None = None,
             eps: float | None = None) -> Tensor:
    """``input / sqrt(mean(input ** 2) + eps) * weight`` over the last ``len(normalized_shape)`` dims;
    eps defaults to the machine epsilon of the input's dtype (PyTorch's default)."""
    _check(input, "rms_norm")
    shape = (normalized_shape,) if isinstance(normalized_shape, int) else tuple(normalized_shape)
    k = len(shape)
    if k == 0 or input.ndim < k or tuple(input.shape[input.ndim - k:]) != shape:
        raise RuntimeError(f"Given normalized_shape={list(shape)}, expected input with shape [*, "
                           f"{', '.join(str(s) for s in shape)}], but got input of size{list(input.shape)}")
    if eps is None:
        from .._dtype_info import finfo

        eps = finfo(input.dtype).eps
    dims = list(range(input.ndim - k, input.ndim))
    out = input * ((input * input).mean(dims, keepdim=True) + eps).rsqrt()
    return out * weight if weight is not None else out


def local_response_norm(input: Tensor, size: int, alpha: float = 1e-4, beta: float = 0.75, k: float = 1.0) -> Tensor:
    """``input / (k + alpha * mean of input ** 2 over `size` neighbouring channels) ** beta``; the
    window runs from c - size // 2 to c + (size - 1) // 2, zero outside (PyTorch's)."""
    _check(input, "local_response_norm")
    if input.ndim < 3:
        raise ValueError(f"Expected 3D or higher dimensionality input (got {input.ndim} dimensions)")
    if input.numel() == 0:
        return input
    c = input.shape[1]
    sq = input * input
    before, after = size // 2, (size - 1) // 2
    parts = []
    if before:
        parts.append(_C.zeros([input.shape[0], before] + list(input.shape[2:]), dtype=input.dtype)._to_device(input.device))
    parts.append(sq)
    if after:
        parts.append(_C.zeros([input.shape[0], after] + list(input.shape[2:]), dtype=input.dtype)._to_device(input.device))
    padded = _C.cat(parts, 1) if len(parts) > 1 else sq
    total = padded.narrow(1, 0, c)
    for s in range(1, size):
        total = total + padded.narrow(1, s, c)
    div = (total * (alpha / size) + k).pow(beta)
    return input / div
