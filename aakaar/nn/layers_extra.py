"""More of ``torch.nn``'s layers: ``Softplus``, ``GroupNorm``, ``InstanceNorm1d``/``2d``/``3d``,
``RMSNorm``, ``LocalResponseNorm``, ``Unflatten``, ``Unfold``, ``Fold``, ``PixelShuffle``,
``PixelUnshuffle``, ``ChannelShuffle``, ``CosineSimilarity``, ``PairwiseDistance``, ``Bilinear``,
``EmbeddingBag``, ``AlphaDropout``, ``FeatureAlphaDropout``, ``RReLU``, ``Softmax2d``,
``LPPool1d``/``2d``.

PyTorch's constructor arguments, parameter names and initialisation (so a torch ``state_dict``
loads), and ``extra_repr``; each forward is one call of :mod:`aakaar.nn.functional`.
"""

from __future__ import annotations

import math
from typing import Sequence

from .. import _C
from .._C import Tensor
from ..autograd import no_grad
from . import functional as F
from . import init
from .layers import Dropout, _BatchNorm, _dtype, _positive
from .layers_conv import AdaptiveAvgPool2d, AdaptiveMaxPool2d, AvgPool2d, MaxPool2d, _MaxUnpoolNd
from .module import Module
from .parameter import Parameter

__all__ = [
    "Softplus", "GroupNorm", "InstanceNorm1d", "InstanceNorm2d", "InstanceNorm3d", "RMSNorm", "LocalResponseNorm",
    "Unflatten", "Unfold", "Fold", "PixelShuffle", "PixelUnshuffle", "ChannelShuffle", "CosineSimilarity",
    "PairwiseDistance", "Bilinear", "EmbeddingBag", "AlphaDropout", "FeatureAlphaDropout", "RReLU", "Softmax2d",
    "LPPool1d", "LPPool2d", "MaxPool3d", "AvgPool3d", "AdaptiveAvgPool3d", "AdaptiveMaxPool3d", "LPPool3d",
    "MaxUnpool3d",
]


class Softplus(Module):
    """``log(1 + exp(beta * x)) / beta`` (linear where ``beta * x > threshold``)."""

    def __init__(self, beta: float = 1.0, threshold: float = 20.0) -> None:
        super().__init__()
        self.beta, self.threshold = beta, threshold

    def forward(self, input: Tensor) -> Tensor:
        return F.softplus(input, self.beta, self.threshold)

    def extra_repr(self) -> str:
        return f"beta={self.beta}, threshold={self.threshold}"


class GroupNorm(Module):
    """Normalises groups of channels of (N, C, *) inputs; per-channel weight (ones) and bias (zeros)."""

    def __init__(self, num_groups: int, num_channels: int, eps: float = 1e-5, affine: bool = True,
                 bias: bool = True, device: object = None, dtype: _C.dtype | None = None) -> None:
        super().__init__()
        if num_channels % num_groups != 0:
            raise ValueError("num_channels must be divisible by num_groups")
        self.num_groups, self.num_channels, self.eps, self.affine = num_groups, num_channels, eps, affine
        dt = _dtype(dtype)
        if affine:
            self.weight = Parameter(_C.ones(num_channels, dtype=dt))
            if bias:
                self.bias = Parameter(_C.zeros(num_channels, dtype=dt))
            else:
                self.register_parameter("bias", None)
        else:
            self.register_parameter("weight", None)
            self.register_parameter("bias", None)

    def reset_parameters(self) -> None:
        if self.affine:
            init.ones_(self.weight)
            if self.bias is not None:
                init.zeros_(self.bias)

    def forward(self, input: Tensor) -> Tensor:
        return F.group_norm(input, self.num_groups, self.weight, self.bias, self.eps)

    def extra_repr(self) -> str:
        return (f"{self.num_groups}, {self.num_channels}, eps={self.eps}, affine={self.affine}, "
                f"bias={self.bias is not None}")


class _InstanceNorm(_BatchNorm):
    """Per-sample, per-channel normalisation over the spatial dims; PyTorch's defaults (no affine,
    no running statistics) and buffers when ``track_running_stats=True``."""

    _n = 1

    def __init__(self, num_features: int, eps: float = 1e-5, momentum: float | None = 0.1, affine: bool = False,
                 track_running_stats: bool = False, device: object = None, dtype: _C.dtype | None = None, *,
                 bias: bool = True) -> None:
        super().__init__(num_features, eps, momentum, affine, track_running_stats, dtype, bias=bias)

    def forward(self, input: Tensor) -> Tensor:
        if input.ndim not in (self._n + 1, self._n + 2):
            raise ValueError(f"expected {self._n + 1}D or {self._n + 2}D input (got {input.ndim}D input)")
        unbatched = input.ndim == self._n + 1
        channels = input.shape[0 if unbatched else 1]
        if channels != self.num_features:
            if self.affine:
                raise ValueError(f"expected input's size at dim={0 if unbatched else 1} to match num_features "
                                 f"({self.num_features}), but got: {channels}.")
            import warnings

            warnings.warn(f"input's size at dim={0 if unbatched else 1} does not match num_features. You can "
                          "silence this warning by not passing in num_features, which is not used because "
                          "affine=False", stacklevel=2)
        x = input.unsqueeze(0) if unbatched else input
        out = F.instance_norm(x, self.running_mean, self.running_var, self.weight, self.bias,
                              self.training or not self.track_running_stats,
                              self.momentum if self.momentum is not None else 0.0, self.eps)
        return out.squeeze(0) if unbatched else out



class InstanceNorm1d(_InstanceNorm):
    """Instance normalisation of (N, C, L) or (C, L)."""

    _n = 1


class InstanceNorm2d(_InstanceNorm):
    """Instance normalisation of (N, C, H, W) or (C, H, W)."""

    _n = 2


class InstanceNorm3d(_InstanceNorm):
    """Instance normalisation of (N, C, D, H, W) or (C, D, H, W)."""

    _n = 3


class RMSNorm(Module):
    """``x / rms(x) * weight`` over the last dims given by ``normalized_shape``; weight starts at ones."""

    def __init__(self, normalized_shape: int | Sequence[int], eps: float | None = None,
                 elementwise_affine: bool = True, device: object = None, dtype: _C.dtype | None = None) -> None:
        super().__init__()
        shape = (normalized_shape,) if isinstance(normalized_shape, int) else tuple(normalized_shape)
        self.normalized_shape, self.eps, self.elementwise_affine = shape, eps, elementwise_affine
        if elementwise_affine:
            self.weight = Parameter(_C.ones(*shape, dtype=_dtype(dtype)))
        else:
            self.register_parameter("weight", None)

    def reset_parameters(self) -> None:
        if self.elementwise_affine:
            init.ones_(self.weight)

    def forward(self, x: Tensor) -> Tensor:
        return F.rms_norm(x, self.normalized_shape, self.weight, self.eps)

    def extra_repr(self) -> str:
        return f"{self.normalized_shape}, eps={self.eps}, elementwise_affine={self.elementwise_affine}"


class LocalResponseNorm(Module):
    def __init__(self, size: int, alpha: float = 1e-4, beta: float = 0.75, k: float = 1.0) -> None:
        super().__init__()
        self.size, self.alpha, self.beta, self.k = size, alpha, beta, k

    def forward(self, input: Tensor) -> Tensor:
        return F.local_response_norm(input, self.size, self.alpha, self.beta, self.k)

    def extra_repr(self) -> str:
        return f"{self.size}, alpha={self.alpha}, beta={self.beta}, k={self.k}"


class Unflatten(Module):
    """Splits dim ``dim`` into ``unflattened_size`` (the inverse of ``Flatten``)."""

    def __init__(self, dim: int | str, unflattened_size: Sequence[int]) -> None:
        super().__init__()
        if isinstance(dim, int):
            if not isinstance(unflattened_size, (tuple, list)) or not all(
                    isinstance(s, int) and not isinstance(s, bool) for s in unflattened_size):
                raise TypeError("unflattened_size must be tuple of ints, but found type "
                                f"{type(unflattened_size).__name__}")
        elif isinstance(dim, str):
            raise NotImplementedError("Unflatten: named dimensions are not supported")
        else:
            raise TypeError("invalid argument type for dim parameter")
        self.dim, self.unflattened_size = dim, unflattened_size

    def forward(self, input: Tensor) -> Tensor:
        return input.unflatten(self.dim, list(self.unflattened_size))

    def extra_repr(self) -> str:
        return f"dim={self.dim}, unflattened_size={self.unflattened_size}"


class Unfold(Module):
    """Extracts sliding blocks (``F.unfold``)."""

    def __init__(self, kernel_size, dilation=1, padding=0, stride=1) -> None:
        super().__init__()
        self.kernel_size, self.dilation, self.padding, self.stride = kernel_size, dilation, padding, stride

    def forward(self, input: Tensor) -> Tensor:
        return F.unfold(input, self.kernel_size, self.dilation, self.padding, self.stride)

    def extra_repr(self) -> str:
        return (f"kernel_size={self.kernel_size}, dilation={self.dilation}, padding={self.padding}, "
                f"stride={self.stride}")


class Fold(Module):
    """Sums sliding blocks back into an image (``F.fold``)."""

    def __init__(self, output_size, kernel_size, dilation=1, padding=0, stride=1) -> None:
        super().__init__()
        self.output_size = output_size
        self.kernel_size, self.dilation, self.padding, self.stride = kernel_size, dilation, padding, stride

    def forward(self, input: Tensor) -> Tensor:
        return F.fold(input, self.output_size, self.kernel_size, self.dilation, self.padding, self.stride)

    def extra_repr(self) -> str:
        return (f"output_size={self.output_size}, kernel_size={self.kernel_size}, dilation={self.dilation}, "
                f"padding={self.padding}, stride={self.stride}")


class PixelShuffle(Module):
    def __init__(self, upscale_factor: int) -> None:
        super().__init__()
        self.upscale_factor = upscale_factor

    def forward(self, input: Tensor) -> Tensor:
        return F.pixel_shuffle(input, self.upscale_factor)

    def extra_repr(self) -> str:
        return f"upscale_factor={self.upscale_factor}"


class PixelUnshuffle(Module):
    def __init__(self, downscale_factor: int) -> None:
        super().__init__()
        self.downscale_factor = downscale_factor

    def forward(self, input: Tensor) -> Tensor:
        return F.pixel_unshuffle(input, self.downscale_factor)

    def extra_repr(self) -> str:
        return f"downscale_factor={self.downscale_factor}"


class ChannelShuffle(Module):
    def __init__(self, groups: int) -> None:
        super().__init__()
        self.groups = groups

    def forward(self, input: Tensor) -> Tensor:
        return F.channel_shuffle(input, self.groups)

    def extra_repr(self) -> str:
        return f"groups={self.groups}"


class CosineSimilarity(Module):
    def __init__(self, dim: int = 1, eps: float = 1e-8) -> None:
        super().__init__()
        self.dim, self.eps = dim, eps

    def forward(self, x1: Tensor, x2: Tensor) -> Tensor:
        return F.cosine_similarity(x1, x2, self.dim, self.eps)


class PairwiseDistance(Module):
    def __init__(self, p: float = 2.0, eps: float = 1e-6, keepdim: bool = False) -> None:
        super().__init__()
        self.norm, self.eps, self.keepdim = p, eps, keepdim

    def forward(self, x1: Tensor, x2: Tensor) -> Tensor:
        return F.pairwise_distance(x1, x2, self.norm, self.eps, self.keepdim)


class Bilinear(Module):
    """``y = x1^T A x2 + b``: weight (out, in1, in2) and bias U(±1/sqrt(in1)), as PyTorch."""

    def __init__(self, in1_features: int, in2_features: int, out_features: int, bias: bool = True,
                 device: object = None, dtype: _C.dtype | None = None) -> None:
        super().__init__()
        self.in1_features = _positive(in1_features, "in1_features", "Bilinear")
        self.in2_features = _positive(in2_features, "in2_features", "Bilinear")
        self.out_features = _positive(out_features, "out_features", "Bilinear")
        dt = _dtype(dtype)
        self.weight = Parameter(_C.empty(out_features, in1_features, in2_features, dtype=dt))
        if bias:
            self.bias = Parameter(_C.empty(out_features, dtype=dt))
        else:
            self.register_parameter("bias", None)
        self.reset_parameters()

    def reset_parameters(self) -> None:
        bound = 1 / math.sqrt(self.weight.shape[1])
        init.uniform_(self.weight, -bound, bound)
        if self.bias is not None:
            init.uniform_(self.bias, -bound, bound)

    def forward(self, input1: Tensor, input2: Tensor) -> Tensor:
        return F.bilinear(input1, input2, self.weight, self.bias)

    def extra_repr(self) -> str:
        return (f"in1_features={self.in1_features}, in2_features={self.in2_features}, "
                f"out_features={self.out_features}, bias={self.bias is not None}")


class EmbeddingBag(Module):
    """Sums, means or maxima of bags of embeddings (``F.embedding_bag``); weight N(0, 1)."""

    def __init__(self, num_embeddings: int, embedding_dim: int, max_norm: float | None = None,
                 norm_type: float = 2.0, scale_grad_by_freq: bool = False, mode: str = "mean", sparse: bool = False,
                 _weight: Tensor | None = None, include_last_offset: bool = False, padding_idx: int | None = None,
                 device: object = None, dtype: _C.dtype | None = None) -> None:
        super().__init__()
        self.num_embeddings, self.embedding_dim = num_embeddings, embedding_dim
        self.max_norm, self.norm_type, self.scale_grad_by_freq = max_norm, norm_type, scale_grad_by_freq
        if padding_idx is not None:
            if not -num_embeddings <= padding_idx < num_embeddings:
                raise AssertionError("padding_idx must be within num_embeddings")
            padding_idx %= num_embeddings
        self.padding_idx = padding_idx
        if _weight is None:
            self.weight = Parameter(_C.empty(num_embeddings, embedding_dim, dtype=_dtype(dtype)))
            self.reset_parameters()
        else:
            if list(_weight.shape) != [num_embeddings, embedding_dim]:
                raise AssertionError("Shape of weight does not match num_embeddings and embedding_dim")
            self.weight = Parameter(_weight)
        self.mode, self.sparse, self.include_last_offset = mode, sparse, include_last_offset

    def reset_parameters(self) -> None:
        init.normal_(self.weight)
        if self.padding_idx is not None:
            with no_grad():
                self.weight[self.padding_idx].fill_(0)

    def forward(self, input: Tensor, offsets: Tensor | None = None,
                per_sample_weights: Tensor | None = None) -> Tensor:
        return F.embedding_bag(input, self.weight, offsets, self.max_norm, self.norm_type, self.scale_grad_by_freq,
                               self.mode, self.sparse, per_sample_weights, self.include_last_offset,
                               self.padding_idx)

    def extra_repr(self) -> str:
        s = f"{self.num_embeddings}, {self.embedding_dim}, mode='{self.mode}'"
        return s + (f", padding_idx={self.padding_idx}" if self.padding_idx is not None else "")


class AlphaDropout(Dropout):
    """Alpha dropout (for SELU networks) in training mode; the identity in eval mode."""

    def forward(self, input: Tensor) -> Tensor:
        return F.alpha_dropout(input, self.p, self.training)


class FeatureAlphaDropout(AlphaDropout):
    def forward(self, input: Tensor) -> Tensor:
        return F.feature_alpha_dropout(input, self.p, self.training)


class RReLU(Module):
    def __init__(self, lower: float = 1.0 / 8, upper: float = 1.0 / 3, inplace: bool = False) -> None:
        super().__init__()
        self.lower, self.upper, self.inplace = lower, upper, inplace

    def forward(self, input: Tensor) -> Tensor:
        return F.rrelu(input, self.lower, self.upper, self.training, self.inplace)

    def extra_repr(self) -> str:
        return f"lower={self.lower}, upper={self.upper}" + (", inplace=True" if self.inplace else "")


class Softmax2d(Module):
    """Softmax over the channels of (N, C, H, W) or (C, H, W)."""

    def forward(self, input: Tensor) -> Tensor:
        if input.ndim not in (3, 4):
            raise ValueError(f"Softmax2d: expected input to be 3D or 4D, got {input.ndim}D instead")
        return F.softmax(input, -3)


class _LPPool(Module):
    def __init__(self, norm_type: float, kernel_size, stride=None, ceil_mode: bool = False) -> None:
        super().__init__()
        self.norm_type, self.kernel_size, self.stride, self.ceil_mode = norm_type, kernel_size, stride, ceil_mode

    def extra_repr(self) -> str:
        return (f"norm_type={self.norm_type}, kernel_size={self.kernel_size}, stride={self.stride}, "
                f"ceil_mode={self.ceil_mode}")


class LPPool1d(_LPPool):
    def forward(self, input: Tensor) -> Tensor:
        return F.lp_pool1d(input, float(self.norm_type), self.kernel_size, self.stride, self.ceil_mode)


class LPPool2d(_LPPool):
    def forward(self, input: Tensor) -> Tensor:
        return F.lp_pool2d(input, float(self.norm_type), self.kernel_size, self.stride, self.ceil_mode)


class LPPool3d(_LPPool):
    def forward(self, input: Tensor) -> Tensor:
        return F.lp_pool3d(input, float(self.norm_type), self.kernel_size, self.stride, self.ceil_mode)


class MaxPool3d(MaxPool2d):
    """The largest value of each window of (N, C, D, H, W) (``F.max_pool3d``)."""

    def forward(self, input: Tensor) -> Tensor | tuple[Tensor, Tensor]:
        return F.max_pool3d(input, self.kernel_size, self.stride, self.padding, self.dilation,
                            ceil_mode=self.ceil_mode, return_indices=self.return_indices)


class AvgPool3d(AvgPool2d):
    """The mean of each window of (N, C, D, H, W) (``F.avg_pool3d``)."""

    def forward(self, input: Tensor) -> Tensor:
        return F.avg_pool3d(input, self.kernel_size, self.stride, self.padding, self.ceil_mode,
                            self.count_include_pad, self.divisor_override)


class AdaptiveAvgPool3d(AdaptiveAvgPool2d):
    def forward(self, input: Tensor) -> Tensor:
        return F.adaptive_avg_pool3d(input, self.output_size)


class AdaptiveMaxPool3d(AdaptiveMaxPool2d):
    def forward(self, input: Tensor) -> Tensor | tuple[Tensor, Tensor]:
        return F.adaptive_max_pool3d(input, self.output_size, self.return_indices)


class MaxUnpool3d(_MaxUnpoolNd):
    """The partial inverse of MaxPool3d (``F.max_unpool3d``)."""

    _n = 3

    def forward(self, input: Tensor, indices: Tensor, output_size: Sequence[int] | None = None) -> Tensor:
        return F.max_unpool3d(input, indices, self.kernel_size, self.stride, self.padding, output_size)

