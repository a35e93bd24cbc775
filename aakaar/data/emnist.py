"""EMNIST: handwritten digits and letters in the official gzip IDX files.

``EMNIST(root, split, train)`` reads ``emnist-{split}-{train|test}-{images-idx3|labels-idx1}-ubyte.gz``
and ``emnist-{split}-mapping.txt`` from the folder of NIST's archive (its ``gzip/`` folder). The
official images are stored transposed (column-major with respect to MNIST); they are turned back
here, so ``image[r, c]`` is row ``r``, column ``c`` of the character as written.

Where the files are looked for, in order (:func:`find_emnist`): ``root`` when given; else the
folder named by ``AAKAAR_DATA`` (the files in it or in its ``emnist/`` subfolder); else the
download cache (``$XDG_CACHE_HOME/aakaar/emnist``, by default ``~/.cache/aakaar/emnist``); else
``../shared/data/emnist`` beside a source checkout (development machines and CI only). When the
files are in none of them, ``download=True`` fetches NIST's archive into ``root`` (or the cache)
and extracts the split's files (:func:`download_emnist`); without it, the error says where it
looked and how to get them: never a silent fallback.
"""
from __future__ import annotations

import os
from pathlib import Path
from typing import Any, Callable

import numpy as np

from .. import _C
from .._C import Tensor
from .dataset import Dataset
from .download import DownloadError, download_file, extract_members
from .idx import IdxError, read_idx

__all__ = ["EMNIST", "SPLITS", "OFFICIAL_URL", "download_emnist", "find_emnist", "emnist_files", "missing_emnist_message"]

SPLITS = ("balanced", "byclass", "bymerge", "digits", "letters", "mnist")
ENV_VAR = "AAKAAR_DATA"
# NIST's official archive (about 560 MB); its gzip/ folder holds the files read here.
OFFICIAL_URL = "https://biometrics.nist.gov/cs_links/EMNIST/gzip.zip"
# NIST publishes no checksum of the archive; this MD5 is the one torchvision's EMNIST checks it
# against. (MD5 here guards against a damaged or truncated transfer, not against tampering.)
ARCHIVE_CHECKSUM = ("md5", "58c8d27c78d21e728a6bc7b3cc06412e")
# ../shared/data/emnist relative to a source checkout's root (aakaar/data/emnist.py -> parents[2]).
SHARED_DIR = Path(__file__).resolve().parents[2].parent / "shared" / "data" / "emnist"


def cache_dir() -> Path:
    """Where a download puts the files (and where they are looked for)."""
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "aakaar" / "emnist"


def emnist_files(split: str, train: bool) -> tuple[str, str, str]:
    """The names of the images, labels and mapping files of one split."""
    if split not in SPLITS:
        raise ValueError(f"EMNIST: unknown split {split!r}; the splits are {', '.join(SPLITS)}")
    part = "train" if train else "test"
    return (f"emnist-{split}-{part}-images-idx3-ubyte.gz", f"emnist-{split}-{part}-labels-idx1-ubyte.gz",
            f"emnist-{split}-mapping.txt")


def candidate_dirs(root: str | os.PathLike | None = None) -> list[Path]:
    """The folders looked in, in order (the module docstring explains the order)."""
    if root is not None:
        return [Path(root)]
    found: list[Path] = []
    env = os.environ.get(ENV_VAR)
    if env:
        found += [Path(env), Path(env) / "emnist"]
    found += [cache_dir(), SHARED_DIR]
    return found


def find_emnist(files: tuple[str, ...], root: str | os.PathLike | None = None) -> Path | None:
    """The first folder of :func:`candidate_dirs` that holds every one of ``files``, else None."""
    for d in candidate_dirs(root):
        if all((d / f).is_file() for f in files):
            return d
    return None


def missing_emnist_message(files: tuple[str, ...], root: str | os.PathLike | None = None,
                           used_instead: str | None = None) -> str:
    """Says, in plain words, that the files were not found, where they were looked for, what is used
    instead (when something is) and how to get them."""
    looked = ", ".join(map(str, candidate_dirs(root)))
    instead = (f" Using {used_instead} instead, so the numbers say nothing about real handwriting."
               if used_instead else "")
    return (f"EMNIST not found: no {' and '.join(files)} in {looked}.{instead} To get the official files, "
            f"download {OFFICIAL_URL}, put the files of its gzip/ folder (kept gzipped) into a folder, and pass "
            f"it as root= or set {ENV_VAR}=/path/to/that/folder.")


def download_emnist(files: tuple[str, ...], folder: Path, progress: bool = True) -> Path:
    """Fetches NIST's archive into ``folder`` (resuming a partial download, checking its checksum) and
    extracts ``files`` from its gzip/ folder next to it; returns ``folder``.

    The archive (``folder/gzip.zip``) is kept, so other splits are extracted later without a second
    download; delete it to reclaim the space.
    """
    try:
        archive = download_file(OFFICIAL_URL, folder / "gzip.zip", algorithm=ARCHIVE_CHECKSUM[0],
                                digest=ARCHIVE_CHECKSUM[1], progress=progress)
        extract_members(archive, [f"gzip/{f}" for f in files], folder)
    except DownloadError as e:
        raise DownloadError(f"EMNIST(download=True): {e}. " + missing_emnist_message(files, folder)) from e
    return folder


def read_mapping(path: Path) -> dict[int, str]:
    """label -> character, from a mapping file of ``label ascii_code`` lines."""
    mapping: dict[int, str] = {}
    for n, line in enumerate(path.read_text().splitlines(), 1):
        if not line.strip():
            continue
        parts = line.split()
        try:
            label, code = (int(p) for p in parts)
        except ValueError:
            raise IdxError(f"{path}, line {n}: expected 'label ascii_code', got {line!r}") from None
        if not 0 <= code < 0x110000:
            raise IdxError(f"{path}, line {n}: {code} is not a character code")
        mapping[label] = chr(code)
    if not mapping:
        raise IdxError(f"{path}: the mapping file is empty")
    return mapping


class EMNIST(Dataset):
    """One split of EMNIST as a dataset of ``(image, label)``: a (28, 28) uint8 tensor and an int.

    ``classes[label]`` is the character of a label (read from the split's mapping file). Without
    transforms, the DataLoader fetches whole batches natively (:meth:`gather`).
    """

    def __init__(self, root: str | os.PathLike | None = None, split: str = "balanced", train: bool = True,
                 download: bool = False, transform: Callable | None = None,
                 target_transform: Callable | None = None) -> None:
        files = emnist_files(split, train)
        folder = find_emnist(files, root)
        if folder is None and download:
            folder = download_emnist(files, Path(root) if root is not None else cache_dir())
        if folder is None:
            raise FileNotFoundError(missing_emnist_message(files, root) + " Or pass download=True.")
        images = read_idx(folder / files[0], expect_ndim=3)
        labels = read_idx(folder / files[1], expect_ndim=1)
        if images.shape[0] != labels.shape[0]:
            raise IdxError(f"{folder}: {files[0]} holds {images.shape[0]} images but {files[1]} "
                           f"{labels.shape[0]} labels")
        self.mapping = read_mapping(folder / files[2])
        bad = np.setdiff1d(np.unique(labels), np.fromiter(self.mapping, dtype=np.int64))
        if bad.size:
            raise IdxError(f"{folder / files[1]}: label {int(bad[0])} has no entry in {files[2]}")
        self.split, self.train, self.folder = split, train, folder
        self.transform, self.target_transform = transform, target_transform
        # The official files are transposed: turn each image back (one copy, at load time).
        self.data: Tensor = _C.from_numpy(np.ascontiguousarray(images.transpose(0, 2, 1)))
        self.targets: Tensor = _C.from_numpy(labels.astype(np.int64))
        self.classes = [self.mapping[k] for k in sorted(self.mapping)]

    def __len__(self) -> int:
        return self.data.shape[0]

    def __getitem__(self, index: int) -> tuple[Any, Any]:
        image, label = self.data[index], int(self.targets[index].item())
        if self.transform is not None:
            image = self.transform(image)
        if self.target_transform is not None:
            label = self.target_transform(label)
        return image, label

    def __getattr__(self, name: str) -> Any:
        # gather exists only without transforms (they apply per sample): the DataLoader asks with hasattr.
        if name == "gather" and self.__dict__.get("transform") is None and \
                self.__dict__.get("target_transform") is None:
            return self._gather
        raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")

    def _gather(self, indices: Tensor) -> tuple[Tensor, Tensor]:
        """The images (B, 28, 28) uint8 and labels (B,) int64 at ``indices``: two native index_selects."""
        return self.data.index_select(0, indices), self.targets.index_select(0, indices)

    def __repr__(self) -> str:
        return (f"EMNIST(split={self.split!r}, train={self.train}, samples={len(self)}, classes={len(self.classes)}, "
                f"folder={str(self.folder)!r})")
