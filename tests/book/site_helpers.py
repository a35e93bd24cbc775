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
