"""Datasets: anything with ``len`` and ``[i]``, as ``torch.utils.data`` defines them.

A dataset that can also fetch a whole batch at once (``gather(indices)``, an int64 tensor of indices)
lets the :class:`~aakaar.data.DataLoader` build a batch with one native ``index_select`` per
tensor instead of a Python loop over samples: :class:`TensorDataset`, :class:`Subset` of one, and
:class:`~aakaar.data.EMNIST` do.
"""
from __future__ import annotations

import bisect
import math
from typing import Any, Generic, Iterable, Iterator, Sequence, TypeVar

import numpy as np

from .. import _C
from .._C import Tensor

__all__ = ["Dataset", "IterableDataset", "TensorDataset", "Subset", "ConcatDataset", "ChainDataset", "StackDataset",
           "random_split"]

T = TypeVar("T")


class Dataset(Generic[T]):
    """A map from indices ``0 .. len(self) - 1`` to samples. Subclasses define ``__getitem__`` and ``__len__``."""

    def __getitem__(self, index: int) -> T:
        raise NotImplementedError(f"{type(self).__name__} must define __getitem__")

    def __len__(self) -> int:
        raise NotImplementedError(f"{type(self).__name__} must define __len__")

    def __add__(self, other: "Dataset[T]") -> "ConcatDataset[T]":
        return ConcatDataset([self, other])


def _as_index_tensor(indices: Any) -> Tensor:
    if isinstance(indices, Tensor):
        if indices.dtype != _C.dtype.int64:
            raise TypeError(f"indices must be an int64 tensor, got {indices.dtype}")
        return indices
    return _C.from_numpy(np.asarray(list(indices), dtype=np.int64))


class TensorDataset(Dataset):
    """Samples are the rows of tensors that share their first dimension: ``ds[i] == (t[i] for t in tensors)``."""

    def __init__(self, *tensors: Tensor) -> None:
        if not tensors:
            raise ValueError("TensorDataset needs at least one tensor")
        for k, t in enumerate(tensors):
            if not isinstance(t, Tensor):
                raise TypeError(f"TensorDataset: argument {k} must be an aakaar.Tensor, got {type(t).__name__}")
            if t.ndim == 0:
                raise ValueError(f"TensorDataset: tensor {k} is 0-d; every tensor needs a first (sample) dimension")
        sizes = [t.shape[0] for t in tensors]
        if len(set(sizes)) != 1:
            raise ValueError(f"Size mismatch between tensors: first dimensions {sizes}")
        self.tensors = tuple(tensors)

    def __getitem__(self, index: int) -> tuple[Tensor, ...]:
        return tuple(t[index] for t in self.tensors)

    def __len__(self) -> int:
        return self.tensors[0].shape[0]

    def gather(self, indices: Tensor) -> tuple[Tensor, ...]:
        """The samples at ``indices`` (int64), stacked: one ``index_select`` per tensor, in native code."""
        return tuple(t.index_select(0, indices) for t in self.tensors)


class Subset(Dataset):
    """The samples of ``dataset`` at ``indices``, in that order."""

    def __init__(self, dataset: Dataset, indices: Sequence[int]) -> None:
        self.dataset = dataset
        self.indices = [int(i) for i in indices]
        n = len(dataset)
        bad = [i for i in self.indices if not -n <= i < n]
        if bad:
            raise IndexError(f"Subset: index {bad[0]} is out of range for a dataset of {n} samples")

    def __getitem__(self, index: int) -> Any:
        if isinstance(index, list):
            return [self.dataset[self.indices[i]] for i in index]
        return self.dataset[self.indices[index]]

    def __len__(self) -> int:
        return len(self.indices)

    def __getattr__(self, name: str) -> Any:
        # gather exists exactly when the wrapped dataset has it (the DataLoader's fast path asks with hasattr).
        if name == "gather" and hasattr(self.__dict__.get("dataset"), "gather"):
            return self._gather
        raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")

    def _gather(self, indices: Tensor) -> Any:
        mine = _as_index_tensor(self.indices)
        return self.dataset.gather(mine.index_select(0, indices))


class ConcatDataset(Dataset):
    """Several datasets one after the other."""

    def __init__(self, datasets: Iterable[Dataset]) -> None:
        self.datasets = list(datasets)
        if not self.datasets:
            raise ValueError("ConcatDataset: datasets should not be an empty iterable")
        self.cumulative_sizes: list[int] = []
        total = 0
        for d in self.datasets:
            total += len(d)
            self.cumulative_sizes.append(total)

    def __len__(self) -> int:
        return self.cumulative_sizes[-1]

    def __getitem__(self, index: int) -> Any:
        n = len(self)
        if index < 0:
            if -index > n:
                raise IndexError(f"ConcatDataset: index {index} is out of range for {n} samples")
            index += n
        if index >= n:
            raise IndexError(f"ConcatDataset: index {index} is out of range for {n} samples")
        k = bisect.bisect_right(self.cumulative_sizes, index)
        start = self.cumulative_sizes[k - 1] if k else 0
        return self.datasets[k][index - start]


class IterableDataset(Dataset):
    """A stream of samples: subclasses define ``__iter__`` (and ``__len__`` if they know it). The
    DataLoader batches it in the order it yields, with no sampler (PyTorch's rules: no shuffle)."""

    def __iter__(self) -> Iterator[Any]:
        raise NotImplementedError(f"{type(self).__name__} must define __iter__")

    def __getitem__(self, index: int) -> Any:
        raise TypeError(f"{type(self).__name__} is an IterableDataset: iterate over it, it has no [index]")

    def __add__(self, other: Dataset) -> "ChainDataset":  # type: ignore[override]
        return ChainDataset([self, other])


class ChainDataset(IterableDataset):
    """Several iterable datasets, one after the other."""

    def __init__(self, datasets: Iterable[Dataset]) -> None:
        self.datasets = list(datasets)

    def __iter__(self) -> Iterator[Any]:
        for d in self.datasets:
            if not isinstance(d, IterableDataset):
                raise AssertionError("ChainDataset only supports IterableDataset")
            yield from d

    def __len__(self) -> int:
        total = 0
        for d in self.datasets:
            if not isinstance(d, IterableDataset):
                raise AssertionError("ChainDataset only supports IterableDataset")
            total += len(d)
        return total


class StackDataset(Dataset):
    """Samples of several datasets of one length, side by side: ``StackDataset(a, b)[i] == (a[i], b[i])``,
    or a dict with ``StackDataset(x=a, y=b)``."""

    def __init__(self, *args: Dataset, **kwargs: Dataset) -> None:
        if args and kwargs:
            raise ValueError("Supported either ``tuple``- (via ``args``) or``dict``- (via ``kwargs``) like input/output,"
                             " but both types are given.")
        sources = list(args) or list(kwargs.values())
        if not sources:
            raise ValueError("At least one dataset should be passed")
        self._length = len(sources[0])
        if any(len(d) != self._length for d in sources):
            raise ValueError("Size mismatch between datasets")
        self.datasets: Any = args if args else kwargs

    def __getitem__(self, index: int) -> Any:
        if isinstance(self.datasets, dict):
            return {k: d[index] for k, d in self.datasets.items()}
        return tuple(d[index] for d in self.datasets)

    def __len__(self) -> int:
        return self._length


def random_split(dataset: Dataset, lengths: Sequence[float], generator: _C.Generator | None = None) -> list[Subset]:
    """Splits ``dataset`` into non-overlapping random subsets of the given lengths (or fractions summing to 1).

    As ``torch.utils.data.random_split``: fractions are turned into counts by flooring, and the
    remainder is handed out one sample at a time, round-robin from the first subset. The order comes
    from one ``randperm`` of ``generator`` (the default generator when None), so a seed fixes it.
    """
    n = len(dataset)
    lengths = list(lengths)
    if lengths and all(isinstance(x, float) for x in lengths) and math.isclose(sum(lengths), 1.0) and sum(lengths) <= 1:
        for i, frac in enumerate(lengths):
            if not 0 <= frac <= 1:
                raise ValueError(f"random_split: fraction at index {i} is not between 0 and 1")
        counts = [int(math.floor(n * frac)) for frac in lengths]
        for i in range(n - sum(counts)):
            counts[i % len(counts)] += 1
        lengths = counts
    if any((not isinstance(x, int)) or x < 0 for x in lengths):
        raise ValueError(f"random_split: lengths must be non-negative integers or fractions summing to 1, got {lengths}")
    if sum(lengths) != n:
        raise ValueError(f"Sum of input lengths ({sum(lengths)}) does not equal the length of the input dataset ({n})")
    order = _C.randperm(n, generator=generator).tolist()
    out, start = [], 0
    for length in lengths:
        out.append(Subset(dataset, order[start:start + length]))
        start += length
    return out
