"""Shared fixtures for the book and exercise tests.

Prerequisites (nbval, Playwright, Debian's chromium, the vendored JavaScript) are skipped when absent
on a developer's machine, but in CI (CI=true), which installs everything, their absence fails.
"""
from __future__ import annotations

import os
import shutil

import pytest

IN_CI = os.environ.get("CI", "").lower() == "true"


def _need(condition: bool, reason: str) -> None:
    if condition:
        return
    if IN_CI:
        pytest.fail(f"prerequisite missing in CI: {reason}")
    pytest.skip(reason)


def _need_module(name: str):
    try:
        return __import__(name)
    except ImportError:
        _need(False, f"python package {name!r} is not installed (pip install -e '.[book,test]')")


def _need_program(name: str) -> str:
    path = shutil.which(name)
    _need(path is not None, f"{name!r} is not on PATH (bash scripts/install_book_deps.sh)")
    return path


@pytest.fixture(scope="session")
def need():
    """need(condition, reason): skip locally / fail in CI when a prerequisite is missing."""
    return _need


@pytest.fixture(scope="session")
def need_module():
    return _need_module


@pytest.fixture(scope="session")
def need_program():
    return _need_program


# ---- the built site, served on 127.0.0.1, and a headless Chromium (tests/book/test_site_*.py) ----------
# The site tests are one xdist group (see their pytestmark), so a session builds the book once and
# two workers never build into the same folder at the same time.

@pytest.fixture(scope="session")
def built_site():
    """Build the book once per session (execution is cached, so a rebuild mostly re-renders)."""
    import subprocess

    from site_helpers import REPO, SITE

    # A clone names no repository address; the launch buttons need one, so the tests' build uses a
    # placeholder unless one is given (test_site_launch.py checks the links against it).
    env = {**os.environ, "AAKAAR_REPOSITORY_URL": os.environ.get("AAKAAR_REPOSITORY_URL",
                                                                 "https://github.com/example/aakaar")}
    r = subprocess.run(["bash", "scripts/build_book.sh"], cwd=REPO, capture_output=True, text=True, timeout=1800,
                       env=env)
    assert r.returncode == 0, "book build failed:\n" + r.stdout[-6000:] + r.stderr[-4000:]
    return SITE


@pytest.fixture(scope="session")
def site_url(built_site):
    import functools
    import http.server
    import threading

    from site_helpers import QuietHandler

    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(QuietHandler, directory=str(built_site)))
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}"
    httpd.shutdown()


@pytest.fixture(scope="session")
def chromium(need, need_module):
    import pathlib

    from site_helpers import CHROMIUM, CHROMIUM_ARGS

    need_module("playwright")
    need(pathlib.Path(CHROMIUM).exists(), f"{CHROMIUM} is missing (bash scripts/install_book_deps.sh)")
    from playwright.sync_api import sync_playwright
    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS)
        yield b
        b.close()
