"""The built site's chapters 7-10 (the GPU) in a real browser: no console errors, maths typeset, and
the launch explorer of chapter 7 renders and responds (its logic runs in the browser).

The built site, its server and the browser are the session fixtures of conftest.py (built once)."""
from __future__ import annotations

import pytest

from site_helpers import SHOTS, open_page

pytestmark = pytest.mark.xdist_group("book-site")

PAGES = ["07-the-cuda-programming-model", "08-elementwise-and-reductions-on-the-gpu", "09-matmul-on-the-gpu",
         "10-gpu-memory"]


def interact_launch(page):
    """Coalesced by default (4 sectors); stride 32 touches 32 sectors; a bad block size is an error in the page."""
    from playwright.sync_api import expect
    w = page.locator(".ak-launch-explorer").first
    summary = w.locator(".ak-summary")
    expect(summary).to_contain_text("gridDim.x = ceil(200 / 64) = 4 blocks")
    expect(summary).to_contain_text("4 sectors of 32 bytes, 100.0% of the fetched bytes used (coalesced)")
    w.locator(".ak-stride").fill("32")
    w.locator(".ak-stride").dispatch_event("change")
    expect(summary).to_contain_text("32 sectors of 32 bytes, 12.5% of the fetched bytes used")
    w.locator(".ak-warp").fill("6")
    w.locator(".ak-warp").dispatch_event("change")
    expect(summary).to_contain_text("8 active")
    w.locator(".ak-block").fill("4096")
    w.locator(".ak-block").dispatch_event("change")
    expect(summary).to_contain_text("blockDim.x must be 1 to 1024")
    w.scroll_into_view_if_needed()


@pytest.mark.slow
@pytest.mark.parametrize("name", PAGES)
def test_gpu_chapter_works_offline_in_chromium(chromium, site_url, name):
    page, problems = open_page(chromium, f"{site_url}/{name}.html")
    try:
        page.wait_for_function("() => window.MathJax && MathJax.startup && MathJax.startup.promise")
        page.evaluate("() => MathJax.startup.promise")
        assert page.locator(".math:not(:has(mjx-container))").count() == 0, "some maths left as raw TeX"
        views = page.locator('script[type="application/vnd.jupyter.widget-view+json"]').count()
        if name.startswith("07"):
            page.wait_for_selector(".ak-launch-explorer", timeout=30_000)
            assert page.locator(".ak-widget").count() == views >= 1
            interact_launch(page)
        assert page.locator("img").count() >= 1 or name.startswith("09"), "the chapter's figures are missing"
        SHOTS.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(SHOTS / f"{name}.png"))
        assert problems == [], "\n".join(problems)
    finally:
        page.close()
