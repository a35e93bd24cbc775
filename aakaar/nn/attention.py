"""Attention: ``F.scaled_dot_product_attention`` and ``nn.MultiheadAttention``, PyTorch's names and
arguments, composed of differentiable ops (matmul, softmax, masked_fill, dropout), so their
gradients are those ops' own.
"""

from __future__ import annotations

import math
from typing import Any

from .. import _C
from .._C import Tensor
from . import init
from .layers import Linear, _dtype, _positive
from .module import Module
from .parameter import Parameter

__all__ = ["scaled_dot_product_attention", "MultiheadAttention", "multi_head_attention_forward"]


def _mask_to_bias(mask: Tensor | None, dtype: Any, what: str) -> Tensor | None:
    """A bool mask (True: attend) becomes 0 / -inf; a float mask is added as it is."""
    if mask is None:
        return None
    if mask.dtype == _C.dtype.bool:
        zero = _C.zeros(list(mask.shape), dtype=dtype)._to_device(mask.device)
        return zero.masked_fill(mask.logical_not(), float("-inf"))
    if not mask.dtype.is_floating_point:
        raise RuntimeError(f"Expected {what} to be bool or float, got {mask.dtype}")
    return mask


def _safe_softmax(scores: Tensor) -> Tensor:
    """softmax over the last dim, with rows that mask every position giving 0, not NaN (PyTorch's rule)."""
    p = scores.softmax(-1)
    dead = scores.amax(-1, keepdim=True) == float("-inf")
    return p.masked_fill(dead, 0.0)


def scaled_dot_product_attention(query: Tensor, key: Tensor, value: Tensor, attn_mask: Tensor | None = None,
                                 dropout_p: float = 0.0, is_causal: bool = False, scale: float | None = None,
                                 enable_gqa: bool = False, generator: _C.Generator | None = None) -> Tensor:
    """softmax(Q K^T * scale + mask) V over the last two dims (..., L, E), (..., S, E), (..., S, Ev).

    ``attn_mask``: bool (True takes part) or float (added), broadcast to (..., L, S). ``is_causal``:
    position i attends to j <= i (top-left aligned, as PyTorch). ``dropout_p`` drops attention
    weights with the library's random stream. ``enable_gqa``: key and value heads (dim -3) are
    shared by groups of query heads."""
    from .functional import dropout

    if query.ndim < 2 or key.ndim < 2 or value.ndim < 2:
        raise RuntimeError("scaled_dot_product_attention: query, key and value must have at least 2 dims")
    if query.shape[-1] != key.shape[-1]:
        raise RuntimeError(f"scaled_dot_product_attention: query's last dim {query.shape[-1]} must equal key's "
                           f"{key.shape[-1]}")
    if is_causal and attn_mask is not None:
        raise RuntimeError("_scaled_dot_product_attention: Explicit attn_mask should not be set when is_causal=True")
    L, S = query.shape[-2], key.shape[-2]
    if enable_gqa and query.ndim >= 3 and key.ndim >= 3:
        hq, hk = query.shape[-3], key.shape[-3]
        if hq % hk != 0 or hq % value.shape[-3] != 0:
            raise RuntimeError(f"scaled_dot_product_attention: the number of query heads ({hq}) must be a multiple "
                               f"of the key/value heads ({hk}) with enable_gqa=True")
        key = key.repeat_interleave(hq // hk, -3)
        value = value.repeat_interleave(hq // value.shape[-3], -3)
    s = 1.0 / math.sqrt(query.shape[-1]) if scale is None else scale
    # The scale goes on the smaller operand: (..., L, E) rather than the (..., L, S) scores.
    scores = (query * s if query.shape[-1] <= S else query).matmul(key.transpose(-2, -1))
    if query.shape[-1] > S:
        scores = scores * s
    if is_causal:
        r = _C.arange(0, L, 1, dtype=_C.dtype.int64).reshape([L, 1])
        c = _C.arange(0, S, 1, dtype=_C.dtype.int64).reshape([1, S])
        scores = scores.masked_fill((c > r)._to_device(scores.device), float("-inf"))
    bias = _mask_to_bias(attn_mask, scores.dtype, "attn_mask")
    if bias is not None:
        scores = scores + bias
    # Only a mask can hide a whole row (the causal mask always keeps position 0), so only then
    # does softmax need the guard that turns such rows into zeros instead of NaN.
    weights = _safe_softmax(scores) if attn_mask is not None else scores.softmax(-1)
    if dropout_p > 0.0:
        weights = dropout(weights, dropout_p, True, generator=generator)
    return weights.matmul(value)


def _multi_head_attention_forward(mha: "MultiheadAttention", query: Tensor, key: Tensor, value: Tensor,
                                 key_padding_mask: Tensor | None, need_weights: bool, attn_mask: Tensor | None,
                                 average_attn_weights: bool, is_causal: bool) -> tuple[Tensor, Tensor | None]:
    """The forward of :class:`MultiheadAttention` on (L, N, E) / (S, N, kdim) / (S, N, vdim) inputs
    (or unbatched (L, E)...): projections, heads, attention, output projection."""
    from .functional import dropout, linear

    unbatched = query.ndim == 2
    if unbatched:
        query, key, value = query.unsqueeze(1), key.unsqueeze(1), value.unsqueeze(1)
        if key_padding_mask is not None:
            key_padding_mask = key_padding_mask.unsqueeze(0)
    L, N, E = query.shape
    if E != mha.embed_dim:
        raise AssertionError(f"was expecting embedding dimension of {mha.embed_dim}, but got {E}")
    H, D = mha.num_heads, mha.head_dim
    if mha._qkv_same_embed_dim:
        w_q, w_k, w_v = mha.in_proj_weight.chunk(3, 0)
    else:
        w_q, w_k, w_v = mha.q_proj_weight, mha.k_proj_weight, mha.v_proj_weight
    b_q = b_k = b_v = None
    if mha.in_proj_bias is not None:
        b_q, b_k, b_v = mha.in_proj_bias.chunk(3, 0)
    q, k, v = linear(query, w_q, b_q), linear(key, w_k, b_k), linear(value, w_v, b_v)
    if mha.bias_k is not None:
        k = _C.cat([k, mha.bias_k.expand([1, N, E])], 0)
        v = _C.cat([v, mha.bias_v.expand([1, N, E])], 0)
        if attn_mask is not None:
            attn_mask = _pad_last(attn_mask)
        if key_padding_mask is not None:
            key_padding_mask = _pad_last(key_padding_mask)
    if mha.add_zero_attn:
        k = _C.cat([k, _C.zeros([1, N, E], dtype=k.dtype)], 0)
        v = _C.cat([v, _C.zeros([1, N, E], dtype=v.dtype)], 0)
        if attn_mask is not None:
            attn_mask = _pad_last(attn_mask)
        if key_padding_mask is not None:
            key_padding_mask = _pad_last(key_padding_mask)
    S = k.shape[0]
    # (L, N, E) -> (N, H, L, D)
    q = q.reshape([L, N, H, D]).permute([1, 2, 0, 3])
    k = k.reshape([S, N, H, D]).permute([1, 2, 0, 3])
    v = v.reshape([S, N, H, D]).permute([1, 2, 0, 3])
    scores = q.matmul(k.transpose(-2, -1)) * (1.0 / math.sqrt(D))
    if is_causal and attn_mask is None:
        r = _C.arange(0, L, 1, dtype=_C.dtype.int64).reshape([L, 1])
        c = _C.arange(0, S, 1, dtype=_C.dtype.int64).reshape([1, S])
        scores = scores.masked_fill(c > r, float("-inf"))
    if attn_mask is not None:
        bias = _mask_to_bias(attn_mask.logical_not() if attn_mask.dtype == _C.dtype.bool else attn_mask,
                             scores.dtype, "attn_mask")
        # nn.MultiheadAttention's bool masks say True = NOT allowed (the opposite of SDPA's).
        if attn_mask.dim() == 3:  # (N * H, L, S)
            bias = bias.reshape([N, H, L, S])
        scores = scores + bias
    if key_padding_mask is not None:
        kb = _mask_to_bias(key_padding_mask.logical_not() if key_padding_mask.dtype == _C.dtype.bool
                           else key_padding_mask, scores.dtype, "key_padding_mask")
        scores = scores + kb.reshape([N, 1, 1, S])
    weights = scores.softmax(-1)
    if mha.dropout > 0.0 and mha.training:
        weights = dropout(weights, mha.dropout, True)
    out = weights.matmul(v)  # (N, H, L, D)
    out = out.permute([2, 0, 1, 3]).reshape([L, N, E])
    out = linear(out, mha.out_proj.weight, mha.out_proj.bias)
    w = None
    if need_weights:
        w = weights.mean(1) if average_attn_weights else weights
    if unbatched:
        out = out.squeeze(1)
        if w is not None:
            w = w.squeeze(0)
    return out, w


def multi_head_attention_forward(
    query: Tensor, key: Tensor, value: Tensor, embed_dim_to_check: int, num_heads: int,
    in_proj_weight: Tensor | None, in_proj_bias: Tensor | None, bias_k: Tensor | None, bias_v: Tensor | None,
    add_zero_attn: bool, dropout_p: float, out_proj_weight: Tensor, out_proj_bias: Tensor | None,
    training: bool = True, key_padding_mask: Tensor | None = None, need_weights: bool = True,
    attn_mask: Tensor | None = None, use_separate_proj_weight: bool = False, q_proj_weight: Tensor | None = None,
    k_proj_weight: Tensor | None = None, v_proj_weight: Tensor | None = None, static_k: Tensor | None = None,
    static_v: Tensor | None = None, average_attn_weights: bool = True, is_causal: bool = False,
) -> tuple[Tensor, Tensor | None]:
    """``F.multi_head_attention_forward``: the forward of MultiheadAttention with its weights passed in
    (sequence-first (L, N, E) inputs, or unbatched (L, E))."""
    from types import SimpleNamespace

    if static_k is not None or static_v is not None:
        raise NotImplementedError("multi_head_attention_forward: static_k and static_v are not supported by aakaar")
    if query.shape[-1] != embed_dim_to_check:
        raise AssertionError(f"was expecting embedding dimension of {embed_dim_to_check}, but got {query.shape[-1]}")
    head_dim = embed_dim_to_check // num_heads
    if head_dim * num_heads != embed_dim_to_check:
        raise AssertionError(f"embed_dim {embed_dim_to_check} not divisible by num_heads {num_heads}")
    # the forward reads its weights from a module; a namespace with the same attribute names stands in
    mha = SimpleNamespace(
        embed_dim=embed_dim_to_check, num_heads=num_heads, head_dim=head_dim,
        _qkv_same_embed_dim=not use_separate_proj_weight, in_proj_weight=in_proj_weight, in_proj_bias=in_proj_bias,
        q_proj_weight=q_proj_weight, k_proj_weight=k_proj_weight, v_proj_weight=v_proj_weight, bias_k=bias_k,
        bias_v=bias_v, add_zero_attn=add_zero_attn, dropout=dropout_p, training=training,
        out_proj=SimpleNamespace(weight=out_proj_weight, bias=out_proj_bias))
    return _multi_head_attention_forward(mha, query, key, value, key_padding_mask, need_weights, attn_mask,
                                         average_attn_weights, is_causal)


def _pad_last(mask: Tensor) -> Tensor:
    """A mask with one more key position (added bias_k or zero attention), not masked."""
    pad = _C.zeros(list(mask.shape[:-1]) + [1], dtype=mask.dtype)._to_device(mask.device)
    return _C.cat([mask, pad], -1)


class MultiheadAttention(Module):
    """Multi-head attention (Vaswani et al. 2017), ``torch.nn.MultiheadAttention``'s parameters
    (in_proj_weight or q/k/v_proj_weight, in_proj_bias, out_proj, bias_k, bias_v), initialisation
    (xavier_uniform_ projections, zero biases) and forward arguments."""

    def __init__(self, embed_dim: int, num_heads: int, dropout: float = 0.0, bias: bool = True,
                 add_bias_kv: bool = False, add_zero_attn: bool = False, kdim: int | None = None,
                 vdim: int | None = None, batch_first: bool = False, dtype: _C.dtype | None = None) -> None:
        super().__init__()
        _positive(embed_dim, "embed_dim", "MultiheadAttention")
        _positive(num_heads, "num_heads", "MultiheadAttention")
        self.embed_dim = embed_dim
        self.kdim = kdim if kdim is not None else embed_dim
        self.vdim = vdim if vdim is not None else embed_dim
        self._qkv_same_embed_dim = self.kdim == embed_dim and self.vdim == embed_dim
        self.num_heads = num_heads
        self.dropout = dropout
        self.batch_first = batch_first
        self.head_dim = embed_dim // num_heads
        if self.head_dim * num_heads != embed_dim:
            raise AssertionError("embed_dim must be divisible by num_heads")
        dt = _dtype(dtype)
        if self._qkv_same_embed_dim:
            self.in_proj_weight = Parameter(_C.empty(3 * embed_dim, embed_dim, dtype=dt))
            self.register_parameter("q_proj_weight", None)
            self.register_parameter("k_proj_weight", None)
            self.register_parameter("v_proj_weight", None)
        else:
            self.q_proj_weight = Parameter(_C.empty(embed_dim, embed_dim, dtype=dt))
            self.k_proj_weight = Parameter(_C.empty(embed_dim, self.kdim, dtype=dt))
            self.v_proj_weight = Parameter(_C.empty(embed_dim, self.vdim, dtype=dt))
            self.register_parameter("in_proj_weight", None)
        if bias:
            self.in_proj_bias = Parameter(_C.empty(3 * embed_dim, dtype=dt))
        else:
            self.register_parameter("in_proj_bias", None)
        self.out_proj = Linear(embed_dim, embed_dim, bias=bias, dtype=dt)
        if add_bias_kv:
            self.bias_k = Parameter(_C.empty(1, 1, embed_dim, dtype=dt))
            self.bias_v = Parameter(_C.empty(1, 1, embed_dim, dtype=dt))
        else:
            self.bias_k = self.bias_v = None
        self.add_zero_attn = add_zero_attn
        self._reset_parameters()

    def _reset_parameters(self) -> None:
        if self._qkv_same_embed_dim:
            init.xavier_uniform_(self.in_proj_weight)
        else:
            init.xavier_uniform_(self.q_proj_weight)
            init.xavier_uniform_(self.k_proj_weight)
            init.xavier_uniform_(self.v_proj_weight)
        if self.in_proj_bias is not None:
            init.constant_(self.in_proj_bias, 0.0)
            init.constant_(self.out_proj.bias, 0.0)
        if self.bias_k is not None:
            init.xavier_normal_(self.bias_k)
            init.xavier_normal_(self.bias_v)

    def forward(self, query: Tensor, key: Tensor, value: Tensor, key_padding_mask: Tensor | None = None,
                need_weights: bool = True, attn_mask: Tensor | None = None, average_attn_weights: bool = True,
                is_causal: bool = False) -> tuple[Tensor, Tensor | None]:
        if self.batch_first and query.ndim == 3:
            query, key, value = (t.transpose(0, 1) for t in (query, key, value))
        out, w = _multi_head_attention_forward(self, query, key, value, key_padding_mask, need_weights, attn_mask,
                                              average_attn_weights, is_causal)
        if self.batch_first and query.ndim == 3:
            out = out.transpose(0, 1)
        return out, w

    def extra_repr(self) -> str:
        return f"embed_dim={self.embed_dim}, num_heads={self.num_heads}, batch_first={self.batch_first}"
