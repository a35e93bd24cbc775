"""The Transformer of ``torch.nn``: ``TransformerEncoderLayer``, ``TransformerEncoder``,
``TransformerDecoderLayer``, ``TransformerDecoder`` and ``Transformer``, built on
:class:`aakaar.nn.MultiheadAttention`, ``Linear``, ``LayerNorm`` and ``Dropout``.

PyTorch's sub-module names (``self_attn``, ``multihead_attn``, ``linear1``, ``norm1``, ...), so a
torch ``state_dict`` loads; post-norm by default, pre-norm with ``norm_first=True``; masks and
``is_causal`` are passed to the attention as in PyTorch.
"""

from __future__ import annotations

import copy
from typing import Any, Callable

from .. import _C
from .._C import Tensor
from . import functional as F
from . import init
from .attention import MultiheadAttention
from .containers import ModuleList
from .layers import Dropout, LayerNorm, Linear
from .module import Module

__all__ = ["TransformerEncoderLayer", "TransformerEncoder", "TransformerDecoderLayer", "TransformerDecoder",
           "Transformer"]


def _activation(activation: str | Callable[[Tensor], Tensor]) -> Callable[[Tensor], Tensor]:
    if activation == "relu":
        return F.relu
    if activation == "gelu":
        return F.gelu
    if isinstance(activation, str):
        raise RuntimeError(f"activation should be relu/gelu, not {activation}")
    return activation


def _clones(module: Module, n: int) -> ModuleList:
    return ModuleList([copy.deepcopy(module) for _ in range(n)])


class _FeedForwardBlock(Module):
    """What the encoder and decoder layers share: the feed-forward block and its arguments."""

    def _init_ff(self, d_model: int, dim_feedforward: int, dropout: float, activation: Any, bias: bool,
                 dtype: _C.dtype | None) -> None:
        self.linear1 = Linear(d_model, dim_feedforward, bias=bias, dtype=dtype)
        self.dropout = Dropout(dropout)
        self.linear2 = Linear(dim_feedforward, d_model, bias=bias, dtype=dtype)
        # a Module activation is registered as a child (as in PyTorch); a function is a plain attribute
        self.activation = activation if isinstance(activation, Module) else _activation(activation)
        self.activation_relu_or_gelu = 1 if activation in ("relu", F.relu) else 2 if activation in ("gelu", F.gelu) \
            else 0

    def _ff_block(self, x: Tensor, dropout: Module) -> Tensor:
        return dropout(self.linear2(self.dropout(self.activation(self.linear1(x)))))


class TransformerEncoderLayer(_FeedForwardBlock):
    """Self-attention then a feed-forward network, each with a residual connection and LayerNorm."""

    def __init__(self, d_model: int, nhead: int, dim_feedforward: int = 2048, dropout: float = 0.1,
                 activation: str | Callable[[Tensor], Tensor] = F.relu, layer_norm_eps: float = 1e-5,
                 batch_first: bool = False, norm_first: bool = False, bias: bool = True, device: object = None,
                 dtype: _C.dtype | None = None) -> None:
        super().__init__()
        self.self_attn = MultiheadAttention(d_model, nhead, dropout=dropout, bias=bias, batch_first=batch_first,
                                            dtype=dtype)
        self._init_ff(d_model, dim_feedforward, dropout, activation, bias, dtype)
        self.norm_first = norm_first
        self.norm1 = LayerNorm(d_model, eps=layer_norm_eps, bias=bias, dtype=dtype)
        self.norm2 = LayerNorm(d_model, eps=layer_norm_eps, bias=bias, dtype=dtype)
        self.dropout1 = Dropout(dropout)
        self.dropout2 = Dropout(dropout)

    def _sa_block(self, x: Tensor, attn_mask: Tensor | None, key_padding_mask: Tensor | None,
                  is_causal: bool) -> Tensor:
        x = self.self_attn(x, x, x, attn_mask=attn_mask, key_padding_mask=key_padding_mask, need_weights=False,
                           is_causal=is_causal)[0]
        return self.dropout1(x)

    def forward(self, src: Tensor, src_mask: Tensor | None = None, src_key_padding_mask: Tensor | None = None,
                is_causal: bool = False) -> Tensor:
        x = src
        if self.norm_first:
            x = x + self._sa_block(self.norm1(x), src_mask, src_key_padding_mask, is_causal)
            x = x + self._ff_block(self.norm2(x), self.dropout2)
        else:
            x = self.norm1(x + self._sa_block(x, src_mask, src_key_padding_mask, is_causal))
            x = self.norm2(x + self._ff_block(x, self.dropout2))
        return x


class TransformerDecoderLayer(_FeedForwardBlock):
    """Self-attention, attention over the encoder's memory, then a feed-forward network."""

    def __init__(self, d_model: int, nhead: int, dim_feedforward: int = 2048, dropout: float = 0.1,
                 activation: str | Callable[[Tensor], Tensor] = F.relu, layer_norm_eps: float = 1e-5,
                 batch_first: bool = False, norm_first: bool = False, bias: bool = True, device: object = None,
                 dtype: _C.dtype | None = None) -> None:
        super().__init__()
        self.self_attn = MultiheadAttention(d_model, nhead, dropout=dropout, bias=bias, batch_first=batch_first,
                                            dtype=dtype)
        self.multihead_attn = MultiheadAttention(d_model, nhead, dropout=dropout, bias=bias,
                                                 batch_first=batch_first, dtype=dtype)
        self._init_ff(d_model, dim_feedforward, dropout, activation, bias, dtype)
        self.norm_first = norm_first
        self.norm1 = LayerNorm(d_model, eps=layer_norm_eps, bias=bias, dtype=dtype)
        self.norm2 = LayerNorm(d_model, eps=layer_norm_eps, bias=bias, dtype=dtype)
        self.norm3 = LayerNorm(d_model, eps=layer_norm_eps, bias=bias, dtype=dtype)
        self.dropout1 = Dropout(dropout)
        self.dropout2 = Dropout(dropout)
        self.dropout3 = Dropout(dropout)

    def _sa_block(self, x: Tensor, attn_mask: Tensor | None, key_padding_mask: Tensor | None,
                  is_causal: bool) -> Tensor:
        x = self.self_attn(x, x, x, attn_mask=attn_mask, key_padding_mask=key_padding_mask, is_causal=is_causal,
                           need_weights=False)[0]
        return self.dropout1(x)

    def _mha_block(self, x: Tensor, mem: Tensor, attn_mask: Tensor | None, key_padding_mask: Tensor | None,
                   is_causal: bool) -> Tensor:
        x = self.multihead_attn(x, mem, mem, attn_mask=attn_mask, key_padding_mask=key_padding_mask,
                                is_causal=is_causal, need_weights=False)[0]
        return self.dropout2(x)

    def forward(self, tgt: Tensor, memory: Tensor, tgt_mask: Tensor | None = None, memory_mask: Tensor | None = None,
                tgt_key_padding_mask: Tensor | None = None, memory_key_padding_mask: Tensor | None = None,
                tgt_is_causal: bool = False, memory_is_causal: bool = False) -> Tensor:
        x = tgt
        if self.norm_first:
            x = x + self._sa_block(self.norm1(x), tgt_mask, tgt_key_padding_mask, tgt_is_causal)
            x = x + self._mha_block(self.norm2(x), memory, memory_mask, memory_key_padding_mask, memory_is_causal)
            x = x + self._ff_block(self.norm3(x), self.dropout3)
        else:
            x = self.norm1(x + self._sa_block(x, tgt_mask, tgt_key_padding_mask, tgt_is_causal))
            x = self.norm2(x + self._mha_block(x, memory, memory_mask, memory_key_padding_mask, memory_is_causal))
            x = self.norm3(x + self._ff_block(x, self.dropout3))
        return x


class TransformerEncoder(Module):
    """``num_layers`` copies of an encoder layer (``layers.0``, ``layers.1``, ...), then ``norm``."""

    def __init__(self, encoder_layer: TransformerEncoderLayer, num_layers: int, norm: Module | None = None,
                 enable_nested_tensor: bool = True, mask_check: bool = True) -> None:
        super().__init__()
        self.layers = _clones(encoder_layer, num_layers)
        self.num_layers = num_layers
        self.norm = norm
        self.enable_nested_tensor, self.mask_check = enable_nested_tensor, mask_check
        layer = encoder_layer
        # PyTorch's conditions for its nested-tensor inference path (see _zero_padding)
        self.use_nested_tensor = bool(
            enable_nested_tensor and isinstance(layer, TransformerEncoderLayer) and not layer.norm_first
            and layer.self_attn.batch_first and layer.self_attn._qkv_same_embed_dim
            and layer.self_attn.in_proj_bias is not None and layer.activation_relu_or_gelu
            and layer.norm1.eps == layer.norm2.eps and layer.self_attn.num_heads % 2 == 0)

    def _zero_padding(self, src: Tensor, mask: Tensor | None, padding: Tensor | None) -> bool:
        """Whether PyTorch would run this call as nested tensors: inference (eval, and no gradient
        wanted) with a right-padded key-padding mask and no attention mask. Its output then has
        zeros at the padded positions (before the final norm); the other positions are the same."""
        from ..autograd import is_grad_enabled

        if not self.use_nested_tensor or self.training or mask is not None or padding is None or src.ndim != 3:
            return False
        if is_grad_enabled() and (src.requires_grad or any(p.requires_grad for p in self.parameters())):
            return False
        if padding.dtype != _C.dtype.bool:
            return False
        pad = padding.to(_C.dtype.int64)
        # right-aligned padding only: once a row is padded it stays padded
        return not bool((pad.narrow(1, 1, pad.shape[1] - 1) < pad.narrow(1, 0, pad.shape[1] - 1)).any().item()) \
            if pad.shape[1] > 1 else True

    def forward(self, src: Tensor, mask: Tensor | None = None, src_key_padding_mask: Tensor | None = None,
                is_causal: bool | None = None) -> Tensor:
        out = src
        for mod in self.layers:
            out = mod(out, src_mask=mask, is_causal=bool(is_causal), src_key_padding_mask=src_key_padding_mask)
        if self._zero_padding(src, mask, src_key_padding_mask):
            out = out.masked_fill(src_key_padding_mask.unsqueeze(-1), 0.0)
        return self.norm(out) if self.norm is not None else out


class TransformerDecoder(Module):
    """``num_layers`` copies of a decoder layer, then ``norm``."""

    def __init__(self, decoder_layer: TransformerDecoderLayer, num_layers: int, norm: Module | None = None) -> None:
        super().__init__()
        self.layers = _clones(decoder_layer, num_layers)
        self.num_layers = num_layers
        self.norm = norm

    def forward(self, tgt: Tensor, memory: Tensor, tgt_mask: Tensor | None = None, memory_mask: Tensor | None = None,
                tgt_key_padding_mask: Tensor | None = None, memory_key_padding_mask: Tensor | None = None,
                tgt_is_causal: bool | None = None, memory_is_causal: bool = False) -> Tensor:
        out = tgt
        for mod in self.layers:
            out = mod(out, memory, tgt_mask=tgt_mask, memory_mask=memory_mask,
                      tgt_key_padding_mask=tgt_key_padding_mask, memory_key_padding_mask=memory_key_padding_mask,
                      tgt_is_causal=bool(tgt_is_causal), memory_is_causal=memory_is_causal)
        return self.norm(out) if self.norm is not None else out


class Transformer(Module):
    """Encoder-decoder Transformer (Vaswani et al. 2017) with PyTorch's defaults and layout."""

    def __init__(self, d_model: int = 512, nhead: int = 8, num_encoder_layers: int = 6, num_decoder_layers: int = 6,
                 dim_feedforward: int = 2048, dropout: float = 0.1,
                 activation: str | Callable[[Tensor], Tensor] = F.relu, custom_encoder: Module | None = None,
                 custom_decoder: Module | None = None, layer_norm_eps: float = 1e-5, batch_first: bool = False,
                 norm_first: bool = False, bias: bool = True, device: object = None,
                 dtype: _C.dtype | None = None) -> None:
        super().__init__()
        if custom_encoder is not None:
            self.encoder = custom_encoder
        else:
            layer = TransformerEncoderLayer(d_model, nhead, dim_feedforward, dropout, activation, layer_norm_eps,
                                            batch_first, norm_first, bias, dtype=dtype)
            self.encoder = TransformerEncoder(layer, num_encoder_layers,
                                              LayerNorm(d_model, eps=layer_norm_eps, bias=bias, dtype=dtype))
        if custom_decoder is not None:
            self.decoder = custom_decoder
        else:
            layer = TransformerDecoderLayer(d_model, nhead, dim_feedforward, dropout, activation, layer_norm_eps,
                                            batch_first, norm_first, bias, dtype=dtype)
            self.decoder = TransformerDecoder(layer, num_decoder_layers,
                                              LayerNorm(d_model, eps=layer_norm_eps, bias=bias, dtype=dtype))
        for p in self.parameters():
            if p.ndim > 1:
                init.xavier_uniform_(p)
        self.d_model, self.nhead, self.batch_first = d_model, nhead, batch_first

    def forward(self, src: Tensor, tgt: Tensor, src_mask: Tensor | None = None, tgt_mask: Tensor | None = None,
                memory_mask: Tensor | None = None, src_key_padding_mask: Tensor | None = None,
                tgt_key_padding_mask: Tensor | None = None, memory_key_padding_mask: Tensor | None = None,
                src_is_causal: bool | None = None, tgt_is_causal: bool | None = None,
                memory_is_causal: bool = False) -> Tensor:
        is_batched = src.ndim == 3
        if not self.batch_first and src.shape[1] != tgt.shape[1] and is_batched:
            raise RuntimeError("the batch number of src and tgt must be equal")
        if self.batch_first and src.shape[0] != tgt.shape[0] and is_batched:
            raise RuntimeError("the batch number of src and tgt must be equal")
        if src.shape[-1] != self.d_model or tgt.shape[-1] != self.d_model:
            raise RuntimeError("the feature number of src and tgt must be equal to d_model")
        memory = self.encoder(src, mask=src_mask, src_key_padding_mask=src_key_padding_mask, is_causal=src_is_causal)
        return self.decoder(tgt, memory, tgt_mask=tgt_mask, memory_mask=memory_mask,
                            tgt_key_padding_mask=tgt_key_padding_mask,
                            memory_key_padding_mask=memory_key_padding_mask, tgt_is_causal=tgt_is_causal,
                            memory_is_causal=memory_is_causal)

    @staticmethod
    def generate_square_subsequent_mask(sz: int, device: object = None, dtype: _C.dtype | None = None) -> Tensor:
        """(sz, sz) float mask: -inf above the diagonal (future positions), 0 elsewhere."""
        dt = dtype if dtype is not None else _C._get_default_dtype()
        r = _C.arange(0, sz, 1, dtype=_C.dtype.int64).reshape([sz, 1])
        c = _C.arange(0, sz, 1, dtype=_C.dtype.int64).reshape([1, sz])
        mask = _C.zeros([sz, sz], dtype=dt).masked_fill(c > r, float("-inf"))
        return mask.to(device) if device is not None else mask
