"""Sphinx extension: keep the book's pages free of anything that needs the network.

Jupyter Book 1 always loads sphinx-thebe (live code via Binder). Offline it cannot work, and it
registers its configuration script twice per page, which throws "Identifier 'THEBE_JS_URL' has
already been declared" in every browser. Removing its event listeners and its stylesheet once all
extensions are set up drops the scripts, the unpkg URL they carry, and a link to a CSS file that
would no longer be copied.
"""
from __future__ import annotations


def _drop_thebe(app, config) -> None:
    for event, listeners in app.events.listeners.items():
        listeners[:] = [l for l in listeners if not getattr(l.handler, "__module__", "").startswith("sphinx_thebe")]
    app.registry.css_files[:] = [(name, attrs) for name, attrs in app.registry.css_files if "thebe" not in name]


def setup(app):
    app.connect("config-inited", _drop_thebe, priority=900)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
