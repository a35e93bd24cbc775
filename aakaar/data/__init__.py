"""Datasets and data loading: the ``torch.utils.data`` of aakaar, and EMNIST.

``Dataset``, ``TensorDataset``, ``Subset``, ``ConcatDataset``, ``random_split``; the samplers;
``DataLoader`` (batching, shuffling with a seeded ``aakaar.Generator``; batches of tensor datasets
gathered in native code); ``EMNIST`` and the IDX reader. Where EMNIST's files are looked for is said
in :mod:`aakaar.data.emnist`.
"""
from .dataloader import DataLoader, default_collate, get_worker_info
from .dataset import (ChainDataset, ConcatDataset, Dataset, IterableDataset, StackDataset, Subset, TensorDataset,
                      random_split)
from .download import DownloadError
from .emnist import EMNIST, download_emnist, find_emnist, missing_emnist_message
from .idx import IdxError, read_idx
from .sampler import (BatchSampler, RandomSampler, Sampler, SequentialSampler, SubsetRandomSampler,
                      WeightedRandomSampler)

__all__ = [
    "Dataset", "IterableDataset", "TensorDataset", "Subset", "ConcatDataset", "ChainDataset", "StackDataset",
    "random_split", "Sampler", "SequentialSampler", "RandomSampler", "WeightedRandomSampler", "SubsetRandomSampler",
    "BatchSampler", "DataLoader", "default_collate", "get_worker_info", "EMNIST", "download_emnist", "DownloadError", "find_emnist", "missing_emnist_message", "IdxError", "read_idx",
]
