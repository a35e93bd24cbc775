"""``aakaar.utils.data``: PyTorch's ``torch.utils.data`` names, so ported code's
``from torch.utils.data import DataLoader, Dataset`` reads ``from aakaar.utils.data import ...``.
The implementations live in :mod:`aakaar.data` (chapter 16)."""

from ..data import (BatchSampler, ChainDataset, ConcatDataset, DataLoader, Dataset, IterableDataset, RandomSampler,
                    Sampler, SequentialSampler, StackDataset, Subset, SubsetRandomSampler, TensorDataset,
                    WeightedRandomSampler, default_collate, get_worker_info, random_split)

__all__ = ["BatchSampler", "ChainDataset", "ConcatDataset", "DataLoader", "Dataset", "IterableDataset", "RandomSampler",
           "Sampler", "SequentialSampler", "StackDataset", "Subset", "SubsetRandomSampler", "TensorDataset",
           "WeightedRandomSampler", "default_collate", "get_worker_info", "random_split"]
