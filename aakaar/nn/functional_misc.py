"""The rest of ``torch.nn.functional``'s everyday functions: ``one_hot``, ``pixel_shuffle``,
``pixel_unshuffle``, ``channel_shuffle``, ``gumbel_softmax``, ``alpha_dropout``,
``feature_alpha_dropout``, ``rrelu``, ``bilinear``, ``embedding_bag``, ``lp_pool1d``/``2d``,
the ``*_with_indices`` pooling aliases and the deprecated ``upsample*``.

Each composes tensor ops (reshape/permute, where, index_select, einsum, the pooling kernels), so
autograd needs nothing new.
"""

from __future__ import annotations

import math
import warnings
from typing import Sequence

from .. import _C
from .._C import Tensor
from .functional_conv import _check_tensor as _check
from ..creation import tensor

__all__ = [
    "one_hot", "pixel_shuffle", "pixel_unshuffle", "channel_shuffle", "native_channel_shuffle", "gumbel_softmax",
    "alpha_dropout", "feature_alpha_dropout", "rrelu", "rrelu_", "bilinear", "embedding_bag", "lp_pool1d",
    "lp_pool2d", "max_pool1d_with_indices", "max_pool2d_with_indices",
    "adaptive_max_pool1d_with_indices", "adaptive_max_pool2d_with_indices", "upsample", "upsample_nearest",
    "upsample_bilinear",
]


def _arange(n: int, like: Tensor) -> Tensor:
    return _C.arange(0, n, 1, dtype=_C.dtype.int64)._to_device(like.device)


def one_hot(tensor: Tensor, num_classes: int = -1) -> Tensor:
    """int64 ``(*tensor.shape, num_classes)`` with a 1 at each index; ``num_classes=-1`` means max + 1."""
    _check(tensor, "one_hot", "tensor")
    if tensor.dtype != _C.dtype.int64:
        raise RuntimeError("one_hot is only applicable to index tensor of type LongTensor.")
    if tensor.numel() == 0:
        if num_classes == -1:
            raise RuntimeError("Can not infer total number of classes from empty tensor.")
        return _C.zeros(list(tensor.shape) + [num_classes], dtype=_C.dtype.int64)._to_device(tensor.device)
    lo, hi = int(tensor.amin().item()), int(tensor.amax().item())
    if lo < 0:
        raise RuntimeError("Class values must be non-negative.")
    if num_classes == -1:
        num_classes = hi + 1
    elif hi >= num_classes:
        raise RuntimeError("Class values must be smaller than num_classes.")
    return (tensor.unsqueeze(-1) == _arange(num_classes, tensor)).to(_C.dtype.int64)


def pixel_shuffle(input: Tensor, upscale_factor: int) -> Tensor:
    """(*, C r^2, H, W) -> (*, C, H r, W r): each group of r^2 channels becomes an r x r block."""
    _check(input, "pixel_shuffle")
    r = upscale_factor
    if input.ndim < 3:
        raise RuntimeError(f"pixel_shuffle expects input to have at least 3 dimensions, but got input with "
                           f"{input.ndim} dimension(s)")
    if r <= 0:
        raise RuntimeError(f"pixel_shuffle expects a positive upscale_factor, but got {r}")
    *lead, c, h, w = input.shape
    if c % (r * r) != 0:
        raise RuntimeError(f"pixel_shuffle expects its input's 'channel' dimension to be divisible by the square of "
                           f"upscale_factor, but input.size(-3)={c} is not divisible by {r * r}")
    k = len(lead)
    x = input.reshape(list(lead) + [c // (r * r), r, r, h, w])
    x = x.permute(list(range(k)) + [k, k + 3, k + 1, k + 4, k + 2])
    return x.reshape(list(lead) + [c // (r * r), h * r, w * r])


def pixel_unshuffle(input: Tensor, downscale_factor: int) -> Tensor:
    """(*, C, H r, W r) -> (*, C r^2, H, W), the inverse of ``pixel_shuffle``."""
    _check(input, "pixel_unshuffle")
    r = downscale_factor
    if input.ndim < 3:
        raise RuntimeError(f"pixel_unshuffle expects input to have at least 3 dimensions, but got input with "
                           f"{input.ndim} dimension(s)")
    if r <= 0:
        raise RuntimeError(f"pixel_unshuffle expects a positive downscale_factor, but got {r}")
    *lead, c, h, w = input.shape
    if h % r != 0 or w % r != 0:
        which, size = ("height", h) if h % r else ("width", w)
        raise RuntimeError(f"pixel_unshuffle expects {which} to be divisible by downscale_factor, but input.size("
                           f"{-2 if which == 'height' else -1})={size} is not divisible by {r}")
    k = len(lead)
    x = input.reshape(list(lead) + [c, h // r, r, w // r, r])
    x = x.permute(list(range(k)) + [k, k + 2, k + 4, k + 1, k + 3])
    return x.reshape(list(lead) + [c * r * r, h // r, w // r])


def channel_shuffle(input: Tensor, groups: int) -> Tensor:
    """(N, C, *) with its channels regrouped: channel g * (C / groups) + i moves to i * groups + g."""
    _check(input, "channel_shuffle")
    if input.ndim <= 2:
        raise RuntimeError(f"channel_shuffle expects input to have at least 3 dimensions, but got input with "
                           f"{input.ndim} dimension(s)")
    if groups <= 0:
        raise RuntimeError(f"Number of groups to divide channels in must be positive. Value of groups:{groups}")
    c = input.shape[1]
    if c % groups != 0:
        raise RuntimeError(f"Number of channels must be divisible by groups. Got {c} channels and {groups} groups.")
    n, rest = input.shape[0], list(input.shape[2:])
    return input.reshape([n, groups, c // groups] + rest).transpose(1, 2).reshape(list(input.shape))


native_channel_shuffle = channel_shuffle


def gumbel_softmax(logits: Tensor, tau: float = 1.0, hard: bool = False, eps: float = 1e-10, dim: int = -1) -> Tensor:
    """softmax((logits + Gumbel noise) / tau); ``hard=True`` returns the one-hot argmax in the forward
    pass with the soft sample's gradient (the straight-through estimator)."""
    _check(logits, "gumbel_softmax", "logits")
    if eps != 1e-10:
        warnings.warn("`eps` parameter is deprecated and has no effect.", stacklevel=2)
    u = _C.rand(list(logits.shape), dtype=logits.dtype)._to_device(logits.device)
    tiny = float(_tiny(logits.dtype))
    gumbels = -((-(u.clamp(min=tiny)).log()).clamp(min=tiny).log())  # -log(Exp(1)) noise
    y_soft = ((logits + gumbels) / tau).softmax(dim)
    if not hard:
        return y_soft
    index = y_soft.argmax(dim, keepdim=True)
    y_hard = _C.zeros(list(logits.shape), dtype=logits.dtype)._to_device(logits.device).scatter(dim, index, 1.0)
    return y_hard - y_soft.detach() + y_soft


def _tiny(dtype: _C.dtype) -> float:
    from .._dtype_info import finfo

    return finfo(dtype).tiny


_SELU_ALPHA_SCALE = 1.7580993408473766  # SELU's alpha * scale: the value a dropped unit takes is -this


def _alpha_dropout(input: Tensor, p: float, training: bool, feature: bool, fn: str) -> Tensor:
    """Dropout for SELU networks: dropped units take SELU's negative saturation value and an affine
    map a * x + b restores the mean and variance (PyTorch's formula)."""
    _check(input, fn)
    if not 0.0 <= p <= 1.0:
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")
    if p == 0 or not training or input.numel() == 0:
        return input
    if p == 1:
        return input * 0.0
    if feature:
        if input.ndim < 2:
            raise RuntimeError("Feature dropout requires at least 2 dimensions in the input")
        shape = list(input.shape[:2]) + [1] * (input.ndim - 2)
    else:
        shape = list(input.shape)
    keep = _C.bernoulli(_C.full(shape, 1.0 - p, dtype=input.dtype)._to_device(input.device))
    a = 1.0 / math.sqrt((_SELU_ALPHA_SCALE ** 2 * p + 1) * (1 - p))
    b = (keep - 1.0) * (_SELU_ALPHA_SCALE * a) + _SELU_ALPHA_SCALE * a * p
    return input * (keep * a) + b


def alpha_dropout(input: Tensor, p: float = 0.5, training: bool = False, inplace: bool = False) -> Tensor:
    """Alpha dropout of each element (keeps SELU's self-normalising mean and variance)."""
    out = _alpha_dropout(input, p, training, False, "alpha_dropout")
    return input.copy_(out) if inplace and out is not input else out


def feature_alpha_dropout(input: Tensor, p: float = 0.5, training: bool = False, inplace: bool = False) -> Tensor:
    """Alpha dropout of whole channels (dim 1) of an (N, C, *) input."""
    out = _alpha_dropout(input, p, training, True, "feature_alpha_dropout")
    return input.copy_(out) if inplace and out is not input else out


def rrelu(input: Tensor, lower: float = 1.0 / 8, upper: float = 1.0 / 3, training: bool = False,
          inplace: bool = False) -> Tensor:
    """Leaky ReLU whose negative slope is drawn from U(lower, upper) per element in training, and is
    (lower + upper) / 2 in evaluation."""
    _check(input, "rrelu")
    if lower > upper:
        raise RuntimeError(f"Lower bound should be less than or equal to the upper bound")
    if training:
        u = _C.rand(list(input.shape), dtype=input.dtype)._to_device(input.device)
        slope = u * (upper - lower) + lower
    else:
        slope = (lower + upper) / 2
    out = _C.where(input >= 0, input, input * slope)
    return input.copy_(out) if inplace else out


def rrelu_(input: Tensor, lower: float = 1.0 / 8, upper: float = 1.0 / 3, training: bool = False) -> Tensor:
    return rrelu(input, lower, upper, training, inplace=True)


def bilinear(input1: Tensor, input2: Tensor, weight: Tensor, bias: Tensor | None = None) -> Tensor:
    """``y_o = x1^T W_o x2 + b_o``: (*, in1), (*, in2), weight (out, in1, in2) -> (*, out)."""
    from ..contraction_ops import einsum

    _check(input1, "bilinear", "input1")
    _check(input2, "bilinear", "input2")
    if weight.ndim != 3:
        raise RuntimeError(f"bilinear(): weight must be three-dimensional, got {weight.ndim}")
    if input1.shape[-1] != weight.shape[1]:
        raise RuntimeError(f"bilinear(): input1 size does not match weight size: got {input1.shape[-1]} but "
                           f"expected {weight.shape[1]}")
    if input2.shape[-1] != weight.shape[2]:
        raise RuntimeError(f"bilinear(): input2 size does not match weight size: got {input2.shape[-1]} but "
                           f"expected {weight.shape[2]}")
    if tuple(input1.shape[:-1]) != tuple(input2.shape[:-1]):
        raise RuntimeError(f"bilinear(): input batch dimensions do not match: got {list(input1.shape[:-1])} and "
                           f"{list(input2.shape[:-1])}")
    if input1.numel() == 0 or input2.numel() == 0:  # an empty batch (einsum refuses to broadcast it)
        out = _C.zeros(list(input1.shape[:-1]) + [weight.shape[0]], dtype=input1.dtype, device=input1.device)
        return out + bias if bias is not None else out
    out = einsum("...i,oij,...j->...o", input1, weight, input2)
    return out + bias if bias is not None else out


def embedding_bag(input: Tensor, weight: Tensor, offsets: Tensor | None = None, max_norm: float | None = None,
                  norm_type: float = 2, scale_grad_by_freq: bool = False, mode: str = "mean", sparse: bool = False,
                  per_sample_weights: Tensor | None = None, include_last_offset: bool = False,
                  padding_idx: int | None = None) -> Tensor:
    """Sums, means or maxima of bags of embedding rows: a 2-d input is one bag per row; a 1-d input
    is cut into bags at ``offsets``. An empty bag gives zeros; ``padding_idx`` entries are skipped."""
    _check(input, "embedding_bag")
    _check(weight, "embedding_bag", "weight")
    if mode not in ("sum", "mean", "max"):
        raise ValueError(f"mode has to be one of sum, mean or max")
    if max_norm is not None or scale_grad_by_freq or sparse:
        raise NotImplementedError("embedding_bag: max_norm, scale_grad_by_freq and sparse are not supported")
    if input.dtype not in (_C.dtype.int64, _C.dtype.int32):
        raise RuntimeError(f"embedding_bag: expected indices of type int64 or int32, got {input.dtype}")
    if per_sample_weights is not None:
        if mode != "sum":
            raise NotImplementedError(f"embedding_bag: per_sample_weights was not None. per_sample_weights is only "
                                      f"supported for mode='sum' (got mode='{mode}'). Please open a feature request "
                                      f"on GitHub.")
        if tuple(per_sample_weights.shape) != tuple(input.shape):
            raise ValueError(f"embedding_bag: If per_sample_weights ({list(per_sample_weights.shape)}) is not None, "
                             f"then it must have the same shape as the input ({list(input.shape)})")
    num = weight.shape[0]
    if padding_idx is not None:
        if not -num <= padding_idx < num:
            raise AssertionError("padding_idx must be within the number of embeddings")
        padding_idx %= num
    if input.ndim == 2:
        if offsets is not None:
            raise ValueError("if input is 2D, then offsets has to be None, as input is treated is a mini-batch of "
                             "fixed length sequences.")
        b, length = input.shape
        starts = [i * length for i in range(b)] + [b * length]
        flat = input.reshape([-1])
        psw = per_sample_weights.reshape([-1]) if per_sample_weights is not None else None
    elif input.ndim == 1:
        if offsets is None:
            raise ValueError("offsets has to be a 1D Tensor but got None")
        if offsets.ndim != 1:
            raise ValueError("offsets has to be a 1D Tensor")
        starts = [int(v) for v in offsets.tolist()]
        if not include_last_offset:
            starts = starts + [input.shape[0]]
        if starts and starts[0] != 0:
            raise RuntimeError(f"offsets[0] has to be 0, i.e., the first sequence in the mini-batch has to start "
                               f"from position 0. However, got {starts[0]}")
        flat, psw = input, per_sample_weights
    else:
        raise ValueError(f"input has to be 1D or 2D Tensor, but got Tensor of dimension {input.ndim}")
    flat = flat.to(_C.dtype.int64)
    ids = [int(v) for v in flat.tolist()]
    if ids and (min(ids) < 0 or max(ids) >= num):
        raise IndexError(f"embedding_bag: index out of range in self (indices span [{min(ids)}, {max(ids)}], "
                         f"{num} rows)")
    rows = weight.index_select(0, flat)
    if psw is not None:
        rows = rows * psw.unsqueeze(1)
    bags = []
    zero = _C.zeros([weight.shape[1]], dtype=weight.dtype)._to_device(weight.device)
    for i in range(len(starts) - 1):
        keep = [j for j in range(starts[i], min(starts[i + 1], len(ids))) if ids[j] != padding_idx]
        if not keep:
            bags.append(zero)
            continue
        sel = rows.index_select(0, tensor(keep, dtype=_C.dtype.int64)._to_device(weight.device))
        if mode == "sum":
            bags.append(sel.sum([0]))
        elif mode == "mean":
            bags.append(sel.mean([0]))
        else:
            bags.append(_max_rows(sel))
    if not bags:
        return _C.zeros([0, weight.shape[1]], dtype=weight.dtype)._to_device(weight.device)
    return _C.stack(bags, 0)


def _max_rows(sel: Tensor) -> Tensor:
    """Column maxima whose gradient goes to one row per column (the first maximum), as PyTorch's
    embedding_bag max mode, not split between ties as amax's is."""
    idx = sel.argmax(0, keepdim=True)
    return sel.gather(0, idx).squeeze(0)


def _lp_finish(out: Tensor, norm_type: float, count: int) -> Tensor:
    """(sign(out) * relu(|out|) * count) ** (1 / p): PyTorch's lp_pool from the average of x ** p."""
    return (out.sign() * out.abs().relu() * count).pow(1.0 / norm_type)


def lp_pool1d(input: Tensor, norm_type: float, kernel_size: int, stride: int | None = None,
              ceil_mode: bool = False) -> Tensor:
    """The p-norm of each window: ``(sum x ** p) ** (1 / p)`` (PyTorch's: no abs inside the power)."""
    from .functional_pool import avg_pool1d

    _check(input, "lp_pool1d")
    k = kernel_size[0] if isinstance(kernel_size, (tuple, list)) else kernel_size
    out = avg_pool1d(input.pow(norm_type), k, stride if stride is not None else None, 0, ceil_mode)
    return _lp_finish(out, norm_type, k)


def lp_pool2d(input: Tensor, norm_type: float, kernel_size: int | Sequence[int], stride: int | Sequence[int] | None = None,
              ceil_mode: bool = False) -> Tensor:
    """The p-norm of each 2-d window."""
    from .functional_conv import avg_pool2d

    _check(input, "lp_pool2d")
    kh, kw = (kernel_size, kernel_size) if isinstance(kernel_size, int) else tuple(kernel_size)
    out = avg_pool2d(input.pow(norm_type), (kh, kw), stride, 0, ceil_mode)
    return _lp_finish(out, norm_type, kh * kw)


def max_pool1d_with_indices(input: Tensor, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False,
                            return_indices=True):
    from .functional_pool import max_pool1d

    return max_pool1d(input, kernel_size, stride, padding, dilation, ceil_mode, True)


def max_pool2d_with_indices(input: Tensor, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False,
                            return_indices=True):
    from .functional_conv import max_pool2d

    return max_pool2d(input, kernel_size, stride, padding, dilation, ceil_mode, True)


def adaptive_max_pool1d_with_indices(input: Tensor, output_size, return_indices=True):
    from .functional_pool import adaptive_max_pool1d

    return adaptive_max_pool1d(input, output_size, True)


def adaptive_max_pool2d_with_indices(input: Tensor, output_size, return_indices=True):
    from .functional_pool import adaptive_max_pool2d

    return adaptive_max_pool2d(input, output_size, True)


def upsample(input: Tensor, size=None, scale_factor=None, mode: str = "nearest", align_corners: bool | None = None):
    """Deprecated alias of ``interpolate`` (PyTorch warns too)."""
    from .functional_resample import interpolate

    warnings.warn("nn.functional.upsample is deprecated. Use nn.functional.interpolate instead.", stacklevel=2)
    return interpolate(input, size, scale_factor, mode, align_corners)


def upsample_nearest(input: Tensor, size=None, scale_factor=None):
    """Deprecated: ``interpolate(..., mode='nearest')``."""
    from .functional_resample import interpolate

    warnings.warn("nn.functional.upsample_nearest is deprecated. Use nn.functional.interpolate instead.",
                  stacklevel=2)
    return interpolate(input, size, scale_factor, mode="nearest")


def upsample_bilinear(input: Tensor, size=None, scale_factor=None):
    """Deprecated: ``interpolate(..., mode='bilinear', align_corners=True)``."""
    from .functional_resample import interpolate

    warnings.warn("nn.functional.upsample_bilinear is deprecated. Use nn.functional.interpolate instead.",
                  stacklevel=2)
    return interpolate(input, size, scale_factor, mode="bilinear", align_corners=True)
