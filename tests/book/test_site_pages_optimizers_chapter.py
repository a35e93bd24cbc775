"""The built site's chapter 15 (optimizers) in a real browser: no console errors, maths typeset, the
trajectory explorer renders and responds to its controls with no kernel behind it; a screenshot goes
to artifacts/screenshots/.

The built site, its server and the browser are the session fixtures of conftest.py (built once).
"""
from __future__ import annotations

import pytest

from site_helpers import check_widget_chapter

pytestmark = pytest.mark.xdist_group("book-site")

NAME = "15-optimizers"


def interact_trajectories(page):
    """Tick Adagrad, change Adam's learning rate, slide back to 30 steps: the summary follows."""
    from playwright.sync_api import expect
    w = page.locator(".ak-trajectory-explorer").first
    summary = w.locator(".ak-summary")
    expect(summary).to_contain_text("after 300 steps:")
    expect(summary).to_contain_text("Adam (lr=0.01, beta1=0.9)")
    expect(w.locator("canvas.ak-surface")).to_have_count(3)
    w.locator('.ak-tick[data-name="Adagrad"]').check()
    expect(summary).to_contain_text("Adagrad (lr=0.3)")
    adam_row = w.locator(".ak-optimizer").filter(has=page.locator('.ak-tick[data-name="Adam"]'))
    adam_row.locator(".ak-axis-lr").select_option(label="0.1")
    expect(summary).to_contain_text("Adam (lr=0.1, beta1=0.9)")
    w.locator(".ak-shown").fill("30")
    expect(summary).to_contain_text("after 30 steps:")
    w.locator('.ak-tick[data-name="SGD"]').uncheck()
    expect(summary).not_to_contain_text("SGD (")
    w.scroll_into_view_if_needed()


@pytest.mark.slow
def test_optimizers_chapter_works_offline_in_chromium(chromium, site_url):
    check_widget_chapter(chromium, site_url, NAME, ".ak-trajectory-explorer", interact_trajectories)
