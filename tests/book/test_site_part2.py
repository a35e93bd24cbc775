"""The built site's chapters 6 and 11-13 in a real browser: no console errors, maths typeset, the
widgets render and respond; one screenshot per chapter goes to artifacts/screenshots/.

Reuses the browser helpers of test_site.py. The site is built unless it is newer than every chapter
and widget source (test_site.py builds it first when both files run in one session).
"""
from __future__ import annotations

import functools
import http.server
import pathlib
import subprocess
import threading

import pytest

from test_site import CHROMIUM, CHROMIUM_ARGS, SHOTS, SITE, _QuietHandler, open_page

REPO = pathlib.Path(__file__).resolve().parents[2]
PAGES = {"06-matmul-on-the-cpu": ".ak-blocking-explorer", "11-the-computational-graph": ".ak-graph-stepper",
         "12-backward-passes": ".ak-graph-stepper", "13-modules-and-layers": ".ak-graph-stepper"}


def _site_is_fresh() -> bool:
    sources = [*(REPO / "book").glob("*.md"), *(REPO / "aakaar" / "widgets").glob("*.*"), REPO / "book" / "_toc.yml"]
    pages = [SITE / f"{p}.html" for p in PAGES]
    if not all(p.is_file() for p in pages):
        return False
    return min(p.stat().st_mtime for p in pages) > max(s.stat().st_mtime for s in sources)


@pytest.fixture(scope="module")
def site():
    if not _site_is_fresh():
        r = subprocess.run(["bash", "scripts/build_book.sh"], cwd=REPO, capture_output=True, text=True, timeout=1800)
        assert r.returncode == 0, "book build failed:\n" + r.stdout[-6000:] + r.stderr[-4000:]
    return SITE


@pytest.fixture(scope="module")
def server2(site):
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(_QuietHandler, directory=str(site)))
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}"
    httpd.shutdown()


@pytest.fixture(scope="module")
def browser2(need, need_module):
    need_module("playwright")
    need(pathlib.Path(CHROMIUM).exists(), f"{CHROMIUM} is missing (bash scripts/install_book_deps.sh)")
    from playwright.sync_api import sync_playwright
    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS)
        yield b
        b.close()


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
def test_new_chapter_works_offline_in_chromium(browser2, server2, name):
    page, problems = open_page(browser2, f"{server2}/{name}.html")
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
