"""What the browser tests of the built site share: where the site is, how Chromium is started, and
how a page is opened with every request outside 127.0.0.1 blocked and counted as a problem.

The fixtures built on these (the built site, its server, the browser) are in conftest.py.
"""
from __future__ import annotations

import http.server
import pathlib

REPO = pathlib.Path(__file__).resolve().parents[2]
SITE = REPO / "book" / "_build" / "html"
SHOTS = REPO / "artifacts" / "screenshots"
CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                 "--disable-component-update"]


class QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args):
        pass


def open_page(browser, url):
    """Load `url` with every non-local request blocked; return (page, problems list)."""
    page = browser.new_page(viewport={"width": 1280, "height": 900})
    problems = []

    def route(r):
        if r.request.url.startswith(("http://127.0.0.1", "data:", "blob:")):
            r.continue_()
        else:
            problems.append(f"request outside 127.0.0.1: {r.request.url}")
            r.abort()

    page.route("**/*", route)
    page.on("console", lambda m: problems.append(f"console {m.type}: {m.text}") if m.type == "error" else None)
    page.on("pageerror", lambda e: problems.append(f"page error: {e}"))
    page.on("requestfailed", lambda r: problems.append(f"failed request: {r.url} ({r.failure})"))
    page.on("response", lambda r: problems.append(f"HTTP {r.status}: {r.url}") if r.status >= 400 else None)
    page.goto(url, wait_until="load")
    page.wait_for_load_state("networkidle")
    return page, problems


def check_widget_chapter(browser, site_url, name, widget_selector, interact):
    """Open chapter `name` of the built site: its maths typeset, every embedded widget view rendered,
    `interact(page)` drives the chapter's widget `widget_selector`, a screenshot goes to SHOTS, and no
    console error, failed or outside request happened on the way."""
    page, problems = open_page(browser, f"{site_url}/{name}.html")
    try:
        page.wait_for_function("() => window.MathJax && MathJax.startup && MathJax.startup.promise")
        page.evaluate("() => MathJax.startup.promise")
        assert page.locator("mjx-container").count() > 0, "no maths typeset"
        assert page.locator(".math:not(:has(mjx-container))").count() == 0, "some maths left as raw TeX"
        page.wait_for_selector(widget_selector, timeout=30_000)
        views = page.locator('script[type="application/vnd.jupyter.widget-view+json"]').count()
        assert page.locator(".ak-widget").count() == views >= 1
        interact(page)
        SHOTS.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(SHOTS / f"{name}.png"))
        assert problems == [], "\n".join(problems)
    finally:
        page.close()
