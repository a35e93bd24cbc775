"""Stateless layer functions: ``F.linear(x, w, b)`` is what ``nn.Linear`` calls.

Two functions are single fused ops of the compiled core, each with one
autograd node: ``linear`` (the GEMM with its bias and activation) and
``cross_entropy`` (softmax, the pick of the target and the reduction in one
op). Both are entries of the backend table (``csrc/core/backend.h``); on a
device without them the core composes ordinary ops. Every other function here
composes tensor ops, so the C++ autograd engine differentiates it with no extra
code. Where a naive composition would misbehave (an overflowing branch of
``where``, a gradient flowing into a padding row) the comment says how it is
avoided.

The losses are in ``functional_losses.py`` (re-exported here), the modules
that wrap them in ``loss.py``.
"""

from __future__ import annotations

import warnings
from typing import Any, Sequence

from .. import _C
from .._C import Tensor
from ..autograd import no_grad

__all__ = [
    "linear", "linear_relu", "relu", "leaky_relu", "elu", "gelu", "silu", "softplus", "sigmoid", "tanh", "softmax",
    "log_softmax", "dropout", "dropout1d", "dropout2d", "dropout3d", "layer_norm", "batch_norm", "embedding",
    "cross_entropy", "nll_loss", "mse_loss",
]


def _check_tensor(x: object, fn: str, name: str = "input") -> None:
    if not isinstance(x, Tensor):
        raise TypeError(f"{fn}(): {name} must be an aakaar.Tensor, got {type(x).__name__}")


def linear(input: Tensor, weight: Tensor, bias: Tensor | None = None, activation: str = "none") -> Tensor:
    """``act(input @ weight.T + bias)`` with weight of shape (out_features, in_features).

    One fused op of the core (``_C.linear``): a single GEMM call adds the bias
    and applies the activation (``"none"`` or ``"relu"``) to each tile of the
    output while it is in cache, reading ``weight.T`` through its strides, and
    one autograd node holds the whole backward. ``nn.Sequential`` uses
    ``activation="relu"`` for a ``Linear`` followed by a ``ReLU``.
    """
    _check_tensor(input, "linear")
    _check_tensor(weight, "linear", "weight")
    # Shape errors are ArgumentErrors: ValueErrors that are also the RuntimeError torch raises.
    if weight.ndim != 2:
        raise _C.ArgumentError(f"linear(): weight must be 2-d (out_features, in_features), got shape {tuple(weight.shape)}")
    if input.ndim == 0 or input.shape[-1] != weight.shape[1]:
        raise _C.ArgumentError(
            f"linear(): input shape {tuple(input.shape)} does not end in in_features={weight.shape[1]} "
            f"(weight shape {tuple(weight.shape)})"
        )
    if isinstance(bias, Tensor) and bias.ndim == 0:
        # A 0-d bias (torch accepts one too) has no fused form: add it after the product.
        if activation not in ("none", "relu"):
            raise ValueError(f"linear(): activation must be 'none' or 'relu', got {activation!r}")
        out = _C.linear(input, weight, None) + bias
        return relu(out) if activation == "relu" else out
    return _C.linear(input, weight, bias, activation=activation)


def linear_relu(input: Tensor, weight: Tensor, bias: Tensor | None = None) -> Tensor:
    """``relu(linear(input, weight, bias))`` as one fused op."""
    return linear(input, weight, bias, activation="relu")


def _into(input: Tensor, result: Tensor, inplace: bool) -> Tensor:
    """``result``, or (``inplace=True``) ``input`` overwritten with it, as PyTorch's ``inplace=``."""
    return input.copy_(result) if inplace else result


def relu(input: Tensor, inplace: bool = False) -> Tensor:
    """max(x, 0)."""
    return input.relu_() if inplace else input.relu()


def leaky_relu(input: Tensor, negative_slope: float = 0.01, inplace: bool = False) -> Tensor:
    """x for x > 0, else ``negative_slope * x`` (the gradient at 0 is the slope, as in PyTorch)."""
    return _into(input, _C.where(input > 0, input, input * negative_slope), inplace)


def elu(input: Tensor, alpha: float = 1.0, inplace: bool = False) -> Tensor:
    """x for x > 0, else ``alpha * (exp(x) - 1)``."""
    # expm1 sees only the non-positive part: for large x, exp(x) would be inf in the branch
    # `where` discards, and its backward would turn 0 * inf into NaN.
    return _into(input, _C.where(input > 0, input, input.clamp(max=0.0).expm1() * alpha), inplace)


def gelu(input: Tensor, approximate: str = "none") -> Tensor:
    """x * Phi(x) (``approximate='tanh'`` for the tanh formula)."""
    return input.gelu(approximate)


def silu(input: Tensor, inplace: bool = False) -> Tensor:
    """x * sigmoid(x)."""
    return input.silu_() if inplace else input.silu()


def softplus(input: Tensor, beta: float = 1.0, threshold: float = 20.0) -> Tensor:
    """``log(1 + exp(beta * x)) / beta``; ``x`` itself where ``beta * x > threshold``."""
    return input.softplus(beta, threshold)


def sigmoid(input: Tensor) -> Tensor:
    return input.sigmoid()


def tanh(input: Tensor) -> Tensor:
    return input.tanh()


def _softmax_input(input: Tensor, dim: int | None, dtype: _C.dtype | None, name: str) -> tuple[Tensor, int]:
    """PyTorch's optional arguments of softmax/log_softmax: ``dtype`` casts the input first, and a
    missing ``dim`` is the legacy implicit choice (with its warning)."""
    from .functional_activations import _softmax_dim

    if dim is None:
        dim = _softmax_dim(name, input.ndim)
    return (input.to(dtype) if dtype is not None else input), dim


def softmax(input: Tensor, dim: int | None = None, _stacklevel: int = 3, dtype: _C.dtype | None = None) -> Tensor:
    input, dim = _softmax_input(input, dim, dtype, "softmax")
    return input.softmax(dim)


def log_softmax(input: Tensor, dim: int | None = None, _stacklevel: int = 3, dtype: _C.dtype | None = None) -> Tensor:
    input, dim = _softmax_input(input, dim, dtype, "log_softmax")
    return input.log_softmax(dim)


def dropout(input: Tensor, p: float = 0.5, training: bool = True, inplace: bool = False, *,
            generator: _C.Generator | None = None) -> Tensor:
    """Zeroes each element with probability ``p`` and scales the rest by 1/(1-p) (inverted dropout),
    so evaluation needs no rescaling. ``generator`` (keyword only: PyTorch's fourth argument is
    ``inplace``) draws the mask from a given random stream."""
    if not 0.0 <= p <= 1.0:
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")
    if not training or p == 0.0:
        return input
    if p == 1.0:
        return _into(input, input * 0.0, inplace)
    keep = _C.full(tuple(input.shape), 1.0 - p, dtype=input.dtype)
    mask = _C.bernoulli(keep, generator=generator) if generator is not None else _C.bernoulli(keep)
    return _into(input, input * (mask * (1.0 / (1.0 - p))), inplace)


def _feature_dropout(input: Tensor, p: float, training: bool, n: int, fn: str) -> Tensor:
    """Zeroes whole channels (each (*spatial) map of an (N, C, *spatial) or (C, *spatial) input)
    with probability ``p``, scaling the rest by 1/(1-p): one mask value per channel.

    PyTorch's rank rules: dropout1d refuses other ranks; dropout2d and dropout3d warn and treat
    dims 0 and 1 as batch and channel, and dropout2d reads a 3-d input as (N, C, L) (its
    historical behaviour, with a warning), not as an unbatched (C, H, W).
    """
    _check_tensor(input, fn)
    if not 0.0 <= p <= 1.0:
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")
    lead = 2
    if input.ndim not in (n + 1, n + 2):
        if n == 1:
            raise _C.ArgumentError(
                f"dropout1d: Expected 2D or 3D input, but received a {input.ndim}D input. Note that dropout1d exists "
                "to provide channel-wise dropout on inputs with 1 spatial dimension, a channel dimension, and an "
                "optional batch dimension (i.e. 2D or 3D inputs)."
            )
        warnings.warn(f"{fn}: Received a {input.ndim}-D input to {fn}, which is deprecated; its dims 0 and 1 are "
                      "read as batch and channel", stacklevel=3)
    elif input.ndim == n + 1:
        if n == 2:
            warnings.warn("dropout2d: Received a 3D input to dropout2d and assuming that channel-wise 1D dropout "
                          "behavior is desired - input is interpreted as shape (N, C, L), where C is the channel dim.",
                          stacklevel=3)
        else:
            lead = 1  # unbatched (C, *spatial)
    if not training or p == 0.0:
        return input
    if p == 1.0:
        return input * 0.0
    lead = min(lead, input.ndim)
    mask_shape = tuple(input.shape[:lead]) + (1,) * (input.ndim - lead)
    keep = _C.full(mask_shape, 1.0 - p, dtype=input.dtype, device=input.device)
    return input * (_C.bernoulli(keep) * (1.0 / (1.0 - p)))


def dropout1d(input: Tensor, p: float = 0.5, training: bool = True, inplace: bool = False) -> Tensor:
    """Channel dropout of (N, C, L) or (C, L)."""
    return _feature_dropout(input, p, training, 1, "dropout1d")


def dropout2d(input: Tensor, p: float = 0.5, training: bool = True, inplace: bool = False) -> Tensor:
    """Channel dropout of (N, C, H, W) (a 3-d input is read as (N, C, L), as PyTorch does)."""
    return _feature_dropout(input, p, training, 2, "dropout2d")


def dropout3d(input: Tensor, p: float = 0.5, training: bool = True, inplace: bool = False) -> Tensor:
    """Channel dropout of (N, C, D, H, W) or (C, D, H, W)."""
    return _feature_dropout(input, p, training, 3, "dropout3d")


def _normalized_dims(input: Tensor, normalized_shape: Sequence[int]) -> list[int]:
    n = len(normalized_shape)
    if n == 0 or input.ndim < n or tuple(input.shape[input.ndim - n:]) != tuple(normalized_shape):
        raise ValueError(
            f"layer_norm(): input shape {tuple(input.shape)} does not end in normalized_shape {tuple(normalized_shape)}"
        )
    return list(range(input.ndim - n, input.ndim))


def layer_norm(
    input: Tensor,
    normalized_shape: Sequence[int],
    weight: Tensor | None = None,
    bias: Tensor | None = None,
    eps: float = 1e-5,
) -> Tensor:
    """Normalises over the last ``len(normalized_shape)`` dims with the biased variance."""
    _check_tensor(input, "layer_norm")
    if isinstance(normalized_shape, int):
        normalized_shape = (normalized_shape,)
    dims = _normalized_dims(input, normalized_shape)
    mean = input.mean(dims, keepdim=True)
    centered = input - mean
    var = (centered * centered).mean(dims, keepdim=True)
    out = centered * (var + eps).rsqrt()
    if weight is not None:
        out = out * weight
    if bias is not None:
        out = out + bias
    return out


def batch_norm(
    input: Tensor,
    running_mean: Tensor | None,
    running_var: Tensor | None,
    weight: Tensor | None = None,
    bias: Tensor | None = None,
    training: bool = False,
    momentum: float = 0.1,
    eps: float = 1e-5,
) -> Tensor:
    """Normalises each channel (dim 1) of an (N, C, *) input: (N, C), (N, C, L), (N, C, H, W), ...

    In training the batch statistics are used and, when running buffers are
    given, they are updated in place: ``running = (1 - momentum) * running +
    momentum * batch_stat`` with the *unbiased* batch variance (as PyTorch).
    In evaluation the running statistics are used.
    """
    _check_tensor(input, "batch_norm")
    if not eps >= 0:  # also refuses NaN; a negative eps can make var + eps negative (a NaN output)
        raise ValueError(f"batch_norm(): eps must be non-negative, got {eps}")
    if input.ndim < 2:
        raise ValueError(f"batch_norm(): expected an input of 2 or more dims (N, C, *), got shape {tuple(input.shape)}")
    channels = input.shape[1]
    stat_shape = (1, channels) + (1,) * (input.ndim - 2)
    dims = [0] + list(range(2, input.ndim))
    if training:
        count = input.numel() // channels
        if count <= 1:
            raise ValueError(
                f"batch_norm(): expected more than 1 value per channel when training, got input shape {tuple(input.shape)}"
            )
        mean = input.mean(dims, keepdim=True)
        centered = input - mean
        var = (centered * centered).mean(dims, keepdim=True)
        if running_mean is not None and running_var is not None:
            with no_grad():
                unbiased = var.detach().reshape(channels) * (count / (count - 1))
                running_mean.mul_(1.0 - momentum).add_(mean.detach().reshape(channels) * momentum)
                running_var.mul_(1.0 - momentum).add_(unbiased * momentum)
    else:
        if running_mean is None or running_var is None:
            raise ValueError("batch_norm(): running_mean and running_var are needed when training=False")
        mean = running_mean.reshape(stat_shape)
        var = running_var.reshape(stat_shape)
        centered = input - mean
    out = centered * (var + eps).rsqrt()
    if weight is not None:
        out = out * weight.reshape(stat_shape)
    if bias is not None:
        out = out + bias.reshape(stat_shape)
    return out


def embedding(input: Tensor, weight: Tensor, padding_idx: int | None = None, max_norm: float | None = None,
              norm_type: float = 2.0, scale_grad_by_freq: bool = False, sparse: bool = False) -> Tensor:
    """Rows of ``weight`` picked by the int64 indices in ``input``: output shape ``input.shape + (dim,)``.

    The backward is index_select's: a scatter-add of the output gradient into
    the used rows. Positions equal to ``padding_idx`` get the row's value but
    send it no gradient. ``max_norm``: the rows used are first rescaled in place to a
    ``norm_type`` norm of at most ``max_norm`` (PyTorch's embedding_renorm_).
    """
    _check_tensor(input, "embedding")
    if scale_grad_by_freq or sparse:
        raise NotImplementedError("embedding(): scale_grad_by_freq and sparse gradients are not supported by aakaar")
    if max_norm is not None:
        _renorm_rows(weight, input, max_norm, norm_type)
    if input.dtype not in (_C.dtype.int64, _C.dtype.int32):  # torch takes both, and says RuntimeError
        raise RuntimeError(f"embedding(): indices must be int64 or int32, got {input.dtype}")
    num = weight.shape[0]
    if padding_idx is not None:
        # PyTorch's rule: padding_idx in [-num, num), a negative one counting from the end.
        if isinstance(padding_idx, bool) or not isinstance(padding_idx, int) or not -num <= padding_idx < num:
            raise ValueError(f"embedding(): padding_idx must be within the number of embeddings ({num}), got {padding_idx!r}")
        padding_idx %= num
    flat = input.reshape(-1)
    if flat.numel() and (int(flat.amin().item()) < 0 or int(flat.amax().item()) >= num):
        raise IndexError(
            f"embedding(): index out of range: indices span [{int(flat.amin().item())}, {int(flat.amax().item())}] "
            f"but the table has {num} rows"
        )
    rows = weight.index_select(0, flat)
    if padding_idx is not None:
        keep = (flat != padding_idx).unsqueeze(1)
        rows = _C.where(keep, rows, rows.detach())
    return rows.reshape(tuple(input.shape) + (weight.shape[1],))


def _renorm_rows(weight: Tensor, input: Tensor, max_norm: float, norm_type: float) -> None:
    """Rescales, in place and outside autograd, each row of weight named in input whose norm
    exceeds max_norm to norm max_norm (scale max_norm / (norm + 1e-7), as PyTorch)."""
    from .functional_norm import _vector_norm

    if input.dtype not in (_C.dtype.int64, _C.dtype.int32):
        return  # embedding() refuses it with its own message
    rows = sorted({int(v) for v in input.reshape(-1).tolist()})
    if not rows:
        return
    with no_grad():
        for r in rows:
            if not 0 <= r < weight.shape[0]:
                return
            row = weight[r]
            norm = float(_vector_norm(row, norm_type, 0).item())
            if norm > max_norm:
                row.mul_(max_norm / (norm + 1e-7))


# Every loss (cross_entropy, nll_loss, mse_loss, ..., ctc_loss: PyTorch's full set) lives in
# functional_losses.py; they are part of this namespace as in torch.nn.functional.
from .functional_losses import *  # noqa: E402,F401,F403
from .functional_losses import __all__ as _loss_names  # noqa: E402

__all__ += [n for n in _loss_names if n not in __all__]

# Convolution and pooling (functional_conv.py): single ops of the core, as linear is; the 1-d and
# 3-d forms, transposed convolutions, more pooling (functional_pool.py), padding and resampling
# (functional_resample.py) are built on them or composed of indexing ops.
from .functional_conv import *  # noqa: E402,F401,F403
from .functional_conv import __all__ as _conv_names  # noqa: E402
from .functional_pool import *  # noqa: E402,F401,F403
from .functional_pool import __all__ as _pool_names  # noqa: E402
from .functional_resample import *  # noqa: E402,F401,F403
from .functional_resample import __all__ as _resample_names  # noqa: E402

__all__ += [n for n in _conv_names + _pool_names + _resample_names if n not in __all__]

# Attention (attention.py): a composite of matmul, softmax, masks and dropout.
def scaled_dot_product_attention(query: Tensor, key: Tensor, value: Tensor, attn_mask: Tensor | None = None,
                                 dropout_p: float = 0.0, is_causal: bool = False, scale: float | None = None,
                                 enable_gqa: bool = False) -> Tensor:
    """softmax(Q K^T * scale + mask) V; see :func:`aakaar.nn.attention.scaled_dot_product_attention`."""
    from .attention import scaled_dot_product_attention as sdpa

    return sdpa(query, key, value, attn_mask, dropout_p, is_causal, scale, enable_gqa)


from .attention import multi_head_attention_forward  # noqa: E402,F401

__all__ += ["scaled_dot_product_attention", "multi_head_attention_forward"]

# The other activations of torch.nn.functional (functional_activations.py).
from .functional_activations import *  # noqa: E402,F401,F403
from .functional_activations import __all__ as _activation_names  # noqa: E402


def relu_(input: Tensor) -> Tensor:
    """In-place relu."""
    return input.relu_()


def leaky_relu_(input: Tensor, negative_slope: float = 0.01) -> Tensor:
    return leaky_relu(input, negative_slope, inplace=True)


def elu_(input: Tensor, alpha: float = 1.0) -> Tensor:
    return elu(input, alpha, inplace=True)


__all__ += [n for n in _activation_names if n not in __all__] + ["relu_", "leaky_relu_", "elu_"]

# Normalisations and distances (functional_norm.py) and the remaining everyday functions
# (functional_misc.py): one_hot, pixel_shuffle, embedding_bag, lp pools, alpha dropout, ...
from .functional_norm import *  # noqa: E402,F401,F403
from .functional_norm import __all__ as _norm_names  # noqa: E402
from .functional_misc import *  # noqa: E402,F401,F403
from .functional_misc import __all__ as _misc_names  # noqa: E402
from .functional_pool3d import *  # noqa: E402,F401,F403
from .functional_pool3d import __all__ as _pool3d_names  # noqa: E402
from .functional_grid import *  # noqa: E402,F401,F403
from .functional_grid import __all__ as _grid_names  # noqa: E402
from .functional_fractional import *  # noqa: E402,F401,F403
from .functional_fractional import __all__ as _fractional_names  # noqa: E402

__all__ += [n for n in _norm_names + _misc_names + _pool3d_names + _grid_names + _fractional_names if n not in __all__]
