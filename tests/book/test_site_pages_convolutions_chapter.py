"""The built site's chapter 13b (convolutions) in a real browser: no console errors, maths typeset,
and the convolution explorer renders and responds (a new kernel, a moved window); one screenshot goes
to artifacts/screenshots/.

The built site, its server and the browser are the session fixtures of conftest.py (built once).
"""
from __future__ import annotations

import pytest

from site_helpers import check_widget_chapter

pytestmark = pytest.mark.xdist_group("book-site")

NAME = "13b-convolutions"


def interact_conv_explorer(page):
    """The window starts at row 9, column 14 with Sobel x; the blur kernel's weights and a window moved
    to the top-left corner (its first row and column read the padding) must show in the summary."""
    from playwright.sync_api import expect
    w = page.locator(".ak-conv-explorer").first
    summary = w.locator(".ak-summary")
    expect(summary).to_contain_text("window centred at row 9, column 14")
    w.locator(".ak-kernel").select_option("blur (box)")
    expect(summary).to_contain_text("× 0.11")
    for cls, value in [(".ak-row", "0"), (".ak-col", "0")]:
        w.locator(cls).fill(value)
        w.locator(cls).dispatch_event("input")
    expect(summary).to_contain_text("window centred at row 0, column 0")
    expect(summary).to_contain_text("pixels outside the image are the padding's 0")
    w.locator(".ak-play").click()
    expect(summary).not_to_contain_text("row 0, column 0 ")
    w.locator(".ak-play").click()
    assert w.locator("canvas.ak-map").count() == 4
    w.scroll_into_view_if_needed()


@pytest.mark.slow
def test_convolutions_chapter_works_offline_in_chromium(chromium, site_url):
    check_widget_chapter(chromium, site_url, NAME, ".ak-conv-explorer", interact_conv_explorer)
