"""DataLoader: batches of a dataset in a sampler's order, as ``torch.utils.data.DataLoader`` gives them.

The fast path: when the dataset can fetch a batch itself (``gather(indices)``: TensorDataset, a
Subset of one, EMNIST) and the default collate function is used, a batch is one int64 index tensor
and one native ``index_select`` per tensor: no Python loop over the samples. Anything else goes
through ``collate_fn`` sample by sample, as in PyTorch.
"""
from __future__ import annotations

import numbers
import warnings
from typing import Any, Callable, Iterator, Sequence

import numpy as np

from .. import _C
from ..cuda import is_available as _cuda_available
from .._C import Tensor
from .dataset import Dataset, IterableDataset
from .sampler import BatchSampler, RandomSampler, Sampler, SequentialSampler

__all__ = ["DataLoader", "default_collate", "get_worker_info"]


def get_worker_info() -> None:
    """None: aakaar's DataLoader loads in the main process (there are no worker processes to describe),
    which is what ``torch.utils.data.get_worker_info()`` returns there too."""
    return None


def default_collate(batch: Sequence[Any]) -> Any:
    """Stacks a list of samples into a batch, recursively, with PyTorch's rules.

    Tensors are stacked along a new first dimension; numpy arrays likewise (as tensors); Python
    ints become an int64 tensor, floats a float64 tensor, bools a bool tensor; strings stay a list;
    dicts are collated key by key; tuples and lists element by element (returned as a list).
    """
    if len(batch) == 0:
        raise ValueError("default_collate: the batch is empty")
    elem = batch[0]
    if isinstance(elem, Tensor):
        return _C.stack(list(batch), 0)
    if isinstance(elem, np.ndarray):
        return _C.from_numpy(np.ascontiguousarray(np.stack(batch)))
    if isinstance(elem, np.generic):
        return _C.from_numpy(np.asarray(batch))
    if isinstance(elem, bool):
        return _C.from_numpy(np.asarray(batch, dtype=np.bool_))
    if isinstance(elem, numbers.Integral):
        return _C.from_numpy(np.asarray(batch, dtype=np.int64))
    if isinstance(elem, numbers.Real):
        return _C.from_numpy(np.asarray(batch, dtype=np.float64))
    if isinstance(elem, (str, bytes)):
        return list(batch)
    if isinstance(elem, dict):
        return {key: default_collate([d[key] for d in batch]) for key in elem}
    if isinstance(elem, (tuple, list)):
        sizes = {len(s) for s in batch}
        if len(sizes) != 1:
            raise RuntimeError("each element in list of batch should be of equal size")
        return [default_collate(list(samples)) for samples in zip(*batch)]
    raise TypeError(f"default_collate: batch must contain tensors, numpy arrays, numbers, dicts or lists; "
                    f"found {type(elem).__name__}")


class DataLoader:
    """Iterates over ``dataset`` in batches.

    ``shuffle=True`` draws a new permutation every epoch from ``generator`` (an aakaar.Generator;
    the default generator when None, so ``aakaar.manual_seed`` fixes the order). ``num_workers``
    and ``pin_memory`` are accepted for PyTorch code; loading happens in this process (batches are
    gathered by native code, see the module docstring), and a value that cannot be honoured is said
    once, in a warning.
    """

    def __init__(self, dataset: Dataset, batch_size: int | None = 1, shuffle: bool | None = None,
                 sampler: Sampler | None = None, batch_sampler: Sampler | None = None, num_workers: int = 0,
                 collate_fn: Callable[[list], Any] | None = None, pin_memory: bool = False, drop_last: bool = False,
                 timeout: float = 0, worker_init_fn: Callable | None = None, generator: _C.Generator | None = None,
                 *, prefetch_factor: int | None = None, persistent_workers: bool = False,
                 pin_memory_device: str = "") -> None:
        self._iterable = isinstance(dataset, IterableDataset)
        if self._iterable:  # PyTorch's rules: the dataset decides the order, so no shuffle or sampler
            for name, value in (("shuffle", shuffle), ("sampler", sampler), ("batch_sampler", batch_sampler)):
                if value not in (None, False):
                    raise ValueError(f"DataLoader with IterableDataset: expected unspecified {name} option, "
                                     f"but got {name}={value!r}")
        if not isinstance(num_workers, int) or num_workers < 0:
            raise ValueError("num_workers option should be non-negative; use num_workers=0 to disable multiprocessing.")
        if timeout < 0:
            raise ValueError("timeout option should be non-negative")
        if sampler is not None and shuffle:
            raise ValueError("sampler option is mutually exclusive with shuffle")
        if batch_sampler is not None:
            if batch_size != 1 or shuffle or sampler is not None or drop_last:
                raise ValueError("batch_sampler option is mutually exclusive with batch_size, shuffle, sampler, and drop_last")
            batch_size, drop_last = None, False
        elif batch_size is None and drop_last:
            raise ValueError("batch_size=None option disables auto-batching and is mutually exclusive with drop_last")
        if num_workers > 0:
            warnings.warn(f"DataLoader: num_workers={num_workers} is not supported; loading in the main process "
                          "(batches are gathered in native code)", RuntimeWarning, stacklevel=2)
        if pin_memory and not _cuda_available():
            warnings.warn("DataLoader: pin_memory=True but no CUDA device is available; memory is not pinned",
                          UserWarning, stacklevel=2)
        self.dataset = dataset
        self.num_workers = num_workers
        self.pin_memory = pin_memory
        self.timeout = timeout
        self.worker_init_fn = worker_init_fn
        self.prefetch_factor = prefetch_factor
        self.persistent_workers = persistent_workers
        self.generator = generator
        if sampler is None and not self._iterable:
            sampler = RandomSampler(dataset, generator=generator) if shuffle else SequentialSampler(dataset)
        if batch_size is not None and batch_sampler is None and not self._iterable:
            batch_sampler = BatchSampler(sampler, batch_size, drop_last)
        self.sampler = sampler
        self.batch_sampler = batch_sampler
        self.batch_size = batch_size
        self.drop_last = drop_last
        self.collate_fn = collate_fn if collate_fn is not None else default_collate
        self._gathers = collate_fn is None and hasattr(dataset, "gather") and not self._iterable

    def _iterate_stream(self) -> Iterator[Any]:
        """An IterableDataset: its samples in its order, collated batch_size at a time."""
        if self.batch_size is None:
            yield from self.dataset
            return
        batch: list[Any] = []
        for sample in self.dataset:
            batch.append(sample)
            if len(batch) == self.batch_size:
                yield self.collate_fn(batch)
                batch = []
        if batch and not self.drop_last:
            yield self.collate_fn(batch)

    # [[book:dataloader_iter]]
    def __iter__(self) -> Iterator[Any]:
        if self._iterable:
            yield from self._iterate_stream()
            return
        if self.batch_sampler is None:  # automatic batching off: one sample at a time
            for i in self.sampler:
                yield self.dataset[i]
            return
        for indices in self.batch_sampler:
            if self._gathers:
                batch = self.dataset.gather(_C.from_numpy(np.asarray(indices, dtype=np.int64)))
                yield list(batch) if isinstance(batch, tuple) else batch
            else:
                yield self.collate_fn([self.dataset[i] for i in indices])
    # [[/book:dataloader_iter]]

    def __len__(self) -> int:
        if self._iterable:  # as torch: from the dataset's own len (a TypeError if it has none)
            n = len(self.dataset)
            if self.batch_size is None:
                return n
            return n // self.batch_size if self.drop_last else -(-n // self.batch_size)
        source = self.batch_sampler if self.batch_sampler is not None else self.sampler
        return len(source)  # type: ignore[arg-type]
