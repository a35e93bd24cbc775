"""Datasets and data loading: the ``torch.utils.data`` of aakaar.

This package will hold ``Dataset``, ``TensorDataset``, ``DataLoader`` (batching,
shuffling with an aakaar ``Generator``) and the EMNIST dataset, found in an
explicit folder or ``AAKAAR_DATA``, then the download cache, then
``../shared/data/emnist``, with a labelled synthetic set and a plain message
when none is there. Until the book's data chapter fills it, the package is
empty, so that ``aakaar.data`` is importable.
"""
