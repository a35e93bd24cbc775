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
