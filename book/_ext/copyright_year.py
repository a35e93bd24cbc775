"""Sphinx extension: the site footer's copyright runs to the year the book was built.

_config.yml gives the first year ("2025"); a fixed string would read as a stale site a year
later. Sphinx then applies SOURCE_DATE_EPOCH, if set, for reproducible builds.
"""
from __future__ import annotations

import datetime
import os


def build_year() -> int:
    epoch = os.environ.get("SOURCE_DATE_EPOCH")
    if epoch:
        return datetime.datetime.fromtimestamp(int(epoch), datetime.timezone.utc).year
    return datetime.date.today().year


def copyright_years(first: str, year: int) -> str:
    """'2025' -> '2025–2026' in 2026 (and '2025' in 2025); anything but a lone year is kept."""
    first = first.strip()
    if not first.isdigit() or int(first) >= year:
        return first
    return f"{first}–{year}"


def _extend(app, config) -> None:
    config.copyright = copyright_years(str(config.copyright), build_year())


def setup(app):
    app.connect("config-inited", _extend)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
