"""The package's two halves stay apart: the library (everything in aakaar/ outside aakaar/book) never
imports the book's tooling (aakaar.book), so it works without the book's dependencies and a reader
sees which code is the library and which code teaches it (see aakaar/book/__init__.py)."""
from __future__ import annotations

import ast
import json
import pathlib
import subprocess
import sys

PACKAGE = pathlib.Path(__file__).resolve().parents[2] / "aakaar"
BOOK = PACKAGE / "book"


def _library_files() -> list[pathlib.Path]:
    return sorted(p for p in PACKAGE.rglob("*.py") if BOOK not in p.parents)


def _imported_modules(path: pathlib.Path) -> list[str]:
    """Absolute names of every module `path` imports (relative imports resolved)."""
    parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
    package = parts if parts[-1] == "__init__" else parts[:-1]
    package = [p for p in package if p != "__init__"]
    names = []
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            names += [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = package[:len(package) - node.level + 1] if node.level else []
            module = ".".join(base + ([node.module] if node.module else []))
            names += [module] + [f"{module}.{a.name}" for a in node.names]
    return names


def test_library_sources_never_import_aakaar_book():
    files = _library_files()
    assert PACKAGE / "nn" / "module.py" in files and not any(BOOK in p.parents for p in files)
    offenders = [f"{p.relative_to(PACKAGE.parent)}: {name}" for p in files for name in _imported_modules(p)
                 if name == "aakaar.book" or name.startswith("aakaar.book.")]
    assert offenders == [], "the library imports the book's tooling:\n" + "\n".join(offenders)


def test_importing_the_whole_library_loads_nothing_of_the_book():
    script = """
import importlib, json, pkgutil, sys
import aakaar

def walk(path, prefix):  # not pkgutil.walk_packages: it would import aakaar.book to look inside
    for m in pkgutil.iter_modules(path, prefix):
        if m.name != "aakaar.book":
            module = importlib.import_module(m.name)
            if m.ispkg:
                walk(module.__path__, m.name + ".")

walk(aakaar.__path__, "aakaar.")
print(json.dumps(sorted(n for n in sys.modules if n == "aakaar.book" or n.startswith("aakaar.book."))))
"""
    r = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout.strip().splitlines()[-1]) == []
