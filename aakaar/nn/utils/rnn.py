"""Variable-length sequences for the recurrent layers (``torch.nn.utils.rnn``): ``pad_sequence``,
``PackedSequence``, ``pack_padded_sequence``, ``pad_packed_sequence``, ``pack_sequence``,
``unpack_sequence``, ``unpad_sequence``.

A ``PackedSequence`` holds the sequences sorted by decreasing length, time-major: ``data`` is the
first step of every sequence, then the second step of those at least two long, ...;
``batch_sizes[t]`` says how many sequences are still running at step t. ``RNN``/``LSTM``/``GRU``
accept one and return one.
"""

from __future__ import annotations

from typing import Iterable, NamedTuple, Sequence

from ... import _C
from ..._C import Tensor
from ...creation import tensor

__all__ = ["PackedSequence", "pad_sequence", "pack_padded_sequence", "pad_packed_sequence", "pack_sequence",
           "unpack_sequence", "unpad_sequence", "invert_permutation"]


class PackedSequence(NamedTuple):
    data: Tensor
    batch_sizes: Tensor
    sorted_indices: Tensor | None = None
    unsorted_indices: Tensor | None = None

    def to(self, *args: object, **kwargs: object) -> PackedSequence:
        return self._replace(data=self.data.to(*args, **kwargs))

    @property
    def is_cuda(self) -> bool:
        return self.data.is_cuda


def invert_permutation(permutation: Tensor | None) -> Tensor | None:
    if permutation is None:
        return None
    perm = [int(v) for v in permutation.tolist()]
    inv = [0] * len(perm)
    for i, p in enumerate(perm):
        inv[p] = i
    return tensor(inv, dtype=_C.dtype.int64)


def _lengths_list(lengths: Tensor | Sequence[int]) -> list[int]:
    if isinstance(lengths, Tensor):
        if lengths.is_cuda:
            raise RuntimeError("'lengths' argument should be a 1D CPU int64 tensor, but got 1D cuda Long tensor")
        return [int(v) for v in lengths.reshape(-1).tolist()]
    return [int(v) for v in lengths]


def pad_sequence(sequences: Tensor | Iterable[Tensor], batch_first: bool = False, padding_value: float = 0.0,
                 padding_side: str = "right") -> Tensor:
    """Stacks sequences of shapes (L_i, *) into (L_max, B, *) (``batch_first``: (B, L_max, *)),
    filling the missing steps with ``padding_value``."""
    if padding_side not in ("left", "right"):
        raise ValueError(f"Expected padding_side to be one of left or right, but got {padding_side}.")
    seqs = list(sequences.unbind(0)) if isinstance(sequences, Tensor) else list(sequences)
    if not seqs:
        raise RuntimeError("received an empty list of sequences")
    longest = max(s.shape[0] for s in seqs)
    padded = []
    for s in seqs:
        missing = longest - s.shape[0]
        if missing:
            fill = _C.full([missing] + list(s.shape[1:]), float(padding_value), dtype=s.dtype)._to_device(s.device)
            s = _C.cat([s, fill] if padding_side == "right" else [fill, s], 0)
        padded.append(s)
    return _C.stack(padded, 0 if batch_first else 1)


def pack_padded_sequence(input: Tensor, lengths: Tensor | Sequence[int], batch_first: bool = False,
                         enforce_sorted: bool = True) -> PackedSequence:
    """Packs a padded batch (T, B, *) (``batch_first``: (B, T, *)) of sequences of ``lengths``."""
    lens = _lengths_list(lengths)
    batch_dim = 0 if batch_first else 1
    if len(lens) != input.shape[batch_dim]:
        raise RuntimeError(f"Expected `len(lengths)` to be equal to batch_size, but got {len(lens)} (batch_size="
                           f"{input.shape[batch_dim]})")
    if enforce_sorted:
        if any(lens[i] < lens[i + 1] for i in range(len(lens) - 1)):
            raise RuntimeError("`lengths` array must be sorted in decreasing order when `enforce_sorted` is True. "
                               "You can pass `enforce_sorted=False` to pack_padded_sequence and/or pack_sequence to "
                               "sidestep this requirement if you do not need ONNX exportability.")
        sorted_indices = None
        order = list(range(len(lens)))
    else:
        order = sorted(range(len(lens)), key=lambda i: -lens[i])  # stable, as torch.sort on the CPU
        sorted_indices = tensor(order, dtype=_C.dtype.int64)
        input = input.index_select(batch_dim, sorted_indices._to_device(input.device))
    lens = [lens[i] for i in order]
    if lens and lens[-1] <= 0:
        raise RuntimeError("Length of all samples has to be greater than 0, but found an element in 'lengths' that "
                           "is <= 0")
    x = input.transpose(0, 1) if batch_first else input
    if lens[0] > x.shape[0]:
        raise RuntimeError(f"Expected sequence length to be larger than or equal to the longest length {lens[0]}, "
                           f"got {x.shape[0]}")
    sizes = [sum(1 for n in lens if n > t) for t in range(lens[0])]
    data = _C.cat([x[t].narrow(0, 0, b) for t, b in enumerate(sizes)], 0)
    return PackedSequence(data, tensor(sizes, dtype=_C.dtype.int64), sorted_indices,
                          invert_permutation(sorted_indices))


def _padded_sorted(sequence: PackedSequence, padding_value: float = 0.0,
                   total_length: int | None = None) -> tuple[Tensor, list[int]]:
    """(T, B, *) in the packed (sorted) batch order, and the lengths in that order."""
    sizes = [int(v) for v in sequence.batch_sizes.tolist()]
    data = sequence.data
    batch = sizes[0]
    steps = len(sizes) if total_length is None else total_length
    rows, offset = [], 0
    rest = list(data.shape[1:])
    for t in range(steps):
        b = sizes[t] if t < len(sizes) else 0
        chunk = data.narrow(0, offset, b)
        offset += b
        if b < batch:
            fill = _C.full([batch - b] + rest, float(padding_value), dtype=data.dtype)._to_device(data.device)
            chunk = _C.cat([chunk, fill], 0) if b else fill
        rows.append(chunk)
    lengths = [sum(1 for s in sizes if s > i) for i in range(batch)]
    return _C.stack(rows, 0), lengths


def pad_packed_sequence(sequence: PackedSequence, batch_first: bool = False, padding_value: float = 0.0,
                        total_length: int | None = None) -> tuple[Tensor, Tensor]:
    """The inverse of ``pack_padded_sequence``: (padded batch, lengths) in the original batch order."""
    max_len = sequence.batch_sizes.shape[0]
    if total_length is not None and total_length < max_len:
        raise ValueError(f"Expected total_length to be at least the length of the longest sequence in input, but "
                         f"got total_length={total_length} and max sequence length being {max_len}")
    padded, lengths = _padded_sorted(sequence, padding_value, total_length)
    lens = tensor(lengths, dtype=_C.dtype.int64)
    if sequence.unsorted_indices is not None:
        padded = padded.index_select(1, sequence.unsorted_indices._to_device(padded.device))
        lens = lens.index_select(0, sequence.unsorted_indices)
    return (padded.transpose(0, 1) if batch_first else padded), lens


def pack_sequence(sequences: Sequence[Tensor], enforce_sorted: bool = True) -> PackedSequence:
    """Packs a list of (L_i, *) sequences."""
    lengths = [s.shape[0] for s in sequences]
    return pack_padded_sequence(pad_sequence(sequences), lengths, enforce_sorted=enforce_sorted)


def unpack_sequence(packed_sequences: PackedSequence) -> list[Tensor]:
    """The list of sequences a PackedSequence holds, in the original order."""
    padded, lengths = pad_packed_sequence(packed_sequences, batch_first=True)
    return [padded[i].narrow(0, 0, int(n)) for i, n in enumerate(lengths.tolist())]


def unpad_sequence(padded_sequences: Tensor, lengths: Tensor | Sequence[int], batch_first: bool = False) -> list[Tensor]:
    """The list of sequences of a padded batch, each cut to its length."""
    x = padded_sequences if batch_first else padded_sequences.transpose(0, 1)
    return [x[i].narrow(0, 0, n) for i, n in enumerate(_lengths_list(lengths))]
