"""A test run ends with one short block: the skips grouped by reason, also under
pytest-xdist, instead of a line per skip; and tests for an absent CUDA device are
not collected hundreds of times to be skipped hundreds of times."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import aakaar

TESTS = Path(__file__).resolve().parents[1]

SAMPLE = '''
import pytest

@pytest.mark.parametrize("i", range(7))
def test_needs_a_gpu(i):
    pytest.skip("no GPU here")

@pytest.mark.skipif(True, reason="no EMNIST files")
@pytest.mark.parametrize("i", range(3))
def test_needs_data(i):
    pass

def test_runs():
    assert True
'''


def _pytest(*args: str, cwd: Path) -> str:
    r = subprocess.run([sys.executable, "-m", "pytest", "-p", "no:cacheprovider", *args], cwd=cwd,
                       capture_output=True, text=True, timeout=600)
    return r.stdout + r.stderr


def test_skips_are_grouped_by_reason_under_xdist(tmp_path):
    shutil.copy(TESTS / "conftest.py", tmp_path / "conftest.py")
    (tmp_path / "test_sample.py").write_text(SAMPLE)
    out = _pytest("-n", "2", "-q", cwd=tmp_path)
    lines = out.splitlines()
    assert "1 passed, 10 skipped" in out, out
    assert any("skipped: 10 tests, by reason" in line for line in lines), out
    assert "  7  no GPU here" in lines and "  3  no EMNIST files" in lines, out
    assert not any(line.startswith("SKIPPED") for line in lines), out  # no line per skip


def test_the_cuda_suite_is_collected_only_with_a_cuda_device():
    out = _pytest("--collect-only", "-q", str(TESTS / "cuda_backend"), cwd=TESTS.parent)
    suite_items = [line for line in out.splitlines() if "cuda_backend/suite/" in line]
    if aakaar.cuda.is_available():
        assert suite_items, out
    else:
        assert not suite_items, out
        assert "test_on_emulator.py::test_backend_suite_on_the_emulator" in out  # it runs the suite instead
        assert "not collected: the CUDA backend suite" in out, out
