"""The built site: it builds with warnings as errors, serves its JavaScript itself, and a failing
chapter cell fails the build.

The built site is the session fixture of conftest.py (built once); the pages are opened in a browser
by the test_site_pages_*.py files.
"""
from __future__ import annotations

import re
import subprocess

import pytest

from site_helpers import REPO

pytestmark = pytest.mark.xdist_group("book-site")

# every page of the table of contents: its root and each `- file:` entry
TOC = (REPO / "book" / "_toc.yml").read_text()
PAGES = re.findall(r"^root: (\S+)", TOC, re.M) + re.findall(r"^\s*- file: (\S+)", TOC, re.M)


@pytest.mark.slow
def test_book_builds_with_warnings_as_errors(built_site):
    for page in PAGES:
        assert (built_site / f"{page}.html").is_file(), f"{page}.html was not built"
    # the vendored front ends are served by the site itself
    for asset in ["mathjax/tex-chtml.js", "require.js", "html-manager/embed-amd.js", "anywidget/index.js",
                  "widgets-requirejs-config.js"]:
        assert (built_site / "_static" / asset).is_file(), asset
    html = (built_site / "02-storage-shape-strides.html").read_text()
    assert "application/vnd.jupyter.widget-state+json" in html, "widget state was not embedded"
    assert "cdn.jsdelivr" not in html and "cdnjs" not in html and "unpkg" not in html


@pytest.mark.slow
def test_a_failing_cell_fails_the_build(tmp_path, need_module):
    """The book's own configuration turns an exception in any chapter cell into a failed build."""
    need_module("jupyter_book")
    import shutil
    book = tmp_path / "book"
    book.mkdir()
    shutil.copy(REPO / "book" / "_config.yml", book / "_config.yml")
    shutil.copytree(REPO / "book" / "_ext", book / "_ext")
    (book / "_vendor").mkdir()
    (book / "_toc.yml").write_text("format: jb-book\nroot: intro\nchapters:\n  - file: page\n")
    (book / "intro.md").write_text("# Intro\n")
    header = ("---\njupytext:\n  text_representation:\n    extension: .md\n    format_name: myst\n"
              "kernelspec:\n  display_name: Python 3\n  language: python\n  name: python3\n---\n# Page\n\n")
    cell = "```{code-cell} ipython3\n%s\n```\n"

    def build():
        return subprocess.run(["jupyter-book", "build", str(book), "--all", "-W", "--keep-going"],
                              capture_output=True, text=True, timeout=600)

    (book / "page.md").write_text(header + cell % "print(1 + 1)")
    ok = build()
    assert ok.returncode == 0, ok.stdout[-3000:] + ok.stderr[-3000:]
    (book / "page.md").write_text(header + cell % "print(1 + 1)" + "\n" + cell % "raise ValueError('deliberate')")
    bad = build()
    assert bad.returncode != 0
    assert "CellExecutionError" in bad.stdout + bad.stderr
