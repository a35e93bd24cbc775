"""The built site's chapters 7-10 (the GPU) in a real browser: no console errors, maths typeset, and
the launch explorer of chapter 7 renders and responds (its logic runs in the browser).

Reuses the browser helpers of test_site.py and the freshness rule of test_site_part2.py."""
from __future__ import annotations

import functools
import http.server
import pathlib
import subprocess
import threading

import pytest

from test_site import CHROMIUM, CHROMIUM_ARGS, SHOTS, SITE, _QuietHandler, open_page

REPO = pathlib.Path(__file__).resolve().parents[2]
PAGES = ["07-the-cuda-programming-model", "08-elementwise-and-reductions-on-the-gpu", "09-matmul-on-the-gpu",
         "10-gpu-memory"]


def _site_is_fresh() -> bool:
    sources = [*(REPO / "book").glob("*.md"), *(REPO / "aakaar" / "widgets").glob("*.*"), REPO / "book" / "_toc.yml",
               REPO / "book" / "data" / "cuda-ladder.json"]
    pages = [SITE / f"{p}.html" for p in PAGES]
    if not all(p.is_file() for p in pages):
        return False
    return min(p.stat().st_mtime for p in pages) > max(s.stat().st_mtime for s in sources)


@pytest.fixture(scope="module")
def server3():
    if not _site_is_fresh():
        r = subprocess.run(["bash", "scripts/build_book.sh"], cwd=REPO, capture_output=True, text=True, timeout=1800)
        assert r.returncode == 0, "book build failed:\n" + r.stdout[-6000:] + r.stderr[-4000:]
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(_QuietHandler, directory=str(SITE)))
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}"
    httpd.shutdown()


@pytest.fixture(scope="module")
def browser3(need, need_module):
    need_module("playwright")
    need(pathlib.Path(CHROMIUM).exists(), f"{CHROMIUM} is missing (bash scripts/install_book_deps.sh)")
    from playwright.sync_api import sync_playwright
    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS)
        yield b
        b.close()


def interact_launch(page):
    """Coalesced by default; stride 32 touches 32 segments; a bad block size is an error in the page."""
    from playwright.sync_api import expect
    w = page.locator(".ak-launch-explorer").first
    summary = w.locator(".ak-summary")
    expect(summary).to_contain_text("gridDim.x = ceil(200 / 64) = 4 blocks")
    expect(summary).to_contain_text("1 segment of 128 bytes, 100.0% of the fetched bytes used (coalesced)")
    w.locator(".ak-stride").fill("32")
    w.locator(".ak-stride").dispatch_event("change")
    expect(summary).to_contain_text("32 segments of 128 bytes, 3.1% of the fetched bytes used")
    w.locator(".ak-warp").fill("6")
    w.locator(".ak-warp").dispatch_event("change")
    expect(summary).to_contain_text("8 active")
    w.locator(".ak-block").fill("4096")
    w.locator(".ak-block").dispatch_event("change")
    expect(summary).to_contain_text("blockDim.x must be 1 to 1024")
    w.scroll_into_view_if_needed()


@pytest.mark.slow
@pytest.mark.parametrize("name", PAGES)
def test_gpu_chapter_works_offline_in_chromium(browser3, server3, name):
    page, problems = open_page(browser3, f"{server3}/{name}.html")
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
