"""aakaar.jit tests compile real C++ (a few seconds each), into a cache folder of their own."""
from __future__ import annotations

import shutil

import pytest

# Skipped, not failed, where there is no compiler (the no-compiler error is tested without one).
needs_compiler = pytest.mark.skipif(shutil.which("c++") is None, reason="no C++ compiler (aakaar.jit needs one)")


@pytest.fixture(scope="session")
def jit_cache(tmp_path_factory):
    """One cache folder for the session (AAKAAR_JIT_CACHE), so modules compile once."""
    return tmp_path_factory.mktemp("jit-cache")


@pytest.fixture(autouse=True)
def _use_cache(jit_cache, monkeypatch):
    monkeypatch.setenv("AAKAAR_JIT_CACHE", str(jit_cache))
    monkeypatch.delenv("AAKAAR_JIT_CXX", raising=False)
