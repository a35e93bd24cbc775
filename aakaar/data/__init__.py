"""Datasets and data loading: the ``torch.utils.data`` of aakaar, and EMNIST.

``Dataset``, ``TensorDataset``, ``Subset``, ``ConcatDataset``, ``random_split``; the samplers;
``DataLoader`` (batching, shuffling with a seeded ``aakaar.Generator``; batches of tensor datasets
gathered in native code); ``EMNIST`` and the IDX reader. Where EMNIST's files are looked for is said
in :mod:`aakaar.data.emnist`.
"""
from .dataloader import DataLoader, default_collate
from .dataset import ConcatDataset, Dataset, Subset, TensorDataset, random_split
from .download import DownloadError
from .emnist import EMNIST, download_emnist, find_emnist, missing_emnist_message
from .idx import IdxError, read_idx
from .sampler import BatchSampler, RandomSampler, Sampler, SequentialSampler, SubsetRandomSampler

__all__ = [
    "Dataset", "TensorDataset", "Subset", "ConcatDataset", "random_split",
    "Sampler", "SequentialSampler", "RandomSampler", "SubsetRandomSampler", "BatchSampler",
    "DataLoader", "default_collate", "EMNIST", "download_emnist", "DownloadError", "find_emnist", "missing_emnist_message", "IdxError", "read_idx",
]
