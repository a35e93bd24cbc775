"""Sphinx extension: the book's own stylesheet (book/_ext/static/aakaar-layout.css).

Jupyter Book 1 adds a <script> tag for every .js file in book/_static, so the book keeps no such
folder; this extension puts its one CSS file on the static path instead and links it from every page.
"""
from __future__ import annotations

from pathlib import Path

STATIC = Path(__file__).resolve().parent / "static"


def _add_static(app, config) -> None:
    config.html_static_path.append(str(STATIC))


def setup(app):
    app.connect("config-inited", _add_static)
    app.add_css_file("aakaar-layout.css")
    return {"parallel_read_safe": True, "parallel_write_safe": True}
