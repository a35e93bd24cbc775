"""The built site's chapters 6 and 6b (matmul on the CPU) and 11-13 (autograd, modules) in a real browser: no
console errors, maths typeset, the blocking explorer and the graph stepper render and respond; one
screenshot per chapter goes to artifacts/screenshots/.

The built site, its server and the browser are the session fixtures of conftest.py (built once).
"""
from __future__ import annotations

import pytest

from site_helpers import SHOTS, open_page

pytestmark = pytest.mark.xdist_group("book-site")

PAGES = {"06-matmul-on-the-cpu": ".ak-stride-explorer", "06b-simd-packing-and-threads": ".ak-blocking-explorer", "11-the-computational-graph": ".ak-graph-stepper",
         "12-backward-passes": ".ak-graph-stepper", "13-modules-and-layers": ".ak-graph-stepper"}


def interact_blocking(page):
    """Grow KC until the B strip spills out of L1, then switch to float64."""
    from playwright.sync_api import expect
    w = page.locator(".ak-blocking-explorer").first
    summary = w.locator(".ak-summary")
    expect(summary).to_contain_text("every block fits")
    w.locator(".ak-kc").fill("4096")
    w.locator(".ak-kc").dispatch_event("change")
    expect(summary).to_contain_text("spills out of L1")
    w.locator(".ak-dtype").select_option("8")
    expect(summary).to_contain_text("float64")
    w.locator(".ak-mc").fill("0")
    w.locator(".ak-mc").dispatch_event("change")
    expect(summary).to_contain_text("MC must be a whole number >= 1")
    w.scroll_into_view_if_needed()


def interact_stepper(page):
    """Step forwards and back; run all; every node ends done."""
    from playwright.sync_api import expect
    w = page.locator(".ak-graph-stepper").first
    summary = w.locator(".ak-summary")
    expect(summary).to_contain_text("only the root has none")
    w.locator(".ak-step").click()
    expect(summary).to_contain_text("step 1:")
    expect(w.locator(".ak-node-running")).to_have_count(1)
    w.locator(".ak-step").click()
    w.locator(".ak-back").click()
    expect(summary).to_contain_text("step 1:")
    w.locator(".ak-run-all").click()
    expect(summary).to_contain_text("done: every node has run exactly once")
    n = w.locator(".ak-node").count()
    expect(w.locator(".ak-node-done")).to_have_count(n - 1)  # the last one is shown as running
    w.scroll_into_view_if_needed()


@pytest.mark.slow
@pytest.mark.parametrize("name", list(PAGES))
def test_matmul_or_autograd_chapter_works_offline_in_chromium(chromium, site_url, name):
    page, problems = open_page(chromium, f"{site_url}/{name}.html")
    try:
        page.wait_for_function("() => window.MathJax && MathJax.startup && MathJax.startup.promise")
        page.evaluate("() => MathJax.startup.promise")
        assert page.locator("mjx-container").count() > 0, "no maths typeset"
        assert page.locator(".math:not(:has(mjx-container))").count() == 0, "some maths left as raw TeX"
        page.wait_for_selector(PAGES[name], timeout=30_000)
        views = page.locator('script[type="application/vnd.jupyter.widget-view+json"]').count()
        assert page.locator(".ak-widget").count() == views >= 1
        if page.locator(".ak-blocking-explorer").count():
            interact_blocking(page)
        if page.locator(".ak-graph-stepper").count():
            interact_stepper(page)
        SHOTS.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(SHOTS / f"{name}.png"))
        assert problems == [], "\n".join(problems)
    finally:
        page.close()
