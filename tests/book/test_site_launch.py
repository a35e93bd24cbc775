"""The built site's header buttons: every chapter offers its executed notebook for download, and, when
the build knew the repository's address, Binder and Colab buttons that open the chapter as a notebook
(book/_ext/launch_buttons.py). The book-site fixture builds with a placeholder address (conftest.py)
unless AAKAAR_REPOSITORY_URL is set, so these links are checked here too.
"""
from __future__ import annotations

import html
import importlib.util
import json
import re

import pytest

from site_helpers import REPO

pytestmark = pytest.mark.xdist_group("book-site")

spec = importlib.util.spec_from_file_location("launch_buttons", REPO / "book" / "_ext" / "launch_buttons.py")
launch = importlib.util.module_from_spec(spec)
spec.loader.exec_module(launch)

CHAPTERS = sorted(p.stem for p in (REPO / "book").glob("[0-9][0-9]*-*.md"))


def hrefs(page_html: str) -> list[str]:
    return [html.unescape(h) for h in re.findall(r'href="([^"]+)"', page_html)]


@pytest.mark.slow
@pytest.mark.parametrize("name", CHAPTERS)
def test_each_chapter_has_a_notebook_download(built_site, name):
    text = (built_site / f"{name}.html").read_text()
    assert "download-notebook-button" in text, f"{name}: no .ipynb download button"
    links = [h for h in hrefs(text) if h.endswith(f"_sources/{name}.ipynb")]
    assert links, f"{name}: the download button does not lead to _sources/{name}.ipynb"
    nb = json.loads((built_site / "_sources" / f"{name}.ipynb").read_text())
    outputs = [o for c in nb["cells"] if c["cell_type"] == "code" for o in c.get("outputs", [])]
    assert outputs, f"{name}: the downloaded notebook carries no outputs (it should be the executed one)"


@pytest.mark.slow
@pytest.mark.parametrize("name", CHAPTERS)
def test_each_chapter_has_binder_and_colab_buttons(built_site, name):
    info = json.loads((built_site / "_launch.json").read_text())
    if not info["repository"]:
        pytest.skip("the build knew no repository address: no launch buttons (see _ext/launch_buttons.py)")
    text = (built_site / f"{name}.html").read_text()
    assert "launch-buttons" in text, f"{name}: no launch buttons"
    want = launch.launch_urls(info["repository"], info["branch"], info["colab_branch"], name)
    links = hrefs(text)
    for service, url in want.items():
        assert url in links, f"{name}: no {service} link to {url}"


@pytest.mark.slow
def test_pages_that_are_not_notebooks_have_no_launch_buttons(built_site):
    text = (built_site / "source-map.html").read_text()
    assert "launch-buttons" not in text and "download-notebook-button" not in text
