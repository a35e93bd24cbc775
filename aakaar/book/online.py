"""The book's chapters as Jupyter notebooks, for Binder and Colab.

    python -m aakaar.book.online notebooks --out DIR [--repository URL] [--branch NAME]

A chapter is a MyST markdown notebook (``book/NN-topic.md``), which the book's build executes but
which Binder's JupyterLab and Colab do not open as notebooks. This writes each as ``NN-topic.ipynb``
in ``DIR``: the same cells, without outputs, after a first set-up cell. The set-up cell does nothing
where ``aakaar`` is already installed (Binder, whose ``binder/postBuild`` installs it and writes the
notebooks beside the chapters; a local checkout); elsewhere (Colab) it clones ``URL`` at ``NAME``,
builds the library with pip, and moves into the clone's ``book/`` folder, where the chapters read
their data. The Pages workflow publishes the notebooks for Colab on the branch ``colab-notebooks``.
"""
from __future__ import annotations

import argparse
import json
import os
import pathlib
import sys

BOOK = pathlib.Path(__file__).resolve().parents[2] / "book"
SETUP_MARKER = "# aakaar set-up cell"

SETUP_CELL = '''\
{marker}: Colab (or any Python without aakaar) clones the repository and builds the library here.
# Building compiles the C++ core: about 10-20 minutes on the two cores of a free Colab machine.
# Where aakaar is installed already (Binder, a local checkout) this cell only finds the book's folder.
import importlib.util, os, pathlib, site, subprocess, sys
REPOSITORY, BRANCH = {repository!r}, {branch!r}
if importlib.util.find_spec("aakaar") is None:
    if REPOSITORY is None:
        raise RuntimeError("aakaar is not installed and this notebook does not name its repository: "
                           "set REPOSITORY to the address of the aakaar repository and run this cell again")
    if not pathlib.Path("aakaar").is_dir():
        subprocess.run(["git", "clone", "--depth", "1", "--branch", BRANCH, REPOSITORY, "aakaar"], check=True)
    subprocess.run([sys.executable, "-m", "pip", "install", "--quiet", "-e", "aakaar[book]"], check=True)
    for folder in site.getsitepackages():  # the editable install's .pth file, in this running kernel
        site.addsitedir(folder)
for book in (pathlib.Path("."), pathlib.Path("book"), pathlib.Path("aakaar/book"), pathlib.Path("../book")):
    if (book / "_toc.yml").is_file():
        os.chdir(book)  # the chapter reads its data relative to the book's folder
        break
print("aakaar set up; working in", os.getcwd())'''


def chapters(book: pathlib.Path = BOOK) -> list[pathlib.Path]:
    """The chapters that are notebooks: ``NN-topic.md`` or ``NNx-topic.md`` with a kernelspec."""
    return sorted(p for p in book.glob("[0-9][0-9]*-*.md") if "\nkernelspec:" in p.read_text()[:600])


def setup_cell(repository: str | None, branch: str) -> str:
    return SETUP_CELL.format(marker=SETUP_MARKER, repository=repository, branch=branch)


def chapter_notebook(path: pathlib.Path, repository: str | None, branch: str = "main") -> dict:
    """The chapter at ``path`` as an nbformat-4 notebook with the set-up cell first, no outputs."""
    from myst_nb.core.read import read_myst_markdown_notebook

    nb = read_myst_markdown_notebook(path.read_text(), path=str(path))
    cells = [{"cell_type": "code", "execution_count": None, "id": "aakaar-setup",
              "metadata": {"tags": ["aakaar-setup"]}, "outputs": [],
              "source": setup_cell(repository, branch)}]
    for k, cell in enumerate(nb.cells):
        out = {"cell_type": cell.cell_type, "id": f"cell-{k}", "metadata": dict(cell.metadata),
               "source": cell.source}
        if cell.cell_type == "code":
            out.update(execution_count=None, outputs=[])
        cells.append(out)
    metadata = {"kernelspec": {"display_name": "Python 3", "language": "python", "name": "python3"},
                "language_info": {"name": "python"}}
    return {"cells": cells, "metadata": metadata, "nbformat": 4, "nbformat_minor": 5}


def write_notebooks(out: pathlib.Path, repository: str | None, branch: str = "main",
                    book: pathlib.Path = BOOK) -> list[pathlib.Path]:
    """Writes every chapter as ``out/NAME.ipynb`` (atomically); returns the paths written."""
    out.mkdir(parents=True, exist_ok=True)
    written = []
    for chapter in chapters(book):
        target = out / f"{chapter.stem}.ipynb"
        tmp = target.with_name(f".{target.name}.tmp{os.getpid()}")
        tmp.write_text(json.dumps(chapter_notebook(chapter, repository, branch), indent=1, ensure_ascii=False) + "\n")
        os.replace(tmp, target)
        written.append(target)
    return written


def main(argv=None) -> int:
    p = argparse.ArgumentParser(prog="python -m aakaar.book.online", description=__doc__.split("\n")[0])
    sub = p.add_subparsers(dest="command", required=True)
    nb = sub.add_parser("notebooks", help="write every chapter as a notebook with a set-up cell")
    nb.add_argument("--out", required=True, type=pathlib.Path, help="folder to write the notebooks to")
    nb.add_argument("--repository", help="the repository's web address, for Colab's set-up cell to clone "
                                         "(default: none; the cell then asks for it)")
    nb.add_argument("--branch", default="main", help="the branch Colab's set-up cell clones (default main)")
    args = p.parse_args(argv)
    written = write_notebooks(args.out, args.repository, args.branch)
    print(f"wrote {len(written)} chapter notebooks to {args.out}"
          + ("" if args.repository else " (no --repository: their set-up cell cannot clone on Colab)"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
