"""The built site: it builds with warnings as errors, and every page works offline in a real browser.

The browser is Debian's chromium (never a downloaded build) driven by Playwright. The site is served
on 127.0.0.1 and every request elsewhere is blocked and counted as a failure, so a page that needs
the network fails here. One screenshot per chapter goes to artifacts/screenshots/.
"""
from __future__ import annotations

import subprocess

import pytest

from site_helpers import REPO, SHOTS, open_page

pytestmark = pytest.mark.xdist_group("book-site")

PAGES = ["intro", "00-how-to-use-this-book", "01-a-tour-of-the-library", "02-storage-shape-strides",
         "03-views", "04-broadcasting-and-elementwise", "05-reductions", "source-map"]
WIDGET_PAGES = {"02-storage-shape-strides": 1, "03-views": 1, "04-broadcasting-and-elementwise": 1, "05-reductions": 1}
MATH_PAGES = [p for p in PAGES if p[:2].isdigit()]


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


def interact_stride_explorer(page):
    """Change the view operation and the shape; the widget must redraw in the browser."""
    from playwright.sync_api import expect
    w = page.locator(".ak-stride-explorer").first
    summary = w.locator(".ak-summary")
    before = summary.inner_text()
    w.locator(".ak-op").select_option("step")
    expect(summary).to_contain_text("t[..., ::2] -> shape")
    assert summary.inner_text() != before
    w.locator(".ak-shape").fill("2, 5")
    w.locator(".ak-shape").dispatch_event("change")  # a new shape resets strides to row-major
    expect(w.locator(".ak-strides")).to_have_value("5, 1")
    expect(w.locator(".ak-storage .ak-cell")).to_have_count(10)
    expect(summary).to_contain_text("t[..., ::2] -> shape (2, 3)  strides (5, 2)")
    w.scroll_into_view_if_needed()


def interact_broadcast(page):
    """Type shapes, including incompatible ones; the result must follow."""
    from playwright.sync_api import expect
    w = page.locator(".ak-broadcast-visualiser").first
    summary = w.locator(".ak-summary")
    for a, b, text in [("2, 3, 1", "4", "result shape (2, 3, 4)"), ("2, 3, 1", "5, 4", "cannot broadcast"),
                       ("2, 3, 1", "3, 4", "result shape (2, 3, 4)")]:
        w.locator(".ak-shape-a").fill(a)
        w.locator(".ak-shape-a").dispatch_event("change")
        w.locator(".ak-shape-b").fill(b)
        w.locator(".ak-shape-b").dispatch_event("change")
        expect(summary).to_contain_text(text)
    w.scroll_into_view_if_needed()


@pytest.mark.slow
@pytest.mark.parametrize("name", PAGES)
def test_page_works_offline_in_chromium(chromium, site_url, name):
    page, problems = open_page(chromium, f"{site_url}/{name}.html")
    try:
        if name in MATH_PAGES:
            # MathJax replaces every math node by an mjx-container; raw TeX left over means it failed
            page.wait_for_function("() => window.MathJax && MathJax.startup && MathJax.startup.promise")
            page.evaluate("() => MathJax.startup.promise")
            n_math = page.locator("mjx-container").count()
            assert n_math > 0, "no maths typeset"
            assert page.locator(".math:not(:has(mjx-container))").count() == 0, "some maths left as raw TeX"
        expected_widgets = WIDGET_PAGES.get(name, 0)
        if expected_widgets:
            page.wait_for_selector(".ak-widget", timeout=30_000)
            views = page.locator('script[type="application/vnd.jupyter.widget-view+json"]').count()
            assert page.locator(".ak-widget").count() == views >= expected_widgets
            if page.locator(".ak-stride-explorer").count():
                interact_stride_explorer(page)
            if page.locator(".ak-broadcast-visualiser").count():
                interact_broadcast(page)
        if name[:2].isdigit():
            SHOTS.mkdir(parents=True, exist_ok=True)
            page.screenshot(path=str(SHOTS / f"{name}.png"))
        assert problems == [], "\n".join(problems)
    finally:
        page.close()


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
