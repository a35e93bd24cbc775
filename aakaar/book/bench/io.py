"""Writing benchmark results without ever leaving a half-written file."""

from __future__ import annotations

import json
import os
import tempfile
from typing import Any


def _umask() -> int:
    # The only portable way to read the umask is to set it; set it straight back.
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def write_json_atomic(path: str, data: Any, indent: int = 2) -> None:
    """Writes JSON to a temporary file beside ``path``, then renames it into place.

    The file gets the mode a plain ``open(path, "w")`` would give it (0644 under the usual
    umask 022): mkstemp creates its file 0600, readable by its owner only, which would leave
    results written as root unreadable to everyone else.
    """
    directory = os.path.dirname(os.path.abspath(path))
    os.makedirs(directory, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=directory, prefix=".tmp-", suffix=".json")
    try:
        os.fchmod(fd, 0o666 & ~_umask())
        with os.fdopen(fd, "w") as f:
            json.dump(data, f, indent=indent)
            f.write("\n")
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        os.unlink(tmp)
        raise
