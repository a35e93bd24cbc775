"""torch's top-level functional forms (``torch.conv2d``, ``torch.dropout``, ``torch.batch_norm``, ...).

These are the ATen operators as torch exposes them at top level, and their signatures differ
from ``torch.nn.functional``'s: ``torch.dropout(input, p, train)`` has no defaults,
``torch.batch_norm`` takes weight and bias *before* the running statistics, the losses take
``reduction`` as an int (0 none, 1 mean, 2 sum), ``torch.embedding`` takes the weight first,
``torch.grid_sampler`` takes its modes as ints. Each function here maps those arguments onto the
:mod:`aakaar.nn.functional` implementation; no kernel is duplicated.
"""

from __future__ import annotations

from typing import Any, Sequence

from . import _C
from ._C import Tensor
from .autograd import no_grad
from .creation import tensor as _tensor
from .nn import functional as F
from .nn import functional_norm as _Fnorm
from .nn.rnn import _lstm_step, _rnn_step

__all__ = [
    "conv1d", "conv2d", "conv3d", "conv_transpose1d", "conv_transpose2d", "conv_transpose3d", "convolution",
    "max_pool1d", "max_pool2d", "max_pool3d", "max_pool1d_with_indices", "avg_pool1d", "adaptive_avg_pool1d",
    "adaptive_max_pool1d", "dropout", "dropout_", "alpha_dropout", "alpha_dropout_", "feature_dropout",
    "feature_dropout_", "feature_alpha_dropout", "feature_alpha_dropout_", "native_dropout", "batch_norm",
    "native_batch_norm", "layer_norm", "native_layer_norm", "group_norm", "native_group_norm", "instance_norm",
    "rms_norm", "embedding", "embedding_renorm_", "embedding_bag", "bilinear", "pixel_shuffle", "pixel_unshuffle",
    "channel_shuffle", "native_channel_shuffle", "kl_div", "binary_cross_entropy_with_logits",
    "cosine_embedding_loss", "hinge_embedding_loss", "margin_ranking_loss", "triplet_margin_loss",
    "poisson_nll_loss", "ctc_loss", "rrelu", "rrelu_", "constant_pad_nd", "grid_sampler", "grid_sampler_2d",
    "grid_sampler_3d", "affine_grid_generator", "conv_tbc", "batch_norm_update_stats", "lstm_cell", "gru_cell",
    "rnn_tanh_cell", "rnn_relu_cell",
]

# ---- convolution: torch's top-level signatures are nn.functional's -------------------------------

conv1d = F.conv1d
conv2d = F.conv2d
conv3d = F.conv3d
conv_transpose1d = F.conv_transpose1d
conv_transpose2d = F.conv_transpose2d
conv_transpose3d = F.conv_transpose3d
bilinear = F.bilinear
pixel_shuffle = F.pixel_shuffle
pixel_unshuffle = F.pixel_unshuffle
channel_shuffle = F.channel_shuffle
native_channel_shuffle = F.channel_shuffle
avg_pool1d = F.avg_pool1d
adaptive_avg_pool1d = F.adaptive_avg_pool1d


def conv_tbc(input: Tensor, weight: Tensor, bias: Tensor, pad: int = 0) -> Tensor:
    """1-d convolution in (time, batch, channel) layout: input (T, B, C_in), weight (K, C_in, C_out),
    bias (C_out,) -> (T', B, C_out); conv1d on the permuted tensors."""
    if input.ndim != 3:
        raise RuntimeError(f"Input must have 3 dims: time, batch, in_channel, got {input.ndim}")
    if weight.ndim != 3:
        raise RuntimeError(f"Weight tensor must have 3 dims: kernel_width, in_channels, out_channels, got "
                           f"{weight.ndim}")
    if input.shape[2] != weight.shape[1]:
        raise RuntimeError(f"Input dim 2 (input channels) is not == dim 1 in the weight tensor "
                           f"({input.shape[2]} != {weight.shape[1]})")
    out = F.conv1d(input.permute(1, 2, 0), weight.permute(2, 1, 0), bias, 1, pad)
    return out.permute(2, 0, 1)


def convolution(input: Tensor, weight: Tensor, bias: Tensor | None, stride: Sequence[int], padding: Sequence[int],
                dilation: Sequence[int], transposed: bool, output_padding: Sequence[int], groups: int) -> Tensor:
    """ATen's generic convolution: the weight's rank picks conv1d/2d/3d (or the transposed form)."""
    if not isinstance(weight, Tensor):
        raise TypeError(f"convolution(): argument 'weight' must be Tensor, not {type(weight).__name__}")
    n = weight.ndim - 2
    if n not in (1, 2, 3):
        raise RuntimeError(f"convolution(): expected a weight of 3, 4 or 5 dims, got {weight.ndim}")
    if transposed:
        fn = (F.conv_transpose1d, F.conv_transpose2d, F.conv_transpose3d)[n - 1]
        return fn(input, weight, bias, stride, padding, output_padding, groups, dilation)
    fn = (F.conv1d, F.conv2d, F.conv3d)[n - 1]
    return fn(input, weight, bias, stride, padding, dilation, groups)


# ---- pooling: no return_indices argument at top level --------------------------------------------

def max_pool1d(input: Tensor, kernel_size: Any, stride: Any = (), padding: Any = 0, dilation: Any = 1,
               ceil_mode: bool = False) -> Tensor:
    """Max pooling of (N, C, L) or (C, L); stride defaults to kernel_size (no return_indices at top level)."""
    return F.max_pool1d(input, kernel_size, stride, padding, dilation, ceil_mode)


def max_pool2d(input: Tensor, kernel_size: Any, stride: Any = (), padding: Any = 0, dilation: Any = 1,
               ceil_mode: bool = False) -> Tensor:
    """Max pooling of (N, C, H, W) or (C, H, W); stride defaults to kernel_size."""
    return F.max_pool2d(input, kernel_size, stride, padding, dilation, ceil_mode)


def max_pool3d(input: Tensor, kernel_size: Any, stride: Any = (), padding: Any = 0, dilation: Any = 1,
               ceil_mode: bool = False) -> Tensor:
    """Max pooling of (N, C, D, H, W) or (C, D, H, W); stride defaults to kernel_size."""
    return F.max_pool3d(input, kernel_size, stride or None, padding, dilation, ceil_mode)


def max_pool1d_with_indices(input: Tensor, kernel_size: Any, stride: Any = (), padding: Any = 0, dilation: Any = 1,
                            ceil_mode: bool = False) -> tuple[Tensor, Tensor]:
    """(values, indices) of max_pool1d; indices are positions along L."""
    return F.max_pool1d(input, kernel_size, stride, padding, dilation, ceil_mode, True)


def adaptive_max_pool1d(input: Tensor, output_size: Any) -> tuple[Tensor, Tensor]:
    """(values, indices): torch's top-level form always returns both."""
    return F.adaptive_max_pool1d(input, output_size, True)


# ---- dropout: (input, p, train), every argument required ------------------------------------------

def _check_p(p: float) -> None:
    if not 0.0 <= p <= 1.0:
        raise RuntimeError(f"dropout probability has to be between 0 and 1, but got {p}")


def dropout(input: Tensor, p: float, train: bool) -> Tensor:
    """Zeroes each element with probability p, scaling the rest by 1/(1-p), when train (p in [0, 1])."""
    _check_p(p)
    return F.dropout(input, p, train)


def dropout_(input: Tensor, p: float, train: bool) -> Tensor:
    """In-place dropout; returns input."""
    _check_p(p)
    return F.dropout(input, p, train, inplace=True) if train else input


def alpha_dropout(input: Tensor, p: float, train: bool) -> Tensor:
    """Alpha dropout (keeps SELU's mean and variance) when train."""
    _check_p(p)
    return F.alpha_dropout(input, p, train)


def alpha_dropout_(input: Tensor, p: float, train: bool) -> Tensor:
    """In-place alpha_dropout; returns input."""
    _check_p(p)
    return F.alpha_dropout(input, p, train, inplace=True)


def feature_alpha_dropout(input: Tensor, p: float, train: bool) -> Tensor:
    """Alpha dropout of whole channels (dim 1) when train."""
    _check_p(p)
    return F.feature_alpha_dropout(input, p, train)


def feature_alpha_dropout_(input: Tensor, p: float, train: bool) -> Tensor:
    """In-place feature_alpha_dropout; returns input."""
    _check_p(p)
    return F.feature_alpha_dropout(input, p, train, inplace=True)


def feature_dropout(input: Tensor, p: float, train: bool) -> Tensor:
    """Zeroes whole channels (dim 1) of an (N, C, *) input of any rank >= 2, scaling the rest."""
    _check_p(p)
    if input.ndim < 2:
        raise RuntimeError("Feature dropout requires at least 2 dimensions in the input")
    if not train or p == 0.0 or input.numel() == 0:
        return input
    if p == 1.0:
        return input * 0.0
    keep = _C.full(list(input.shape[:2]) + [1] * (input.ndim - 2), 1.0 - p, dtype=input.dtype,
                   device=input.device)
    return input * (_C.bernoulli(keep) * (1.0 / (1.0 - p)))


def feature_dropout_(input: Tensor, p: float, train: bool) -> Tensor:
    """In-place feature_dropout; returns input."""
    out = feature_dropout(input, p, train)
    return input if out is input else input.copy_(out)


def native_dropout(input: Tensor, p: float, train: bool | None) -> tuple[Tensor, Tensor]:
    """(output, mask): the bool mask of kept elements (all True when not training)."""
    _check_p(p)
    if train is False:
        return input.clone(), _C.full(list(input.shape), True, dtype=_C.dtype.bool, device=input.device)
    if p == 1.0:
        return input * 0.0, _C.full(list(input.shape), False, dtype=_C.dtype.bool, device=input.device)
    keep = _C.full(list(input.shape), 1.0 - p, dtype=input.dtype, device=input.device)
    mask = _C.bernoulli(keep)
    return input * (mask * (1.0 / (1.0 - p))), mask.to(_C.dtype.bool)


# ---- normalisation ----------------------------------------------------------------------------------

def batch_norm(input: Tensor, weight: Tensor | None, bias: Tensor | None, running_mean: Tensor | None,
               running_var: Tensor | None, training: bool, momentum: float, eps: float,
               cudnn_enabled: bool) -> Tensor:
    """torch.batch_norm: weight and bias come before the running statistics (F.batch_norm's order
    is the other way round); ``cudnn_enabled`` is accepted and has no effect. Unlike F.batch_norm
    (and as ATen), one value per channel in training is allowed: the output is the bias."""
    if not training and (running_mean is None or running_var is None):
        raise RuntimeError(f"running_{'mean' if running_mean is None else 'var'} must be defined in evaluation mode")
    if training and input.ndim >= 2 and input.shape[1] and input.numel() // input.shape[1] == 1:
        return _single_value_norm(input, weight, bias, [0] + list(range(2, input.ndim)), running_mean,
                                  running_var, momentum, eps)
    return F.batch_norm(input, running_mean, running_var, weight, bias, training, momentum, eps)


def _single_value_norm(input: Tensor, weight: Tensor | None, bias: Tensor | None, dims: list, running_mean: Any,
                       running_var: Any, momentum: float, eps: float) -> Tensor:
    """Normalising one value: centred it is 0 (gradient 0), so the output is the bias; the running
    variance, whose unbiased estimate divides by n - 1 = 0, becomes NaN (torch's results)."""
    mean = input.mean(dims, keepdim=True)
    out = _Fnorm._affine((input - mean) * (eps ** -0.5), weight, bias, input.ndim)
    with no_grad():
        if running_mean is not None:
            per_channel = mean.detach().reshape([-1, input.shape[1]]).mean([0])
            running_mean.mul_(1.0 - momentum).add_(per_channel * momentum)
        if running_var is not None:
            running_var.fill_(float("nan"))
    return out


def _batch_stats(input: Tensor, eps: float) -> tuple[Tensor, Tensor]:
    dims = [0] + list(range(2, input.ndim))
    mean = input.mean(dims)
    var = input.var(dims, correction=0)
    return mean, (var + eps).rsqrt()


def native_batch_norm(input: Tensor, weight: Tensor | None, bias: Tensor | None, running_mean: Tensor | None,
                      running_var: Tensor | None, training: bool, momentum: float,
                      eps: float) -> tuple[Tensor, Tensor, Tensor]:
    """(output, save_mean, save_invstd): the batch mean and 1/sqrt(biased var + eps) per channel when
    training, empty tensors otherwise (as torch's CPU kernel)."""
    out = F.batch_norm(input, running_mean, running_var, weight, bias, training, momentum, eps)
    if training:
        mean, invstd = _batch_stats(input, eps)
        return out, mean, invstd
    empty = _C.empty([0], dtype=input.dtype, device=input.device)
    return out, empty, empty.clone()


def batch_norm_update_stats(input: Tensor, running_mean: Tensor | None, running_var: Tensor | None,
                            momentum: float) -> tuple[Tensor, Tensor]:
    """(mean, biased var) per channel (dim 1) of an (N, C, *) input; the running statistics, when
    given, are updated in place with momentum (the unbiased variance, as batch_norm does)."""
    dims = [0] + list(range(2, input.ndim))
    with no_grad():
        x = input.detach()
        mean, var = x.mean(dims), x.var(dims, correction=0)
        count = input.numel() // input.shape[1]
        if running_mean is not None:
            running_mean.mul_(1.0 - momentum).add_(mean * momentum)
        if running_var is not None:
            running_var.mul_(1.0 - momentum).add_(var * (momentum * count / max(count - 1, 1)))
    return mean, var


def _check_normalized_shape(input: Tensor, normalized_shape: Any) -> list:
    shape = [normalized_shape] if isinstance(normalized_shape, int) else list(normalized_shape)
    if not shape or input.ndim < len(shape) or list(input.shape[input.ndim - len(shape):]) != shape:
        raise RuntimeError(f"Given normalized_shape={shape}, expected input with shape [*, "
                           f"{', '.join(str(v) for v in shape)}], but got input of size{list(input.shape)}")
    return shape


def layer_norm(input: Tensor, normalized_shape: Sequence[int], weight: Tensor | None = None,
               bias: Tensor | None = None, eps: float = 1e-5, cudnn_enable: bool = True) -> Tensor:
    """Normalises over the last len(normalized_shape) dims (biased variance); cudnn_enable has no effect."""
    return F.layer_norm(input, _check_normalized_shape(input, normalized_shape), weight, bias, eps)


def native_layer_norm(input: Tensor, normalized_shape: Sequence[int], weight: Tensor | None, bias: Tensor | None,
                      eps: float) -> tuple[Tensor, Tensor, Tensor]:
    """(output, mean, rstd); mean and rstd keep the normalised dims as size 1."""
    normalized_shape = _check_normalized_shape(input, normalized_shape)
    out = F.layer_norm(input, normalized_shape, weight, bias, eps)
    dims = list(range(input.ndim - len(normalized_shape), input.ndim))
    mean = input.mean(dims, keepdim=True)
    rstd = (input.var(dims, correction=0, keepdim=True) + eps).rsqrt()
    return out, mean, rstd


def group_norm(input: Tensor, num_groups: int, weight: Tensor | None = None, bias: Tensor | None = None,
               eps: float = 1e-5, cudnn_enabled: bool = True) -> Tensor:
    """Normalises each group of channels of (N, C, *) over its channels and positions; cudnn_enabled has no effect."""
    return _Fnorm.group_norm(input, num_groups, weight, bias, eps)


def native_group_norm(input: Tensor, weight: Tensor | None, bias: Tensor | None, N: int, C: int, HxW: int,
                      group: int, eps: float) -> tuple[Tensor, Tensor, Tensor]:
    """(output, mean, rstd), mean and rstd of shape (N, group)."""
    if input.numel() != N * C * HxW:
        raise RuntimeError(f"Expected input to have {N * C * HxW} elements (N={N}, C={C}, HxW={HxW}), "
                           f"got {input.numel()}")
    x = input.reshape([N, group, (C // group) * HxW if group else 0])
    if input.numel() == 0:  # an empty batch: empty output and statistics
        empty = _C.empty([N, group], dtype=input.dtype, device=input.device)
        return input.clone(), empty, empty.clone()
    out = _Fnorm.group_norm(input, group, weight, bias, eps)
    return out, x.mean([2]), (x.var([2], correction=0) + eps).rsqrt()


def instance_norm(input: Tensor, weight: Tensor | None, bias: Tensor | None, running_mean: Tensor | None,
                  running_var: Tensor | None, use_input_stats: bool, momentum: float, eps: float,
                  cudnn_enabled: bool) -> Tensor:
    """Normalises each channel of each sample over its positions (torch's order: weight, bias, running stats).
    As ATen (unlike F.instance_norm), one position per channel is allowed: the output is the bias."""
    if use_input_stats and input.ndim >= 3 and input.numel() == input.shape[0] * input.shape[1]:
        return _single_value_norm(input, weight, bias, list(range(2, input.ndim)), running_mean, running_var,
                                  momentum, eps)
    return _Fnorm.instance_norm(input, running_mean, running_var, weight, bias, use_input_stats, momentum, eps)


def rms_norm(input: Tensor, normalized_shape: Sequence[int], weight: Tensor | None = None,
             eps: float | None = None) -> Tensor:
    """input / sqrt(mean(input ** 2) + eps) * weight over the last len(normalized_shape) dims."""
    return _Fnorm.rms_norm(input, normalized_shape, weight, eps)


# ---- embeddings ---------------------------------------------------------------------------------------

def embedding(weight: Tensor, indices: Tensor, padding_idx: int = -1, scale_grad_by_freq: bool = False,
              sparse: bool = False) -> Tensor:
    """torch.embedding: the *weight* first; a negative ``padding_idx`` means none (ATen's rule)."""
    if not isinstance(indices, Tensor) or indices.dtype not in (_C.dtype.int64, _C.dtype.int32):
        got = indices.dtype if isinstance(indices, Tensor) else type(indices).__name__
        raise RuntimeError(f"Expected tensor for argument #1 'indices' to have one of the following scalar types: "
                           f"Long, Int; but got {got} instead")
    if indices.dtype == _C.dtype.int32:
        indices = indices.to(_C.dtype.int64)
    try:
        # (a padding_idx past the table matches no index: ATen ignores it)
        return F.embedding(indices, weight, padding_idx if 0 <= padding_idx < weight.shape[0] else None,
                           scale_grad_by_freq=scale_grad_by_freq, sparse=sparse)
    except IndexError as e:
        raise IndexError(f"index out of range in self ({e})") from None


def embedding_renorm_(weight: Tensor, indices: Tensor, max_norm: float, norm_type: float) -> Tensor:
    """Rescales in place each row of ``weight`` named in ``indices`` whose norm exceeds max_norm."""
    F._renorm_rows(weight, indices, max_norm, norm_type)
    return weight


_BAG_MODES = {0: "sum", 1: "mean", 2: "max"}


def embedding_bag(weight: Tensor, indices: Tensor, offsets: Tensor, scale_grad_by_freq: bool = False,
                  mode: int = 0, sparse: bool = False, per_sample_weights: Tensor | None = None,
                  include_last_offset: bool = False,
                  padding_idx: int | None = None) -> tuple[Tensor, Tensor, Tensor, Tensor]:
    """ATen's embedding_bag: (output, offset2bag, bag_size, max_indices); ``mode`` 0 sum, 1 mean, 2 max.

    output is F.embedding_bag's. The other three are bookkeeping that torch's backward reads:
    offset2bag (the bag of each index), bag_size (entries per bag, padding excluded) and, in max
    mode, the row chosen for each output element. In sum mode with neither per-sample weights nor
    padding_idx torch's CPU kernel leaves offset2bag empty and bag_size zero; so does this.
    """
    if mode not in _BAG_MODES:
        raise RuntimeError(f"embedding_bag: mode must be 0 (sum), 1 (mean) or 2 (max), got {mode}")
    if padding_idx is not None and padding_idx < 0:
        padding_idx = None
    out = F.embedding_bag(indices, weight, offsets, scale_grad_by_freq=scale_grad_by_freq, mode=_BAG_MODES[mode],
                          sparse=sparse, per_sample_weights=per_sample_weights,
                          include_last_offset=include_last_offset, padding_idx=padding_idx)
    ids = [int(v) for v in indices.reshape([-1]).tolist()]
    starts = [int(v) for v in offsets.tolist()]
    n_bags, dim = out.shape[0], weight.shape[1]
    if not include_last_offset:
        starts = starts + [len(ids)]
    bags = [[j for j in range(starts[b], min(starts[b + 1], len(ids))) if ids[j] != padding_idx]
            for b in range(n_bags)]
    idt, dev = indices.dtype, weight.device

    def ints(values: list, shape: list) -> Tensor:
        return _tensor(values, dtype=idt)._to_device(dev).reshape(shape) if values else _C.zeros(
            shape, dtype=idt, device=dev)

    zeros = ints([], [n_bags])
    if mode == 0 and padding_idx is None and weight.dtype != _C.dtype.float64:
        # torch's fast sum kernel (float, half, bfloat16) records no offset2bag
        return out, ints([], [0]), zeros, zeros.clone()
    offset2bag = [0] * len(ids)
    for b in range(n_bags):
        for j in range(starts[b], min(starts[b + 1], len(ids))):
            offset2bag[j] = b
    o2b = ints(offset2bag, [len(ids)])
    if mode == 0:
        return out, o2b, zeros, zeros.clone()
    sizes = ints([len(bag) for bag in bags], [n_bags])
    if mode == 1:
        return out, o2b, sizes, sizes.clone()
    best = []
    with no_grad():
        rows = weight.detach().index_select(0, indices.reshape([-1]).to(_C.dtype.int64))
        for bag in bags:
            if not bag:
                best += [0] * dim
                continue
            sel = rows.index_select(0, _tensor(bag, dtype=_C.dtype.int64)._to_device(dev))
            best += [ids[bag[int(k)]] for k in sel.argmax(0).tolist()]
    return out, o2b, sizes, ints(best, [n_bags, dim])


# ---- losses: reduction as an int ---------------------------------------------------------------------
# The schemas say ``int reduction=Mean``, but torch's Python binding reads that default as 0: called
# without a reduction, torch.kl_div, torch.ctc_loss, ... return the unreduced loss. So do these.

_REDUCTIONS = {0: "none", 1: "mean", 2: "sum"}


def _reduction(reduction: int) -> str:
    if reduction not in _REDUCTIONS:
        raise ValueError(f"{reduction} is not a valid value for reduction")
    return _REDUCTIONS[reduction]


def kl_div(input: Tensor, target: Tensor, reduction: int = 0, *, log_target: bool = False) -> Tensor:
    """ATen's kl_div: reduction 1 is the mean over every element (not 'batchmean'); no reduction by default."""
    return F.kl_div(input, target, reduction=_reduction(reduction), log_target=log_target)


def binary_cross_entropy_with_logits(input: Tensor, target: Tensor, weight: Tensor | None = None,
                                     pos_weight: Tensor | None = None, reduction: int = 0) -> Tensor:
    """BCE of sigmoid(input) against target (weight, pos_weight); reduction 0 none, 1 mean, 2 sum."""
    return F.binary_cross_entropy_with_logits(input, target, weight, reduction=_reduction(reduction),
                                              pos_weight=pos_weight)


def cosine_embedding_loss(input1: Tensor, input2: Tensor, target: Tensor, margin: float = 0.0,
                          reduction: int = 0) -> Tensor:
    """1 - cos(x1, x2) for target 1, max(0, cos - margin) for -1; int reduction."""
    return F.cosine_embedding_loss(input1, input2, target, margin, reduction=_reduction(reduction))


def hinge_embedding_loss(input: Tensor, target: Tensor, margin: float = 1.0, reduction: int = 0) -> Tensor:
    """x for target 1, max(0, margin - x) for -1; int reduction."""
    return F.hinge_embedding_loss(input, target, margin, reduction=_reduction(reduction))


def margin_ranking_loss(input1: Tensor, input2: Tensor, target: Tensor, margin: float = 0.0,
                        reduction: int = 0) -> Tensor:
    """max(0, -target * (x1 - x2) + margin); int reduction."""
    return F.margin_ranking_loss(input1, input2, target, margin, reduction=_reduction(reduction))


def triplet_margin_loss(anchor: Tensor, positive: Tensor, negative: Tensor, margin: float = 1.0, p: float = 2.0,
                        eps: float = 1e-6, swap: bool = False, reduction: int = 0) -> Tensor:
    """max(0, margin + d(a, p) - d(a, n)) with the p-norm distance; int reduction."""
    return F.triplet_margin_loss(anchor, positive, negative, margin, p, eps, swap, reduction=_reduction(reduction))


def poisson_nll_loss(input: Tensor, target: Tensor, log_input: bool, full: bool, eps: float,
                     reduction: int) -> Tensor:
    """Poisson negative log-likelihood (every argument required, as torch's top-level form); int reduction."""
    return F.poisson_nll_loss(input, target, log_input, full, eps=eps, reduction=_reduction(reduction))


def ctc_loss(log_probs: Tensor, targets: Tensor, input_lengths: Any, target_lengths: Any, blank: int = 0,
             reduction: int = 0, zero_infinity: bool = False) -> Tensor:
    """Connectionist Temporal Classification loss; int reduction (0 gives each sample's loss)."""
    return F.ctc_loss(log_probs, targets, input_lengths, target_lengths, blank, _reduction(reduction), zero_infinity)


# ---- activations, padding, sampling ---------------------------------------------------------------

def rrelu(input: Tensor, lower: float = 1.0 / 8, upper: float = 1.0 / 3, training: bool = False,
          generator: _C.Generator | None = None) -> Tensor:
    """Leaky ReLU with a slope drawn from U(lower, upper) in training, (lower + upper) / 2 otherwise."""
    if generator is not None:
        raise NotImplementedError("rrelu(): aakaar's rrelu draws from the default generator; generator= is "
                                  "not supported")
    return F.rrelu(input, lower, upper, training)


def rrelu_(input: Tensor, lower: float = 1.0 / 8, upper: float = 1.0 / 3, training: bool = False,
           generator: _C.Generator | None = None) -> Tensor:
    """In-place rrelu; returns input."""
    return input.copy_(rrelu(input, lower, upper, training, generator))


def constant_pad_nd(input: Tensor, pad: Sequence[int], value: float = 0) -> Tensor:
    """F.pad in constant mode (negative pads crop)."""
    return F.pad(input, list(pad), "constant", value)


_INTERPOLATION = {0: "bilinear", 1: "nearest", 2: "bicubic"}
_PADDING = {0: "zeros", 1: "border", 2: "reflection"}


def grid_sampler(input: Tensor, grid: Tensor, interpolation_mode: int, padding_mode: int,
                 align_corners: bool) -> Tensor:
    """F.grid_sample with its modes as ints: interpolation 0 bilinear, 1 nearest, 2 bicubic; padding
    0 zeros, 1 border, 2 reflection."""
    if interpolation_mode not in _INTERPOLATION:
        raise RuntimeError(f"grid_sampler(): expected interpolation_mode to be 0, 1 or 2, got {interpolation_mode}")
    if padding_mode not in _PADDING:
        raise RuntimeError(f"grid_sampler(): expected padding_mode to be 0, 1 or 2, got {padding_mode}")
    return F.grid_sample(input, grid, _INTERPOLATION[interpolation_mode], _PADDING[padding_mode], align_corners)


def grid_sampler_2d(input: Tensor, grid: Tensor, interpolation_mode: int, padding_mode: int,
                    align_corners: bool) -> Tensor:
    """grid_sampler for 4-d input (N, C, H, W)."""
    if input.ndim != 4:
        raise RuntimeError(f"grid_sampler(): expected 4D input and grid with same number of dimensions, but got "
                           f"input with sizes {list(input.shape)} and grid with sizes {list(grid.shape)}")
    return grid_sampler(input, grid, interpolation_mode, padding_mode, align_corners)


def grid_sampler_3d(input: Tensor, grid: Tensor, interpolation_mode: int, padding_mode: int,
                    align_corners: bool) -> Tensor:
    """grid_sampler for 5-d input (N, C, D, H, W)."""
    if input.ndim != 5:
        raise RuntimeError(f"grid_sampler(): expected 5D input and grid with same number of dimensions, but got "
                           f"input with sizes {list(input.shape)} and grid with sizes {list(grid.shape)}")
    return grid_sampler(input, grid, interpolation_mode, padding_mode, align_corners)


def affine_grid_generator(theta: Tensor, size: Sequence[int], align_corners: bool) -> Tensor:
    """The sampling grid of affine maps theta for an output of ``size`` (F.affine_grid)."""
    return F.affine_grid(theta, list(size), align_corners)


# ---- recurrent cells: nn's step functions ---------------------------------------------------------

def _cell_input(input: Tensor, hx: Tensor, w_ih: Tensor, w_hh: Tensor) -> None:
    """torch's checks (batched 2-d input only: dim 1 is read, so a 1-d input is an IndexError)."""
    if input.ndim < 2:
        raise IndexError(f"Dimension out of range (expected to be in range of [{-max(input.ndim, 1)}, "
                         f"{max(input.ndim, 1) - 1}], but got 1)")
    if input.shape[1] != w_ih.shape[1]:
        raise RuntimeError(f"input has inconsistent input_size: got {input.shape[1]} expected {w_ih.shape[1]}")
    if hx.ndim < 2 or hx.shape[0] != input.shape[0]:
        raise RuntimeError(f"Input batch size {input.shape[0]} doesn't match hidden0 batch size "
                           f"{hx.shape[0] if hx.ndim else 0}")
    if hx.shape[1] != w_hh.shape[1]:
        raise RuntimeError(f"hidden0 has inconsistent hidden_size: got {hx.shape[1]}, expected {w_hh.shape[1]}")


def lstm_cell(input: Tensor, hx: Sequence[Tensor], w_ih: Tensor, w_hh: Tensor, b_ih: Tensor | None = None,
              b_hh: Tensor | None = None) -> tuple[Tensor, Tensor]:
    """One LSTM step (gates i, f, g, o): returns (h', c')."""
    if len(hx) != 2:
        raise RuntimeError(f"lstm_cell: Expected hx to have 2 elements (h, c), got {len(hx)}")
    h, c = hx
    _cell_input(input, h, w_ih, w_hh)
    return _lstm_step(F.linear(input, w_ih, b_ih), h, c, w_hh, b_hh, None)


def gru_cell(input: Tensor, hx: Tensor, w_ih: Tensor, w_hh: Tensor, b_ih: Tensor | None = None,
             b_hh: Tensor | None = None) -> Tensor:
    """One GRU step (gates r, z, n)."""
    _cell_input(input, hx, w_ih, w_hh)
    return _rnn_step("GRU", F.linear(input, w_ih, b_ih), hx, w_hh, b_hh)


def rnn_tanh_cell(input: Tensor, hx: Tensor, w_ih: Tensor, w_hh: Tensor, b_ih: Tensor | None = None,
                  b_hh: Tensor | None = None) -> Tensor:
    """tanh(x W_ih^T + b_ih + h W_hh^T + b_hh)."""
    _cell_input(input, hx, w_ih, w_hh)
    return _rnn_step("RNN_TANH", F.linear(input, w_ih, b_ih), hx, w_hh, b_hh)


def rnn_relu_cell(input: Tensor, hx: Tensor, w_ih: Tensor, w_hh: Tensor, b_ih: Tensor | None = None,
                  b_hh: Tensor | None = None) -> Tensor:
    """relu(x W_ih^T + b_ih + h W_hh^T + b_hh)."""
    _cell_input(input, hx, w_ih, w_hh)
    return _rnn_step("RNN_RELU", F.linear(input, w_ih, b_ih), hx, w_hh, b_hh)


# ---- whole-sequence recurrent functions: nn's RNNBase._run on a flat parameter list -----------------------

class _FlatRNN:
    """What RNNBase._run reads from its module (mode, layers, directions, dropout, training and each
    layer's weights), taken from torch's flat ``params`` list: per layer and direction w_ih, w_hh,
    then b_ih, b_hh with has_biases, then LSTM's w_hr when the list has room for it."""

    def __init__(self, mode: str, params: Sequence[Tensor], has_biases: bool, num_layers: int, dropout: float,
                 train: bool, bidirectional: bool) -> None:
        self.mode, self.num_layers, self.dropout, self.training = mode, num_layers, dropout, train
        self.bidirectional = bidirectional
        groups = num_layers * (2 if bidirectional else 1)
        per = 4 if has_biases else 2
        if len(params) == groups * (per + 1) and mode == "LSTM":
            per += 1
        elif len(params) != groups * per:
            raise RuntimeError(f"got an incorrect number of RNN parameters: expected {groups * per} for "
                               f"{num_layers} layer(s){' x 2 directions' if bidirectional else ''} "
                               f"(has_biases={has_biases}), got {len(params)}")
        self._groups = [list(params[i * per:(i + 1) * per]) for i in range(groups)]
        self._has_biases, self._proj = has_biases, per in (3, 5)

    def _layer_params(self, layer: int, direction: int) -> tuple:
        g = self._groups[layer * (2 if self.bidirectional else 1) + direction]
        b_ih, b_hh = (g[2], g[3]) if self._has_biases else (None, None)
        return g[0], g[1], b_ih, b_hh, (g[-1] if self._proj else None)


def _run_sequence(mode: str, input: Tensor, h0: Tensor, c0: Tensor | None, params: Sequence[Tensor],
                  has_biases: bool, num_layers: int, dropout: float, train: bool, bidirectional: bool,
                  batch_first: bool) -> tuple[Tensor, Tensor, Tensor | None]:
    from .nn.rnn import RNNBase

    if not isinstance(input, Tensor) or not isinstance(h0, Tensor):
        raise NotImplementedError(f"{mode.lower()}: the packed form (data, batch_sizes, ...) is not supported; "
                                  "use nn.utils.rnn.PackedSequence with the nn module")
    if input.ndim != 3:  # torch indexes past the last dim of a smaller input (an IndexError)
        exc = IndexError if input.ndim < 3 else RuntimeError
        raise exc(f"{mode.lower()}: Expected input to be 3-D (sequence, batch, feature), got {input.ndim}-D")
    x = input.transpose(0, 1) if batch_first else input
    flat = _FlatRNN(mode, params, has_biases, num_layers, dropout, train, bidirectional)
    out, h_n, c_n = RNNBase._run(flat, x, h0, c0)  # type: ignore[arg-type]
    return (out.transpose(0, 1) if batch_first else out), h_n, c_n


def lstm(input: Tensor, hx: Sequence[Tensor], params: Sequence[Tensor], has_biases: bool, num_layers: int,
         dropout: float, train: bool, bidirectional: bool, batch_first: bool) -> tuple[Tensor, Tensor, Tensor]:
    """torch.lstm: (output, h_n, c_n) of a multi-layer LSTM with hx = [h_0, c_0] and torch's flat params."""
    if len(hx) != 2:
        raise RuntimeError(f"lstm expects two hidden states, got {len(hx)}")
    return _run_sequence("LSTM", input, hx[0], hx[1], params, has_biases, num_layers, dropout, train,
                         bidirectional, batch_first)


def _single_state(mode: str) -> Any:
    def fn(input: Tensor, hx: Tensor, params: Sequence[Tensor], has_biases: bool, num_layers: int, dropout: float,
           train: bool, bidirectional: bool, batch_first: bool) -> tuple[Tensor, Tensor]:
        out, h_n, _ = _run_sequence(mode, input, hx, None, params, has_biases, num_layers, dropout, train,
                                    bidirectional, batch_first)
        return out, h_n
    name = {"GRU": "gru", "RNN_TANH": "rnn_tanh", "RNN_RELU": "rnn_relu"}[mode]
    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = f"torch.{name}: (output, h_n) of a multi-layer {mode} with torch's flat params list."
    return fn


gru = _single_state("GRU")
rnn_tanh = _single_state("RNN_TANH")
rnn_relu = _single_state("RNN_RELU")
__all__ += ["lstm", "gru", "rnn_tanh", "rnn_relu"]
