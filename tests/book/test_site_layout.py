"""Every page of the built site fits its window, at 1280 px and at 800 px: wide content (a long error,
a table of timings, a long listing line) scrolls inside its own box instead of spilling over the page
or being cut off. One screenshot per page and width goes to artifacts/screenshots/layout/.
"""
from __future__ import annotations

import pytest

from site_helpers import REPO, SHOTS, open_page

pytestmark = pytest.mark.xdist_group("book-site")

PAGES = sorted(p.stem for p in (REPO / "book").glob("*.md"))
WIDTHS = [1280, 800]

# Content that leaves its page: an element whose content runs past the right edge of the text column
# (it spills over the margin or off the window), or that its box cuts off (overflow hidden or clip).
# Content that scrolls inside its own box (overflow auto or scroll) fits. Inline elements (clientWidth
# 0) have no box of their own. MathJax's inline boxes (span.math) report the width of the hidden
# MathML copy it keeps for screen readers (mjx-assistive-mml), not of what is drawn, so they and that
# copy are left out (the screenshots show the drawn maths).
OVERFLOW_JS = """() => {
  const found = [];
  const column = document.querySelector("article") || document.querySelector("main") || document.body;
  const right = column.getBoundingClientRect().right;
  for (const el of column.querySelectorAll("*")) {
    if (el.clientWidth === 0 || el.scrollWidth <= el.clientWidth + 1) continue;
    if (el.matches("span.math") || el.closest("mjx-assistive-mml")) continue;
    const cs = getComputedStyle(el);
    if (cs.display === "none" || cs.visibility === "hidden") continue;
    if (["auto", "scroll"].includes(cs.overflowX)) continue;
    const name = el.tagName.toLowerCase() + [...el.classList].slice(0, 3).map(c => "." + c).join("");
    const box = el.getBoundingClientRect();
    const cut = ["hidden", "clip"].includes(cs.overflowX);
    const spills = box.left + el.scrollWidth > right + 1;
    if (cut || spills)
      found.push(`${name}: content ${el.scrollWidth}px wide in a ${el.clientWidth}px box ` +
                 (cut ? "(cut off)" : `(runs ${Math.round(box.left + el.scrollWidth - right)}px past the column)`));
  }
  // A widget's SVG label must stay inside the box drawn for it (a <g> holding one <rect> and its <text>s).
  for (const g of column.querySelectorAll("svg g")) {
    const rect = g.querySelector(":scope > rect"), texts = g.querySelectorAll(":scope > text");
    if (!rect || !texts.length) continue;
    const box = rect.getBBox();
    for (const t of texts) {
      const b = t.getBBox();
      if (b.width > 0 && (b.x < box.x - 1 || b.x + b.width > box.x + box.width + 1))
        found.push(`svg label "${t.textContent}" is ${Math.round(b.width)}px wide in a ${Math.round(box.width)}px box`);
    }
  }
  const page = document.documentElement.scrollWidth;
  if (page > window.innerWidth + 1) found.unshift(`the page is ${page}px wide in a ${window.innerWidth}px window`);
  return found;
}"""


@pytest.mark.slow
@pytest.mark.parametrize("width", WIDTHS)
@pytest.mark.parametrize("name", PAGES)
def test_page_content_fits_its_boxes(chromium, site_url, name, width):
    page, _ = open_page(chromium, f"{site_url}/{name}.html")
    try:
        page.set_viewport_size({"width": width, "height": 900})
        page.wait_for_timeout(300)  # let the theme re-lay the page out for the narrower window
        overflowing = page.evaluate(OVERFLOW_JS)
        (SHOTS / "layout").mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(SHOTS / "layout" / f"{name}-{width}.png"), full_page=False)
    finally:
        page.close()
    assert not overflowing, f"{name} at {width} px:\n" + "\n".join(overflowing[:15])


@pytest.mark.slow
def test_the_devanagari_of_the_title_has_a_font(chromium, site_url):
    """आकार must not fall back to empty boxes on a machine without an Indic font: the site ships one."""
    page, problems = open_page(chromium, f"{site_url}/intro.html")
    try:
        assert "आकार" in page.inner_text("main")
        loaded = page.evaluate("""async () => (await document.fonts.load('16px "aakaar Devanagari"', 'आकार')).length""")
    finally:
        page.close()
    assert loaded >= 1, "the book's Devanagari font (book/_ext/static/fonts) did not load"
    assert not problems, problems


@pytest.mark.slow
def test_the_overflow_check_sees_spilled_and_cut_off_content(chromium):
    """The check above can fail: content wider than its box, spilling past the column or clipped."""
    page = chromium.new_page(viewport={"width": 800, "height": 600})
    try:
        page.set_content("""<main><article style="width: 600px">
            <div id="spill" style="width: 300px"><div style="width: 900px">wide</div></div>
            <div style="width: 300px; overflow: hidden"><div style="width: 400px">clipped</div></div>
            <div style="width: 300px; overflow-x: auto"><div style="width: 900px">scrolls: fine</div></div>
            <p>short text</p></article></main>""")
        found = page.evaluate(OVERFLOW_JS)
    finally:
        page.close()
    assert any("content 900px wide in a 300px box (runs 300px past the column)" in f for f in found), found
    assert any("(cut off)" in f for f in found), found
    assert len(found) == 3, found  # the spilling div, the clipped div, and the page wider than the window
