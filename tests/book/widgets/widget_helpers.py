"""Helpers shared by the widget tests: run a widget's JavaScript module under Node."""
from __future__ import annotations

import json
import pathlib
import shutil
import subprocess

REPO = pathlib.Path(__file__).resolve().parents[3]
WIDGETS = REPO / "aakaar" / "book" / "widgets"


def run_js(need_program, tmp_path, name: str, body: str):
    """Runs ``body`` under Node with the widget's module ``name`` imported as ``m``; returns what it
    prints as JSON. The .js is copied to a .mjs file, so any Node version loads it as an ES module."""
    node = need_program("node")
    target = tmp_path / (name.removesuffix(".js") + ".mjs")
    shutil.copy(WIDGETS / name, target)
    script = f"const m = await import({json.dumps(target.as_uri())});\n{body}"
    r = subprocess.run([node, "--input-type=module", "-e", script], capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr
    return json.loads(r.stdout)
