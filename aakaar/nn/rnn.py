"""Recurrent layers: ``RNN``, ``LSTM``, ``GRU`` and their cells ``RNNCell``, ``LSTMCell``,
``GRUCell``, with PyTorch's arguments (``num_layers``, ``bias``, ``batch_first``, ``dropout``,
``bidirectional``, LSTM's ``proj_size``), parameter names (``weight_ih_l0``, ``bias_hh_l1_reverse``,
``weight_hr_l0``, ...), gate order (LSTM: i, f, g, o; GRU: r, z, n) and initialisation
(everything U(±1/sqrt(hidden_size))), so a torch ``state_dict`` loads and gives the same outputs.

A step is a few fused ``linear`` calls and pointwise ops; the input projection of a whole
sequence is one ``linear`` before the time loop (one GEMM instead of L small ones). Autograd
differentiates through the loop (backpropagation through time) with no extra code.
"""

from __future__ import annotations

import math
import warnings
from typing import Any

from .. import _C
from .._C import Tensor
from . import functional as F
from . import init
from .layers import _dtype
from .module import Module
from .parameter import Parameter
from ..creation import tensor
from .utils.rnn import PackedSequence, _padded_sorted

__all__ = ["RNNBase", "RNN", "LSTM", "GRU", "RNNCellBase", "RNNCell", "LSTMCell", "GRUCell"]

_GATES = {"RNN_TANH": 1, "RNN_RELU": 1, "LSTM": 4, "GRU": 3}


def _rnn_step(mode: str, gi: Tensor, h: Tensor, w_hh: Tensor, b_hh: Tensor | None) -> Tensor:
    """One step of an Elman RNN or a GRU from the input part ``gi = x W_ih^T + b_ih``."""
    gh = F.linear(h, w_hh, b_hh)
    if mode == "GRU":
        i_r, i_z, i_n = gi.chunk(3, -1)
        h_r, h_z, h_n = gh.chunk(3, -1)
        r = (i_r + h_r).sigmoid()
        z = (i_z + h_z).sigmoid()
        n = (i_n + r * h_n).tanh()
        return n + z * (h - n)  # (1 - z) * n + z * h
    pre = gi + gh
    return pre.tanh() if mode == "RNN_TANH" else pre.relu()


def _lstm_step(gi: Tensor, h: Tensor, c: Tensor, w_hh: Tensor, b_hh: Tensor | None,
               w_hr: Tensor | None) -> tuple[Tensor, Tensor]:
    gates = gi + F.linear(h, w_hh, b_hh)
    i, f, g, o = gates.chunk(4, -1)
    c = f.sigmoid() * c + i.sigmoid() * g.tanh()
    h = o.sigmoid() * c.tanh()
    if w_hr is not None:
        h = F.linear(h, w_hr)
    return h, c


def _check_dropout(dropout: Any) -> float:
    if isinstance(dropout, bool) or not isinstance(dropout, (int, float)) or not 0 <= dropout <= 1:
        raise ValueError("dropout should be a number in range [0, 1] representing the probability of an element "
                         "being zeroed")
    return float(dropout)


class RNNBase(Module):
    """The shared machinery of RNN, LSTM and GRU: parameters per layer and direction, the layer
    loop, the time loop, dropout between layers, batch_first and unbatched inputs."""

    def __init__(self, mode: str, input_size: int, hidden_size: int, num_layers: int = 1, bias: bool = True,
                 batch_first: bool = False, dropout: float = 0.0, bidirectional: bool = False,
                 proj_size: int = 0, device: object = None, dtype: _C.dtype | None = None) -> None:
        super().__init__()
        self.mode = mode
        self.input_size, self.hidden_size, self.num_layers = input_size, hidden_size, num_layers
        self.bias, self.batch_first, self.bidirectional, self.proj_size = bias, batch_first, bidirectional, proj_size
        self.dropout = _check_dropout(dropout)
        if self.dropout > 0 and num_layers == 1:
            warnings.warn("dropout option adds dropout after all but last recurrent layer, so non-zero dropout "
                          f"expects num_layers greater than 1, but got dropout={dropout} and num_layers={num_layers}",
                          stacklevel=2)
        for name, v in (("hidden_size", hidden_size), ("num_layers", num_layers), ("input_size", input_size)):
            if isinstance(v, bool) or not isinstance(v, int):
                raise TypeError(f"{name} should be of type int, got: {type(v).__name__}")
        if hidden_size <= 0:
            raise ValueError("hidden_size must be greater than zero")
        if num_layers <= 0:
            raise ValueError("num_layers must be greater than zero")
        if proj_size < 0:
            raise ValueError("proj_size should be a positive integer or zero to disable projections")
        if proj_size >= hidden_size:
            raise ValueError("proj_size has to be smaller than hidden_size")
        if proj_size and mode != "LSTM":
            raise ValueError("proj_size argument is only supported for LSTM, not RNN or GRU")
        if mode not in _GATES:
            raise ValueError(f"Unrecognized RNN mode: {mode}")
        gate_size = _GATES[mode] * hidden_size
        dt = _dtype(dtype)
        real_hidden = proj_size if proj_size > 0 else hidden_size
        num_directions = 2 if bidirectional else 1
        self._flat_weights_names: list[str] = []
        for layer in range(num_layers):
            for direction in range(num_directions):
                layer_input = input_size if layer == 0 else real_hidden * num_directions
                suffix = f"_l{layer}" + ("_reverse" if direction == 1 else "")
                shapes = [("weight_ih", (gate_size, layer_input)), ("weight_hh", (gate_size, real_hidden))]
                if bias:
                    shapes += [("bias_ih", (gate_size,)), ("bias_hh", (gate_size,))]
                if proj_size > 0:
                    shapes.append(("weight_hr", (proj_size, hidden_size)))
                for base, shape in shapes:
                    setattr(self, base + suffix, Parameter(_C.empty(*shape, dtype=dt)))
                    self._flat_weights_names.append(base + suffix)
        self.reset_parameters()

    def reset_parameters(self) -> None:
        stdv = 1.0 / math.sqrt(self.hidden_size)
        for p in self.parameters():
            init.uniform_(p, -stdv, stdv)

    @property
    def all_weights(self) -> list[list[Parameter]]:
        per = len(self._flat_weights_names) // (self.num_layers * (2 if self.bidirectional else 1))
        names = self._flat_weights_names
        return [[getattr(self, n) for n in names[i:i + per]] for i in range(0, len(names), per)]

    def flatten_parameters(self) -> None:
        """A no-op (PyTorch's packs cuDNN weights)."""

    def _layer_params(self, layer: int, direction: int) -> tuple[Tensor, Tensor, Tensor | None, Tensor | None,
                                                                 Tensor | None]:
        suffix = f"_l{layer}" + ("_reverse" if direction == 1 else "")
        p = self._param
        return (p("weight_ih" + suffix), p("weight_hh" + suffix), p("bias_ih" + suffix),
                p("bias_hh" + suffix), p("weight_hr" + suffix))

    def _run(self, x: Tensor, h0: Tensor, c0: Tensor | None,
             lengths: list[int] | None = None) -> tuple[Tensor, Tensor, Tensor | None]:
        """x (L, N, H_in), h0 (D * layers, N, H_out), c0 likewise for LSTM -> output, h_n, c_n.

        With ``lengths`` (a packed batch) a sequence's state is only updated at its own steps:
        past its end the forward direction keeps its last state (its h_n), and the reverse
        direction, which walks from the padded end, keeps h_0 until it reaches the sequence's
        last step, so it starts there as PyTorch's packed RNN does."""
        masks = None
        if lengths is not None:
            steps_t = _C.arange(0, x.shape[0], 1, dtype=_C.dtype.int64).reshape([-1, 1, 1])
            lens_t = tensor(lengths, dtype=_C.dtype.int64).reshape([1, -1, 1])
            masks = (steps_t < lens_t)._to_device(x.device)  # (L, N, 1)
        num_directions = 2 if self.bidirectional else 1
        seq_len = x.shape[0]
        h_n: list[Tensor] = []
        c_n: list[Tensor] = []
        layer_input = x
        for layer in range(self.num_layers):
            outputs = []
            for direction in range(num_directions):
                w_ih, w_hh, b_ih, b_hh, w_hr = self._layer_params(layer, direction)
                k = layer * num_directions + direction
                gi_all = F.linear(layer_input, w_ih, b_ih)  # (L, N, gates): the whole sequence in one GEMM
                h = h0[k]
                c = c0[k] if c0 is not None else None
                steps = range(seq_len - 1, -1, -1) if direction == 1 else range(seq_len)
                outs: list[Tensor] = [None] * seq_len  # type: ignore[list-item]
                for t in steps:
                    if self.mode == "LSTM":
                        h_new, c_new = _lstm_step(gi_all[t], h, c, w_hh, b_hh, w_hr)
                    else:
                        h_new, c_new = _rnn_step(self.mode, gi_all[t], h, w_hh, b_hh), None
                    if masks is not None:
                        h_new = _C.where(masks[t], h_new, h)
                        c_new = _C.where(masks[t], c_new, c) if c_new is not None else None
                    h, c = h_new, c_new
                    outs[t] = h
                outputs.append(_C.stack(outs, 0) if seq_len else gi_all.narrow(-1, 0, h.shape[-1]))
                h_n.append(h)
                if c is not None:
                    c_n.append(c)
            layer_input = outputs[0] if num_directions == 1 else _C.cat(outputs, -1)
            if self.dropout > 0 and self.training and layer < self.num_layers - 1:
                layer_input = F.dropout(layer_input, self.dropout, True)
        return layer_input, _C.stack(h_n, 0), (_C.stack(c_n, 0) if c_n else None)

    def _check_input(self, input: Tensor) -> bool:
        if not isinstance(input, Tensor):
            raise TypeError(f"{type(self).__name__}: input must be a Tensor, got {type(input).__name__}")
        if input.ndim not in (2, 3):
            raise ValueError(f"{type(self).__name__}: Expected input to be 2D or 3D, got {input.ndim}D instead")
        if input.shape[-1] != self.input_size:
            raise RuntimeError(f"input.size(-1) must be equal to input_size. Expected {self.input_size}, "
                               f"got {input.shape[-1]}")
        return input.ndim == 2

    def _hidden(self, hx: Tensor | None, batch: int, size: int, like: Tensor, unbatched: bool, what: str) -> Tensor:
        layers = self.num_layers * (2 if self.bidirectional else 1)
        if hx is None:
            return _C.zeros([layers, batch, size], dtype=like.dtype)._to_device(like.device)
        if unbatched:
            if hx.ndim != 2:
                raise RuntimeError(f"For unbatched 2-D input, {what} should also be 2-D but got {hx.ndim}-D tensor")
            hx = hx.unsqueeze(1)
        elif hx.ndim != 3:
            raise RuntimeError(f"For batched 3-D input, {what} should also be 3-D but got {hx.ndim}-D tensor")
        expected = [layers, batch, size]
        if list(hx.shape) != expected:
            raise RuntimeError(f"Expected hidden size {tuple(expected)}, got {list(hx.shape)}")
        return hx

    def forward(self, input: Tensor | PackedSequence, hx: Any = None) -> Any:
        if isinstance(input, PackedSequence):
            return self._forward_packed(input, hx)
        unbatched = self._check_input(input)
        x = input.unsqueeze(1) if unbatched else (input.transpose(0, 1) if self.batch_first else input)
        out, h_n, c_n = self._forward_states(x, hx, unbatched)
        if unbatched:
            out, h_n = out.squeeze(1), h_n.squeeze(1)
            c_n = c_n.squeeze(1) if c_n is not None else None
        elif self.batch_first:
            out = out.transpose(0, 1)
        return (out, (h_n, c_n)) if self.mode == "LSTM" else (out, h_n)

    def _forward_packed(self, packed: PackedSequence, hx: Any) -> Any:
        """A PackedSequence in, one out: the sequences run in the packed (sorted) order, hx is
        permuted into it and h_n back out of it, as PyTorch does."""
        if packed.data.ndim != 2 or packed.data.shape[-1] != self.input_size:
            raise RuntimeError(f"input.size(-1) must be equal to input_size. Expected {self.input_size}, "
                               f"got {packed.data.shape[-1]}")
        x, lengths = _padded_sorted(packed)

        def permute(t: Tensor | None, idx: Tensor | None) -> Tensor | None:
            return t if t is None or idx is None else t.index_select(1, idx._to_device(t.device))

        if hx is not None:
            hx = tuple(permute(h, packed.sorted_indices) for h in hx) if isinstance(hx, (tuple, list)) else \
                permute(hx, packed.sorted_indices)
        out, h_n, c_n = self._forward_states(x, hx, False, lengths)
        sizes = [int(v) for v in packed.batch_sizes.tolist()]
        data = _C.cat([out[t].narrow(0, 0, b) for t, b in enumerate(sizes)], 0)
        out_packed = PackedSequence(data, packed.batch_sizes, packed.sorted_indices, packed.unsorted_indices)
        h_n, c_n = permute(h_n, packed.unsorted_indices), permute(c_n, packed.unsorted_indices)
        return (out_packed, (h_n, c_n)) if self.mode == "LSTM" else (out_packed, h_n)

    def _forward_states(self, x: Tensor, hx: Any, unbatched: bool,
                        lengths: list[int] | None = None) -> tuple[Tensor, Tensor, Tensor | None]:
        batch = x.shape[1]
        if self.mode == "LSTM":
            h_size = self.proj_size if self.proj_size > 0 else self.hidden_size
            if hx is not None and (not isinstance(hx, (tuple, list)) or len(hx) != 2):
                raise RuntimeError("LSTM: hx must be a tuple (h_0, c_0)")
            h0 = self._hidden(None if hx is None else hx[0], batch, h_size, x, unbatched, "hx")
            c0 = self._hidden(None if hx is None else hx[1], batch, self.hidden_size, x, unbatched, "cx")
        else:
            if isinstance(hx, (tuple, list)):
                raise RuntimeError(f"{type(self).__name__}: hx must be a Tensor, got a tuple")
            h0 = self._hidden(hx, batch, self.hidden_size, x, unbatched, "hx")
            c0 = None
        return self._run(x, h0, c0, lengths)

    def extra_repr(self) -> str:
        s = f"{self.input_size}, {self.hidden_size}"
        if self.proj_size != 0:
            s += f", proj_size={self.proj_size}"
        if self.num_layers != 1:
            s += f", num_layers={self.num_layers}"
        if self.bias is not True:
            s += f", bias={self.bias}"
        if self.batch_first is not False:
            s += f", batch_first={self.batch_first}"
        if self.dropout != 0:
            s += f", dropout={self.dropout}"
        if self.bidirectional is not False:
            s += f", bidirectional={self.bidirectional}"
        return s


class RNN(RNNBase):
    """Elman RNN: ``h_t = tanh(x_t W_ih^T + b_ih + h_{t-1} W_hh^T + b_hh)`` (or relu)."""

    def __init__(self, input_size: int, hidden_size: int, num_layers: int = 1, nonlinearity: str = "tanh",
                 bias: bool = True, batch_first: bool = False, dropout: float = 0.0, bidirectional: bool = False,
                 device: object = None, dtype: _C.dtype | None = None, proj_size: int = 0) -> None:
        # proj_size is accepted only to refuse it with PyTorch's ValueError (RNNBase checks it)
        if nonlinearity == "tanh":
            mode = "RNN_TANH"
        elif nonlinearity == "relu":
            mode = "RNN_RELU"
        else:
            raise ValueError(f"Unknown nonlinearity '{nonlinearity}'. Select from 'tanh' or 'relu'.")
        super().__init__(mode, input_size, hidden_size, num_layers, bias, batch_first, dropout, bidirectional,
                         proj_size, dtype=dtype)
        self.nonlinearity = nonlinearity

    def extra_repr(self) -> str:
        s = super().extra_repr()
        return s + (f", nonlinearity={self.nonlinearity}" if self.nonlinearity != "tanh" else "")


class LSTM(RNNBase):
    """Long short-term memory; ``forward(input, (h_0, c_0))`` returns ``output, (h_n, c_n)``."""

    def __init__(self, input_size: int, hidden_size: int, num_layers: int = 1, bias: bool = True,
                 batch_first: bool = False, dropout: float = 0.0, bidirectional: bool = False, proj_size: int = 0,
                 device: object = None, dtype: _C.dtype | None = None) -> None:
        super().__init__("LSTM", input_size, hidden_size, num_layers, bias, batch_first, dropout, bidirectional,
                         proj_size, dtype=dtype)


class GRU(RNNBase):
    """Gated recurrent unit (gates r, z, n; ``h' = (1 - z) * n + z * h``)."""

    def __init__(self, input_size: int, hidden_size: int, num_layers: int = 1, bias: bool = True,
                 batch_first: bool = False, dropout: float = 0.0, bidirectional: bool = False,
                 device: object = None, dtype: _C.dtype | None = None, proj_size: int = 0) -> None:
        super().__init__("GRU", input_size, hidden_size, num_layers, bias, batch_first, dropout, bidirectional,
                         proj_size, dtype=dtype)


class RNNCellBase(Module):
    """One step of RNN/LSTM/GRU: parameters weight_ih, weight_hh, bias_ih, bias_hh."""

    _gates = 1

    def __init__(self, input_size: int, hidden_size: int, bias: bool = True, num_chunks: int | None = None,
                 device: object = None, dtype: _C.dtype | None = None) -> None:
        super().__init__()
        if hidden_size <= 0:
            raise ValueError("hidden_size must be greater than zero")
        self.input_size, self.hidden_size, self.bias = input_size, hidden_size, bias
        chunks = num_chunks or self._gates
        dt = _dtype(dtype)
        self.weight_ih = Parameter(_C.empty(chunks * hidden_size, input_size, dtype=dt))
        self.weight_hh = Parameter(_C.empty(chunks * hidden_size, hidden_size, dtype=dt))
        if bias:
            self.bias_ih = Parameter(_C.empty(chunks * hidden_size, dtype=dt))
            self.bias_hh = Parameter(_C.empty(chunks * hidden_size, dtype=dt))
        else:
            self.register_parameter("bias_ih", None)
            self.register_parameter("bias_hh", None)
        self.reset_parameters()

    reset_parameters = RNNBase.reset_parameters

    def _prepare(self, input: Tensor, hx: Tensor | None) -> tuple[Tensor, Tensor, bool]:
        name = type(self).__name__
        if not isinstance(input, Tensor):
            raise TypeError(f"{name}: input must be a Tensor, got {type(input).__name__}")
        if input.ndim not in (1, 2):
            raise ValueError(f"{name}: Expected input to be 1D or 2D, got {input.ndim}D instead")
        if hx is not None and hx.ndim not in (1, 2):
            raise ValueError(f"{name}: Expected hidden to be 1D or 2D, got {hx.ndim}D instead")
        if input.shape[-1] != self.input_size:
            raise RuntimeError(f"input has inconsistent input_size: got {input.shape[-1]} expected {self.input_size}")
        unbatched = input.ndim == 1
        x = input.unsqueeze(0) if unbatched else input
        if hx is None:
            h = _C.zeros([x.shape[0], self.hidden_size], dtype=x.dtype)._to_device(x.device)
        else:
            h = hx.unsqueeze(0) if unbatched else hx
            if list(h.shape) != [x.shape[0], self.hidden_size]:
                raise RuntimeError(f"hidden has inconsistent shape: got {list(hx.shape)}, expected "
                                   f"{[x.shape[0], self.hidden_size] if not unbatched else [self.hidden_size]}")
        return x, h, unbatched

    def extra_repr(self) -> str:
        s = f"{self.input_size}, {self.hidden_size}"
        if self.bias is not True:
            s += f", bias={self.bias}"
        nl = getattr(self, "nonlinearity", "tanh")
        return s + (f", nonlinearity={nl}" if nl != "tanh" else "")


class RNNCell(RNNCellBase):
    def __init__(self, input_size: int, hidden_size: int, bias: bool = True, nonlinearity: str = "tanh",
                 device: object = None, dtype: _C.dtype | None = None) -> None:
        super().__init__(input_size, hidden_size, bias, 1, dtype=dtype)
        if nonlinearity not in ("tanh", "relu"):
            raise RuntimeError(f"Unknown nonlinearity: {nonlinearity}")
        self.nonlinearity = nonlinearity

    def forward(self, input: Tensor, hx: Tensor | None = None) -> Tensor:
        x, h, unbatched = self._prepare(input, hx)
        mode = "RNN_TANH" if self.nonlinearity == "tanh" else "RNN_RELU"
        out = _rnn_step(mode, F.linear(x, self.weight_ih, self.bias_ih), h, self.weight_hh, self.bias_hh)
        return out.squeeze(0) if unbatched else out


class GRUCell(RNNCellBase):
    _gates = 3

    def forward(self, input: Tensor, hx: Tensor | None = None) -> Tensor:
        x, h, unbatched = self._prepare(input, hx)
        out = _rnn_step("GRU", F.linear(x, self.weight_ih, self.bias_ih), h, self.weight_hh, self.bias_hh)
        return out.squeeze(0) if unbatched else out


class LSTMCell(RNNCellBase):
    _gates = 4

    def forward(self, input: Tensor, hx: tuple[Tensor, Tensor] | None = None) -> tuple[Tensor, Tensor]:
        x, h, unbatched = self._prepare(input, None if hx is None else hx[0])
        if hx is None:
            c = _C.zeros(list(h.shape), dtype=x.dtype)._to_device(x.device)
        else:
            c = hx[1].unsqueeze(0) if unbatched else hx[1]
        h, c = _lstm_step(F.linear(x, self.weight_ih, self.bias_ih), h, c, self.weight_hh, self.bias_hh, None)
        return (h.squeeze(0), c.squeeze(0)) if unbatched else (h, c)
