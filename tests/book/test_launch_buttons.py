"""The book's launch buttons and online notebooks, without building the site: where the repository's
address comes from, where the buttons lead, and the chapters written as notebooks with a set-up cell
(book/_ext/launch_buttons.py, aakaar/book/online.py). The built pages are checked in test_site_launch.py."""
from __future__ import annotations

import ast
import importlib.util
import json
import subprocess
import sys

import pytest

from site_helpers import REPO

spec = importlib.util.spec_from_file_location("launch_buttons", REPO / "book" / "_ext" / "launch_buttons.py")
launch = importlib.util.module_from_spec(spec)
spec.loader.exec_module(launch)


@pytest.mark.parametrize("remote, url", [
    ("git@github.com:someone/aakaar.git", "https://github.com/someone/aakaar"),
    ("https://github.com/someone/aakaar.git", "https://github.com/someone/aakaar"),
    ("https://github.com/someone/aakaar/", "https://github.com/someone/aakaar"),
])
def test_a_remote_becomes_its_web_address(remote, url):
    assert launch.https_url(remote) == url


def test_the_repository_is_found_in_the_order_documented(tmp_path):
    # tmp_path is no git checkout: without the variables there is no address, and the build says so
    assert launch.repository(tmp_path, env={})[0] is None
    actions = {"GITHUB_SERVER_URL": "https://github.com", "GITHUB_REPOSITORY": "o/r", "GITHUB_REF_NAME": "main"}
    assert launch.repository(tmp_path, env=actions)[:2] == ("https://github.com/o/r", "main")
    mine = {**actions, "AAKAAR_REPOSITORY_URL": "git@github.com:me/fork.git", "AAKAAR_REPOSITORY_BRANCH": "dev"}
    assert launch.repository(tmp_path, env=mine)[:2] == ("https://github.com/me/fork", "dev")
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    subprocess.run(["git", "-C", str(tmp_path), "remote", "add", "origin", "git@github.com:x/y.git"], check=True)
    assert launch.repository(tmp_path, env={})[0] == "https://github.com/x/y"


def test_binder_opens_the_chapter_notebook_and_colab_the_published_one():
    urls = launch.launch_urls("https://github.com/o/r", "main", "colab-notebooks", "06b-simd-packing-and-threads")
    assert urls["Binder"] == ("https://mybinder.org/v2/gh/o/r/main?urlpath=lab/tree/book/"
                              "06b-simd-packing-and-threads.ipynb")
    assert urls["Colab"] == ("https://colab.research.google.com/github/o/r/blob/colab-notebooks/"
                             "06b-simd-packing-and-threads.ipynb")


def test_every_chapter_becomes_a_notebook_with_its_cells_after_a_setup_cell(tmp_path, need_module):
    need_module("myst_nb")
    from myst_nb.core.read import read_myst_markdown_notebook

    from aakaar.book.online import SETUP_MARKER, chapters, write_notebooks

    written = write_notebooks(tmp_path, "https://github.com/o/r", "main")
    names = {p.stem for p in written}
    assert {"02-storage-shape-strides", "06-matmul-on-the-cpu", "06b-simd-packing-and-threads",
            "13b-convolutions"} <= names and "source-map" not in names
    assert names == {p.stem for p in chapters()}
    nb = json.loads((tmp_path / "06b-simd-packing-and-threads.ipynb").read_text())
    first, rest = nb["cells"][0], nb["cells"][1:]
    assert first["cell_type"] == "code" and first["source"].startswith(SETUP_MARKER)
    assert "'https://github.com/o/r', 'main'" in first["source"]
    source = read_myst_markdown_notebook((REPO / "book" / "06b-simd-packing-and-threads.md").read_text())
    assert [(c["cell_type"], c["source"]) for c in rest] == [(c.cell_type, c.source) for c in source.cells]
    assert all(c["outputs"] == [] for c in rest if c["cell_type"] == "code")
    nbformat = need_module("nbformat")
    nbformat.validate(nbformat.reads(json.dumps(nb), as_version=4))


@pytest.mark.parametrize("repository", [None, "https://github.com/o/r"])
def test_the_setup_cell_only_finds_the_book_where_aakaar_is_installed(repository):
    from aakaar.book.online import setup_cell

    source = setup_cell(repository, "main")
    ast.parse(source)
    # From the repository's root: aakaar is importable, so nothing is cloned or installed, and the
    # cell moves into book/ (where the chapters read data/...).
    r = subprocess.run([sys.executable, "-c", source],
                       cwd=REPO, capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == f"aakaar set up; working in {REPO / 'book'}"
