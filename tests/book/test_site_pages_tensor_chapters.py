"""The built site's first pages (the introduction, chapters 0-5 on tensors, the source map) work
offline in a real browser: no console errors, maths typeset, the stride explorer and the broadcast
visualiser render and respond.

The browser is Debian's chromium (never a downloaded build) driven by Playwright. The site is served
on 127.0.0.1 and every request elsewhere is blocked and counted as a failure, so a page that needs
the network fails here. One screenshot per chapter goes to artifacts/screenshots/. The built site,
its server and the browser are the session fixtures of conftest.py (built once).
"""
from __future__ import annotations

import pytest

from site_helpers import SHOTS, open_page

pytestmark = pytest.mark.xdist_group("book-site")

PAGES = ["intro", "00-how-to-use-this-book", "01-a-tour-of-the-library", "02-storage-shape-strides",
         "03-views", "04-broadcasting-and-elementwise", "05-reductions", "source-map"]
WIDGET_PAGES = {"02-storage-shape-strides": 1, "03-views": 1, "04-broadcasting-and-elementwise": 1, "05-reductions": 1}
MATH_PAGES = [p for p in PAGES if p[:2].isdigit()]


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
