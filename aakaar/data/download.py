"""Downloading a file so that nothing half-written is ever trusted.

The bytes go to ``<name>.part`` beside the target. A partial file left by an interrupted run is
resumed with an HTTP ``Range`` request (a server that ignores it sends the whole file again, and
the part file starts over); a connection that drops mid-transfer is resumed the same way, a few
times. Only when every byte is there and the checksum matches is the part file renamed to the
target, atomically; a mismatch deletes it. Extraction from a zip archive writes each member to a
temporary file and renames it the same way.
"""
from __future__ import annotations

import hashlib
import http.client
import os
import shutil
import socket
import tempfile
import urllib.error
import urllib.request
import zipfile
from pathlib import Path
from typing import Iterable

__all__ = ["DownloadError", "download_file", "extract_members", "file_digest"]


class DownloadError(RuntimeError):
    """A download that could not be completed or whose checksum did not match."""


def file_digest(path: Path, algorithm: str) -> str:
    """The hex digest of the file at ``path`` (``algorithm``: any name hashlib knows, e.g. "sha256")."""
    h = hashlib.new(algorithm)
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def _fetch_into(url: str, part: Path, timeout: float, progress: bool) -> None:
    """Appends the rest of ``url`` to ``part`` (resuming from its size); raises OSError-likes on a drop."""
    have = part.stat().st_size if part.exists() else 0
    request = urllib.request.Request(url, headers={"Range": f"bytes={have}-"} if have else {})
    try:
        response = urllib.request.urlopen(request, timeout=timeout)
    except urllib.error.HTTPError as e:
        if e.code == 416 and have:  # the part file already holds every byte
            return
        raise
    with response:
        resumed = have and response.status == 206
        if not resumed:
            have = 0  # the server sent the whole file: start over
        length = response.headers.get("Content-Length")
        total = have + int(length) if length is not None else None
        bar = None
        if progress:
            from tqdm.auto import tqdm

            bar = tqdm(total=total, initial=have, unit="B", unit_scale=True, desc=part.name.removesuffix(".part"))
        try:
            with open(part, "ab" if resumed else "wb") as out:
                received = have
                while True:
                    block = response.read(1 << 16)
                    if not block:
                        break
                    out.write(block)
                    received += len(block)
                    if bar is not None:
                        bar.update(len(block))
            if total is not None and received < total:
                raise http.client.IncompleteRead(b"", total - received)
        finally:
            if bar is not None:
                bar.close()


def download_file(url: str, target: str | os.PathLike, *, algorithm: str, digest: str, retries: int = 3,
                  timeout: float = 60.0, progress: bool = True) -> Path:
    """Downloads ``url`` to ``target`` unless it is already there with the right checksum; returns ``target``.

    ``digest`` is the expected hex digest under ``algorithm``. Raises :class:`DownloadError` when the
    transfer fails ``retries + 1`` times in a row or the checksum does not match (the part file is
    then deleted, so no later run trusts it).
    """
    target = Path(target)
    if target.is_file() and file_digest(target, algorithm) == digest:
        return target
    target.parent.mkdir(parents=True, exist_ok=True)
    part = target.with_name(target.name + ".part")
    errors: list[str] = []
    for attempt in range(retries + 1):
        try:
            _fetch_into(url, part, timeout, progress)
            break
        except (OSError, http.client.HTTPException, socket.timeout) as e:
            errors.append(f"attempt {attempt + 1}: {type(e).__name__}: {e}")
    else:
        raise DownloadError(f"could not download {url} ({'; '.join(errors)}); the {part.stat().st_size if part.exists() else 0} "
                            f"bytes received so far are kept in {part} and the next attempt resumes from them")
    got = file_digest(part, algorithm)
    if got != digest:
        part.unlink()
        raise DownloadError(f"{url}: {algorithm} checksum mismatch (expected {digest}, got {got}); the download was "
                            "deleted")
    os.replace(part, target)
    return target


def extract_members(archive: str | os.PathLike, members: Iterable[str], folder: str | os.PathLike) -> list[Path]:
    """Extracts the named members of a zip archive into ``folder`` (flat: by base name), each atomically."""
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    out: list[Path] = []
    try:
        with zipfile.ZipFile(archive) as z:
            names = set(z.namelist())
            for member in members:
                if member not in names:
                    raise DownloadError(f"{archive}: the archive has no member {member!r}")
                dest = folder / Path(member).name
                fd, tmp = tempfile.mkstemp(dir=folder, prefix=dest.name + ".", suffix=".tmp")
                try:
                    with z.open(member) as src, os.fdopen(fd, "wb") as dst:
                        shutil.copyfileobj(src, dst, 1 << 20)
                    os.chmod(tmp, 0o644)
                    os.replace(tmp, dest)
                except BaseException:
                    Path(tmp).unlink(missing_ok=True)
                    raise
                out.append(dest)
    except zipfile.BadZipFile as e:
        raise DownloadError(f"{archive}: not a valid zip archive ({e})") from e
    return out
