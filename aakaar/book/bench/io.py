"""Writing benchmark results without ever leaving a half-written file."""

from __future__ import annotations

import json
import os
import tempfile
from typing import Any


def write_json_atomic(path: str, data: Any, indent: int = 2) -> None:
    """Writes JSON to a temporary file beside ``path``, then renames it into place."""
    directory = os.path.dirname(os.path.abspath(path))
    os.makedirs(directory, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=directory, prefix=".tmp-", suffix=".json")
    try:
        with os.fdopen(fd, "w") as f:
            json.dump(data, f, indent=indent)
            f.write("\n")
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        os.unlink(tmp)
        raise
