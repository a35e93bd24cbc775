"""Where the EMNIST files are, and what to say when they are not there.

The lookup order (docs/DESIGN.md, "Data"): an explicit folder, else the folder named by the
``AAKAAR_DATA`` environment variable (the files in it or in its ``emnist/`` subfolder), else
``../shared/data/emnist`` beside the repository (present in development and CI only). Whoever
falls back to synthetic data prints :func:`missing_message`: never a silent fallback.

The data-loader issue adds a downloader (and its cache to this order); until then the message
says where to get the official files by hand.
"""

from __future__ import annotations

import os
from pathlib import Path

ENV_VAR = "AAKAAR_DATA"
# ../shared/data/emnist relative to the repository root: development machines and CI only.
SHARED_DIR = Path(__file__).resolve().parents[2].parent / "shared" / "data" / "emnist"
# The official EMNIST archive (NIST), whose gzip/ folder holds the IDX files read here.
OFFICIAL_URL = "https://biometrics.nist.gov/cs_links/EMNIST/gzip.zip"
BYMERGE_TEST = ("emnist-bymerge-test-images-idx3-ubyte.gz", "emnist-bymerge-test-labels-idx1-ubyte.gz")


def candidates(folder: str | os.PathLike | None = None) -> list[Path]:
    """The folders looked in, in order."""
    if folder is not None:
        return [Path(folder)]
    found: list[Path] = []
    env = os.environ.get(ENV_VAR)
    if env:
        found += [Path(env), Path(env) / "emnist"]
    found.append(SHARED_DIR)
    return found


def find(files: tuple[str, ...] = BYMERGE_TEST, folder: str | os.PathLike | None = None) -> Path | None:
    """The first folder of :func:`candidates` that holds every one of ``files``, else None."""
    for d in candidates(folder):
        if all((d / f).is_file() for f in files):
            return d
    return None


def missing_message(files: tuple[str, ...] = BYMERGE_TEST, folder: str | os.PathLike | None = None,
                    used_instead: str = "synthetic data of the same shape") -> str:
    """Says, in plain words, that the files were not found, what is used instead and how to get them."""
    looked = ", ".join(map(str, candidates(folder)))
    return (
        f"EMNIST not found: no {' and '.join(files)} in {looked}. "
        f"Using {used_instead} instead, so the numbers say nothing about real handwriting. "
        f"To use the real files, download the official archive {OFFICIAL_URL}, "
        f"put the files above from its gzip/ folder into a folder (kept gzipped) "
        f"and set {ENV_VAR}=/path/to/that/folder (or pass the folder explicitly)."
    )
