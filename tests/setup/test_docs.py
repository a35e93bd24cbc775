"""What a newcomer reads on a fresh clone has no dead links: the clone has no ../shared, so
neither the README, docs/ nor the book may send a reader there; every relative link of the
README and docs/ names a file of the repository. The book's footer year is not frozen."""

from __future__ import annotations

import importlib.util
import re
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
DOCS = [REPO / "README.md", *sorted((REPO / "docs").glob("*.md"))]
BOOK = sorted((REPO / "book").glob("*.md"))
LINK = re.compile(r"\]\(([^)\s]+)\)")


@pytest.mark.parametrize("page", DOCS + BOOK, ids=lambda p: str(p.relative_to(REPO)))
def test_no_link_into_the_shared_folder(page):
    links = [target for target in LINK.findall(page.read_text()) if "shared/" in target]
    assert not links, f"{page.name} links outside the repository: {links}"


@pytest.mark.parametrize("page", DOCS, ids=lambda p: str(p.relative_to(REPO)))
def test_relative_links_name_files_of_the_repository(page):
    for target in LINK.findall(page.read_text()):
        if re.match(r"[a-z]+:", target) or target.startswith("#"):
            continue
        path = (page.parent / target.split("#")[0]).resolve()
        assert path.exists() and REPO in path.parents, f"{page.name}: dead link {target}"


def test_the_readme_links_the_design_in_the_repository():
    assert "](docs/DESIGN.md)" in (REPO / "README.md").read_text()
    design = (REPO / "docs" / "DESIGN.md").read_text()
    assert "csrc/core/backend.h" in design  # the one road from ops to kernels


def _copyright_module():
    spec = importlib.util.spec_from_file_location("copyright_year", REPO / "book" / "_ext" / "copyright_year.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_footer_copyright_runs_to_the_build_year(monkeypatch):
    m = _copyright_module()
    assert m.copyright_years("2025", 2027) == "2025–2027"
    assert m.copyright_years("2025", 2025) == "2025"
    assert m.copyright_years("the aakaar authors", 2027) == "the aakaar authors"
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "1893456000")  # 2030-01-01: reproducible builds pin the year
    assert m.build_year() == 2030
