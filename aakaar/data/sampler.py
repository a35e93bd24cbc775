"""Samplers: the order in which a DataLoader visits a dataset's indices."""
from __future__ import annotations

from typing import Iterator, Sequence, Sized

import numpy as np

from .. import _C

__all__ = ["Sampler", "SequentialSampler", "RandomSampler", "WeightedRandomSampler", "SubsetRandomSampler",
           "BatchSampler"]


class Sampler:
    """Yields indices (or lists of indices, for a batch sampler)."""

    def __iter__(self) -> Iterator:
        raise NotImplementedError(f"{type(self).__name__} must define __iter__")


class SequentialSampler(Sampler):
    """0, 1, ..., len(data_source) - 1."""

    def __init__(self, data_source: Sized) -> None:
        self.data_source = data_source

    def __iter__(self) -> Iterator[int]:
        return iter(range(len(self.data_source)))

    def __len__(self) -> int:
        return len(self.data_source)


def _generator_for_epoch(generator: _C.Generator | None) -> _C.Generator:
    """The generator an epoch draws its order from.

    With a generator, that one: its stream continues from epoch to epoch, so a seed fixes every
    epoch's order. Without one, as PyTorch does, a fresh generator seeded from the default one, so
    ``aakaar.manual_seed`` fixes the orders too.
    """
    if generator is not None:
        return generator
    seed = int(_C.randint(0, 2**62, (1,)).item())
    return _C.Generator().manual_seed(seed)


class RandomSampler(Sampler):
    """A random permutation of the indices each epoch (``replacement=True``: ``num_samples`` independent draws)."""

    def __init__(self, data_source: Sized, replacement: bool = False, num_samples: int | None = None,
                 generator: _C.Generator | None = None) -> None:
        if not isinstance(replacement, bool):
            raise TypeError(f"replacement should be a boolean value, but got replacement={replacement!r}")
        if num_samples is not None and (not isinstance(num_samples, int) or isinstance(num_samples, bool)
                                        or num_samples <= 0):
            raise ValueError(f"num_samples should be a positive integer value, but got num_samples={num_samples!r}")
        self.data_source = data_source
        self.replacement = replacement
        self._num_samples = num_samples
        self.generator = generator

    @property
    def num_samples(self) -> int:
        return len(self.data_source) if self._num_samples is None else self._num_samples

    def __iter__(self) -> Iterator[int]:
        n = len(self.data_source)
        g = _generator_for_epoch(self.generator)
        if self.replacement:
            yield from _C.randint(0, n, (self.num_samples,), generator=g).tolist()
            return
        for _ in range(self.num_samples // n):
            yield from _C.randperm(n, generator=g).tolist()
        yield from _C.randperm(n, generator=g).tolist()[: self.num_samples % n]

    def __len__(self) -> int:
        return self.num_samples


class WeightedRandomSampler(Sampler):
    """``num_samples`` indices drawn with probabilities proportional to ``weights`` (with or without
    replacement), a new draw each epoch, as ``torch.utils.data.WeightedRandomSampler``."""

    def __init__(self, weights: Sequence[float], num_samples: int, replacement: bool = True,
                 generator: _C.Generator | None = None) -> None:
        if not isinstance(num_samples, int) or isinstance(num_samples, bool) or num_samples <= 0:
            raise ValueError(f"num_samples should be a positive integer value, but got num_samples={num_samples!r}")
        if not isinstance(replacement, bool):
            raise ValueError(f"replacement should be a boolean value, but got replacement={replacement!r}")
        w = _C.from_numpy(np.asarray(weights.numpy() if hasattr(weights, "numpy") else weights, dtype=np.float64))
        if w.ndim != 1:
            raise ValueError(f"weights should be a 1d sequence but given weights have shape {tuple(w.shape)}")
        self.weights = w
        self.num_samples = num_samples
        self.replacement = replacement
        self.generator = generator

    def __iter__(self) -> Iterator[int]:
        g = _generator_for_epoch(self.generator)
        from ..everyday_ops import multinomial  # the library's, with torch's checks of the weights

        yield from multinomial(self.weights, self.num_samples, self.replacement, generator=g).tolist()

    def __len__(self) -> int:
        return self.num_samples


class SubsetRandomSampler(Sampler):
    """The given indices, in a random order each epoch."""

    def __init__(self, indices: Sequence[int], generator: _C.Generator | None = None) -> None:
        self.indices = list(indices)
        self.generator = generator

    def __iter__(self) -> Iterator[int]:
        order = _C.randperm(len(self.indices), generator=_generator_for_epoch(self.generator)).tolist()
        return (self.indices[i] for i in order)

    def __len__(self) -> int:
        return len(self.indices)


class BatchSampler(Sampler):
    """Groups the indices of ``sampler`` into lists of ``batch_size`` (the last one shorter unless ``drop_last``)."""

    def __init__(self, sampler: Sampler | Sequence[int], batch_size: int, drop_last: bool) -> None:
        if not isinstance(batch_size, int) or isinstance(batch_size, bool) or batch_size <= 0:
            raise ValueError(f"batch_size should be a positive integer value, but got batch_size={batch_size!r}")
        if not isinstance(drop_last, bool):
            raise ValueError(f"drop_last should be a boolean value, but got drop_last={drop_last!r}")
        self.sampler = sampler
        self.batch_size = batch_size
        self.drop_last = drop_last

    def __iter__(self) -> Iterator[list[int]]:
        batch: list[int] = []
        for i in self.sampler:
            batch.append(i)
            if len(batch) == self.batch_size:
                yield batch
                batch = []
        if batch and not self.drop_last:
            yield batch

    def __len__(self) -> int:
        n = len(self.sampler)  # type: ignore[arg-type]
        return n // self.batch_size if self.drop_last else (n + self.batch_size - 1) // self.batch_size
