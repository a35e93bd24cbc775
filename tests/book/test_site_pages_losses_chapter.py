"""The built site's chapter 14 (loss functions) in a real browser: no console errors, maths typeset,
and the loss explorer renders and responds (a new loss, a new parameter, a dragged point); one
screenshot goes to artifacts/screenshots/.

The built site, its server and the browser are the session fixtures of conftest.py (built once).
"""
from __future__ import annotations

import pytest

from site_helpers import check_widget_chapter

pytestmark = pytest.mark.xdist_group("book-site")

NAME = "14-losses"


def interact_loss_explorer(page):
    """Huber at x = 1.5 (inside delta = 1's clip); Huber's delta moved; then the cross-entropy with
    label smoothing (its minimum in view); then a click at the left end of the plot and a bad x."""
    from playwright.sync_api import expect
    w = page.locator(".ak-loss-explorer").first
    summary = w.locator(".ak-summary")
    expect(summary).to_contain_text("at x = 1.50: loss 1.0000, gradient 1.0000")
    w.locator(".ak-param").fill("2")  # delta = 2: x = 1.5 is now in the quadratic part
    expect(summary).to_contain_text("delta = 2.00")
    expect(summary).to_contain_text("loss 1.1250, gradient 1.5000")
    w.locator(".ak-loss").select_option("cross_entropy")
    expect(summary).to_contain_text("CrossEntropyLoss")
    w.locator(".ak-param").fill("0.1")
    expect(summary).to_contain_text("minimum at x = 4.511")  # log(1 + C (1 - eps) / eps) = log 91
    box = w.locator("svg").first.bounding_box()
    page.mouse.move(box["x"] + 2, box["y"] + box["height"] / 2)
    page.mouse.down(); page.mouse.up()
    expect(summary).to_contain_text("at x = -3.00")  # the cross-entropy's axis starts at -3
    w.locator(".ak-x").fill("abc")
    w.locator(".ak-x").dispatch_event("change")
    expect(summary).to_contain_text("error: x must be a number")
    w.scroll_into_view_if_needed()


@pytest.mark.slow
def test_losses_chapter_works_offline_in_chromium(chromium, site_url):
    check_widget_chapter(chromium, site_url, NAME, ".ak-loss-explorer", interact_loss_explorer)
